"""Ctrl-C in a job: the job stops its queries and ends with status 130 and its summary.

pyspark's own SIGINT handler cancels all jobs through Py4J and raises KeyboardInterrupt,
which lands in the middle of whatever Py4J call the job is waiting in: tracebacks, and then
"Cannot call methods on a stopped SparkContext". So the jobs replace it with a handler that
only records the request; their wait loops see it, stop the queries (a stopped query's
unit of work is backed out, nothing is lost) and raise `Interrupted`. A second Ctrl-C
interrupts at once."""
from __future__ import annotations

import signal
import sys
import threading
from types import FrameType

from spark_mq.jobs.errors import JobError

_requested = threading.Event()


class Interrupted(JobError):
    """The user pressed Ctrl-C; the message is what the job did until then."""


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
    print("\ninterrupted: stopping the queries (Ctrl-C again to quit at once)", file=sys.stderr,
          flush=True)
