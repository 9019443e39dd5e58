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

A lost connection (the queue manager restarted) need not fail the task: `write_rows` takes
the rows through a `RowSource`, which keeps the rows of the open unit of work, and calls
`write_partition` again on a new connection with the same source. The marker then says
whether the lost unit of work was committed (an MQCMIT that broke has an unknown outcome),
so its rows are skipped or written again, exactly. (atLeastOnce writes them again.)
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from spark_mq.mq import producer_pool
from spark_mq.mq.connecting import ConnectionOptions, retry_while_lost
from spark_mq.mq.exceptions import MQConnectorError, connection_lost
from spark_mq.mq.markers import DEFAULT_CLAIM_TIMEOUT_MS, LOCK_MODEL_QUEUE, ChunkLedger, Position
from spark_mq.mq.outgoing import MessagePlan, Outgoing, RowValueError
from spark_mq.mq.producer import Producer, ProducerSettings, Target

#: one row, values in schema order (MessagePlan.message reads it)
Row: TypeAlias = Sequence[Any]


@dataclass
class SinkResult:
    rows: int = 0
    messages: int = 0
    chunks_written: int = 0
    rows_skipped: int = 0


class RowSource:
    """A partition's rows, keeping those taken since the last commit (`open`) so that a unit
    of work lost with its connection can be written again (`rewind`)."""

    def __init__(self, rows: Iterable[Row]) -> None:
        self._rest = iter(rows)
        self._again: deque[Row] = deque()
        self.open: list[Row] = []
        self.settled = 0    # rows before `open`: on the queue (written or skipped)

    def __iter__(self) -> RowSource:
        return self

    def __next__(self) -> Row:
        row = self._again.popleft() if self._again else next(self._rest)
        self.open.append(row)
        return row

    def put_back(self, row: Row) -> None:
        """Undo the last next(): `row` comes again first."""
        assert self.open and self.open[-1] is row
        self.open.pop()
        self._again.appendleft(row)

    def settle(self) -> None:
        """The open rows are on the queue (committed, or skipped by the marker)."""
        self.settled += len(self.open)
        self.open.clear()

    def rewind(self) -> None:
        """The open unit of work was lost: its rows come again, in order."""
        self._again.extendleft(reversed(self.open))
        self.open.clear()

    @property
    def taken(self) -> int:
        return self.settled + len(self.open)


@dataclass(frozen=True)
class Exactly:
    """Where the exactly-once markers of a partition live, the model queue its lock is made
    from and how long an attempt waits for another attempt that holds it (markers.py)."""
    state_queue: str
    writer_id: str
    partition: int
    claim_timeout_ms: int = DEFAULT_CLAIM_TIMEOUT_MS
    model_queue: str = LOCK_MODEL_QUEUE


@dataclass(frozen=True)
class Topic:
    """The writer's `topic` option: every row publishes on this topic string."""
    string: str


#: the writer's target option: a queue name, a Topic, or None (the rows' columns route)
Default = str | Topic | None
#: where one row's message goes (see _router)
Route = Callable[[Outgoing], Target]


def write_rows(rows: Iterable[Row], plan: MessagePlan, connection: ConnectionOptions,
               settings: ProducerSettings, default_queue: Default, commit_every: int,
               exactly: Exactly | None = None, batch_id: int = 0) -> SinkResult:
    """One task's partition on a pooled connection, connecting again (with back-off, up to
    the connection's reconnect timeout) and going on when the connection is lost."""
    source = RowSource(rows)
    result = SinkResult()

    def attempt() -> None:
        producer, max_uncommitted = producer_pool.acquire(connection, settings)
        healthy = False
        try:
            ledger = None
            if exactly is not None:
                ledger = ChunkLedger(producer.qmgr, producer.ibmmq, exactly.state_queue,
                                     exactly.writer_id, exactly.partition,
                                     exactly.claim_timeout_ms, exactly.model_queue)
            write_partition(source, plan, producer, default_queue, commit_every,
                            max(1, max_uncommitted - 2), ledger, batch_id, result)
            if ledger is not None:
                ledger.close()
            healthy = True      # else release() disconnects, which also frees the lock
        except MQConnectorError as exc:
            if connection_lost(exc):
                source.rewind()     # its unit of work is gone: the marker tells the rest
            raise
        finally:
            producer_pool.release(connection, settings, producer, healthy)

    where = f"partition {exactly.partition} " if exactly else ""
    retry_while_lost(connection, attempt, f"writing {where}of batch {batch_id}")
    return result


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
                    default_queue: Default, commit_every: int, max_messages: int,
                    ledger: ChunkLedger | None = None, batch_id: int = 0,
                    result: SinkResult | None = None) -> SinkResult:
    """Write the source's rows; `max_messages` is the room in one unit of work (MAXUMSGS less
    markers). Called again with the same RowSource (rewound) and `result` after a lost
    connection, it goes on where the queue's state says the partition is.

    `default_queue` (the `queue` option, or the `topic` option as a Topic) overrides the rows'
    `queue` and `topic` columns, as Spark's Kafka sink's `topic` option overrides its topic
    column: a DataFrame read from one queue (with its `queue` column) can be written to
    another by naming it."""
    source = rows if isinstance(rows, RowSource) else RowSource(rows)
    result = result or SinkResult()
    chunker = _Chunker(commit_every, max_messages)
    route = _router(plan, producer, default_queue)
    holding_marker = False     # the open unit of work holds the marker it got
    try:
        if ledger is not None:
            position = ledger.take()
            holding_marker = True
            _skip_written(source, position, batch_id, ledger, plan, producer, route, chunker,
                          result)
        for row in source:
            try:
                out, target, count = _prepare(row, plan, producer, route)
                if chunker.full_before(count):
                    source.put_back(row)       # it opens the next chunk, after this commit
                    holding_marker = _commit(producer, ledger, batch_id, holding_marker, source,
                                             chunker, result)
                    continue
                producer.send(out, target)
            except RowValueError as exc:
                raise _at_row(exc, source.taken, ledger, batch_id) from None
            chunker.add(count)
        if chunker.rows:
            holding_marker = _commit(producer, ledger, batch_id, holding_marker, source,
                                     chunker, result)
        if holding_marker:
            producer.backout()     # nothing was written: give the marker back unchanged
    except BaseException:
        producer.backout()
        raise
    result.rows = source.settled
    return result


