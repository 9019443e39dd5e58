"""The MQMD fields a put fills the same way whether it goes to a queue (put.py) or to a topic
(verbs/pubsub/publish.py): the context, identity and origin, as the put options say, and the
character fields, blank padded (runs in the queue-manager process, under the lock).
"""
from __future__ import annotations

import time

from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.state import ACCOUNTING_TOKEN, Connection, Handle, blank
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import MD, blank_padded

_MDI = MD.index
_CONTEXT_PUTS = (CMQC.MQPMO_NO_CONTEXT | CMQC.MQPMO_DEFAULT_CONTEXT
                 | CMQC.MQPMO_PASS_IDENTITY_CONTEXT | CMQC.MQPMO_PASS_ALL_CONTEXT
                 | CMQC.MQPMO_SET_IDENTITY_CONTEXT | CMQC.MQPMO_SET_ALL_CONTEXT)
_IDENTITY_FIELDS = ("UserIdentifier", "AccountingToken", "ApplIdentityData")
_ORIGIN_FIELDS = ("PutApplType", "PutApplName", "PutDate", "PutTime", "ApplOriginData")
_I_PUTAPPLTYPE, _I_PUTAPPLNAME = _MDI["PutApplType"], _MDI["PutApplName"]
_I_PUTDATE, _I_PUTTIME, _I_APPLORIGIN = _MDI["PutDate"], _MDI["PutTime"], _MDI["ApplOriginData"]
_stamp_cache: list = [None, None]
# The MQMD's character fields (MQCHARn, not the MQBYTEn ids and token): MQ stores and returns
# them blank padded, whatever terminator the putter used.
_CHAR_FIELDS = tuple((_MDI[name], MD.lengths[name]) for name in (
    "Format", "ReplyToQ", "ReplyToQMgr", "UserIdentifier", "ApplIdentityData", "PutApplName",
    "PutDate", "PutTime", "ApplOriginData"))


def apply_context(conn: Connection, handle: Handle, md: list, options: int,
                  context_hobj: int) -> None:
    """Fill (or check) the identity and origin fields of `md` as the put `options` ask,
    from the saved context of `context_hobj`'s handle when they pass it."""
    chosen = options & _CONTEXT_PUTS
    if chosen & (chosen - 1):
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)  # more than one context option
    if chosen == CMQC.MQPMO_NO_CONTEXT:
        for name in _IDENTITY_FIELDS + _ORIGIN_FIELDS:
            md[_MDI[name]] = 0 if name == "PutApplType" else b""
        return
    if chosen == CMQC.MQPMO_SET_ALL_CONTEXT:
        if not handle.options & CMQC.MQOO_SET_ALL_CONTEXT:
            raise MQError(CMQC.MQRC_NOT_OPEN_FOR_SET_ALL)
        return
    if chosen in (CMQC.MQPMO_PASS_IDENTITY_CONTEXT, CMQC.MQPMO_PASS_ALL_CONTEXT):
        passing_all = chosen == CMQC.MQPMO_PASS_ALL_CONTEXT
        needed = (CMQC.MQOO_PASS_ALL_CONTEXT | CMQC.MQOO_SET_ALL_CONTEXT if passing_all else
                  CMQC.MQOO_PASS_IDENTITY_CONTEXT | CMQC.MQOO_PASS_ALL_CONTEXT
                  | CMQC.MQOO_SET_IDENTITY_CONTEXT | CMQC.MQOO_SET_ALL_CONTEXT)
        if not handle.options & needed:
            raise MQError(CMQC.MQRC_NOT_OPEN_FOR_PASS_ALL if passing_all
                          else CMQC.MQRC_NOT_OPEN_FOR_PASS_IDENT)
        source = conn.handles.get(context_hobj)
        if source is None or not source.options & CMQC.MQOO_SAVE_ALL_CONTEXT:
            raise MQError(CMQC.MQRC_CONTEXT_HANDLE_ERROR)
        saved = source.saved_context
        fields = _IDENTITY_FIELDS + (_ORIGIN_FIELDS if chosen == CMQC.MQPMO_PASS_ALL_CONTEXT else ())
        for name in fields:
            md[_MDI[name]] = saved[_MDI[name]] if saved else (0 if name == "PutApplType" else b"")
        if chosen == CMQC.MQPMO_PASS_ALL_CONTEXT:
            return
        _set_origin(conn, md)
        return
    if chosen == CMQC.MQPMO_SET_IDENTITY_CONTEXT:
        if not handle.options & (CMQC.MQOO_SET_IDENTITY_CONTEXT | CMQC.MQOO_SET_ALL_CONTEXT):
            raise MQError(CMQC.MQRC_NOT_OPEN_FOR_SET_IDENT)
    else:  # default context: the queue manager fills identity and origin
        md[_MDI["UserIdentifier"]] = blank(conn.user, 12)
        md[_MDI["AccountingToken"]] = ACCOUNTING_TOKEN
        md[_MDI["ApplIdentityData"]] = b""
    _set_origin(conn, md)


def _set_origin(conn: Connection, md: list) -> None:
    now = time.time()
    date, hms = put_stamp(int(now))
    md[_I_PUTAPPLTYPE] = CMQC.MQAT_UNIX
    md[_I_PUTAPPLNAME] = conn.appl_name_field
    md[_I_PUTDATE] = date
    md[_I_PUTTIME] = hms + b"%02d" % (int(now * 100) % 100)
    md[_I_APPLORIGIN] = b""


def put_stamp(second: int) -> tuple[bytes, bytes]:
    """PutDate and PutTime (to the second) in GMT, formatted once per second."""
    if _stamp_cache[0] != second:
        stamp = time.gmtime(second)
        _stamp_cache[1] = (time.strftime("%Y%m%d", stamp).encode(),
                           time.strftime("%H%M%S", stamp).encode())
        _stamp_cache[0] = second
    return _stamp_cache[1]


def pad_char_fields(md: list) -> None:
    """Blank pad the character fields of `md` to their MQMD lengths."""
    for index, length in _CHAR_FIELDS:
        md[index] = blank_padded(md[index], length)
