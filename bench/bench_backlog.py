"""A backlog on the embedded queue manager: memory, disk, get costs as the queue deepens, a
restart after SIGKILL, and the Spark reader draining it exactly once.

    .venv/bin/python bench/bench_backlog.py --messages 10000000   # the long form (about 1 h)
    .venv/bin/python bench/bench_backlog.py --quick               # 100,000 messages

1. Load: a bare ibmmq loop puts --messages persistent 1 KiB messages on one queue
   (asynchronous puts, 1,000 per MQCMIT); every 1,000th carries the property kind='marker'.
   At each depth of --depths the
   queue manager's resident memory and the store's size on disk are read, and two get costs
   are timed: a get by MsgId of a message anywhere in the queue, and a get with the selector
   kind = 'marker' (the first match lies within 1,000 messages of the head); each get is
   backed out, so the queue stays as it is.
2. Restart: SIGKILL, then the time until the queue manager serves again and until its first
   get; the depth must be exactly what was committed.
3. Drain: the "mq" reader (exactlyOnce, Trigger.AvailableNow, local[2], noop sink) reads the
   whole queue; the queue manager's, the reader process's, the executors' and the driver
   JVM's memory are sampled every second. Every message is counted: the rows the query
   reports and the depth left (0).
Figures are printed, never asserted (a miscount stops the run).
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_reader import _python_workers, _rss_kib, bench_spark, report  # noqa: E402

BODY = b"x" * 1024
COMMIT_EVERY = 1000
MARKER_EVERY = 1000
PROBES = 20           # gets timed at each depth, for each kind


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--depths", default="10000,1000000,10000000",
                        help="depths at which memory, disk and get costs are measured")
    parser.add_argument("--batch", type=int, default=10_000, help="maxMessagesPerTrigger")
    parser.add_argument("--quick", action="store_true", help="100,000 messages")
    parser.add_argument("--no-spark", action="store_true", help="skip the drain by Spark")
    parser.add_argument("--queues", type=int, default=1,
                        help="spread --messages over this many queues and measure memory, disk "
                             "and a restart only (e.g. --queues 1000 --messages 10000000)")
    parser.add_argument("--work", help="folder for the queue manager's data (default: a "
                                       "temporary one, removed afterwards)")
    args = parser.parse_args()
    count = 100_000 if args.quick else args.messages
    depths = sorted({d for d in map(int, args.depths.split(",")) if d <= count} | {count})

    os.environ["PYSPARK_PYTHON"] = sys.executable
    import spark_mq.embedded as embedded
    embedded.install()
    import ibmmq

    work = args.work or tempfile.mkdtemp(prefix="bench-backlog-")
    data_dir = os.path.join(work, "qm")
    qm = embedded.EmbeddedQueueManager(data_dir, name="QMBACK").start()
    figures: dict[str, float] = {"messages": count}
    try:
        if args.queues > 1:
            return many_queues(ibmmq, qm, data_dir, args.queues, count // args.queues)
        qm.run_mqsc("DEFINE QLOCAL(BACKLOG) MAXDEPTH(999999999) REPLACE\n"
                    f"ALTER QMGR MAXUMSGS({max(10_000, 2 * args.batch)})")
        figures["queue manager RSS MiB, empty"] = round(_rss_kib(str(qm.pid)) / 1024, 1)
        conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
        loaded, longest = 0, 0.0
        probes: list[bytes] = []
        started = time.perf_counter()
        for depth in depths:
            msgids, slowest = load(ibmmq, conn, loaded, depth)
            probes, longest, loaded = probes + msgids, max(longest, slowest), depth
            figures.update(progress(measure(ibmmq, conn, qm, data_dir, depth, probes)))
        figures["load msg/s (bare async put, 1000 per MQCMIT)"] = round(
            count / (time.perf_counter() - started))
        # a checkpoint of the store that held up writers would show here
        figures["longest MQCMIT of 1,000 puts during the load, s"] = round(longest, 3)
        conn.disconnect()
        figures.update(progress(restart(ibmmq, qm, count)))
        if not args.no_spark:
            figures.update(progress(drain(ibmmq, qm, work, count, args.batch)))
        payload = count * len(BODY)
        ratios = {"disk / payload at full depth": round(
            figures[f"store on disk MiB at {count:,}"] * 2**20 / payload, 2)}
        report("backlog", figures, ratios,
               f"{count:,} persistent 1 KiB messages on one queue; queue manager with its "
               "default --queue-memory; drain: exactlyOnce, Trigger.AvailableNow, local[2], "
               f"maxMessagesPerTrigger {args.batch}, noop sink")
        return 0
    finally:
        qm.stop()
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


def many_queues(ibmmq, qm, data_dir: str, queues: int, each: int) -> int:
    """`queues` queues of `each` messages: the queue manager's memory and disk, a restart."""
    CMQC = ibmmq.CMQC
    names = [f"BACKLOG.{index:05d}" for index in range(queues)]
    qm.run_mqsc("".join(f"DEFINE QLOCAL({name}) MAXDEPTH(999999999) REPLACE\n" for name in names))
    figures: dict[str, float] = {"queues": queues, "messages per queue": each}
    figures["queue manager RSS MiB, empty"] = round(_rss_kib(str(qm.pid)) / 1024, 1)
    conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    md = ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT)
    pmo = ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_NEW_MSG_ID)
    started, longest = time.perf_counter(), 0.0
    for position, name in enumerate(names, 1):
        queue = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT)
        for index in range(each):
            queue.put(BODY, md, pmo)
            if index % COMMIT_EVERY == COMMIT_EVERY - 1 or index == each - 1:
                committing = time.perf_counter()
                conn.commit()
                longest = max(longest, time.perf_counter() - committing)
        queue.close()
        status = conn.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
        assert status.CompCode == CMQC.MQCC_OK, f"asynchronous puts failed: reason {status.Reason}"
        if position in (1, queues // 10, queues // 2, queues):
            progress({f"queue manager RSS MiB with {position} queues full":
                      round(_rss_kib(str(qm.pid)) / 1024, 1)})
    figures["load msg/s (asynchronous put, 1000 per MQCMIT)"] = round(
        queues * each / (time.perf_counter() - started))
    figures["longest MQCMIT during the load, s"] = round(longest, 3)
    figures["queue manager RSS MiB, all queues full"] = round(_rss_kib(str(qm.pid)) / 1024, 1)
    figures["store on disk MiB"] = round(_disk_bytes(data_dir) / 2**20, 1)
    conn.disconnect()
    qm.kill()
    started = time.perf_counter()
    qm.start(timeout=600)
    figures["restart after SIGKILL: serving, s"] = round(time.perf_counter() - started, 2)
    conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    for name in (names[0], names[-1]):
        depth = ibmmq.Queue(conn, name, CMQC.MQOO_INQUIRE).inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
        assert depth == each, f"{name} holds {depth} of {each} after the restart"
    conn.disconnect()
    report("backlog-queues", progress(figures),
           {"disk / payload": round(figures["store on disk MiB"] * 2**20
                                    / (queues * each * len(BODY)), 2)},
           f"{queues} queues of {each:,} persistent 1 KiB messages")
    return 0


def progress(figures: dict) -> dict:
    """Print figures as they come (a long run shows what it has measured so far)."""
    for key, value in figures.items():
        print(f"  {key:60s} {value}", flush=True)
    return figures


def load(ibmmq, conn, start: int, end: int) -> tuple[list[bytes], float]:
    """Put messages start..end-1 (body: its number, then padding) with asynchronous puts;
    the MsgIds of a few (set here, not by the queue manager), for the gets by MsgId, and
    the longest MQCMIT."""
    CMQC = ibmmq.CMQC
    queue = ibmmq.Queue(conn, "BACKLOG", CMQC.MQOO_OUTPUT)
    marker = ibmmq.MessageHandle(conn)
    marker.properties.set("kind", "marker")
    put = CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE
    pmo = ibmmq.PMO(Options=put | CMQC.MQPMO_NEW_MSG_ID)
    marked = ibmmq.PMO(Options=put | CMQC.MQPMO_NEW_MSG_ID, OriginalMsgHandle=marker.msg_handle)
    probe = ibmmq.PMO(Options=put)
    sampled = set(random.Random(start).sample(range(start, end), min(PROBES, end - start)))
    msgids, longest = [], 0.0
    for index in range(start, end):
        md = ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT)
        body = b"%010d" % index + BODY[10:]
        if index in sampled:
            md.MsgId = b"PROBE-%018d" % index
            msgids.append(md.MsgId)
            queue.put(body, md, probe)
        else:
            queue.put(body, md, marked if index % MARKER_EVERY == MARKER_EVERY - 1 else pmo)
        if index % COMMIT_EVERY == COMMIT_EVERY - 1:
            committing = time.perf_counter()
            conn.commit()
            longest = max(longest, time.perf_counter() - committing)
    conn.commit()
    status = conn.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    assert status.CompCode == CMQC.MQCC_OK, f"asynchronous puts failed: reason {status.Reason}"
    queue.close()
    return msgids, longest


