"""Exactly-once markers for the writer, as in IBM's Kafka Connect MQ sink.

A state queue holds ONE marker message per (writer id, partition): its CorrelId is a hash
of the pair and its body records how many rows of which batch are on the queue,
{"batch": b, "rows": r}. Every unit of work that puts a chunk of rows also gets the old
marker and puts the new one, so the marker and the data are committed together or not at
all. A task that runs a batch again (Spark replays the batch after a crash or a lost commit
file, or retries a failed task) reads the marker first and skips exactly r rows
(spark_mq/mq/sink.py says why a row count and not a chunk number). Markers of the first
writer recorded {"batch": b, "chunk": c} instead; they are still read.

Markers of a streaming query stay (one per partition, a few hundred bytes each) and are
reused by the next batches; a batch job (df.write) removes its markers when it commits.
Markers of streaming queries that will not run again are listed and removed with
`spark-mq-writer-state` (spark_mq.jobs.writer_state): `list_markers` and
`remove_idle_markers` below. A marker a running task holds is inside that task's unit of
work, invisible to both; one a query rewrote within the idle time is kept as live.

Only one attempt of a partition may write at a time. The marker alone cannot ensure it: a
marker another attempt holds is as invisible as one never written (the first batch of a
writer id), and two attempts that both start from zero both write the batch (a retried or
speculative task, or one that query.stop() cancelled while it still runs when the restarted
query runs the batch again). So a ChunkLedger first takes the partition's lock: a temporary
dynamic queue, named after (writer id, partition), created from a model queue (writer
option `modelQueue`, default SYSTEM.DEFAULT.MODEL.QUEUE).
MQ creates a name once (MQRC_OBJECT_ALREADY_EXISTS to the second MQOPEN) and deletes it when
its creator closes it or its connection ends, after backing out that connection's unit of
work: a crashed attempt frees the lock with its marker back on the queue.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from spark_mq.mq.connecting import ConnectionOptions, credentials_of, quietly
from spark_mq.mq.exceptions import MQConnectorError, describe
from spark_mq.mq.refusals import open_refused
from spark_mq.mqi.codepages import UTF8
from spark_mq.mqi.constants import CMQC, reason_name

log = logging.getLogger(__name__)

#: the model queue the partition locks are made from by default (every queue manager has it;
#: IBM's developer configuration lets applications open DEV.APP.MODEL.QUEUE instead)
LOCK_MODEL_QUEUE = "SYSTEM.DEFAULT.MODEL.QUEUE"
LOCK_PREFIX = "SPARK.MQ.WRITER."      # + 32 hex digits: 48 characters, MQ's longest name
_LOCK_POLL_SECONDS = (0.02, 1.0)      # first and longest pause between two tries
DEFAULT_CLAIM_TIMEOUT_MS = 900_000


@dataclass(frozen=True)
class Position:
    """Rows of `batch` on the queue; an old marker gives its last chunk instead of `rows`."""
    batch: int
    rows: int | None = None
    chunk: int = -1


def marker_id(writer_id: str, partition: int) -> bytes:
    return hashlib.sha256(f"{writer_id}\0{partition}".encode()).digest()[:24]


def lock_name(writer_id: str, partition: int) -> str:
    return LOCK_PREFIX + marker_id(writer_id, partition)[:16].hex().upper()


class ChunkLedger:
    """The marker of one (writer id, partition) on the state queue, and the partition's lock,
    held from the constructor until `close`."""

    def __init__(self, qmgr: Any, ibmmq: Any, state_queue: str, writer_id: str, partition: int,
                 claim_timeout_ms: int = DEFAULT_CLAIM_TIMEOUT_MS,
                 model_queue: str = LOCK_MODEL_QUEUE) -> None:
        self.qmgr, self.ibmmq, self.C = qmgr, ibmmq, ibmmq.CMQC
        self.writer_id, self.partition = writer_id, partition
        self.correl_id = marker_id(writer_id, partition)
        self.queue_name = state_queue
        self.lock = _take_lock(qmgr, ibmmq, model_queue, writer_id, partition, claim_timeout_ms)
        try:
            self.queue = open_state_queue(qmgr, ibmmq, state_queue)
        except BaseException:
            quietly(ibmmq, "closing the exactly-once lock", self.lock.close)
            raise

    def close(self) -> None:
        """Close the state queue and give the lock up (its unit of work must be ended). A
        connection lost meanwhile is a connector error like any other call's, so the writer's
        retry (mq/sink.py) rides it out rather than failing the task with ibmmq's own error."""
        try:
            try:
                self.queue.close()
            finally:
                self.lock.close()
        except self.ibmmq.MQMIError as exc:
            raise describe(exc, f"closing the exactly-once state queue {self.queue_name!r} "
                                "and its lock") from exc

    def take(self) -> Position | None:
        """Get the marker under syncpoint (it comes back if the unit of work is backed out)."""
        C, ibmmq = self.C, self.ibmmq
        md = ibmmq.MD(CorrelId=self.correl_id)
        gmo = ibmmq.GMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_NO_WAIT | C.MQGMO_FAIL_IF_QUIESCING,
                        MatchOptions=C.MQMO_MATCH_CORREL_ID)
        try:
            body = self.queue.get(None, md, gmo)
        except ibmmq.MQMIError as exc:
            if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                return None
            raise describe(exc, f"getting the exactly-once marker from {self.queue_name!r}") from exc
        state = json.loads(body)
        if "rows" in state:
            return Position(int(state["batch"]), rows=int(state["rows"]))
        return Position(int(state["batch"]), chunk=int(state["chunk"]))

    def record(self, position: Position) -> None:
        """Put the new marker under syncpoint, in the same unit of work as the chunk."""
        C, ibmmq = self.C, self.ibmmq
        md = ibmmq.MD(CorrelId=self.correl_id, Persistence=C.MQPER_PERSISTENT,
                      Format=C.MQFMT_STRING, CodedCharSetId=UTF8)
        pmo = ibmmq.PMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_NEW_MSG_ID | C.MQPMO_FAIL_IF_QUIESCING)
        body = json.dumps({"writerId": self.writer_id, "partition": self.partition,
                           "batch": position.batch, "rows": position.rows}).encode()
        try:
            self.queue.put(body, md, pmo)
        except ibmmq.MQMIError as exc:
            raise describe(exc, f"putting the exactly-once marker on {self.queue_name!r}") from exc


