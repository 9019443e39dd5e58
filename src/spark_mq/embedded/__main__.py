"""Run an embedded queue manager in the foreground: python -m spark_mq.embedded --data-dir DIR.

This is the queue-manager process: client/process.py and `spark-mq-qmgr start` start it,
and it runs the MQSC start-up scripts, the PCF command server (server/command_server/),
the listener (server/listener.py) and the queue
manager (server/qmgr.py) until SIGTERM or SIGINT.

Failures a person can fix (a busy port, a data directory another queue manager holds, an
unreadable MQSC file) end the process with one line on stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import errno
import fcntl
import json
import logging
import os
import signal
import sys
import threading
from typing import IO

from spark_mq.embedded.server.admin import run_mqsc
from spark_mq.embedded.server.command_server import CommandServer
from spark_mq.embedded.server.listener import DEFAULT_HEARTBEAT_INTERVAL, Server
from spark_mq.embedded.server.mqsc_attributes import DEFAULT_MQSC
from spark_mq.embedded.server.qmgr import QueueManager
from spark_mq.embedded.server.security import state as security
from spark_mq.embedded.server.tls import set_default_repository

LOCK_FILE = "qmgr.lock"     # held (flock) by the queue manager that owns the data directory
READY_FILE = "ready.json"   # {"port": N, "pid": N}, written once it accepts connections


class StartError(Exception):
    """Why the queue manager cannot start, as one line a person can act on."""


def add_arguments(parser: argparse.ArgumentParser, data_dir: str | None = None) -> None:
    """The queue manager's arguments; `data_dir` is the default (None: --data-dir required)."""
    parser.add_argument("--data-dir", required=data_dir is None, default=data_dir,
                        help="where definitions and persistent messages live"
                             + (f" (default: {data_dir})" if data_dir else ""))
    parser.add_argument("--name", default="QM1", help="queue manager name (default: QM1)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default: 127.0.0.1, loopback only)")
    parser.add_argument("--port", type=int, default=1414, help="TCP port; 0 picks a free one (default: 1414)")
    parser.add_argument("--mqsc", help="an MQSC file to run at every start (after the default objects)")
    parser.add_argument("--user", action="append", default=[], metavar="USER:PASSWORD[:GROUPS]",
                        help="a user, its password and (comma separated) its groups; repeatable. "
                             "With users, connection authentication, CHLAUTH rules and authority "
                             "records are enforced (group mqm: administrators; default groups: "
                             "mqm for admin, mqclient for others); none: no security at all")
    parser.add_argument("--heartbeat-interval", type=float, default=DEFAULT_HEARTBEAT_INTERVAL,
                        metavar="SECONDS",
                        help="end a client connection that sends nothing for this long between "
                             "calls, backing out its unit of work, as IBM MQ's channel HBINT "
                             "(default: 300)")
    parser.add_argument("--tls-key-repository", metavar="STEM",
                        help="the queue manager's key repository, as ALTER QMGR SSLKEYR at start: "
                             "STEM.crt and STEM.key (PEM) are its certificate, STEM.ca.pem the "
                             "CAs it trusts (default: DATA_DIR/ssl/key)")
    parser.add_argument("--ready-file",
                        help="write {\"port\": N, \"pid\": N} here once accepting connections "
                             f"(default: {READY_FILE} in the data directory)")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m spark_mq.embedded",
        description="An embedded IBM MQ-compatible queue manager for development and tests. "
                    "Code using IBM's ibmmq package reaches it after spark_mq.embedded.install().")
    add_arguments(parser)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    return run(parse_args(argv))


