"""Spark's logging made quiet: LOG_CONFIG (log4j2.properties next to this module, in the
package) keeps the warnings and errors a person can act on and drops Spark's INFO lines.

Where the configuration can be given depends on who starts the JVM:

- `python job.py`: pyspark starts it, with spark.driver.extraJavaOptions from the builder
  (`quiet_builder`), so it is quiet from its first line.
- `spark-submit job.py`: the JVM runs before any Python code; `--driver-java-options
  "$(python -m spark_mq.jobs.log4j)"` gives it the configuration from its first line. Without
  that, a job reconfigures the running JVM before it makes its SparkContext
  (`quiet_running_jvm`): what spark-submit itself printed before (a line or two) stays.

`python -m spark_mq.jobs.log4j` prints the Java option, for spark-submit's
--driver-java-options (or spark.driver.extraJavaOptions in spark-defaults.conf).

pyspark has Python loggers of its own too: `DataFrameQueryContextLogger` and
`SQLQueryContextLogger` log an analysis error (a select of a column that does not exist) as a
JSON line of several kilobytes, the JVM's whole stack inside, just before the script gets the
same error raised. `quiet_python_logs` leaves the raising to speak: the jobs call it, and so
does `import spark_mq` (any `from spark_mq... import`) in a process that imported pyspark.sql
first, as a script does; `logging.getLogger("DataFrameQueryContextLogger").setLevel("ERROR")`
brings the line back.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

#: warnings and errors a person can act on; the comments in the file say what is left out
LOG_CONFIG = Path(__file__).with_name("log4j2.properties")
#: pyspark's loggers of an error the script gets raised anyway (see the module docstring)
QUERY_CONTEXT_LOGGERS = ("DataFrameQueryContextLogger", "SQLQueryContextLogger")
#: Spark's own configuration, which a job replaces (its path inside Spark's jar ends so)
_SPARK_DEFAULTS = "org/apache/spark/log4j2"


def java_option() -> str:
    """The JVM option that makes LOG_CONFIG Spark's logging configuration."""
    return f"-Dlog4j2.configurationFile={LOG_CONFIG.as_uri()}"


def quiet_builder(builder: SparkSession.Builder) -> SparkSession.Builder:
    """The builder of a session whose JVM this process starts, with LOG_CONFIG."""
    quiet_python_logs()
    return builder.config("spark.driver.extraJavaOptions", java_option())


def quiet_python_logs() -> None:
    """Drop pyspark's JSON log line of an error that is raised anyway (module docstring).
    pyspark makes these loggers as its own class (PySparkLogger) and logs with arguments
    only that class takes, so they are made that way here too."""
    try:
        from pyspark.logger import PySparkLogger
    except ImportError:   # a pyspark without them (before 4.0): nothing to quiet
        return
    for name in QUERY_CONTEXT_LOGGERS:
        PySparkLogger.getLogger(name).setLevel(logging.CRITICAL)


def quiet_running_jvm(jvm: Any) -> None:
    """Put LOG_CONFIG in place in a JVM that is already running (spark-submit's), before the
    SparkContext is made, unless the user gave a logging configuration of their own.

    Spark sets up its logging when it first logs, and (Spark 4.3) sets its own defaults
    again then if it had them before, over any configuration put in place earlier. So
    Spark's logging is set up first, silently, and then replaced."""
    quiet_python_logs()
    context = jvm.org.apache.logging.log4j.LogManager.getContext(False)
    location = str(context.getConfigLocation() or "")
    if jvm.java.lang.System.getProperty("log4j2.configurationFile") is not None:
        return    # --driver-java-options named one (ours or the user's)
    if location and _SPARK_DEFAULTS not in location:
        return    # a log4j2.properties of the user's (SPARK_CONF_DIR)
    try:
        spark_utils = getattr(getattr(jvm.org.apache.spark.util, "Utils$"), "MODULE$")
        spark_utils.initializeLogIfNecessary(False, True)
    except Exception:  # noqa: BLE001 - Spark's internals moved: quiet from the context on
        pass
    reconfigure(jvm)


def reconfigure(jvm: Any) -> None:
    """Make LOG_CONFIG the running JVM's logging configuration."""
    configurator = jvm.org.apache.logging.log4j.core.config.Configurator
    configurator.reconfigure(jvm.java.net.URI.create(LOG_CONFIG.as_uri()))


if __name__ == "__main__":
    print(java_option())
