"""One partition of rows -> messages, in units of work of at most `commit_every` rows.

Exactly-once rests on one number: the marker committed with each unit of work records how
many rows of (batch, partition) are on the queue so far. A task that writes the batch again
(Spark's task retry, a replay after a crash or a lost commit file) skips exactly that many
rows and cuts its chunks from there.

Why a row count and not "chunk N done": the writer cannot tell the end of its partition from
an input cut off between two rows (pyarrow's IPC reader treats EOF between record batches
as a normal end, and that is what the writer sees when the JVM dies, an upstream operator
fails or `query.stop()` cancels the task). It commits what it has either way. A count stays
exact however the last chunk ended; a chunk number claimed rows that were never written, and
the replay skipped them (issue 14). The replay relies on Spark handing a batch the same rows
in the same order per partition, as it does for replayable sources.

Markers written by the chunk-numbered writer ({"batch", "chunk"}) are read with the rule
that wrote them: rows up to the end of chunk N as that writer cut them.

Without a ChunkLedger every row is written (at-least-once). Any failure backs out the open
unit of work and propagates.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from spark_mq.mq.markers import ChunkLedger, Position
from spark_mq.mq.outgoing import MessagePlan, Outgoing, RowValueError
from spark_mq.mq.producer import Producer, Target

#: one row, values in schema order (MessagePlan.message reads it)
Row: TypeAlias = Sequence[Any]


@dataclass
class SinkResult:
    rows: int = 0
    messages: int = 0
    chunks_written: int = 0
    rows_skipped: int = 0


class MarkerAheadError(RuntimeError):
    """The marker names a later batch than the one Spark is writing."""


@dataclass
class _Chunker:
    """Cuts chunks: at `commit_every` rows, or before a row whose messages would not fit in
    the unit of work (`max_messages`: MAXUMSGS less the marker's get and put)."""
    commit_every: int
    max_messages: int
    rows: int = 0
    messages: int = 0

    def full_before(self, count: int) -> bool:
        return bool(self.rows) and (self.rows >= self.commit_every
                                    or self.messages + count > self.max_messages)

    def add(self, count: int) -> None:
        self.rows += 1
        self.messages += count

    def reset(self) -> None:
        self.rows = self.messages = 0


def write_partition(rows: Iterable[Row], plan: MessagePlan, producer: Producer,
                    default_queue: str | None, commit_every: int, max_messages: int,
                    ledger: ChunkLedger | None = None, batch_id: int = 0) -> SinkResult:
    """Write rows; `max_messages` is the room in one unit of work (MAXUMSGS less markers).

    `default_queue` (the `queue` option) overrides the rows' `queue` column, as Spark's Kafka
    sink's `topic` option overrides its topic column: a DataFrame read from one queue (with
    its `queue` column) can be written to another by naming it."""
    result = SinkResult()
    chunker = _Chunker(commit_every, max_messages)
    holding_marker = False     # the open unit of work holds the marker it got
    try:
        remaining: Iterator[Row] = iter(rows)
        if ledger is not None:
            position = ledger.take()
            holding_marker = True
            remaining = _skip_written(remaining, position, batch_id, ledger, plan, producer,
                                      default_queue, chunker, result)
        for row in remaining:
            out, target, count = _prepare(row, plan, producer, default_queue)
            if chunker.full_before(count):
                holding_marker = _commit(producer, ledger, batch_id, holding_marker, result)
                chunker.reset()
            producer.send(out, target)
            chunker.add(count)
            result.messages += count
            result.rows += 1
        if chunker.rows:
            holding_marker = _commit(producer, ledger, batch_id, holding_marker, result)
        if holding_marker:
            producer.backout()     # nothing was written: give the marker back unchanged
    except BaseException:
        producer.backout()
        raise
    return result


def _prepare(row: Row, plan: MessagePlan, producer: Producer,
             default_queue: str | None) -> tuple[Outgoing, Target, int]:
    out = plan.message(row)
    target = producer.target(default_queue or _routed(out.queue))
    return out, target, producer.message_count(out, target)


def _skip_written(rows: Iterator[Row], position: Position | None, batch_id: int,
                  ledger: ChunkLedger, plan: MessagePlan, producer: Producer,
                  default_queue: str | None, chunker: _Chunker,
                  result: SinkResult) -> Iterator[Row]:
    """Consume the rows of this batch the marker says are on the queue; return the rest."""
    if position is None or position.batch < batch_id:
        return rows
    if position.batch > batch_id:
        # Spark only ever runs the last batch again, so this is a writer id used again by
        # a query with a new checkpoint: skipping would lose the batch, writing could double
        # it. Neither is right silently.
        raise MarkerAheadError(
            f"the exactly-once marker of writer id {ledger.writer_id!r}, partition "
            f"{ledger.partition} on state queue {ledger.queue_name!r} says batch "
            f"{position.batch} was written, but Spark is writing batch {batch_id}: a query with "
            "a new checkpoint reuses this writer id. Valid: a new 'writerId' option (the "
            "default is the query id, new with each checkpoint), or remove that query's "
            f"markers: spark-mq-writer-state remove --writer-id {ledger.writer_id} --idle 0")
    if position.rows is not None:
        for _ in range(position.rows):
            if next(rows, None) is None:
                break
            _count_skipped(result)
        return rows
    return _skip_legacy_chunks(rows, position.chunk, plan, producer, default_queue, chunker,
                               result)


def _skip_legacy_chunks(rows: Iterator[Row], last_chunk: int, plan: MessagePlan,
                        producer: Producer, default_queue: str | None, chunker: _Chunker,
                        result: SinkResult) -> Iterator[Row]:
    """An old marker's "chunks 0..last_chunk": cut the rows as its writer did, skip those."""
    chunk = 0
    for row in rows:
        _, _, count = _prepare(row, plan, producer, default_queue)
        if chunker.full_before(count):
            chunk += 1
            chunker.reset()
        if chunk > last_chunk:
            chunker.reset()
            return _chain(row, rows)
        chunker.add(count)
        _count_skipped(result)
    chunker.reset()
    return rows


def _chain(first: Row, rest: Iterator[Row]) -> Iterator[Row]:
    yield first
    yield from rest


def _count_skipped(result: SinkResult) -> None:
    result.rows += 1
    result.rows_skipped += 1


def _routed(queue: str | None) -> str:
    if not queue:
        raise RowValueError("column 'queue' is null or empty in a row and no 'queue' option "
                            "is set; valid: the name of the queue for that row")
    return queue


def _commit(producer: Producer, ledger: ChunkLedger | None, batch_id: int,
            holding_marker: bool, result: SinkResult) -> bool:
    """Commit one chunk with its marker (rows of this batch on the queue once it commits);
    returns whether the unit of work still holds a marker (never, after a commit)."""
    if ledger is not None:
        if not holding_marker:
            ledger.take()
        ledger.record(Position(batch_id, rows=result.rows))
    producer.commit()
    result.chunks_written += 1
    return False
