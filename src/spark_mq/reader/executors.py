"""readMode executors: each partition of a microbatch gets its own share of the queue on the
executor, exactly once, with nothing but MQ (the design note is DESIGN.md, "Reading on the
executors"; the state queue's messages are spark_mq/mq/claims.py).

Spark gives executors no commit callback and may run a task twice (a retry, speculation),
while an MQ unit of work dies with its connection. So a task cannot hold its gets until
Spark commits; it makes them durable, in the same unit of work, as a RECORD of exactly the
rows it emits, and only the attempt that got the partition's CLAIM may do so:

1. `latestOffset(start)` (driver): every batch up to `start` is in Spark's commit log, and no
   later batch reached its offset log (else Spark would replay it instead of asking), so
   every claim and record of this reader still on the state queue can go. If a message is
   available, plan batch b+1: put one claim per partition, MQCMIT, and return the offset
   {"reader", "batch": b+1, "partitions", "share", "bytes"}. Spark logs it before any task
   runs.
2. `read(partition p)` (executor), on its own connection (kept by the Python worker for its
   next task, spark_mq/reader/task_connections.py):
   a. get the claim under syncpoint. A claim still there means no attempt has committed a
      record (a record replaces its claim in one unit of work; the driver puts each claim
      once), so the usual first attempt needs just this one round trip;
   b. no claim: a record of (reader, b+1, p)? Emit its rows (this is a re-run). Else another
      attempt holds the claim (its unit of work is open): wait, looking for claim and record,
      until one of the two shows; a failed attempt's claim comes back with its backout;
   c. with the claim: get up to `share` messages / `bytes` payload bytes under syncpoint
      (groups whole, segments and reference/data pairs as one, poison to the backout queue,
      the selector), put ONE record of the rows, MQCMIT, emit the rows.
   A crash before MQCMIT backs out messages, claim and record together; after it, the record
   replays the same rows. A lost connection does the attempt again (reconnectTimeoutMs).
3. `commit(end)` (driver) removes the claims and records of batches up to `end`, unless
   planning the next batch already did (Spark commits a batch after planning the next);
   the listener's note that Spark committed it (spark_mq/reader/commit_notes.py) does the
   same at once, so a stopped query leaves no claim or record of a batch Spark committed.

While the queue manager is away, the driver's trigger (processing-time triggers) plans no
batch and its progress shows the outage, as in readMode driver (spark_mq/reader/outages.py):
every piece of the driver's work is safe to do again at the next trigger.

Costs per batch on the queue manager: the gets, plus per partition one claim put and get, a
record of about the rows' size (one put per MiB) and its removal. In round trips, which are
what a network makes expensive: per partition the claim get, one per message, the record
put and the MQCMIT; per batch on the driver one removal get per record (plus one), a
browse, the claims (asynchronous puts), MQSTAT and MQCMIT. Order holds within a
partition only. The reader's identity is a random id made in `initialOffset` and carried in
every offset, so claims and records of two queries never meet.
"""
from __future__ import annotations

import io
import logging
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import (
    ReadLimit,
    ReadMaxRows,
    SupportsTriggerAvailableNow,
)
from pyspark.sql.types import StructType

from spark_mq.columns import Source
from spark_mq.errors import MQConnectorError, reports_to_spark
from spark_mq.mq.claims import CHUNK, PartitionKey, StateQueue
from spark_mq.mq.connecting import (
    connect,
    disconnect_quietly,
    forget_outage,
    hand_over,
    last_outage,
    load_ibmmq,
    outage_now,
    quietly,
    retry_while_lost,
)
from spark_mq.mq.exceptions import connection_lost
from spark_mq.options import ReadOptions
from spark_mq.reader import task_connections
from spark_mq.reader.commit_notes import TakesCommitNotes, one_at_a_time
from spark_mq.reader.limits import batch_limits
from spark_mq.reader.outages import no_batch_during_outage, settled_later_during_outage
from spark_mq.reader.rows import arrow_schema, record_batches
from spark_mq.reader.slots import reading_what
from spark_mq.reader.start import StartsOnFirstCall

log = logging.getLogger(__name__)
T = TypeVar("T")

_CLAIM_POLL_MS = 1000     # a waiting attempt looks for the other attempt's record this often


