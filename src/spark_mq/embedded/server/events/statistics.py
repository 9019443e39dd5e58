"""A local queue's statistics since they were last reset: what every performance event
reports (TimeSinceReset, HighQDepth, MsgEnqCount, MsgDeqCount) and then resets, as IBM MQ's
performance events do (runs in the queue-manager process, under the queue manager's lock).

They are kept in memory: a restart resets them, as it does on IBM MQ. A queue's statistics
start when the queue is first used after the queue manager starts (IBM: at the start, or
when the queue is defined); a queue deleted takes its statistics with it.
"""
from __future__ import annotations

import time
import weakref
from dataclasses import dataclass, field

from spark_mq.embedded.server.queues import LocalQueue


@dataclass
class QueueStatistics:
    high_depth: int = 0      # the most messages on the queue since the reset
    enqueued: int = 0        # messages put since the reset (uncommitted puts included)
    dequeued: int = 0        # messages taken by gets since the reset
    reset_at: float = field(default_factory=time.monotonic)

    def reset(self, depth: int) -> None:
        self.high_depth, self.enqueued, self.dequeued = depth, 0, 0
        self.reset_at = time.monotonic()

    def seconds_since_reset(self) -> int:
        return int(time.monotonic() - self.reset_at)


# weak: the statistics go with their queue (a dynamic queue deleted, a queue redefined)
_statistics: weakref.WeakKeyDictionary[LocalQueue, QueueStatistics] = weakref.WeakKeyDictionary()


def of(queue: LocalQueue) -> QueueStatistics:
    """The queue's statistics, started now (at its current depth) if it has none yet."""
    found = _statistics.get(queue)
    if found is None:
        found = _statistics[queue] = QueueStatistics(high_depth=queue.depth)
    return found
