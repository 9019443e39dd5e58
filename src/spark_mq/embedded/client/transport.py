"""The embedded transport: a stand-in for `ibmmq.ibmmqc`, IBM's C extension.

`install()` puts this module in `sys.modules` as `ibmmq.ibmmqc` before `ibmmq` is imported,
so every `ibmmq` call lands here with the exact arguments the C extension would get
(packed MQI structures as bytes) and must return the tuples it would return. Verbs go to
an embedded queue manager over a socket. Two things happen on this side, as in IBM's own
client: message handles and their properties live here until a put or get, and the two
fast paths batch work: asynchronous puts are pipelined without waiting for an answer, and
read-ahead gets are served from a buffer filled many messages at a time.
"""
from __future__ import annotations

import collections
import ctypes
import importlib.metadata
import itertools
import os
import re
import socket
import struct
import sys
import threading
import time

from spark_mq.embedded.wire import FrameReader, frame, get_request, put_request
from spark_mq.mqi import properties as props_mod
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import CD, CNO, CSP, GMO, IMPO, MD, OD, PMO, text

__version__ = importlib.metadata.version("ibmmq")
__cmdlevel__ = 940
__mqbuild__ = "common"
__strucversions__ = {"gmo": 4, "pmo": 3, "od": 4, "sts": 2, "cno": 8, "csp": 3, "sco": 7, "cd": 13}


class error(Exception):
    """ibmmqc.error: raised for malformed structures, as the C extension does."""


EMBEDDED = True  # lets callers tell this transport from IBM's

FAILED, WARNING, OK = CMQC.MQCC_FAILED, CMQC.MQCC_WARNING, CMQC.MQCC_OK
_BROKEN = (FAILED, CMQC.MQRC_CONNECTION_BROKEN)
_FLUSH_AT = 256 << 10        # pipelined asynchronous puts are sent once this much is queued
_FLUSH_AFTER = 0.002         # ... or this many seconds after the first of them, whichever is first
READ_AHEAD_COUNT = 500       # messages asked for per read-ahead refill
READ_AHEAD_BYTES = 4 << 20
_NONE_ID = b"\0" * 24
# get options that must not change while read-ahead messages are buffered (MQ: 2457)
_FIXED_FOR_READ_AHEAD = (
    CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT | CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG
    | CMQC.MQGMO_CONVERT | CMQC.MQGMO_LOGICAL_ORDER | CMQC.MQGMO_COMPLETE_MSG
    | CMQC.MQGMO_ALL_MSGS_AVAILABLE | CMQC.MQGMO_ALL_SEGMENTS_AVAILABLE
    | CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2 | CMQC.MQGMO_NO_PROPERTIES
    | CMQC.MQGMO_PROPERTIES_IN_HANDLE | CMQC.MQGMO_PROPERTIES_COMPATIBILITY)
# get options MQ does not allow on a read-ahead handle (2046 once read-ahead has started)
_NOT_ALLOWED_WITH_READ_AHEAD = (CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_MSG_UNDER_CURSOR
                                | CMQC.MQGMO_LOCK | CMQC.MQGMO_UNLOCK | CMQC.MQGMO_SET_SIGNAL
                                | CMQC.MQGMO_MARK_SKIP_BACKOUT)
# get options this client does not serve from the read-ahead buffer; used on the first get
# they quietly leave read-ahead off for the handle, as MQ allows
_NOT_READ_AHEAD = (_NOT_ALLOWED_WITH_READ_AHEAD | CMQC.MQGMO_LOGICAL_ORDER | CMQC.MQGMO_CONVERT
                   | CMQC.MQGMO_COMPLETE_MSG | CMQC.MQGMO_ALL_MSGS_AVAILABLE
                   | CMQC.MQGMO_ALL_SEGMENTS_AVAILABLE)
_BROWSE_OPTIONS = (CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_BROWSE_NEXT
                   | CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR)

#: queue manager name -> "host(port)" of embedded queue managers started by this process,
#: so that a bindings-style connect (no channel, no connection name) finds them
local_queue_managers: dict[str, str] = {}

_callback = None


def MQCBINIT(function) -> None:
    global _callback
    _callback = function


def MQLOGCF(*_args):
    return (0,)


