"""The job's SparkSession: Python workers on this interpreter, Spark's logging quiet unless
--verbose, and the "mq" data source (Spark finds it by itself; register() covers sessions
where discovery is off, silently)."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import spark_mq
from spark_mq.jobs.ctrl_c import handle_ctrl_c

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

#: the jobs' log4j2 configuration: warnings and errors a person can act on
LOG_CONFIG = Path(__file__).with_name("log4j2.properties")


def spark_session(app_name: str, conf: dict[str, str] | None = None,
                  verbose: bool = False) -> SparkSession:
    """The job's SparkSession with the "mq" source available.

    Under spark-submit the master and resources come from spark-submit; run with plain
    `python` it is local[*]. Python workers default to this interpreter (the one that has
    the package), unless PYSPARK_PYTHON says otherwise. Spark's own logging goes through
    LOG_CONFIG unless `verbose`; the console progress bar is off (the jobs print their own)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession
    builder = SparkSession.builder.appName(app_name)
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    # adaptive execution does not apply to streaming queries (Spark warns once per query)
    builder = builder.config("spark.sql.adaptive.enabled", "false")
    if "PYSPARK_GATEWAY_PORT" not in os.environ and not verbose:
        # this process starts the JVM (not spark-submit): a local run, whose driver address is
        # this machine (no "resolves to a loopback address" warning), quiet from the start
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = builder.config("spark.driver.extraJavaOptions",
                                 f"-Dlog4j2.configurationFile={LOG_CONFIG.as_uri()}")
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    if not verbose:
        _quiet_logging(spark)
    handle_ctrl_c()
    spark_mq.register(spark)
    return spark


def _quiet_logging(spark: SparkSession) -> None:
    """LOG_CONFIG for a JVM started before this process could set it (spark-submit)."""
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    configurator = jvm.org.apache.logging.log4j.core.config.Configurator
    configurator.reconfigure(jvm.java.net.URI.create(LOG_CONFIG.as_uri()))
