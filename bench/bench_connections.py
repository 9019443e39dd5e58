"""How many idle client connections one embedded queue manager holds, and at what cost.

    .venv/bin/python bench/bench_connections.py [--quick] [--connections N]

Starts a queue manager (its own process, MaxChannels and its descriptor limit raised for the
run), then opens connections that MQCONN through the wire protocol on DEV.APP.SVRCONN (what
the server holds for each is what it holds for an ibmmq client's) and leaves them idle. At
each step it prints the queue manager's resident memory (VmRSS), its address space
(VmSize), its threads, and how long the step's connections took; a put and a get on another
connection after each step show it still serves. The listener runs one thread per
connection: the figures say what that costs. Last, every connection is dropped at once
and the time until the queue manager has ended them all is measured: that, not memory, is
where one thread per connection stops scaling (thousands of threads contending for the
interpreter and the queue manager's lock at once).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import spark_mq.embedded

spark_mq.embedded.install()

import ibmmq  # noqa: E402

from spark_mq.embedded import wire  # noqa: E402

CHANNEL = "DEV.APP.SVRCONN"


def raise_nofile() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def status(pid: int) -> dict[str, int]:
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmSize", "VmHWM", "Threads"):
            found[key] = int(value.split()[0])
    return found


def connect(port: int, name: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(wire.frame(["CONN", name, "", "", "bench", CHANNEL]))
    reply = wire.FrameReader(sock).read_reply()
    if reply[:2] != [0, 0]:
        raise RuntimeError(f"CONN answered {reply[:2]}")
    return sock


def put_get(port: int, name: str) -> float:
    start = time.perf_counter()
    conn = ibmmq.connect(name, CHANNEL, f"127.0.0.1({port})")
    queue = ibmmq.Queue(conn, "DEV.QUEUE.1", ibmmq.CMQC.MQOO_OUTPUT | ibmmq.CMQC.MQOO_INPUT_AS_Q_DEF)
    queue.put(b"ping")
    assert queue.get() == b"ping"
    queue.close()
    conn.disconnect()
    return (time.perf_counter() - start) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="500 connections")
    parser.add_argument("--connections", type=int, default=0, help="connections (default 5000)")
    args = parser.parse_args()
    target = args.connections or (500 if args.quick else 5000)
    raise_nofile()
    if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < target + 100:
        print(f"the descriptor limit ({resource.getrlimit(resource.RLIMIT_NOFILE)[0]}) is below "
              f"{target} connections: lower --connections", file=sys.stderr)
        return 1
    steps = sorted({s for s in (0, 100, 500, 1000, 2000, 5000, 10000, 20000) if s < target} | {target})
    with tempfile.TemporaryDirectory() as data_dir:
        ready = os.path.join(data_dir, "ready.json")
        name = "QMBENCH"
        log = open(os.path.join(data_dir, "qmgr.log"), "wb")
        # the queue manager ends with this script, however it ends: it watches a pipe whose
        # write end only this process holds (--owner-fd, as EmbeddedQueueManager does)
        watched, owner_end = os.pipe()
        process = subprocess.Popen(
            [sys.executable, "-m", "spark_mq.embedded", "--data-dir", data_dir, "--name", name,
             "--port", "0", "--ready-file", ready, "--max-channels", str(target + 10),
             "--owner-fd", str(watched)],
            stdout=log, stderr=subprocess.STDOUT, preexec_fn=raise_nofile, pass_fds=(watched,))
        os.close(watched)
        held: list[socket.socket] = []
        rows = []
        try:
            while not os.path.exists(ready):
                if process.poll() is not None:
                    raise RuntimeError("the queue manager did not start")
                time.sleep(0.05)
            with open(ready) as handle:
                port = json.load(handle)["port"]
            put_get(port, name)
            base_threads = status(process.pid)["Threads"]
            drained = 0.0
            for step in steps:
                start = time.perf_counter()
                while len(held) < step:
                    held.append(connect(port, name))
                took = time.perf_counter() - start
                time.sleep(0.5)
                figures = status(process.pid)
                latency = put_get(port, name)
                rows.append((step, figures, took, latency))
                print(f"{step:>6} idle connections: RSS {figures['VmRSS'] / 1024:8.1f} MiB, "
                      f"VmSize {figures['VmSize'] / 1024:9.1f} MiB, threads {figures['Threads']:>6}, "
                      f"opened in {took:6.2f} s, a put+get on a new connection {latency:6.1f} ms",
                      flush=True)
            # every client goes at once (a network split, a killed job): how long until the
            # queue manager has ended their connections (each thread takes the queue
            # manager's lock to back out and release what its connection held)
            start = time.perf_counter()
            for sock in held:
                sock.close()
            held.clear()
            while status(process.pid)["Threads"] > base_threads:
                if time.perf_counter() - start > 600:
                    break
                time.sleep(0.1)
            drained = time.perf_counter() - start
            print(f"{len(rows) and rows[-1][0]:>6} connections dropped at once: ended in {drained:.1f} s",
                  flush=True)
        finally:
            for sock in held:
                sock.close()
            process.terminate()
            try:
                process.wait(120)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            os.close(owner_end)
            log.close()
    base = rows[0][1]
    last_step, last, _, last_latency = rows[-1]
    per_connection = (last["VmRSS"] - base["VmRSS"]) / max(last_step, 1)
    print("BENCH " + json.dumps({
        "name": "connections",
        "figures": {
            "idle connections": last_step,
            "queue manager RSS MiB": round(last["VmRSS"] / 1024, 1),
            "RSS at 0 connections MiB": round(base["VmRSS"] / 1024, 1),
            "RSS KiB per connection": round(per_connection, 1),
            "address space GiB": round(last["VmSize"] / 1024 / 1024, 2),
            "threads": last["Threads"],
            "put+get ms at the last step": round(last_latency, 1),
            "s to end them all dropped at once": round(drained, 1),
        },
        "notes": "idle MQCONNed connections on DEV.APP.SVRCONN, one thread each"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
