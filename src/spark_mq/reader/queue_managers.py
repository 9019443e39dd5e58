"""queueManagers: one streaming query over a queue on several queue managers (a clustered
queue's instances, or the same queue defined on each); DESIGN.md "Many queue managers in one
query".

Each queue manager is a partition of the source, read by its own MEMBER: the reader of one
queue manager for the query's readMode (spark_mq.reader.stream, spark_mq.reader.executors),
with its own connections, units of work, ids, claims and records. No unit of work spans two
queue managers (MQ has none), so exactly-once is per queue manager, and the offset is a map
from queue manager to its member's own offset:

    {"queueManagers": {"QM1": {"seq": 4, "ids": ...}, "QM2": {"seq": 2, ...}}, "notify": ...}

Every call Spark makes goes to each member with its part, so each member's protocol holds
as it does alone (each part of an offset Spark has committed is committed):

* `latestOffset(start)`: each member's `latestOffset(start[qm])`, in parallel (a member
  waiting `waitIntervalMs` on an empty queue does not hold up the others); it settles that
  member's part of `start` in MQ and gets (or plans) its next batch. The limits
  (maxMessagesPerTrigger, maxBytesPerTrigger, minMessagesPerTrigger) are each member's: each
  batch of a member is one unit of work on its queue manager.
* `partitions(start, end)`: each moved member's partitions, tagged with its queue manager;
  `read` runs them with that member's options, so each row's `queue_manager` names its
  source. readMode executors: numPartitions tasks per queue manager, each on one of them.
* `commit(end)` and the listener's note (spark_mq/reader/commit_notes.py): each member's,
  with its part. The notes come to this reader (it opens the channel before any member).

A queue manager that cannot be reached: its member's calls on the driver fail at once (the
driver-side members have reconnectTimeoutMs 0), the member is dropped (its connections
closed; what it held uncommitted MQ backs out) and its part stays as it was, while the others
go on. At every trigger it is tried again, as a new member: its first `latestOffset` is the
one-queue-manager recovery after a restart (wait for the old connection to end, remove by id
the batch Spark finished but MQ backed out), so nothing is lost or doubled. Two things wait
for a queue manager instead (for reconnectTimeoutMs, as given): a batch Spark replays after
a restart (its messages are gotten again by id from their queue manager), and a readMode
executors task whose queue manager goes away while it runs. Under Trigger.AvailableNow a
queue manager unreachable at the run's start, or lost during it, is not read again in that
run (the run must end); its messages wait for the next run.

A member enters the offset at its initial offset (no batch): one unreachable when the query
first started, or added to queueManagers on a restart, starts there. A queue manager left out
of queueManagers keeps its part in the offsets, unread, so adding it back resumes it.

Progress (`reportLatestOffset`): each member's report under its queue manager (readMode
driver: depth, lag, rates, ...; see progress.py), `{"unavailable": {"since", "reason"}}` for
one that cannot be reached (with `lastKnown` {"at", "queueDepth", "lag"}: its last report's
figures, when it made one, kept on the driver and not in the offset), the list
`unavailable`, and the sums `queueDepth` and `lag` of those reached (a last known figure is
not summed: it is not what waits now). A queue manager that comes back reports its own
figures, its lag with them, at the first trigger that reaches it.
"""
from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadLimit, ReadMaxRows, SupportsTriggerAvailableNow
from pyspark.sql.types import StructType

from spark_mq.errors import MQConnectorError, MQOptionError, reports_to_spark
from spark_mq.mq.connecting import retry_while_lost
from spark_mq.mq.exceptions import connection_lost
from spark_mq.options import ReadOptions
from spark_mq.reader.commit_notes import TakesCommitNotes, one_at_a_time
from spark_mq.reader.start import StartsOnFirstCall

log = logging.getLogger(__name__)

KEY = "queueManagers"     # the offset's map from queue manager to its member's offset
_LOST = object()          # a member's result when its queue manager could not be reached