class ClaimPartition(InputPartition):
    """What one task needs: whose claim to take, how much to get, and from which queue (a
    topic read's managed queue is known only to the driver)."""

    def __init__(self, key: PartitionKey, max_messages: int, max_bytes: int, queue: str) -> None:
        super().__init__(key.partition)
        self.key, self.max_messages, self.max_bytes = key, max_messages, max_bytes
        self.queue = queue


@reports_to_spark("initialOffset", "getDefaultReadLimit", "prepareForTriggerAvailableNow",
                  "latestOffset", "partitions", "commit", "read")
@one_at_a_time("initialOffset", "prepareForTriggerAvailableNow", "latestOffset", "partitions",
               "commit", "reportLatestOffset")
class MQExecutorStreamReader(StartsOnFirstCall, TakesCommitNotes, DataSourceStreamReader,
                             SupportsTriggerAvailableNow):
    """See the module docstring for the protocol. Made from the options as given (parsed
    ReadOptions, or the data source's own), it checks them at Spark's first call
    (spark_mq.reader.start)."""

    def __init__(self, options: ReadOptions | Mapping[str, str], schema: StructType) -> None:
        super().__init__(options, schema)
        self._driver: _DriverConnection | None = None
        self._planned: tuple[tuple[str, int], dict] | None = None
        self._available_now: int | None = None  # Trigger.AvailableNow: the depth at start
        self._delivered = 0                   # ... and the rows delivered since, as records go
        self._first_planned: int | None = None  # the first batch this process planned
        self._removed_through = 0             # every claim and record up to this batch is gone

    # executors get a copy without the driver's connection
    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.update(_driver=None, _planned=None, _available_now=None, _delivered=0,
                     _first_planned=None, _removed_through=0, _notes_lock_obj=None)
        return state

    def _connection(self) -> _DriverConnection:
        self.start()
        if self._driver is None:
            self._driver = _DriverConnection(self.options)
        return self._driver

    def _on_driver(self, work: Callable[[_DriverConnection], T], what: str) -> T:
        """work() on the driver's connection, done again on a new one while the connection is
        lost (a queue-manager restart). Every piece of work here is safe to repeat."""
        def attempt() -> T:
            try:
                return work(self._connection())
            except MQConnectorError as exc:
                if connection_lost(exc) and self._driver is not None:
                    self._driver.close()
                    self._driver = None
                raise
        # one outage per reader, whatever the work: its progress reports it (outages.py)
        return retry_while_lost(self.options.connection, attempt, what,
                                outage_of=reading_what(self.options.queue))

    # --- Spark's driver-side calls ------------------------------------------------------
    def initialOffset(self) -> dict:
        self._connection()         # bad options, an unknown queue or state queue fail here
        return {"reader": uuid.uuid4().hex[:16], "batch": 0}

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadMaxRows(self.options.max_messages)

    def prepareForTriggerAvailableNow(self) -> None:
        self._available_now = self._on_driver(lambda d: d.depth(),
                                              f"inquiring the depth of {self.options.queue}")
        self._delivered = 0

    def available_now(self) -> bool:
        return self._available_now is not None

    @no_batch_during_outage
    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:
        reader, batch = str(start["reader"]), int(start["batch"])
        if self._planned is not None and self._planned[0] == (reader, batch):
            return self._planned[1]                 # asked again: the same answer
        max_messages, max_bytes = batch_limits(self.options, limit)
        parts = self.options.num_partitions
        share_bytes = -(-max_bytes // parts)
        end: dict[str, Any] = {"reader": reader, "batch": batch + 1, "partitions": parts,
                               "bytes": share_bytes}
        notify = self.notify_id()
        if notify is not None:
            end["notify"] = notify      # where the listener says Spark committed it (commit_notes)

        def plan(driver: _DriverConnection) -> bool:
            # forgetting first also removes the claims of a plan whose commit was lost
            if self._first_planned is None:
                self._first_planned = batch + 1
            self._delivered += self._remove_counting(driver, reader, "")
            self._removed_through = max(self._removed_through, batch)
            wanted = self._limit_available_now(max_messages)
            if wanted <= 0 or not driver.message_available(self.options.wait_interval_ms):
                return False
            end["share"] = min(-(-wanted // parts), driver.max_share(share_bytes))
            driver.plan(reader, batch + 1, parts)
            return True

        if not self._on_driver(plan, f"planning batch {batch + 1} of {self.options.queue}"):
            return start
        self._planned = ((reader, batch), end)
        return end

    def _limit_available_now(self, max_messages: int) -> int:
        """Trigger.AvailableNow: no more than what was on the queue at start, less what the
        committed batches delivered (counted from their records as they are removed)."""
        if self._available_now is None:
            return max_messages
        return min(max_messages, self._available_now - self._delivered)

    def partitions(self, start: dict, end: dict) -> Sequence[InputPartition]:
        if int(end["batch"]) == int(start["batch"]):
            return []
        reader, batch = str(end["reader"]), int(end["batch"])
        self.start()
        return [ClaimPartition(PartitionKey(reader, batch, p), int(end["share"]), int(end["bytes"]),
                               self.options.queue)
                for p in range(int(end["partitions"]))]

    def commit(self, end: dict) -> None:
        self._remove_finished(end)

    def _remove_finished(self, end: dict) -> None:
        batch = int(end.get("batch", 0))
        if batch <= self._removed_through:
            return      # planning the next batch removed them (Spark commits after it plans)
        self._delivered += self._on_driver(
            lambda d: self._remove_counting(d, str(end["reader"]), f"<= {batch}"),
            f"removing the claims and records of batch {batch}")
        self._removed_through = batch

    @settled_later_during_outage
    def settle_committed(self, end: dict) -> None:
        """The listener's word: Spark's commit log has every batch up to `end` (commit_notes):
        their claims and records go now, not at the next trigger."""
        if "reader" in end and int(end.get("batch", 0)) <= int(self._last_planned_batch()):
            self._remove_finished(end)

    def _last_planned_batch(self) -> int:
        return int(self._planned[1]["batch"]) if self._planned is not None else 0

    def _remove_counting(self, driver: _DriverConnection, reader: str, condition: str) -> int:
        """Remove the reader's claims and records that meet `condition`; returns the rows of
        those of batches this process planned. Earlier batches' messages had left the queue
        before Trigger.AvailableNow took its depth, so they must not count against it. All
        of the reader's (no condition) is what every plan removes: that handle stays open."""
        if self._first_planned is None:
            driver.remove(reader, condition)
            return 0
        return driver.remove(reader, condition, count_from=self._first_planned)

    def reportLatestOffset(self) -> dict | None:
        what = reading_what(self.options.queue)
        outage = outage_now(what)
        if outage is not None:   # a trigger that gave back (outages.py): MQ cannot answer
            return {"queue": self.options.queue, "queueDepth": None, "outage": outage,
                    "lastOutage": last_outage(what)}
        try:
            depth = self._driver.depth() if self._driver is not None else None
        except Exception:  # noqa: BLE001 - progress reporting must not fail the query
            return None
        return {"queue": self.options.queue, "queueDepth": depth, "outage": None,
                "lastOutage": last_outage(what)}

    def stop(self) -> None:
        forget_outage(reading_what(self.options.queue))
        if self._driver is not None:
            self._driver.close()
            self._driver = None

    # --- executors ----------------------------------------------------------------------
    def read(self, partition: InputPartition) -> Iterator:
        assert isinstance(partition, ClaimPartition)
        batches = retry_while_lost(self.options.connection, lambda: self._attempt(partition),
                                   f"reading {partition.key} from {partition.queue}")
        yield from batches

    def _attempt(self, partition: ClaimPartition) -> list[Any]:
        """The rows of this partition: its record's, or new ones made durable as its record."""
        opts = replace(self.options, queue=partition.queue)
        task = task_connections.acquire(opts)
        reusable = False
        try:
            recorded = self._recorded_or_claimed(task.state, partition.key)
            if recorded is not None:
                batches = _batches_of(recorded)
            else:
                messages = task.consumer.get_batch(partition.max_messages, partition.max_bytes, 0)
                schema = arrow_schema(self.schema)
                batches = list(record_batches(messages, Source.of(opts), self.specs, schema))
                task.state.put_record(partition.key, _ipc(schema, batches),
                                      sum(b.num_rows for b in batches))
                task.consumer.commit()
            reusable = True
            return batches
        finally:
            task_connections.release(opts, task, reusable)

    def _recorded_or_claimed(self, state: StateQueue, key: PartitionKey) -> bytes | None:
        """The record of `key` if there is one, else None once this attempt holds the claim.

        The claim is asked for first: a claim still there means no attempt has committed a
        record (the record replaces the claim in one unit of work, and the driver puts a
        key's claim only once), so the usual first attempt costs one round trip."""
        deadline = time.monotonic() + self.options.claim_timeout_ms / 1000
        wait = 0
        while True:
            if state.take_claim(key, wait):
                return None
            recorded = state.record(key)
            if recorded is not None:
                return recorded
            if time.monotonic() > deadline:
                raise MQConnectorError(
                    f"{key}: neither its claim nor its record appeared on {self.options.state_queue!r} "
                    f"within {self.options.claim_timeout_ms} ms (option 'claimTimeoutMs'): another "
                    "attempt of the task may still hold it, or the state queue was cleared")
            wait = _CLAIM_POLL_MS


class _DriverConnection:
    """The driver's one connection: planning claims, removing finished ones, queue facts."""

    def __init__(self, options: ReadOptions) -> None:
        self.options = options
        self.ibmmq = ibmmq = load_ibmmq(options.connection.transport)
        self.qmgr = connect(options.connection)
        hand_over(ibmmq, self.qmgr, self._open)

    def _open(self, qmgr: Any) -> None:
        from spark_mq.mq.markers import ensure_state_queue
        from spark_mq.mq.queues import open_queue
        options, ibmmq, C = self.options, self.ibmmq, self.ibmmq.CMQC
        self.queue = open_queue(ibmmq, qmgr, options.queue,
                                C.MQOO_BROWSE | C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING,
                                options.selector, "browsing")
        ensure_state_queue(qmgr, ibmmq, options.state_queue, options.connection)
        self.state = StateQueue(ibmmq, qmgr, options.state_queue)
        try:
            self.max_uow = int(self.qmgr.inquire(C.MQIA_MAX_UNCOMMITTED_MSGS))
        except ibmmq.MQMIError:
            self.max_uow = 10000
        self._forgotten: set[str] = set()

    def depth(self) -> int:
        try:
            return int(self.queue.inquire(self.ibmmq.CMQC.MQIA_CURRENT_Q_DEPTH))
        except self.ibmmq.MQMIError as exc:
            from spark_mq.mq.exceptions import describe
            raise describe(exc, f"inquiring the depth of {self.options.queue}") from exc

    def message_available(self, wait_ms: int) -> bool:
        """Whether a message the reader may get is on the queue (a browse, waiting wait_ms)."""
        from spark_mq.mq.mqget import found
        C = self.ibmmq.CMQC
        return found(self.ibmmq, self.queue, self.ibmmq.MD(), C.MQGMO_BROWSE_FIRST, wait_ms, C.MQMO_NONE,
                     f"browsing {self.options.queue}")

    def max_share(self, max_bytes: int) -> int:
        """The most messages one task may get in its unit of work: MAXUMSGS less the claim,
        the record's chunks (rows take more room than payloads: a margin) and poison moves."""
        from spark_mq.mq.consumer import messages_per_unit_of_work
        chunks = max_bytes // CHUNK + 2
        return max(1, messages_per_unit_of_work(self.max_uow) - 2 * chunks - 64)

    def remove(self, reader: str, condition: str, count_from: int = 0) -> int:
        removed, rows = self.state.remove(reader, condition, count_from, keep_open=not condition)
        if removed:
            log.debug("removed %d claims and records of reader %s (%d rows)", removed, reader, rows)
        return rows

    def plan(self, reader: str, batch: int, partitions: int) -> None:
        self.state.put_claims(reader, batch, range(partitions))
        try:
            self.qmgr.commit()
        except self.ibmmq.MQMIError as exc:
            from spark_mq.mq.exceptions import describe
            raise describe(exc, f"committing the claims of batch {batch}") from exc

    def close(self) -> None:
        """Back out (MQDISC would commit open work), close, disconnect."""
        ibmmq, qmgr = self.ibmmq, self.qmgr
        quietly(ibmmq, "backing out the driver's claims", qmgr.backout)
        self.state.close()
        quietly(ibmmq, f"closing {self.options.queue}", self.queue.close)
        disconnect_quietly(ibmmq, qmgr)


def _ipc(schema: Any, batches: list[Any]) -> bytes:
    import pyarrow as pa
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, schema) as writer:
        for batch in batches:
            writer.write_batch(batch)
    return sink.getvalue()


def _batches_of(data: bytes) -> list[Any]:
    import pyarrow as pa
    return list(pa.ipc.open_stream(data))
