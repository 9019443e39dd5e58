"""Messages/s of the embedded queue manager through IBM's ibmmq API, against the ceiling of
the ibmmq layer itself (the same loops on bench/null_transport.py), in one run.

    .venv/bin/python bench/bench_embedded.py [--messages 20000]

Each side runs in its own subprocess, because the transport is chosen when ibmmq is
imported. 1 KiB bodies; MD/PMO/GMO are reused across calls, as a tuned application does.
Figures are printed, never asserted.

A synchronous call (each put or get waits for its answer) is one round trip, so a second
table says where its time goes: the CPU the application and the queue-manager process spend
per call, and the round trip of two bare Python processes exchanging the same bytes over
loopback TCP, the floor any synchronous call between two Python processes pays here.
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

import psutil

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BODY = b"x" * 1024
COMMIT_EVERY = 100

LOOPS = [
    ("np_put", "non-persistent put (no syncpoint)"),
    ("np_get", "non-persistent get (no syncpoint)"),
    ("p_put_sync", "persistent put, syncpoint, 100 per MQCMIT"),
    ("p_get_sync", "persistent get, syncpoint, 100 per MQCMIT"),
    ("p_put_async", "persistent put, syncpoint, async, 100/MQCMIT"),
    ("ra_get", "read-ahead get (non-persistent)"),
    ("async_put", "async put (MQPMO_ASYNC_RESPONSE) + MQSTAT"),
]


# === one side: the loops, run inside a subprocess ==========================================
def _cpu_seconds(process: psutil.Process) -> float:
    """User and system CPU of a process so far."""
    times = process.cpu_times()
    return times.user + times.system


def run_side(side: str, conn_name: str, count: int, qm_pid: int = 0) -> dict[str, float]:
    if side == "null":
        sys.path.insert(0, ROOT)
        from bench import null_transport
        null_transport.install()
    else:
        import spark_mq.embedded as embedded
        embedded.install()
    import ibmmq
    from ibmmq import CMQC

    conn = ibmmq.connect("QM1", "DEV.APP.SVRCONN", conn_name)
    results = {}

    def open_queue(name, options):
        return ibmmq.Queue(conn, name, options)

    # this process (the application) and the queue manager's, whose CPU per call is measured
    watched = {"app": psutil.Process(), "qm": psutil.Process(qm_pid)} if qm_pid else {}

    def cpu_now():
        return {side: _cpu_seconds(process) for side, process in watched.items()}

    def cpu_from(key, started):
        """CPU per call of each watched process since `started` (cpu_now())."""
        for side, process in watched.items():
            results[f"{key}_{side}_cpu_us"] = (_cpu_seconds(process) - started[side]) / count * 1e6

    def put_loop(name, persistence, options, commit, key=""):
        queue = open_queue(name, CMQC.MQOO_OUTPUT)
        md = ibmmq.MD(Persistence=persistence)
        pmo = ibmmq.PMO(Options=options | CMQC.MQPMO_NEW_MSG_ID)
        cpu = cpu_now()
        start = time.perf_counter()
        for index in range(1, count + 1):
            queue.put(BODY, md, pmo)
            if commit and index % COMMIT_EVERY == 0:
                conn.commit()
        if commit:
            conn.commit()
        elapsed = time.perf_counter() - start
        if key:
            cpu_from(key, cpu)
        queue.close()
        return count / elapsed

    def get_loop(name, open_options, options, commit, key=""):
        queue = open_queue(name, CMQC.MQOO_INPUT_SHARED | open_options)
        md = ibmmq.MD()
        gmo = ibmmq.GMO(Options=options | CMQC.MQGMO_NO_WAIT, MatchOptions=CMQC.MQMO_NONE,
                        Version=CMQC.MQGMO_VERSION_2)
        cpu = cpu_now()
        start = time.perf_counter()
        for index in range(1, count + 1):
            queue.get(None, md, gmo)
            if commit and index % COMMIT_EVERY == 0:
                conn.commit()
        if commit:
            conn.commit()
        elapsed = time.perf_counter() - start
        if key:
            cpu_from(key, cpu)
        queue.close()
        return count / elapsed

    queue_name = "BENCH.Q"
    results["np_put"] = put_loop(queue_name, CMQC.MQPER_NOT_PERSISTENT, CMQC.MQPMO_NO_SYNCPOINT, False)
    results["np_get"] = get_loop(queue_name, 0, CMQC.MQGMO_NO_SYNCPOINT, False)
    results["p_put_sync"] = put_loop(queue_name, CMQC.MQPER_PERSISTENT, CMQC.MQPMO_SYNCPOINT, True,
                                     "p_put_sync")
    results["p_get_sync"] = get_loop(queue_name, 0, CMQC.MQGMO_SYNCPOINT, True, "p_get_sync")
    # the connector's writer: asynchronous puts under syncpoint, committed in chunks
    results["p_put_async"] = put_loop(queue_name, CMQC.MQPER_PERSISTENT,
                                      CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE, True)
    if side != "null":
        assert conn.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR).PutSuccessCount == count
    get_loop(queue_name, 0, CMQC.MQGMO_NO_SYNCPOINT, False)
    put_loop(queue_name, CMQC.MQPER_NOT_PERSISTENT, CMQC.MQPMO_NO_SYNCPOINT, False)
    results["ra_get"] = get_loop(queue_name, CMQC.MQOO_READ_AHEAD, CMQC.MQGMO_NO_SYNCPOINT, False)

    queue = open_queue(queue_name, CMQC.MQOO_OUTPUT)
    md = ibmmq.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT)
    pmo = ibmmq.PMO(Options=CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_NEW_MSG_ID)
    start = time.perf_counter()
    for _ in range(count):
        queue.put(BODY, md, pmo)
    status = conn.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    results["async_put"] = count / (time.perf_counter() - start)
    if side != "null":
        assert status.PutSuccessCount == count, (status.PutSuccessCount, status.Reason)
        depth = ibmmq.Queue(conn, queue_name, CMQC.MQOO_INQUIRE).inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
        assert depth == count, depth
    queue.close()
    conn.disconnect()
    return results


# === the driver ==============================================================================
def side_process(side: str, conn_name: str, count: int, qm_pid: int = 0) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    output = subprocess.run([sys.executable, os.path.abspath(__file__), "--side", side,
                             "--conn-name", conn_name, "--messages", str(count),
                             "--qm-pid", str(qm_pid)],
                            check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(output.strip().splitlines()[-1])


def _keep_best(best: dict[str, float], run: dict[str, float]) -> None:
    """Each rate's best; each CPU cost (a key ending in _us) its lowest."""
    for key, value in run.items():
        if key.endswith("_us"):
            best[key] = min(best.get(key, value), value)
        else:
            best[key] = max(best.get(key, 0.0), value)


