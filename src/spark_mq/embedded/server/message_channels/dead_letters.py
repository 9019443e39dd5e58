"""What a channel's agent cannot deliver goes to the dead-letter queue behind an MQDLH
(IBM docs: MQDLH): the reason, where the message was going, and the Encoding, CCSID and
Format of the data that follows; the message's own MQMD, context included, is kept except
that it now describes the MQDLH (Format MQDEAD). The receiving agent puts there what it cannot
put where it was going; the sending agent what is too long for the channel (MAXMSGL)."""
from __future__ import annotations

import time

from spark_mq.embedded.server.core.state import QMGR_CCSID, blank
from spark_mq.embedded.server.verbs.local_connection import LocalConnection
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import DLH, MD

_I = MD.index


def dead_letter_queue(qmgr_attrs: dict, channel_attrs: dict) -> str:
    """The dead-letter queue a channel's agent may use: DEADQ, unless the channel says
    USEDLQ(NO) (IBM docs: "UseDLQ"); "" when there is none."""
    if channel_attrs.get("USEDLQ") == "NO":
        return ""
    return str(qmgr_attrs.get("DEADQ", "")).strip()


def put_dead_letter(local: LocalConnection, qm_name: str, dead_letter_queue: str, md: list,
                    data: bytes, props: list | None, reason: int, dest_queue: str,
                    dest_qmgr: str, syncpoint: bool) -> None:
    """Put the message on `dead_letter_queue`; an MQError when that fails too."""
    now = time.time()
    header = DLH.pack([
        b"DLH ", CMQC.MQDLH_VERSION_1, reason, blank(dest_queue, 48), blank(dest_qmgr, 48),
        md[_I["Encoding"]], md[_I["CodedCharSetId"]], md[_I["Format"]], CMQC.MQAT_QMGR,
        blank(qm_name, 28), time.strftime("%Y%m%d", time.gmtime(now)).encode(),
        time.strftime("%H%M%S", time.gmtime(now)).encode() + b"%02d" % (int(now * 100) % 100)])
    dead = list(md)
    dead[_I["Format"]] = CMQC.MQFMT_DEAD_LETTER_HEADER
    dead[_I["Encoding"]] = CMQC.MQENC_NATIVE
    dead[_I["CodedCharSetId"]] = QMGR_CCSID
    options = CMQC.MQPMO_SET_ALL_CONTEXT | (
        CMQC.MQPMO_SYNCPOINT if syncpoint else CMQC.MQPMO_NO_SYNCPOINT)
    local.put1(dead_letter_queue, "", dead, options, props, header + data)
