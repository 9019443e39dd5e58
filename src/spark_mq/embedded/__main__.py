"""Run an embedded queue manager in the foreground: python -m spark_mq.embedded --data-dir DIR.

This is the queue-manager process: client/process.py starts it, and it runs the MQSC
start-up scripts, the listener (server/listener.py) and the queue manager (server/qmgr.py)
until SIGTERM or SIGINT.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import threading

from spark_mq.embedded.server.admin import run_mqsc
from spark_mq.embedded.server.listener import DEFAULT_HEARTBEAT_INTERVAL, Server
from spark_mq.embedded.server.mqsc_attributes import DEFAULT_MQSC
from spark_mq.embedded.server.qmgr import QueueManager


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m spark_mq.embedded",
        description="An embedded IBM MQ-compatible queue manager for development and tests. "
                    "Code using IBM's ibmmq package reaches it after spark_mq.embedded.install().")
    parser.add_argument("--data-dir", required=True, help="where definitions and persistent messages live")
    parser.add_argument("--name", default="QM1", help="queue manager name (default: QM1)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default: 127.0.0.1, loopback only)")
    parser.add_argument("--port", type=int, default=1414, help="TCP port; 0 picks a free one (default: 1414)")
    parser.add_argument("--mqsc", help="an MQSC file to run at every start (after the default objects)")
    parser.add_argument("--user", action="append", default=[], metavar="USER:PASSWORD",
                        help="require this user and password (MQCSP); repeatable; none: no authentication")
    parser.add_argument("--heartbeat-interval", type=float, default=DEFAULT_HEARTBEAT_INTERVAL,
                        metavar="SECONDS",
                        help="end a client connection that sends nothing for this long between "
                             "calls, backing out its unit of work, as IBM MQ's channel HBINT "
                             "(default: 300)")
    parser.add_argument("--ready-file", help="write {\"port\": N} here once accepting connections")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    users = None
    if args.user:
        users = {}
        for entry in args.user:
            user, sep, password = entry.partition(":")
            if not sep or not user:
                print(f"--user: expected USER:PASSWORD, got {entry!r}", file=sys.stderr)
                return 2
            users[user] = password
    fresh = not os.path.exists(os.path.join(args.data_dir, "qmgr.db"))
    qmgr = QueueManager(args.name, args.data_dir, users)
    scripts = [("default objects", DEFAULT_MQSC)] if fresh else []
    if args.mqsc:
        try:
            with open(args.mqsc, encoding="utf-8") as handle:
                scripts.append((args.mqsc, handle.read()))
        except OSError as exc:
            print(f"--mqsc: cannot read {args.mqsc}: {exc}", file=sys.stderr)
            return 2
    for label, text in scripts:
        ok, output = run_mqsc(qmgr, text, existing_ok=True)
        if not ok:
            print(f"MQSC {label} failed:\n{output}", file=sys.stderr)
            return 1
    server = Server(qmgr, args.host, args.port, args.heartbeat_interval)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    if args.ready_file:
        temporary = args.ready_file + ".tmp"
        with open(temporary, "w") as handle:
            json.dump({"port": server.port, "pid": os.getpid()}, handle)
        os.replace(temporary, args.ready_file)
    logging.info("queue manager %s listening on %s(%d)", args.name, args.host, server.port)
    stop.wait()
    logging.info("queue manager %s stopping", args.name)
    server.stop()
    qmgr.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
