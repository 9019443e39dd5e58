"""The driver-side stream reader's process ends with the JVM that started it.

pyspark's streaming source runner (the process the driver-side reader lives in) is started by
the driver's JVM, answers the JVM's calls over a socket, and is ended by Spark when the query
stops (SIGTERM: spark_mq/reader/commit_notes.py). Spark ends it nowhere else: the runner is a
worker of a factory of its own, not one SparkEnv ends when it stops. A JVM that goes
without stopping the query (killed, halted by a job's second Ctrl-C, crashed) leaves the
runner to its own devices: it notices only at its next read of the JVM's socket, and our
SIGTERM handler, once it has run, ignores any further SIGTERM while it waits (up to
VERDICT_TIMEOUT) for the application's word; a runner busy in a call when its JVM went lives
on until that call ends.

A runner that outlives its JVM holds its MQ connections, the queue open for input and the
units of work of the batches it held: the next run's start waits `orphanedWorkTimeoutMs` for
that connection to end before it settles the batch (docs/reading.md).

So the runner watches the JVM: a daemon thread waits on a pidfd of its parent (Linux 5.3 and
later; elsewhere it looks at getppid() every `POLL_SECONDS`) and, once the JVM is gone, ends
the process at once with `os._exit`: no atexit clean-up and no MQDISC (which would COMMIT the
held units of work); the connections break and the queue manager backs their work out, as
when the process is killed. Nothing is lost: the batch Spark committed last is removed by id
at the next start, as after a crash (spark_mq/reader/stream.py).
"""
from __future__ import annotations

import os
import select
import threading

from spark_mq.reader.commit_notes import in_source_runner

#: how often the parent is looked at where no pidfd can be had
POLL_SECONDS = 1.0
#: the runner's status when its JVM has gone: what sys.exit(-1) in pyspark's runner gives
GONE_STATUS = 255

_watching = threading.Lock()
_started = False


def end_with_parent() -> None:
    """In pyspark's source runner, start the watch once (module docstring); elsewhere (an
    executor, a test calling the reader) nothing."""
    global _started
    if not in_source_runner():
        return
    with _watching:
        if _started:
            return
        _started = True
    parent = os.getppid()
    threading.Thread(target=_watch, args=(parent,), name="spark-mq-parent-watch",
                     daemon=True).start()


def _watch(parent: int) -> None:
    _await_gone(parent)
    os._exit(GONE_STATUS)


def _await_gone(parent: int) -> None:
    """Returns once `parent` has exited."""
    try:
        pidfd = os.pidfd_open(parent)
    except (AttributeError, OSError):    # not Linux 5.3+, or the parent is gone already
        pidfd = None
    if pidfd is None:
        while os.getppid() == parent:
            threading.Event().wait(POLL_SECONDS)
        return
    try:
        # a parent that went before the pidfd was had left this process to another one (and
        # its pid, free again, may name a stranger's process): then the pidfd does not count
        if os.getppid() == parent:
            select.select([pidfd], [], [])      # readable once the process has exited
    finally:
        os.close(pidfd)
