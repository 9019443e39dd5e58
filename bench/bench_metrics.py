"""A pipeline draining a backlog, watched as an operator watches it: the embedded queue
manager's metrics endpoint (IBM's mq-metric-samples names) scraped every --interval seconds
while a Spark stream drains the queue, and the reader's own figures from each
StreamingQueryProgress. Optionally draws the run (--plot docs/metrics-drain.svg).

    .venv/bin/python bench/bench_metrics.py [--quick] [--messages 200000] [--plot FILE]

The same backlog is drained twice in the same run, once scraped and once not, so the ratio
says what being watched costs the pipeline; the scrape's own time is a figure too.
Persistent 1 KiB messages, exactlyOnce, maxMessagesPerTrigger --batch, into a noop sink.
Figures are printed, never asserted.
"""
from __future__ import annotations

import argparse
import calendar
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_reader import fill  # noqa: E402 - the bench folder's shared loader
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

QUEUE = "BENCH.METRICS"


@dataclass
class Sample:
    at: float                   # seconds since the stream started
    depth: float
    oldest_age: float
    gets: float                 # ibmmq_queue_mqget_count
    qtime_short: float          # microseconds
    scrape_ms: float


@dataclass
class Run:
    seconds: float
    samples: list[Sample] = field(default_factory=list)
    progress: list[tuple[float, dict]] = field(default_factory=list)   # (at, reader's JSON)


def scrape(url: str, queue: str) -> tuple[dict[str, float], float]:
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=10) as answer:
        text = answer.read().decode()
    took = (time.perf_counter() - started) * 1000
    values = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.labels.get("queue") == queue:
                values[sample.name] = sample.value
    return values, took


def drain(spark, qm, batch: int, url: str | None, interval: float) -> Run:
    options = {"queueManager": qm.name, "connName": qm.conn_name, "channel": qm.channel,
               "queue": QUEUE, "maxMessagesPerTrigger": str(batch)}
    checkpoint = tempfile.mkdtemp(prefix="bench-metrics-ck-")
    samples: list[Sample] = []
    stop = threading.Event()
    started, started_wall = time.monotonic(), time.time()

    def watch() -> None:
        while not stop.is_set():
            values, took = scrape(url, QUEUE)
            samples.append(Sample(time.monotonic() - started, values["ibmmq_queue_depth"],
                                  values["ibmmq_queue_oldest_message_age"],
                                  values["ibmmq_queue_mqget_count"],
                                  values["ibmmq_queue_qtime_short"], took))
            stop.wait(interval)

    watcher = threading.Thread(target=watch, daemon=True) if url else None
    if watcher:
        watcher.start()
    query = (spark.readStream.format("mq").options(**options).load()
             .writeStream.format("noop").option("checkpointLocation", checkpoint)
             .trigger(availableNow=True).start())
    query.awaitTermination()
    seconds = time.monotonic() - started
    stop.set()
    if watcher:
        watcher.join()
    shutil.rmtree(checkpoint, ignore_errors=True)
    run = Run(seconds, samples)
    for progress in query.recentProgress:
        if progress["numInputRows"]:
            latest = progress["sources"][0]["latestOffset"]
            at = _utc(progress["timestamp"]) - started_wall   # when the trigger began
            run.progress.append((at, json.loads(latest) if isinstance(latest, str) else dict(latest)))
    return run


