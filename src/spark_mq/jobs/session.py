"""The job's SparkSession, with the "mq" data source registered."""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import spark_mq

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def spark_session(app_name: str, conf: dict[str, str] | None = None) -> SparkSession:
    """The job's SparkSession with the "mq" source registered.

    Under spark-submit the master and resources come from spark-submit; run with plain
    `python` it is local[*]. Python workers default to this interpreter (the one that has
    the package), unless PYSPARK_PYTHON says otherwise. SPARK_MQ_LOG_LEVEL sets Spark's log
    level (default WARN); the console progress bar is off (the jobs print their own)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession
    builder = SparkSession.builder.appName(app_name)
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(os.environ.get("SPARK_MQ_LOG_LEVEL", "WARN"))
    spark_mq.register(spark)
    return spark
