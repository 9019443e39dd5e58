"""Spark finds top-level `pyspark_*` modules with a `DefaultSource` and registers them, so
format("mq") works with no registration call when spark-mq is installed."""
from spark_mq.source import MQDataSource as DefaultSource

__all__ = ["DefaultSource"]
