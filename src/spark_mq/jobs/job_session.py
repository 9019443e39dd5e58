"""The job's SparkSession: Python workers on this interpreter, Spark's logging quiet unless
--verbose, Ctrl-C handled by the job, and the "mq" data source (Spark finds it by itself;
register() covers sessions where discovery is off, silently)."""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import spark_mq
from spark_mq.jobs import log4j
from spark_mq.jobs.ctrl_c import handle_ctrl_c
from spark_mq.jobs.job_processes import under_spark_submit

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def spark_session(app_name: str, conf: dict[str, str] | None = None,
                  verbose: bool = False) -> SparkSession:
    """The job's SparkSession with the "mq" source available.

    Under spark-submit the master and resources come from spark-submit; run with plain
    `python` it is local[*]. Python workers default to this interpreter (the one that has
    the package), unless PYSPARK_PYTHON says otherwise. Spark's own logging goes through
    log4j.LOG_CONFIG unless `verbose`; the console progress bar is off (the jobs print their own)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession
    builder = SparkSession.builder.appName(app_name)
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    # adaptive execution does not apply to streaming queries (Spark warns once per query)
    builder = builder.config("spark.sql.adaptive.enabled", "false")
    if under_spark_submit():
        _take_over_running_jvm(verbose)
    elif not verbose:
        # this process starts the JVM: a local run, whose driver address is this machine (no
        # "resolves to a loopback address" warning), quiet from the start
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = log4j.quiet_builder(builder)
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    if not verbose:
        jvm = spark.sparkContext._jvm
        assert jvm is not None
        log4j.quiet_running_jvm(jvm)    # in case Spark set its defaults again on the way
    handle_ctrl_c()
    spark_mq.register(spark)
    return spark


def _take_over_running_jvm(verbose: bool) -> None:
    """Under spark-submit, before the SparkContext: quiet logging, and Ctrl-C left to this
    process. The terminal sends Ctrl-C to the JVM too, and the JVM's default is to exit,
    stopping Spark under the running queries; pyspark makes a JVM it starts itself ignore
    SIGINT, and so does this one to the JVM spark-submit started."""
    from pyspark import SparkContext
    SparkContext._ensure_initialized()
    jvm = SparkContext._jvm
    assert jvm is not None
    if not verbose:
        log4j.quiet_running_jvm(jvm)
    signals = jvm.sun.misc
    signals.Signal.handle(signals.Signal("INT"), signals.SignalHandler.SIG_IGN)
