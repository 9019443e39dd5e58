"""MQPUT and MQPUT1 to a topic: a publication, delivered to every matching subscription
(runs in the queue-manager process, under the queue manager's lock).

The publication's MQMD is resolved as a put's is (context, ids: md_context.py), with the
topic's defaults: MQPER_PERSISTENCE_AS_TOPIC_DEF and MQPRI_PRIORITY_AS_TOPIC_DEF take
DEFPSIST and DEFPRTY from the topic tree. Each matching subscription gets its own message on
its queue (delivery.py says what is in it).

Under syncpoint every copy joins the publisher's unit of work, so subscribers see the
publication at MQCMIT and never after MQBACK. A copy that cannot be delivered (queue full,
put inhibited, deleted) fails the whole publication when the topic's delivery rule asks for
it (PMSGDLV for persistent, NPMSGDLV for non-persistent publications: ALL, or ALLDUR for a
durable subscription) and is skipped otherwise.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from spark_mq.embedded.server.core.errors import MQError, WarnedPut
from spark_mq.embedded.server.core.md_context import apply_context, pad_char_fields
from spark_mq.embedded.server.core.properties import check_properties
from spark_mq.embedded.server.core.pubsub import topics
from spark_mq.embedded.server.core.pubsub.state import RetainedPublication
from spark_mq.embedded.server.core.queues import (
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
    Message,
)
from spark_mq.embedded.server.core.state import QMGR_CCSID, blank, check_md_header, check_reply_to
from spark_mq.embedded.server.verbs.pubsub import retained as retained_pubs
from spark_mq.embedded.server.verbs.pubsub.delivery import copy_for, place
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import MD

if TYPE_CHECKING:
    from spark_mq.embedded.server.core.state import Connection, Handle, QueueManagerState

_I_REPLYTOQMGR = MD.index["ReplyToQMgr"]
_TOPIC_KEYS = ("PUB", "DEFPSIST", "DEFPRTY", "NPMSGDLV", "PMSGDLV")


def publish(qm: QueueManagerState, conn: Connection, handle: Handle, md_bytes: bytes,
            options: int, context_hobj: int, props: list | None, body: bytes) -> bytes:
    """MQPUT on a topic handle; returns the publication's MD (WarnedPut on a warning)."""
    topic = handle.topic or ""
    attrs = topics.attributes(qm, topic, _TOPIC_KEYS)
    if attrs["PUB"] == "DISABLED":
        raise MQError(CMQC.MQRC_PUT_INHIBITED)
    if options & CMQC.MQPMO_SYNCPOINT and options & CMQC.MQPMO_NO_SYNCPOINT:
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)
    if len(md_bytes) != MD.size:
        raise MQError(CMQC.MQRC_MD_ERROR)
    md = MD.unpack(md_bytes)
    check_md_header(md)
    check_reply_to(conn, md)
    if md[1] < 2:  # an MQMD version 1 has no group or segment fields
        md[I_GROUPID], md[I_SEQ], md[I_OFFSET] = NONE_ID, 1, 0
        md[I_FLAGS], md[I_ORIGLEN] = CMQC.MQMF_NONE, CMQC.MQOL_UNDEFINED
    if md[I_FLAGS] & (GROUP_FLAGS | SEGMENT_FLAGS) or options & CMQC.MQPMO_LOGICAL_ORDER:
        raise MQError(CMQC.MQRC_MSG_NOT_ALLOWED_IN_GROUP)  # topics take neither groups nor segments
    if md[I_CCSID] == CMQC.MQCCSI_Q_MGR:
        md[I_CCSID] = QMGR_CCSID
    warning = _resolve_topic_defaults(md, attrs)
    apply_context(conn, handle, md, options, context_hobj)
    pad_char_fields(md)
    if md[_I_REPLYTOQMGR] == b" " * 48:
        md[_I_REPLYTOQMGR] = blank(qm.name, 48)
    if options & CMQC.MQPMO_NEW_MSG_ID or md[I_MSGID] == NONE_ID:
        md[I_MSGID] = qm.new_msgid()
    if options & CMQC.MQPMO_NEW_CORREL_ID:
        md[I_CORRELID] = qm.new_msgid()
    if props:
        check_properties(qm, props)
    syncpoint = bool(options & CMQC.MQPMO_SYNCPOINT)
    persistent = md[I_PERSISTENCE] == CMQC.MQPER_PERSISTENT
    rule = attrs["PMSGDLV" if persistent else "NPMSGDLV"]
    matched = [sub for sub in qm.pubsub.subscriptions.values()
               if not sub.options & CMQC.MQSO_PUBLICATIONS_ON_REQUEST
               and sub.matcher is not None and sub.matcher(topic)]
    copies: list[Message] = []
    for sub in matched:
        try:
            copy = copy_for(qm, sub, md, body, props, topic, copies)
        except MQError:
            if rule == "ALL" or (rule == "ALLDUR" and sub.durable):
                raise
            continue
        if copy is not None:
            copies.append(copy)
    if syncpoint and len(conn.uow_puts) + len(conn.uow_gets) + len(copies) > qm.attrs["MAXUMSGS"]:
        raise MQError(CMQC.MQRC_SYNCPOINT_LIMIT_REACHED)
    place(qm, conn, copies, syncpoint)
    if options & CMQC.MQPMO_RETAIN:
        retained_pubs.retain(qm, conn, RetainedPublication(topic, list(md), body, props, persistent),
                             syncpoint)
    qm.pubsub.publications[topic] = qm.pubsub.publications.get(topic, 0) + 1
    if not matched and options & CMQC.MQPMO_WARN_IF_NO_SUBS_MATCHED:
        warning = warning or CMQC.MQRC_NO_SUBS_MATCHED
    if warning:
        raise WarnedPut(MD.pack(md), warning)
    return MD.pack(md)


def _resolve_topic_defaults(md: list, attrs: dict) -> int:
    """Persistence and priority "as topic definition", and the checks a put makes of them."""
    warning = CMQC.MQRC_NONE
    persistence = md[I_PERSISTENCE]
    if persistence == CMQC.MQPER_PERSISTENCE_AS_TOPIC_DEF:
        md[I_PERSISTENCE] = (CMQC.MQPER_PERSISTENT if attrs["DEFPSIST"] == "YES"
                             else CMQC.MQPER_NOT_PERSISTENT)
    elif persistence not in (CMQC.MQPER_NOT_PERSISTENT, CMQC.MQPER_PERSISTENT):
        raise MQError(CMQC.MQRC_PERSISTENCE_ERROR)
    priority = md[I_PRIORITY]
    if priority == CMQC.MQPRI_PRIORITY_AS_TOPIC_DEF:
        md[I_PRIORITY] = int(attrs["DEFPRTY"])
    elif priority < -1:
        raise MQError(CMQC.MQRC_PRIORITY_ERROR)
    elif priority > 9:
        warning = CMQC.MQRC_PRIORITY_EXCEEDS_MAXIMUM
    expiry = md[I_EXPIRY]
    if expiry != CMQC.MQEI_UNLIMITED and expiry <= 0:
        raise MQError(CMQC.MQRC_EXPIRY_ERROR)
    return warning
