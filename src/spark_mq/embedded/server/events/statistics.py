"""A local queue's statistics (runs in the queue-manager process, under the queue manager's
lock), counted by the one hook of the put and get paths (performance.depth_changed) and by
a backout (`backed_out`). Two kinds:

* since the last reset: what every performance event reports (TimeSinceReset, HighQDepth,
  MsgEnqCount, MsgDeqCount) and then resets, as IBM MQ's performance events do;
* since the queue manager started, never reset: what IBM MQ keeps with queue monitoring on
  (MONQ) and DISPLAY QSTATUS shows (LPUTDATE/LPUTTIME, LGETDATE/LGETTIME, QTIME), and the
  counts the metrics exporter (server/metrics/) reports as IBM's collectors name them:
  messages and bytes put and got, puts and gets rolled back. The queue manager's own
  totals (`totals_of`) outlive its queues, so that its counters never go down.

QTIME is IBM's pair of indicators of the time a message spends on the queue, from its put
to its destructive get (an uncommitted put's wait for its commit included), in
microseconds: a short-term and a long-term average in which later messages weigh more
(IBM publishes no formula; here exponentially weighted averages over about the last 8 and
the last 128 messages got). A message's time of arrival is the queue manager's own clock
at the put (queues.Message.arrived); a persistent message read back from the store (a
queue deeper than its memory, or a restart) has only its MQMD's PutDate/PutTime, to the
hundredth of a second, which the putter sets itself with MQPMO_SET_ALL_CONTEXT.

Everything is kept in memory: a restart starts the statistics again, as on IBM MQ. A
queue's statistics start when the queue is first used after the queue manager starts; a
queue deleted takes its statistics with it.
"""
from __future__ import annotations

import calendar
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from spark_mq.embedded.server.core.queue_objects import LocalQueue, Message
from spark_mq.embedded.server.core.state import FeatureState, QueueManagerState
from spark_mq.mqi.structs import MD

_I_PUTDATE, _I_PUTTIME = MD.index["PutDate"], MD.index["PutTime"]
#: the weight of the latest message in the short-term and long-term QTIME averages
SHORT_WEIGHT, LONG_WEIGHT = 1 / 8, 1 / 128


@dataclass
class QueueStatistics:
    # since the last reset (performance events)
    high_depth: int = 0      # the most messages on the queue since the reset
    enqueued: int = 0        # messages put since the reset (uncommitted puts included)
    dequeued: int = 0        # messages taken by gets since the reset
    reset_at: float = field(default_factory=time.monotonic)
    # the service timer of service interval events (performance.py): time.monotonic() of its
    # start, None while it is stopped
    service_timer: float | None = None
    # since the queue manager started (DISPLAY QSTATUS with MONQ on, the metrics exporter)
    puts: int = 0            # messages put (uncommitted puts included, as MQ counts them)
    put_bytes: int = 0
    gets: int = 0            # messages taken by destructive gets
    got_bytes: int = 0
    rolled_back_puts: int = 0
    rolled_back_gets: int = 0   # gets backed out: their messages are back on the queue
    last_put: float | None = None   # time.time() of the last put
    last_get: float | None = None   # ... and of the last destructive get
    qtime_short: float | None = None   # microseconds; None: no message got yet
    qtime_long: float | None = None

    def reset(self, depth: int) -> None:
        self.high_depth, self.enqueued, self.dequeued = depth, 0, 0
        self.reset_at = time.monotonic()

    def seconds_since_reset(self) -> int:
        return int(time.monotonic() - self.reset_at)

    def put(self, messages: Sequence[Message], now: float) -> None:
        self.puts += len(messages)
        self.put_bytes += sum(len(m.body) for m in messages)
        self.last_put = now

    def got(self, messages: Sequence[Message], now: float) -> None:
        self.gets += len(messages)
        self.got_bytes += sum(len(m.body) for m in messages)
        self.last_get = now
        for message in messages:
            arrived = arrival(message)
            if arrived is not None:
                self._queue_time(max(0.0, now - arrived) * 1e6)

    def _queue_time(self, micros: float) -> None:
        if self.qtime_short is None or self.qtime_long is None:
            self.qtime_short = self.qtime_long = micros
            return
        self.qtime_short += (micros - self.qtime_short) * SHORT_WEIGHT
        self.qtime_long += (micros - self.qtime_long) * LONG_WEIGHT


@dataclass
class QueueManagerTotals:
    """The queue manager's counts over all its queues since it started (never reset)."""
    puts: int = 0
    gets: int = 0
    rolled_back: int = 0      # puts and gets backed out (IBM's STATMQI "Rollback count" counts UOWs)


_TOTALS: FeatureState[QueueManagerTotals] = FeatureState("queue manager totals",
                                                       lambda qm: QueueManagerTotals())


def of(queue: LocalQueue) -> QueueStatistics:
    """The queue's statistics, started now (at its current depth) if it has none yet."""
    found: QueueStatistics | None = queue.statistics
    if found is None:
        found = queue.statistics = QueueStatistics(high_depth=queue.depth)
    return found


def totals_of(qm: QueueManagerState) -> QueueManagerTotals:
    return _TOTALS.of(qm)


def backed_out(qm: QueueManagerState, puts: Iterable[Message], gets: Iterable[Message]) -> None:
    """A unit of work backed out: its puts are gone, its gets back on their queues."""
    totals = totals_of(qm)
    for messages, rolled_back_gets in ((puts, False), (gets, True)):
        for message in messages:
            stats = of(message.queue)
            if rolled_back_gets:
                stats.rolled_back_gets += 1
            else:
                stats.rolled_back_puts += 1
            totals.rolled_back += 1


def arrival(message: Message) -> float | None:
    """When the message was put on its queue (seconds since the epoch), None if unknown."""
    if message.arrived:
        return message.arrived
    return put_time(message.md[_I_PUTDATE], message.md[_I_PUTTIME])


_DAYS: dict[bytes, float] = {}


def put_time(put_date: bytes, put_time_text: bytes) -> float | None:
    """MQMD PutDate YYYYMMDD and PutTime HHMMSSTH (GMT) as seconds since the epoch; None
    when they are not a time (blank: MQPMO_NO_CONTEXT; anything a putter set)."""
    day = _DAYS.get(put_date)
    if day is None:
        try:
            day = float(calendar.timegm(time.strptime(put_date.decode("ascii"), "%Y%m%d")))
        except (UnicodeDecodeError, ValueError):
            return None
        if len(_DAYS) < 1024:    # a backlog spans few days; a putter's odd dates are not kept
            _DAYS[put_date] = day
    digits = put_time_text[:8]
    if len(digits) != 8 or not digits.isdigit():
        return None
    hours, minutes, seconds, hundredths = (int(digits[i:i + 2]) for i in range(0, 8, 2))
    return day + hours * 3600 + minutes * 60 + seconds + hundredths / 100
