"""Messages per second through a sender/receiver channel between two embedded queue
managers on this machine, against two bare ibmmq loops on the receiving queue manager in
the same run: asynchronous persistent puts (MQPMO_ASYNC_RESPONSE, syncpoint, MQCMIT every
50: what a channel's receiving end does, without the network and the sender), the figure
channel throughput is measured against; and a put-then-get loop (each message put once and
got once, under syncpoint, MQCMIT every 50, as a channel's two ends do).

    .venv/bin/python bench/bench_channels.py [--quick] [--messages 20000] [--size 1024]

Channel runs: persistent messages with BATCHSZ(50) and BATCHSZ(500), and non-persistent
messages with NPMSPEED(FAST). Each run loads the transmission queue with the channel
stopped, starts it and times until the last message is on the target queue (polling its
depth); the asynchronous put figure it is compared with is taken on QMB just before it, so
that a shared machine's load weighs on both alike. Figures are printed, never asserted.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import spark_mq.embedded  # noqa: E402

spark_mq.embedded.install()

import ibmmq  # noqa: E402
from ibmmq import CMQC  # noqa: E402

from channel_topology import define_receiver, define_sender, depth, free_port  # noqa: E402


def connect(qm: spark_mq.embedded.EmbeddedQueueManager) -> ibmmq.QueueManager:
    return ibmmq.connect(qm.name, "DEV.APP.SVRCONN", qm.conn_name)


def bare_loop(conn: ibmmq.QueueManager, queue: str, count: int, body: bytes,
              batch: int) -> float:
    """Put `count` persistent messages and get them back, syncpoint, MQCMIT per batch."""
    out = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
    into = ibmmq.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED)
    started = time.perf_counter()
    for start in range(0, count, batch):
        n = min(batch, count - start)
        for _ in range(n):
            out.put(body, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT),
                    ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        conn.commit()
        for _ in range(n):
            into.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT))
        conn.commit()
    elapsed = time.perf_counter() - started
    out.close()
    into.close()
    return count / elapsed


def async_put_loop(conn: ibmmq.QueueManager, queue: str, count: int, body: bytes,
                   batch: int) -> float:
    """Put `count` persistent messages, MQPMO_ASYNC_RESPONSE under syncpoint, MQCMIT per
    batch (MQSTAT before each, as an asynchronous putter checks its puts)."""
    out = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
    md = ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT)
    pmo = ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE
                    | CMQC.MQPMO_NEW_MSG_ID)
    started = time.perf_counter()
    for n in range(count):
        out.put(body, md, pmo)
        if n % batch == batch - 1 or n == count - 1:
            conn.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
            conn.commit()
    elapsed = time.perf_counter() - started
    out.close()
    return count / elapsed


def async_put_on(qmb: spark_mq.embedded.EmbeddedQueueManager, count: int,
                 body: bytes) -> float:
    qmb.run_mqsc("CLEAR QLOCAL(BENCH.LOCAL)")
    b = connect(qmb)
    try:
        return async_put_loop(b, "BENCH.LOCAL", count, body, 50)
    finally:
        b.disconnect()


def through_channel(qma, qmb, name: str, target: str, count: int, body: bytes,
                    persistent: bool) -> float:
    a, b = connect(qma), connect(qmb)
    qma.run_mqsc(f"STOP CHANNEL({name})")
    queue = ibmmq.Queue(a, ibmmq.OD(ObjectName=target, ObjectQMgrName=qmb.name),
                        CMQC.MQOO_OUTPUT)
    persistence = CMQC.MQPER_PERSISTENT if persistent else CMQC.MQPER_NOT_PERSISTENT
    for n in range(count):
        queue.put(body, ibmmq.MD(Persistence=persistence), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        if n % 1000 == 999:
            a.commit()
    a.commit()
    queue.close()
    started = time.perf_counter()
    qma.run_mqsc(f"START CHANNEL({name})")
    while depth(b, target) < count:
        time.sleep(0.005)
    elapsed = time.perf_counter() - started
    a.disconnect()
    b.disconnect()
    return count / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="2,000 messages per run")
    parser.add_argument("--messages", type=int, help="messages per run (default 20,000)")
    parser.add_argument("--size", type=int, default=1024, help="payload bytes (default 1024)")
    args = parser.parse_args()
    args.messages = args.messages or (2_000 if args.quick else 20_000)
    body = b"x" * args.size
    with tempfile.TemporaryDirectory() as folder:
        qmb = spark_mq.embedded.EmbeddedQueueManager(
            f"{folder}/QMB", name="QMB", port=free_port(),
            mqsc="".join(f"DEFINE QLOCAL(BENCH.IN.{n}) MAXDEPTH(999999999)\n" for n in range(3))
            + "DEFINE QLOCAL(BENCH.LOCAL) MAXDEPTH(999999999)\n").start()
        qma = spark_mq.embedded.EmbeddedQueueManager(f"{folder}/QMA", name="QMA",
                                                     port=free_port()).start()
        try:
            # BATCHSZ is the lower of the two ends': the receiver's must not cap the sender's
            qmb.run_mqsc(f"ALTER CHANNEL({define_receiver(qmb, 'QMA')}) CHLTYPE(RCVR) "
                         "BATCHSZ(9999)")
            results, async_puts = {}, {}
            for run, (label, batch, persistent, speed) in enumerate((
                    ("persistent, BATCHSZ(50)", 50, True, "NORMAL"),
                    ("persistent, BATCHSZ(500)", 500, True, "NORMAL"),
                    ("non-persistent, NPMSPEED(FAST)", 50, False, "FAST"))):
                name = define_sender(qma, "QMB", int(qmb.port or 0),
                                     f"BATCHSZ({batch}) NPMSPEED({speed})")
                qma.run_mqsc("ALTER QLOCAL(QMB) MAXDEPTH(999999999) NOTRIGGER")
                # side by side: the machine may be shared, so the figure the run is
                # compared with is taken just before it
                async_puts[label] = async_put_on(qmb, args.messages, body)
                results[label] = through_channel(qma, qmb, name, f"BENCH.IN.{run}",
                                                 args.messages, body, persistent)
            b = connect(qmb)
            qmb.run_mqsc("CLEAR QLOCAL(BENCH.LOCAL)")
            bare = bare_loop(b, "BENCH.LOCAL", args.messages, body, 50)
            b.disconnect()
        finally:
            qma.stop()
            qmb.stop()
    print(f"{args.messages} messages of {args.size} bytes")
    print(f"  bare ibmmq put+get loop on QMB (persistent, syncpoint, MQCMIT per 50): "
          f"{bare:9.0f} msg/s")
    for label, rate in results.items():
        async_put = async_puts[label]
        print(f"  channel QMA -> QMB, {label:32s} {rate:9.0f} msg/s; async persistent puts "
              f"on QMB just before (MQPMO_ASYNC_RESPONSE, MQCMIT per 50): {async_put:6.0f} "
              f"msg/s; channel/async put {rate / async_put:.2f}, channel/put+get "
              f"{rate / bare:.2f}")
    print("BENCH " + json.dumps({
        "name": "channels",
        "figures": {"bare put+get msg/s": round(bare), "messages": args.messages,
                    **{f"async put before {label} msg/s": round(rate)
                       for label, rate in async_puts.items()},
                    **{f"{label} msg/s": round(rate) for label, rate in results.items()}},
        "ratios": {**{f"{label} / async put": round(rate / async_puts[label], 2)
                      for label, rate in results.items()},
                   **{f"{label} / bare": round(rate / bare, 2) for label, rate in results.items()}},
        "notes": f"{args.size}-byte messages, sender QMA -> receiver QMB on this machine"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
