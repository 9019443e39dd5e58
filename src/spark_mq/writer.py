"""The Spark side of the sink: df.write.format("mq") and df.writeStream.format("mq").

    (df.selectExpr("CAST(value AS STRING) AS payload", "key AS correlation_id", "region")
       .writeStream.format("mq")
       .option("connName", "localhost(1414)").option("queue", "DEV.QUEUE.1")
       .option("checkpointLocation", "/chk").start())

    df.write.format("mq").option("connName", ...).option("queue", ...).mode("append").save()

Columns are described in spark_mq/mq/outgoing.py, options in spark_mq/options/.

Tracing: where OpenTelemetry is installed (the `otel` extra), each task's write() runs in a
span `send <queue or topic>` (spark_mq.mq.trace_context.batch_span); without it, nothing.
The messages' own trace context is the `traceparent`/`tracestate` columns.

Where things run: the constructor runs on the driver when the query starts. It checks the
schema and the options and connects once to check the queue manager's MAXUMSGS, the target
queue and the exactly-once state queue, so that bad input fails the query at start. `write()`
runs on the executors: each task puts its rows in units of work of `commitEvery` rows, with
asynchronous puts (MQPMO_ASYNC_RESPONSE) checked by MQSTAT before each MQCMIT; any failure
backs the open unit of work out and fails the task with the MQ reason code, except a lost
connection: the task connects again (with back-off, up to `reconnectTimeoutMs`) and goes on
where the marker says (exactlyOnce) or from the start of the lost unit of work.

Delivery. exactlyOnce (the default for streams): each unit of work also replaces a marker
message on the state queue (spark_mq/mq/markers.py), keyed by (query id, partition) and
holding (batch id, rows of that batch on the queue); a batch that Spark runs again (task
retry, restart after a crash or a lost commit file) skips exactly the rows its marker
counts. The batch id comes from the task's local property `streaming.sql.batchId`, the query
id from `sql.streaming.queryId` (or the `writerId` option). It relies on Spark handing a
replayed batch the same rows in the same partitions, as it does for replayable sources
(files, Kafka, spark-mq's reader). Two attempts of one partition never write at once (a
retried or speculative task, a cancelled task still running when the restarted query runs
the batch): the second waits for the first's lock (markers.py, option `claimTimeoutMs`).
A `writerId` used again
by a query with a new checkpoint (whose batch ids start again at 0) fails the query with an
explanation instead of skipping or doubling rows. atLeastOnce: no markers; a replayed batch
is written again. Batch jobs default to atLeastOnce; with exactlyOnce their task retries put
nothing twice and the job removes its markers when it commits or aborts. Chunks a failed job
had committed stay on the queue: MQ cannot take back a committed unit of work.

Several queue managers (`queueManagers`): each Spark partition writes to one of them, entry
`partition % n` (WriteOptions.member), so every attempt of a partition, and a batch Spark
replays, goes to the same queue manager and finds its marker and lock there: exactly-once
is per queue manager, as no unit of work spans two. The driver checks each of them at the
start (one that cannot be reached fails the query, naming it); a task whose queue manager is
lost waits reconnectTimeoutMs for it, then fails naming it, and Spark's retry of the task
(or of the query) writes to that same one. Each MQWriteResult names its queue manager; a
batch job removes each partition's markers there. Changing the list under a checkpoint moves
partitions to other queue managers, whose markers know nothing of a batch Spark replays.

Cluster queues: `bind` is the MQOO_BIND_* of every open (spark_mq/mq/producer.py keeps a
reference/data pair and `group_id` rows on one instance whatever the bind).
"""
from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, replace

from pyspark.sql.datasource import DataSourceArrowWriter, DataSourceStreamArrowWriter, WriterCommitMessage
from pyspark.sql.types import MapType, StructType

from spark_mq.errors import MQConnectorError, MQOptionError, reports_to_spark
from spark_mq.mq.connecting import ConnectionOptions, connected, load_ibmmq
from spark_mq.mq.markers import check_locks_allowed, ensure_state_queue, remove_markers
from spark_mq.mq.outgoing import Column, MessageDefaults, MessagePlan
from spark_mq.mq.producer import ProducerSettings, queue_manager_limits
from spark_mq.mq.refusals import open_refused
from spark_mq.mq.sink import Exactly, Topic, write_rows
from spark_mq.mq.trace_context import batch_span
from spark_mq.options import WriteOptions
from spark_mq.start_checks import checked_once

log = logging.getLogger(__name__)

BATCH_ID_PROPERTY = "streaming.sql.batchId"
QUERY_ID_PROPERTY = "sql.streaming.queryId"


