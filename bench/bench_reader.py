"""End-to-end messages/s of the "mq" streaming source into a noop sink, against a bare ibmmq
loop doing the same MQ work on the same embedded queue manager in the same run.

    .venv/bin/python bench/bench_reader.py [--quick] [--messages 1000000] [--batch 10000]

* exactlyOnce (persistent 1 KiB messages, syncpoint gets, one MQCMIT per microbatch of
  --batch messages) vs a bare loop: syncpoint gets, MQCMIT every --batch messages;
* atMostOnce with read-ahead (non-persistent 1 KiB messages) vs a bare read-ahead loop.

The Spark runs use Trigger.AvailableNow, so each run ends when the queue is drained; they
follow one warm-up query (Spark starts its Python workers on the first one). Each bare loop
runs before and after its Spark run and the ratio uses the mean, because a shared machine's
load drifts.
Memory is sampled once a second during the Spark runs: resident size of the driver-side
reader process (Python, where the gets happen), of the executors' Python workers, and the
driver JVM's used heap; flat figures over the run mean the memory is bounded by the batch.
Figures are printed, never asserted.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
BODY = b"x" * 1024


def fill(ibmmq, conn, queue: str, count: int, persistent: bool) -> None:
    """Put `count` messages quickly (asynchronous puts, 1000 per unit of work)."""
    CMQC = ibmmq.CMQC
    q = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
    md = ibmmq.MD()
    md.Persistence = CMQC.MQPER_PERSISTENT if persistent else CMQC.MQPER_NOT_PERSISTENT
    pmo = ibmmq.PMO()
    pmo.Options = CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_NEW_MSG_ID
    for i in range(count):
        q.put(BODY, md, pmo)
        if i % 1000 == 999:
            conn.commit()
    conn.commit()
    q.close()


def bare_syncpoint_get(ibmmq, conn, queue: str, batch: int) -> tuple[int, float]:
    CMQC = ibmmq.CMQC
    q = ibmmq.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED)
    gmo = ibmmq.GMO()
    gmo.Options = CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT
    gmo.MatchOptions = CMQC.MQMO_NONE
    count, in_batch = 0, 0
    started = time.perf_counter()
    while True:
        try:
            q.get(4096, ibmmq.MD(), gmo)
        except ibmmq.MQMIError as exc:
            if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                break
            raise
        count += 1
        in_batch += 1
        if in_batch == batch:
            conn.commit()
            in_batch = 0
    conn.commit()
    elapsed = time.perf_counter() - started
    q.close()
    return count, elapsed


def bare_read_ahead_get(ibmmq, conn, queue: str) -> tuple[int, float]:
    CMQC = ibmmq.CMQC
    q = ibmmq.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_READ_AHEAD)
    gmo = ibmmq.GMO()
    gmo.Options = CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_NO_WAIT
    gmo.MatchOptions = CMQC.MQMO_NONE
    count = 0
    started = time.perf_counter()
    while True:
        try:
            q.get(4096, ibmmq.MD(), gmo)
        except ibmmq.MQMIError as exc:
            if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                break
            raise
        count += 1
    elapsed = time.perf_counter() - started
    q.close()
    return count, elapsed


# --- memory sampling -----------------------------------------------------------------------
def _rss_kib(pid: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _parent(pid: str) -> str | None:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[1]
    except (OSError, IndexError):
        return None


def _descends_from_me(pid: str, me: str) -> bool:
    for _ in range(10):
        pid = _parent(pid)
        if pid is None or pid == "0":
            return False
        if pid == me:
            return True
    return False


def _python_workers() -> tuple[int, int]:
    """(RSS of the driver-side stream reader processes, RSS of executor workers) in KiB,
    counting only this benchmark's own Spark (other Spark jobs may share the machine)."""
    reader = workers = 0
    me = str(os.getpid())
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or pid == me or not _descends_from_me(pid, me):
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                cmd = handle.read().replace(b"\0", b" ")
        except OSError:
            continue
        if b"python_streaming_source_runner" in cmd:
            reader += _rss_kib(pid)
        elif b"pyspark.daemon" in cmd or b"pyspark.worker" in cmd or b"pyspark/daemon" in cmd:
            workers += _rss_kib(pid)
    return reader, workers


