"""spark-mq: IBM MQ queues as Spark Structured Streaming sources and sinks.

    import spark_mq
    spark_mq.register(spark)          # or rely on pyspark_mq's auto-discovery
    spark.readStream.format("mq").option("queue", "DEV.QUEUE.1")...

Imports stay light: Spark is imported only when `register` is called.
"""
from __future__ import annotations

__version__ = "0.1.0"


def register(spark) -> None:
    """Register the "mq" data source with this Spark session (safe to call again)."""
    from spark_mq.source import MQDataSource
    # registering the same class again just replaces the entry: idempotent
    spark.dataSource.register(MQDataSource)


__all__ = ["register", "__version__"]
