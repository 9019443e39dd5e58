"""`start` and `stop`: an embedded queue manager in the foreground (until Ctrl-C) or in the
background, and stopping a background one by its data directory.

The queue-manager process holds a lock on its data directory (see spark_mq.embedded.__main__),
so `stop` knows whether one is running there without trusting a pid file alone.
"""
from __future__ import annotations

import argparse
import fcntl
import json
import os
import signal
import time
from typing import Any

from spark_mq.embedded import __main__ as server_process
from spark_mq.embedded.client.process import EmbeddedQueueManager, EmbeddedQueueManagerError
from spark_mq.jobs.errors import JobError

DEFAULT_DATA_DIR = os.path.join("~", ".spark-mq", "{name}")


def add_commands(commands: Any) -> None:
    start = commands.add_parser(
        "start", help="run an embedded queue manager (foreground until Ctrl-C, or --background)",
        description="Run an embedded queue manager. A fresh data directory gets the default "
                    "objects (DEV.QUEUE.1-3, DEV.DEAD.LETTER.QUEUE, ...); the same directory "
                    "keeps definitions and persistent messages for the next start.")
    server_process.add_arguments(start, data_dir=DEFAULT_DATA_DIR)
    start.add_argument("--background", action="store_true",
                       help="start it detached, print where it listens, and return; "
                            "`spark-mq-qmgr stop` stops it")
    start.set_defaults(run=run_start)

    stop = commands.add_parser("stop", help="stop a queue manager started with --background",
                               description="Stop the embedded queue manager running on a data "
                                           "directory (SIGTERM: open units of work are backed out).")
    stop.add_argument("--data-dir", default=DEFAULT_DATA_DIR,
                      help=f"its data directory (default: {DEFAULT_DATA_DIR})")
    stop.add_argument("--name", default="QM1", help="queue manager name, for the default --data-dir")
    stop.add_argument("--timeout", type=float, default=15.0, help="seconds to wait (default: 15)")
    stop.set_defaults(run=run_stop)


def data_dir(args: argparse.Namespace) -> str:
    path = args.data_dir.format(name=args.name) if args.data_dir == DEFAULT_DATA_DIR else args.data_dir
    return os.path.abspath(os.path.expanduser(path))


def run_start(args: argparse.Namespace) -> int:
    args.data_dir = data_dir(args)
    if not args.background:
        return server_process.run(args)
    if running_pid(args.data_dir) is not None:
        raise JobError(f"a queue manager is already running on {args.data_dir} "
                       f"(pid {running_pid(args.data_dir)}); `spark-mq-qmgr stop --data-dir "
                       f"{args.data_dir}` stops it")
    if args.mqsc and not os.path.isfile(args.mqsc):
        raise JobError(f"--mqsc: no such file {args.mqsc!r}")
    try:
        entries = server_process.user_entries(args)
        server_process.check_exposure(args.host, bool(entries), args.insecure)
        users = _users(entries) if entries else None
    except server_process.StartError as exc:
        raise JobError(str(exc)) from None
    # the users reach the background process on its standard input, never its command line;
    # it gets no administrator of its own: `spark-mq-qmgr mqsc` connects as one of the users;
    # detached, it outlives this command (`spark-mq-qmgr stop` ends it)
    manager = EmbeddedQueueManager(args.data_dir, name=args.name, port=args.port,
                                   mqsc=os.path.abspath(args.mqsc) if args.mqsc else None,
                                   users=users, host=args.host,
                                   heartbeat_interval=args.heartbeat_interval,
                                   tls_key_repository=args.tls_key_repository,
                                   insecure=args.insecure, administrator=False, outlive_owner=True,
                                   metrics_port=args.metrics_port, metrics_host=args.metrics_host,
                                   queue_memory=args.queue_memory)
    try:
        manager.start()
    except EmbeddedQueueManagerError as exc:
        raise JobError(str(exc)) from None
    print(f"queue manager {manager.name} running at {_connectable(manager.host)}({manager.port}), "
          f"pid {manager.pid}, data in {args.data_dir}")
    if manager.metrics_url:
        print(f"metrics (Prometheus) at {manager.metrics_url}")
    print(f"stop it with: spark-mq-qmgr stop --data-dir {args.data_dir}")
    return 0


def _users(entries: list[str]) -> dict[str, str | tuple[str, tuple[str, ...]]]:
    """USER:PASSWORD[:GROUPS] entries for the background process: passwords, with the
    groups where named."""
    passwords = server_process.parse_users(entries) or {}
    groups = server_process.parse_groups(entries)
    return {user: (password, groups[user]) if user in groups else password
            for user, password in passwords.items()}


def run_stop(args: argparse.Namespace) -> int:
    directory = data_dir(args)
    pid = running_pid(directory)
    if pid is None:
        raise JobError(f"no queue manager is running on {directory}")
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + args.timeout
    while running_pid(directory) is not None:
        if time.monotonic() > deadline:
            raise JobError(f"the queue manager (pid {pid}) did not stop within {args.timeout:g} s; "
                           f"`kill -9 {pid}` ends it (its open units of work are backed out)")
        time.sleep(0.05)
    print(f"queue manager on {directory} (pid {pid}) stopped")
    return 0


def running_pid(directory: str) -> int | None:
    """The pid of the queue manager holding `directory`, or None when none holds it."""
    lock = os.path.join(directory, server_process.LOCK_FILE)
    if not os.path.exists(lock):
        return None
    with open(lock) as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return _ready_pid(directory)
        fcntl.flock(handle, fcntl.LOCK_UN)
    return None


def _ready_pid(directory: str) -> int:
    try:
        with open(os.path.join(directory, server_process.READY_FILE)) as handle:
            return int(json.load(handle)["pid"])
    except (OSError, ValueError, KeyError):
        raise JobError(f"a queue manager holds {directory} but has not said its pid yet "
                       "(still starting?); try again") from None


def _connectable(host: str) -> str:
    return "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
