"""A local queue's status, as DISPLAY QSTATUS TYPE(QUEUE) and PCF Inquire Queue Status
show it and the metrics exporter reads it (runs in the queue-manager process, under its
lock).

Depth, open handles and uncommitted messages are always there. The monitoring figures
(IBM's MONQ: MSGAGE, QTIME, LPUTDATE/LPUTTIME, LGETDATE/LGETTIME) only when queue
monitoring is on for the queue, as IBM MQ decides it: the queue's MONQ, or with MONQ(QMGR)
the queue manager's; the queue manager's MONQ(NONE) switches it off for every queue. With
it off they are None here, which DISPLAY shows blank and PCF as MQMON_NOT_AVAILABLE (-1).
The statistics themselves are kept whatever MONQ says (events/statistics.py): switching
monitoring on shows what was counted since the queue manager started.

MSGAGE is the age of the oldest message available on the queue (committed, not taken by
a unit of work), found without reading the queue: a FIFO queue's oldest message is its
first, and a PRIORITY queue delivers each priority in arrival order, so its oldest message
is the oldest of the first message of each priority; a deep queue's store is read only as
a get would read it (queues.LocalQueue.scan).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from spark_mq.embedded.server.core.message_rows import clamped, order_key
from spark_mq.embedded.server.core.queue_objects import I_PRIORITY, LocalQueue, Message
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.embedded.server.events import statistics

OFF = "OFF"
#: the largest MSGAGE and QTIME IBM MQ displays
DISPLAY_MAX = 999_999_999


@dataclass(frozen=True)
class QueueStatus:
    depth: int
    input_handles: int
    output_handles: int
    uncommitted: int
    monitoring: str                   # the queue's MONQ in effect: OFF, LOW, MEDIUM or HIGH
    oldest_age: int | None            # seconds (0: empty); None: monitoring off
    qtime: tuple[int, int] | None     # microseconds, short and long term; None: off or no get yet
    last_put: float | None            # time.time(); None: off, or no put since the start
    last_get: float | None


def monitoring(qm: QueueManagerState, queue: LocalQueue) -> str:
    """The queue's monitoring level in effect (IBM's rules for MONQ, see the docstring)."""
    own, qmgr = str(queue.attrs.get("MONQ", "QMGR")), str(qm.attrs.get("MONQ", OFF))
    if qmgr == "NONE":
        return OFF
    return qmgr if own == "QMGR" else own


def status(qm: QueueManagerState, queue: LocalQueue, monitored: bool | None = None) -> QueueStatus:
    """The queue's status; `monitored` overrides MONQ (the exporter reports everything)."""
    level = monitoring(qm, queue)
    if not (level != OFF if monitored is None else monitored):
        return QueueStatus(*_always(qm, queue), level, None, None, None, None)
    stats = statistics.of(queue)
    qtime = None
    if stats.qtime_short is not None and stats.qtime_long is not None:
        qtime = (_displayable(stats.qtime_short), _displayable(stats.qtime_long))
    return QueueStatus(*_always(qm, queue), level, oldest_message_age(queue, time.time()),
                       qtime, stats.last_put, stats.last_get)


def _always(qm: QueueManagerState, queue: LocalQueue) -> tuple[int, int, int, int]:
    """Depth, input and output handles and uncommitted messages: shown whatever MONQ says."""
    return (queue.depth, queue.input_shared + queue.input_exclusive, queue.output_count,
            uncommitted(qm, queue))


def uncommitted(qm: QueueManagerState, queue: LocalQueue) -> int:
    """Messages put or got on the queue in units of work not yet committed."""
    gets = sum(1 for conn in qm.connections.values()
               for message in conn.uow_gets if message.queue is queue)
    return queue.pending_puts + gets


def oldest_message_age(queue: LocalQueue, now: float) -> int:
    """MSGAGE: seconds since the oldest available message was put; 0 when there is none."""
    oldest = oldest_available(queue)
    arrived = statistics.arrival(oldest) if oldest is not None else None
    return 0 if arrived is None else _displayable(max(0.0, now - arrived))


def oldest_available(queue: LocalQueue) -> Message | None:
    """The available message that arrived first (the lowest arrival number)."""
    if not queue.by_priority:
        return next(queue.scan(None), None)
    oldest: Message | None = None
    cursor: int | None = None
    while (head := next(queue.scan(cursor), None)) is not None:   # one per priority present
        if oldest is None or head.seq < oldest.seq:
            oldest = head
        priority = clamped(head.md[I_PRIORITY])
        if priority == 0:
            break
        cursor = order_key(0, priority - 1, True) - 1   # past every message of this priority
    return oldest


def _displayable(value: float) -> int:
    return min(int(value), DISPLAY_MAX)


def local_date(stamp: float | None) -> str:
    """A time as IBM MQ shows LPUTDATE/LGETDATE: yyyy-mm-dd in the queue manager's time zone."""
    return time.strftime("%Y-%m-%d", time.localtime(stamp)) if stamp is not None else ""


def local_time(stamp: float | None) -> str:
    """... and LPUTTIME/LGETTIME: hh.mm.ss."""
    return time.strftime("%H.%M.%S", time.localtime(stamp)) if stamp is not None else ""
