"""`trigger-monitor`: IBM's runmqtrm for the shell. It holds an initiation queue open for
input (which is what lets the queue manager write trigger messages there at all), gets each
trigger message (MQTM) and runs the process it names, the way runmqtrm does on Linux:

    <APPLICID> '<MQTMC2: 732 characters>' <ENVRDATA>

through the shell (/bin/sh -c), so APPLICID may hold arguments and ENVRDATA may end in '&'
to leave the program running in the background; otherwise the monitor waits for it, as
runmqtrm does. The MQTMC2 is the MQTM as characters with the queue manager's name after it,
one argument. A trigger message whose program cannot be started (blank APPLICID, no such
program, not executable) goes to the dead-letter queue behind an MQDLH with Reason and
MQMD Feedback 265 MQFB_APPL_CANNOT_BE_STARTED; an APPLTYPE this monitor does not run (it
runs UNIX, IBM's DEF on Linux) with 267 MQFB_APPL_TYPE_ERROR; a message that is no MQTM
with 2265 MQRC_TM_ERROR. Ctrl-C, kill -INT or kill (SIGTERM) end the monitor (and a
program it waits for) quietly, with exit status 130 after Ctrl-C or kill -INT, 0 after
SIGTERM; so does the queue manager ending (0).

What it is for here: a message arriving on an idle queue starts a packaged Spark job
(`spark-submit jobs/queue_to_files.py ... --trigger available-now`), so Spark runs only
when there is work (docs/embedded/triggering.md).
"""
from __future__ import annotations

import argparse
import os
import shlex
import shutil
import signal
import subprocess
import sys
from typing import Any

from spark_mq.mqi.constants import CMQC as _CMQC
from spark_mq.mqi.constants import reason_name
from spark_mq.mqi.structs import DLH, TM, TMC2, text

#: runmqtrm's default initiation queue
DEFAULT_INITQ = "SYSTEM.DEFAULT.INITIATION.QUEUE"
#: how long one MQGET waits before it is asked again: only so that Ctrl-C is not held up
_WAIT_MS = 2000
#: the application types this monitor starts: MQAT_UNIX (IBM's DEF on Linux)
_UNIX = _CMQC.MQAT_UNIX
#: the feedback codes a trigger monitor reports, by name (reason_name knows MQRC_* only)
_FEEDBACK_NAMES = {_CMQC.MQFB_APPL_CANNOT_BE_STARTED: "MQFB_APPL_CANNOT_BE_STARTED",
                   _CMQC.MQFB_APPL_TYPE_ERROR: "MQFB_APPL_TYPE_ERROR"}


def add_trigger_monitor(commands: Any) -> argparse.ArgumentParser:
    monitor = commands.add_parser(
        "trigger-monitor", help="start the programs trigger messages ask for (runmqtrm)",
        description="Get trigger messages from an initiation queue and run each one's process "
                    "(APPLICID 'MQTMC2' ENVRDATA, waiting for it), as IBM's runmqtrm does. "
                    "Ctrl-C ends it.")
    monitor.add_argument("--initq", default=DEFAULT_INITQ, metavar="QUEUE",
                         help=f"the initiation queue (default: {DEFAULT_INITQ})")
    monitor.set_defaults(run=run_trigger_monitor)
    return monitor