class MemberPartition(InputPartition):
    """A member's partition, with the queue manager whose member reads it."""

    def __init__(self, index: int, queue_manager: str, inner: InputPartition) -> None:
        super().__init__(index)
        self.queue_manager, self.inner = queue_manager, inner


class _Member:
    """One queue manager's reader, made again after its queue manager was lost."""

    def __init__(self, name: str, make: Callable[[], Any]) -> None:
        self.name = name
        self._make = make
        self.reader: Any = None
        self.down: tuple[float, str] | None = None    # since (epoch seconds), why
        self.error: MQConnectorError | None = None
        self.sits_out = False       # Trigger.AvailableNow: not read again in this run
        # (when, {queueDepth, lag}) of its last report: shown while it is down, as such
        self.last_known: tuple[float, dict[str, Any]] | None = None

    def get(self) -> Any:
        if self.reader is None:
            self.reader = self._make()
        return self.reader

    def lost(self, exc: MQConnectorError) -> None:
        if self.down is None:
            self.down = (time.time(), exc.reason_name or str(exc))
            log.warning("queue manager %s cannot be reached (%s): its part of the query waits, "
                        "the other queue managers go on", self.name, exc)
        self.error = exc
        self.drop()

    def reached(self) -> None:
        if self.down is not None:
            log.info("queue manager %s is back after %.0f s", self.name, time.time() - self.down[0])
            self.down = None

    def drop(self) -> None:
        reader, self.reader = self.reader, None
        if reader is not None:
            try:
                reader.stop()   # backs out: MQDISC would commit
            except Exception:  # noqa: BLE001 - its connections are gone already
                pass

    def reported(self, report: Any) -> None:
        """Keep the figures of a report that has them, for the progress while it is down."""
        if isinstance(report, Mapping) and isinstance(report.get("queueDepth"), int):
            self.last_known = (time.time(), {key: report[key] for key in ("queueDepth", "lag")
                                             if isinstance(report.get(key), int)})

    def unavailable(self) -> dict[str, Any]:
        since, reason = self.down or (time.time(), "")
        found: dict[str, Any] = {"unavailable": {"since": _iso(since), "reason": reason}}
        if self.last_known is not None:
            # figures from before it went down: what waited there then, not what waits now
            at, figures = self.last_known
            found["lastKnown"] = {"at": _iso(at), **figures}
        return found


def _iso(epoch: float) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.timezone.utc).isoformat(timespec="milliseconds")


@reports_to_spark("initialOffset", "getDefaultReadLimit", "prepareForTriggerAvailableNow",
                  "latestOffset", "partitions", "commit", "read")
@one_at_a_time("initialOffset", "prepareForTriggerAvailableNow", "latestOffset", "partitions",
               "commit", "reportLatestOffset")
