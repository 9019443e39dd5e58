"""Triggering (IBM MQ's "Starting IBM MQ applications using triggers"), in the queue-manager
process, under its lock: when a message arrives on a triggered local queue and IBM's
conditions hold, the queue manager puts a trigger message (an MQTM, Format MQTRIG) on the
queue's initiation queue, for a trigger monitor to start the queue's process.

The core (put.py, units_of_work.py, verbs/pubsub/delivery.py, handles.py, inquire.py,
definitions.py) calls only hook.py, a handful of one-line entry points; nothing else here is
imported from outside the package, and nothing here imports the core's verb modules (no
import cycles):

    hook.py             the events the core reports: messages arrived, a unit of work ended,
                        a queue's first input opener came or its last one went, attributes changed
    conditions.py       IBM's conditions for a trigger event
    trigger_messages.py the trigger message (MQMD and MQTM) and where it goes: the initiation
                        queue, the unit of work, or the dead-letter queue behind an MQDLH
    trigger_state.py    what triggering remembers per queue manager (not stored: a restart
                        starts afresh, as trigger messages are non-persistent anyway)
"""
