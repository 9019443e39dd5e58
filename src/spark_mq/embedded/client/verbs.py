"""The MQI verbs on objects, except MQGET: MQOPEN, MQCLOSE, MQPUT, MQPUT1, units of work,
MQSTAT, MQINQ, MQSET, and MQLOGCF (MQCB and MQCTL are in async_consume.py; MQSUB, MQSUBRQ
and MQOPEN of a topic in pubsub.py).

Runs in the application's process (part of the module installed as `ibmmq.ibmmqc`, see
transport.py). Each verb checks what IBM's client checks before sending anything, sends one
request over its connection and returns the tuple the C extension returns. Asynchronous
puts are the exception: they are pipelined without waiting for an answer (connection.py),
so their message ids are made here.
"""
from __future__ import annotations

import struct

from spark_mq.embedded.client import pubsub
from spark_mq.embedded.client.connection import (
    BROKEN,
    FAILED,
    NONE,
    OK,
    WARNING,
    Connection,
    ObjectHandle,
    connection_of,
    connections,
    read_pointer,
)
from spark_mq.embedded.client.message_handles import properties_to_send
from spark_mq.embedded.client.packed import NONE_ID, error, md_ok, read_pmo
from spark_mq.embedded.wire import put_request
from spark_mq.embedded.wire_verbs import (
    BACK,
    CLOSE,
    CMIT,
    INQ,
    OPEN,
    PUT,
    PUT1,
    PUTA,
    SET,
    STAT,
    Verb,
    request,
)
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import MD, OD, PMO, text


# === objects =============================================================================
def MQOPEN(hconn: int, od: bytes, options: int) -> tuple[int, bytes, int, int]:
    conn = connection_of(hconn)
    if conn is None:
        return (0, od, FAILED, CMQC.MQRC_HCONN_ERROR)
    if len(od) != OD.size:
        raise error("wrong size for MQOD")
    fields = OD.unpack(od)
    if fields[OD.index["ObjectType"]] == CMQC.MQOT_TOPIC:
        return pubsub.open_topic(conn, fields, options)
    name = text(fields[OD.index["ObjectName"]])
    selection = None
    if fields[OD.index["Version"]] >= 4:  # SelectionString exists from MQOD version 4
        selection = read_pointer(fields[OD.index["SelectionStringVSPtr"]],
                                 fields[OD.index["SelectionStringVSLength"]]).decode() or None
    dynamic_name = text(fields[OD.index["DynamicQName"]])  # used when `name` is a model queue
    # the server uses AlternateUserId only with MQOO_ALTERNATE_USER_AUTHORITY, as MQ does
    reply = conn.call(OPEN, fields[OD.index["ObjectType"]], name, options, selection,
                      dynamic_name, _alternate_user(fields), text(fields[OD.index["ObjectQMgrName"]]))
    if reply[0] == FAILED:
        return (0, od, reply[0], reply[1])
    hobj, resolved, read_ahead, async_default, object_name, resolved_qmgr = reply[2:8]
    conn.handles[hobj] = ObjectHandle(object_name, read_ahead, async_default)
    is_queue = fields[OD.index["ObjectType"]] == CMQC.MQOT_Q
    if is_queue and options & _RESOLVING_OPENS:
        resolved_names = _blank(resolved) + _blank(resolved_qmgr)
        if options & CMQC.MQOO_OUTPUT:  # what MQPUT reports in the MQPMO
            _remember_resolved(hconn, hobj, resolved_names)
    else:
        # MQ resolves a name only for a queue opened to browse, get or put
        resolved_names = _BLANK_NAMES
    _od_out(fields, conn.qm_name, object_name, name, is_queue, resolved_names)
    return (hobj, OD.pack(fields), reply[0], reply[1])


def _alternate_user(od_fields: list) -> str:
    """The MQOD's AlternateUserId (blank up to the first NUL: no user). Its
    AlternateSecurityId is not sent: MQ uses that only on Windows (a SID)."""
    return text(od_fields[OD.index["AlternateUserId"]])


