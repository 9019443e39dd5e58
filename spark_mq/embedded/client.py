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
import sys
import threading

from . import properties as props_mod
from .mqconst import CMQC
from .structs import CD, CNO, CSP, GMO, IMPO, MD, OD, PMO, text
from .wire import frame, recv_frame

__version__ = importlib.metadata.version("ibmmq")
__cmdlevel__ = 940
__mqbuild__ = "common"
__strucversions__ = {"gmo": 4, "pmo": 3, "od": 4, "sts": 2, "cno": 8, "csp": 3, "sco": 7, "cd": 13}


class error(Exception):
    """ibmmqc.error: raised for malformed structures, as the C extension does."""


EMBEDDED = True  # lets callers tell this transport from IBM's

FAILED, WARNING, OK = CMQC.MQCC_FAILED, CMQC.MQCC_WARNING, CMQC.MQCC_OK
_BROKEN = (FAILED, CMQC.MQRC_CONNECTION_BROKEN)
_FLUSH_AT = 1 << 20          # pipelined asynchronous puts are sent once this much is queued
READ_AHEAD_COUNT = 500       # messages asked for per read-ahead refill
READ_AHEAD_BYTES = 4 << 20
_GI, _MDI, _PI = GMO.index, MD.index, PMO.index
_NONE_ID = b"\0" * 24
# get options that must not change while read-ahead messages are buffered (MQ: 2457)
_FIXED_FOR_READ_AHEAD = (
    CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT | CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG
    | CMQC.MQGMO_CONVERT | CMQC.MQGMO_LOGICAL_ORDER | CMQC.MQGMO_COMPLETE_MSG
    | CMQC.MQGMO_ALL_MSGS_AVAILABLE | CMQC.MQGMO_ALL_SEGMENTS_AVAILABLE
    | CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2 | CMQC.MQGMO_NO_PROPERTIES
    | CMQC.MQGMO_PROPERTIES_IN_HANDLE | CMQC.MQGMO_PROPERTIES_COMPATIBILITY)
# get options that make a get ineligible for read-ahead (it then goes to the server)
_NOT_READ_AHEAD = (CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_BROWSE_NEXT
                   | CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR | CMQC.MQGMO_MSG_UNDER_CURSOR
                   | CMQC.MQGMO_LOCK | CMQC.MQGMO_UNLOCK | CMQC.MQGMO_SET_SIGNAL
                   | CMQC.MQGMO_MARK_SKIP_BACKOUT | CMQC.MQGMO_LOGICAL_ORDER
                   | CMQC.MQGMO_COMPLETE_MSG | CMQC.MQGMO_ALL_MSGS_AVAILABLE
                   | CMQC.MQGMO_ALL_SEGMENTS_AVAILABLE)

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
    __slots__ = ("name", "read_ahead", "async_default", "buffer", "buffer_options")

    def __init__(self, name: str, read_ahead: bool, async_default: bool):
        self.name = name
        self.read_ahead = read_ahead
        self.async_default = async_default
        self.buffer: collections.deque = collections.deque()
        self.buffer_options = 0


class _Connection:
    def __init__(self, sock: socket.socket, qm_name: str):
        self.sock = sock
        self.qm_name = qm_name
        self.lock = threading.RLock()
        self.pending = bytearray()   # pipelined asynchronous puts not yet sent
        self.handles: dict[int, _Handle] = {}
        self.broken = False
        self.msgid_prefix = b"AMQ " + qm_name.encode()[:8].ljust(8, b" ") + os.urandom(4)
        self.msgid_counter = itertools.count(1)

    def call(self, *request) -> list:
        """Send one verb (after any pipelined puts) and wait for its answer."""
        with self.lock:
            if self.broken:
                return list(_BROKEN)
            try:
                data = frame(request)
                if self.pending:
                    self.pending += data
                    data, self.pending = bytes(self.pending), bytearray()
                self.sock.sendall(data)
                reply = recv_frame(self.sock)
            except (OSError, ConnectionError, ValueError):
                self.broken = True
                return list(_BROKEN)
            return reply

    def pipeline(self, *request) -> bool:
        with self.lock:
            if self.broken:
                return False
            self.pending += frame(request)
            if len(self.pending) >= _FLUSH_AT:
                data, self.pending = bytes(self.pending), bytearray()
                try:
                    self.sock.sendall(data)
                except OSError:
                    self.broken = True
                    return False
            return True

    def new_msgid(self) -> bytes:
        return self.msgid_prefix + next(self.msgid_counter).to_bytes(8, "big")


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
    selection = _read_pointer(fields[OD.index["SelectionStringVSPtr"]],
                              fields[OD.index["SelectionStringVSLength"]]).decode() or None
    reply = conn.call("OPEN", fields[OD.index["ObjectType"]], name, options, selection)
    if reply[0] == FAILED:
        return (0, od, reply[0], reply[1])
    hobj, resolved, read_ahead, async_default = reply[2:6]
    conn.handles[hobj] = _Handle(name, read_ahead, async_default)
    fields[OD.index["ResolvedQName"]] = resolved.encode()
    fields[OD.index["ResolvedQMgrName"]] = conn.qm_name.encode()
    return (hobj, OD.pack(fields), reply[0], reply[1])