@dataclass
class MQWriteResult(WriterCommitMessage):
    """What one task did; the driver uses it to report and (batch jobs) to remove markers."""
    writer_id: str
    partition: int
    rows: int
    messages: int
    chunks_written: int
    rows_skipped: int
    queue_manager: str = ""     # the one the partition wrote to (queueManagers: one of them)


def spark_columns(schema: StructType) -> list[Column]:
    """The schema as the MQ layer sees it: names and Spark type names (maps in full)."""
    return [Column(f.name, f.dataType.simpleString() if isinstance(f.dataType, MapType)
                   else f.dataType.typeName()) for f in schema.fields]


class _MQWriter:
    """What the batch and the stream writer share."""

    def __init__(self, options: WriteOptions, schema: StructType):
        self.options = options
        self.columns = spark_columns(schema)
        plan = _plan(self.columns, self.options)
        if self.options.queue is None and self.options.topic is None and not plan.routes_by_column:
            raise MQOptionError("queue", None, "a queue name, a 'topic' option (a topic string "
                                               "to publish to), or a 'queue' column (or a "
                                               "'topic' column) in the DataFrame that names "
                                               "each row's target")
        if self.options.retain and self.options.queue is not None:
            raise MQOptionError("retain", "true", "false with a 'queue' option (only "
                                                  "publications on topics are retained)")
        if (self.options.retain and self.options.topic is None
                and plan.topic_index is None):
            raise MQOptionError("retain", "true", "false, or true with a 'topic' option or "
                                                  "column (only publications are retained)")
        self.options = _check_members_at_start(self.options)
        # a batch job has no query id: this id (made once, on the driver) ties task retries
        self.job_id = self.options.writer_id or f"job-{uuid.uuid4()}"
        self.settings = ProducerSettings(self.options.async_put, self.options.persistence,
                                         self.options.segmentation,
                                         self.options.large_message_threshold,
                                         plan.context_level, self.options.retain,
                                         keep_msg_id=self.options.context == "all",
                                         bind=self.options.bind)
        self._task_connection: ConnectionOptions | None = None

    @property
    def error_connection(self) -> ConnectionOptions | None:
        """The queue manager an error names (spark_mq.errors.reports_to_spark): in a task,
        the one it writes to; with queueManagers on the driver, none (each error names its
        own, see _check_members_at_start)."""
        task = getattr(self, "_task_connection", None)
        if task is not None:
            return task
        options = getattr(self, "options", None)
        if options is None or options.queue_managers:
            return None
        return options.connection

    def _write(self, batches: Iterator) -> MQWriteResult:
        from pyspark import TaskContext
        context = TaskContext.get()
        assert context is not None, "write() runs in a Spark task"
        batch_id = int(context.getLocalProperty(BATCH_ID_PROPERTY) or 0)
        writer_id = (self.options.writer_id or context.getLocalProperty(QUERY_ID_PROPERTY)
                     or self.job_id)
        partition = context.partitionId()
        options = self.options.member(partition)
        self._task_connection = options.connection
        plan = _plan(self.columns, options)
        exactly = (Exactly(options.state_queue, writer_id, partition,
                           options.claim_timeout_ms, options.model_queue)
                   if options.exactly_once else None)
        target = Topic(options.topic) if options.topic else options.queue
        where = options.topic or options.queue or "(by column)"
        with batch_span(f"send {where}", {"messaging.system": "ibmmq",
                                          "messaging.destination.name": where,
                                          "spark_mq.partition": partition,
                                          "spark_mq.batch_id": batch_id}) as span:
            result = write_rows(_rows(batches), plan, options.connection, self.settings,
                                target, options.commit_every, exactly, batch_id)
            if span is not None:
                span.set_attribute("messaging.batch.message_count", result.messages)
        return MQWriteResult(writer_id, partition, result.rows, result.messages,
                             result.chunks_written, result.rows_skipped,
                             options.connection.queue_manager)

    def _log_spread(self, messages: list[WriterCommitMessage | None], what: str) -> None:
        """queueManagers: which queue manager each partition wrote to, in the driver's log."""
        if not self.options.queue_managers:
            return
        spread = sorted((m.partition, m.queue_manager, m.rows) for m in messages
                        if isinstance(m, MQWriteResult))
        log.info("%s: %s", what, ", ".join(f"partition {p} -> {qm} ({rows} rows)"
                                           for p, qm, rows in spread))