_BLANK_NAMES = b" " * 96
# the opens for which MQ fills the MQOD's ResolvedQName and ResolvedQMgrName
_RESOLVING_OPENS = (CMQC.MQOO_BROWSE | CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INPUT_SHARED
                    | CMQC.MQOO_INPUT_EXCLUSIVE | CMQC.MQOO_OUTPUT)
_ODI = OD.index


def _od_out(fields: list, qm_name: str, object_name: str, name: str, is_queue: bool,
            resolved_names: bytes) -> None:
    """The output fields of an MQOD, as far as the caller's version has them."""
    version = fields[_ODI["Version"]]
    if object_name != name:
        # a model queue was opened: MQ returns the dynamic queue created, and this queue
        # manager as its owner, in the caller's MQOD
        fields[_ODI["ObjectName"]] = _blank(object_name)
        fields[_ODI["ObjectQMgrName"]] = _blank(qm_name)
    if version >= 2 and is_queue:  # a single queue counts as a one-queue list, known locally
        fields[_ODI["KnownDestCount"]] = 1
        fields[_ODI["UnknownDestCount"]] = 0
        fields[_ODI["InvalidDestCount"]] = 0
    if version >= 3:
        fields[_ODI["ResolvedQName"]] = resolved_names[:48]
        fields[_ODI["ResolvedQMgrName"]] = resolved_names[48:]
    if version >= 4:
        fields[_ODI["ResolvedType"]] = CMQC.MQOT_Q if is_queue else CMQC.MQOT_NONE


# (hconn, hobj) -> ResolvedQName + ResolvedQMgrName of a queue open for output, for the
# MQPMO of each MQPUT (the server answers a put with its MD only)
_resolved_names: dict[tuple[int, int], bytes] = {}


def _remember_resolved(hconn: int, hobj: int, names: bytes) -> None:
    if len(_resolved_names) > 1024:  # forget handles of connections that have gone
        for key in [key for key in _resolved_names if key[0] not in connections]:
            del _resolved_names[key]
    _resolved_names[(hconn, hobj)] = names


def _blank(value: str) -> bytes:
    """An MQCHAR48 name field, blank padded as MQ fills it."""
    return value.encode()[:48].ljust(48, b" ")


def MQCLOSE(hconn: int, hobj: int, options: int) -> tuple[int, int]:
    conn = connection_of(hconn)
    if conn is None:
        return (FAILED, CMQC.MQRC_HCONN_ERROR)
    handle = conn.handles.get(hobj)
    if handle is not None and handle.prefetching and options & CMQC.MQCO_QUIESCE:
        conn.collect()
    if handle is not None and handle.buffer and options & CMQC.MQCO_QUIESCE:
        # MQ keeps the handle open so that the application can get what was read ahead
        return (WARNING, CMQC.MQRC_READ_AHEAD_MSGS)
    reply = conn.call(CLOSE, hobj, options)
    if reply[0] != FAILED:  # a failed MQCLOSE (MQCO_DELETE of a queue not empty) keeps it open
        conn.handles.pop(hobj, None)
        _resolved_names.pop((hconn, hobj), None)
    return (reply[0], reply[1])



# === put =================================================================================
_PutInputs = tuple[Connection, int, int, "list | None"]


def _put_inputs(hconn: int, md: bytes, pmo: bytes) -> _PutInputs | int:
    """What MQPUT and MQPUT1 check alike: (connection, PMO options, context, properties to
    send), or the reason the put fails with."""
    conn = connection_of(hconn)
    if conn is None:
        return CMQC.MQRC_HCONN_ERROR
    if not md_ok(md):
        return CMQC.MQRC_MD_ERROR
    fields = read_pmo(pmo)
    if fields is None:
        return CMQC.MQRC_PMO_ERROR
    options, context, hmsg = fields
    try:
        return conn, options, context, properties_to_send(hmsg)
    except LookupError:
        return CMQC.MQRC_HMSG_ERROR


