"""MQGET, two ways: `get_message` through ibmmq's Queue.get (any client, pymqi too), and
`RawGetter`, the batch get's hot path: MQGET through ibmmq's C boundary (`ibmmq.ibmmqc.MQGET`,
the same function `Queue.get` calls) with the MQMD and MQGMO packed once, and only the
fields the reader needs unpacked with one struct call, using the one description of the
MQMD and MQGMO layouts, spark_mq.mqi.structs (checked against this ibmmq's packing).

ibmmq's own Queue.get builds, packs and unpacks the ~30-field MQMD and MQGMO through
Python on every call, which costs more than the get itself (see the project's reference
notes, "What the ibmmq Python layer itself costs"). Where the boundary is not there (pymqi),
`RawGetter.available` is False and the consumer uses Queue.get.
"""
from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, TypeAlias

from spark_mq.mq.exceptions import describe
from spark_mq.mq.message import MD_FIELDS
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import GMO, MD, Layout

#: ibmmqc.MQGET(hconn, hobj, md, gmo, buffer length) ->
#: (data, md out, gmo out, data length, completion code, reason)
RawMQGET: TypeAlias = Callable[[int, int, bytes, bytes, int], tuple[bytes, bytes, bytes, int, int, int]]
#: RawGetter.get's answer: (payload, MD fields, raw MD, group status or length, reason)
RawGet: TypeAlias = tuple[bytes | None, tuple[Any, ...] | None, bytes, int, int]

#: MQGMO_CONVERT's warnings: the message WAS delivered (a get removed it), with its data as
#: it was stored and the MD's CodedCharSetId/Encoding describing that data. (Not among them:
#: 2243/2244, segments of one message in different CCSIDs, where MQ hands over only the
#: leading part: the reader fails rather than deliver part of a message.)
CONVERSION_WARNINGS = frozenset({
    CMQC.MQRC_FORMAT_ERROR, CMQC.MQRC_SOURCE_CCSID_ERROR, CMQC.MQRC_TARGET_CCSID_ERROR,
    CMQC.MQRC_SOURCE_INTEGER_ENC_ERROR, CMQC.MQRC_SOURCE_DECIMAL_ENC_ERROR,
    CMQC.MQRC_SOURCE_FLOAT_ENC_ERROR, CMQC.MQRC_TARGET_INTEGER_ENC_ERROR,
    CMQC.MQRC_TARGET_DECIMAL_ENC_ERROR, CMQC.MQRC_TARGET_FLOAT_ENC_ERROR,
    CMQC.MQRC_NOT_CONVERTED, CMQC.MQRC_CONVERTED_MSG_TOO_BIG,
    CMQC.MQRC_CONVERTED_STRING_TOO_BIG})


def get_message(ibmmq: Any, queue: Any, buffer_size: int, md: Any, gmo: Any,
                action: str) -> tuple[bytes | None, int]:
    """One MQGET (or browse): (payload or None when no message matches, buffer size to use
    next). A message larger than the buffer stays where it is (MQRC_TRUNCATED_MSG_FAILED; a
    browse cursor does not move), so it is asked for again with room for it; the match
    fields in `md` still name it."""
    payload, buffer_size, _reason = get_converted(ibmmq, queue, buffer_size, md, gmo, action)
    return payload, buffer_size


def get_converted(ibmmq: Any, queue: Any, buffer_size: int, md: Any, gmo: Any,
                  action: str) -> tuple[bytes | None, int, int]:
    """get_message, and the reason of a conversion warning (0 when there was none): with
    MQGMO_CONVERT a message MQ could not convert still arrives, unconverted."""
    ccsid, encoding = md.CodedCharSetId, md.Encoding
    while True:
        try:
            return queue.get(buffer_size, md, gmo), buffer_size, 0
        except ibmmq.MQMIError as exc:
            if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                return None, buffer_size, 0
            if exc.comp == CMQC.MQCC_WARNING and exc.reason in CONVERSION_WARNINGS:
                return bytes(getattr(exc, "message", b"") or b""), buffer_size, exc.reason
            if exc.reason == CMQC.MQRC_TRUNCATED_MSG_FAILED and getattr(exc, "original_length", 0):
                buffer_size = max(buffer_size * 2, int(exc.original_length) + 1024)
                md.CodedCharSetId, md.Encoding = ccsid, encoding   # the MD came back filled
                continue
            raise describe(exc, action) from exc


