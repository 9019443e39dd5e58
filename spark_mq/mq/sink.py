"""One partition of rows -> messages, in units of work of at most `commit_every` rows.

Chunks are cut from the row sequence alone (row count, and the physical message count that
must stay below MAXUMSGS), so a task that writes the same rows again cuts the same chunks:
with a ChunkLedger it skips those already committed (exactly-once), without one it writes
them all (at-least-once). Any failure backs out the open unit of work and propagates.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from .markers import ChunkLedger, Position
from .outgoing import MessagePlan, RowValueError
from .producer import Producer


@dataclass
class SinkResult:
    rows: int = 0
    messages: int = 0
    chunks_written: int = 0
    chunks_skipped: int = 0


def write_partition(rows: Iterable[Sequence], plan: MessagePlan, producer: Producer,
                    default_queue: str | None, commit_every: int, max_messages: int,
                    ledger: ChunkLedger | None = None, batch_id: int = 0) -> SinkResult:
    """Write rows; `max_messages` is the room in one unit of work (MAXUMSGS less markers).

    `default_queue` (the `queue` option) overrides the rows' `queue` column, as Spark's Kafka
    sink's `topic` option overrides its topic column: a DataFrame read from one queue (with
    its `queue` column) can be written to another by naming it."""
    result = SinkResult()
    holding_marker = False     # the open unit of work holds the marker it got
    done_upto = -1             # chunks of this batch at or below this were committed before
    try:
        if ledger is not None:
            done_upto = _already_written(ledger.take(), batch_id, ledger)
            holding_marker = True
        chunk, rows_in_chunk, messages_in_chunk = 0, 0, 0
        for row in rows:
            out = plan.message(row)
            target = producer.target(default_queue or _routed(out.queue))
            count = producer.message_count(out, target)
            if rows_in_chunk and (rows_in_chunk >= commit_every
                                  or messages_in_chunk + count > max_messages):
                holding_marker = _finish(chunk, done_upto, producer, ledger, batch_id,
                                         holding_marker, result)
                chunk, rows_in_chunk, messages_in_chunk = chunk + 1, 0, 0
            if chunk > done_upto:
                producer.send(out, target)
                result.messages += count
            rows_in_chunk += 1
            messages_in_chunk += count
            result.rows += 1
        if rows_in_chunk:
            holding_marker = _finish(chunk, done_upto, producer, ledger, batch_id,
                                     holding_marker, result)
        if holding_marker:
            producer.backout()     # nothing was written: give the marker back unchanged
    except BaseException:
        producer.backout()
        raise
    return result


def _routed(queue: str | None) -> str:
    if not queue:
        raise RowValueError("column 'queue' is null or empty in a row and no 'queue' option "
                            "is set; valid: the name of the queue for that row")
    return queue


class MarkerAheadError(RuntimeError):
    """The marker names a later batch than the one Spark is writing."""


def _already_written(position: Position | None, batch_id: int, ledger: ChunkLedger) -> int:
    """The last chunk of this batch committed before (-1: none)."""
    if position is None or position.batch < batch_id:
        return -1
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
            "markers from the state queue")
    return position.chunk


def _finish(chunk: int, done_upto: int, producer: Producer, ledger: ChunkLedger | None,
            batch_id: int, holding_marker: bool, result: SinkResult) -> bool:
    """Commit one chunk (with its marker); returns whether the unit of work still holds one."""
    if chunk <= done_upto:
        result.chunks_skipped += 1
        return holding_marker
    if ledger is not None:
        if not holding_marker:
            ledger.take()
        ledger.record(Position(batch_id, chunk))
    producer.commit()
    result.chunks_written += 1
    return False
