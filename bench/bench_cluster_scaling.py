"""One query over a queue spread across queue managers: msg/s of ONE streaming query with the
reader's `queueManagers` option draining a queue whose backlog is split evenly over 1, 2 and
4 embedded queue managers (a clustered queue's instances), each behind its own delaying
proxy, next to bare ibmmq consumers draining the same (one process per queue manager)
through the same proxies, in the same run.

    .venv/bin/python bench/bench_cluster_scaling.py [--quick] [--messages 8000] [--batch 2000]
        [--delay 2] [--queue-managers 1,2,4] [--read-modes driver,executors]

Every run drains --messages 1 KiB persistent messages in all (the same total whatever the
number of queue managers), exactly once, Trigger.AvailableNow, a noop sink, in one Spark
session of local[N], N the most queue managers, after a warm-up query over all of them. maxMessagesPerTrigger
is each member's (reading.md: the limits are each queue manager's), so it is --batch / the
number of queue managers: a micro-batch is --batch messages in all, as in the bare loop,
whose consumer on each queue manager commits every --batch / N messages. readMode driver
reads the members in parallel on the driver; readMode executors gives each member one task.

Figures per run: msg/s from the first micro-batch's start to the last's end (Spark's
progress), the ratio to the same query over one queue manager (scaling) and to the bare
consumers over the same queue managers (what the connector costs), and CPU per process
kind (bench_scaling.CpuSampler). Figures are printed, never asserted; the machine may be
shared (run it nice'd and say so beside the figures).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_reader import report  # noqa: E402
from bench_scaling import (  # noqa: E402
    Link,
    bare_run,
    depth,
    fill_all,
    measured_round_trip_ms,
    queue_managers,
    spark_session,
    stream_run,
)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2,000 messages over 1 and 2 queue managers")
    parser.add_argument("--messages", type=int, help="backlog per run, in all (default 8000)")
    parser.add_argument("--batch", type=int, help="messages per micro-batch, in all (default 2000)")
    parser.add_argument("--delay", type=float, default=2.0, help="one-way delay in ms (default 2)")
    parser.add_argument("--queue-managers", help="queue-manager counts (default 1,2,4)")
    parser.add_argument("--read-modes", default="driver,executors", help="default driver,executors")
    args = parser.parse_args()
    args.messages = args.messages or (2000 if args.quick else 8000)
    args.batch = args.batch or (500 if args.quick else 2000)
    counts = args.queue_managers or ("1,2" if args.quick else "1,2,4")
    args.queue_managers = [int(n) for n in counts.split(",")]
    args.read_modes = args.read_modes.split(",")
    return args


def members_option(links: list[Link], delay: float) -> str:
    """queueManagers: each queue manager at its own proxy's address."""
    return ",".join(f"{link.qm.name}@{link.proxies[delay].conn_name}" for link in links)


#: Spark's own 10 s wait for a new Python process (a query's streaming-source runner) to
#: connect back: on a loaded shared machine it can run out before anything was read
WORKER_TIMED_OUT = "Python worker failed to connect back"


def started_again(run, attempts: int = 3):
    """run(), again when Spark gave up on a Python worker's start (nothing was read then:
    the query failed while INITIALIZING, and stream_run counts every row of the next try)."""
    for attempt in range(1, attempts + 1):
        try:
            return run()
        except Exception as exc:  # noqa: BLE001 - pyspark's StreamingQueryException
            if WORKER_TIMED_OUT not in str(exc) or attempt == attempts:
                raise
            print(f"  (a Python worker did not start in time; try {attempt + 1})", flush=True)
    raise AssertionError("unreachable")


def warm_up(spark, links: list[Link], work: str) -> None:
    """Spark starts its Python workers on the session's first query: start them before
    anything is measured (directly, not through the proxies)."""
    fill_all(links, 20 * len(links))
    options = links[0].options(next(iter(links[0].proxies)), readMode="executors", numPartitions="1")
    del options["queueManager"], options["connName"]
    options["queueManagers"] = ",".join(f"{link.qm.name}@{link.qm.conn_name}" for link in links)
    started_again(lambda: stream_run(spark, [options], tempfile.mkdtemp(prefix="ck-warm-", dir=work),
                                     20 * len(links)))


