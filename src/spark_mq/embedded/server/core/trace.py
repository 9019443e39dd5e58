"""The queue manager's trace, as IBM MQ's `strmqtrc` / `endmqtrc` / `dspmqtrc`: a function
trace of the MQI calls applications make (type API) and a communications trace of the
flows of message channels (type COMMS), to files a user reads with `spark-mq-qmgr trace
show` (runs in the queue-manager process).

Started and stopped through the administrative door, with MQSC commands of the embedded
queue manager (IBM MQ for z/OS has START/STOP/DISPLAY TRACE; their attributes here are the
embedded queue manager's own, after strmqtrc's flags), each needing what an MQSC command
without a PCF equivalent needs: +chg on the queue manager (admin/command_server/
escape_commands.py):

    START TRACE TYPE(API|COMMS|ALL) [CHANNEL(name)] [QUEUE(name)] [LIMIT(bytes)] [DATA(n)]
    STOP TRACE
    DISPLAY TRACE

CHANNEL selects one channel: API calls of connections on that SVRCONN channel, flows of that
message channel. QUEUE selects the API calls on one queue (MQOPEN, MQPUT1 by name; MQPUT,
MQGET, MQCLOSE ... through a handle opened on it); the calls that name no queue (MQCONN,
MQCMIT ...) are left out then. Both may be given; neither traces everything of the type.

Records: one JSON object a line in `trace/AMQ<pid>.TRC` under the data directory: time,
pid, thread, type; for API the connection id, user, verb, object, options, CompCode and
Reason (by name); for COMMS the channel, direction (in/out), segment type (the frame's
verb: CHL, MSG, END, DONE, HB, BYE, or the answer's CompCode), its size in bytes and the
sequence number a MSG or END carries; a receiver's trace starts with the hello it took, a
sender's with the hello's answer (the hello leaves before the sender's link knows its
trace). Bounded by LIMIT, as strmqtrc -l: when the file
would pass it, it becomes AMQ<pid>.TRS (the previous .TRS goes) and a new .TRC starts, so
the trace never holds more than twice LIMIT.

No message data unless DATA asks (strmqtrc -d): DATA(0), the default here, none; DATA(n)
the first n bytes, in hex, of the data of an MQPUT, MQPUT1 or a channel's MSG; DATA(-1) all.
IBM MQ traces some data by default; this queue manager does not, since a trace file is
read by people who may not read the queues. Passwords are never written: a record is built
from named fields only, and MQCONN's are its user and application name.

Off by default, and free when off: the session (network/mqi_session.py) and the channel
link (message_channels/link.py) each test one boolean, `Trace.on`, per call or flow.
Records are written under the trace's own lock, never the queue manager's.
"""
from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from spark_mq.embedded.server.core.state import FeatureState, QueueManagerState
from spark_mq.mqi.constants import reason_name
from spark_mq.mqi.structs import GMO

API, COMMS = "API", "COMMS"
TYPES = {"API": frozenset({API}), "COMMS": frozenset({COMMS}), "ALL": frozenset({API, COMMS})}
DEFAULT_LIMIT = 100 * 1024 * 1024     # strmqtrc's files grow unbounded without -l; ours do not
MIN_LIMIT = 1024
#: the verbs that are not MQI calls: a channel's hello, heartbeats, a bare ping
_NOT_CALLS = frozenset({"CHL", "HB", "PING"})
#: verb -> index of its object name (by name) or handle (by hobj) in the frame's arguments,
#: and of its options
_BY_NAME = {"OPEN": (1, 2), "PUT1": (1, 5)}
_BY_HANDLE = {"PUT": 2, "PUTA": 2, "GET": 2, "GETN": 1, "CLOSE": 1, "INQ": None, "SET": None}
_DATA_ARG = {"PUT": -1, "PUTA": -1, "PUT1": -1}


@dataclass(frozen=True)
class Settings:
    types: frozenset[str]
    channel: str = ""
    queue: str = ""
    limit: int = DEFAULT_LIMIT
    data: int = 0                  # bytes of message data: 0 none, -1 all

    def describe(self) -> str:
        kind = "ALL" if len(self.types) == 2 else next(iter(self.types))
        parts = [f"TYPE({kind})", f"LIMIT({self.limit})", f"DATA({self.data})"]
        parts += [f"CHANNEL({self.channel})"] if self.channel else []
        parts += [f"QUEUE({self.queue})"] if self.queue else []
        return " ".join(parts)


