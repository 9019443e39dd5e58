"""The trigger message: an MQTM (IBM docs "MQTM - Trigger message") behind an MQMD with
Format MQTRIG, non-persistent, at the initiation queue's default priority, put by the
queue manager itself; and where it goes. A trigger message that cannot go on its
initiation queue (full, puts inhibited) goes to the dead-letter queue behind an MQDLH, as
IBM MQ does; when that fails too it is dropped, with a line in the log.
"""
from __future__ import annotations

import logging
import time
from typing import Any

from spark_mq.embedded.server.core.md_context import pad_char_fields, put_stamp
from spark_mq.embedded.server.core.process_definitions import appl_type_value
from spark_mq.embedded.server.core.queue_objects import NONE_ID, LocalQueue, Message
from spark_mq.embedded.server.core.state import QMGR_CCSID, QueueManagerState, blank
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import DLH, MD, TM, default_md

log = logging.getLogger("spark_mq.embedded")

_I = MD.index
#: what the queue manager's own messages carry as their putting application
_QMGR_USER = "mqm"


def trigger_body(queue: LocalQueue, process_name: str, process: dict[str, Any]) -> bytes:
    """The MQTM for `queue`, naming `process` (empty: a transmission queue without one)."""
    appl_type = appl_type_value(str(process["APPLTYPE"])) if process else 0
    return TM.pack([
        CMQC.MQTM_STRUC_ID, CMQC.MQTM_VERSION_1, blank(queue.name, 48),
        blank(process_name, 48), blank(str(queue.attrs.get("TRIGDATA", "")), 64), appl_type,
        blank(str(process.get("APPLICID", "")), 256), blank(str(process.get("ENVRDATA", "")), 128),
        blank(str(process.get("USERDATA", "")), 128)])


def trigger_message(qm: QueueManagerState, initq: LocalQueue, body: bytes,
                    fmt: bytes) -> Message:
    """A message of the queue manager's for `initq` (not yet on it)."""
    now = time.time()
    date, hms = put_stamp(int(now))
    md = MD.unpack(MD.pack(default_md(
        Format=fmt, Priority=int(initq.attrs.get("DEFPRTY", 0)),
        Persistence=CMQC.MQPER_NOT_PERSISTENT, CodedCharSetId=QMGR_CCSID,
        MsgId=qm.new_msgid(), CorrelId=NONE_ID, GroupId=NONE_ID,
        UserIdentifier=_QMGR_USER.encode(), PutApplType=CMQC.MQAT_QMGR,
        PutApplName=qm.name.encode()[:28], PutDate=date,
        PutTime=hms + b"%02d" % (int(now * 100) % 100))))
    pad_char_fields(md)
    return Message(next(qm.seq), md, body, None, None, initq)


def refusal(qm: QueueManagerState, initq: LocalQueue) -> int:
    """Why `initq` cannot take one more message now (MQ's reason), 0 when it can."""
    if initq.attrs.get("PUT") == "DISABLED":
        return CMQC.MQRC_PUT_INHIBITED
    if initq.depth + 1 > int(initq.attrs["MAXDEPTH"]):
        return CMQC.MQRC_Q_FULL
    return 0


def place(qm: QueueManagerState, message: Message) -> None:
    """Put a trigger message on its initiation queue now, or on the dead-letter queue."""
    initq = message.queue
    reason = refusal(qm, initq)
    if not reason and qm.queues.get(initq.name) is initq:
        initq.insert(message)
        qm.arrived.notify_all()
        return
    _dead_letter(qm, message, reason or CMQC.MQRC_UNKNOWN_OBJECT_NAME)


def _dead_letter(qm: QueueManagerState, message: Message, reason: int) -> None:
    name = str(qm.attrs.get("DEADQ", "")).strip()
    dlq = qm.queues.get(name) if name else None
    if not isinstance(dlq, LocalQueue) or dlq.deleted or refusal(qm, dlq):
        log.warning("trigger message for initiation queue %s dropped: it cannot be put there "
                    "(reason %d) nor on a dead-letter queue (DEADQ %r)", message.queue.name,
                    reason, name)
        return
    md = message.md
    header = DLH.pack([
        CMQC.MQDLH_STRUC_ID, CMQC.MQDLH_VERSION_1, reason, blank(message.queue.name, 48),
        blank(qm.name, 48), md[_I["Encoding"]], md[_I["CodedCharSetId"]], md[_I["Format"]],
        CMQC.MQAT_QMGR, blank(qm.name, 28), md[_I["PutDate"]], md[_I["PutTime"]]])
    dead = trigger_message(qm, dlq, header + message.body, CMQC.MQFMT_DEAD_LETTER_HEADER)
    dead.md[_I["Priority"]] = md[_I["Priority"]]
    dlq.insert(dead)
    qm.arrived.notify_all()
