"""The MQPUT preamble a put to a queue (put.py) and a publication (pubsub/publish.py) share:
the put options checked against each other, the MQMD unpacked and checked, its "as
definition" values taken from the destination, its context filled (core/md_context.py), its
character fields blank padded, its reply-to queue manager named and its ids made (runs in
the queue-manager process, under the lock).

What differs between a queue and a topic is data, a `Destination`: where DEFPSIST and DEFPRTY
come from (MQPER_PERSISTENCE_AS_Q_DEF and MQPER_PERSISTENCE_AS_TOPIC_DEF are the same value,
as are the two MQPRI_PRIORITY_AS_... values), whether message groups and segments are taken
(a topic takes neither: MQRC_MSG_NOT_ALLOWED_IN_GROUP), whether a persistent message is kept
(a temporary dynamic queue stores nothing: MQRC_PERSISTENT_NOT_ALLOWED), and whether a blank
ReplyToQMgr resolves a reply-to queue alias. The checks run in one order for both, so a put
and a publication that are wrong in the same way fail with the same reason code.

What comes before (the destination's own refusals: PUT(DISABLED)) and after
(groups and segments, properties, placing the message) stays with each verb: their order
differs between the two, and IBM's reason codes depend on it.
"""
from __future__ import annotations

from dataclasses import dataclass

from spark_mq.embedded.server.core.md_context import apply_context, pad_char_fields
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.queue_objects import (
    GROUP_FLAGS,
    I_CCSID,
    I_CORRELID,
    I_EXPIRY,
    I_FLAGS,
    I_GROUPID,
    I_MSGID,
    I_OFFSET,
    I_ORIGLEN,
    I_PERSISTENCE,
    I_PRIORITY,
    I_SEQ,
    NONE_ID,
    SEGMENT_FLAGS,
)
from spark_mq.embedded.server.core.state import (
    QMGR_CCSID,
    Connection,
    Handle,
    QueueManagerState,
    blank,
    check_md_header,
    check_reply_to,
)
from spark_mq.embedded.server.resolution import names
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import MD, text

_I_REPLYTOQ, _I_REPLYTOQMGR = MD.index["ReplyToQ"], MD.index["ReplyToQMgr"]
_BLANK_NAME = b" " * 48


@dataclass(frozen=True)
class Destination:
    """What a put's destination decides about its MQMD (see the module docstring)."""
    persistent: bool            # DEFPSIST(YES): what MQPER_PERSISTENCE_AS_Q_DEF stands for
    priority: int               # DEFPRTY: what MQPRI_PRIORITY_AS_Q_DEF stands for
    groups: bool = True         # takes message groups and segments (a queue, not a topic)
    keeps_persistent: bool = True
    reply_aliases: bool = True  # a blank ReplyToQMgr resolves a reply-to queue alias


def prepare_md(qm: QueueManagerState, conn: Connection, handle: Handle, md_bytes: bytes,
               options: int, context_hobj: int, destination: Destination) -> tuple[list, int]:
    """The put's MQMD as it will be stored, and a warning reason (MQRC_NONE for none); the
    first failing check raises MQError with IBM's reason code."""
    _check_options(options)
    md = _unpacked(conn, md_bytes, options, destination.groups)
    if md[I_CCSID] == CMQC.MQCCSI_Q_MGR:
        md[I_CCSID] = QMGR_CCSID  # MQ stores the queue manager's CCSID, not "as qmgr"
    warning = _resolve_defaults(md, destination)
    if md[I_PERSISTENCE] == CMQC.MQPER_PERSISTENT and not destination.keeps_persistent:
        raise MQError(CMQC.MQRC_PERSISTENT_NOT_ALLOWED)
    apply_context(conn, handle, md, options, context_hobj)
    pad_char_fields(md)
    if md[_I_REPLYTOQMGR] == _BLANK_NAME:
        _name_reply_qmgr(qm, md, destination.reply_aliases)
    if options & CMQC.MQPMO_NEW_MSG_ID or md[I_MSGID] == NONE_ID:
        md[I_MSGID] = qm.new_msgid()
    if options & CMQC.MQPMO_NEW_CORREL_ID:
        md[I_CORRELID] = qm.new_msgid()
    return md, warning


def _check_options(options: int) -> None:
    """Options that contradict each other, for a queue and a topic alike."""
    if options & CMQC.MQPMO_SYNCPOINT and options & CMQC.MQPMO_NO_SYNCPOINT:
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)
    if options & CMQC.MQPMO_ASYNC_RESPONSE and options & CMQC.MQPMO_SYNC_RESPONSE:
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)


def _unpacked(conn: Connection, md_bytes: bytes, options: int, groups: bool) -> list:
    if len(md_bytes) != MD.size:
        raise MQError(CMQC.MQRC_MD_ERROR)
    md = MD.unpack(md_bytes)
    check_md_header(md)
    check_reply_to(conn, md)
    if md[1] < 2:  # an MQMD version 1 has no group or segment fields
        if groups and options & CMQC.MQPMO_LOGICAL_ORDER:
            raise MQError(CMQC.MQRC_WRONG_MD_VERSION)
        md[I_GROUPID], md[I_SEQ], md[I_OFFSET] = NONE_ID, 1, 0
        md[I_FLAGS], md[I_ORIGLEN] = CMQC.MQMF_NONE, CMQC.MQOL_UNDEFINED
    if not groups and (md[I_FLAGS] & (GROUP_FLAGS | SEGMENT_FLAGS)
                       or options & CMQC.MQPMO_LOGICAL_ORDER):
        raise MQError(CMQC.MQRC_MSG_NOT_ALLOWED_IN_GROUP)
    return md


def _resolve_defaults(md: list, destination: Destination) -> int:
    """Persistence and priority "as definition", and the checks a put makes of them and of
    the expiry; returns a warning reason or MQRC_NONE."""
    warning = CMQC.MQRC_NONE
    persistence = md[I_PERSISTENCE]
    if persistence == CMQC.MQPER_PERSISTENCE_AS_Q_DEF:
        md[I_PERSISTENCE] = (CMQC.MQPER_PERSISTENT if destination.persistent
                             else CMQC.MQPER_NOT_PERSISTENT)
    elif persistence not in (CMQC.MQPER_NOT_PERSISTENT, CMQC.MQPER_PERSISTENT):
        raise MQError(CMQC.MQRC_PERSISTENCE_ERROR)
    priority = md[I_PRIORITY]
    if priority == CMQC.MQPRI_PRIORITY_AS_Q_DEF:
        md[I_PRIORITY] = destination.priority
    elif priority < -1:
        raise MQError(CMQC.MQRC_PRIORITY_ERROR)
    elif priority > 9:
        warning = CMQC.MQRC_PRIORITY_EXCEEDS_MAXIMUM
    expiry = md[I_EXPIRY]
    if expiry != CMQC.MQEI_UNLIMITED and expiry <= 0:
        raise MQError(CMQC.MQRC_EXPIRY_ERROR)
    return warning


def _name_reply_qmgr(qm: QueueManagerState, md: list, reply_aliases: bool) -> None:
    """MQ names itself as the reply-to queue manager when the putter leaves it blank, unless
    ReplyToQ is a reply-to queue alias (a QREMOTE): then its RNAME and RQMNAME."""
    if not reply_aliases:
        md[_I_REPLYTOQMGR] = blank(qm.name, 48)
        return
    reply_q, reply_qmgr = names.reply_to(qm, text(md[_I_REPLYTOQ]))
    md[_I_REPLYTOQ], md[_I_REPLYTOQMGR] = blank(reply_q, 48), blank(reply_qmgr, 48)
