"""MQPUT and MQPUT1 to a topic: a publication, delivered to every matching subscription
(runs in the queue-manager process, under the queue manager's lock).

The publication's MQMD is resolved as a put's is (context, ids), with the topic's
defaults: MQPER_PERSISTENCE_AS_TOPIC_DEF and MQPRI_PRIORITY_AS_TOPIC_DEF take DEFPSIST and
DEFPRTY from the topic tree. Each matching subscription gets its own message on its
queue, with:

* a MsgId of its own, and the subscription's SubCorrelId as CorrelId (the publisher's
  CorrelId for one made with MQSO_SET_CORREL_ID and MQCI_NONE);
* the subscription's PubPriority when it sets one (MQPRI_PRIORITY_AS_Q_DEF: the queue's);
* the subscriber's user as UserIdentifier, and the subscription's PubAccountingToken and
  PubApplIdentityData (the subscriber's with MQSO_SET_IDENTITY_CONTEXT, else made by the
  queue manager as for a default-context put); the origin context is the publisher's;
* the properties MQTopicString (and MQSubUserData, MQIsRetained where they apply) beside
  the publisher's own.

The persistence is the publication's: a non-persistent publication reaches a durable
subscription non-persistent, and is lost if the queue manager restarts before it is got.
A temporary (non-durable, managed) queue never stores a message, persistent or not.

Under syncpoint every copy joins the publisher's unit of work, so subscribers see the
publication at MQCMIT and never after MQBACK. A copy that cannot be delivered (queue full,
put inhibited, deleted) fails the whole publication when the topic's delivery rule asks for
it (PMSGDLV for persistent, NPMSGDLV for non-persistent publications: ALL, or ALLDUR for a
durable subscription) and is skipped otherwise.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from spark_mq.embedded.server.errors import MQError, WarnedPut
from spark_mq.embedded.server.matching import _lookup as lookup
from spark_mq.embedded.server.properties import check_properties
from spark_mq.embedded.server.pubsub import retained as retained_pubs
from spark_mq.embedded.server.pubsub import topics
from spark_mq.embedded.server.pubsub.state import RetainedPublication, Subscription
from spark_mq.embedded.server.queues import (
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
    TEMPORARY_DYNAMIC,
    AliasQueue,
    LocalQueue,
    Message,
)
from spark_mq.embedded.server.state import QMGR_CCSID, blank, check_md_header
from spark_mq.embedded.server.store import stored
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import MD, blank_padded

if TYPE_CHECKING:
    from spark_mq.embedded.server.state import Connection, Handle, QueueManagerState

_MDI = MD.index
_I_USER, _I_ACCOUNTING, _I_APPLID = (_MDI["UserIdentifier"], _MDI["AccountingToken"],
                                     _MDI["ApplIdentityData"])
_I_REPLYTOQMGR = _MDI["ReplyToQMgr"]
_TOPIC_KEYS = ("PUB", "DEFPSIST", "DEFPRTY", "NPMSGDLV", "PMSGDLV")
_TOPIC_STRING = "MQTopicString"


def publish(qm: QueueManagerState, conn: Connection, handle: Handle, md_bytes: bytes,
            options: int, context_hobj: int, props: list | None, body: bytes) -> bytes:
    """MQPUT on a topic handle; returns the publication's MD (WarnedPut on a warning)."""
    # put.py's MD handling is shared: imported here because put.py imports this module lazily
    from spark_mq.embedded.server.put import _CHAR_FIELDS, _apply_context
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
    if md[1] < 2:  # an MQMD version 1 has no group or segment fields
        md[I_GROUPID], md[I_SEQ], md[I_OFFSET] = NONE_ID, 1, 0
        md[I_FLAGS], md[I_ORIGLEN] = CMQC.MQMF_NONE, CMQC.MQOL_UNDEFINED
    if md[I_FLAGS] & (GROUP_FLAGS | SEGMENT_FLAGS) or options & CMQC.MQPMO_LOGICAL_ORDER:
        raise MQError(CMQC.MQRC_MSG_NOT_ALLOWED_IN_GROUP)  # topics take neither groups nor segments
    if md[I_CCSID] == CMQC.MQCCSI_Q_MGR:
        md[I_CCSID] = QMGR_CCSID
    warning = _resolve_topic_defaults(md, attrs)
    _apply_context(conn, handle, md, options, context_hobj)
    for index, length in _CHAR_FIELDS:
        md[index] = blank_padded(md[index], length)
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