def run_trigger_monitor(args: argparse.Namespace) -> int:
    from spark_mq.mq.exceptions import describe
    from spark_mq.shell.client_connection import connect
    ibmmq, qmgr = connect(args)
    CMQC = ibmmq.CMQC
    queue = None
    started = 0
    stopped_by: list[int] = []
    previous = _stop_on_signals(stopped_by)
    try:
        queue = _open(ibmmq, qmgr, args.initq)
        qmgr_name = qmgr.inquire(CMQC.MQCA_Q_MGR_NAME)
        print(f"trigger monitor: waiting for trigger messages on {args.initq} "
              f"(queue manager {text(qmgr_name)}); Ctrl-C ends it", file=sys.stderr)
        while True:
            got = _next(ibmmq, queue)
            if got is None:
                continue
            md, data = got
            ended = _start(ibmmq, qmgr, md, data, qmgr_name, args.initq)
            if ended is not None:
                started += 1    # counted before it is told: a Ctrl-C then finds it counted
                print(f"trigger monitor: the program ended with exit status {ended}",
                      file=sys.stderr)
    except KeyboardInterrupt:
        pass
    except ibmmq.MQMIError as exc:
        if exc.reason not in (CMQC.MQRC_Q_MGR_QUIESCING, CMQC.MQRC_Q_MGR_STOPPING):
            raise describe(exc, f"trigger monitor on {args.initq}") from exc
        print(f"trigger monitor: the queue manager is ending (MQ reason {exc.reason})",
              file=sys.stderr)
    finally:
        _close(ibmmq, qmgr, queue)
        for number, handler in previous.items():
            signal.signal(number, handler)
    print(f"trigger monitor on {args.initq} ended; {started} program(s) started", file=sys.stderr)
    return 130 if signal.SIGINT in stopped_by else 0


def _stop_on_signals(stopped_by: list[int]) -> dict[int, Any]:
    """Ctrl-C, kill -INT and kill (SIGTERM) all end the monitor the same quiet way, also when
    it was started with `&` from a script (whose background commands ignore SIGINT unless
    told otherwise); the signal goes into `stopped_by` (Ctrl-C: exit status 130, as every
    shell tool). Returns the handlers it replaced."""
    def stop(number: int, frame: Any) -> None:
        stopped_by.append(number)
        raise KeyboardInterrupt
    return {number: signal.signal(number, stop) for number in (signal.SIGINT, signal.SIGTERM)}


def _open(ibmmq: Any, qmgr: Any, name: str) -> Any:
    from spark_mq.mq.queues import open_queue
    CMQC = ibmmq.CMQC
    return open_queue(ibmmq, qmgr, name, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_FAIL_IF_QUIESCING,
                      None, "input (the trigger monitor's initiation queue, --initq)")


def _next(ibmmq: Any, queue: Any) -> tuple[Any, bytes] | None:
    """The next trigger message, outside syncpoint as runmqtrm gets it; None after a wait
    with none."""
    CMQC = ibmmq.CMQC
    md = ibmmq.MD()
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING,
                    WaitInterval=_WAIT_MS)
    try:
        return md, queue.get(None, md, gmo)   # whole: a message that is no MQTM goes on whole
    except ibmmq.MQMIError as exc:
        if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
            return None
        raise


def tmc2(tm: list[Any], qmgr_name: bytes) -> bytes:
    """The MQTMC2 for a trigger message's MQTM: its fields as characters, ApplType as four
    blanks (as IBM's trigger monitor samples pass it), the queue manager's name last."""
    i = TM.index
    return TMC2.pack([b"TMC ", b"   2", tm[i["QName"]], tm[i["ProcessName"]],
                      tm[i["TriggerData"]], b"    ", tm[i["ApplId"]], tm[i["EnvData"]],
                      tm[i["UserData"]], qmgr_name[:48].ljust(48)])


def command_line(tm: list[Any], qmgr_name: bytes) -> str:
    """APPLICID '<MQTMC2>' ENVRDATA, as runmqtrm hands it to the shell."""
    i = TM.index
    argument = os.fsdecode(tmc2(tm, qmgr_name).replace(b"\0", b" "))
    applid = os.fsdecode(tm[i["ApplId"]].replace(b"\0", b" ")).rstrip()
    envdata = os.fsdecode(tm[i["EnvData"]].replace(b"\0", b" ")).rstrip()
    return f"{applid} {shlex.quote(argument)} {envdata}".rstrip()


def startable(applid: str) -> bool:
    """Whether APPLICID's program exists and may be run (checked before the shell runs it,
    so that a missing program is told from a program that failed)."""
    try:
        words = shlex.split(applid)
    except ValueError:
        return False
    if not words:
        return False
    program = words[0]
    if "/" in program:
        return os.path.isfile(program) and os.access(program, os.X_OK)
    return shutil.which(program) is not None


