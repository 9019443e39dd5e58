"""MQPUT and MQPUT1 to a topic: a publication, delivered to every matching subscription
(runs in the queue-manager process, under the queue manager's lock). A topic whose PUB is
DISABLED refuses it with MQRC_PUT_INHIBITED and IBM's Put Inhibited event (INHIBTEV).

The publication's MQMD is resolved as a put's is, by the same preamble (verbs/prepare_put.py:
context, ids), with the topic's defaults: MQPER_PERSISTENCE_AS_TOPIC_DEF and
MQPRI_PRIORITY_AS_TOPIC_DEF take DEFPSIST and DEFPRTY from the topic tree, and a topic takes
neither message groups nor segments. Each matching subscription gets its own message on
its queue (delivery.py says what is in it).

Under syncpoint every copy joins the publisher's unit of work, so subscribers see the
publication at MQCMIT and never after MQBACK. A copy that cannot be delivered (queue full,
put inhibited, deleted) fails the whole publication when the topic's delivery rule asks for
it (PMSGDLV for persistent, NPMSGDLV for non-persistent publications: ALL, or ALLDUR for a
durable subscription) and is skipped otherwise.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from spark_mq.embedded.server.core.outcomes import MQError, WarnedPut
from spark_mq.embedded.server.core.property_rules import check_properties
from spark_mq.embedded.server.core.pubsub import topics
from spark_mq.embedded.server.core.pubsub.pubsub_state import RetainedPublication
from spark_mq.embedded.server.core.queue_objects import I_PERSISTENCE, Message
from spark_mq.embedded.server.events import queue_manager as qmgr_events
from spark_mq.embedded.server.verbs.prepare_put import Destination, prepare_md
from spark_mq.embedded.server.verbs.pubsub import retained as retained_pubs
from spark_mq.embedded.server.verbs.pubsub.delivery import copy_for, place
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import MD

if TYPE_CHECKING:
    from spark_mq.embedded.server.core.state import Connection, Handle, QueueManagerState
    from spark_mq.embedded.server.verbs.reports import PutOne

_TOPIC_KEYS = ("PUB", "DEFPSIST", "DEFPRTY", "NPMSGDLV", "PMSGDLV")


def publish(qm: QueueManagerState, conn: Connection, handle: Handle, md_bytes: bytes,
            options: int, context_hobj: int, props: list | None, body: bytes,
            put1: PutOne | None = None) -> bytes:
    """MQPUT on a topic handle; returns the publication's MD (WarnedPut on a warning).
    `put1` (verbs/put.py's) sends the COA reports of the copies placed at once."""
    topic = handle.topic or ""
    attrs = topics.attributes(qm, topic, _TOPIC_KEYS)
    if attrs["PUB"] == "DISABLED":
        qmgr_events.inhibited(qm, conn, CMQC.MQRC_PUT_INHIBITED, "", topic=topic)
        raise MQError(CMQC.MQRC_PUT_INHIBITED)
    destination = Destination(attrs["DEFPSIST"] == "YES", int(attrs["DEFPRTY"]), groups=False,
                              reply_aliases=False)
    md, warning = prepare_md(qm, conn, handle, md_bytes, options, context_hobj, destination)
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
    if syncpoint and conn.uow_count() + len(copies) > qm.attrs["MAXUMSGS"]:
        raise MQError(CMQC.MQRC_SYNCPOINT_LIMIT_REACHED)
    place(qm, conn, copies, syncpoint, put1)
    if options & CMQC.MQPMO_RETAIN:
        retained_pubs.retain(qm, conn, RetainedPublication(topic, list(md), body, props, persistent),
                             syncpoint)
    qm.pubsub.publications[topic] = qm.pubsub.publications.get(topic, 0) + 1
    if not matched and options & CMQC.MQPMO_WARN_IF_NO_SUBS_MATCHED:
        warning = warning or CMQC.MQRC_NO_SUBS_MATCHED
    if warning:
        raise WarnedPut(MD.pack(md), warning)
    return MD.pack(md)