def _at_row(exc: RowValueError, taken: int, ledger: ChunkLedger | None,
            batch_id: int) -> RowValueError:
    """The error with the row it is about: a bad value in a million rows needs its place."""
    where = f"partition {ledger.partition}, batch {batch_id}" if ledger else "its partition"
    return RowValueError(f"row {taken} of {where} (counting from 1): {exc}")


def _prepare(row: Row, plan: MessagePlan, producer: Producer,
             route: Route) -> tuple[Outgoing, Target, int]:
    out = plan.message(row)
    target = route(out)
    return out, target, producer.message_count(out, target)


def _router(plan: MessagePlan, producer: Producer, default_queue: Default) -> Route:
    """Where each row goes, decided once for the partition: a `queue` or `topic` option sends
    every row to one target (opened at the first row, so an empty partition opens nothing),
    else each row's columns say.

    The `queue_manager` column goes with the `queue` column, as a read fills the pair (where
    the message was): rows a `queue` or `topic` option routes, and publications (which go
    to the connected queue manager's topic tree), ignore both, so a read written on with
    options is not sent back where it was read."""
    if not default_queue:
        return lambda out: _row_target(out, plan, producer)
    fixed = default_queue
    opened: list[Target] = []

    def to_option(_out: Outgoing) -> Target:
        if not opened:
            opened.append(producer.topic_target(fixed.string) if isinstance(fixed, Topic)
                          else producer.target(fixed, plan.defaults.queue_manager or ""))
        return opened[0]
    return to_option


def _row_target(out: Outgoing, plan: MessagePlan, producer: Producer) -> Target:
    """The target a row's `queue` / `topic` (and `queue_manager`) columns name."""
    if out.topic and out.queue:
        raise RowValueError(f"columns 'queue' ({out.queue!r}) and 'topic' ({out.topic!r}) are "
                            "both set in a row and no 'queue' or 'topic' option is set; valid: "
                            "one of them per row (null the other), or a 'queue' or 'topic' "
                            "option for every row")
    if out.topic:
        return producer.topic_target(out.topic)
    return producer.target(_routed(out.queue, plan.topic_index is not None),
                           out.queue_manager or "")


def _skip_written(source: RowSource, position: Position | None, batch_id: int,
                  ledger: ChunkLedger, plan: MessagePlan, producer: Producer,
                  route: Route, chunker: _Chunker, result: SinkResult) -> None:
    """Take from the source the rows of this batch the marker says are on the queue."""
    if position is None or position.batch < batch_id:
        return
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
        # rows before source.settled were taken (written or skipped) by an earlier attempt
        for _ in range(position.rows - source.settled):
            if next(source, None) is None:
                break
            result.rows_skipped += 1
    elif source.settled == 0:    # an earlier attempt on this source skipped them already
        _skip_legacy_chunks(source, position.chunk, plan, producer, route, chunker, result)
    source.settle()


def _skip_legacy_chunks(source: RowSource, last_chunk: int, plan: MessagePlan,
                        producer: Producer, route: Route, chunker: _Chunker,
                        result: SinkResult) -> None:
    """An old marker's "chunks 0..last_chunk": cut the rows as its writer did, skip those."""
    chunk = 0
    for row in source:
        _, _, count = _prepare(row, plan, producer, route)
        if chunker.full_before(count):
            chunk += 1
            chunker.reset()
        if chunk > last_chunk:
            source.put_back(row)
            break
        chunker.add(count)
        result.rows_skipped += 1
    chunker.reset()


def _routed(queue: str | None, has_topic_column: bool = False) -> str:
    if not queue:
        if has_topic_column:
            raise RowValueError("columns 'queue' and 'topic' are both null or empty in a row "
                                "and no 'queue' or 'topic' option is set; valid: a queue name "
                                "or a topic string for that row")
        raise RowValueError("column 'queue' is null or empty in a row and no 'queue' option "
                            "is set; valid: the name of the queue for that row")
    return queue


def _commit(producer: Producer, ledger: ChunkLedger | None, batch_id: int,
            holding_marker: bool, source: RowSource, chunker: _Chunker,
            result: SinkResult) -> bool:
    """Commit the open rows with their marker (rows of this batch on the queue once it
    commits); returns whether the unit of work still holds a marker (never, after a commit)."""
    if ledger is not None:
        if not holding_marker and ledger.take() is None:
            # this task committed the marker before, so it exists: another attempt of the
            # partition holds it (a restarted query while this cancelled task still runs, a
            # retry). Writing on would put these rows after the other attempt's count of
            # them: they would be there twice. This attempt stops; its rows are backed out.
            raise MQConnectorError(
                f"the exactly-once marker of partition {ledger.partition} on "
                f"{ledger.queue_name!r} is held by another attempt of this partition (a "
                "restarted query or a retried task): this attempt stops and backs out its "
                "uncommitted rows, which that attempt writes")
        ledger.record(Position(batch_id, rows=source.taken))
    producer.commit()
    source.settle()
    result.messages += chunker.messages
    result.chunks_written += 1
    chunker.reset()
    return False
