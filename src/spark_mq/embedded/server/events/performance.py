"""Queue depth events (IBM MQ's performance events; IBM docs "Queue depth events", "Queue
Depth High", "Queue Depth Low", "Queue Full"). Runs in the queue-manager process, under its
lock: `depth_changed` is called by the put and get paths.

With PERFMEV(ENABLED) on the queue manager, for a local queue:

* Queue Depth High (2224 MQRC_Q_DEPTH_HIGH): a put leaves the depth at or above QDEPTHHI
  percent of MAXDEPTH while QDPHIEV is ENABLED; then QDPHIEV DISABLED, QDPLOEV and QDPMAXEV
  ENABLED.
* Queue Depth Low (2225 MQRC_Q_DEPTH_LOW): a get leaves the depth at or below QDEPTHLO
  percent of MAXDEPTH while QDPLOEV is ENABLED; then QDPLOEV DISABLED, QDPHIEV and QDPMAXEV
  ENABLED.
* Queue Full (2053 MQRC_Q_FULL): a put is refused because the queue is full while QDPMAXEV
  is ENABLED; then QDPMAXEV DISABLED, QDPLOEV ENABLED.

The depth is IBM's CURDEPTH: uncommitted puts count from the put on, a get under syncpoint
takes its message off at once (units_of_work.py); a backout moves the depth without an event
(IBM: only a put raises High, only a get raises Low). Each event reports the queue's
statistics (statistics.py) and resets them. The flags the queue manager switches are the
queue's own attributes: DISPLAY shows them, and they are stored with the definition, so a
restart keeps them. With PERFMEV(DISABLED) nothing is generated and no flag moves; the
statistics are counted either way.

Queue service interval events (IBM docs "Queue service interval events", "Queue Service
Interval High", "Queue Service Interval OK", and its examples 1 to 3), also with
PERFMEV(ENABLED), by the queue's QSVCINT (milliseconds) and QSVCIEV (HIGH, OK or NONE):
the service timer starts at a put to an empty queue, restarts at a get that leaves messages
on the queue and stops at a get that empties it. A put or a get that finds the timer running
for longer than QSVCINT is Queue Service Interval High (2226 MQRC_Q_SERVICE_INTERVAL_HIGH)
while QSVCIEV is HIGH, which then becomes OK; a get within QSVCINT is Queue Service Interval
OK (2227 MQRC_Q_SERVICE_INTERVAL_OK) while QSVCIEV is OK, which then becomes HIGH. As on IBM
MQ the queue manager looks only when a put or a get comes: a queue nobody touches raises
nothing. The timer is kept in memory only (statistics.py); a restart stops it.
"""
from __future__ import annotations

import enum
import logging
import time
from collections.abc import Sequence

from spark_mq.embedded.server.core.pcf_structures import cfin, cfst
from spark_mq.embedded.server.core.queue_objects import TEMPORARY_DYNAMIC, LocalQueue, Message
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.embedded.server.core.store import StoreError
from spark_mq.embedded.server.events import statistics
from spark_mq.embedded.server.events.event_messages import PERFORMANCE_QUEUE, put_event
from spark_mq.mqi.constants import CMQC, CMQCFC

log = logging.getLogger("spark_mq.embedded")

ENABLED, DISABLED = "ENABLED", "DISABLED"


class DepthChange(enum.Enum):
    PUT = "put"          # messages put (under syncpoint or not): the depth went up
    GOT = "got"          # messages taken by a get: the depth went down
    FULL = "full"        # a put refused with MQRC_Q_FULL: the depth did not move


#: event reason -> (the flag that must be ENABLED, {flag: value} afterwards)
_RULES: dict[int, tuple[str, dict[str, str]]] = {
    CMQC.MQRC_Q_DEPTH_HIGH: ("QDPHIEV", {"QDPHIEV": DISABLED, "QDPLOEV": ENABLED,
                                         "QDPMAXEV": ENABLED}),
    CMQC.MQRC_Q_DEPTH_LOW: ("QDPLOEV", {"QDPLOEV": DISABLED, "QDPHIEV": ENABLED,
                                        "QDPMAXEV": ENABLED}),
    CMQC.MQRC_Q_FULL: ("QDPMAXEV", {"QDPMAXEV": DISABLED, "QDPLOEV": ENABLED}),
}