def _utc(stamp: str) -> float:
    """Spark's progress timestamp (ISO 8601, UTC, milliseconds) as seconds since the epoch."""
    whole, _, fraction = stamp.rstrip("Z").partition(".")
    return calendar.timegm(time.strptime(whole, "%Y-%m-%dT%H:%M:%S")) + float(f"0.{fraction or 0}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20,000 messages")
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--batch", type=int, default=10_000, help="maxMessagesPerTrigger")
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between scrapes")
    parser.add_argument("--plot", help="write an SVG of the scraped run here")
    args = parser.parse_args()
    messages = 20_000 if args.quick else args.messages
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import spark_mq.embedded as embedded
    embedded.install()
    import ibmmq
    from pyspark.sql import SparkSession

    data = tempfile.mkdtemp(prefix="bench-metrics-qm-")
    try:
        with embedded.EmbeddedQueueManager(data, metrics_port=0) as qm:
            qm.run_mqsc(f"DEFINE QLOCAL({QUEUE}) MAXDEPTH(999999999) MSGDLVSQ(FIFO)")
            spark = (SparkSession.builder.master("local[2]").appName("bench-metrics")
                     .config("spark.ui.enabled", "false")
                     .config("spark.ui.showConsoleProgress", "false").getOrCreate())
            spark.sparkContext.setLogLevel("ERROR")
            conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
            fill(ibmmq, conn, QUEUE, 1000, persistent=True)            # warm-up
            drain(spark, qm, args.batch, None, args.interval)
            fill(ibmmq, conn, QUEUE, messages, persistent=True)
            quiet = drain(spark, qm, args.batch, None, args.interval)
            fill(ibmmq, conn, QUEUE, messages, persistent=True)
            watched = drain(spark, qm, args.batch, qm.metrics_url, args.interval)
            conn.disconnect()
            spark.stop()
    finally:
        shutil.rmtree(data, ignore_errors=True)
    if args.plot:
        with open(args.plot, "w") as handle:
            handle.write(svg(watched, messages, args.batch))
    scrape_ms = [s.scrape_ms for s in watched.samples]
    latencies = [p["latencyP99Ms"] for _, p in watched.progress if p.get("latencyP99Ms")]
    figures = {
        "messages": messages,
        "drain scraped msg/s": round(messages / watched.seconds, 1),
        "drain unscraped msg/s": round(messages / quiet.seconds, 1),
        "scrapes": len(scrape_ms),
        "scrape median ms": round(statistics.median(scrape_ms), 2) if scrape_ms else None,
        "scrape max ms": round(max(scrape_ms), 2) if scrape_ms else None,
        "oldest message age max s": max((s.oldest_age for s in watched.samples), default=None),
        "put-to-commit p99 max s": round(max(latencies) / 1000, 1) if latencies else None,
    }
    ratios = {"scraped / unscraped msg/s": round(quiet.seconds / watched.seconds, 3)}
    print("BENCH " + json.dumps({
        "name": "metrics", "figures": figures, "ratios": ratios,
        "notes": f"persistent 1 KiB, exactlyOnce, maxMessagesPerTrigger {args.batch}, noop sink, "
                 f"scrape every {args.interval} s"}))
    return 0


def svg(run: Run, messages: int, batch: int) -> str:
    """Three panels over the run's time: depth (scraped) and the reader's lag; gets per
    second (from ibmmq_queue_mqget_count); the oldest message's age (scraped) and the
    reader's put-to-commit p99."""
    width, panel, left, gap = 720, 150, 70, 40
    end = max([run.seconds] + [s.at for s in run.samples]) or 1.0
    rates = [(b.at, (b.gets - a.gets) / max(b.at - a.at, 1e-6))
             for a, b in zip(run.samples, run.samples[1:])]
    lag = [(at, p["lag"]) for at, p in run.progress]
    p99 = [(at, p["latencyP99Ms"] / 1000) for at, p in run.progress
           if p.get("latencyP99Ms") is not None]
    panels = [
        ("messages on the queue: ibmmq_queue_depth (blue), reader lag (orange)",
         [([(s.at, s.depth) for s in run.samples], "#1f77b4"), (lag, "#ff7f0e")]),
        ("messages got per second (rate of ibmmq_queue_mqget_count)", [(rates, "#2ca02c")]),
        ("seconds: ibmmq_queue_oldest_message_age (red), put-to-commit p99 (purple)",
         [([(s.at, s.oldest_age) for s in run.samples], "#d62728"), (p99, "#9467bd")]),
    ]
    height = len(panels) * (panel + gap) + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           'font-family="sans-serif" font-size="11">',
           f'<text x="{left}" y="16" font-size="13">spark-mq draining {messages:,} persistent '
           f'messages (maxMessagesPerTrigger {batch:,}) in {run.seconds:.0f} s</text>']
    for index, (title, series) in enumerate(panels):
        top = 30 + index * (panel + gap)
        peak = max([v for points, _ in series for _, v in points] + [1e-9])
        out.append(f'<text x="{left}" y="{top + 12}">{title}</text>')
        out.append(f'<rect x="{left}" y="{top + 18}" width="{width - left - 10}" height="{panel}" '
                   'fill="none" stroke="#999"/>')
        out.append(f'<text x="{left - 6}" y="{top + 28}" text-anchor="end">{peak:,.0f}</text>')
        out.append(f'<text x="{left - 6}" y="{top + 18 + panel}" text-anchor="end">0</text>')
        for points, colour in series:
            path = " ".join(
                f"{left + (width - left - 10) * t / end:.1f},{top + 18 + panel - panel * v / peak:.1f}"
                for t, v in points)
            if path:
                out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{path}"/>')
    out.append(f'<text x="{width - 10}" y="{height - 8}" text-anchor="end">{end:.0f} s</text>')
    out.append(f'<text x="{left}" y="{height - 8}">0 s</text></svg>')
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