@reports_to_spark("__init__", "write", "commit", "abort")
class MQBatchWriter(_MQWriter, DataSourceArrowWriter):
    """df.write.format("mq"): delivery defaults to atLeastOnce; exactlyOnce makes task
    retries put nothing twice and removes its markers when the job commits or aborts."""

    def __init__(self, options: WriteOptions, schema: StructType, overwrite: bool = False):
        if overwrite:
            raise MQOptionError("mode", "overwrite", "append (messages are added to a queue; "
                                                     "nothing on it can be replaced)")
        super().__init__(options, schema)

    def write(self, iterator: Iterator) -> MQWriteResult:
        return self._write(iterator)

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        self._log_spread(messages, "batch write committed")
        self._remove_markers(messages)

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        self._remove_markers(messages)

    def _remove_markers(self, messages) -> None:
        if not self.options.exactly_once:
            return
        results = [m for m in messages if isinstance(m, MQWriteResult)]
        for member in self.options.members():
            name = member.connection.queue_manager
            partitions = sorted({m.partition for m in results if m.queue_manager == name})
            if not partitions:
                continue
            ibmmq = load_ibmmq(member.connection.transport)
            with connected(member.connection) as qmgr:
                remove_markers(qmgr, ibmmq, member.state_queue, self.job_id, partitions)


@reports_to_spark("__init__", "write", "commit", "abort")
class MQStreamWriter(_MQWriter, DataSourceStreamArrowWriter):
    """df.writeStream.format("mq"): delivery defaults to exactlyOnce."""

    def __init__(self, options: WriteOptions, schema: StructType, overwrite: bool = False):
        super().__init__(options, schema)

    def write(self, iterator: Iterator) -> MQWriteResult:
        return self._write(iterator)

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        # every chunk was committed in MQ by its task, with its marker: nothing left to do
        self._log_spread(messages, f"batch {batchId} committed")

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        # committed chunks stay in MQ; their markers make the replay of this batch skip them
        return None


def _plan(columns: list[Column], options: WriteOptions) -> MessagePlan:
    defaults = MessageDefaults(options.ccsid, options.encoding, options.format,
                               options.jms_message_type, options.context == "all",
                               options.persistence, options.null_payload,
                               options.target_queue_manager, options.report)
    return MessagePlan(columns, options.context != "none", defaults)


def _rows(batches: Iterator) -> Iterator[tuple]:
    for batch in batches:
        columns = [column.to_pylist() for column in batch.columns]
        yield from zip(*columns)


def _check_members_at_start(options: WriteOptions) -> WriteOptions:
    """_check_at_start for each queue manager written to; commitEvery fits all of them. An
    error names the queue manager it is about."""
    checked = []
    for member in options.members():
        try:
            checked.append(_check_at_start(member))
        except MQConnectorError as exc:
            if options.queue_managers:
                connection = member.connection
                exc.at(connection.queue_manager, connection.conn_name or connection.ccdt_url)
            raise
    return replace(options, commit_every=min(c.commit_every for c in checked))


def _check_at_start(options: WriteOptions) -> WriteOptions:
    return checked_once(("write", options), lambda: _check_with_queue_manager(options))


def _check_with_queue_manager(options: WriteOptions) -> WriteOptions:
    """Connect once on the driver: MAXUMSGS against commitEvery, the queue, the state queue."""
    ibmmq = load_ibmmq(options.connection.transport)
    with connected(options.connection, f"connecting to queue manager "
                                       f"{options.connection.queue_manager} at "
                                       f"{options.connection.conn_name} to write") as qmgr:
        max_uncommitted, _ = queue_manager_limits(qmgr, ibmmq)
        options = options.check_commit_every(max_uncommitted)
        if options.queue:
            where = options.target_queue_manager
            target = (ibmmq.OD(ObjectName=options.queue, ObjectQMgrName=where) if where
                      else options.queue)
            try:
                ibmmq.Queue(qmgr, target, ibmmq.CMQC.MQOO_OUTPUT).close()
            except ibmmq.MQMIError as exc:
                label = f"queue {options.queue!r}" + (f" at queue manager {where!r} (option "
                                                      "'targetQueueManager')" if where else "")
                raise open_refused(exc, qmgr, options.queue, ibmmq.CMQC.MQOO_OUTPUT,
                                   f"opening {label} for output") from exc
        if options.topic:
            od = ibmmq.OD(ObjectType=ibmmq.CMQC.MQOT_TOPIC, Version=ibmmq.CMQC.MQOD_VERSION_4)
            od.set_vs("ObjectString", options.topic)
            try:
                ibmmq.Queue(qmgr, od, ibmmq.CMQC.MQOO_OUTPUT).close()
            except ibmmq.MQMIError as exc:
                raise open_refused(exc, qmgr, options.topic, ibmmq.CMQC.MQOO_OUTPUT,
                                   f"opening topic {options.topic!r} for publishing",
                                   "topic") from exc
        if options.exactly_once:
            ensure_state_queue(qmgr, ibmmq, options.state_queue, options.connection)
            check_locks_allowed(qmgr, ibmmq, options.model_queue)
    return options
