"""Message channels between queue managers (IBM MQ's distributed queuing), in the
queue-manager process: a sender channel (SDR) moves the messages of a transmission queue to
the receiver channel (RCVR) of the same name on its partner, which puts each message, behind
its MQXQH, to the queue it names there (or onwards: a middle hop).

Assured delivery, the way this queue manager does it (link.py has the frames):

* The sender gets a batch (up to BATCHSZ messages) from the transmission queue under
  syncpoint and sends it; the receiver puts the messages under syncpoint and, in the SAME
  unit of work, replaces its sync record for the channel (sync.py, on SYSTEM.CHANNEL.SYNCQ):
  the batch's id, its last sequence number and the MsgIds of its transmission messages.
  Then it commits and confirms; then the sender commits its gets.
* Between the two commits the sender is in doubt. If anything breaks there (either queue
  manager killed, the network, a timeout), the sender backs out: the batch is back on the
  transmission queue. When the channel starts again, the receiver's first answer carries
  its sync record, and the sender removes from its transmission queue the messages of that
  batch it still holds (the receiver had committed them) before it sends anything. So
  every persistent message arrives exactly once, whoever was killed and when.
* NPMSPEED(FAST) non-persistent messages are got and put outside the batch's unit of work
  (MQGMO_SYNCPOINT_IF_PERSISTENT): a queue manager that dies may lose them, as on IBM MQ.

sender.py and receiver.py are the two agents (MCAs); initiator.py starts, stops, pings and
resolves channels and starts the sender of a triggered transmission queue when messages
arrive; status.py is what DISPLAY CHSTATUS shows; dead_letters.py puts what a receiver
cannot deliver on the dead-letter queue behind an MQDLH.
"""
