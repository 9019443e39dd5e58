"""spark.read.format("mq"): a browse of the queue (a snapshot; nothing is consumed).

queueManagers: one partition per queue manager, each browsing the queue there (its rows'
`queue_manager` names it). A queue manager that cannot be reached fails the read, naming
it: a snapshot that left one out would look complete.

requireText: a browse moves nothing, so a message that is not text is left out of the rows
(and stays on the queue, as every browsed message does).

Filter pushdown (spark_mq.reader.pushdown): with spark.sql.python.filterPushdown.enabled
Spark calls `pushFilters` once at planning, on the planner's copy of the reader; what it
keeps (the lookups by id, the selector) travels to the task in the pickled reader. A read
with lookups browses by id only, a read with a pushed selector opens the queue with it.
Without the conf Spark never calls pushFilters, and every read browses the whole queue as
before (see `_FilterPushdown` for how the reader stays readable then).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from pyspark.sql.datasource import DataSourceReader, Filter, InputPartition
from pyspark.sql.types import StructType

from spark_mq.columns import Source, to_record_batch
from spark_mq.errors import MQConnectorError, reports_to_spark
from spark_mq.mq.connecting import ConnectionOptions, connect, hand_over, load_ibmmq
from spark_mq.mq.message import MD_INDEX, Message
from spark_mq.mqi.constants import CMQC
from spark_mq.options import ReadOptions
from spark_mq.reader.pushdown import Pushdown, push_filters
from spark_mq.reader.rows import ARROW_CHUNK, arrow_schema, column_specs
from spark_mq.reader.start import naming


class _FilterPushdown:
    """The batch reader's `pushFilters`, as Spark finds it.

    pyspark's planner refuses a reader whose pushFilters is not DataSourceReader's own when
    spark.sql.python.filterPushdown.enabled is false (DATA_SOURCE_PUSHDOWN_DISABLED, worker/
    plan_data_source_read.py, pyspark 4.1-4.3): it is meant for sources whose reads rely on
    pushdown. Here pushdown only makes the same rows cheaper, and a plain override would fail
    every batch read of a session without the conf. The planner's test is
    `reader.pushFilters.__func__ is DataSourceReader.pushFilters`, so this callable shows
    DataSourceReader's function there; with the conf on Spark calls it.
    (tests/spark/test_reader_pushdown.py reads with the conf off and on.)
    """

    __func__ = staticmethod(DataSourceReader.pushFilters)   # looked up as is, never bound

    def __init__(self, reader: MQBatchReader) -> None:
        self._reader = reader

    def __call__(self, filters: list[Filter]) -> Iterable[Filter]:
        return self._reader.push_filters(filters)


@reports_to_spark("read")
class MQBatchReader(DataSourceReader):
    """spark.read.format("mq"): browses the queue (a snapshot; nothing is consumed)."""

    def __init__(self, options: ReadOptions, schema: StructType):
        self.options = options
        self.schema = schema
        self.specs = column_specs(schema)
        self.pushdown = Pushdown()

    @property  # type: ignore[override]  # see _FilterPushdown
    def pushFilters(self) -> Any:
        return _FilterPushdown(self)

    def push_filters(self, filters: list[Filter]) -> list[Filter]:
        """Keep what MQ can apply exactly (spark_mq.reader.pushdown); the rest goes back to
        Spark."""
        opts = self.options
        columns = [spec.name for spec in self.specs if not spec.is_property]
        self.pushdown, rest = push_filters(filters, columns, opts.selector, opts.convert)
        return rest

    @property
    def error_connection(self) -> ConnectionOptions | None:
        """The queue manager an error names (spark_mq.errors.reports_to_spark); with
        queueManagers `read` names the one it browses."""
        return None if self.options.queue_managers else self.options.connection

    def partitions(self) -> Sequence[InputPartition]:
        return [InputPartition(i) for i in range(len(self.options.members()))]

    def read(self, partition: InputPartition) -> Iterator:
        opts = self.options.members()[partition.value]
        try:
            yield from self._browse(opts)
        except MQConnectorError as exc:
            naming(exc, opts.connection)
            raise

    def _browse(self, opts: ReadOptions) -> Iterator:
        from spark_mq.mq.browser import Browser
        pushdown = self.pushdown
        if pushdown.lookups == ():
            return      # the pushed filters keep no row: nothing to ask MQ for
        ibmmq = load_ibmmq(opts.connection.transport)
        try:
            # the Browser owns the connection once made; hand_over disconnects it when the
            # queue does not open (gone since the start check, or browsing refused)
            browser = hand_over(ibmmq, connect(opts.connection), lambda qmgr: Browser(
                ibmmq, qmgr, opts.queue, pushdown.selector or opts.selector,
                conversion=opts.conversion, typed_properties=opts.typed_properties))
        except MQConnectorError as exc:
            # the start check opened the queue with the selector option alone, so here a
            # queue manager that proves more than spark_mq.mqi.selector does (IBM MQ) says
            # the pushed conditions never hold: no row, as Spark would have found
            if pushdown.selector and exc.reason == CMQC.MQRC_SELECTOR_ALWAYS_FALSE:
                return
            raise
        try:
            schema = arrow_schema(self.schema)
            chunk: list[Message] = []
            for message in browsed(browser, pushdown):
                if opts.require_text and not_text(message):
                    continue
                chunk.append(message)
                if len(chunk) >= ARROW_CHUNK:
                    yield to_record_batch(chunk, Source.of(opts), self.specs, schema)
                    chunk = []
            if chunk:
                yield to_record_batch(chunk, Source.of(opts), self.specs, schema)
        finally:
            browser.close()


def browsed(browser: Any, pushdown: Pushdown) -> Iterator[Message]:
    """The whole queue, or with lookups the messages each one matches (within the depth at
    the start, as a whole browse)."""
    if pushdown.lookups is None:
        yield from browser.messages()
        return
    depth = browser.depth()
    for match in pushdown.lookups:
        yield from browser.messages(limit=depth, match=match)


_FORMAT, _CCSID, _ENCODING = MD_INDEX["Format"], MD_INDEX["CodedCharSetId"], MD_INDEX["Encoding"]


def not_text(message: Message) -> bool:
    """Whether requireText leaves this message out (spark_mq.mq.consumer.text_refusal)."""
    from spark_mq.mq.consumer import text_refusal
    md = message.md
    return text_refusal(message.payload, md[_FORMAT], md[_CCSID], md[_ENCODING]) is not None