def _take_lock(qmgr: Any, ibmmq: Any, model_queue: str, writer_id: str, partition: int,
               timeout_ms: int) -> Any:
    """Create the partition's lock queue, waiting (with back-off, up to `timeout_ms`) while
    another attempt holds it."""
    name = lock_name(writer_id, partition)
    deadline = time.monotonic() + timeout_ms / 1000
    pause, longest = _LOCK_POLL_SECONDS
    waited = False
    while True:
        try:
            return _open_lock(qmgr, ibmmq, model_queue, name)
        except ibmmq.MQMIError as exc:
            if exc.reason != CMQC.MQRC_OBJECT_ALREADY_EXISTS:
                raise _lock_error(exc, f"creating the exactly-once lock {name} of partition "
                                       f"{partition}", model_queue) from exc
        if time.monotonic() >= deadline:
            raise MQConnectorError(
                f"partition {partition} of writer id {writer_id!r}: another attempt of it (a "
                "retried or speculative task, or a cancelled one still running) held its "
                f"exactly-once lock {name} for {timeout_ms} ms (option 'claimTimeoutMs'); this "
                "attempt wrote nothing. Valid: a longer claimTimeoutMs, or end the other "
                "attempt (its connection ending frees the lock)")
        if not waited:
            log.info("partition %d of writer id %r: waiting for another attempt of it to end "
                     "(it holds %s)", partition, writer_id, name)
            waited = True
        time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
        pause = min(pause * 2, longest)


def check_locks_allowed(qmgr: Any, ibmmq: Any, model_queue: str) -> None:
    """Fail at the query's start, not in its tasks, when the user may not create locks."""
    try:
        _open_lock(qmgr, ibmmq, model_queue, LOCK_PREFIX + "*").close()
    except ibmmq.MQMIError as exc:
        raise _lock_error(exc, "creating an exactly-once lock (a test one, at start)",
                          model_queue) from exc