def round_trip_floor(count: int) -> float:
    """Round trips per second of two bare Python processes sending a put's bytes (1 KiB and
    its MQMD) over loopback TCP and answering with an MQMD's worth, as a synchronous put does."""
    echo = ("import socket, sys\n"
            "s = socket.create_connection(('127.0.0.1', int(sys.argv[1])))\n"
            "s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)\n"
            "while s.recv(65536):\n"
            "    s.sendall(b'r' * 380)\n")
    with socket.create_server(("127.0.0.1", 0)) as server:
        child = subprocess.Popen([sys.executable, "-c", echo, str(server.getsockname()[1])])
        peer, _ = server.accept()
    with peer:
        peer.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        request = b"p" * (1024 + 364 + 25)
        start = time.perf_counter()
        for _ in range(count):
            peer.sendall(request)
            peer.recv(65536)
        rate = count / (time.perf_counter() - start)
    child.wait()
    return rate


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=20000, help="messages per loop (default 20000)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="alternate embedded and ceiling runs this many times and keep each "
                             "loop's best, so that load from other processes hits both alike (default 2)")
    parser.add_argument("--quick", action="store_true", help="5000 messages per loop, one round")
    parser.add_argument("--side", choices=["embedded", "null"], help=argparse.SUPPRESS)
    parser.add_argument("--conn-name", default="", help=argparse.SUPPRESS)
    parser.add_argument("--qm-pid", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.messages, args.rounds = 5000, 1
    if args.side:
        print(json.dumps(run_side(args.side, args.conn_name, args.messages, args.qm_pid)))
        return 0

    sys.path.insert(0, ROOT)
    import spark_mq.embedded as embedded
    measured: dict[str, float] = {}
    ceiling: dict[str, float] = {}
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as data_dir, \
                embedded.EmbeddedQueueManager(
                    data_dir, mqsc="DEFINE QLOCAL(BENCH.Q) MAXDEPTH(999999999)\n") as qm:
            _keep_best(measured, side_process("embedded", qm.conn_name, args.messages, qm.pid or 0))
        _keep_best(ceiling, side_process("null", "127.0.0.1(1)", args.messages))
        _keep_best(measured, {"floor": round_trip_floor(args.messages)})

    import importlib.metadata
    print(f"ibmmq {importlib.metadata.version('ibmmq')}, {args.messages} x 1 KiB messages per loop, "
          f"best of {args.rounds} rounds, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f}")
    print(f"{'loop':47} {'embedded msg/s':>15} {'ibmmq ceiling':>14} {'ratio':>7}")
    for key, label in LOOPS:
        print(f"{label:47} {measured[key]:15,.0f} {ceiling[key]:14,.0f} {measured[key] / ceiling[key]:7.1%}")
    floor_us = 1e6 / measured["floor"]
    print(f"\n{'a synchronous call, per message':47} {'wall us':>8} {'app CPU':>8} {'QM CPU':>8}")
    for key in ("p_put_sync", "p_get_sync"):
        label = dict(LOOPS)[key].split(",")[0]
        print(f"{label:47} {1e6 / measured[key]:8.0f} {measured[key + '_app_cpu_us']:8.0f} "
              f"{measured[key + '_qm_cpu_us']:8.0f}")
    print(f"{'bare Python round trip over loopback TCP':47} {floor_us:8.0f}  "
          f"(the floor: {measured['floor']:,.0f} round trips/s)")
    print("BENCH " + json.dumps({
        "name": "embedded",
        "figures": {**{f"{label} msg/s": round(measured[key]) for key, label in LOOPS},
                    **{f"{key} {side} CPU us": round(measured[f"{key}_{side}_cpu_us"])
                       for key in ("p_put_sync", "p_get_sync") for side in ("app", "qm")},
                    "bare Python round trip per s": round(measured["floor"])},
        "ratios": {f"{label} / ibmmq ceiling": round(measured[key] / ceiling[key], 2)
                   for key, label in LOOPS},
        "notes": f"1 KiB messages, {args.messages} per loop, best of {args.rounds}"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
