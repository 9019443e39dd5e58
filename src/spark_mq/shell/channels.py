"""`channels` (the message channels of an embedded queue manager with their status, and its
transmission queues with their depths) and `move-xmitq` (move a stuck transmission queue's
messages to another one and point its sender channels there).

Both speak the queue manager's own MQSC (DISPLAY CHANNEL, DISPLAY CHSTATUS, DISPLAY QLOCAL,
ALTER CHANNEL, MOVE QLOCAL) on the administrative connection `mqsc` uses (admin_commands.py), so the
queue manager checks the user's authority for each command as it does for `mqsc`.

`channels` shows, for each sender (SDR), server (SVR), receiver (RCVR) and requester (RQSTR)
channel, DISPLAY CHSTATUS's STATUS (INACTIVE when the channel has no status), its partner
(RQMNAME and CONNAME), MSGS, XMITQ and XQMSGSA (the messages waiting on its transmission
queue: the status's, else the queue's CURDEPTH), then every transmission queue
(USAGE(XMITQ)) with CURDEPTH, MAXDEPTH, QDEPTHHI and the channels serving it. A
transmission queue at or above its QDEPTHHI (the depth of a Queue Depth High event) is
marked with `!`: its channel is not keeping up.

`move-xmitq OLD NEW`, IBM's "switching the transmission queue" for a sender channel whose
queue is stuck: the sender channels whose XMITQ is OLD must be STOPPED or INACTIVE (the
channel holds its queue open while it runs); each gets ALTER CHANNEL XMITQ(NEW) first, so
that a channel started from now on serves NEW, then MOVE QLOCAL(OLD) TOQLOCAL(NEW)
TYPE(ADD) moves OLD's messages in units of work (server/admin/move_queue.py: after any failure a
message is on exactly one of the two queues; the command run again moves the rest). The
sender's in-doubt batch, if any, moves with its MsgIds, so the channel resolves it on NEW
when it starts. Messages that reach OLD afterwards through a remote queue definition
(XMITQ(OLD)) or its name stay there: point those definitions at NEW too, before the move.
An application that holds such a definition open then follows the switch with its next put
(and does not keep OLD open), so it need not reconnect.
"""
from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from spark_mq.jobs.job_errors import JobError
from spark_mq.shell.admin_commands import mqsc_sender

Send = Callable[[str], tuple[bool, str]]
#: a channel whose agent runs (holding its transmission queue open), in DISPLAY CHSTATUS's words
_ACTIVE = frozenset({"STARTING", "BINDING", "INITIALIZING", "RUNNING", "STOPPING", "RETRYING",
                     "PAUSED", "REQUESTING", "SWITCHING"})
_QUEUE_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")
_KEYWORD = re.compile(r"([A-Z][A-Z0-9]*)\(")
_MQ_REASON = re.compile(r"MQ reason (\d+) (MQRC_\w+)")
HIGH_MARK = "!"


# --- arguments ----------------------------------------------------------------------------------

def add_channels(commands: Any) -> argparse.ArgumentParser:
    channels = commands.add_parser(
        "channels", help="show message channels (status, partner, messages) and transmission "
                         "queues (depths, marked at or above QDEPTHHI)",
        description="Show every sender and receiver channel of an embedded queue manager with "
                    "its status (DISPLAY CHSTATUS), partner, MSGS and XQMSGSA, then its "
                    f"transmission queues; '{HIGH_MARK}' marks one at or above its QDEPTHHI.")
    channels.set_defaults(run=run_channels)
    return channels


def add_move_xmitq(commands: Any) -> argparse.ArgumentParser:
    move = commands.add_parser(
        "move-xmitq", help="move a stuck transmission queue's messages to another and point "
                           "its sender channels there",
        description="Point the sender channels whose XMITQ is OLD at NEW (ALTER CHANNEL; they "
                    "must be stopped or inactive), then move every committed message of OLD to "
                    "NEW in units of work (MOVE QLOCAL TYPE(ADD)): after any failure a message "
                    "is on exactly one of the two; run it again to move the rest. Start the "
                    "channels afterwards.")
    move.add_argument("old", metavar="OLD", help="the stuck transmission queue")
    move.add_argument("new", metavar="NEW", help="the transmission queue to serve instead "
                                                 "(a local queue with USAGE(XMITQ))")
    move.set_defaults(run=run_move_xmitq)
    return move


# --- reading DISPLAY's output -------------------------------------------------------------------

