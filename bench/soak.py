"""The soak: a steady queue -> reader (exactlyOnce) -> writer (exactlyOnce) -> queue pipeline
at a fixed rate for a long time, with the memory of every process sampled.

    .venv/bin/python bench/soak.py --minutes 30 [--rate 200] [--sample-seconds 60]

A feeder process puts `--rate` persistent 512-byte messages a second (each with an INT32
property `n`) on SOAK.IN of an embedded queue manager; a Spark query (local[2], trigger
every second) moves them to SOAK.OUT, where a collector process gets them as they come
(the queues stay short: a deep queue is held in the queue manager's memory). Every
`--sample-seconds` it prints the resident set size (VmRSS) of the queue manager, the driver
(this script), its JVM, the reader (pyspark's streaming source runner, where the MQ gets
happen), the task workers (pyspark.worker processes, where the writer's puts happen) and
Spark's other Python helpers (planning, the sink runner), the queue depths and the rate.
At the end it stops feeding, waits until every message has arrived, counts them (0 lost,
0 doubled) and prints, per process, the first sample after the warm-up (the first 5
minutes, or a fifth of the run if shorter), the last sample and the change between.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import spark_mq.embedded  # noqa: E402

spark_mq.embedded.install()

import ibmmq  # noqa: E402

from support import process_tree  # noqa: E402


def feed(conn_name: str, rate: int, stop_file: Path, count_file: Path) -> None:
    """Put `rate` messages a second until the stop file appears; the count goes to a file."""
    C = ibmmq.CMQC
    conn = ibmmq.connect("QM1", "DEV.APP.SVRCONN", conn_name)
    queue = ibmmq.Queue(conn, "SOAK.IN", C.MQOO_OUTPUT)
    handle = ibmmq.MessageHandle(conn)   # one handle, its property set anew for each message
    body = b"s" * 512
    n, started = 0, time.monotonic()
    while not stop_file.exists():
        due = int((time.monotonic() - started) * rate)
        while n < due:
            handle.properties.set("n", n, property_type=C.MQTYPE_INT32, value_length=4)
            pmo = ibmmq.PMO(Options=C.MQPMO_SYNCPOINT, OriginalMsgHandle=handle.msg_handle)
            queue.put(body, ibmmq.MD(Persistence=C.MQPER_PERSISTENT), pmo)
            n += 1
            if n % 50 == 0:
                conn.commit()
        conn.commit()
        _write_atomically(count_file, str(n))
        time.sleep(0.05)
    conn.commit()
    _write_atomically(count_file, str(n))
    queue.close()
    conn.disconnect()


def _write_atomically(path: Path, text: str) -> None:
    partial = path.with_suffix(".partial")
    partial.write_text(text)
    partial.replace(path)


def collect(conn_name: str, stop_file: Path, result_file: Path) -> None:
    """Get what the pipeline delivers as it comes (a queue's depth costs the queue manager
    memory, so SOAK.OUT stays short); at the stop file, drain and write what was seen."""
    C = ibmmq.CMQC
    conn = ibmmq.connect("QM1", "DEV.APP.SVRCONN", conn_name)
    queue = ibmmq.Queue(conn, "SOAK.OUT", C.MQOO_INPUT_SHARED)
    handle = ibmmq.MessageHandle(conn)
    seen: dict[int, int] = {}
    gotten = 0
    while True:
        gmo = ibmmq.GMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_WAIT | C.MQGMO_PROPERTIES_IN_HANDLE,
                        WaitInterval=2000, MsgHandle=handle.msg_handle)
        try:
            queue.get(None, ibmmq.MD(), gmo)
        except ibmmq.MQMIError as exc:
            if exc.reason != C.MQRC_NO_MSG_AVAILABLE:
                raise
            conn.commit()
            if stop_file.exists():
                break
            continue
        n = handle.properties.get("n")
        seen[n] = seen.get(n, 0) + 1
        gotten += 1
        if gotten % 100 == 0:
            conn.commit()
    conn.commit()
    queue.close()
    conn.disconnect()
    result_file.write_text(json.dumps({"seen": len(seen), "delivered": sum(seen.values()),
                                       "numbers": sorted(seen), "doubled":
                                       sorted(n for n, times in seen.items() if times > 1)}))


def rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


#: what is sampled: the queue manager, then each part of Spark by what its command line holds
PARTS = ("qmgr", "driver", "jvm", "reader", "workers", "helpers")


def sample(qm_pid: int) -> dict[str, float]:
    figures = dict.fromkeys(PARTS, 0.0)
    figures["qmgr"], figures["driver"] = rss_mib(qm_pid), rss_mib(os.getpid())
    for pid in process_tree(os.getpid()):
        command = cmdline(pid)
        if "java" in command.split(" ")[0]:
            figures["jvm"] += rss_mib(pid)
        elif "python_streaming_source_runner" in command:
            figures["reader"] += rss_mib(pid)
        elif command.endswith("pyspark.daemon pyspark.worker "):
            figures["workers"] += rss_mib(pid)
        elif "pyspark." in command:
            figures["helpers"] += rss_mib(pid)
    return figures


def depth(conn, queue: str) -> int:
    handle = ibmmq.Queue(conn, queue, ibmmq.CMQC.MQOO_INQUIRE)
    try:
        return handle.inquire(ibmmq.CMQC.MQIA_CURRENT_Q_DEPTH)
    finally:
        handle.close()


def main() -> int:
    if sys.argv[1:2] == ["--feed"]:
        feed(sys.argv[2], int(sys.argv[3]), Path(sys.argv[4]), Path(sys.argv[5]))
        return 0
    if sys.argv[1:2] == ["--collect"]:
        collect(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--rate", type=int, default=200, help="messages a second (default 200)")
    parser.add_argument("--sample-seconds", type=float, default=60.0)
    args = parser.parse_args()
    os.environ["PYSPARK_PYTHON"] = sys.executable
    work = Path(tempfile.mkdtemp(prefix="spark-mq-soak-"))
    qm = spark_mq.embedded.EmbeddedQueueManager(str(work / "qm"), name="QM1")
    qm.start()
    qm.run_mqsc("DEFINE QLOCAL(SOAK.IN) MAXDEPTH(999999999) REPLACE\n"
                "DEFINE QLOCAL(SOAK.OUT) MAXDEPTH(999999999) REPLACE\n"
                "DEFINE QLOCAL(SPARK.MQ.WRITER.STATE) MAXDEPTH(999999999) REPLACE")
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]").appName("spark-mq-soak")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
             .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    connection = {"connName": qm.conn_name, "queueManager": "QM1", "transport": "embedded"}
    query = (spark.readStream.format("mq").options(**connection).option("queue", "SOAK.IN")
             .schema("payload binary, n int").load()
             .writeStream.format("mq").options(**connection).option("queue", "SOAK.OUT")
             .option("checkpointLocation", str(work / "checkpoint"))
             .trigger(processingTime="1 second").start())
    stop_feeding, fed_file = work / "stop-feeding", work / "fed"
    stop_collecting, result_file = work / "stop-collecting", work / "collected.json"
    feeder = subprocess.Popen([sys.executable, __file__, "--feed", qm.conn_name, str(args.rate),
                               str(stop_feeding), str(fed_file)])
    collector = subprocess.Popen([sys.executable, __file__, "--collect", qm.conn_name,
                                  str(stop_collecting), str(result_file)])
    conn = ibmmq.connect("QM1", "DEV.APP.SVRCONN", qm.conn_name)
    samples: list[tuple[float, dict[str, float]]] = []
    started = time.monotonic()
    end = started + args.minutes * 60
    print(f"soak: {args.rate} msg/s for {args.minutes:g} min; work folder {work}", flush=True)
    print(f"{'min':>5} " + " ".join(f"{part + ' MiB':>12}" for part in PARTS) +
          f" {'fed':>8} {'in depth':>9} {'out depth':>10} {'rows/s':>7}", flush=True)
    try:
        while time.monotonic() < end:
            time.sleep(min(args.sample_seconds, max(0.0, end - time.monotonic())))
            if query.exception() is not None:
                raise RuntimeError(f"the query failed: {query.exception()}")
            figures = sample(qm.pid or 0)
            samples.append((time.monotonic() - started, figures))
            progress = query.lastProgress or {}
            fed = int(fed_file.read_text() or 0) if fed_file.exists() else 0
            memory = " ".join(f"{figures[part]:12.1f}" for part in PARTS)
            print(f"{(time.monotonic() - started) / 60:5.1f} {memory} {fed:8d} "
                  f"{depth(conn, 'SOAK.IN'):9d} {depth(conn, 'SOAK.OUT'):10d} "
                  f"{progress.get('processedRowsPerSecond', 0):7.0f}", flush=True)
        stop_feeding.touch()
        feeder.wait(timeout=60)
        fed = int(fed_file.read_text())
        deadline = time.monotonic() + 600
        while depth(conn, "SOAK.IN") and time.monotonic() < deadline:
            time.sleep(1)
        stop_collecting.touch()
        collector.wait(timeout=600)
        query.stop()
        collected = json.loads(result_file.read_text())
    finally:
        stop_feeding.touch()
        stop_collecting.touch()
        feeder.wait(timeout=60)
        collector.wait(timeout=600)
        conn.disconnect()
        spark.stop()
        qm.stop()
    numbers, doubled = collected["numbers"], len(collected["doubled"])
    lost = sorted(set(range(fed)) - set(numbers))
    warm_up = min(300.0, args.minutes * 60 / 5)
    after = [s for t, s in samples if t >= warm_up] or [s for _, s in samples]
    first, last = after[0], after[-1]
    print(f"\nsoak totals: {args.minutes:g} min at {args.rate} msg/s, fed={fed} "
          f"delivered={collected['delivered']} lost={len(lost)} doubled={doubled}")
    for name in PARTS:
        peak = max(s[name] for s in after)
        print(f"  {name:8} RSS after warm-up {first[name]:7.1f} MiB, at the end {last[name]:7.1f} "
              f"MiB (change {last[name] - first[name]:+.1f} MiB, peak {peak:.1f} MiB)")
    return 0 if not lost and not doubled else 1


if __name__ == "__main__":
    sys.exit(main())
