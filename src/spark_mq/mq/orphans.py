"""Waiting out orphaned units of work before a restarted reader removes a finished batch.

After a restart the reader removes, by MsgId, the messages of the batch Spark finished but
MQ had not committed (the old driver died between the two commits). If the old driver's
connection is still open on the queue manager - a host that died or a network that split,
until the queue manager's heartbeat (HBINT) or TCP keepalive notices - those messages are
still locked by its unit of work: a get by MsgId finds nothing, and when that connection is
finally backed out they come back and would be delivered again. IBM's Kafka Connect MQ
source waits for such orphaned work for the same reason.

The reader must be the queue's only consumer, so any other connection with the queue open
for input (MQIA_OPEN_INPUT_COUNT, counted while the reader itself has it closed) is such an
orphan: wait, bounded, until there is none.
"""
from __future__ import annotations

import logging
import time
from typing import Any

from spark_mq.mq.connecting import ConnectionOptions, connected, load_ibmmq
from spark_mq.mq.exceptions import MQConnectorError, describe
from spark_mq.mqi.constants import CMQC

log = logging.getLogger(__name__)


def wait_for_sole_consumer(connection: ConnectionOptions, queue: str, timeout_ms: int,
                           poll_seconds: float = 0.2) -> float:
    """Block until no other connection has `queue` open for input; returns the seconds
    waited. Raises MQConnectorError naming the option when `timeout_ms` runs out."""
    ibmmq = load_ibmmq(connection.transport)
    with connected(connection, f"connecting to queue manager {connection.queue_manager} to "
                               f"check {queue} for orphaned units of work") as qmgr:
        started = time.monotonic()
        handle = _open_for_inquire(ibmmq, qmgr, queue)
        try:
            warned = False
            while True:
                others = int(handle.inquire(CMQC.MQIA_OPEN_INPUT_COUNT))
                waited = time.monotonic() - started
                if others == 0:
                    if warned:
                        log.warning("%s: the other connection has gone after %.1f s", queue,
                                    waited)
                    return waited
                if waited * 1000 >= timeout_ms:
                    raise _still_open(queue, others, timeout_ms)
                if not warned:
                    log.warning("%s: %d other connection(s) have the queue open for input; "
                                "waiting up to %d ms for the queue manager to end them before "
                                "removing the finished batch", queue, others, timeout_ms)
                    warned = True
                time.sleep(poll_seconds)
        finally:
            handle.close()


def _open_for_inquire(ibmmq: Any, qmgr: Any, queue: str) -> Any:
    try:
        return ibmmq.Queue(qmgr, queue, CMQC.MQOO_INQUIRE | CMQC.MQOO_FAIL_IF_QUIESCING)
    except ibmmq.MQMIError as exc:
        raise describe(exc, f"opening queue {queue} to inquire its open input count") from exc


def _still_open(queue: str, others: int, timeout_ms: int) -> MQConnectorError:
    return MQConnectorError(
        f"queue {queue} is still open for input by {others} other connection(s) after "
        f"{timeout_ms} ms, so messages of the batch Spark finished before the restart may be "
        "locked by an orphaned unit of work and would come back later. It is either an "
        "earlier driver of this query whose connection the queue manager has not ended yet "
        "(it ends it after the channel's heartbeat interval, HBINT, or TCP keepalive), or "
        "another consumer of the queue (not supported: the reader must be its only "
        "consumer). Valid: wait and restart, end that connection (MQSC STOP CONN), or "
        "raise option 'orphanedWorkTimeoutMs'")