def MQPUT(hconn: int, hobj: int, md: bytes, pmo: bytes, msg: bytes) -> tuple[bytes, bytes, int, int]:
    inputs = _put_inputs(hconn, md, pmo)
    if isinstance(inputs, int):
        return (md, pmo, FAILED, inputs)
    conn, options, context, props = inputs
    handle = conn.handles.get(hobj)
    if options & CMQC.MQPMO_ASYNC_RESPONSE and options & CMQC.MQPMO_SYNC_RESPONSE:
        return (md, pmo, FAILED, CMQC.MQRC_OPTIONS_ERROR)
    if handle is not None and (options & CMQC.MQPMO_ASYNC_RESPONSE or (
            handle.async_default and not options & CMQC.MQPMO_SYNC_RESPONSE)):
        md = _with_client_ids(conn, md, options)
        options &= ~(CMQC.MQPMO_NEW_MSG_ID | CMQC.MQPMO_NEW_CORREL_ID)
        data = (put_request(hobj, md, options, context, msg, True) if props is None
                else request(PUTA, hobj, md, options, context, props, msg))
        if not conn.pipeline(data):
            return (md, pmo, *BROKEN)
        return (md, _pmo_out(pmo, _resolved_names.get((hconn, hobj))), OK, NONE)
    if props is None:
        reply = conn.call_frame(put_request(hobj, md, options, context, msg, False))
    else:
        reply = conn.call(PUT, hobj, md, options, context, props, msg)
    if reply[0] == FAILED:
        return (md, pmo, reply[0], reply[1])
    return (reply[2], _pmo_out(pmo, _resolved_names.get((hconn, hobj))), reply[0], reply[1])


_PMO_RESOLVED = slice(PMO.offsets["ResolvedQName"], PMO.offsets["ResolvedQName"] + 96)
_PMO_COUNTS = struct.Struct("=iii")           # Known, Unknown and InvalidDestCount
_PMO_COUNTS_AT = PMO.offsets["KnownDestCount"]


def _pmo_out(pmo: bytes, resolved_names: bytes | None) -> bytes:
    """The MQPMO after a put that succeeded: MQ counts a single queue as one local
    destination and names the queue (and queue manager) the message went to."""
    out = bytearray(pmo)
    _PMO_COUNTS.pack_into(out, _PMO_COUNTS_AT, 1, 0, 0)
    if resolved_names is not None:
        out[_PMO_RESOLVED] = resolved_names
    return bytes(out)


def _with_client_ids(conn: Connection, md: bytes, options: int) -> bytes:
    """An asynchronous put is not answered, so its ids are made here, as IBM's client does."""
    msgid_at, correlid_at = MD.offsets["MsgId"], MD.offsets["CorrelId"]
    new_msgid = options & CMQC.MQPMO_NEW_MSG_ID or md[msgid_at:msgid_at + 24] == NONE_ID
    if not new_msgid and not options & CMQC.MQPMO_NEW_CORREL_ID:
        return md
    out = bytearray(md)
    if new_msgid:
        out[msgid_at:msgid_at + 24] = conn.new_msgid()
    if options & CMQC.MQPMO_NEW_CORREL_ID:
        out[correlid_at:correlid_at + 24] = conn.new_msgid()
    return bytes(out)


def MQPUT1(hconn: int, od: bytes, md: bytes, pmo: bytes, msg: bytes) -> tuple[bytes, bytes, int, int]:
    inputs = _put_inputs(hconn, md, pmo)
    if isinstance(inputs, int):
        return (md, pmo, FAILED, inputs)
    conn, options, context, props = inputs
    fields = OD.unpack(od)
    if fields[OD.index["ObjectType"]] == CMQC.MQOT_TOPIC:
        return _put1_topic(hconn, od, md, pmo, msg, options)
    reply = conn.call(PUT1, fields[OD.index["ObjectType"]], text(fields[OD.index["ObjectName"]]),
                      text(fields[OD.index["ObjectQMgrName"]]), _alternate_user(fields), md,
                      options, context, props, msg)
    if reply[0] == FAILED or len(reply) < 3:
        return (md, pmo, reply[0], reply[1])
    # the server answers the MD followed by the queue and queue manager the message went to
    md_out, resolved = reply[2][:MD.size], reply[2][MD.size:]
    return (md_out, _pmo_out(pmo, resolved), reply[0], reply[1])



