"""The Spark data source "mq": options in, reader and writer objects out."""
from __future__ import annotations

from dataclasses import replace

from pyspark.sql.datasource import DataSource
from pyspark.sql.types import StructType

from spark_mq.columns import default_schema
from spark_mq.options import (
    READ_OPTIONS,
    WRITE_OPTIONS,
    ReadOptions,
    WriteOptions,
    check_known,
    lower_keys,
    parse_bool,
    parse_connection,
)


class MQDataSource(DataSource):
    """IBM MQ queues as Spark sources and sinks: format("mq").

    Reading: spark_mq.reader; writing: spark_mq.writer; every option: spark_mq.options.
    """

    def __init__(self, options: dict[str, str]) -> None:
        # Spark makes the data source at load() / save() / start(): misspelt option names and
        # bad connection options fail there, before any query runs
        super().__init__(options)
        opts = lower_keys(options)
        check_known(opts, READ_OPTIONS + WRITE_OPTIONS, "the mq data source")
        parse_connection(opts)

    @classmethod
    def name(cls) -> str:
        return "mq"

    def schema(self) -> str:
        # a topic read's default schema adds the topic each publication was published on,
        # convert the reason of an unconverted message, includeContext a copy's columns
        opts = lower_keys(self.options)
        return default_schema(topic="topic" in opts or "topicobject" in opts,
                              convert=parse_bool(opts, "convert", False),
                              include_context=parse_bool(opts, "includecontext", False,
                                                         "includeContext"))

    def _read_options(self) -> ReadOptions:
        """Parsed, and checked once against the queue manager: an unknown queue or a selector
        the queue manager refuses fails the query when it starts. A topic read first makes
        (or resumes) its durable subscription and then reads its managed queue."""
        from spark_mq.mq.queues import check_input_queue
        from spark_mq.start_checks import checked_once
        options = ReadOptions.parse(self.options)
        if options.reads_topic:
            from spark_mq.mq.subscriptions import ensure_durable_subscription
            managed = checked_once(("subscribe", options), lambda: ensure_durable_subscription(
                options.connection, options.subscription or "", options.topic,
                options.topic_object))
            options = replace(options, queue=managed)
        checked_once(("read", options), lambda: check_input_queue(
            options.connection, options.queue, options.selector))
        return options

    def reader(self, schema: StructType):
        from spark_mq.reader import MQBatchReader
        return MQBatchReader(_for_schema(self._read_options(), schema), schema)

    def streamReader(self, schema: StructType):
        options = _for_schema(self._read_options(), schema)
        if options.read_mode == "executors":
            from spark_mq.reader.executors import MQExecutorStreamReader
            return MQExecutorStreamReader(options, schema)
        from spark_mq.reader import MQStreamReader
        return MQStreamReader(options, schema)

    def writer(self, schema: StructType, overwrite: bool):
        from spark_mq.writer import MQBatchWriter
        return MQBatchWriter(WriteOptions.parse(self.options, streaming=False), schema, overwrite)

    def streamWriter(self, schema: StructType, overwrite: bool):
        from spark_mq.writer import MQStreamWriter
        return MQStreamWriter(WriteOptions.parse(self.options, streaming=True), schema, overwrite)


def _for_schema(options: ReadOptions, schema: StructType) -> ReadOptions:
    """What the consumers must read besides the defaults: property types, when a column
    shows them (a second MQINQMP per 4-byte integer property, so only then)."""
    return replace(options, typed_properties="property_types" in schema.fieldNames())