class MQQueueManagersStreamReader(StartsOnFirstCall, TakesCommitNotes, DataSourceStreamReader,
                                  SupportsTriggerAvailableNow):
    """See the module docstring. Made from the options as given, it checks them at Spark's
    first call (spark_mq.reader.start); each member checks its queue manager itself."""

    def __init__(self, options: ReadOptions | Mapping[str, str], schema: StructType) -> None:
        super().__init__(options, schema)
        self._members: dict[str, _Member] | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._task_readers: dict[str, Any] = {}
        self._available_now = False     # a Trigger.AvailableNow run

    # executors get a copy without the driver's members
    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.update(_members=None, _pool=None, _task_readers={}, _notes_lock_obj=None)
        return state

    @property
    def error_connection(self) -> None:
        """No one queue manager: a member's error names its own (spark_mq.errors)."""
        return None

    def start(self) -> None:
        # the start checks are each member's, when it is first reached: one queue manager
        # that is down must not stop the query from starting
        self.specs  # noqa: B018 - a schema the reader cannot fill fails before any get

    def _reader_class(self) -> type:
        if self.options.read_mode == "executors":
            from spark_mq.reader.executors import MQExecutorStreamReader
            return MQExecutorStreamReader
        from spark_mq.reader.stream import MQStreamReader
        return MQStreamReader

    def members(self) -> dict[str, _Member]:
        if self._members is None:
            kind, schema = self._reader_class(), self.schema
            self._members = {}
            for opts in self.options.members():
                # on the driver a lost queue manager is skipped, not waited for
                driver_side = replace(opts, connection=replace(opts.connection,
                                                               reconnect_timeout_ms=0))
                self._members[opts.connection.queue_manager] = _Member(
                    opts.connection.queue_manager,
                    lambda o=driver_side: kind(o, schema))   # type: ignore[misc]
        return self._members

    def _each(self, members: Sequence[_Member], call: Callable[[_Member], Any]) -> dict[str, Any]:
        """call(member) for each member, in parallel; _LOST for one whose queue manager could
        not be reached (it is dropped); any other error goes on to Spark."""
        def guarded(member: _Member) -> Any:
            try:
                result = call(member)
            except MQConnectorError as exc:
                if not connection_lost(exc):
                    raise
                member.lost(exc)
                return _LOST
            member.reached()
            return result
        if len(members) <= 1:
            return {member.name: guarded(member) for member in members}
        if self._pool is None:
            self._pool = ThreadPoolExecutor(len(self.members()), "spark-mq-queue-managers")
        futures = {member.name: self._pool.submit(guarded, member) for member in members}
        return {name: future.result() for name, future in futures.items()}

    def _parts(self, offset: Mapping[str, Any]) -> dict[str, Any]:
        if KEY not in offset:
            raise MQOptionError(KEY, ",".join(self.members()),
                                "a checkpointLocation of its own: this checkpoint's offsets are "
                                "of a read of one queue manager (connName, queueManager)")
        return dict(offset[KEY])

    def _offset(self, parts: dict[str, Any]) -> dict[str, Any]:
        offset: dict[str, Any] = {KEY: parts}
        notify = self.notify_id()
        if notify is not None:
            offset["notify"] = notify   # where the listener says Spark committed it
        return offset

    # --- Spark's driver-side calls ------------------------------------------------------
    def initialOffset(self) -> dict:
        self.start()
        self.notify_id()        # before any member asks: the notes come here
        members = list(self.members().values())
        found = self._each(members, lambda m: m.get().initialOffset())
        parts = {name: part for name, part in found.items() if part is not _LOST}
        if not parts:
            raise _none_reached(members)
        return self._offset(parts)

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadMaxRows(self.options.max_messages)

    def prepareForTriggerAvailableNow(self) -> None:
        self.start()
        members = list(self.members().values())
        found = self._each(members, lambda m: m.get().prepareForTriggerAvailableNow())
        self._available_now = True
        for member in members:
            member.sits_out = found[member.name] is _LOST

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:
        self.start()
        self.notify_id()
        parts = self._parts(start)

        def step(member: _Member) -> Any:
            part = parts.get(member.name)
            if part is None:
                return member.get().initialOffset()   # it enters at its initial offset
            return member.get().latestOffset(part, limit)

        members = [m for m in self.members().values() if not m.sits_out]
        found = self._each(members, step)
        moved = dict(parts)         # a queue manager no longer listed keeps its part
        for member in members:
            result = found[member.name]
            if result is _LOST:
                # Trigger.AvailableNow: a new member would count what arrived since the start
                member.sits_out = self._available_now
            else:
                moved[member.name] = result
        if moved == parts:
            return start
        return self._offset(moved)

    def partitions(self, start: dict, end: dict) -> Sequence[InputPartition]:
        self.start()
        self.notify_id()
        starts, ends = self._parts(start), self._parts(end)
        found: list[InputPartition] = []
        for name, end_part in ends.items():
            start_part = starts.get(name)
            if start_part is None or start_part == end_part:
                continue        # it entered at its initial offset, or has no batch here
            for inner in self._member_partitions(name, start_part, end_part):
                found.append(MemberPartition(len(found), name, inner))
        return found

    def _member_partitions(self, name: str, start: dict, end: dict) -> Sequence[InputPartition]:
        """The member's partitions: a batch Spark replays waits for its queue manager (its
        messages are there, by id), up to reconnectTimeoutMs."""
        member = self.members().get(name)
        if member is None:
            raise MQOptionError(KEY, ",".join(self.members()),
                                f"a list that names {name} too: the batch Spark runs again "
                                f"after the restart holds messages of {name}")

        def attempt() -> Sequence[InputPartition]:
            try:
                return member.get().partitions(start, end)
            except MQConnectorError as exc:
                if connection_lost(exc):
                    member.lost(exc)
                raise
        connection = self._member_options(name).connection
        found = retry_while_lost(connection, attempt, f"replaying a batch of queue manager {name}")
        member.reached()
        return found

    def _member_options(self, name: str) -> ReadOptions:
        return next(o for o in self.options.members() if o.connection.queue_manager == name)

    def commit(self, end: dict) -> None:
        self.notify_id()
        self._settle(end, lambda reader, part: reader.commit(part))

    def settle_committed(self, end: dict) -> None:
        """The listener's word: Spark's commit log has every batch up to `end`."""
        if KEY in end:
            self._settle(end, lambda reader, part: reader.settle_committed(part))

    def _settle(self, end: Mapping[str, Any], settle: Callable[[Any, Any], None]) -> None:
        """Each live member settles its part; one that is dropped settles it when it is made
        again (its first latestOffset)."""
        parts = self._parts(end)
        live = [m for m in self.members().values() if m.reader is not None and m.name in parts]
        self._each(live, lambda m: settle(m.reader, parts[m.name]))

    def reportLatestOffset(self) -> dict | None:
        """Each member's figures (see the module docstring)."""
        members = list(self.members().values())
        reports: dict[str, Any] = {}
        for member in members:
            if member.down is not None or member.reader is None:
                reports[member.name] = member.unavailable() if member.down else None
                continue
            try:
                reports[member.name] = member.reader.reportLatestOffset()
                member.reported(reports[member.name])
            except Exception:  # noqa: BLE001 - progress reporting must not fail the query
                reports[member.name] = None
        figures = [r for r in reports.values() if r and "unavailable" not in r]
        return {"queue": self.options.queue, KEY: reports,
                "unavailable": [m.name for m in members if m.down is not None],
                "queueDepth": _total(figures, "queueDepth"), "lag": _total(figures, "lag")}

    # --- executors ----------------------------------------------------------------------
    def read(self, partition: InputPartition) -> Iterator:
        assert isinstance(partition, MemberPartition)
        yield from self._task_reader(partition.queue_manager).read(partition.inner)

    def _task_reader(self, name: str) -> Any:
        """The member's reader on an executor: reconnectTimeoutMs as given (a task waits for
        its queue manager: its batch is in Spark's offset log)."""
        if name not in self._task_readers:
            self._task_readers[name] = self._reader_class()(self._member_options(name), self.schema)
        return self._task_readers[name]

    def stop(self) -> None:
        for member in (self._members or {}).values():
            member.drop()
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None


def _total(reports: Sequence[Mapping[str, Any]], key: str) -> int | None:
    values = [r[key] for r in reports if isinstance(r.get(key), int)]
    return sum(values) if values else None


def _none_reached(members: Sequence[_Member]) -> MQConnectorError:
    first = next((m.error for m in members if m.error is not None), None)
    named = "; ".join(f"{m.name}: {m.error}" for m in members)
    return MQConnectorError(f"none of the queue managers of option 'queueManagers' could be "
                            f"reached: {named}", first.reason if first else None,
                            first.reason_name if first else None)
