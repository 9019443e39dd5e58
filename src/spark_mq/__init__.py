"""spark-mq: IBM MQ queues as Spark Structured Streaming sources and sinks.

    spark.readStream.format("mq").option("queue", "DEV.QUEUE.1")...

Spark finds format("mq") by itself (pyspark_mq.DefaultSource); `spark_mq.register(spark)` is
the explicit alternative, for sessions where discovery is off, and it adds the listener that
commits each micro-batch in MQ as soon as Spark's commit log has it, so a stopped query
leaves MQ matching its sink (spark_mq.reader.commit_notes).

Imports stay light: Spark is imported only when `register` is called, or when the process
imported pyspark.sql first (a Spark script): then pyspark's JSON log line of an error that is
raised anyway is turned off (spark_mq.jobs.log4j.quiet_python_logs).
"""
from __future__ import annotations

import sys

__version__ = "0.1.0"


def register(spark) -> None:
    """Register the "mq" data source with this Spark session, unless Spark has it already
    (found by itself, or registered before): registering over it only makes Spark warn that
    it "replaced a statically registered data source". Adds, once per session, the listener
    that tells the readers which micro-batches Spark committed (not on Spark Connect)."""
    from spark_mq.jobs.log4j import quiet_python_logs
    from spark_mq.reader.commit_notes import add_listener
    from spark_mq.source import MQDataSource
    quiet_python_logs()
    add_listener(spark)
    try:
        known = spark._jsparkSession.sessionState().dataSourceManager().dataSourceExists("mq")
    except Exception:  # noqa: BLE001 - Spark Connect, or Spark's internals changed: register
        known = False
    if not known:
        spark.dataSource.register(MQDataSource)


if "pyspark.sql" in sys.modules:
    from spark_mq.jobs.log4j import quiet_python_logs
    quiet_python_logs()

__all__ = ["register", "__version__"]
