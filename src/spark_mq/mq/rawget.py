"""The batch get's hot path: MQGET through ibmmq's C boundary (`ibmmq.ibmmqc.MQGET`, the
same function `Queue.get` calls) with the MQMD and MQGMO packed once, and only the fields
the reader needs unpacked (with one struct call).

ibmmq's own Queue.get builds, packs and unpacks the ~30-field MQMD and MQGMO through
Python on every call, which costs more than the get itself (see the project's reference
notes, "What the ibmmq Python layer itself costs"). Where the boundary is not there (pymqi),
`RawGetter.available` is False and the consumer uses Queue.get.
"""
from __future__ import annotations

import struct

from spark_mq.mq.message import MD_FIELDS

MQCC_FAILED = 2


def _layout(opts) -> tuple[struct.Struct, list[str]] | None:
    fmt = getattr(opts, "_MQOpts__format", None)
    members = getattr(opts, "_MQOpts__list", None)
    if not fmt or not members or any(len(m) > 3 and m[3] != 1 for m in members):
        return None
    return struct.Struct(fmt), [m[0] for m in members]


class RawGetter:
    def __init__(self, ibmmq, qmgr, queue, options: int, msg_handle: int):
        self.ibmmq = ibmmq
        module = getattr(ibmmq, "ibmmqc", None)
        self._mqget = getattr(module, "MQGET", None)
        md, gmo = ibmmq.MD(), ibmmq.GMO()
        md_layout, gmo_layout = _layout(md), _layout(gmo)
        self.available = bool(self._mqget and md_layout and gmo_layout)
        if not self.available:
            return
        self._hconn, self._hobj = qmgr.get_handle(), queue.get_handle()
        self._md_struct, md_names = md_layout
        self._gmo_struct, gmo_names = gmo_layout
        self._md_bytes = md.pack()
        self.md_index = tuple(md_names.index(name) for name in MD_FIELDS)
        self._group_status = gmo_names.index("GroupStatus")
        gmo.Options = options | ibmmq.CMQC.MQGMO_NO_WAIT
        gmo.MatchOptions = ibmmq.CMQC.MQMO_NONE
        gmo.MsgHandle = msg_handle
        self._gmo_no_wait = gmo.pack()
        self._gmo = gmo
        self._options = options

    def get(self, buffer: int, wait_ms: int):
        """(payload, MD field tuple in MD_FIELDS order, raw MD bytes, group status, reason):
        payload None with reason 2033 / 2080 (then the message stayed, say how big it is
        in the returned length) or any failure reason."""
        if wait_ms > 0:
            self._gmo.Options = self._options | self.ibmmq.CMQC.MQGMO_WAIT
            self._gmo.WaitInterval = wait_ms
            gmo = self._gmo.pack()
        else:
            gmo = self._gmo_no_wait
        data, md_out, gmo_out, length, comp, reason = self._mqget(
            self._hconn, self._hobj, self._md_bytes, gmo, buffer)
        if comp == MQCC_FAILED or reason:
            return None, None, md_out, length, reason
        fields = self._md_struct.unpack(md_out)
        md = tuple(fields[i] for i in self.md_index)
        status = self._gmo_struct.unpack(gmo_out)[self._group_status]
        return data, md, md_out, status, 0
