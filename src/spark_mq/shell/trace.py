"""`trace start`, `trace stop` and `trace show`: IBM MQ's strmqtrc, endmqtrc and dspmqtrc for
an embedded queue manager.

`start` and `stop` send the queue manager's own MQSC (START TRACE, STOP TRACE: see
embedded/server/core/trace.py) on the administrative connection `mqsc` uses
(admin_commands.py), so the queue manager checks the user's authority as for `mqsc`: +chg
on the queue manager. The trace goes to trace/AMQ<pid>.TRC under the queue manager's data
directory, which `start` prints.

`show FILE...` formats trace files (JSON lines) as readable lines, one a record, oldest
first: a .TRS (the part a wrap moved aside) is read before its .TRC when both are given.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from typing import Any

from spark_mq.jobs.job_errors import JobError
from spark_mq.shell.admin_commands import mqsc_sender

_MB = 1024 * 1024


def add_trace(commands: Any) -> list[argparse.ArgumentParser]:
    """The `trace` command and its start/stop/show; returns the parsers that connect."""
    trace = commands.add_parser(
        "trace", help="trace a queue manager's MQI calls and channel flows (strmqtrc, "
                      "endmqtrc, dspmqtrc)",
        description="Start or stop the trace of an embedded queue manager, or format its "
                    "trace files.")
    actions = trace.add_subparsers(dest="action", metavar="ACTION", required=True)
    start = actions.add_parser(
        "start", help="start tracing (strmqtrc)",
        description="Start tracing: MQI calls (-t api), channel flows (-t comms) or both "
                    "(-t all, the default), of one channel or one queue, or all.")
    start.add_argument("-m", dest="queue_manager", default=argparse.SUPPRESS,
                       help="the queue manager's name (as --queue-manager)")
    start.add_argument("-t", dest="type", choices=("api", "comms", "all"), default="all",
                       help="what to trace (default: all)")
    start.add_argument("--trace-channel", dest="trace_channel", metavar="NAME",
                       help="only this channel: calls on this SVRCONN, flows of this message "
                            "channel (--channel is the one the tool connects through)")
    start.add_argument("--queue", metavar="NAME", help="only the calls on this queue")
    start.add_argument("-l", dest="limit", type=int, metavar="MB", default=100,
                       help="wrap the trace file at this many MB (the older part is kept as "
                            ".TRS; default 100)")
    start.add_argument("-d", dest="data", type=int, metavar="BYTES", default=0,
                       help="message data to trace: 0 none (default), -1 all, or a number of "
                            "bytes")
    start.set_defaults(run=run_start)
    stop = actions.add_parser("stop", help="stop tracing (endmqtrc)",
                              description="Stop the trace of an embedded queue manager.")
    stop.add_argument("-m", dest="queue_manager", default=argparse.SUPPRESS,
                      help="the queue manager's name (as --queue-manager)")
    stop.set_defaults(run=run_stop)
    show = actions.add_parser("show", help="format trace files (dspmqtrc)",
                              description="Print the records of trace files as readable lines.")
    show.add_argument("files", nargs="+", metavar="FILE", help="AMQ<pid>.TRC or .TRS files")
    show.set_defaults(run=run_show)
    return [start, stop]


def run_start(args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise JobError(f"-l: {args.limit} MB is not valid (valid: 1 or more)")
    if args.data < -1:
        raise JobError(f"-d: {args.data} is not valid (valid: 0 none, -1 all, or a number of bytes)")
    command = f"START TRACE TYPE({args.type.upper()}) LIMIT({args.limit * _MB}) DATA({args.data})"
    for keyword, value in (("CHANNEL", args.trace_channel), ("QUEUE", args.queue)):
        if value:
            command += f" {keyword}('{value}')"
    return _send(args, command)


def run_stop(args: argparse.Namespace) -> int:
    return _send(args, "STOP TRACE")


def _send(args: argparse.Namespace, command: str) -> int:
    with mqsc_sender(args) as send:
        ok, output = send(command)
    print(" ".join(output.split()), file=sys.stdout if ok else sys.stderr)
    return 0 if ok else 1


def run_show(args: argparse.Namespace) -> int:
    for line in format_records(_records(_oldest_first(args.files))):
        print(line)
    return 0


def _oldest_first(files: list[str]) -> list[str]:
    return sorted(files, key=lambda path: (path[:-4], not path.upper().endswith(".TRS")))


def _records(files: list[str]) -> Iterator[dict[str, Any]]:
    for path in files:
        try:
            with open(path, encoding="utf-8") as lines:
                for number, line in enumerate(lines, start=1):
                    try:
                        yield json.loads(line)
                    except ValueError:
                        raise JobError(f"{path} line {number} is not a trace record (valid: "
                                       "the JSON lines of trace/AMQ<pid>.TRC)") from None
        except OSError as exc:
            raise JobError(f"cannot read trace file {path}: {exc.strerror}") from None


def format_records(records: Iterator[dict[str, Any]]) -> Iterator[str]:
    for record in records:
        yield format_record(record)


def format_record(record: dict[str, Any]) -> str:
    """One record as dspmqtrc would show it: time, process.thread, then the call or flow."""
    stamp = float(record.get("time", 0))
    when = time.strftime("%H:%M:%S", time.gmtime(stamp)) + f".{int(stamp % 1 * 1e6):06d}"
    thread = str(record.get("thread", "?")).replace(" ", "_")   # one word: columns stay columns
    head = f"{when} {record.get('pid', '?')}.{thread}"
    if record.get("type") == "COMMS":
        seq = f" seq {record['seq']}" if "seq" in record else ""
        body = (f"COMMS {record.get('channel', '')} {record.get('dir', '')} "
                f"{record.get('segment', '')} {record.get('size', 0)} bytes{seq}")
    else:
        options = record.get("options")
        body = (f"API conn {record.get('conn', 0)} user {record.get('user', '')} "
                f"{record.get('verb', '')} {record.get('object', '') or '-'}"
                f"{'' if options is None else f' options {options}'}"
                f" CC {record.get('cc', '?')} {record.get('rc', '')}")
    data = f" data {record['data']}" if "data" in record else ""
    return f"{head} {body}{data}"
