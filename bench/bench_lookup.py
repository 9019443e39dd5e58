"""A point lookup by correlation id against a full browse (batch reads, filter pushdown).

A queue of 10,000 messages, one of which has the correlation id looked for. Through Spark,
`spark.read.format("mq")...where(correlation_id == id)` with
spark.sql.python.filterPushdown.enabled (a browse by MQMO_MATCH_CORREL_ID: two MQGETs) and
without it (a browse of the whole queue, the row picked by Spark); and the same two reads
below Spark, with the reader's Browser alone. Each figure is the best of `--runs` runs after
a warm-up; printed, never asserted.

    .venv/bin/python bench/bench_lookup.py [--messages 10000] [--runs 3] [--quick]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_reader import report, spark_bench  # noqa: E402

CONF = "spark.sql.python.filterPushdown.enabled"
WANTED = b"LOOKUP.BENCH.CORREL.ID.1"
BODY = b"x" * 1024


def fill(ibmmq, conn, queue: str, messages: int) -> None:
    """`messages` 1 KiB messages; the one in the middle has the correlation id WANTED."""
    CMQC = ibmmq.CMQC
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
    pmo = ibmmq.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_NEW_MSG_ID)
    try:
        for index in range(messages):
            md = ibmmq.MD(CorrelId=WANTED if index == messages // 2 else b"%024d" % index)
            handle.put(BODY, md, pmo)
    finally:
        handle.close()


def best(runs: int, action: Callable[[], int]) -> float:
    """The shortest of `runs` runs of `action` (after one warm-up), each checked to find 1 row."""
    found = action()
    assert found == 1, f"expected the one message with the correlation id, found {found}"
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def spark_lookup(spark, options: dict, pushed: bool) -> Callable[[], int]:
    from pyspark.sql.functions import col

    def run() -> int:
        spark.conf.set(CONF, "true" if pushed else "false")
        frame = spark.read.format("mq").options(**options).load()
        return len(frame.where(col("correlation_id") == WANTED).select("payload").collect())
    return run


def browser_lookup(ibmmq, qm, queue: str, pushed: bool) -> Callable[[], int]:
    from spark_mq.mq.browser import Browser, IdMatch
    from spark_mq.mq.message import MD_INDEX
    correl = MD_INDEX["CorrelId"]

    def run() -> int:
        browser = Browser(ibmmq, ibmmq.connect(qm.name, qm.channel, qm.conn_name), queue)
        try:
            if pushed:
                return sum(1 for _ in browser.messages(match=IdMatch(correl_id=WANTED)))
            return sum(1 for m in browser.messages() if m.md[correl] == WANTED)
        finally:
            browser.close()
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="2,000 messages, 2 runs")
    args = parser.parse_args()
    messages, runs = (2_000, 2) if args.quick else (args.messages, args.runs)
    with spark_bench("lookup") as bench:
        queue = "BENCH.LOOKUP"
        bench.qm.run_mqsc(f"DEFINE QLOCAL({queue}) MAXDEPTH(999999999)")
        fill(bench.ibmmq, bench.conn, queue, messages)
        options = bench.options(queue=queue)
        spark_full = best(runs, spark_lookup(bench.spark, options, pushed=False))
        spark_point = best(runs, spark_lookup(bench.spark, options, pushed=True))
        bare_full = best(runs, browser_lookup(bench.ibmmq, bench.qm, queue, pushed=False))
        bare_point = best(runs, browser_lookup(bench.ibmmq, bench.qm, queue, pushed=True))
    report("lookup", {
        "spark full browse s": round(spark_full, 3), "spark point lookup s": round(spark_point, 3),
        "browser full browse s": round(bare_full, 4), "browser point lookup s": round(bare_point, 4),
        "messages": messages,
    }, {
        "spark point lookup / full browse": round(spark_point / spark_full, 3),
        "browser point lookup / full browse": round(bare_point / bare_full, 4),
    }, f"1 KiB non-persistent messages, one with the correlation id; best of {runs} runs "
       "after a warm-up; Spark: local[2], a query planned and run each time")


if __name__ == "__main__":
    main()
