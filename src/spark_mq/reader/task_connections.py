"""readMode executors: a task's connection (the consumer and the state queue on it), kept in
the Python worker for the worker's next task.

Spark reuses a Python worker for task after task. A task that connected afresh would pay,
before its first get, MQCONNX, two MQOPENs and the MQINQs of MAXUMSGS, BOTHRESH and BOQNAME,
and after its commit a backout, MQCLOSEs and MQDISC: about a dozen round trips per partition
and micro-batch, 50 ms on a link with 2 ms each way, the same whatever the partition's share.
So a task takes a kept connection, and gives it back only in the state it took it: its unit
of work committed (or nothing done in it), nothing open but the two queue handles. A task that
fails closes its connection (backing out first: MQDISC would commit), so the next one
connects afresh; a connection that broke while kept (a queue-manager restart) fails on first
use, and the reader does the attempt again on a new one (retry_while_lost). A connection idle
for IDLE_SECONDS is closed by a daemon thread: an open queue cannot be cleared or deleted by
its administrator (the pool is spark_mq.mq.idle_pool's, KEPT_PER_READER per reader). What
the consumer learnt when it opened (BOTHRESH, BOQNAME, MAXUMSGS) holds while its connection
is kept, as for readMode driver's connections.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from spark_mq.mq.claims import StateQueue
from spark_mq.mq.connecting import connect, load_ibmmq, quietly
from spark_mq.mq.idle_pool import IdlePool
from spark_mq.options import ReadOptions
from spark_mq.reader.slots import consumer_settings

IDLE_SECONDS = 60.0
KEPT_PER_READER = 4         # one per concurrent task of this process; Spark runs one per worker


@dataclass
class TaskConnection:
    ibmmq: Any
    qmgr: Any
    state: StateQueue
    consumer: Any               # spark_mq.mq.consumer.Consumer (owns the connection)

    def close(self) -> None:
        """Back out (MQDISC would commit open work), close the queues, disconnect."""
        quietly(self.ibmmq, "backing out a task's unit of work", self.qmgr.backout)
        self.state.close()
        self.consumer.close()


def _open(options: ReadOptions) -> TaskConnection:
    from spark_mq.mq.consumer import open_consumer
    connection = options.connection
    ibmmq = load_ibmmq(connection.transport)
    qmgr = connect(connection, f"connecting to queue manager {connection.queue_manager} "
                               f"at {connection.conn_name} to read")
    consumer = open_consumer(ibmmq, qmgr, options.queue, syncpoint=True,
                             **consumer_settings(options))
    try:
        state = StateQueue(ibmmq, qmgr, options.state_queue)
    except BaseException:
        consumer.close()        # disconnects too
        raise
    return TaskConnection(ibmmq, qmgr, state, consumer)


_kept: IdlePool[ReadOptions, TaskConnection] = IdlePool(
    "spark-mq-reader", TaskConnection.close, IDLE_SECONDS, KEPT_PER_READER)


def acquire(options: ReadOptions) -> TaskConnection:
    """A kept connection for these options, or a new one; give it back with release()."""
    return _kept.take(options) or _open(options)


def release(options: ReadOptions, connection: TaskConnection, reusable: bool) -> None:
    """Keep the connection for the next task, or close it. `reusable` only when its unit of
    work is committed or empty and nothing failed on it."""
    if reusable:
        _kept.put_back(options, connection)
    else:
        connection.close()


def close_idle(max_idle: float = IDLE_SECONDS) -> int:
    """Close the connections kept idle for at least `max_idle` seconds; returns how many."""
    return _kept.close_idle(max_idle)
