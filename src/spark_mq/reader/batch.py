"""spark.read.format("mq"): a browse of the queue (a snapshot; nothing is consumed).

queueManagers: one partition per queue manager, each browsing the queue there (its rows'
`queue_manager` names it). A queue manager that cannot be reached fails the read, naming
it: a snapshot that left one out would look complete.

requireText: a browse moves nothing, so a message that is not text is left out of the rows
(and stays on the queue, as every browsed message does)."""
from __future__ import annotations

from collections.abc import Iterator, Sequence

from pyspark.sql.datasource import DataSourceReader, InputPartition
from pyspark.sql.types import StructType

from spark_mq.columns import Source, to_record_batch
from spark_mq.errors import reports_to_spark
from spark_mq.mq.connecting import ConnectionOptions, connect, hand_over, load_ibmmq
from spark_mq.mq.exceptions import MQConnectorError
from spark_mq.mq.message import MD_INDEX, Message
from spark_mq.options import ReadOptions
from spark_mq.reader.rows import ARROW_CHUNK, arrow_schema, column_specs
from spark_mq.reader.start import naming


@reports_to_spark("read")
class MQBatchReader(DataSourceReader):
    """spark.read.format("mq"): browses the queue (a snapshot; nothing is consumed)."""

    def __init__(self, options: ReadOptions, schema: StructType):
        self.options = options
        self.schema = schema
        self.specs = column_specs(schema)

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
        ibmmq = load_ibmmq(opts.connection.transport)
        # the Browser owns the connection once made; hand_over disconnects it when the queue
        # does not open (gone since the start check, or browsing refused)
        browser = hand_over(ibmmq, connect(opts.connection), lambda qmgr: Browser(
            ibmmq, qmgr, opts.queue, opts.selector, conversion=opts.conversion,
            typed_properties=opts.typed_properties))
        try:
            schema = arrow_schema(self.schema)
            chunk: list[Message] = []
            for message in browser.messages():
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


_FORMAT, _CCSID, _ENCODING = MD_INDEX["Format"], MD_INDEX["CodedCharSetId"], MD_INDEX["Encoding"]


def not_text(message: Message) -> bool:
    """Whether requireText leaves this message out (spark_mq.mq.consumer.text_refusal)."""
    from spark_mq.mq.consumer import text_refusal
    md = message.md
    return text_refusal(message.payload, md[_FORMAT], md[_CCSID], md[_ENCODING]) is not None