# === connections =========================================================================
class _Handle:
    __slots__ = ("name", "read_ahead", "async_default", "buffer", "buffer_options", "started",
                 "prefetching", "last_batch")

    def __init__(self, name: str, read_ahead: bool, async_default: bool):
        self.name = name
        self.read_ahead = read_ahead
        self.async_default = async_default
        self.buffer: collections.deque = collections.deque()
        self.buffer_options = 0
        self.started = False     # a get has been served by read-ahead: options are now fixed
        self.prefetching = False  # a read-ahead refill has been sent and not yet read
        self.last_batch = 0

    def absorb(self, reply: list) -> None:
        """The answer to a prefetched refill: messages join the buffer; a failure (usually
        2033, nothing there) is dropped, the next synchronous refill reports real errors."""
        self.prefetching = False
        if reply[0] != FAILED and len(reply) > 2:
            self.buffer.extend(reply[2])
            self.last_batch = len(reply[2])
        else:
            self.last_batch = 0


class _Connection:
    def __init__(self, sock: socket.socket, qm_name: str):
        self.sock = sock
        self.qm_name = qm_name
        self.lock = threading.RLock()
        self.pending = bytearray()   # pipelined asynchronous puts not yet sent
        self.handles: dict[int, _Handle] = {}
        self.broken = False
        self.reader = FrameReader(sock)
        self.inflight: collections.deque = collections.deque()  # handles awaiting a refill
        self.msgid_prefix = b"AMQ " + qm_name.encode()[:8].ljust(8, b" ") + os.urandom(4)
        self.msgid_counter = itertools.count(1)

    def call(self, *request) -> list:
        """Send one verb (after any pipelined puts) and wait for its answer."""
        return self.call_frame(frame(request))

    def call_frame(self, data: bytes) -> list:
        with self.lock:
            if self.broken:
                return list(_BROKEN)
            try:
                if self.pending:
                    self.pending += data
                    data, self.pending = bytes(self.pending), bytearray()
                self.sock.sendall(data)
                self._collect_inflight()
                return self.reader.read()
            except (OSError, ConnectionError, ValueError):
                self.broken = True
                return list(_BROKEN)

    def _collect_inflight(self) -> None:
        while self.inflight:
            self.inflight.popleft().absorb(self.reader.read())

    def collect(self) -> None:
        """Read the answers of prefetched refills that are still on the way."""
        with self.lock:
            if self.broken or not self.inflight:
                return
            try:
                self._collect_inflight()
            except (OSError, ConnectionError, ValueError):
                self.broken = True

    def prefetch(self, handle: _Handle, data: bytes) -> None:
        """Send a read-ahead refill now and read its answer later, so that the queue manager
        fills the next batch while the application works through this one."""
        with self.lock:
            if self.broken:
                return
            if self.pending:
                data, self.pending = bytes(self.pending) + data, bytearray()
            try:
                self.sock.sendall(data)
            except OSError:
                self.broken = True
                return
            handle.prefetching = True
            self.inflight.append(handle)

    def pipeline(self, data: bytes) -> bool:
        """Queue a frame that has no answer (an asynchronous put); sent in batches."""
        with self.lock:
            if self.broken:
                return False
            was_empty = not self.pending
            self.pending += data
            if len(self.pending) >= _FLUSH_AT:
                return self._flush()
        if was_empty:  # an asynchronous put must reach the queue soon even if nothing follows
            _flusher.watch(self)
        return True

    def flush(self) -> bool:
        """Send pipelined puts; False when another call holds the connection (that call
        sends them, or the flusher comes back)."""
        if not self.lock.acquire(blocking=False):
            return False
        try:
            if self.pending and not self.broken:
                self._flush()
            return True
        finally:
            self.lock.release()

    def _flush(self) -> bool:
        data, self.pending = bytes(self.pending), bytearray()
        try:
            self.sock.sendall(data)
            return True
        except OSError:
            self.broken = True
            return False

    def new_msgid(self) -> bytes:
        return self.msgid_prefix + next(self.msgid_counter).to_bytes(8, "big")