def MQCLOSE(hconn, hobj, options):
    conn = _conn(hconn)
    if conn is None:
        return (FAILED, CMQC.MQRC_HCONN_ERROR)
    handle = conn.handles.pop(hobj, None)
    reply = conn.call("CLOSE", hobj, options)
    if reply[0] == OK and handle is not None and handle.buffer and options & CMQC.MQCO_QUIESCE:
        return (WARNING, CMQC.MQRC_READ_AHEAD_MSGS)
    return (reply[0], reply[1])


# === put =================================================================================
def _put_properties(pmo_fields: list) -> list | None:
    hmsg = pmo_fields[_PI["OriginalMsgHandle"]]
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
    if len(md) != MD.size:
        return (md, pmo, FAILED, CMQC.MQRC_MD_ERROR)
    pmo_fields = PMO.unpack(pmo)
    try:
        props = _put_properties(pmo_fields)
    except LookupError:
        return (md, pmo, FAILED, CMQC.MQRC_HMSG_ERROR)
    options = pmo_fields[_PI["Options"]]
    context = pmo_fields[_PI["Context"]]
    handle = conn.handles.get(hobj)
    if handle is not None and (options & CMQC.MQPMO_ASYNC_RESPONSE or (
            handle.async_default and not options & CMQC.MQPMO_SYNC_RESPONSE)):
        md = _with_client_ids(conn, md, options)
        options &= ~(CMQC.MQPMO_NEW_MSG_ID | CMQC.MQPMO_NEW_CORREL_ID)
        if not conn.pipeline("PUTA", hobj, md, options, context, props, msg):
            return (md, pmo, *_BROKEN)
        return (md, pmo, OK, OK)
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
    pmo_fields = PMO.unpack(pmo)
    try:
        props = _put_properties(pmo_fields)
    except LookupError:
        return (md, pmo, FAILED, CMQC.MQRC_HMSG_ERROR)
    fields = OD.unpack(od)
    reply = conn.call("PUT1", fields[OD.index["ObjectType"]], text(fields[OD.index["ObjectName"]]),
                      md, pmo_fields[_PI["Options"]], pmo_fields[_PI["Context"]], props, msg)
    return (reply[2] if len(reply) > 2 else md, pmo, reply[0], reply[1])


# === get =================================================================================
def MQGET(hconn, hobj, md, gmo, max_length):
    conn = _conn(hconn)
    if conn is None:
        return (b"", md, gmo, 0, FAILED, CMQC.MQRC_HCONN_ERROR)
    if len(md) != MD.size or len(gmo) != GMO.size:
        return (b"", md, gmo, 0, FAILED,
                CMQC.MQRC_MD_ERROR if len(md) != MD.size else CMQC.MQRC_GMO_ERROR)
    gmo_fields = GMO.unpack(gmo)
    options = gmo_fields[_GI["Options"]]
    hmsg = gmo_fields[_GI["MsgHandle"]]
    if hmsg and hmsg not in _message_handles:
        return (b"", md, gmo, 0, FAILED, CMQC.MQRC_HMSG_ERROR)
    handle = conn.handles.get(hobj)
    if handle is not None and handle.read_ahead and not options & _NOT_READ_AHEAD:
        return _read_ahead_get(conn, hobj, handle, md, gmo, gmo_fields, options, hmsg, max_length)
    reply = conn.call("GET", hobj, md, gmo, max_length, bool(hmsg))
    return _get_result(reply, md, gmo, hmsg)


def _get_result(reply: list, md: bytes, gmo: bytes, hmsg: int):
    comp_code, reason = reply[0], reply[1]
    if len(reply) < 7:
        return (b"", md, gmo, 0, comp_code, reason)
    md_out, gmo_out, data, total, props = reply[2:7]
    if hmsg and reason != CMQC.MQRC_TRUNCATED_MSG_FAILED:
        _fill_handle(hmsg, props)
    return (data, md_out, gmo_out, total, comp_code, reason)


def _read_ahead_get(conn, hobj, handle, md, gmo, gmo_fields, options, hmsg, max_length):
    fixed = options & _FIXED_FOR_READ_AHEAD
    if handle.buffer and fixed != handle.buffer_options:
        return (b"", md, gmo, 0, FAILED, CMQC.MQRC_OPTIONS_CHANGED)
    match = gmo_fields[_GI["MatchOptions"]]
    wanted_msgid = md[_MD_MSGID] if match & CMQC.MQMO_MATCH_MSG_ID else _NONE_ID
    wanted_correlid = md[_MD_CORRELID] if match & CMQC.MQMO_MATCH_CORREL_ID else _NONE_ID
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
        handle.buffer_options = fixed
        if not handle.buffer:  # only persistent messages: get one synchronously
            return _get_result(conn.call("GET", hobj, md, gmo, max_length, bool(hmsg)), md, gmo, hmsg)
    return _serve_buffered(handle, options, hmsg, max_length)


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
