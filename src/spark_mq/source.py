"""The Spark data source "mq": options in, reader and writer objects out."""
from __future__ import annotations

from pyspark.sql.datasource import DataSource
from pyspark.sql.types import StructType

from spark_mq.columns import DEFAULT_SCHEMA


class MQDataSource(DataSource):
    """IBM MQ queues as Spark sources and sinks: format("mq").

    Reading: spark_mq.reader (options: spark_mq.read_options). Writing: spark_mq.writer.
    """

    @classmethod
    def name(cls) -> str:
        return "mq"

    def schema(self) -> str:
        return DEFAULT_SCHEMA

    def _read_options(self):
        from spark_mq.read_options import ReadOptions
        return ReadOptions.parse(self.options)

    def reader(self, schema: StructType):
        from spark_mq.reader import MQBatchReader
        return MQBatchReader(self._read_options(), schema)

    def streamReader(self, schema: StructType):
        from spark_mq.reader import MQStreamReader
        return MQStreamReader(self._read_options(), schema)

    def writer(self, schema: StructType, overwrite: bool):
        from spark_mq.writer import MQBatchWriter
        return MQBatchWriter(self.options, schema, overwrite)

    def streamWriter(self, schema: StructType, overwrite: bool):
        from spark_mq.writer import MQStreamWriter
        return MQStreamWriter(self.options, schema, overwrite)
