"""MQPUT (and MQSETMP) with the structures packed once, straight into ibmmq's C layer.

`Queue.put` packs the ~30 fields of the MQMD and the MQPMO through generic per-field Python
code, then unpacks both again: that is most of a put's cost in Python (see
../shared/reference/mqi-semantics.md, section 4). A writer puts many messages that differ in
a few fields, so it packs the MQMD from a template list with one `struct.Struct` (the MQMD
layout of spark_mq.mqi.structs, the project's one description of it), packs the MQPMO once,
and calls the same `ibmmqc.MQPUT` verb `Queue.put` calls (IBM's C extension, or the embedded
transport installed in its place). The layout is checked against `ibmmq.MD().pack()` at
start; if this ibmmq build differs, `PackedPut.create` returns None and the producer uses
`Queue.put`.
"""
from __future__ import annotations

import struct
from typing import Any

from spark_mq.mqi.structs import MD


class PackedPut:
    def __init__(self, ibmmq: Any) -> None:
        self.ibmmq = ibmmq
        self.verbs = ibmmq.ibmmqc
        self.struct = MD.struct
        self.index = MD.index
        self.template = list(self.struct.unpack(ibmmq.MD().pack()))
        # MQSETMP's option structures never change: pack them once too
        self.smpo, self.pd = ibmmq.SMPO().pack(), ibmmq.PD().pack()

    @classmethod
    def create(cls, ibmmq: Any) -> PackedPut | None:
        """A packer for this ibmmq build, or None when its MQMD is not packed as we know it."""
        if getattr(getattr(ibmmq, "ibmmqc", None), "MQPUT", None) is None:
            return None
        try:
            packer = cls(ibmmq)
            probe = ibmmq.MD(Priority=3, Format=b"MQSTR", CorrelId=b"c" * 24)
            ok = packer.md({"Priority": 3, "Format": b"MQSTR", "CorrelId": b"c" * 24}) == probe.pack()
        except (struct.error, TypeError, KeyError):
            return None
        return packer if ok else None

    def md(self, fields: dict[str, Any]) -> bytes:
        values = self.template[:]
        index = self.index
        for name, value in fields.items():
            values[index[name]] = value
        return self.struct.pack(*values)

    def set_property(self, hconn: int, hmsg: int, name: bytes, mq_type: int, value: Any,
                     length: int) -> None:
        """MQSETMP, as MessageHandle.properties.set makes it; raises ibmmq.MQMIError."""
        result = self.verbs.MQSETMP(hconn, hmsg, self.smpo, name, self.pd, mq_type, value, length)
        if result[0]:
            raise self.ibmmq.MQMIError(result[0], result[1])

    def put(self, hconn: int, hobj: int, md: bytes, pmo: bytes, body: bytes) -> None:
        """MQPUT; raises ibmmq.MQMIError on a failed or warned call, as Queue.put does."""
        result = self.verbs.MQPUT(hconn, hobj, md, pmo, body)
        if result[-2]:
            raise self.ibmmq.MQMIError(result[-2], result[-1])
