"""End-to-end latency of a trickle through Spark: queue -> queue and the request/reply
bridge, in readMode driver and readMode executors, against Spark's own floor (the rate
source into a sink that notes when each row arrived) in the same run.

    .venv/bin/python bench/bench_latency.py [--quick] [--rate 50] [--seconds 20]

A producer puts --rate messages a second, each carrying the time it was put; a consumer
gets the results and notes put -> arrival for each (the bridge: request put -> reply got).
The first 3 s of each run are left out (the query's first micro-batches start Python
workers). Default trigger (the next micro-batch as soon as the last ends), exactlyOnce on
both sides, local[2], one embedded queue manager. Percentiles are printed, never asserted.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_reader import spark_bench  # noqa: E402 - the benchmarks' queue manager and Spark

WARM_UP = 3.0
#: seconds per run with --quick: past the warm-up, a few dozen samples at the default rate
QUICK_SECONDS = 8.0
STAMP = struct.Struct(">d")


def percentiles(samples: list[float], trickle: Trickle | None = None) -> dict[str, float]:
    figures: dict[str, float] = {"n": len(samples)}
    if len(samples) >= 2:
        cuts = statistics.quantiles(samples, n=100)
        figures.update({"p50 ms": round(cuts[49] * 1000, 1), "p99 ms": round(cuts[98] * 1000, 1)})
    if trickle is not None:
        figures["doubled"] = len(trickle.seen) - len(set(trickle.seen))
        figures["missing"] = trickle.expected - len(set(trickle.seen))
    return figures


class Trickle:
    """Puts stamped messages at a steady rate and measures their arrival elsewhere."""

    def __init__(self, ibmmq, qm, target: str, results: str, rate: float, seconds: float,
                 reply_to: str | None = None) -> None:
        self.ibmmq, self.qm = ibmmq, qm
        self.target, self.results, self.rate, self.seconds = target, results, rate, seconds
        self.reply_to = reply_to
        self.latencies: list[float] = []
        self.seen: list[float] = []            # every stamp that came back: duplicates show
        self.started = 0.0
        self.expected = int(rate * seconds)

    def _connect(self):
        return self.ibmmq.connect(self.qm.name, self.qm.channel, self.qm.conn_name)

    def produce(self) -> None:
        ibmmq = self.ibmmq
        conn = self._connect()
        queue = ibmmq.Queue(conn, self.target, ibmmq.CMQC.MQOO_OUTPUT)
        for n in range(self.expected):
            due = self.started + n / self.rate
            time.sleep(max(0.0, due - time.time()))
            md = ibmmq.MD(Persistence=ibmmq.CMQC.MQPER_PERSISTENT)
            if self.reply_to:
                md.ReplyToQ = self.reply_to.encode()
                md.MsgType = ibmmq.CMQC.MQMT_REQUEST
            queue.put(STAMP.pack(time.time()), md)
        queue.close()
        conn.disconnect()

    def consume(self) -> None:
        ibmmq = self.ibmmq
        conn = self._connect()
        queue = ibmmq.Queue(conn, self.results, ibmmq.CMQC.MQOO_INPUT_SHARED)
        got = 0
        deadline = self.started + self.seconds + 60
        while got < self.expected and time.time() < deadline:
            gmo = ibmmq.GMO(Options=ibmmq.CMQC.MQGMO_WAIT | ibmmq.CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=1000)
            try:
                body = queue.get(None, ibmmq.MD(), gmo)
            except ibmmq.MQMIError as exc:
                if exc.reason == ibmmq.CMQC.MQRC_NO_MSG_AVAILABLE:
                    continue
                raise
            arrived = time.time()
            got += 1
            (sent,) = STAMP.unpack(body[:STAMP.size])
            self.seen.append(sent)
            if sent - self.started >= WARM_UP:
                self.latencies.append(arrived - sent)
        queue.close()
        conn.disconnect()

    def run(self) -> list[float]:
        self.started = time.time() + 0.5
        threads = [threading.Thread(target=self.produce), threading.Thread(target=self.consume)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return self.latencies


def rate_floor(spark, rate: float, seconds: float, checkpoint: str) -> list[float]:
    """Spark's rate source into a sink that notes, per row, arrival - generation time."""
    latencies: list[float] = []
    started = time.time()

    def note(frame, _batch_id) -> None:
        arrived = time.time()
        for row in frame.select("timestamp").collect():
            sent = row.timestamp.timestamp()
            if sent - started >= WARM_UP:
                latencies.append(arrived - sent)

    query = (spark.readStream.format("rate").option("rowsPerSecond", int(rate)).load()
             .writeStream.foreachBatch(note).option("checkpointLocation", checkpoint).start())
    time.sleep(seconds)
    query.stop()
    return latencies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK_SECONDS:g} s per run, a first figure more than a measure")
    parser.add_argument("--rate", type=float, default=50.0, help="messages per second (default 50)")
    parser.add_argument("--seconds", type=float, help="seconds per run (default 20)")
    args = parser.parse_args()
    args.seconds = args.seconds or (QUICK_SECONDS if args.quick else 20.0)

    with spark_bench("latency") as bench:
        from spark_mq.jobs.request_reply_bridge import replies  # after the embedded transport
        qm, spark, work, ibmmq = bench.qm, bench.spark, bench.work, bench.ibmmq
        qm.run_mqsc("\n".join(f"DEFINE QLOCAL({name}) MAXDEPTH(999999999) REPLACE"
                              for name in ("LAT.IN", "LAT.OUT", "LAT.REQ", "LAT.REPLY", "LAT.NOREPLY")))
        connection = bench.options()
        figures: dict[str, dict[str, float]] = {}
        figures["Spark floor: rate source -> sink"] = percentiles(
            rate_floor(spark, args.rate, args.seconds, os.path.join(work, "ck-rate")))
        for mode in ("driver", "executors"):
            read = {**connection, "readMode": mode, "waitIntervalMs": "100"}
            query = (spark.readStream.format("mq").options(**read).option("queue", "LAT.IN").load()
                     .select("payload").writeStream.format("mq").options(**connection)
                     .option("queue", "LAT.OUT")
                     .option("checkpointLocation", os.path.join(work, f"ck-q-{mode}")).start())
            trickle = Trickle(ibmmq, qm, "LAT.IN", "LAT.OUT", args.rate, args.seconds)
            samples = trickle.run()
            query.stop()
            figures[f"queue -> queue, readMode {mode}"] = percentiles(samples, trickle)
            requests = spark.readStream.format("mq").options(**read).option("queue", "LAT.REQ").load()
            query = (replies(requests, "echo", "LAT.NOREPLY", [])
                     .writeStream.format("mq").options(**connection)
                     .option("checkpointLocation", os.path.join(work, f"ck-b-{mode}")).start())
            trickle = Trickle(ibmmq, qm, "LAT.REQ", "LAT.REPLY", args.rate, args.seconds,
                              reply_to="LAT.REPLY")
            samples = trickle.run()
            query.stop()
            figures[f"request/reply bridge, readMode {mode}"] = percentiles(samples, trickle)
        for key, value in figures.items():
            print(f"{key:45s} " + "  ".join(f"{k} {v}" for k, v in value.items()))
        print("BENCH " + json.dumps({"name": "latency", "figures": figures,
                                     "notes": f"{args.rate:g} msg/s for {args.seconds:g} s per run, first "
                                              f"{WARM_UP:g} s left out, default trigger, local[2]"}))
        return 0


if __name__ == "__main__":
    sys.exit(main())