class MemorySampler(threading.Thread):
    def __init__(self, spark):
        super().__init__(daemon=True)
        self.runtime = spark.sparkContext._jvm.java.lang.Runtime.getRuntime()
        self.samples: list[tuple[int, int, int]] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(1.0):
            reader, workers = _python_workers()
            heap = (self.runtime.totalMemory() - self.runtime.freeMemory()) // 1024
            self.samples.append((reader, workers, heap))

    def summary(self) -> dict[str, float]:
        self.stopping.set()
        self.join(5)
        if len(self.samples) < 2:
            return {}
        half = len(self.samples) // 2
        out = {}
        for i, label in enumerate(("reader process RSS MiB", "executor workers RSS MiB",
                                   "driver JVM heap used MiB")):
            first = max(s[i] for s in self.samples[:half]) / 1024
            second = max(s[i] for s in self.samples[half:]) / 1024
            out[f"{label} (max, 1st half)"] = round(first, 1)
            out[f"{label} (max, 2nd half)"] = round(second, 1)
        return out


@dataclass
class SparkBench:
    """A Spark benchmark's world (see `spark_bench`)."""
    work: str          # a scratch folder, removed afterwards
    qm: Any            # the embedded queue manager
    ibmmq: Any         # IBM's module, on the embedded transport
    conn: Any          # a client connection for the bare loops
    spark: Any         # local[2] Spark with the "mq" source

    def options(self, **extra: str) -> dict[str, str]:
        """The reader's or writer's connection options, plus `extra`."""
        return {"queueManager": self.qm.name, "connName": self.qm.conn_name,
                "channel": self.qm.channel, "transport": "embedded", **extra}


@contextlib.contextmanager
def spark_bench(name: str, batch: int = 10_000) -> Iterator[SparkBench]:
    """An embedded queue manager in a fresh folder, whose MAXUMSGS holds a microbatch of
    `batch` messages (a microbatch is one unit of work), a connection to it and the
    benchmarks' Spark; all stopped and removed afterwards."""
    os.environ["PYSPARK_PYTHON"] = sys.executable
    import spark_mq.embedded as embedded
    embedded.install()
    import ibmmq

    work = tempfile.mkdtemp(prefix=f"bench-{name}-")
    qm = embedded.EmbeddedQueueManager(os.path.join(work, "qm"), name="QM1").start()
    spark = None
    try:
        qm.run_mqsc(f"ALTER QMGR MAXUMSGS({max(10000, batch * 2)})")
        conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
        spark = bench_spark(f"bench-{name}")
        import spark_mq
        spark_mq.register(spark)
        yield SparkBench(work, qm, ibmmq, conn, spark)
    finally:
        if spark is not None:
            spark.stop()
        qm.stop()
        shutil.rmtree(work, ignore_errors=True)