def blocks(output: str) -> list[dict[str, str]]:
    """The objects a DISPLAY shows: one dict per AMQ message block, KEYWORD -> value (values
    may hold parentheses, as CONNAME(host(port)) does)."""
    found: list[dict[str, str]] = []
    for line in output.splitlines():
        if re.match(r"AMQ\d{4}I: Display", line):
            found.append({})
        elif found:
            found[-1].update(_values(line))
    return found


def _values(line: str) -> dict[str, str]:
    values: dict[str, str] = {}
    position = 0
    while (match := _KEYWORD.search(line, position)) is not None:
        depth, index = 1, match.end()
        while index < len(line) and depth:
            depth += {"(": 1, ")": -1}.get(line[index], 0)
            index += 1
        values[match.group(1)] = line[match.end():index - 1].strip()
        position = index
    return values


def display(send: Send, command: str, none_means: str = "") -> list[dict[str, str]]:
    """The blocks of a DISPLAY; `none_means`: the AMQ message that says "nothing", which is
    then no failure."""
    ok, output = send(command)
    if not ok:
        if none_means and none_means in output:
            return []
        raise JobError(f"{command} failed: {' '.join(output.split())}")
    return blocks(output)


# --- channels ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class TransmissionQueue:
    name: str
    depth: int
    maximum: int
    high_percent: int

    @property
    def high(self) -> bool:
        """At or above QDEPTHHI: where a Queue Depth High event fires."""
        return self.depth * 100 >= self.high_percent * self.maximum


#: the message channels `channels` lists, and those of them that serve a transmission queue
_MESSAGE_CHANNELS = ("SDR", "RCVR", "SVR", "RQSTR")
_SENDING = ("SDR", "SVR")


def run_channels(args: argparse.Namespace) -> int:
    with mqsc_sender(args) as send:
        defined = [b for b in display(send, "DISPLAY CHANNEL(*) CHLTYPE CONNAME XMITQ",
                                      none_means="AMQ8147E")
                   if b.get("CHLTYPE") in _MESSAGE_CHANNELS]
        statuses = {(b["CHANNEL"], b.get("CHLTYPE", "")): b for b in display(
            send, "DISPLAY CHSTATUS(*) ALL", none_means="AMQ8420I")}
        xmitqs = {b["QUEUE"]: TransmissionQueue(b["QUEUE"], int(b["CURDEPTH"]), int(b["MAXDEPTH"]),
                                                int(b["QDEPTHHI"]))
                  for b in display(send, "DISPLAY QLOCAL(*) USAGE CURDEPTH MAXDEPTH QDEPTHHI")
                  if b.get("USAGE") == "XMITQ"}
    rows = [_channel_row(b, statuses.get((b["CHANNEL"], b["CHLTYPE"])), xmitqs) for b in defined]
    _table(["CHANNEL", "TYPE", "STATUS", "PARTNER", "MSGS", "XMITQ", "XQMSGSA"], rows,
           right=("MSGS", "XQMSGSA"))
    print()
    served: dict[str, list[str]] = {}
    for b in defined:
        if b["CHLTYPE"] in _SENDING and b.get("XMITQ"):
            served.setdefault(b["XMITQ"], []).append(b["CHANNEL"])
    _table(["TRANSMISSION QUEUE", "CURDEPTH", "MAXDEPTH", "QDEPTHHI", "SERVED BY"],
           [[q.name, f"{q.depth}{HIGH_MARK if q.high else ''}", str(q.maximum),
             f"{q.high_percent}%", ",".join(served.get(q.name, [])) or "-"]
            for q in sorted(xmitqs.values(), key=lambda q: q.name)],
           right=("CURDEPTH", "MAXDEPTH", "QDEPTHHI"))
    if any(q.high for q in xmitqs.values()):
        print(f"\n{HIGH_MARK} at or above QDEPTHHI (the limit of a Queue Depth High event): "
              "its channel is not keeping up, or not running (spark-mq-qmgr move-xmitq moves "
              "the messages of a stuck one)")
    return 0


def _channel_row(definition: dict[str, str], status: dict[str, str] | None,
                 xmitqs: dict[str, TransmissionQueue]) -> list[str]:
    status = status or {}
    sender = definition["CHLTYPE"] in _SENDING
    conname = status.get("CONNAME") or definition.get("CONNAME", "")
    partner = " at ".join(part for part in (status.get("RQMNAME", ""), conname) if part) or "-"
    xmitq = (status.get("XMITQ") or definition.get("XMITQ", "")) if sender else ""
    waiting = "-"
    if sender:
        queue = xmitqs.get(xmitq)
        count = status.get("XQMSGSA") or (str(queue.depth) if queue else "")
        waiting = (count or "-") + (HIGH_MARK if queue is not None and queue.high else "")
    return [definition["CHANNEL"], definition["CHLTYPE"], status.get("STATUS", "INACTIVE"),
            partner, status.get("MSGS", "0"), xmitq or "-", waiting]


