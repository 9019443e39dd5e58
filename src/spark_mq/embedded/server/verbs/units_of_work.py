"""Units of work: MQCMIT and MQBACK of a connection's syncpoint puts and gets.

Runs in the queue-manager process, under the queue manager's lock (see qmgr.py). Puts
under syncpoint wait on the connection (counted in their queue's depth) and gets under
syncpoint are already off their queue; commit makes both durable in one store transaction,
backout puts the gotten messages back with their backout count raised. Trigger messages
made by the unit of work's puts appear at its end (triggering/). A commit the store
cannot write (disk full, I/O error) is backed out and answers 2003 MQRC_BACKED_OUT, as IBM
MQ's MQCMIT does; a backout count it cannot harden stays in memory (it counts again after a
restart from the stored one). A commit stores, in the same transaction, the COA reports of
its puts and the COD reports of its gets (reports.of_unit_of_work); a backout sends none.
"""
from __future__ import annotations

from spark_mq.embedded.server.core.faults import fail_point
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.queue_objects import I_BACKOUT
from spark_mq.embedded.server.core.state import Connection, QueueManagerState
from spark_mq.embedded.server.core.store import StoreError
from spark_mq.embedded.server.events import backed_out
from spark_mq.embedded.server.triggering import hook as triggering
from spark_mq.embedded.server.verbs import reports
from spark_mq.embedded.server.verbs.pubsub import retained
from spark_mq.embedded.server.verbs.put import put1
from spark_mq.mqi.constants import CMQC


def commit(qm: QueueManagerState, conn: Connection) -> None:
    carrier: Connection | None = None
    try:
        if conn.conn_id in qm.pubsub.pending_retained:  # publications retained in the unit of work
            retained.commit(qm, conn)
        puts, gets = conn.uow_puts, conn.uow_gets
        if not puts and not gets:
            return
        fail_point("commit-begun")    # nothing stored yet: a restart backs the whole unit out
        # the COA reports of what arrived and the COD reports of what was got are stored with
        # the work they report on: a kill after the commit loses none, a failed commit sends none
        carrier = reports.of_unit_of_work(qm, put1, conn, puts, gets, conn.uow_whole_gets)
        arrived = puts + carrier.uow_puts if carrier is not None else puts
        inserts = [m for m in arrived if m.persistent]
        deletes = [m for m in gets if m.persistent]
        if inserts or deletes:
            qm.store.apply(inserts=inserts, deletes=[m.seq for m in deletes])
            fail_point("commit-stored")   # stored, nothing on a queue yet: a restart has it all
    except StoreError:
        if carrier is not None:
            backout(qm, carrier)
        backout(qm, conn)
        raise MQError(CMQC.MQRC_BACKED_OUT) from None
    for message in deletes:
        message.queue.settle(message)
    for message in arrived:
        queue = message.queue
        queue.pending_puts -= 1
        if qm.queues.get(queue.name) is queue:  # a queue deleted meanwhile takes nothing
            queue.insert(message)
    for ended in (conn, carrier) if carrier is not None else (conn,):
        triggering.unit_of_work_ended(qm, ended, committed=True)
        ended.uow_puts, ended.uow_gets, ended.uow_stream_copies = [], [], 0
        ended.uow_whole_gets = []
    if arrived:
        qm.arrived.notify_all()


def backout(qm: QueueManagerState, conn: Connection) -> None:
    qm.pubsub.pending_retained.pop(conn.conn_id, None)
    puts, gets = conn.uow_puts, conn.uow_gets
    if not puts and not gets:
        return
    for message in puts:
        message.queue.pending_puts -= 1
    backed_out(qm, puts, gets)
    triggering.unit_of_work_ended(qm, conn, committed=False)
    hardened = []
    for message in gets:
        message.md[I_BACKOUT] += 1
        queue = message.queue
        if qm.queues.get(queue.name) is queue:
            queue.insert(message)
            if message.persistent:
                hardened.append((message.seq, message.md[I_BACKOUT]))
    if hardened:
        try:
            qm.store.apply(backouts=hardened)
        except StoreError:
            pass    # the store logged it; the messages are back on their queues
    conn.uow_puts, conn.uow_gets, conn.uow_stream_copies = [], [], 0
    conn.uow_whole_gets = []
    if gets:
        qm.arrived.notify_all()
