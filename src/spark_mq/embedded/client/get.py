"""MQGET, served from a read-ahead buffer when the handle allows it (application's process).

Part of the module installed as `ibmmq.ibmmqc` (see transport.py). A plain get is one
request and one answer. On a handle opened with read-ahead (MQOO_READ_AHEAD or DEFREADA),
non-persistent messages gotten outside syncpoint come many at a time (the server's GETN)
into the handle's buffer, and the next batch is asked for before the buffer runs dry; as
in MQ, the get options that shape a message must then stay the same (MQRC_OPTIONS_CHANGED).
"""
from __future__ import annotations

from spark_mq.embedded.client.connection import FAILED, WARNING, Connection, ObjectHandle, connection_of
from spark_mq.embedded.client.message_handles import fill_handle, is_message_handle
from spark_mq.embedded.client.packed import (
    DEFAULT_MATCH,
    GMO_OPTIONS_AT,
    INT,
    MD_CORRELID,
    MD_MSGID,
    NONE_ID,
    md_ok,
    read_gmo,
)
from spark_mq.embedded.wire import get_request
from spark_mq.embedded.wire_verbs import GET, GETN, request
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import GMO

READ_AHEAD_COUNT = 500       # messages asked for per read-ahead refill
READ_AHEAD_BYTES = 4 << 20
_PREFETCH_AFTER = 50  # a refill smaller than this means the queue is nearly drained: no prefetch
_MATCH_MSGID, _MATCH_CORRELID = CMQC.MQMO_MATCH_MSG_ID, CMQC.MQMO_MATCH_CORREL_ID
_GMO_VERSION_AT, _GMO_RETURNED_LENGTH_AT = GMO.offsets["Version"], GMO.offsets["ReturnedLength"]
# get options that must not change while read-ahead messages are buffered (MQ: MQRC_OPTIONS_CHANGED)
_FIXED_FOR_READ_AHEAD = (
    CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT | CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG
    | CMQC.MQGMO_CONVERT | CMQC.MQGMO_LOGICAL_ORDER | CMQC.MQGMO_COMPLETE_MSG
    | CMQC.MQGMO_ALL_MSGS_AVAILABLE | CMQC.MQGMO_ALL_SEGMENTS_AVAILABLE
    | CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2 | CMQC.MQGMO_NO_PROPERTIES
    | CMQC.MQGMO_PROPERTIES_IN_HANDLE | CMQC.MQGMO_PROPERTIES_COMPATIBILITY)
# get options MQ does not allow on a read-ahead handle (MQRC_OPTIONS_ERROR once it has started)
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


def MQGET(hconn: int, hobj: int, md: bytes, gmo: bytes,
          max_length: int) -> tuple[bytes, bytes, bytes, int, int, int]:
    conn = connection_of(hconn)
    if conn is None:
        return (b"", md, gmo, 0, FAILED, CMQC.MQRC_HCONN_ERROR)
    if not md_ok(md):
        return (b"", md, gmo, 0, FAILED, CMQC.MQRC_MD_ERROR)
    fields = read_gmo(gmo) if len(gmo) == GMO.size else None
    if fields is None:
        return (b"", md, gmo, 0, FAILED, CMQC.MQRC_GMO_ERROR)
    options, match, hmsg = fields
    if hmsg and not is_message_handle(hmsg):
        return (b"", md, gmo, 0, FAILED, CMQC.MQRC_HMSG_ERROR)
    handle = conn.handles.get(hobj)
    if handle is not None and handle.read_ahead and not options & _BROWSE_OPTIONS:
        if not options & _NOT_READ_AHEAD and not match & ~DEFAULT_MATCH:
            return _read_ahead_get(conn, hobj, handle, md, gmo, match, options, hmsg, max_length)
        if handle.started:
            reason = (CMQC.MQRC_OPTIONS_ERROR if options & _NOT_ALLOWED_WITH_READ_AHEAD
                      else CMQC.MQRC_OPTIONS_CHANGED)
            return (b"", md, gmo, 0, FAILED, reason)
        handle.read_ahead = False
    reply = conn.call_frame(get_request(hobj, md, gmo, max_length, bool(hmsg)))
    return _get_result(reply, md, gmo, hmsg)