def message_arguments(doc: str, messages: int, quick: int) -> tuple[argparse.Namespace, int]:
    """--messages, --batch and --quick, as the throughput benchmarks take them; returns the
    arguments and the message count of the run."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--messages", type=int, default=messages)
    parser.add_argument("--batch", type=int, default=10_000, help="maxMessagesPerTrigger")
    parser.add_argument("--quick", action="store_true", help=f"{quick // 1000}k messages")
    args = parser.parse_args()
    return args, quick if args.quick else args.messages


def report(name: str, figures: dict, ratios: dict, notes: str) -> None:
    """Print the figures and ratios, then the BENCH line run_all.py collects."""
    for key, value in {**figures, **ratios}.items():
        print(f"{key:60s} {value}")
    print("BENCH " + json.dumps({"name": name, "figures": figures, "ratios": ratios,
                                 "notes": notes}))


def bench_spark(app_name: str):
    """The benchmarks' Spark: local[2], quiet, every progress entry kept (rows are counted
    from them; Spark keeps the last 100 by default)."""
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]").appName(app_name)
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.memory", "2g").config("spark.sql.shuffle.partitions", "2")
             .config("spark.sql.streaming.numRecentProgressUpdates", "100000")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def spark_run(spark, options: dict, checkpoint: str) -> tuple[int, float, dict]:
    sampler = MemorySampler(spark)
    sampler.start()
    started = time.perf_counter()
    query = (spark.readStream.format("mq").options(**options).load().writeStream
             .format("noop").option("checkpointLocation", checkpoint)
             .trigger(availableNow=True).start())
    query.awaitTermination()
    elapsed = time.perf_counter() - started
    if query.exception():
        raise query.exception()
    rows = sum(p["numInputRows"] for p in query.recentProgress)
    return rows, elapsed, sampler.summary()


def main() -> int:
    args, count = message_arguments(__doc__, 100_000, 20_000)
    with spark_bench("reader", args.batch) as bench:
        ibmmq, conn, spark, work = bench.ibmmq, bench.conn, bench.spark, bench.work
        bench.qm.run_mqsc("DEFINE QLOCAL(BENCH.READ) MAXDEPTH(999999999) REPLACE")
        options = bench.options(queue="BENCH.READ", maxMessagesPerTrigger=str(args.batch),
                                waitIntervalMs="0")

        figures: dict[str, float] = {"messages": count, "batch": args.batch}
        # warm-up: Spark starts its Python workers (and imports pyarrow) on the first query
        fill(ibmmq, conn, "BENCH.READ", 2000, persistent=True)
        spark_run(spark, dict(options), os.path.join(work, "ck-warm"))
        # each bare loop runs before and after its Spark run, and the ratio uses their mean:
        # the machine may be shared, and its load drifts over a run
        def bare(loop, persistent: bool) -> float:
            fill(ibmmq, conn, "BENCH.READ", count, persistent=persistent)
            n, secs = loop()
            assert n == count, f"bare loop got {n} of {count}"
            return n / secs

        def bare_sync():
            return bare_syncpoint_get(ibmmq, conn, "BENCH.READ", args.batch)

        def bare_ra():
            return bare_read_ahead_get(ibmmq, conn, "BENCH.READ")

        for mode, loop, persistent, label, extra in (
                ("exactlyOnce", bare_sync, True, "bare syncpoint get", {}),
                ("atMostOnce", bare_ra, False, "bare read-ahead get",
                 {"delivery": "atMostOnce", "readAhead": "true"})):
            before = bare(loop, persistent)
            fill(ibmmq, conn, "BENCH.READ", count, persistent=persistent)
            rows, secs, memory = spark_run(spark, dict(options, **extra),
                                           os.path.join(work, f"ck-{mode}"))
            assert rows == count, f"{mode} delivered {rows} of {count}"
            left = ibmmq.Queue(conn, "BENCH.READ", ibmmq.CMQC.MQOO_INQUIRE)
            assert left.inquire(ibmmq.CMQC.MQIA_CURRENT_Q_DEPTH) == 0, f"{mode} left messages"
            left.close()
            after = bare(loop, persistent)
            figures[f"{label} msg/s (before)"] = round(before)
            figures[f"{label} msg/s (after)"] = round(after)
            figures[f"{label} msg/s"] = round((before + after) / 2)
            figures[f"{mode} msg/s"] = round(rows / secs)
            figures.update({f"{mode} {k}": v for k, v in memory.items()})

        ratios = {
            "exactlyOnce / bare syncpoint get": round(figures["exactlyOnce msg/s"]
                                                      / figures["bare syncpoint get msg/s"], 2),
            "atMostOnce / bare read-ahead get": round(figures["atMostOnce msg/s"]
                                                      / figures["bare read-ahead get msg/s"], 2),
        }
        report("reader", figures, ratios,
               f"1 KiB messages, {count} per run, maxMessagesPerTrigger {args.batch}, noop sink, "
               "Trigger.AvailableNow, local[2]; Spark times include query start-up (after one "
               "warm-up query)")
        return 0


if __name__ == "__main__":
    sys.exit(main())