class _Flusher:
    """One daemon thread that sends pipelined asynchronous puts which have waited
    _FLUSH_AFTER seconds: batching must never leave a put unsent while the application
    does nothing else (MQ sends asynchronous puts at once; it only does not wait)."""

    def __init__(self):
        self._condition = threading.Condition()
        self._waiting: list[_Connection] = []
        self._thread: threading.Thread | None = None

    def watch(self, conn: _Connection) -> None:
        with self._condition:
            self._waiting.append(conn)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name="embedded-mq-async-put-flusher")
                self._thread.start()
            self._condition.notify()

    def _run(self) -> None:
        while True:
            with self._condition:
                while not self._waiting:
                    self._condition.wait()
            time.sleep(_FLUSH_AFTER)
            with self._condition:
                waiting, self._waiting = self._waiting, []
            busy = [conn for conn in waiting if not conn.flush() and conn.pending]
            if busy:  # never block on a connection that is inside a call (a waiting MQGET)
                with self._condition:
                    self._waiting.extend(busy)


_flusher = _Flusher()
_connections: dict[int, _Connection] = {}
_hconns = itertools.count(0x1000001)


def _conn(hconn: int) -> _Connection | None:
    return _connections.get(hconn)


def _parse_conn_names(conn_names: str) -> list[tuple[str, int]]:
    """MQ's CONNAME: host(port), comma separated for multi-instance queue managers."""
    targets = []
    for part in conn_names.split(","):
        part = part.strip()
        if not part:
            continue
        match = re.fullmatch(r"(.+?)(?:\((\d+)\))?", part)
        targets.append((match.group(1), int(match.group(2) or 1414)))
    return targets


def _read_pointer(address: int, length: int) -> bytes:
    if not address or length <= 0:
        return b""
    return ctypes.string_at(address, length)


def MQCONNX(name, cno, cd, csp, sco, bno):
    qm_name = (name.decode() if isinstance(name, bytes) else str(name or "")).strip()
    conn_names = ""
    if cd:
        conn_names = text(cd[CD.offsets["ConnectionName"]:CD.offsets["ConnectionName"] + 264])
        if text(cd[CD.offsets["SSLCipherSpec"]:CD.offsets["SSLCipherSpec"] + 32]):
            # the embedded queue manager speaks no TLS: refuse rather than send in clear
            return (0, FAILED, CMQC.MQRC_SSL_INITIALIZATION_ERROR)
    if not conn_names:
        conn_names = _conn_name_from_environment(qm_name)
    if not conn_names:
        return (0, FAILED, CMQC.MQRC_Q_MGR_NOT_AVAILABLE)
    user = password = ""
    if csp:
        fields = CSP.unpack(csp)
        user = _read_pointer(fields[CSP.index["CSPUserIdPtr"]], fields[CSP.index["CSPUserIdLength"]]).decode()
        password = _read_pointer(fields[CSP.index["CSPPasswordPtr"]], fields[CSP.index["CSPPasswordLength"]]).decode()
    appl_name = ""
    if cno and len(cno) >= CNO.size:
        appl_name = text(CNO.unpack(cno)[CNO.index["ApplName"]])
    appl_name = appl_name or os.path.basename(sys.argv[0] or "python")[:28]
    sock = None
    for host, port in _parse_conn_names(conn_names):
        try:
            sock = socket.create_connection((host, port), timeout=10)
            break
        except OSError:
            continue
    if sock is None:
        return (0, FAILED, CMQC.MQRC_Q_MGR_NOT_AVAILABLE)
    sock.settimeout(None)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    conn = _Connection(sock, qm_name)
    reply = conn.call("CONN", qm_name, user, password, appl_name)
    if reply[0] == FAILED:
        sock.close()
        return (0, reply[0], reply[1])
    conn.qm_name = reply[2]
    hconn = next(_hconns)
    _connections[hconn] = conn
    return (hconn, reply[0], reply[1])


def _conn_name_from_environment(qm_name: str) -> str:
    if qm_name in local_queue_managers:
        return local_queue_managers[qm_name]
    if not qm_name and len(local_queue_managers) == 1:
        return next(iter(local_queue_managers.values()))
    server = os.environ.get("MQSERVER", "")  # CHANNEL/TCP/host(port)
    parts = server.split("/")
    return parts[2] if len(parts) == 3 else ""


def MQCONN(name):
    return MQCONNX(name, None, None, None, None, None)


def MQDISC(hconn):
    conn = _connections.pop(hconn, None)
    if conn is None:
        return (FAILED, CMQC.MQRC_HCONN_ERROR)
    reply = conn.call("DISC")
    try:
        conn.sock.close()
    except OSError:
        pass
    return (reply[0], reply[1])


