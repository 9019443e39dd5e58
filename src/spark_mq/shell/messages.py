"""`put`, `get` and `browse`: IBM's amqsput, amqsget and amqsbcg for the shell, through the
connector's MQ layer (so segments come out whole and reference/data pairs as one message).

`put` writes text in the code page --ccsid names (UTF-8, 1208, by default), through the
connector's table of code pages (spark_mq.mqi.codepages), and sets the MQMD's CodedCharSetId,
Encoding and Format to match, so that the shell can play a mainframe sender
(`put --ccsid 500 Q text`); --file bytes go as they are, labelled with --ccsid when given.
`put` commits every COMMIT_EVERY messages (each line at once when typing at a terminal) and
says how many were committed if it fails; `get` prints each batch before committing it, so a
message printed nowhere (a closed pipe, Ctrl-C) stays on the queue.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from typing import Any

from spark_mq.jobs.job_errors import JobError
from spark_mq.mq.message import Message
from spark_mq.mq.properties import SPARK_TO_MQTYPE, set_property
from spark_mq.shell import show
from spark_mq.shell.client_connection import connect, connected

_UTF8 = 1208
#: MQMD Encoding values by the name a person knows them by
_ENCODINGS = {"native": 546, "s390": 785}
COMMIT_EVERY = 1000
GET_BATCH = 100
#: the longest one MQGET of `get --wait` waits, in seconds (_next_batch)
WAIT_SLICE = 1.0
_ALL = 1 << 62


# --- arguments ----------------------------------------------------------------------------------

def add_put(commands: Any) -> argparse.ArgumentParser:
    put = commands.add_parser(
        "put", help="put messages on a queue (amqsput)",
        description="Put messages on a queue: the MESSAGE arguments, or --file, or else each line "
                    "of standard input (an empty line is an empty message).")
    put.add_argument("queue", help="queue name")
    put.add_argument("messages", nargs="*", metavar="MESSAGE",
                     help="message text (encoded in --ccsid)")
    put.add_argument("--file", help="put this file's bytes as one message ('-': standard input)")
    put.add_argument("--property", action="append", default=[], metavar="NAME[:TYPE]=VALUE",
                     help=f"a message property (repeatable); TYPE: {', '.join(SPARK_TO_MQTYPE)} "
                          "(default string; binary in hex)")
    persistence = put.add_mutually_exclusive_group()
    persistence.add_argument("--persistent", dest="persistence", action="store_const", const=1,
                             help="persistent messages (default: the queue's DEFPSIST)")
    persistence.add_argument("--non-persistent", dest="persistence", action="store_const", const=0)
    put.add_argument("--priority", type=int, help="0-9 (default: the queue's DEFPRTY)")
    put.add_argument("--correl-id", help="CorrelId: text (up to 24 bytes) or 0x followed by hex")
    put.add_argument("--reply-to", help="ReplyToQ")
    put.add_argument("--format", help="MQMD Format, e.g. MQSTR or NONE (default: MQSTR for text, "
                                      "blank for --file)")
    put.add_argument("--ccsid", type=int, metavar="CCSID",
                     help="code page of the text and MQMD CodedCharSetId, e.g. 500 or 37 (EBCDIC), "
                          "819, 1208 (default: 1208, UTF-8); with --file, only the MQMD field")
    put.add_argument("--encoding", type=_encoding, metavar="ENCODING",
                     help="MQMD Encoding: a number, or native (546, the default) or s390 (785, a "
                          "mainframe's); it orders the bytes of UTF-16 text")
    put.set_defaults(run=run_put)
    return put


def _add_output(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("queue", help="queue name")
    parser.add_argument("-n", "--count", type=int, help="at most this many messages (default: all)")
    parser.add_argument("--selector", help="an MQ message selector, e.g. \"region = 'EU'\"")
    style = parser.add_mutually_exclusive_group()
    style.add_argument("--json", action="store_true", help="one JSON object per message")
    style.add_argument("--payload-only", action="store_true", help="only the payloads, one per line")


def add_get(commands: Any) -> argparse.ArgumentParser:
    get = commands.add_parser("get", help="get (remove) messages from a queue (amqsget)",
                              description="Get messages from a queue and print them; each batch is "
                                          "committed after it was printed.")
    _add_output(get)
    get.add_argument("--wait", type=float, default=0.0, metavar="SECONDS",
                     help="wait this long for each next message (default: 0, stop when the queue is empty)")
    get.set_defaults(run=run_get)
    return get


def add_browse(commands: Any) -> argparse.ArgumentParser:
    browse = commands.add_parser("browse", help="show messages without removing them (amqsbcg)",
                                 description="Print the messages on a queue, MQMD and properties "
                                             "included, leaving them on the queue.")
    _add_output(browse)
    browse.set_defaults(run=run_browse)
    return browse


# --- put ---------------------------------------------------------------------------------------

def run_put(args: argparse.Namespace) -> int:
    _check_ccsid(args)
    payloads, typing = _payloads(args)
    properties = [parse_property(text) for text in args.property]
    committed = count = 0
    with connected(args) as (ibmmq, qmgr):
        CMQC = ibmmq.CMQC
        try:
            queue = _open(ibmmq, qmgr, args.queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_FAIL_IF_QUIESCING,
                          "output")
            handle = ibmmq.MessageHandle(qmgr) if properties else None
            for name, value, spark_type in properties:
                set_property(handle, name, value, spark_type)
            commit_every = 1 if typing else COMMIT_EVERY
            try:
                for payload in payloads:
                    queue.put(payload, _md(ibmmq, args, text=not args.file), _pmo(ibmmq, handle))
                    count += 1
                    if count % commit_every == 0:
                        qmgr.commit()
                        committed = count
                qmgr.commit()
                committed = count
            finally:
                queue.close()
        except ibmmq.MQMIError as exc:
            _backout(ibmmq, qmgr)
            from spark_mq.mq.exceptions import describe
            done = f" ({committed} message(s) before it were committed)" if committed else ""
            raise describe(exc, f"putting message {count + 1} on {args.queue}{done}") from exc
        except BaseException:
            _backout(ibmmq, qmgr)  # a line it cannot encode, Ctrl-C: MQDISC would commit the rest
            raise
    print(f"put {count} message(s) on {args.queue}", file=sys.stderr)
    return 0


def _payloads(args: argparse.Namespace) -> tuple[Iterator[bytes], bool]:
    """The payloads to put, and whether a person is typing them."""
    if args.messages and args.file:
        raise JobError("give MESSAGE arguments or --file, not both")
    if args.messages:
        return iter([_encoded(text, args) for text in args.messages]), False
    if args.file:
        if args.file == "-":
            return iter([sys.stdin.buffer.read()]), False
        try:
            with open(args.file, "rb") as handle:
                return iter([handle.read()]), False
        except OSError as exc:
            raise JobError(f"--file: cannot read {args.file}: {exc.strerror}") from None
    typing = sys.stdin.isatty()
    if typing:
        print(f"type messages for {args.queue}, one a line; Ctrl-D ends", file=sys.stderr)
    lines = (line.rstrip(b"\r\n") for line in sys.stdin.buffer)
    if args.ccsid in (None, _UTF8):
        return lines, typing
    return (_encoded(line.decode("utf-8"), args) for line in lines), typing


def _encoding(text: str) -> int:
    value = _ENCODINGS.get(text.strip().lower())
    if value is None:
        try:
            value = int(text, 0)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not an MQ encoding: give a number, or one of "
                f"{', '.join(f'{name} ({number})' for name, number in _ENCODINGS.items())}") from None
    return value


def _check_ccsid(args: argparse.Namespace) -> None:
    """An unknown CCSID is refused before anything is put."""
    from spark_mq.mqi import codepages
    if args.ccsid is None or args.file:
        return
    if codepages.code_page(args.ccsid, _md_encoding(args)) is None:
        known = codepages.known_ccsids()
        ebcdic = [str(ccsid) for ccsid in known if codepages.is_ebcdic(ccsid)]
        raise JobError(f"--ccsid {args.ccsid}: no code page of that CCSID here; valid: "
                       f"{', '.join(str(ccsid) for ccsid in known)} (EBCDIC: {', '.join(ebcdic)})")


def _encoded(text: str, args: argparse.Namespace) -> bytes:
    """`text` in --ccsid: a character the code page lacks is an error, never a '?'."""
    from spark_mq.mqi import codepages
    ccsid = _UTF8 if args.ccsid is None else args.ccsid
    if ccsid == _UTF8:
        return text.encode("utf-8")
    try:
        return codepages.encode_text(text, ccsid, _md_encoding(args))
    except codepages.ConversionError as exc:
        raise JobError(f"--ccsid {ccsid}: {exc}; choose a code page that has it (1208, UTF-8, "
                       "has every character)") from None


def _md_encoding(args: argparse.Namespace) -> int:
    return _ENCODINGS["native"] if args.encoding is None else int(args.encoding)


def parse_property(text: str) -> tuple[str, Any, str]:
    """NAME[:TYPE]=VALUE -> (name, value, Spark type name) for spark_mq.mq.properties."""
    key, sep, raw = text.partition("=")
    name, _, spark_type = key.partition(":")
    spark_type = spark_type.strip().lower() or "string"
    if not sep or not name.strip():
        raise JobError(f"--property: expected NAME[:TYPE]=VALUE, got {text!r}")
    if spark_type not in SPARK_TO_MQTYPE:
        raise JobError(f"--property {name}: unknown type {spark_type!r}; valid: {', '.join(SPARK_TO_MQTYPE)}")
    try:
        return name.strip(), _typed(raw, spark_type), spark_type
    except ValueError:
        raise JobError(f"--property {name}: {raw!r} is not a valid {spark_type}") from None


def _typed(raw: str, spark_type: str) -> Any:
    if spark_type in ("byte", "short", "integer", "long"):
        return int(raw)
    if spark_type in ("float", "double"):
        return float(raw)
    if spark_type == "boolean":
        lowered = raw.strip().lower()
        if lowered not in ("true", "false", "1", "0"):
            raise ValueError(raw)
        return lowered in ("true", "1")
    if spark_type == "binary":
        return bytes.fromhex(raw.removeprefix("0x"))
    return raw


def _md(ibmmq: Any, args: argparse.Namespace, text: bool) -> Any:
    CMQC = ibmmq.CMQC
    md = ibmmq.MD()
    md.Persistence = CMQC.MQPER_PERSISTENCE_AS_Q_DEF if args.persistence is None else args.persistence
    md.Priority = CMQC.MQPRI_PRIORITY_AS_Q_DEF if args.priority is None else args.priority
    md.Format = _format(args.format, text, CMQC)
    if text or args.ccsid is not None:
        md.CodedCharSetId = _UTF8 if args.ccsid is None else args.ccsid
    if args.encoding is not None:
        md.Encoding = args.encoding
    if args.correl_id:
        md.CorrelId = _correl_id(args.correl_id)
    if args.reply_to:
        md.ReplyToQ = args.reply_to.encode()
    return md


def _format(given: str | None, text: bool, CMQC: Any) -> bytes:
    """The MQMD Format: as given (NONE: blank, as MQFMT_NONE is), else MQSTR for text."""
    if given is None:
        return CMQC.MQFMT_STRING if text else CMQC.MQFMT_NONE
    name = "" if given.strip().upper() in ("NONE", "MQFMT_NONE") else given.strip()
    if len(name) > 8:
        raise JobError(f"--format: {given!r} is longer than the 8 characters of an MQMD Format")
    return name.encode("ascii").ljust(8)


def _correl_id(text: str) -> bytes:
    try:
        raw = bytes.fromhex(text[2:]) if text.lower().startswith("0x") else text.encode("utf-8")
    except ValueError:
        raise JobError(f"--correl-id: {text!r} is not hex after 0x") from None
    if len(raw) > 24:
        raise JobError(f"--correl-id: {len(raw)} bytes; a CorrelId holds at most 24")
    return raw.ljust(24, b"\0")


def _pmo(ibmmq: Any, handle: Any) -> Any:
    CMQC = ibmmq.CMQC
    pmo = ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_NEW_MSG_ID | CMQC.MQPMO_FAIL_IF_QUIESCING)
    if handle is not None:
        pmo.OriginalMsgHandle = handle.msg_handle
    return pmo


# --- get and browse ------------------------------------------------------------------------------

def run_get(args: argparse.Namespace) -> int:
    from spark_mq.mq.consumer import open_consumer
    ibmmq, qmgr = connect(args)
    # backout_threshold 0: show a poison message rather than move it, as amqsget does
    consumer = open_consumer(ibmmq, qmgr, args.queue, selector=args.selector, backout_threshold=0)
    count, limit = 0, _limit(args.count)
    try:
        while count < limit:
            batch = _next_batch(consumer, min(GET_BATCH, limit - count), args.wait)
            if not batch:
                break
            for message in batch:
                count += 1
                _print(message, count, args)
            sys.stdout.flush()
            consumer.commit()
    finally:
        consumer.close()        # backs out a batch that was not printed
    print(f"got {count} message(s) from {args.queue}", file=sys.stderr)
    return 0


def _next_batch(consumer: Any, count: int, wait: float) -> list[Message]:
    """Up to `count` messages, waiting at most `wait` seconds for the first, in MQGETs that
    wait WAIT_SLICE seconds at most: Ctrl-C is acted on between two of them, as an MQGET that
    waits holds the signal until it returns (in IBM's client library, and in the embedded
    client when the kernel hands the signal to another of its threads)."""
    deadline = time.monotonic() + wait
    while True:
        remaining = max(0.0, deadline - time.monotonic())
        batch: list[Message] = consumer.get_batch(count, _ALL, int(min(remaining, WAIT_SLICE) * 1000))
        if batch or remaining <= WAIT_SLICE:
            return batch


def run_browse(args: argparse.Namespace) -> int:
    from spark_mq.mq.browser import Browser
    from spark_mq.mq.connecting import hand_over
    ibmmq, qmgr = connect(args)
    browser = hand_over(ibmmq, qmgr, lambda qmgr: Browser(ibmmq, qmgr, args.queue, args.selector))
    count = 0
    try:
        for message in browser.messages(None if args.count is None else _limit(args.count)):
            count += 1
            _print(message, count, args)
    finally:
        browser.close()
    print(f"browsed {count} message(s) on {args.queue}", file=sys.stderr)
    return 0


def _limit(count: int | None) -> int:
    if count is None:
        return _ALL
    if count < 1:
        raise JobError(f"--count: expected at least 1, got {count}")
    return count


def _print(message: Message, number: int, args: argparse.Namespace) -> None:
    if args.json:
        print(show.json_line(message))
    elif args.payload_only:
        text, _ = show.message_text(message)
        print(text if text is not None else message.payload.hex())
    else:
        print(show.human(message, number))


# --- plumbing -------------------------------------------------------------------------------------

def _open(ibmmq: Any, qmgr: Any, name: str, options: int, purpose: str) -> Any:
    from spark_mq.mq.queues import open_queue
    return open_queue(ibmmq, qmgr, name, options, None, purpose)


def _backout(ibmmq: Any, qmgr: Any) -> None:
    from spark_mq.mq.connecting import quietly
    quietly(ibmmq, "backing out the puts", qmgr.backout)
