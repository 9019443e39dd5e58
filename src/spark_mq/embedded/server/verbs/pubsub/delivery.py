"""Delivering a publication to subscriptions (runs in the queue-manager process, under the
queue manager's lock): the message each subscription gets, and placing those messages on
their queues. publish.py delivers new publications, retained.py retained ones.

Each subscription gets its own message on its queue, with:

* a MsgId of its own, and the subscription's SubCorrelId as CorrelId (the publisher's
  CorrelId for one made with MQSO_SET_CORREL_ID and MQCI_NONE);
* the subscription's PubPriority when it sets one (MQPRI_PRIORITY_AS_Q_DEF: the queue's);
* the subscriber's user as UserIdentifier, and the subscription's PubAccountingToken and
  PubApplIdentityData (the subscriber's with MQSO_SET_IDENTITY_CONTEXT, else made by the
  queue manager as for a default-context put); the origin context is the publisher's;
* the properties MQTopicString (and MQSubUserData, MQIsRetained where they apply) beside
  the publisher's own.

The Report options are the publication's: each copy placed on a subscriber's queue is a
message that arrived there, with its own COA report when the publisher asked for one, and
its COD when it is got (IBM docs, "Report (MQLONG)": report options on a put to a topic
"can cause zero, one, or many report messages to be generated", one per subscriber's copy).

The persistence is the publication's: a non-persistent publication reaches a durable
subscription non-persistent, and is lost if the queue manager restarts before it is got.
A temporary (non-durable, managed) queue never stores a message, persistent or not.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from spark_mq.embedded.server.core.message_matching import selector_values
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.pubsub.pubsub_state import Subscription
from spark_mq.embedded.server.core.queue_objects import (
    I_CORRELID,
    I_EXPIRY,
    I_MSGID,
    I_PRIORITY,
    NONE_ID,
    TEMPORARY_DYNAMIC,
    AliasQueue,
    LocalQueue,
    Message,
)
from spark_mq.embedded.server.core.state import blank
from spark_mq.embedded.server.events import DepthChange, depth_changed
from spark_mq.embedded.server.triggering import hook as triggering
from spark_mq.embedded.server.verbs import reports
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import MD

if TYPE_CHECKING:
    from spark_mq.embedded.server.core.state import Connection, QueueManagerState

_MDI = MD.index
_I_USER, _I_ACCOUNTING, _I_APPLID = (_MDI["UserIdentifier"], _MDI["AccountingToken"],
                                     _MDI["ApplIdentityData"])
_TOPIC_STRING = "MQTopicString"


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
        depth_changed(qm, queue, DepthChange.FULL)
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
    if sub.compiled_selector is not None and not sub.compiled_selector.matches(selector_values(message)):
        return None
    if queue.definition_type == TEMPORARY_DYNAMIC:
        message.persistent = False  # a temporary queue is never stored, whatever the MQMD says
    sub.last_delivered = time.time()
    return message


def place(qm: QueueManagerState, conn: Connection | None, messages: list[Message],
          syncpoint: bool, put1: reports.PutOne | None = None) -> None:
    """Put delivered copies on their queues: into the unit of work (whose commit sends their
    COA reports), or at once, persistent ones and, given `put1` (a publisher's put), the
    COA reports the copies ask for stored in one transaction."""
    if not messages:
        return
    in_unit = syncpoint and conn is not None
    if in_unit:
        assert conn is not None
        conn.uow_puts.extend(messages)
        for message in messages:
            message.queue.pending_puts += 1
    else:
        carrier = reports.of_unit_of_work(qm, put1, conn, messages, []) \
            if put1 is not None and conn is not None else None
        reports.store_with(qm, carrier, [m for m in messages if m.persistent])
        for message in messages:
            message.queue.insert(message)
        qm.arrived.notify_all()
        reports.released(qm, carrier)
    for queue in {id(m.queue): m.queue for m in messages}.values():  # each queue once
        triggering.put(qm, conn, queue, [m for m in messages if m.queue is queue], in_unit)
    for queue in {id(m.queue): m.queue for m in messages}.values():   # each queue once
        depth_changed(qm, queue, DepthChange.PUT, [m for m in messages if m.queue is queue])