# === objects =============================================================================
def MQOPEN(hconn, od, options):
    conn = _conn(hconn)
    if conn is None:
        return (0, od, FAILED, CMQC.MQRC_HCONN_ERROR)
    if len(od) != OD.size:
        raise error("wrong size for MQOD")
    fields = OD.unpack(od)
    name = text(fields[OD.index["ObjectName"]])
    selection = None
    if fields[OD.index["Version"]] >= 4:  # SelectionString exists from MQOD version 4
        selection = _read_pointer(fields[OD.index["SelectionStringVSPtr"]],
                                  fields[OD.index["SelectionStringVSLength"]]).decode() or None
    reply = conn.call("OPEN", fields[OD.index["ObjectType"]], name, options, selection)
    if reply[0] == FAILED:
        return (0, od, reply[0], reply[1])
    hobj, resolved, read_ahead, async_default = reply[2:6]
    conn.handles[hobj] = _Handle(name, read_ahead, async_default)
    fields[OD.index["ResolvedQName"]] = resolved.encode()[:48].ljust(48, b" ")
    fields[OD.index["ResolvedQMgrName"]] = conn.qm_name.encode()[:48].ljust(48, b" ")
    return (hobj, OD.pack(fields), reply[0], reply[1])


def MQCLOSE(hconn, hobj, options):
    conn = _conn(hconn)
    if conn is None:
        return (FAILED, CMQC.MQRC_HCONN_ERROR)
    handle = conn.handles.get(hobj)
    if handle is not None and handle.prefetching and options & CMQC.MQCO_QUIESCE:
        conn.collect()
    if handle is not None and handle.buffer and options & CMQC.MQCO_QUIESCE:
        # MQ keeps the handle open so that the application can get what was read ahead
        return (WARNING, CMQC.MQRC_READ_AHEAD_MSGS)
    conn.handles.pop(hobj, None)
    reply = conn.call("CLOSE", hobj, options)
    return (reply[0], reply[1])


# === put =================================================================================
_PMO_HEAD = struct.Struct("=4siiii")          # StrucId, Version, Options, Timeout, Context
_PMO_HMSG = struct.Struct("=q")
_PMO_HMSG_AT = PMO.offsets["OriginalMsgHandle"]
_GMO_HEAD = struct.Struct("=4sii")            # StrucId, Version, Options
_GMO_MATCH_AT, _GMO_HMSG_AT = GMO.offsets["MatchOptions"], GMO.offsets["MsgHandle"]
_INT = struct.Struct("=i")
_MD_HEAD = struct.Struct("=4si")
_DEFAULT_MATCH = CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID


def _read_pmo(pmo: bytes) -> tuple[int, int, int] | None:
    """(Options, Context, OriginalMsgHandle) of a valid MQPMO, else None (MQRC_PMO_ERROR)."""
    strucid, version, options, _, context = _PMO_HEAD.unpack_from(pmo)
    if strucid != b"PMO " or not 1 <= version <= 3:
        return None
    hmsg = _PMO_HMSG.unpack_from(pmo, _PMO_HMSG_AT)[0] if version >= 3 else 0
    return options, context, hmsg


def _read_gmo(gmo: bytes) -> tuple[int, int, int] | None:
    """(Options, MatchOptions, MsgHandle) of a valid MQGMO, else None (MQRC_GMO_ERROR).
    Fields past the caller's version do not exist for MQ, so their defaults apply."""
    strucid, version, options = _GMO_HEAD.unpack_from(gmo)
    if strucid != b"GMO " or not 1 <= version <= 4:
        return None
    match = _INT.unpack_from(gmo, _GMO_MATCH_AT)[0] if version >= 2 else _DEFAULT_MATCH
    hmsg = _PMO_HMSG.unpack_from(gmo, _GMO_HMSG_AT)[0] if version >= 4 else 0
    return options, match, hmsg


def _md_ok(md: bytes) -> bool:
    if len(md) != MD.size:
        return False
    strucid, version = _MD_HEAD.unpack_from(md)
    return strucid == b"MD  " and version in (1, 2)


def _put_properties(hmsg: int) -> list | None:
    if not hmsg:
        return None
    handle = _message_handles.get(hmsg)
    if handle is None:
        raise LookupError(hmsg)
    return [[p.name, p.type, p.value] for p in handle.values()] or None