def _layout(ibmmq_struct: Any, layout: Layout) -> tuple[struct.Struct, list[str]] | None:
    """Our description of the structure (spark_mq.mqi.structs), if this ibmmq build packs
    it the same way (same size, same field order is checked by the callers' probes)."""
    try:
        if len(ibmmq_struct.pack()) != layout.size:
            return None
    except Exception:  # noqa: BLE001 - a build we do not know: use Queue.get
        return None
    return layout.struct, list(layout.names)


class RawGetter:
    def __init__(self, ibmmq: Any, qmgr: Any, queue: Any, options: int, msg_handle: int,
                 conversion: tuple[int, int] | None = None) -> None:
        self.ibmmq = ibmmq
        module = getattr(ibmmq, "ibmmqc", None)
        mqget: RawMQGET | None = getattr(module, "MQGET", None)
        md, gmo = ibmmq.MD(), ibmmq.GMO()
        md_layout, gmo_layout = _layout(md, MD), _layout(gmo, GMO)
        self.available = bool(mqget and md_layout and gmo_layout)
        if mqget is None or md_layout is None or gmo_layout is None:
            return
        self._mqget = mqget
        self._hconn, self._hobj = qmgr.get_handle(), queue.get_handle()
        self._md_struct, md_names = md_layout
        self._gmo_struct, gmo_names = gmo_layout
        if conversion is not None:   # what MQGMO_CONVERT converts to is the input MD's
            md.CodedCharSetId, md.Encoding = conversion
        self._md_bytes = md.pack()
        self.md_index = tuple(md_names.index(name) for name in MD_FIELDS)
        self._group_status = gmo_names.index("GroupStatus")
        gmo.Options = options | ibmmq.CMQC.MQGMO_NO_WAIT
        gmo.MatchOptions = ibmmq.CMQC.MQMO_NONE
        gmo.MsgHandle = msg_handle
        self._gmo_no_wait = gmo.pack()
        self._gmo = gmo
        self._options = options

    def get(self, buffer: int, wait_ms: int) -> RawGet:
        """(payload, MD field tuple in MD_FIELDS order, raw MD bytes, group status, reason):
        payload None with reason MQRC_NO_MSG_AVAILABLE, MQRC_TRUNCATED_MSG_FAILED (then the
        message stayed, its length in the length's place) or any failure reason; a message
        with a conversion warning's reason (CONVERSION_WARNINGS) when it came unconverted."""
        if wait_ms > 0:
            self._gmo.Options = self._options | self.ibmmq.CMQC.MQGMO_WAIT
            self._gmo.WaitInterval = wait_ms
            gmo = self._gmo.pack()
        else:
            gmo = self._gmo_no_wait
        data, md_out, gmo_out, length, comp, reason = self._mqget(
            self._hconn, self._hobj, self._md_bytes, gmo, buffer)
        if comp == CMQC.MQCC_FAILED or reason and reason not in CONVERSION_WARNINGS:
            return None, None, md_out, length, reason
        fields = self._md_struct.unpack(md_out)
        md = tuple(fields[i] for i in self.md_index)
        status = self._gmo_struct.unpack(gmo_out)[self._group_status]
        return data, md, md_out, status, reason


def found(ibmmq: Any, queue: Any, md: Any, options: int, wait_ms: int, match: int, action: str) -> bool:
    """One MQGET (or browse) of a message's first 0 bytes: whether a message matched within
    wait_ms. A get removes it; its data never crosses the network."""
    C = CMQC
    options |= C.MQGMO_ACCEPT_TRUNCATED_MSG | C.MQGMO_FAIL_IF_QUIESCING | C.MQGMO_NO_PROPERTIES
    options |= C.MQGMO_WAIT if wait_ms else C.MQGMO_NO_WAIT
    gmo = ibmmq.GMO(Options=options, WaitInterval=wait_ms, MatchOptions=match)
    try:
        queue.get(0, md, gmo)
        return True
    except ibmmq.MQMIError as exc:
        if exc.reason == C.MQRC_TRUNCATED_MSG_ACCEPTED:
            return True
        if exc.reason == C.MQRC_NO_MSG_AVAILABLE:
            return False
        raise describe(exc, action) from exc
