"""The size of the next micro-batch: the reader's options capped by Spark's read limit
(admission control: ReadMaxRows from maxMessagesPerTrigger, ReadMaxBytes), and none at all
while the stopFile exists (a graceful stop: both read modes then plan no batch)."""
from __future__ import annotations

import os

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
