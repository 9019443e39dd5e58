"""A job's processes: how it was started (the command that runs it again) and ending Spark's
processes at once (a second Ctrl-C).

A job runs one of two ways. `python job.py`: this process starts Spark's JVM (pyspark's
gateway), and the JVM starts pyspark's Python workers. `spark-submit job.py`: spark-submit's
JVM starts this process, and the workers. Either way the workers (pyspark's daemons, which
put their workers in process groups of their own, and the streaming sources' runners) are
the JVM's descendants, and this process's own children (the embedded queue manager) are not
Spark's.
"""
from __future__ import annotations

import logging
import os
import shlex
import shutil
import sys
import threading
from collections.abc import Sequence

import psutil

#: the class spark-submit's JVM runs; the arguments after it are the user's
_SPARK_SUBMIT_CLASS = "org.apache.spark.deploy.SparkSubmit"
#: how long the JVM gets to halt by itself before it is killed
_HALT_SECONDS = 2.0


def under_spark_submit() -> bool:
    """Whether spark-submit started this process (its JVM runs and this process is its child)."""
    return "PYSPARK_GATEWAY_PORT" in os.environ


def command_line(arguments: Sequence[str]) -> str:
    """The shell command that runs this job again with `arguments` (after the job's path):
    through spark-submit with the options it was given, or through this Python."""
    script = sys.argv[0]
    if under_spark_submit():
        launcher = [_spark_submit(), *_spark_submit_options(script)]
    else:
        python = os.path.basename(sys.executable)
        launcher = [python if shutil.which(python) == sys.executable else sys.executable]
    return shlex.join([*launcher, script, *arguments])


def _spark_submit() -> str:
    """spark-submit as found on PATH, else the one of the Spark that runs this job."""
    spark_home = os.environ.get("SPARK_HOME")
    if shutil.which("spark-submit") or not spark_home:
        return "spark-submit"
    return os.path.join(spark_home, "bin", "spark-submit")


def _spark_submit_options(script: str) -> list[str]:
    """The options spark-submit was given before the job's path, read from its JVM's
    command line (empty when it cannot be read)."""
    try:
        command = psutil.Process(os.getppid()).cmdline()
    except psutil.Error:
        return []
    if _SPARK_SUBMIT_CLASS not in command:
        return []
    after = command[command.index(_SPARK_SUBMIT_CLASS) + 1:]
    for index, argument in enumerate(after):
        if os.path.abspath(argument) == os.path.abspath(script):
            return after[:index]
    return []


def end_spark_now(farewell: str) -> None:
    """Print `farewell`, then end the Spark driver's JVM and every process under it at once,
    leaving this process and its own children (the embedded queue manager, which stops by
    itself once this process has ended).

    Under spark-submit this process's output reaches the terminal through the JVM (its
    PythonRunner copies it), so the JVM prints the farewell itself and then halts, with
    status 130, spark-submit's status for Ctrl-C."""
    jvm = _driver_jvm()
    workers = _spark_workers(jvm) if jvm else []
    if under_spark_submit():
        _halt(farewell, 130)
    else:
        # the original stderr: the live display's stand-in for it (rich) may hold a lock
        # the interrupted main thread had taken
        print(farewell, file=sys.__stderr__ or sys.stderr, flush=True)
    _say_nothing_more()
    _kill([*([jvm] if jvm else []), *workers])


def _say_nothing_more() -> None:
    """Nothing this process prints from now on reaches the user: its other threads (Py4J's,
    the progress display's) would log and trace their calls to the JVM being killed."""
    logging.disable(logging.CRITICAL)
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        os.dup2(devnull, fd)


def _spark_workers(jvm: psutil.Process) -> list[psutil.Process]:
    """The processes under the driver's JVM, less this one and its own children under
    spark-submit (where this process is one of the JVM's)."""
    try:
        under = jvm.children(recursive=True)
        if not under_spark_submit():
            return under
        ours = {os.getpid(), *(child.pid for child in psutil.Process().children(recursive=True))}
    except psutil.Error:
        return []
    return [process for process in under if process.pid not in ours]


def _driver_jvm() -> psutil.Process | None:
    try:
        if under_spark_submit():
            return psutil.Process(os.getppid())
        from pyspark import SparkContext
        gateway_process = getattr(SparkContext._gateway, "proc", None)
        return None if gateway_process is None else psutil.Process(gateway_process.pid)
    except psutil.Error:
        return None


def _halt(farewell: str, status: int) -> None:
    """The driver's JVM prints `farewell` on its stderr and halts: it exits at once, no
    shutdown hooks, with `status`. Asked from a thread, so that a JVM that does not answer
    holds nothing up (it is killed next)."""
    def halt() -> None:
        try:
            from pyspark import SparkContext
            jvm = SparkContext._jvm
            if jvm is not None:
                jvm.java.lang.System.err.println(farewell)
                jvm.java.lang.System.err.flush()
                jvm.java.lang.Runtime.getRuntime().halt(status)
        except Exception:  # noqa: BLE001 - the JVM went away mid-call, as it should
            pass
    asking = threading.Thread(target=halt, daemon=True)
    asking.start()
    asking.join(_HALT_SECONDS)


def _kill(processes: list[psutil.Process]) -> None:
    for process in processes:
        try:
            process.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(processes, timeout=_HALT_SECONDS)