def _put1_topic(hconn: int, od: bytes, md: bytes, pmo: bytes, msg: bytes,
                pmo_options: int) -> tuple[bytes, bytes, int, int]:
    """MQPUT1 to a topic: open, publish, close (the open and close answers change nothing
    the caller sees but a failure)."""
    open_options = CMQC.MQOO_OUTPUT
    if pmo_options & CMQC.MQPMO_ALTERNATE_USER_AUTHORITY:
        open_options |= CMQC.MQOO_ALTERNATE_USER_AUTHORITY
    hobj, _, comp_code, reason = MQOPEN(hconn, od, open_options)
    if comp_code == FAILED:
        return (md, pmo, comp_code, reason)
    try:
        return MQPUT(hconn, hobj, md, pmo, msg)
    finally:
        MQCLOSE(hconn, hobj, CMQC.MQCO_NONE)



# === units of work, status, inquire/set ==================================================
def MQBEGIN(hconn: int) -> tuple[int, int]:
    # client connections cannot coordinate global units of work, as with IBM's client
    return (FAILED, CMQC.MQRC_ENVIRONMENT_ERROR) if hconn in connections else (FAILED, CMQC.MQRC_HCONN_ERROR)


def _simple(hconn: int, verb: Verb) -> tuple[int, int]:
    conn = connection_of(hconn)
    if conn is None:
        return (FAILED, CMQC.MQRC_HCONN_ERROR)
    reply = conn.call(verb)
    return (reply[0], reply[1])


def MQCMIT(hconn: int) -> tuple[int, int]:
    return _simple(hconn, CMIT)


def MQBACK(hconn: int) -> tuple[int, int]:
    return _simple(hconn, BACK)


def MQSTAT(hconn: int, stat_type: int, sts: bytes) -> tuple[bytes, int, int]:
    conn = connection_of(hconn)
    if conn is None:
        return (sts, FAILED, CMQC.MQRC_HCONN_ERROR)
    reply = conn.call(STAT, stat_type, sts)
    return (reply[2] if len(reply) > 2 else sts, reply[0], reply[1])


def MQINQ(hconn: int, hobj: int, selectors: list[int], int_attrs: list[int], int_count: int,
          char_count: int, char_length: int) -> tuple[list[int], bytes | None, int, int]:
    """As ibmmqc answers: the integers are appended to the caller's own `int_attrs` list,
    and only when the call completes with MQCC_OK; the characters come back as exactly
    `char_length` bytes, or None when it is 0."""
    no_chars = None if char_length <= 0 else b" " * char_length
    conn = connection_of(hconn)
    if conn is None:
        return (int_attrs, no_chars, FAILED, CMQC.MQRC_HCONN_ERROR)
    reply = conn.call(INQ, hobj, list(selectors))
    if len(reply) < 4:
        return (int_attrs, no_chars, reply[0], reply[1])
    ints, chars = reply[2], reply[3]
    if char_length <= 0:
        chars = None
    elif len(chars) != char_length:
        chars = chars[:char_length].ljust(char_length, b" ")
    if reply[0] == OK:
        int_attrs.extend(ints)
    return (int_attrs, chars, reply[0], reply[1])


def MQSET(hconn: int, hobj: int, selectors: list[int], int_attrs: list[int],
          char_attrs: bytes | None) -> tuple[int, int]:
    conn = connection_of(hconn)
    if conn is None:
        return (FAILED, CMQC.MQRC_HCONN_ERROR)
    reply = conn.call(SET, hobj, list(selectors), list(int_attrs), bytes(char_attrs or b""))
    return (reply[0], reply[1])



# === tracing (not part of the embedded queue manager); MQSUB and MQSUBRQ (pubsub.py) =====
def MQLOGCF(*_args: object) -> tuple[int]:
    return (0,)


def MQSUB(hconn: int, sd: bytes, hobj: int) -> tuple[bytes, int, int, int, int]:
    return pubsub.MQSUB(hconn, sd, hobj)


def MQSUBRQ(hconn: int, hsub: int, action: int, sro: bytes) -> tuple[bytes, int, int]:
    return pubsub.MQSUBRQ(hconn, hsub, action, sro)