def MQPUT(hconn, hobj, md, pmo, msg):
    conn = _conn(hconn)
    if conn is None:
        return (md, pmo, FAILED, CMQC.MQRC_HCONN_ERROR)
    if not _md_ok(md):
        return (md, pmo, FAILED, CMQC.MQRC_MD_ERROR)
    fields = _read_pmo(pmo)
    if fields is None:
        return (md, pmo, FAILED, CMQC.MQRC_PMO_ERROR)
    options, context, hmsg = fields
    try:
        props = _put_properties(hmsg)
    except LookupError:
        return (md, pmo, FAILED, CMQC.MQRC_HMSG_ERROR)
    handle = conn.handles.get(hobj)
    if options & CMQC.MQPMO_ASYNC_RESPONSE and options & CMQC.MQPMO_SYNC_RESPONSE:
        return (md, pmo, FAILED, CMQC.MQRC_OPTIONS_ERROR)
    if handle is not None and (options & CMQC.MQPMO_ASYNC_RESPONSE or (
            handle.async_default and not options & CMQC.MQPMO_SYNC_RESPONSE)):
        md = _with_client_ids(conn, md, options)
        options &= ~(CMQC.MQPMO_NEW_MSG_ID | CMQC.MQPMO_NEW_CORREL_ID)
        request = (put_request(hobj, md, options, context, msg, True) if props is None
                   else frame(("PUTA", hobj, md, options, context, props, msg)))
        if not conn.pipeline(request):
            return (md, pmo, *_BROKEN)
        return (md, pmo, OK, OK)
    if props is None:
        reply = conn.call_frame(put_request(hobj, md, options, context, msg, False))
    else:
        reply = conn.call("PUT", hobj, md, options, context, props, msg)
    return (reply[2] if len(reply) > 2 else md, pmo, reply[0], reply[1])


def _with_client_ids(conn: _Connection, md: bytes, options: int) -> bytes:
    """An asynchronous put is not answered, so its ids are made here, as IBM's client does."""
    msgid_at, correlid_at = MD.offsets["MsgId"], MD.offsets["CorrelId"]
    new_msgid = options & CMQC.MQPMO_NEW_MSG_ID or md[msgid_at:msgid_at + 24] == _NONE_ID
    if not new_msgid and not options & CMQC.MQPMO_NEW_CORREL_ID:
        return md
    out = bytearray(md)
    if new_msgid:
        out[msgid_at:msgid_at + 24] = conn.new_msgid()
    if options & CMQC.MQPMO_NEW_CORREL_ID:
        out[correlid_at:correlid_at + 24] = conn.new_msgid()
    return bytes(out)


def MQPUT1(hconn, od, md, pmo, msg):
    conn = _conn(hconn)
    if conn is None:
        return (md, pmo, FAILED, CMQC.MQRC_HCONN_ERROR)
    if not _md_ok(md):
        return (md, pmo, FAILED, CMQC.MQRC_MD_ERROR)
    pmo_fields = _read_pmo(pmo)
    if pmo_fields is None:
        return (md, pmo, FAILED, CMQC.MQRC_PMO_ERROR)
    options, context, hmsg = pmo_fields
    try:
        props = _put_properties(hmsg)
    except LookupError:
        return (md, pmo, FAILED, CMQC.MQRC_HMSG_ERROR)
    fields = OD.unpack(od)
    reply = conn.call("PUT1", fields[OD.index["ObjectType"]], text(fields[OD.index["ObjectName"]]),
                      md, options, context, props, msg)
    return (reply[2] if len(reply) > 2 else md, pmo, reply[0], reply[1])


