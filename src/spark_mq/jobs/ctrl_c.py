"""Ctrl-C in a job: the job stops its queries and ends with status 130 and its summary.

pyspark's own SIGINT handler cancels all jobs through Py4J and raises KeyboardInterrupt,
which lands in the middle of whatever Py4J call the job is waiting in: tracebacks, and then
"Cannot call methods on a stopped SparkContext". So the jobs replace it with a handler that
only records the request; their wait loops see it, stop the queries (a stopped query's
unit of work is backed out, nothing is lost) and raise `Interrupted`. A second Ctrl-C
interrupts at once.

Stopping a query in the middle of a micro-batch kills its tasks, and Spark's Python workers
print tracebacks for that. So the jobs' MQ readers get the option stopFile=`STOP_FILE`
(`read_options`), which the first Ctrl-C creates: no new batch is planned from then on, and
the wait loops stop each query once its batch in flight is done (streaming.py)."""
from __future__ import annotations

import atexit
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable
from types import FrameType

from spark_mq.jobs.errors import JobError

_requested = threading.Event()
#: the readers' stopFile: created by the first Ctrl-C, removed when the job ends
STOP_FILE = os.path.join(tempfile.gettempdir(), f"spark-mq-stop-{os.getpid()}")


def read_options() -> dict[str, str]:
    """The options that let a job's MQ readers stop between micro-batches on Ctrl-C."""
    return {"stopFile": STOP_FILE}


class Interrupted(JobError):
    """The user pressed Ctrl-C; its text is what the job did until it stopped, asked of
    `summary` when the text is wanted: after the queries have finished their last batch."""

    def __init__(self, summary: Callable[[], str]) -> None:
        super().__init__("Ctrl-C")
        self._summary = summary

    def __str__(self) -> str:
        return self._summary()


def handle_ctrl_c() -> None:
    """Install the job's SIGINT handler (after the SparkContext installed pyspark's)."""
    if threading.current_thread() is not threading.main_thread():
        return
    signal.signal(signal.SIGINT, _on_sigint)


def stop_requested() -> bool:
    return _requested.is_set()


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    if _requested.is_set():
        raise KeyboardInterrupt
    _requested.set()
    with open(STOP_FILE, "w"):
        pass
    atexit.register(_remove_stop_file)
    print("\ninterrupted: stopping the queries (Ctrl-C again to quit at once)", file=sys.stderr,
          flush=True)


def _remove_stop_file() -> None:
    try:
        os.remove(STOP_FILE)
    except OSError:
        pass