def _open_lock(qmgr: Any, ibmmq: Any, model_queue: str, dynamic_name: str) -> Any:
    od = ibmmq.OD(ObjectName=model_queue, DynamicQName=dynamic_name)
    return ibmmq.Queue(qmgr, od, CMQC.MQOO_INQUIRE | CMQC.MQOO_FAIL_IF_QUIESCING)


def _lock_error(exc: Any, doing: str, model_queue: str) -> MQConnectorError:
    error = describe(exc, f"{doing} from the model queue {model_queue} (option 'modelQueue')")
    return MQConnectorError(
        f"{error}. Valid: a model queue the writer's user may open (IBM's developer "
        f"configuration: DEV.APP.MODEL.QUEUE), or authority to open this one, e.g. setmqaut -t "
        f"q -n {model_queue} -p <user> +dsp +inq, or delivery=atLeastOnce",
        error.reason, error.reason_name)


def remove_markers(qmgr: Any, ibmmq: Any, state_queue: str, writer_id: str,
                   partitions: Iterable[int]) -> int:
    """Delete the markers of these partitions (a finished batch job); returns how many."""
    C = ibmmq.CMQC
    queue = open_state_queue(qmgr, ibmmq, state_queue)
    removed = 0
    try:
        for partition in partitions:
            while True:
                md = ibmmq.MD(CorrelId=marker_id(writer_id, partition))
                gmo = ibmmq.GMO(Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_NO_WAIT,
                                MatchOptions=C.MQMO_MATCH_CORREL_ID)
                try:
                    queue.get(None, md, gmo)
                    removed += 1
                except ibmmq.MQMIError as exc:
                    if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                        break
                    raise describe(exc, f"removing exactly-once markers from {state_queue!r}") from exc
    finally:
        queue.close()
    return removed


def open_state_queue(qmgr: Any, ibmmq: Any, name: str, extra_options: int = 0) -> Any:
    C = ibmmq.CMQC
    try:
        return ibmmq.Queue(qmgr, name, C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING
                           | extra_options)
    except ibmmq.MQMIError as exc:
        if exc.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME:
            reason = CMQC.MQRC_UNKNOWN_OBJECT_NAME
            raise MQConnectorError(
                f"the exactly-once state queue {name!r} does not exist (MQ reason {reason} "
                f"{reason_name(reason)}): define it, e.g. runmqsc: DEFINE QLOCAL({name}) "
                "DEFPSIST(YES), or name another with option 'stateQueue', or use "
                "delivery=atLeastOnce", reason, reason_name(reason)) from exc
        raise open_refused(exc, qmgr, name, C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | extra_options,
                           f"opening the exactly-once state queue {name!r}") from exc


def ensure_state_queue(qmgr: Any, ibmmq: Any, name: str, connection: ConnectionOptions) -> None:
    """The state queue must exist; on the embedded queue manager it is created on first use
    (on IBM MQ the administrator defines it: the error says how)."""
    try:
        open_state_queue(qmgr, ibmmq, name).close()
        return
    except MQConnectorError as exc:
        if exc.reason != CMQC.MQRC_UNKNOWN_OBJECT_NAME or not _embedded(connection):
            raise
    from spark_mq.embedded.client.admin import first_address, run_mqsc
    credentials = credentials_of(connection)
    host, port = first_address(connection.conn_name or "")
    ok, output = run_mqsc(host, port, f"DEFINE QLOCAL({name}) DEFPSIST(YES) MAXDEPTH(999999999) "
                                      "DESCR('spark-mq writer exactly-once markers')",
                          credentials.user, credentials.password)
    if not ok and "already" not in output.lower():
        who = f"user {credentials.user!r}" if credentials.user else "this connection"
        raise MQConnectorError(
            f"the exactly-once state queue {name!r} does not exist, and creating it as {who} "
            f"failed: {output.strip()}. Valid: an administrator defines it, e.g. "
            f"spark-mq-qmgr mqsc \"DEFINE QLOCAL({name}) DEFPSIST(YES)\" (and grants the "
            "writer's user +get +put +inq +browse on it), or option 'stateQueue' names one "
            "that exists, or delivery=atLeastOnce")
    open_state_queue(qmgr, ibmmq, name).close()