class Trace:
    """One queue manager's trace: off until `start`."""

    def __init__(self, data_dir: str) -> None:
        self.on = False              # the one check the hot paths make
        self.directory = os.path.join(data_dir, "trace")
        self.settings: Settings | None = None
        self._lock = threading.Lock()
        self._file: Any = None
        self._written = 0

    @property
    def path(self) -> str:
        return os.path.join(self.directory, f"AMQ{os.getpid()}.TRC")

    def start(self, settings: Settings) -> str:
        with self._lock:
            self._close()
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            self._open()
            self.settings = settings
            self.on = True
        return self.path

    def stop(self) -> bool:
        """False when the trace was not running."""
        with self._lock:
            was = self.on
            self.on = False
            self.settings = None
            self._close()
        return was

    # --- records ---------------------------------------------------------------------------

    def call(self, conn: Any, channel: str, verb: str, args: list,
             outcome: Callable[[], list]) -> list:
        """Run one MQI call (`outcome`, which answers [CompCode, Reason, ...]) and trace it;
        `conn` the session's connection (None before MQCONN), `channel` its SVRCONN."""
        settings = self.settings
        if settings is None or API not in settings.types or verb in _NOT_CALLS \
                or (settings.channel and channel != settings.channel):
            return outcome()
        name, options = _object_of(conn, verb, args)   # before: MQCLOSE takes the handle away
        if settings.queue and name != settings.queue:
            return outcome()
        reply = outcome()
        record: dict[str, Any] = {"type": API, "conn": conn.conn_id if conn else 0,
                                  "user": conn.user if conn else _conn_user(verb, args),
                                  "verb": verb, "object": name, "options": options}
        if len(reply) >= 2:
            record["cc"], record["reason"] = reply[0], reply[1]
            record["rc"] = reason_name(reply[1]) if reply[1] else "MQRC_NONE"
        index = _DATA_ARG.get(verb)
        if index is not None and settings.data and args and isinstance(args[index], bytes):
            record["data"] = _data(args[index], settings.data)
        self._write(record)
        return reply

    def comms(self, channel: str, direction: str, value: list, size: int) -> None:
        """One flow of a message channel, as the frame `value` of `size` bytes."""
        settings = self.settings
        if settings is None or COMMS not in settings.types:
            return
        if settings.channel and channel != settings.channel:
            return
        segment = value[0] if value and isinstance(value[0], str) else f"CC{value[0]}"
        record: dict[str, Any] = {"type": COMMS, "channel": channel, "dir": direction,
                                  "segment": segment, "size": size}
        if segment == "MSG" and len(value) > 3:
            record["seq"] = value[1]
            if settings.data and isinstance(value[3], bytes):
                record["data"] = _data(value[3], settings.data)
        elif segment == "END" and len(value) > 2:
            record["seq"] = value[2]
        self._write(record)

    def _write(self, record: dict[str, Any]) -> None:
        head = {"time": f"{time.time():.6f}", "pid": os.getpid(),
                "thread": threading.current_thread().name}
        line = json.dumps({**head, **record}, separators=(",", ":")) + "\n"
        with self._lock:
            if self._file is None:
                return
            settings = self.settings
            if settings is not None and self._written + len(line) > settings.limit:
                self._wrap()
            self._file.write(line)
            self._written += len(line)

    # --- files -----------------------------------------------------------------------------

    def _open(self) -> None:
        self._file = open(self.path, "a", encoding="utf-8", buffering=1)   # noqa: SIM115
        self._written = self._file.tell()

    def _close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _wrap(self) -> None:
        self._close()
        os.replace(self.path, self.path[:-4] + ".TRS")
        self._open()


def _object_of(conn: Any, verb: str, args: list) -> tuple[str, int | None]:
    """(the object the call names or has open, its options) of a call's arguments."""
    if verb in _BY_NAME:
        name_at, options_at = _BY_NAME[verb]
        name = args[name_at] if len(args) > name_at and isinstance(args[name_at], str) else ""
        options = args[options_at] if len(args) > options_at else None
        return name.strip(), options if type(options) is int else None
    if verb in _BY_HANDLE and args and conn is not None:
        handle = conn.handles.get(args[0])
        at = _BY_HANDLE[verb]
        options = args[at] if at is not None and len(args) > at else None
        if isinstance(options, bytes) and len(options) == GMO.size:   # MQGET's options: its MQGMO's
            options = GMO.unpack(options)[GMO.index["Options"]]
        return (handle.name if handle else f"hobj {args[0]}"), \
            options if type(options) is int else None
    return "", None


def _conn_user(verb: str, args: list) -> str:
    """MQCONN's user (its password, args[2], is never read)."""
    return args[1] if verb == "CONN" and len(args) > 1 and isinstance(args[1], str) else ""


def _data(data: bytes, limit: int) -> str:
    return (data if limit < 0 else data[:limit]).hex()


def parse_settings(attributes: dict[str, object]) -> Settings:
    """START TRACE's attributes; ValueError naming the bad value and what is valid."""
    unknown = set(attributes) - {"TYPE", "CHANNEL", "QUEUE", "LIMIT", "DATA"}
    if unknown:
        raise ValueError(f"START TRACE does not take {', '.join(sorted(unknown))} (valid: "
                         "TYPE, CHANNEL, QUEUE, LIMIT, DATA)")
    kind = str(attributes.get("TYPE", "ALL")).upper()
    if kind not in TYPES:
        raise ValueError(f"START TRACE TYPE({kind}) is not valid (valid: API, COMMS, ALL)")
    limit = _integer(attributes, "LIMIT", DEFAULT_LIMIT)
    if limit < MIN_LIMIT:
        raise ValueError(f"START TRACE LIMIT({limit}) is too small (valid: at least "
                         f"{MIN_LIMIT} bytes)")
    data = _integer(attributes, "DATA", 0)
    if data < -1:
        raise ValueError(f"START TRACE DATA({data}) is not valid (valid: 0 none, -1 all, or "
                         "a number of bytes)")
    return Settings(TYPES[kind], str(attributes.get("CHANNEL", "")).strip(),
                    str(attributes.get("QUEUE", "")).strip(), limit, data)


def _integer(attributes: dict[str, object], key: str, default: int) -> int:
    value = attributes.get(key, default)
    try:
        return int(str(value))
    except ValueError:
        raise ValueError(f"START TRACE {key}({value}) is not a number") from None


_TRACE: FeatureState[Trace] = FeatureState("trace", lambda qm: Trace(qm.data_dir))


def trace_of(qm: QueueManagerState) -> Trace:
    return _TRACE.of(qm)
