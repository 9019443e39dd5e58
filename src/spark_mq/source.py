"""The Spark data source "mq": options in, reader and writer objects out.

When Spark calls what (pyspark 4.3, checked with a real session; tests/spark/test_errors.py):

* `spark.read/readStream.format("mq")...load()` without a user schema: the constructor and
  `schema()`, at load(): every reader option is checked there, values and combinations;
* `.schema(...).load()`: nothing in Python at load(); a batch read makes the data source
  and its `reader()` when an action plans the query, a stream when it starts (in the
  query's thread: errors reach `awaitTermination()` / `query.exception()`);
* `df.write...save()`: the constructor and `writer()`, at save();
* `writeStream...start()`: nothing in Python at start(); the constructor and
  `streamWriter()` run in the query's thread before the first batch.

A stream reader must not fail while it is made (pyspark's runner then hides the error
behind an UnboundLocalError): `streamReader()` only makes it, and it checks everything at
Spark's first call (spark_mq.reader.start).
"""
from __future__ import annotations

from pyspark.sql.datasource import DataSource
from pyspark.sql.types import StructType

from spark_mq.columns import default_schema
from spark_mq.errors import reports_to_spark
from spark_mq.mq.connecting import ConnectionOptions
from spark_mq.options import (
    READ_OPTIONS,
    WRITE_OPTIONS,
    ReadOptions,
    WriteOptions,
    check_known,
    lower_keys,
    parse_connection,
    requested_read_mode,
)


@reports_to_spark("__init__", "schema", "reader", "writer", "streamWriter")
class MQDataSource(DataSource):
    """IBM MQ queues as Spark sources and sinks: format("mq").

    Reading: spark_mq.reader; writing: spark_mq.writer; every option: spark_mq.options.
    """

    def __init__(self, options: dict[str, str]) -> None:
        # Spark makes the data source at load() / save() (a stream's writer: at start, in
        # the query's thread): misspelt option names and bad connection options fail there
        super().__init__(options)
        opts = lower_keys(options)
        check_known(opts, READ_OPTIONS + WRITE_OPTIONS, "the mq data source")
        parse_connection(opts)

    @classmethod
    def name(cls) -> str:
        return "mq"

    def schema(self) -> str:
        # only reads ask (load() without a user schema): every reader option is checked here.
        # A topic read's default schema adds the topic each publication was published on,
        # convert the reason of an unconverted message, includeContext a copy's columns
        options = ReadOptions.parse(self.options)
        return default_schema(topic=options.reads_topic, convert=options.convert,
                              include_context=options.include_context)

    def reader(self, schema: StructType):
        # a batch read's reader is made when an action plans the query, and an error here
        # reaches the user as raised: the start checks run here, before any task
        from spark_mq.reader import MQBatchReader
        from spark_mq.reader.start import read_options, start_checks
        return MQBatchReader(start_checks(read_options(self.options, schema), browse=True),
                             schema)

    def streamReader(self, schema: StructType):
        # must not raise (see the module docstring): the reader checks at Spark's first call
        if "queuemanagers" in lower_keys(self.options):
            from spark_mq.reader.queue_managers import MQQueueManagersStreamReader
            return MQQueueManagersStreamReader(self.options, schema)
        if requested_read_mode(self.options) == "executors":
            from spark_mq.reader.executors import MQExecutorStreamReader
            return MQExecutorStreamReader(self.options, schema)
        from spark_mq.reader import MQStreamReader
        return MQStreamReader(self.options, schema)

    def writer(self, schema: StructType, overwrite: bool):
        from spark_mq.writer import MQBatchWriter
        return MQBatchWriter(WriteOptions.parse(self.options, streaming=False), schema, overwrite)

    def streamWriter(self, schema: StructType, overwrite: bool):
        from spark_mq.writer import MQStreamWriter
        return MQStreamWriter(WriteOptions.parse(self.options, streaming=True), schema, overwrite)

    @property
    def error_connection(self) -> ConnectionOptions | None:
        """The queue manager an error names (spark_mq.errors.reports_to_spark); with
        queueManagers the error names the one it is about itself."""
        if "queuemanagers" in lower_keys(self.options):
            return None
        try:
            return parse_connection(self.options)
        except Exception:  # noqa: BLE001 - bad connection options name no queue manager
            return None