def depth_changed(qm: QueueManagerState, queue: LocalQueue, change: DepthChange,
                  messages: Sequence[Message] = ()) -> None:
    """The hook of the put and get paths: `messages` put or got on `queue` (its depth
    already changed), or a put refused because it is full."""
    stats = statistics.of(queue)
    if change is DepthChange.PUT:
        stats.enqueued += len(messages)
        stats.high_depth = max(stats.high_depth, queue.depth)
        stats.put(messages, time.time())
        statistics.totals_of(qm).puts += len(messages)
    elif change is DepthChange.GOT:
        stats.dequeued += len(messages)
        stats.got(messages, time.time())
        statistics.totals_of(qm).gets += len(messages)
    if qm.attrs.get("PERFMEV") != ENABLED:
        return
    _service_interval(qm, queue, change, stats, len(messages))
    reason = _event(queue, change)
    if reason and queue.attrs.get(_RULES[reason][0]) == ENABLED:
        _generate(qm, queue, reason, stats, _RULES[reason][1])


def _service_interval(qm: QueueManagerState, queue: LocalQueue, change: DepthChange,
                      stats: statistics.QueueStatistics, count: int) -> None:
    """The service timer and its events (see the module docstring)."""
    if change is DepthChange.FULL:
        return      # a refused put is no put
    now, started = time.monotonic(), stats.service_timer
    if started is not None:
        late = (now - started) * 1000 > int(queue.attrs.get("QSVCINT", 0))
        wanted = queue.attrs.get("QSVCIEV")
        if late and wanted == "HIGH":
            _generate(qm, queue, CMQC.MQRC_Q_SERVICE_INTERVAL_HIGH, stats, {"QSVCIEV": "OK"})
        elif not late and wanted == "OK" and change is DepthChange.GOT:
            _generate(qm, queue, CMQC.MQRC_Q_SERVICE_INTERVAL_OK, stats, {"QSVCIEV": "HIGH"})
    if change is DepthChange.GOT:
        stats.service_timer = now if queue.depth else None
    elif started is None and queue.depth - count <= 0:
        stats.service_timer = now      # a put to an empty queue


def _event(queue: LocalQueue, change: DepthChange) -> int:
    """The event this change is, if its limit is reached (0: none). The limits are compared
    as depth x 100 against percent x MAXDEPTH, so that no rounding moves them."""
    if change is DepthChange.FULL:
        return int(CMQC.MQRC_Q_FULL)
    scaled, maximum = queue.depth * 100, int(queue.attrs["MAXDEPTH"])
    if change is DepthChange.PUT and scaled >= int(queue.attrs["QDEPTHHI"]) * maximum:
        return int(CMQC.MQRC_Q_DEPTH_HIGH)
    if change is DepthChange.GOT and scaled <= int(queue.attrs["QDEPTHLO"]) * maximum:
        return int(CMQC.MQRC_Q_DEPTH_LOW)
    return 0


def _generate(qm: QueueManagerState, queue: LocalQueue, reason: int,
              stats: statistics.QueueStatistics, flags: dict[str, str]) -> None:
    """One performance event on `queue`; then its statistics are reset and `flags` set."""
    parameters = [
        cfst(CMQC.MQCA_Q_MGR_NAME, qm.name, CMQC.MQ_Q_MGR_NAME_LENGTH),
        cfst(CMQC.MQCA_BASE_OBJECT_NAME, queue.name, CMQC.MQ_Q_NAME_LENGTH),
        cfin(CMQC.MQIA_TIME_SINCE_RESET, stats.seconds_since_reset()),
        cfin(CMQC.MQIA_HIGH_Q_DEPTH, stats.high_depth),
        cfin(CMQC.MQIA_MSG_ENQ_COUNT, stats.enqueued),
        cfin(CMQC.MQIA_MSG_DEQ_COUNT, stats.dequeued),
    ]
    put_event(qm, PERFORMANCE_QUEUE, CMQCFC.MQCMD_PERFM_EVENT, reason, parameters)
    stats.reset(queue.depth)
    # the flags move whether or not the event queue could take the message, as IBM's do
    queue.attrs.update(flags)
    if queue.definition_type != TEMPORARY_DYNAMIC:   # a temporary queue is never stored
        try:
            qm.store.save_object(queue.kind, queue.name, dict(queue.attrs))
        except StoreError as exc:
            log.warning("queue %s: the event flags after event %d stay in memory only (the "
                        "store cannot write them: reason %d)", queue.name, reason, exc.reason)
