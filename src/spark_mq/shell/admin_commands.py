"""`mqsc` (runmqsc for the embedded queue manager), `depth` (CURDEPTH of queues) and
`unsubscribe` (removes a durable subscription, such as the one a topic read owns).

`mqsc` sends one command at a time, as `runmqsc -c` does: on one authenticated client
connection (DEV.ADMIN.SVRCONN unless --channel says otherwise), each command in a PCF Escape
to the command server, which checks the user's authority for it (embedded/client/admin.py).
A failing command does not hide the others' results; it numbers and echoes each command, and
exits 10 when any failed (runmqsc's status for "completed with errors"). The Escape is the
embedded queue manager's: on IBM MQ, use runmqsc -c itself.
"""
from __future__ import annotations

import argparse
import re
import struct
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from spark_mq.jobs.job_errors import JobError
from spark_mq.shell.client_connection import client_options, connected, refused

SOME_FAILED = 10
#: the model queue name of the reply queues `mqsc` opens (embedded/client/admin.py): `depth`
#: leaves the tool's own temporary queues out
OWN_REPLY_QUEUES = "AMQ.MQSC."
_DISPLAYED = re.compile(r"\b(QUEUE|CURDEPTH|MAXDEPTH)\(([^)]*)\)")


# --- arguments ----------------------------------------------------------------------------------

def add_mqsc(commands: Any) -> argparse.ArgumentParser:
    mqsc = commands.add_parser(
        "mqsc", help="run MQSC commands (runmqsc) on an embedded queue manager",
        description="Run MQSC commands: the COMMAND arguments, or the file given with -f, or "
                    "standard input (typed: each command runs when complete; END or Ctrl-D ends).")
    mqsc.add_argument("commands", nargs="*", metavar="COMMAND",
                      help="an MQSC command, e.g. 'DISPLAY QLOCAL(*)'")
    mqsc.add_argument("-f", "--file", help="an MQSC script file")
    mqsc.set_defaults(run=run_mqsc)
    return mqsc


def add_depth(commands: Any) -> argparse.ArgumentParser:
    depth = commands.add_parser("depth", help="show queue depths (CURDEPTH and MAXDEPTH)",
                                description="Show the depth of the named queues, or of every local "
                                            "queue of an embedded queue manager.")
    depth.add_argument("queues", nargs="*", metavar="QUEUE", help="queue names (default: all local queues)")
    depth.add_argument("--system", action="store_true",
                       help="with no names, list the SYSTEM.* queues and the tool's own temporary "
                            f"reply queues ({OWN_REPLY_QUEUES}*) too (left out by default, as MQ "
                            "Explorer hides system objects)")
    depth.set_defaults(run=run_depth)
    return depth


def add_unsubscribe(commands: Any) -> argparse.ArgumentParser:
    unsubscribe = commands.add_parser(
        "unsubscribe", help="remove a durable subscription (a topic read's, for one)",
        description="Remove the durable subscription NAME with its managed queue and the "
                    "publications waiting on it (MQSUB with MQSO_RESUME, MQCLOSE with "
                    "MQCO_REMOVE_SUB). Fails with MQ reason 2428 MQRC_NO_SUBSCRIPTION when "
                    "there is none.")
    unsubscribe.add_argument("name", metavar="NAME", help="the subscription's name, e.g. "
                                                          "SPARK.MQ.0123456789ABCDEF")
    unsubscribe.set_defaults(run=run_unsubscribe)
    return unsubscribe


def run_unsubscribe(args: argparse.Namespace) -> int:
    from spark_mq.mq.subscriptions import remove_subscription
    with connected(args) as (ibmmq, qmgr):
        remove_subscription(ibmmq, qmgr, args.name)
    print(f"removed subscription {args.name}")
    return 0


# --- mqsc --------------------------------------------------------------------------------------

def run_mqsc(args: argparse.Namespace) -> int:
    if args.commands and args.file:
        raise JobError("give COMMAND arguments or -f FILE, not both")
    with mqsc_sender(args) as send:
        return _run_commands(args, send)


def _run_commands(args: argparse.Namespace, send: Callable[[str], tuple[bool, str]]) -> int:
    typing = not args.commands and not args.file and sys.stdin.isatty()
    if typing:
        print(f"Starting MQSC for the queue manager at {client_options(args)['connName']}. "
              "END or Ctrl-D ends.", file=sys.stderr)
    read = failed = 0
    for command in split_commands(_lines(args)):
        if command.strip().upper() == "END":
            break
        read += 1
        print(f"{read:6} : {' '.join(line.strip() for line in command.splitlines())}")
        ok, output = send(command)
        print(output, flush=True)
        failed += not ok
    print(f"{read} MQSC command(s) read; {failed or 'none'} failed.")
    return SOME_FAILED if failed else 0


