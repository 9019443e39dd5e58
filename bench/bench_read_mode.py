"""readMode executors against readMode driver against a bare ibmmq loop: the same queue
manager, the same run, 1 KiB persistent messages into a noop sink (exactlyOnce).

    .venv/bin/python bench/bench_read_mode.py [--quick] [--messages 50000] [--batch 10000]

* Spark runs (Trigger.AvailableNow, after one warm-up query): readMode driver, and readMode
  executors with 1, 2 and 4 partitions (consumers);
* the bare loop: syncpoint gets, MQCMIT every --batch messages, before and after the Spark
  runs (the ratio uses the mean: a shared machine's load drifts);
* a profile of one executors-mode partition outside Spark (the reader's own read(), in this
  process): where a message's time goes (get, rows, record, commit), and what the design
  costs per message on the queue manager: MQ operations and bytes put under syncpoint
  (which a real queue manager logs) per message.

On this 2-core machine the embedded queue manager is one Python process, so more
consumers cannot show scaling; the per-message costs are what a real cluster's figures
can be computed from. Figures are printed, never asserted.
"""
from __future__ import annotations

import cProfile
import os
import pstats
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_reader import (  # noqa: E402
    BODY,
    bare_syncpoint_get,
    fill,
    message_arguments,
    report,
    spark_bench,
    spark_run,
)


def profile_partition(qm, queue: str, state_queue: str, messages: int) -> dict[str, float]:
    """One partition of `messages` read by MQExecutorStreamReader.read() in this process."""
    from pyspark.sql.types import StructType

    from spark_mq.columns import DEFAULT_SCHEMA
    from spark_mq.options import ReadOptions
    from spark_mq.reader.executors import MQExecutorStreamReader
    options = ReadOptions.parse({"queueManager": qm.name, "connName": qm.conn_name, "channel": qm.channel,
                                 "queue": queue, "transport": "embedded", "readMode": "executors",
                                 "stateQueue": state_queue, "numPartitions": "1",
                                 "maxMessagesPerTrigger": str(messages), "waitIntervalMs": "0"})
    reader = MQExecutorStreamReader(options, StructType.fromDDL(DEFAULT_SCHEMA))
    start = reader.initialOffset()
    end = reader.latestOffset(start, reader.getDefaultReadLimit())
    [partition] = reader.partitions(start, end)
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    batches = list(reader.read(partition))
    profiler.disable()
    elapsed = time.perf_counter() - started
    rows = sum(b.num_rows for b in batches)
    record_bytes = sum(b.nbytes for b in batches)
    reader.commit(end)
    reader.stop()
    stats = pstats.Stats(profiler)
    parts = {"get": "get_batch", "rows": "record_batches", "record": "put_record", "commit": "commit"}
    cumulative = {}
    for label, function in parts.items():
        cumulative[label] = max((value[3] for key, value in stats.stats.items()  # type: ignore[attr-defined]
                                 if key[2] == function), default=0.0)
    figures = {"profiled partition rows": rows, "profiled partition s": round(elapsed, 3)}
    for label, seconds in cumulative.items():
        figures[f"per message: {label} us"] = round(seconds / max(rows, 1) * 1e6, 1)
    chunks = -(-record_bytes // (1 << 20))
    figures["per message: MQ operations"] = round((rows + 1 + chunks + 1 + chunks) / max(rows, 1), 4)
    figures["per message: payload bytes"] = len(BODY)
    figures["per message: record bytes put under syncpoint"] = round(record_bytes / max(rows, 1))
    return figures


def main() -> int:
    args, count = message_arguments(__doc__, 50_000, 10_000)
    with spark_bench("read-mode", args.batch) as bench:
        ibmmq, conn, spark, work, qm = bench.ibmmq, bench.conn, bench.spark, bench.work, bench.qm
        qm.run_mqsc("DEFINE QLOCAL(BENCH.READ) MAXDEPTH(999999999) REPLACE\n"
                    "DEFINE QLOCAL(BENCH.STATE) MAXDEPTH(999999999) REPLACE")
        options = bench.options(queue="BENCH.READ", stateQueue="BENCH.STATE",
                                maxMessagesPerTrigger=str(args.batch), waitIntervalMs="0")
        fill(ibmmq, conn, "BENCH.READ", 2000, persistent=True)
        spark_run(spark, dict(options), os.path.join(work, "ck-warm"))

        def bare() -> float:
            fill(ibmmq, conn, "BENCH.READ", count, persistent=True)
            n, secs = bare_syncpoint_get(ibmmq, conn, "BENCH.READ", args.batch)
            assert n == count
            return n / secs

        figures: dict[str, float] = {"messages": count, "batch": args.batch}
        before = bare()
        runs = [("driver", {"readMode": "driver"})] + [
            (f"executors x{n}", {"readMode": "executors", "numPartitions": str(n)}) for n in (1, 2, 4)]
        for label, extra in runs:
            fill(ibmmq, conn, "BENCH.READ", count, persistent=True)
            rows, secs, _ = spark_run(spark, dict(options, **extra), os.path.join(work, f"ck-{label}"))
            assert rows == count, f"{label} delivered {rows} of {count}"
            figures[f"readMode {label} msg/s"] = round(rows / secs)
        after = bare()
        figures["bare syncpoint get msg/s"] = round((before + after) / 2)
        fill(ibmmq, conn, "BENCH.READ", min(count, args.batch), persistent=True)
        figures.update(profile_partition(qm, "BENCH.READ", "BENCH.STATE", min(count, args.batch)))
        ratios = {f"{label} / bare": round(figures[f"readMode {label} msg/s"]
                                           / figures["bare syncpoint get msg/s"], 2) for label, _ in runs}
        report("read_mode", figures, ratios,
               f"1 KiB persistent messages, {count} per run, maxMessagesPerTrigger {args.batch}, "
               "noop sink, Trigger.AvailableNow, local[2], one embedded queue manager process")
        return 0


if __name__ == "__main__":
    sys.exit(main())