def destination(qm: QueueManagerState, name: str) -> LocalQueue:
    """The local queue a subscription's publications go to (through an alias if need be)."""
    queue = qm.queues.get(name)
    if isinstance(queue, AliasQueue):
        queue = qm.queues.get(queue.attrs["TARGET"])
    if not isinstance(queue, LocalQueue) or queue.deleted:
        raise MQError(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    return queue


def copy_for(qm: QueueManagerState, sub: Subscription, md: list, body: bytes,
             props: list | None, topic: str, others: list[Message],
             retained: bool = False) -> Message | None:
    """The message one subscription gets for a publication (not yet on its queue), None
    when its selection string rejects it; `others`: the copies this publication already has,
    which count toward MAXDEPTH."""
    queue = destination(qm, sub.destination)
    if queue.attrs["PUT"] == "DISABLED":
        raise MQError(CMQC.MQRC_PUT_INHIBITED)
    if len(body) > min(queue.attrs["MAXMSGL"], qm.attrs["MAXMSGL"]):
        raise MQError(CMQC.MQRC_MSG_TOO_BIG_FOR_Q)
    if queue.depth + 1 + sum(1 for m in others if m.queue is queue) > queue.attrs["MAXDEPTH"]:
        raise MQError(CMQC.MQRC_Q_FULL)
    copy = list(md)
    copy[I_MSGID] = qm.new_msgid()
    if sub.correl_id != NONE_ID:
        copy[I_CORRELID] = sub.correl_id
    if sub.priority >= 0:
        copy[I_PRIORITY] = sub.priority
    elif sub.priority == CMQC.MQPRI_PRIORITY_AS_Q_DEF:
        copy[I_PRIORITY] = queue.attrs["DEFPRTY"]
    copy[_I_USER] = blank(sub.user, 12)
    copy[_I_ACCOUNTING], copy[_I_APPLID] = sub.accounting_token, sub.appl_identity
    added = [[_TOPIC_STRING, CMQC.MQTYPE_STRING, topic]]
    if sub.user_data:
        added.append(["MQSubUserData", CMQC.MQTYPE_STRING, sub.user_data])
    if retained:
        added.append(["MQIsRetained", CMQC.MQTYPE_BOOLEAN, True])
    # a property the publisher set under one of these names is replaced, as MQ sets them
    names = {item[0] for item in added}
    copy_props = [item for item in props or () if item[0] not in names] + added
    expires_at = time.time() + copy[I_EXPIRY] / 10.0 if copy[I_EXPIRY] > 0 else None
    message = Message(next(qm.seq), copy, body, copy_props, expires_at, queue)
    if sub.compiled_selector is not None and not sub.compiled_selector.matches(lookup(message)):
        return None
    if queue.definition_type == TEMPORARY_DYNAMIC:
        message.persistent = False  # a temporary queue is never stored, whatever the MQMD says
    sub.last_delivered = time.time()
    return message


def place(qm: QueueManagerState, conn: Connection | None, messages: list[Message],
          syncpoint: bool) -> None:
    """Put delivered copies on their queues: into the unit of work, or at once (persistent
    ones stored in one transaction)."""
    if not messages:
        return
    if syncpoint and conn is not None:
        conn.uow_puts.extend(messages)
        for message in messages:
            message.queue.pending_puts += 1
        return
    rows = [stored(m, m.queue.name) for m in messages if m.persistent]
    if rows:
        qm.store.apply(inserts=rows)
    for message in messages:
        message.queue.insert(message)
    qm.arrived.notify_all()