def query_run(spark, links: list[Link], mode: str, args: argparse.Namespace, work: str) -> dict:
    """One query, one stream, every queue manager of `links` in its queueManagers."""
    fill_all(links, args.messages)
    options = links[0].options(args.delay, readMode=mode,
                               maxMessagesPerTrigger=str(max(1, args.batch // len(links))))
    del options["queueManager"], options["connName"]
    options["queueManagers"] = members_option(links, args.delay)
    if mode == "executors":
        options["numPartitions"] = "1"
    result = started_again(lambda: stream_run(spark, [options], tempfile.mkdtemp(prefix="ck-", dir=work),
                                              args.messages))
    left = [depth(link) for link in links]
    assert not any(left), f"{mode} over {len(links)} queue managers left {left} messages"
    return result


def run_all(args: argparse.Namespace, work: str) -> tuple[dict[tuple[str, int], dict], float]:
    results: dict[tuple[str, int], dict] = {}
    with queue_managers(max(args.queue_managers), [args.delay], args.batch, work) as links:
        rtt = round(measured_round_trip_ms(links[0], args.delay), 2)
        for count in args.queue_managers:       # bare first, while no Spark runs
            results["bare", count] = bare_run(links[:count], args.delay, 1, args.messages, args.batch)
            print(f"bare x {count} qmgrs: {results['bare', count]['msg/s']:.0f} msg/s", flush=True)
        # one session for every run (each of its starts is a chance for a worker to time out)
        spark = spark_session(max(args.queue_managers))
        try:
            warm_up(spark, links, work)
            for count in args.queue_managers:
                for mode in args.read_modes:
                    results[mode, count] = query_run(spark, links[:count], mode, args, work)
                    print(f"{mode} x {count} qmgrs: {results[mode, count]['msg/s']:.0f} msg/s", flush=True)
        finally:
            spark.stop()
    return results, rtt


def table(args: argparse.Namespace, results: dict[tuple[str, int], dict]) -> tuple[list[str], dict, dict]:
    figures: dict[str, float] = {}
    ratios: dict[str, float] = {}
    lines = [f"{'run':28s} {'msg/s':>8s} {'x 1 qmgr':>8s} {'/ bare':>6s} {'start-up s':>10s} "
             f"{'busy cores':>10s} {'qmgr CPU':>8s} {'proxy CPU':>9s}"]
    for mode in ["bare", *args.read_modes]:
        for count in args.queue_managers:
            result = results[mode, count]
            one = results[mode, args.queue_managers[0]]["msg/s"]
            bare = results["bare", count]["msg/s"]
            wall = result.get("wall s") or 1.0
            label = f"{mode} over {count} qmgrs"
            lines.append(f"{label:28s} {result['msg/s']:8.0f} {result['msg/s'] / one:8.2f} "
                         f"{result['msg/s'] / bare:6.2f} {result.get('start-up s', 0):10.1f} "
                         f"{result['machine busy cores']:10.2f} "
                         f"{result.get('CPU s queue managers', 0) / wall:8.2f} "
                         f"{result.get('CPU s delay proxies', 0) / wall:9.2f}")
            figures[f"{label} msg/s"] = round(result["msg/s"])
            if count != args.queue_managers[0]:
                ratios[f"{label} / over {args.queue_managers[0]}"] = round(result["msg/s"] / one, 2)
            if mode != "bare":
                ratios[f"{label} / bare"] = round(result["msg/s"] / bare, 2)
    return lines, figures, ratios


def main() -> int:
    args = arguments()
    os.environ["PYSPARK_PYTHON"] = sys.executable
    work = tempfile.mkdtemp(prefix="bench-cluster-scaling-")
    try:
        results, rtt = run_all(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    lines, figures, ratios = table(args, results)
    print()
    print("\n".join(lines))
    print(f"\nround trip the proxy adds, measured: {rtt} ms")
    figures.update({"round trip added ms": rtt, "messages": args.messages, "batch": args.batch})
    report("cluster scaling", figures, ratios,
           f"1 KiB persistent messages, {args.messages} per run split evenly over the queue "
           f"managers, {args.batch} per micro-batch in all, exactlyOnce, one query with "
           f"queueManagers, noop sink, Trigger.AvailableNow, local[most qmgrs], each queue manager "
           f"behind bench/delay_proxy.py at {args.delay:g} ms one way; bare: one syncpoint "
           f"consumer process per queue manager; {os.cpu_count()} cores, shared")
    return 0


if __name__ == "__main__":
    sys.exit(main())