# === get =================================================================================
def MQGET(hconn, hobj, md, gmo, max_length):
    conn = _conn(hconn)
    if conn is None:
        return (b"", md, gmo, 0, FAILED, CMQC.MQRC_HCONN_ERROR)
    if not _md_ok(md):
        return (b"", md, gmo, 0, FAILED, CMQC.MQRC_MD_ERROR)
    fields = _read_gmo(gmo) if len(gmo) == GMO.size else None
    if fields is None:
        return (b"", md, gmo, 0, FAILED, CMQC.MQRC_GMO_ERROR)
    options, match, hmsg = fields
    if hmsg and hmsg not in _message_handles:
        return (b"", md, gmo, 0, FAILED, CMQC.MQRC_HMSG_ERROR)
    handle = conn.handles.get(hobj)
    if handle is not None and handle.read_ahead and not options & _BROWSE_OPTIONS:
        if not options & _NOT_READ_AHEAD and not match & ~_DEFAULT_MATCH:
            return _read_ahead_get(conn, hobj, handle, md, gmo, match, options, hmsg, max_length)
        if handle.started:
            reason = (CMQC.MQRC_OPTIONS_ERROR if options & _NOT_ALLOWED_WITH_READ_AHEAD
                      else CMQC.MQRC_OPTIONS_CHANGED)
            return (b"", md, gmo, 0, FAILED, reason)
        handle.read_ahead = False
    reply = conn.call_frame(get_request(hobj, md, gmo, max_length, bool(hmsg)))
    return _get_result(reply, md, gmo, hmsg)


def _get_result(reply: list, md: bytes, gmo: bytes, hmsg: int):
    comp_code, reason = reply[0], reply[1]
    if len(reply) < 7:
        return (b"", md, gmo, 0, comp_code, reason)
    md_out, gmo_out, data, total, props = reply[2:7]
    if hmsg and reason != CMQC.MQRC_TRUNCATED_MSG_FAILED:
        _fill_handle(hmsg, props)
    return (data, md_out, gmo_out, total, comp_code, reason)


def _read_ahead_get(conn, hobj, handle, md, gmo, match, options, hmsg, max_length):
    fixed = options & _FIXED_FOR_READ_AHEAD
    if handle.started and fixed != handle.buffer_options:
        return (b"", md, gmo, 0, FAILED, CMQC.MQRC_OPTIONS_CHANGED)
    handle.started = True
    handle.buffer_options = fixed
    wanted_msgid = md[_MD_MSGID] if match & _MATCH_MSGID else _NONE_ID
    wanted_correlid = md[_MD_CORRELID] if match & _MATCH_CORRELID else _NONE_ID
    if handle.prefetching and (not handle.buffer or wanted_msgid != _NONE_ID
                               or wanted_correlid != _NONE_ID):
        conn.collect()
    if wanted_msgid != _NONE_ID or wanted_correlid != _NONE_ID:
        # a get for one particular message: look in the buffer, else ask the server
        for position, result in enumerate(handle.buffer):
            buffered_md = result[2]
            if ((wanted_msgid == _NONE_ID or buffered_md[_MD_MSGID] == wanted_msgid)
                    and (wanted_correlid == _NONE_ID or buffered_md[_MD_CORRELID] == wanted_correlid)):
                del handle.buffer[position]
                handle.buffer.appendleft(result)
                return _serve_buffered(handle, options, hmsg, max_length)
        return _get_result(conn.call("GET", hobj, md, gmo, max_length, bool(hmsg)), md, gmo, hmsg)
    if not handle.buffer:
        reply = conn.call("GETN", hobj, gmo, bool(hmsg), READ_AHEAD_COUNT, READ_AHEAD_BYTES)
        if reply[0] == FAILED:
            return (b"", md, gmo, 0, reply[0], reply[1])
        handle.buffer.extend(reply[2])
        handle.last_batch = len(reply[2])
        if not handle.buffer:  # only persistent messages: get one synchronously
            return _get_result(conn.call("GET", hobj, md, gmo, max_length, bool(hmsg)), md, gmo, hmsg)
    if not handle.prefetching and handle.last_batch >= _PREFETCH_AFTER:
        # the queue had plenty: ask for the next batch now, without waiting
        nowait = gmo[:_GMO_OPTIONS_AT] + _INT.pack(options & ~CMQC.MQGMO_WAIT) + gmo[_GMO_OPTIONS_AT + 4:]
        conn.prefetch(handle, frame(("GETN", hobj, nowait, bool(hmsg), READ_AHEAD_COUNT,
                                     READ_AHEAD_BYTES)))
    return _serve_buffered(handle, options, hmsg, max_length)


_MATCH_MSGID, _MATCH_CORRELID = CMQC.MQMO_MATCH_MSG_ID, CMQC.MQMO_MATCH_CORREL_ID
_PREFETCH_AFTER = 50  # a refill smaller than this means the queue is nearly drained: no prefetch
_GMO_OPTIONS_AT = 8
_MD_MSGID = slice(MD.offsets["MsgId"], MD.offsets["MsgId"] + 24)
_MD_CORRELID = slice(MD.offsets["CorrelId"], MD.offsets["CorrelId"] + 24)


