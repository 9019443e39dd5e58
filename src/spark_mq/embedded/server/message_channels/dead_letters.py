"""What a channel's agent cannot deliver goes to the dead-letter queue behind an MQDLH
(core/dead_letter_header.py). The receiving agent puts there what it cannot put where it was
going; the sending agent what is too long for the channel (MAXMSGL)."""
from __future__ import annotations

from spark_mq.embedded.server.core.dead_letter_header import dead_letter_header, dead_letter_md
from spark_mq.embedded.server.verbs.local_connection import LocalConnection
from spark_mq.mqi.constants import CMQC


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
    header = dead_letter_header(qm_name, md, reason, dest_queue, dest_qmgr)
    dead = dead_letter_md(md)
    options = CMQC.MQPMO_SET_ALL_CONTEXT | (
        CMQC.MQPMO_SYNCPOINT if syncpoint else CMQC.MQPMO_NO_SYNCPOINT)
    local.put1(dead_letter_queue, "", dead, options, props, header + data)
