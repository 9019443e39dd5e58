"""A message for another queue manager, as it lies on a transmission queue (IBM docs: MQXQH,
MQMDE): the data starts with an MQXQH naming the destination (RemoteQName, RemoteQMgrName)
and holding the message's own MQMD as version 1; when the message uses version-2 fields
(group, segment, OriginalLength) an MQMDE with them follows and the embedded MQMD's Format
says MQHMDE. The transmission message's own MQMD is the queue manager's: Format MQXMIT, a
new MsgId, CorrelId = the message's MsgId, the report options without those a transmission
queue must not act on, the message's priority, persistence, expiry and identity context,
origin context of the queue manager.

A message too big for the transmission queue is segmented before it is wrapped (verbs/put.py,
as IBM MQ does for the queue it puts to): each segment is a transmission message of its own,
its MQMDE carrying the segment's GroupId, Offset, MsgFlags and OriginalLength, so the sender
and the receiving queue manager handle each as they would any message; the size that must
fit the transmission queue's MAXMSGL is the whole transmission message (`header_length`).
"""
from __future__ import annotations

from spark_mq.embedded.server.core.state import QMGR_CCSID, blank
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import MD, MD1, MDE, XQH

_I = MD.index
_V2_DEFAULTS = {"GroupId": b"\0" * 24, "MsgSeqNumber": 1, "Offset": 0,
                "MsgFlags": CMQC.MQMF_NONE, "OriginalLength": CMQC.MQOL_UNDEFINED}
#: the embedded MQMD's fields, by their index in a (version 2) MD field list
_V1 = [_I[name] for name in MD1.names]
_NO_NAME = b"\0" * 24


def wrap(qm_name: str, queue_name: str, qmgr_name: str, md: list, body: bytes,
         msg_id: bytes, put_date: bytes, put_time: bytes) -> tuple[list, bytes]:
    """The transmission message of a message put with `md` (resolved: MsgId set, context
    applied) for `queue_name` at `qmgr_name`: (its MQMD fields, its data)."""
    inner = [md[index] for index in _V1]
    inner[MD1.index["Version"]] = CMQC.MQMD_VERSION_1
    extension = b""
    if _needs_extension(md):
        extension = MDE.pack([
            b"MDE ", CMQC.MQMDE_VERSION_2, CMQC.MQMDE_LENGTH_2, md[_I["Encoding"]],
            md[_I["CodedCharSetId"]], md[_I["Format"]], 0, md[_I["GroupId"]],  # Flags: none defined
            md[_I["MsgSeqNumber"]], md[_I["Offset"]], md[_I["MsgFlags"]],
            md[_I["OriginalLength"]]])
        # the MQMD now describes the MQMDE, which describes the data (MQ's header chain)
        inner[MD1.index["Format"]] = CMQC.MQFMT_MD_EXTENSION
        inner[MD1.index["Encoding"]] = CMQC.MQENC_NATIVE
        inner[MD1.index["CodedCharSetId"]] = QMGR_CCSID
    header = XQH.pack([b"XQH ", CMQC.MQXQH_VERSION_1, blank(queue_name, 48),
                       blank(qmgr_name, 48), *inner])
    outer = list(md)
    for name, value in _queue_manager_fields(md, qm_name, msg_id, put_date, put_time).items():
        outer[_I[name]] = value
    outer[_I["Report"]] = md[_I["Report"]] & ~CMQC.MQRO_ACCEPT_UNSUP_IF_XMIT_MASK
    return outer, header + extension + body


def header_length(md: list) -> int:
    """How many bytes `wrap` puts before the data of a message put with `md`: what a
    transmission queue's MAXMSGL must hold besides the data (put.py segments by it)."""
    return XQH.size + (MDE.size if _needs_extension(md) else 0)


def _needs_extension(md: list) -> bool:
    return any(md[_I[name]] != default for name, default in _V2_DEFAULTS.items())


def _queue_manager_fields(md: list, qm_name: str, msg_id: bytes, put_date: bytes,
                          put_time: bytes) -> dict[str, object]:
    """The transmission MQMD's fields that are the queue manager's; the others (Report
    masked, MsgType, Expiry, Feedback, Priority, Persistence, ReplyTo, identity context)
    are the message's own."""
    return {
        "Version": CMQC.MQMD_VERSION_2, "Encoding": CMQC.MQENC_NATIVE,
        "CodedCharSetId": QMGR_CCSID, "Format": CMQC.MQFMT_XMIT_Q_HEADER,
        "MsgId": msg_id, "CorrelId": md[_I["MsgId"]], "BackoutCount": 0,
        "PutApplType": CMQC.MQAT_QMGR, "PutApplName": blank(qm_name, 28),
        "PutDate": put_date, "PutTime": put_time, "ApplOriginData": b"    ",
        "GroupId": _NO_NAME, "MsgSeqNumber": 1, "Offset": 0, "MsgFlags": CMQC.MQMF_NONE,
        "OriginalLength": CMQC.MQOL_UNDEFINED,
    }


def unwrap(data: bytes) -> tuple[str, str, list, bytes] | None:
    """(RemoteQName, RemoteQMgrName, the message's MQMD fields (version 2), its data) of a
    transmission message, or None when `data` does not start with a valid MQXQH (version 1,
    holding a version-1 MQMD), and, where that MQMD's Format says MQHMDE, a valid MQMDE
    (version 2, StrucLength MQMDE_LENGTH_2) behind it."""
    if len(data) < XQH.size or data[:4] != b"XQH ":
        return None
    fields = XQH.unpack(data[:XQH.size])
    if fields[XQH.index["Version"]] != CMQC.MQXQH_VERSION_1:
        return None
    inner = fields[XQH.index["MsgDesc.StrucId"]:]
    if inner[MD1.index["StrucId"]] != b"MD  " or inner[MD1.index["Version"]] != CMQC.MQMD_VERSION_1:
        return None
    md = list(inner) + [_V2_DEFAULTS[name] for name in _V2_DEFAULTS]
    md[_I["Version"]] = CMQC.MQMD_VERSION_2
    rest = data[XQH.size:]
    if md[_I["Format"]] == CMQC.MQFMT_MD_EXTENSION:
        if len(rest) < MDE.size or rest[:4] != b"MDE ":
            return None
        mde = MDE.unpack(rest[:MDE.size])
        if (mde[MDE.index["Version"]] != CMQC.MQMDE_VERSION_2
                or mde[MDE.index["StrucLength"]] != CMQC.MQMDE_LENGTH_2):
            return None
        for name in ("Encoding", "CodedCharSetId", "Format", "GroupId", "MsgSeqNumber",
                     "Offset", "MsgFlags", "OriginalLength"):
            md[_I[name]] = mde[MDE.index[name]]
        rest = rest[mde[MDE.index["StrucLength"]]:]
    name_of = fields[XQH.index["RemoteQName"]].decode(errors="replace").strip()
    qmgr_of = fields[XQH.index["RemoteQMgrName"]].decode(errors="replace").strip()
    return name_of, qmgr_of, md, rest