def split_commands(lines: Iterable[str]) -> Iterator[str]:
    """MQSC commands from script lines: '+' or '-' at a line's end continues the command on
    the next line, '*' starts a comment line, blank lines separate nothing."""
    pending: list[str] = []
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not pending and (not line.strip() or line.lstrip().startswith("*")):
            continue
        pending.append(line)
        if not line.rstrip().endswith(("+", "-")):
            yield "\n".join(pending)
            pending = []
    if pending:
        yield "\n".join(pending)


def _lines(args: argparse.Namespace) -> Iterable[str]:
    if args.commands:
        return args.commands
    if args.file:
        try:
            with open(args.file, encoding="utf-8") as handle:
                return handle.read().splitlines()
        except OSError as exc:
            raise JobError(f"-f: cannot read {args.file}: {exc.strerror}") from None
    return sys.stdin


@contextmanager
def mqsc_sender(args: argparse.Namespace) -> Iterator[Callable[[str], tuple[bool, str]]]:
    """A function that runs one MQSC command and returns (ok, output), on one connection
    opened at the first command and closed at the end."""
    from spark_mq.embedded.client.admin import (
        ADMIN_CHANNEL,
        MQSCRefused,
        MQSCSession,
        first_address,
        run_script,
        session_on_channel,
    )
    from spark_mq.mq.exceptions import MQConnectorError
    from spark_mq.mqi.constants import reason_name
    options = client_options(args)
    if "connName" not in options:
        raise JobError("mqsc needs --conn-name host(port) of an embedded queue manager")
    host, port = first_address(options["connName"])
    opened: list[Any] = []

    def session() -> MQSCSession:
        if not opened:
            manager = session_on_channel(host, port, options.get("user"), options.get("password"),
                                         options.get("channel") or ADMIN_CHANNEL,
                                         qm_name=options.get("queueManager", ""))
            opened.append(manager)
            opened.append(manager.__enter__())
        return opened[1]

    def send(command: str) -> tuple[bool, str]:
        try:
            return run_script(session(), command)
        except MQSCRefused as exc:
            opened.clear()
            failure = refused(options.get("queueManager"), f"{host}({port})", exc.reason)
            if failure is not None:
                raise failure from None
            raise MQConnectorError(f"the queue manager at {host}({port}) refused MQSC: MQ reason "
                                   f"{exc.reason} {reason_name(exc.reason)}: check --user, "
                                   "its password (SPARK_MQ_PASSWORD, --password-file or the "
                                   "prompt) and --channel", exc.reason,
                                   reason_name(exc.reason)) from None
        except (OSError, ValueError, EOFError, struct.error) as exc:   # no PCF answer
            raise MQConnectorError(f"no MQSC answer from {host}({port}) ({exc}); MQSC reaches embedded "
                                   "queue managers only: on IBM MQ use runmqsc -c") from None
    try:
        yield send
    finally:
        if len(opened) == 2:
            opened[0].__exit__(None, None, None)


# --- depth -------------------------------------------------------------------------------------

def run_depth(args: argparse.Namespace) -> int:
    rows = _named_depths(args) if args.queues else _all_depths(args)
    width = max([len("QUEUE")] + [len(name) for name, _, _ in rows])
    print(f"{'QUEUE':<{width}}  {'CURDEPTH':>9}  {'MAXDEPTH':>9}")
    for name, current, maximum in rows:
        print(f"{name:<{width}}  {current:>9}  {maximum:>9}")
    return 0


def _named_depths(args: argparse.Namespace) -> list[tuple[str, int, int]]:
    """MQINQ on each queue: works on any queue manager."""
    from spark_mq.mq.queues import open_queue
    rows = []
    with connected(args) as (ibmmq, qmgr):
        CMQC = ibmmq.CMQC
        for name in args.queues:
            queue = open_queue(ibmmq, qmgr, name, CMQC.MQOO_INQUIRE, None, "inquiry")
            try:
                rows.append((name, int(queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)),
                             int(queue.inquire(CMQC.MQIA_MAX_Q_DEPTH))))
            except ibmmq.MQMIError as exc:
                from spark_mq.mq.exceptions import describe
                raise describe(exc, f"inquiring the depth of {name}") from exc
            finally:
                queue.close()
    return rows


def _all_depths(args: argparse.Namespace) -> list[tuple[str, int, int]]:
    """Every local queue, from DISPLAY QLOCAL(*) (embedded queue managers)."""
    with mqsc_sender(args) as send:
        ok, output = send("DISPLAY QLOCAL(*) CURDEPTH MAXDEPTH")
    if not ok:
        raise JobError(f"DISPLAY QLOCAL(*) failed: {output}")
    rows: list[tuple[str, int, int]] = []
    for block in output.split("AMQ8409I")[1:]:
        fields = dict(_DISPLAYED.findall(block))
        if args.system or not fields["QUEUE"].startswith(("SYSTEM.", OWN_REPLY_QUEUES)):
            rows.append((fields["QUEUE"], int(fields["CURDEPTH"]), int(fields["MAXDEPTH"])))
    return rows
