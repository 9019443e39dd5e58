"""Ctrl-C in a job: the first stops the queries cleanly, the job prints what it did and the
command that goes on from there, and ends with status 130; a second ends everything at once.

pyspark's own SIGINT handler cancels all jobs through Py4J and raises KeyboardInterrupt,
which lands in the middle of whatever Py4J call the job is waiting in: tracebacks, and then
"Cannot call methods on a stopped SparkContext". So the jobs replace it with a handler that
only records the request; their wait loops see it, stop the queries (what Spark committed
is committed in MQ: spark_mq/reader/commit_notes.py; the rest is backed out, nothing is
lost) and raise `Interrupted`.

Stopping a query in the middle of a micro-batch kills its tasks, and Spark's Python workers
print tracebacks for that. So the jobs' MQ readers get the option stopFile=`STOP_FILE`
(`read_options`), which the first Ctrl-C creates: no new batch is planned from then on, and
the wait loops stop each query once its batch in flight is done (streaming.py).

The second Ctrl-C does not wait: Spark's JVM and every Python worker under it are ended
(job_processes.py), the command that goes on is printed, and the job exits with 130. What was
in flight is backed out in MQ (the connections die with the processes) and replayed by the
next run on the same checkpoint. A job that needs more than its own command line to go on
(the quickstart's temporary directories) says how with `on_resume`."""
from __future__ import annotations

import atexit
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable
from types import FrameType
from typing import NoReturn

from spark_mq.jobs import job_processes
from spark_mq.jobs.job_errors import JobError

_requested = threading.Event()
#: the arguments that run the job again from where it stopped (None: the same as this run's)
_resume_arguments: Callable[[], list[str]] | None = None
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


def on_resume(arguments: Callable[[], list[str]]) -> None:
    """How to run the job again from where Ctrl-C stops it: `arguments()` gives the
    arguments after the job's path (by default, this run's own)."""
    global _resume_arguments
    _resume_arguments = arguments


def resume_command() -> str:
    """The exact shell command that goes on where the job stopped."""
    arguments = _resume_arguments() if _resume_arguments is not None else sys.argv[1:]
    return job_processes.command_line(arguments)


def handle_ctrl_c() -> None:
    """Install the job's SIGINT handler (after the SparkContext installed pyspark's)."""
    if threading.current_thread() is not threading.main_thread():
        return
    signal.signal(signal.SIGINT, _on_sigint)


def stop_requested() -> bool:
    return _requested.is_set()


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    if _requested.is_set():
        _quit_now()
    _requested.set()
    with open(STOP_FILE, "w"):
        pass
    atexit.register(_remove_stop_file)
    print("\ninterrupted: stopping the queries after their micro-batch in flight "
          "(Ctrl-C again to quit at once)", file=sys.stderr, flush=True)


def _quit_now() -> NoReturn:
    """End Spark's processes and this one, at once (module docstring)."""
    command = resume_command()      # before the JVM, whose command line it may read, is gone
    _show_cursor()
    job_processes.end_spark_now(f"\nquit at once: what was in flight is backed out in MQ and comes "
                            f"again on the next run\nto go on where it stopped: {command}")
    _remove_stop_file()
    os._exit(130)     # no clean-up that waits on Spark: its processes are gone


def _show_cursor() -> None:
    """The live display (job_progress.py) hides the terminal's cursor until it is stopped, which
    a job that quits at once does not wait for: show it, without the display's locks."""
    terminal = sys.__stdout__
    if terminal is not None and terminal.isatty():
        terminal.write("\x1b[?25h")
        terminal.flush()


def _remove_stop_file() -> None:
    try:
        os.remove(STOP_FILE)
    except OSError:
        pass
