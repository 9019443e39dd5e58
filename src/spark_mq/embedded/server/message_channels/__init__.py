"""Message channels between queue managers (IBM MQ's distributed queuing), in the
queue-manager process: a sender channel (SDR) moves the messages of a transmission queue to
the receiver channel (RCVR) of the same name on its partner, which puts each message, behind
its MQXQH, to the queue it names there (or onwards: a middle hop).

Assured delivery, the way this queue manager does it (link.py has the frames):

* The sender gets a batch (up to BATCHSZ messages) from the transmission queue under
  syncpoint and sends it, each message with the next sequence number (1..SEQWRAP); before
  the batch's END it makes its own record durable (sync.py, on SYSTEM.CHANNEL.SYNCQ): the
  batch is in doubt, with its LUWID (a random batch id), first and last sequence numbers
  and exactly which transmission messages it took. The receiver checks every sequence
  number, the batch's size and its END, puts the messages under syncpoint and, in the SAME
  unit of work, replaces its own record for the channel: the LUWID and last sequence
  number. Then it commits and confirms; then the sender commits its gets together with its
  record (last sequence number and LUWID, nothing in doubt).
* Between the two commits the sender is in doubt. If anything breaks there (either queue
  manager killed, the network, a timeout), the sender's gets are backed out: the batch is
  back on the transmission queue. When the channel starts again, the receiver's answer to
  the hello carries its record, and the sender reconciles its books with it: the partner
  committed the in-doubt batch (its record names that LUWID and last sequence number) ->
  the sender removes exactly the messages its own record names; the partner did not (its
  record is the sender's last committed state) -> they are sent again; no batch in doubt
  -> nothing is removed, whatever the partner says. Records that do not reconcile stop the
  sender (AMQ9526, STOPPED) until RESET CHANNEL. So every persistent message arrives
  exactly once, whoever was killed and when, and no partner can make the sender drop a
  message it did not confirm.
* NPMSPEED(FAST) non-persistent messages are got and put outside the batch's unit of work
  (MQGMO_SYNCPOINT_IF_PERSISTENT): a queue manager that dies may lose them, as on IBM MQ;
  one the receiver cannot put goes to its dead-letter queue, and is discarded (AMQ9565)
  only when there is none.

sender.py and receiver.py are the two agents (MCAs); initiator.py starts, stops, pings and
resolves channels and starts the sender of a triggered transmission queue when messages
arrive; core/channel_status.py is what DISPLAY CHSTATUS shows; saved_status.py keeps a
STOPPED (or RETRYING) channel's state across a restart and reads the saved status (DISPLAY
CHSTATUS SAVED) from the channel's books; requester.py and serving.py are the server (SVR) and
requester (RQSTR) channels, on the same two agents; dead_letters.py puts what a receiver cannot deliver
on the dead-letter queue behind an MQDLH. Cluster channels run on the same agents (a CLUSSDR
as a sender on SYSTEM.CLUSTER.TRANSMIT.QUEUE, a CLUSRCVR as a receiver, one instance per
sending member), and repository.py is clustering's repository manager (server/clusters/).
"""