def _get_result(reply: list, md: bytes, gmo: bytes, hmsg: int) -> tuple:
    comp_code, reason = reply[0], reply[1]
    if len(reply) < 7:
        return (b"", md, gmo, 0, comp_code, reason)
    md_out, gmo_out, data, total, props = reply[2:7]
    if hmsg and reason != CMQC.MQRC_TRUNCATED_MSG_FAILED:
        fill_handle(hmsg, props)
    return (data, md_out, gmo_out, total, comp_code, reason)


def _read_ahead_get(conn: Connection, hobj: int, handle: ObjectHandle, md: bytes, gmo: bytes, match: int,
                    options: int, hmsg: int, max_length: int) -> tuple:
    fixed = options & _FIXED_FOR_READ_AHEAD
    if handle.started and fixed != handle.buffer_options:
        return (b"", md, gmo, 0, FAILED, CMQC.MQRC_OPTIONS_CHANGED)
    handle.started = True
    handle.buffer_options = fixed
    wanted_msgid = md[MD_MSGID] if match & _MATCH_MSGID else NONE_ID
    wanted_correlid = md[MD_CORRELID] if match & _MATCH_CORRELID else NONE_ID
    if handle.prefetching and (not handle.buffer or wanted_msgid != NONE_ID
                               or wanted_correlid != NONE_ID):
        conn.collect()
    if wanted_msgid != NONE_ID or wanted_correlid != NONE_ID:
        # a get for one particular message: look in the buffer, else ask the server
        for position, result in enumerate(handle.buffer):
            buffered_md = result[2]
            if ((wanted_msgid == NONE_ID or buffered_md[MD_MSGID] == wanted_msgid)
                    and (wanted_correlid == NONE_ID or buffered_md[MD_CORRELID] == wanted_correlid)):
                del handle.buffer[position]
                handle.buffer.appendleft(result)
                return _serve_buffered(handle, options, hmsg, max_length)
        return _get_result(conn.call(GET, hobj, md, gmo, max_length, bool(hmsg)), md, gmo, hmsg)
    if not handle.buffer:
        reply = conn.call(GETN, hobj, gmo, bool(hmsg), READ_AHEAD_COUNT, READ_AHEAD_BYTES)
        if reply[0] == FAILED:
            return (b"", md, gmo, 0, reply[0], reply[1])
        handle.buffer.extend(reply[2])
        handle.last_batch = len(reply[2])
        if not handle.buffer:  # only persistent messages: get one synchronously
            return _get_result(conn.call(GET, hobj, md, gmo, max_length, bool(hmsg)), md, gmo, hmsg)
    if not handle.prefetching and handle.last_batch >= _PREFETCH_AFTER:
        # the queue had plenty: ask for the next batch now, without waiting
        nowait = gmo[:GMO_OPTIONS_AT] + INT.pack(options & ~CMQC.MQGMO_WAIT) + gmo[GMO_OPTIONS_AT + 4:]
        conn.prefetch(handle, request(GETN, hobj, nowait, bool(hmsg), READ_AHEAD_COUNT,
                                       READ_AHEAD_BYTES))
    return _serve_buffered(handle, options, hmsg, max_length)



def _serve_buffered(handle: ObjectHandle, options: int, hmsg: int, max_length: int) -> tuple:
    comp_code, reason, md_out, gmo_out, data, total, props = handle.buffer[0]
    if total > max_length:
        if not options & CMQC.MQGMO_ACCEPT_TRUNCATED_MSG:
            return (data[:max_length], md_out, _with_returned_length(gmo_out, min(total, max_length)),
                    total, WARNING, CMQC.MQRC_TRUNCATED_MSG_FAILED)
        comp_code, reason = WARNING, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED
        data = data[:max_length]
        gmo_out = _with_returned_length(gmo_out, len(data))
    handle.buffer.popleft()
    if hmsg:
        fill_handle(hmsg, props)
    return (data, md_out, gmo_out, total, comp_code, reason)


def _with_returned_length(gmo: bytes, length: int) -> bytes:
    """A buffered message's MQGMO, truncated to `length` bytes: the server counted it whole."""
    if INT.unpack_from(gmo, _GMO_VERSION_AT)[0] < 3:
        return gmo  # no ReturnedLength before MQGMO version 3
    out = bytearray(gmo)
    INT.pack_into(out, _GMO_RETURNED_LENGTH_AT, length)
    return bytes(out)