def _start(ibmmq: Any, qmgr: Any, md: Any, data: bytes, qmgr_name: bytes,
           initq: str) -> int | None:
    """Run one trigger message's program and wait for it: its exit status, None when it
    could not be started."""
    CMQC = ibmmq.CMQC
    if md.Format != CMQC.MQFMT_TRIGGER or len(data) != TM.size or data[:4] != b"TM  ":
        _dead_letter(ibmmq, qmgr, md, data, CMQC.MQRC_TM_ERROR, initq,
                     f"not a trigger message (Format {md.Format!r}, {len(data)} bytes)")
        return None
    tm = TM.unpack(data)
    i = TM.index
    queue, process = text(tm[i["QName"]]), text(tm[i["ProcessName"]])
    applid = os.fsdecode(tm[i["ApplId"]].replace(b"\0", b" ")).strip()
    if tm[i["ApplType"]] != _UNIX:
        _dead_letter(ibmmq, qmgr, md, data, CMQC.MQFB_APPL_TYPE_ERROR, initq,
                     f"process {process} has APPLTYPE {tm[i['ApplType']]}; this monitor runs "
                     f"UNIX ({_UNIX}, IBM's DEF on Linux)")
        return None
    if not startable(applid):
        _dead_letter(ibmmq, qmgr, md, data, CMQC.MQFB_APPL_CANNOT_BE_STARTED, initq,
                     f"process {process}: APPLICID {applid!r} cannot be started (no such "
                     "executable program)")
        return None
    command = command_line(tm, qmgr_name)
    print(f"trigger monitor: queue {queue} triggered process {process}: running {applid}",
          file=sys.stderr)
    try:
        done = subprocess.run(["/bin/sh", "-c", command], check=False)
    except OSError as exc:
        _dead_letter(ibmmq, qmgr, md, data, CMQC.MQFB_APPL_CANNOT_BE_STARTED, initq,
                     f"process {process}: {exc.strerror}")
        return None
    return done.returncode


def _dead_letter(ibmmq: Any, qmgr: Any, md: Any, data: bytes, reason: int, initq: str,
                 why: str) -> None:
    """The trigger message to the queue manager's dead-letter queue behind an MQDLH, with
    `reason` in the MQDLH's Reason and the MQMD's Feedback, as runmqtrm does."""
    CMQC = ibmmq.CMQC
    name = _FEEDBACK_NAMES.get(reason) or reason_name(reason)
    print(f"trigger monitor: {why}; the trigger message goes to the dead-letter queue with "
          f"reason {reason} {name}", file=sys.stderr)
    dlq = text(qmgr.inquire(CMQC.MQCA_DEAD_LETTER_Q_NAME))
    if not dlq:
        print("trigger monitor: the queue manager has no dead-letter queue (DEADQ); the "
              "trigger message is discarded", file=sys.stderr)
        return
    header = DLH.pack([
        b"DLH ", CMQC.MQDLH_VERSION_1, reason, initq.encode()[:48].ljust(48),
        qmgr.inquire(CMQC.MQCA_Q_MGR_NAME)[:48].ljust(48), md.Encoding, md.CodedCharSetId,
        md.Format, md.PutApplType, md.PutApplName, md.PutDate, md.PutTime])
    dead = ibmmq.MD(Format=CMQC.MQFMT_DEAD_LETTER_HEADER, Feedback=reason, MsgType=md.MsgType,
                    Persistence=md.Persistence, Priority=md.Priority,
                    CodedCharSetId=md.CodedCharSetId, Encoding=md.Encoding)
    try:
        qmgr.put1(dlq, header + data, dead, ibmmq.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
    except ibmmq.MQMIError as exc:
        print(f"trigger monitor: cannot put on dead-letter queue {dlq}: MQ reason "
              f"{exc.reason} {reason_name(exc.reason)}; the trigger message is discarded",
              file=sys.stderr)


def _close(ibmmq: Any, qmgr: Any, queue: Any) -> None:
    from spark_mq.mq.connecting import disconnect_quietly, quietly
    if queue is not None:
        quietly(ibmmq, "closing the initiation queue", queue.close)
    disconnect_quietly(ibmmq, qmgr)