def measure(ibmmq, conn, qm, data_dir: str, depth: int, msgids: list[bytes]) -> dict:
    CMQC = ibmmq.CMQC
    queue = ibmmq.Queue(conn, "BACKLOG", CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE)
    assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == depth
    by_id = []
    for msgid in random.Random(depth).sample(msgids, min(PROBES, len(msgids))):
        gmo = ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT,
                        MatchOptions=CMQC.MQMO_MATCH_MSG_ID)
        started = time.perf_counter()
        queue.get(None, ibmmq.MD(MsgId=msgid), gmo)
        by_id.append(time.perf_counter() - started)
        conn.backout()
    queue.close()
    od = ibmmq.OD(Version=CMQC.MQOD_VERSION_4, ObjectName=b"BACKLOG")
    od.set_vs("SelectionString", "kind = 'marker'")
    selective = ibmmq.Queue(conn, od, CMQC.MQOO_INPUT_SHARED)
    by_selector = []
    for _ in range(PROBES):
        gmo = ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT
                        | CMQC.MQGMO_NO_PROPERTIES)
        started = time.perf_counter()
        selective.get(None, ibmmq.MD(), gmo)
        by_selector.append(time.perf_counter() - started)
        conn.backout()
    selective.close()
    at = f"at {depth:,}"
    return {
        f"queue manager RSS MiB {at}": round(_rss_kib(str(qm.pid)) / 1024, 1),
        f"store on disk MiB {at}": round(_disk_bytes(data_dir) / 2**20, 1),
        f"get by MsgId ms (median) {at}": round(sorted(by_id)[len(by_id) // 2] * 1000, 2),
        f"selective get ms (median) {at}": round(sorted(by_selector)[len(by_selector) // 2]
                                                 * 1000, 2),
    }


def restart(ibmmq, qm, count: int) -> dict:
    """SIGKILL, start again: seconds until it serves, and until the first get returns."""
    qm.kill()
    started = time.perf_counter()
    qm.start(timeout=600)
    serving = time.perf_counter() - started
    conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    CMQC = ibmmq.CMQC
    queue = ibmmq.Queue(conn, "BACKLOG", CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE)
    queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT
                                           | CMQC.MQGMO_NO_PROPERTIES))
    first_get = time.perf_counter() - started
    conn.backout()
    depth = queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    assert depth == count, f"after the restart the queue holds {depth} of {count}"
    conn.disconnect()
    return {"restart after SIGKILL: serving, s": round(serving, 2),
            "restart after SIGKILL: first get, s": round(first_get, 2),
            "queue manager RSS MiB after restart": round(_rss_kib(str(qm.pid)) / 1024, 1)}


def drain(ibmmq, qm, work: str, count: int, batch: int) -> dict:
    spark = bench_spark("bench-backlog")
    try:
        import spark_mq
        spark_mq.register(spark)
        samples: list[tuple[int, int, int, int]] = []
        stopping = threading.Event()
        runtime = spark.sparkContext._jvm.java.lang.Runtime.getRuntime()

        def sample() -> None:
            while not stopping.wait(1.0):
                reader, workers = _python_workers()
                heap = (runtime.totalMemory() - runtime.freeMemory()) // 1024
                samples.append((_rss_kib(str(qm.pid)), reader, workers, heap))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        started = time.perf_counter()
        query = (spark.readStream.format("mq")
                 .options(queueManager=qm.name, connName=qm.conn_name, channel=qm.channel,
                          transport="embedded", queue="BACKLOG", waitIntervalMs="0",
                          maxMessagesPerTrigger=str(batch))
                 .load().writeStream.format("noop")
                 .option("checkpointLocation", os.path.join(work, "checkpoint"))
                 .trigger(availableNow=True).start())
        query.awaitTermination()
        elapsed = time.perf_counter() - started
        stopping.set()
        sampler.join(5)
        if query.exception():
            raise query.exception()
        rows = sum(p["numInputRows"] for p in query.recentProgress)
        conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
        queue = ibmmq.Queue(conn, "BACKLOG", ibmmq.CMQC.MQOO_INQUIRE)
        left = queue.inquire(ibmmq.CMQC.MQIA_CURRENT_Q_DEPTH)
        conn.disconnect()
        assert rows == count and left == 0, f"the drain read {rows} of {count}, left {left}"
        out = {"drain msg/s (exactlyOnce reader, Spark start included)": round(rows / elapsed)}
        labels = ("queue manager RSS MiB", "reader process RSS MiB", "executor workers RSS MiB",
                  "driver JVM heap used MiB")
        for position, label in enumerate(labels):
            for part, chunk in (("1st third", samples[:len(samples) // 3]),
                                ("last third", samples[-(len(samples) // 3):])):
                if chunk:
                    out[f"drain: {label} (max, {part})"] = round(
                        max(s[position] for s in chunk) / 1024, 1)
        return out
    finally:
        spark.stop()


def _disk_bytes(data_dir: str) -> int:
    return sum(os.path.getsize(os.path.join(data_dir, name)) for name in os.listdir(data_dir)
               if name.startswith("qmgr.db"))


if __name__ == "__main__":
    sys.exit(main())
