"""Running a job's streaming queries: the trigger the arguments ask for, waiting for one
query (available-now to its end, processing-time for --run-seconds or until Ctrl-C), and
waiting for a pipeline of several queries to have moved everything through."""
from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from spark_mq.jobs.ctrl_c import Interrupted, stop_requested
from spark_mq.jobs.job_errors import JobError
from spark_mq.jobs.job_progress import ProgressMonitor

if TYPE_CHECKING:
    from pyspark.sql.streaming import DataStreamWriter, StreamingQuery


def _await_settled(query: StreamingQuery) -> None:
    # imported here: spark_mq.reader imports pyspark, which the jobs' argument parsing and
    # --help must not wait for
    from spark_mq.reader.commit_notes import await_settled
    await_settled(query)


def apply_trigger(writer: DataStreamWriter, args: argparse.Namespace) -> DataStreamWriter:
    """The writer with the trigger of --trigger (and --interval)."""
    if args.trigger == "available-now":
        return writer.trigger(availableNow=True)
    return writer.trigger(processingTime=args.interval)


def await_query(query: StreamingQuery, args: argparse.Namespace, monitor: ProgressMonitor) -> None:
    """Wait for an available-now query to finish, or run a processing-time one for
    --run-seconds (forever when 0), printing progress; stop it on Ctrl-C. A query that
    failed raises its exception."""
    deadline = None
    if args.trigger == "processing-time" and args.run_seconds:
        deadline = time.monotonic() + args.run_seconds
    try:
        while query.isActive:
            query.awaitTermination(1)
            monitor.poll()
            if stop_requested() or (deadline is not None and time.monotonic() >= deadline):
                if stop_requested():
                    await_batch_boundary([query])
                query.stop()   # a batch in flight is backed out in MQ and replayed on restart
                _await_settled(query)   # the batch Spark committed last is committed in MQ
                break
        monitor.poll()
    finally:
        monitor.close()
    failure = query.exception()
    if failure is not None:
        raise failure
    if stop_requested():
        raise Interrupted(monitor.summary)


def wait_for_pipeline(queries: list[StreamingQuery], monitor: ProgressMonitor, last_label: str, expected: int,
                      depth: Callable[[str], int], drained: list[str], timeout: float,
                      settle: float = 15.0) -> float:
    """Run the queries until the last one has output `expected` rows, or has ended, or,
    failing that, until the finite queries before it have ended and the queues in `drained`
    have stayed empty for `settle` seconds (by `depth(queue)`); then stop them.

    Returns the monotonic time at which the pipeline was seen complete. A query that fails
    raises its exception; past `timeout` seconds a JobError says how far it got."""
    deadline = time.monotonic() + timeout
    empty_since = None
    try:
        while True:
            for query in queries:
                failure = None if query.isActive else query.exception()
                if failure is not None:
                    raise failure
            monitor.poll()
            now = time.monotonic()
            if monitor.rows(last_label) >= expected or all(not query.isActive for query in queries):
                done_at = now
                break
            # Settling needs queries before the last: one alone ends by itself (available-now),
            # and its own queue shows empty while its batch is in flight (MQ's CURDEPTH drops at
            # MQGET, syncpoint or not), which a batch slower than `settle` would not survive.
            finite_done = len(queries) > 1 and all(not q.isActive for q in queries[:-1])
            if finite_done and all(depth(queue) == 0 for queue in drained):
                empty_since = empty_since or now
                if now - empty_since >= settle:
                    done_at = empty_since
                    break
            else:
                empty_since = None
            if stop_requested():
                raise Interrupted(monitor.summary)
            if now > deadline:
                raise JobError(f"the pipeline did not finish within {timeout:.0f} s: "
                               f"{monitor.rows(last_label):,} of {expected:,} rows out (see --timeout)")
            time.sleep(0.5)
        # The finite queries end by themselves once their last batch is committed, in Spark
        # and in MQ: stopped before, a batch still committing is aborted (Spark logs errors)
        # and its MQ unit of work backed out, to be removed on the next run.
        await_finite(queries[:-1], deadline)
        # The last query's last unit of work is committed on its next trigger: give the
        # queues a moment to show empty before stopping, so the depths printed are final.
        drain_deadline = time.monotonic() + 30
        while queries[-1].isActive and time.monotonic() < drain_deadline:
            if all(depth(queue) == 0 for queue in drained):
                break
            time.sleep(0.5)
    finally:
        if stop_requested():
            await_batch_boundary(queries)
        for query in queries:
            if query.isActive:
                query.stop()
                _await_settled(query)   # the batch Spark committed last is committed in MQ
        monitor.poll()
        monitor.close()
    for query in queries:
        failure = query.exception()
        if failure is not None:
            raise failure
    return done_at


def await_finite(queries: list[StreamingQuery], deadline: float) -> None:
    """Wait until the queries have ended by themselves, Ctrl-C or the monotonic `deadline`."""
    for query in queries:
        while query.isActive and not stop_requested() and time.monotonic() < deadline:
            query.awaitTermination(1)


def await_batch_boundary(queries: list[StreamingQuery], timeout: float = 60.0) -> None:
    """After Ctrl-C, wait (at most `timeout` s) until no query has a trigger running.

    Ctrl-C has created the readers' stopFile (ctrl_c.py), so a trigger that starts after it
    plans no batch; once a query shows no trigger running, the batch it had in flight is
    done and stopping it kills no task (the readers then commit it in MQ, and the callers
    wait for that with `await_settled`). Past the timeout the queries are stopped anyway:
    what was in flight is backed out and replayed on restart."""
    deadline = time.monotonic() + timeout
    waiting = list(queries)
    while waiting and time.monotonic() < deadline:
        waiting = [q for q in waiting if q.isActive and q.status["isTriggerActive"]]
        if waiting:
            time.sleep(0.1)