def run(args: argparse.Namespace) -> int:
    """Serve until SIGINT/SIGTERM; 0 after a clean stop, 1 when an MQSC script fails, 2
    when the queue manager cannot start (the reason on one line of stderr)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    try:
        users = parse_users(args.user)
        os.makedirs(args.data_dir, exist_ok=True)
        lock = hold_data_dir(args.data_dir)
        scripts = startup_scripts(args.data_dir, args.mqsc)
    except StartError as exc:
        print(f"cannot start queue manager {args.name}: {exc}", file=sys.stderr)
        return 2
    qmgr = QueueManager(args.name, args.data_dir, users)
    security.set_groups(qmgr, parse_groups(args.user))
    command_server = CommandServer(qmgr)
    try:
        for label, text in scripts:
            ok, output = run_mqsc(qmgr, text, existing_ok=True)
            if not ok:
                print(f"MQSC {label} failed:\n{output}", file=sys.stderr)
                return 1
        command_server.start()  # the scripts have made SYSTEM.ADMIN.COMMAND.QUEUE
        set_default_repository(qmgr, os.path.join(os.path.abspath(args.data_dir), "ssl", "key"))
        if args.tls_key_repository:
            with qmgr.lock:
                qmgr.alter_qmgr({"SSLKEYR": os.path.abspath(args.tls_key_repository)})
        try:
            server = listen(qmgr, args.host, args.port, args.heartbeat_interval)
        except StartError as exc:
            print(f"cannot start queue manager {args.name}: {exc}", file=sys.stderr)
            return 2
        serve(server, args.name, args.host, args.ready_file or os.path.join(args.data_dir, READY_FILE))
    finally:
        qmgr.shutdown()         # quiescing ends the command server's waiting get
        command_server.stop()
        lock.close()
    return 0


def parse_users(entries: list[str]) -> dict[str, str] | None:
    """--user USER:PASSWORD[:GROUPS] entries as user -> password; None (no security) when
    there are none. A password with a colon in it needs the groups field, even if empty
    (`USER:PA:SS:`), since the last colon starts the groups."""
    if not entries:
        return None
    users = {}
    for entry in entries:
        user, sep, rest = entry.partition(":")
        if not sep or not user:
            raise StartError(f"--user: expected USER:PASSWORD[:GROUP,GROUP], got {entry!r}")
        users[user] = rest.rpartition(":")[0] if ":" in rest else rest
    return users


def parse_groups(entries: list[str]) -> dict[str, tuple[str, ...]]:
    """The groups --user entries name (users without any get security/state.py's defaults)."""
    groups = {}
    for entry in entries:
        user, _, rest = entry.partition(":")
        if ":" in rest:
            named = tuple(group for group in rest.rpartition(":")[2].split(",") if group)
            if named:
                groups[user] = named
    return groups


def hold_data_dir(data_dir: str) -> IO[str]:
    """Lock the data directory for this process: two queue managers on one store would each
    believe they own its messages."""
    handle = open(os.path.join(data_dir, LOCK_FILE), "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise StartError(f"the data directory {data_dir} is in use by another running queue manager "
                         f"({_running_pid(data_dir)}); stop it first, or choose another --data-dir") from None
    return handle


def _running_pid(data_dir: str) -> str:
    try:
        with open(os.path.join(data_dir, READY_FILE)) as handle:
            return f"pid {json.load(handle)['pid']}"
    except (OSError, ValueError, KeyError):
        return "pid unknown"


def startup_scripts(data_dir: str, mqsc: str | None) -> list[tuple[str, str]]:
    """The default objects (on a fresh data directory) and the --mqsc file, as (label, text)."""
    scripts = [] if os.path.exists(os.path.join(data_dir, "qmgr.db")) else [("default objects", DEFAULT_MQSC)]
    if mqsc:
        try:
            with open(mqsc, encoding="utf-8") as handle:
                scripts.append((mqsc, handle.read()))
        except OSError as exc:
            raise StartError(f"--mqsc: cannot read {mqsc}: {exc.strerror}") from None
    return scripts


def listen(qmgr: QueueManager, host: str, port: int, heartbeat_interval: float) -> Server:
    try:
        return Server(qmgr, host, port, heartbeat_interval)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise StartError(f"port {port} on {host} is already in use (another queue manager?); "
                             "choose another with --port N, or --port 0 for a free one") from None
        raise StartError(f"cannot listen on {host}({port}): {exc.strerror or exc}") from None


def serve(server: Server, name: str, host: str, ready_file: str) -> None:
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    temporary = ready_file + ".tmp"
    with open(temporary, "w") as handle:
        json.dump({"port": server.port, "pid": os.getpid()}, handle)
    os.replace(temporary, ready_file)
    logging.info("queue manager %s listening on %s(%d)", name, host, server.port)
    stop.wait()
    logging.info("queue manager %s stopping", name)
    server.stop()


if __name__ == "__main__":
    sys.exit(main())
