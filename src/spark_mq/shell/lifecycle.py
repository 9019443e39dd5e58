"""`start` and `stop`: an embedded queue manager in the foreground (until Ctrl-C) or in the
background, and stopping a background one by its data directory; `status`: the local ones.

The queue-manager process holds a lock on its data directory (see spark_mq.embedded.server_process),
so `stop` knows whether one is running there without trusting a pid file alone. `start`
records its data directory in the local registry (registry.py), where the client tools
find it by name and `status` lists it.
"""
from __future__ import annotations

import argparse
import os
import signal
import time
from typing import Any

from spark_mq.embedded import server_process
from spark_mq.embedded.client.process import EmbeddedQueueManager, EmbeddedQueueManagerError
from spark_mq.jobs.job_errors import JobError
from spark_mq.shell import registry
from spark_mq.shell.registry import connectable, running_pid

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
    stop.add_argument("--name", default="QM1",
                      help="queue manager name: without --data-dir, its default data directory, "
                           "else the one it runs on (`spark-mq-qmgr status`)")
    stop.add_argument("--timeout", type=float, default=15.0, help="seconds to wait (default: 15)")
    stop.set_defaults(run=run_stop)

    status = commands.add_parser(
        "status", help="list the local queue managers: name, state, address, pid, data directory",
        description="List the embedded queue managers `start` ran on this machine (and those "
                    f"in the default data directories, {DEFAULT_DATA_DIR}), running or stopped; "
                    "the client tools find them by --queue-manager NAME or --data-dir.")
    status.set_defaults(run=run_status)


def data_dir(args: argparse.Namespace) -> str:
    path = args.data_dir.format(name=args.name) if args.data_dir == DEFAULT_DATA_DIR else args.data_dir
    return os.path.abspath(os.path.expanduser(path))


def run_start(args: argparse.Namespace) -> int:
    args.data_dir = data_dir(args)
    registry.record(args.data_dir, args.name, args.host)
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
    print(f"queue manager {manager.name} running at {connectable(manager.host)}({manager.port}), "
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
    directory = _stop_directory(args)
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


def _stop_directory(args: argparse.Namespace) -> str:
    """--data-dir; without it, NAME's default directory, else the one data directory where a
    queue manager of that name runs (the local registry)."""
    directory = data_dir(args)
    if args.data_dir != DEFAULT_DATA_DIR or running_pid(directory) is not None:
        return directory
    named = [qm.data_dir for qm in registry.queue_managers() if qm.name == args.name and qm.running]
    return named[0] if len(named) == 1 else directory


def run_status(args: argparse.Namespace) -> int:
    found = registry.queue_managers()
    if not found:
        print("no local queue managers; `spark-mq-qmgr start --background` starts one")
        return 0
    rows = [(qm.name, qm.state, qm.conn_name if qm.port else "-",
             str(qm.pid) if qm.running else "-", qm.data_dir) for qm in found]
    header = ("NAME", "STATE", "ADDRESS", "PID", "DATA DIRECTORY")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1])
    return 0
