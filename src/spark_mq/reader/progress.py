"""What the stream reader tells Spark about its queue in each StreamingQueryProgress.

Spark gives a Python source one place of its own there: the JSON of `reportLatestOffset()`,
shown as `sources[0].latestOffset` of every progress (pyspark 4.3: the source's
`description` is Spark's name for the stream object, `sources[0].metrics` stays empty, as
PythonMicroBatchStream reports no custom metrics, and the offsets Spark writes to its
checkpoint are better left to the protocol). So the reader puts its figures there, next
to `queue`, `queueDepth` and `seq`, each measured when the report is made (the driver, once
per trigger, after planning the batch):

    lag                        messages of the queue this query has not committed yet: the
                               queue's depth plus what it holds in open units of work (the
                               batch being processed, the one prefetched); a prefetch still
                               getting when the report is made is counted only once done,
                               so the lag may then be short by what it has got so far
    oldestMessageAgeSeconds    age of the oldest of those held messages (their MQMD put
                               time); 0 when the queue and the query hold none; null when
                               the queue has messages but the query holds none of them
    committedMessages, committedBytes   committed off the queue since the query started
    messagesPerSecond, bytesPerSecond   committed per second since the previous report
    latencyP50Ms, latencyP99Ms          from a message's put (MQMD PutDate/PutTime, to the
                               hundredth of a second, the putter's clock) to the commit of
                               its batch off the queue, over the messages committed since
                               the previous report; null when none was
    redeliveredMessages        delivered with a BackoutCount above 0: a unit of work that
                               had them was backed out before (a failed batch, a crash)
    poisonMessagesMoved        moved to the backout queue (BackoutCount >= BOTHRESH)
    notTextMessagesMoved       requireText only: messages that are not text moved to the
                               backout queue by the batches committed so far and those the
                               query holds (committed with them, or back on the queue if a
                               crash backs them out), and
    notTextMovedTo             where they go (null: no backout queue and no DEADQ)
    outage                     null, or while the queue manager is away the outage going
                               on: {since, attempts, reason, reasonName, connection,
                               givesUpAt}; the triggers then end without a batch
                               (reader/outages.py) and the report holds only queue, seq,
                               the committed and redelivered counts, outage and lastOutage
    lastOutage                 the last lost connection this driver rode out (or is riding
                               out): as `outage`, with `ended` (null while it goes on)
                               instead of givesUpAt; null if none

Spark's own `numInputRows`, `inputRowsPerSecond` and `processedRowsPerSecond` count the
rows Spark read, and stay the figures for that.
"""
from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from spark_mq.columns import put_timestamp_micros
from spark_mq.mq.message import MD_INDEX, Message

_DATE, _TIME, _BACKOUT = MD_INDEX["PutDate"], MD_INDEX["PutTime"], MD_INDEX["BackoutCount"]


class ReaderProgress:
    """The reader's counts since the query started, and the window since the last report."""

    def __init__(self) -> None:
        self.committed_messages = 0
        self.committed_bytes = 0
        self.redelivered = 0
        self._latencies: list[float] = []      # milliseconds, since the last report
        self._reported_at = time.monotonic()
        self._reported_counts = (0, 0)

    def delivered(self, batch: Sequence[Message]) -> None:
        """A batch handed to Spark."""
        self.redelivered += sum(1 for m in batch if m.md[_BACKOUT])

    def committed(self, batch: Sequence[Message], now: float | None = None) -> None:
        """A batch committed off the queue (MQCMIT) at `now` (time.time())."""
        now = time.time() if now is None else now
        self.committed_messages += len(batch)
        self.committed_bytes += sum(len(m.payload) for m in batch)
        for message in batch:
            put = put_time(message)
            if put is not None:
                self._latencies.append(max(0.0, now - put) * 1000)

    def report(self, queue: str, depth: int, held: Iterable[Sequence[Message]], poison_moved: int,
               seq: int, now: float | None = None) -> dict:
        """reportLatestOffset's JSON (see the module docstring)."""
        now = time.time() if now is None else now
        held_messages = [m for batch in held for m in batch]
        elapsed = max(time.monotonic() - self._reported_at, 1e-6)
        messages0, bytes0 = self._reported_counts
        latencies, self._latencies = sorted(self._latencies), []
        self._reported_at = time.monotonic()
        self._reported_counts = (self.committed_messages, self.committed_bytes)
        return {
            "queue": queue, "queueDepth": depth, "seq": seq,
            "lag": depth + len(held_messages),
            "oldestMessageAgeSeconds": _oldest_age(held_messages, depth, now),
            "committedMessages": self.committed_messages,
            "committedBytes": self.committed_bytes,
            "messagesPerSecond": round((self.committed_messages - messages0) / elapsed, 1),
            "bytesPerSecond": round((self.committed_bytes - bytes0) / elapsed, 1),
            "latencyP50Ms": percentile(latencies, 50),
            "latencyP99Ms": percentile(latencies, 99),
            "redeliveredMessages": self.redelivered,
            "poisonMessagesMoved": poison_moved,
        }

    def in_outage(self, queue: str, seq: int, outage: dict, last: dict | None) -> dict:
        """reportLatestOffset's JSON while the connection is lost: what needs no MQ call."""
        return {"queue": queue, "seq": seq, "committedMessages": self.committed_messages,
                "committedBytes": self.committed_bytes, "redeliveredMessages": self.redelivered,
                "outage": outage, "lastOutage": last}


def put_time(message: Message) -> float | None:
    """The message's MQMD put time, seconds since the epoch (None: not a time)."""
    micros = put_timestamp_micros(message.md[_DATE], message.md[_TIME])
    return None if micros is None else micros / 1e6


def percentile(ordered: Sequence[float], wanted: float) -> float | None:
    """The nearest-rank percentile of sorted values, rounded to 0.1 ms; None for none."""
    if not ordered:
        return None
    rank = max(0, min(len(ordered) - 1, -(-len(ordered) * wanted // 100) - 1))
    return round(ordered[int(rank)], 1)


def _oldest_age(held: Sequence[Message], depth: int, now: float) -> float | None:
    times = [t for t in (put_time(m) for m in held) if t is not None]
    if times:
        return round(max(0.0, now - min(times)), 1)
    return 0.0 if depth == 0 else None