def _serve_buffered(handle: _Handle, options: int, hmsg: int, max_length: int):
    comp_code, reason, md_out, gmo_out, data, total, props = handle.buffer[0]
    if total > max_length:
        if not options & CMQC.MQGMO_ACCEPT_TRUNCATED_MSG:
            return (data[:max_length], md_out, gmo_out, total, WARNING, CMQC.MQRC_TRUNCATED_MSG_FAILED)
        comp_code, reason = WARNING, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED
        data = data[:max_length]
    handle.buffer.popleft()
    if hmsg:
        _fill_handle(hmsg, props)
    return (data, md_out, gmo_out, total, comp_code, reason)


# === units of work, status, inquire/set ==================================================
def MQBEGIN(hconn):
    # client connections cannot coordinate global units of work, as with IBM's client
    return (FAILED, CMQC.MQRC_ENVIRONMENT_ERROR) if hconn in _connections else (FAILED, CMQC.MQRC_HCONN_ERROR)


def _simple(hconn, verb: str):
    conn = _conn(hconn)
    if conn is None:
        return (FAILED, CMQC.MQRC_HCONN_ERROR)
    reply = conn.call(verb)
    return (reply[0], reply[1])


def MQCMIT(hconn):
    return _simple(hconn, "CMIT")


def MQBACK(hconn):
    return _simple(hconn, "BACK")


def MQSTAT(hconn, stat_type, sts):
    conn = _conn(hconn)
    if conn is None:
        return (sts, FAILED, CMQC.MQRC_HCONN_ERROR)
    reply = conn.call("STAT", stat_type, sts)
    return (reply[2] if len(reply) > 2 else sts, reply[0], reply[1])


def MQINQ(hconn, hobj, selectors, int_attrs, int_count, char_count, char_length):
    conn = _conn(hconn)
    if conn is None:
        return ([], b"", FAILED, CMQC.MQRC_HCONN_ERROR)
    reply = conn.call("INQ", hobj, list(selectors))
    if len(reply) < 4:
        return ([], b"", reply[0], reply[1])
    ints, chars = reply[2], reply[3]
    if len(chars) != char_length:
        chars = chars[:char_length].ljust(char_length, b" ")
    int_attrs[:] = ints
    return (ints, chars, reply[0], reply[1])


def MQSET(hconn, hobj, selectors, int_attrs, char_attrs):
    conn = _conn(hconn)
    if conn is None:
        return (FAILED, CMQC.MQRC_HCONN_ERROR)
    reply = conn.call("SET", hobj, list(selectors), list(int_attrs), bytes(char_attrs or b""))
    return (reply[0], reply[1])


# === message handles: kept on this side, as in IBM's client ==============================
_message_handles: dict[int, dict[str, props_mod.Property]] = {}
_inquiry_cursors: dict[int, tuple[str, int]] = {}
_hmsgs = itertools.count(0x10000001)


def MQCRTMH(hconn, cmho):
    if hconn not in _connections and hconn != CMQC.MQHC_UNASSOCIATED_HCONN:
        return (0, FAILED, CMQC.MQRC_HCONN_ERROR)
    hmsg = next(_hmsgs)
    _message_handles[hmsg] = {}
    return (hmsg, OK, OK)


def MQDLTMH(hconn, hmsg, dmho):
    if _message_handles.pop(hmsg, None) is None:
        return (FAILED, CMQC.MQRC_HMSG_ERROR)
    _inquiry_cursors.pop(hmsg, None)
    return (OK, OK)


def MQSETMP(hconn, hmsg, smpo, name, pd, prop_type, value, value_length):
    handle = _message_handles.get(hmsg)
    if handle is None:
        return (FAILED, CMQC.MQRC_HMSG_ERROR)
    try:
        canonical = props_mod.validate_name(_as_text(name))
        stored = props_mod.coerce_value(prop_type, value, value_length)
    except props_mod.PropertyError as exc:
        return (FAILED, exc.reason)
    handle.pop(canonical, None)  # a property set again moves to the end, as MQ lists them
    handle[canonical] = props_mod.Property(canonical, prop_type, stored)
    return (OK, OK)


