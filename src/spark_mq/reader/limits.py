"""The size of the next micro-batch: the reader's options capped by Spark's read limit
(admission control: ReadMaxRows from maxMessagesPerTrigger, ReadMaxBytes), and none at all
while the stopFile exists (a graceful stop: both read modes then plan no batch).

minMessagesPerTrigger/maxTriggerDelay are Kafka's minOffsetsPerTrigger/maxTriggerDelay, kept
by the reader itself (`TriggerMinimum`): Spark's Python API passes one ReadLimit at a time
and a ReadMinRows carries no delay, so getDefaultReadLimit stays ReadMaxRows and the reader
answers "no new offset" (no batch) while fewer messages than the minimum are available and
the delay, counted from the query's first trigger or its last batch, has not passed. Under
Trigger.AvailableNow the minimum is ignored: the run must end with the queue drained."""
from __future__ import annotations

import os
import time

from pyspark.sql.streaming.datasource import ReadLimit, ReadMaxBytes, ReadMaxRows

from spark_mq.options import ReadOptions


def batch_limits(options: ReadOptions, limit: ReadLimit) -> tuple[int, int]:
    """(most messages, most payload bytes) for the next micro-batch."""
    if options.stop_file is not None and os.path.exists(options.stop_file):
        return 0, 0
    max_messages, max_bytes = options.max_messages, options.max_bytes
    if isinstance(limit, ReadMaxRows):
        max_messages = min(max_messages, int(limit.max_rows))
    elif isinstance(limit, ReadMaxBytes):
        max_bytes = min(max_bytes, int(limit.max_bytes))
    return max_messages, max_bytes


class TriggerMinimum:
    """When minMessagesPerTrigger holds a batch back (see the module docstring)."""

    def __init__(self, minimum: int | None, max_delay_ms: int) -> None:
        self.minimum, self.max_delay_ms = minimum, max_delay_ms
        self._since: float | None = None    # the first trigger, then the last batch planned

    @property
    def active(self) -> bool:
        return self.minimum is not None

    def holds_back(self, available: int) -> bool:
        """Whether to plan no batch now, with `available` messages there to get."""
        if self.minimum is None:
            return False
        now = time.monotonic()
        if self._since is None:
            self._since = now
        if available >= self.minimum:
            return False
        # with nothing there no batch comes anyway: the next message then goes at once
        return (now - self._since) * 1000 < self.max_delay_ms

    def batch_planned(self) -> None:
        self._since = time.monotonic()