def _embedded(connection: ConnectionOptions) -> bool:
    if connection.transport == "embedded":
        return True
    if connection.transport != "auto" or not connection.conn_name:
        return False
    from spark_mq.embedded import installed
    return installed()


@dataclass(frozen=True)
class MarkerInfo:
    """One marker as `list_markers` finds it."""
    writer_id: str
    partition: int
    batch: int
    rows: int | None          # None: a marker of the first, chunk-numbered writer
    updated: dt.datetime      # when a task last committed it (the marker's put time, UTC)
    msg_id: bytes


def list_markers(qmgr: Any, ibmmq: Any, state_queue: str) -> list[MarkerInfo]:
    """Every marker on the state queue that no running unit of work holds (a browse)."""
    queue = ibmmq.Queue(qmgr, state_queue, CMQC.MQOO_BROWSE | CMQC.MQOO_FAIL_IF_QUIESCING)
    found: list[MarkerInfo] = []
    options = CMQC.MQGMO_BROWSE_FIRST
    try:
        while True:
            md = ibmmq.MD()
            gmo = ibmmq.GMO(Options=options | CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_PROPERTIES)
            try:
                body = queue.get(None, md, gmo)
            except ibmmq.MQMIError as exc:
                if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return found
                raise describe(exc, f"browsing the state queue {state_queue!r}") from exc
            options = CMQC.MQGMO_BROWSE_NEXT
            marker = _marker_info(body, md)
            if marker is not None:
                found.append(marker)
    finally:
        queue.close()


def remove_idle_markers(qmgr: Any, ibmmq: Any, state_queue: str, writer_id: str,
                        idle: dt.timedelta, now: dt.datetime | None = None
                        ) -> tuple[list[MarkerInfo], list[MarkerInfo]]:
    """Remove the markers of `writer_id` not updated for `idle`; returns (removed, kept).
    Kept: markers a query updated more recently, which it may still need."""
    now = now or dt.datetime.now(dt.timezone.utc)
    removed: list[MarkerInfo] = []
    kept: list[MarkerInfo] = []
    queue = open_state_queue(qmgr, ibmmq, state_queue)
    try:
        for marker in list_markers(qmgr, ibmmq, state_queue):
            if marker.writer_id != writer_id:
                continue
            if now - marker.updated < idle:
                kept.append(marker)
                continue
            md = ibmmq.MD(MsgId=marker.msg_id)
            gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_NO_WAIT,
                            MatchOptions=CMQC.MQMO_MATCH_MSG_ID)
            try:
                queue.get(None, md, gmo)
                removed.append(marker)
            except ibmmq.MQMIError as exc:
                if exc.reason != CMQC.MQRC_NO_MSG_AVAILABLE:   # taken by a task meanwhile
                    raise describe(exc, f"removing a marker from {state_queue!r}") from exc
                kept.append(marker)
    finally:
        queue.close()
    return removed, kept


def _marker_info(body: bytes, md: Any) -> MarkerInfo | None:
    try:
        state = json.loads(body)
        rows = state.get("rows")
        return MarkerInfo(str(state["writerId"]), int(state["partition"]), int(state["batch"]),
                          None if rows is None else int(rows), _put_time(md), bytes(md.MsgId))
    except (ValueError, KeyError, TypeError):
        return None          # not a marker: some other message on the state queue


def _put_time(md: Any) -> dt.datetime:
    """MQMD PutDate (YYYYMMDD) and PutTime (HHMMSSTH), both GMT."""
    date, time = md.PutDate.decode().strip(), md.PutTime.decode().strip()
    stamp = dt.datetime.strptime(date + time[:6], "%Y%m%d%H%M%S")
    return stamp.replace(tzinfo=dt.timezone.utc, microsecond=int(time[6:8] or 0) * 10_000)