def _table(header: list[str], rows: list[list[str]], right: tuple[str, ...] = ()) -> None:
    widths = [max([len(title)] + [len(row[i]) for row in rows]) for i, title in enumerate(header)]

    def line(cells: list[str]) -> str:
        return "  ".join(cell.rjust(width) if title in right else cell.ljust(width)
                         for cell, width, title in zip(cells, widths, header)).rstrip()
    print(line(header))
    for row in rows:
        print(line(row))


# --- move-xmitq ---------------------------------------------------------------------------------

def run_move_xmitq(args: argparse.Namespace) -> int:
    old, new = args.old, args.new
    for option, name in (("OLD", old), ("NEW", new)):
        if not _QUEUE_NAME.fullmatch(name):
            raise JobError(f"{option}: '{name}' is not a queue name (valid: 1 to 48 of A-Z a-z "
                           "0-9 . / _ %, no wildcards)")
    if old == new:
        raise JobError(f"NEW: '{new}' is OLD itself (valid: another transmission queue)")
    with mqsc_sender(args) as send:
        for option, name in (("OLD", old), ("NEW", new)):
            _check_xmitq(send, option, name)
        senders = [b["CHANNEL"] for b in display(send, "DISPLAY CHANNEL(*) CHLTYPE(SDR) XMITQ",
                                                 none_means="AMQ8147E")
                   if b.get("XMITQ") == old]
        for channel in senders:
            _check_stopped(send, channel, old)
        for channel in senders:
            _must(send, f"ALTER CHANNEL({channel}) CHLTYPE(SDR) XMITQ({new})")
            print(f"sender channel {channel} now serves {new} (was {old})")
        ok, output = send(f"MOVE QLOCAL({old}) TOQLOCAL({new}) TYPE(ADD)")
        if not ok:
            raise _move_failed(output, senders, new)
        print(" ".join(output.split()))
    for channel in senders:
        print(f"start it with: spark-mq-qmgr mqsc 'START CHANNEL({channel})'")
    if not senders:
        print(f"no sender channel served {old}: point one at {new} (ALTER CHANNEL ... XMITQ({new}))")
    return 0


def _check_xmitq(send: Send, option: str, name: str) -> None:
    found = display(send, f"DISPLAY QUEUE({name}) TYPE USAGE", none_means="AMQ8147E")
    if not found:
        raise JobError(f"{option}: queue {name} is not defined (valid: a local queue with "
                       "USAGE(XMITQ))")
    kind, usage = found[0].get("TYPE"), found[0].get("USAGE")
    if kind != "QLOCAL" or usage != "XMITQ":
        raise JobError(f"{option}: {name} is a {kind}" + (f" with USAGE({usage})" if usage else "")
                       + " (valid: a local queue with USAGE(XMITQ))")


def _check_stopped(send: Send, channel: str, old: str) -> None:
    found = display(send, f"DISPLAY CHSTATUS({channel}) STATUS", none_means="AMQ8420I")
    status = found[0].get("STATUS", "INACTIVE") if found else "INACTIVE"
    if status in _ACTIVE:
        raise JobError(f"sender channel {channel} serves {old} and is {status}: stop it first "
                       f"(spark-mq-qmgr mqsc 'STOP CHANNEL({channel})'; valid: a channel "
                       "STOPPED or INACTIVE)")


def _must(send: Send, command: str) -> str:
    ok, output = send(command)
    if not ok:
        raise JobError(f"{command} failed: {' '.join(output.split())}")
    return output


def _move_failed(output: str, senders: list[str], new: str) -> Exception:
    """Why MOVE QLOCAL failed, as one line: with its MQ reason when it stopped on one."""
    from spark_mq.mq.exceptions import MQConnectorError
    text = " ".join(output.split())
    if senders:
        text += f" (the sender channels {', '.join(senders)} already serve {new}: run " \
                "move-xmitq again to move the rest)"
    reason = _MQ_REASON.search(output)
    if reason is None:
        return JobError(text)
    return MQConnectorError(text, int(reason.group(1)), reason.group(2))