def MQINQMP(hconn, hmsg, impo, name, pd, prop_type, max_length):
    handle = _message_handles.get(hmsg)
    if handle is None:
        return (None, 0, None, FAILED, CMQC.MQRC_HMSG_ERROR)
    options = IMPO.unpack(impo)[IMPO.index["Options"]]
    requested = _as_text(name)
    try:
        prop = _find_property(hmsg, handle, requested, options)
        if prop is None:
            return (None, 0, None, FAILED, CMQC.MQRC_PROPERTY_NOT_AVAILABLE)
        returned_type, value = props_mod.convert_for_inquiry(
            prop, prop_type, bool(options & CMQC.MQIMPO_CONVERT_TYPE))
    except props_mod.PropertyError as exc:
        return (None, 0, None, FAILED, exc.reason)
    length = _value_length(returned_type, value)
    if isinstance(value, (str, bytes)) and length > max_length:
        return (None, length, None, FAILED, CMQC.MQRC_PROPERTY_VALUE_TOO_BIG)
    if isinstance(value, bool):
        value = int(value)
    returned_name = prop.name if "%" in requested else None
    return (value, length, returned_name, OK, OK)


def _find_property(hmsg: int, handle: dict, requested: str, options: int):
    if "%" not in requested:
        _inquiry_cursors.pop(hmsg, None)
        return handle.get(props_mod.validate_name(requested))
    matcher = props_mod.WildcardMatcher(requested)
    names = [n for n in handle if matcher.matches(n)]
    position = 0
    cursor = _inquiry_cursors.get(hmsg)
    if cursor is not None and cursor[0] == requested:
        if options & CMQC.MQIMPO_INQ_NEXT:
            position = cursor[1] + 1
        elif options & CMQC.MQIMPO_INQ_PROP_UNDER_CURSOR:
            position = cursor[1]
    if position >= len(names):
        return None
    _inquiry_cursors[hmsg] = (requested, position)
    return handle[names[position]]


def _value_length(prop_type: int, value) -> int:
    if isinstance(value, str):
        return len(value.encode("utf-8"))
    if isinstance(value, bytes):
        return len(value)
    return {CMQC.MQTYPE_BOOLEAN: 4, CMQC.MQTYPE_INT8: 1, CMQC.MQTYPE_INT16: 2,
            CMQC.MQTYPE_INT32: 4, CMQC.MQTYPE_INT64: 8, CMQC.MQTYPE_FLOAT32: 4,
            CMQC.MQTYPE_FLOAT64: 8}.get(prop_type, 0)


def MQDLTMP(hconn, hmsg, dmpo, name):
    handle = _message_handles.get(hmsg)
    if handle is None:
        return (FAILED, CMQC.MQRC_HMSG_ERROR)
    try:
        canonical = props_mod.validate_name(_as_text(name))
    except props_mod.PropertyError as exc:
        return (FAILED, exc.reason)
    if handle.pop(canonical, None) is None:
        return (WARNING, CMQC.MQRC_PROPERTY_NOT_AVAILABLE)
    return (OK, OK)


def _fill_handle(hmsg: int, props: list | None) -> None:
    handle = _message_handles.get(hmsg)
    if handle is None:
        return
    handle.clear()
    _inquiry_cursors.pop(hmsg, None)
    for name, prop_type, value in props or ():
        handle[name] = props_mod.Property(name, prop_type, value)


def _as_text(name) -> str:
    return name.decode("utf-8") if isinstance(name, bytes) else str(name)


# === publish/subscribe and callbacks are not part of the embedded queue manager ==========
def MQSUB(hconn, sd, hobj):
    return (sd, hobj, 0, FAILED, CMQC.MQRC_FUNCTION_NOT_SUPPORTED)


def MQSUBRQ(hconn, hsub, action, sro):
    return (sro, FAILED, CMQC.MQRC_FUNCTION_NOT_SUPPORTED)


def MQCB(hconn, operation, cbd, hobj, md, gmo):
    return (FAILED, CMQC.MQRC_FUNCTION_NOT_SUPPORTED)


def MQCTL(hconn, operation, ctlo):
    return (FAILED, CMQC.MQRC_FUNCTION_NOT_SUPPORTED)


def broken_connections() -> list[int]:
    """Connection handles whose socket has failed (for diagnostics and tests)."""
    return [hconn for hconn, conn in _connections.items() if conn.broken]
