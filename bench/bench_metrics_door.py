"""What silent strangers cost a scraper of the metrics endpoint (--metrics-port).

    .venv/bin/python bench/bench_metrics_door.py [--quick] [--silent N] [--scrapes K]

Starts an embedded queue manager with its metrics endpoint, scrapes it K times alone, then
opens N TCP connections that send nothing and ten that send half a request and stop (what
once took every slot and answered scrapers 503), and scrapes K times again beside them.
Prints each run's scrape latency (median, 95th percentile, worst) and how many scrapes
were answered 200. Figures are printed, never asserted.
"""
from __future__ import annotations

import argparse
import json
import socket
import statistics
import tempfile
import time
import urllib.error
import urllib.request

import spark_mq.embedded
from spark_mq.embedded.server.metrics.endpoint import MAX_PENDING


def scrapes(url: str, count: int) -> tuple[list[float], int]:
    """Milliseconds per scrape, and how many were answered 200."""
    took, ok = [], 0
    for _ in range(count):
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(url, timeout=60) as answer:
                answer.read()
                ok += answer.status == 200
        except (urllib.error.URLError, OSError):
            pass
        took.append((time.perf_counter() - started) * 1000)
    return took, ok


def summary(took: list[float]) -> dict[str, float]:
    ordered = sorted(took)
    return {"median ms": round(statistics.median(ordered), 2),
            "p95 ms": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
            "max ms": round(ordered[-1], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer scrapes")
    parser.add_argument("--silent", type=int, default=4 * MAX_PENDING,
                        help=f"silent connections held open (default: {4 * MAX_PENDING}, "
                             f"MAX_PENDING is {MAX_PENDING})")
    parser.add_argument("--scrapes", type=int, default=0, help="scrapes per run (default: 200, --quick 40)")
    args = parser.parse_args()
    count = args.scrapes or (40 if args.quick else 200)
    with tempfile.TemporaryDirectory(prefix="bench-metrics-door-") as data, \
            spark_mq.embedded.EmbeddedQueueManager(data, metrics_port=0) as qm:
        url, address = qm.metrics_url, (qm.metrics_host, qm.metrics_port)
        alone, alone_ok = scrapes(url, count)
        silent = [socket.create_connection(address, timeout=30) for _ in range(args.silent)]
        trickling = [socket.create_connection(address, timeout=30) for _ in range(10)]
        try:
            for sock in trickling:
                sock.sendall(b"GET /met")
            beside, beside_ok = scrapes(url, count)
        finally:
            for sock in silent + trickling:
                sock.close()
    figures = {f"alone {key}": value for key, value in summary(alone).items()}
    figures |= {f"beside {args.silent} silent {key}": value for key, value in summary(beside).items()}
    figures |= {"alone answered 200": alone_ok, f"beside {args.silent} silent answered 200": beside_ok,
                "scrapes": count}
    for key, value in figures.items():
        print(f"{key:>40}: {value}")
    print("BENCH " + json.dumps({
        "name": "metrics door", "figures": figures,
        "ratios": {"beside / alone median": round(statistics.median(beside) / statistics.median(alone), 2)},
        "notes": f"{args.silent} silent + 10 trickling connections, MAX_PENDING {MAX_PENDING}"}))


if __name__ == "__main__":
    main()
