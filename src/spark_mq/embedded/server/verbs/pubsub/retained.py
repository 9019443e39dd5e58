"""Retained publications (runs in the queue-manager process, under the lock).

A publication put with MQPMO_RETAIN is kept as the topic string's retained publication,
replacing the one before it (under syncpoint: at MQCMIT, and not at all after MQBACK). A
new subscription gets the retained publications its topic string matches, unless it asks
for MQSO_NEW_PUBLICATIONS_ONLY; MQSUBRQ(MQSR_ACTION_PUBLICATION) sends them again on
request. Either way each copy carries MQIsRetained. A persistent retained publication
survives a restart; a non-persistent one does not.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.pubsub import storage
from spark_mq.embedded.server.core.pubsub.pubsub_state import RetainedPublication, Subscription
from spark_mq.embedded.server.verbs.pubsub.delivery import copy_for, place
from spark_mq.mqi.constants import CMQC

if TYPE_CHECKING:
    from spark_mq.embedded.server.core.queue_objects import Message
    from spark_mq.embedded.server.core.state import Connection, QueueManagerState


def retain(qm: QueueManagerState, conn: Connection, publication: RetainedPublication,
           syncpoint: bool) -> None:
    if syncpoint:
        qm.pubsub.pending_retained.setdefault(conn.conn_id, []).append(publication)
        return
    _keep(qm, publication)


def _keep(qm: QueueManagerState, publication: RetainedPublication) -> None:
    qm.pubsub.retained[publication.topic_string] = publication
    storage.save_retained(qm, publication)


def commit(qm: QueueManagerState, conn: Connection) -> None:
    """MQCMIT: the retained publications put in the unit of work are kept."""
    for publication in qm.pubsub.pending_retained.pop(conn.conn_id, ()):
        _keep(qm, publication)


def backout(qm: QueueManagerState, conn: Connection) -> None:
    qm.pubsub.pending_retained.pop(conn.conn_id, None)


def send(qm: QueueManagerState, sub: Subscription) -> int:
    """Deliver the retained publications `sub` matches to its queue, outside any unit of
    work; returns how many. A copy that cannot be delivered is skipped."""
    copies: list[Message] = []
    for topic, publication in sorted(qm.pubsub.retained.items()):
        if sub.matcher is None or not sub.matcher(topic):
            continue
        try:
            copy = copy_for(qm, sub, publication.md, publication.body, publication.props, topic,
                            copies, retained=True)
        except MQError:
            continue
        if copy is not None:
            copies.append(copy)
    place(qm, None, copies, syncpoint=False)
    return len(copies)


def request(qm: QueueManagerState, sub: Subscription) -> int:
    """MQSUBRQ(MQSR_ACTION_PUBLICATION): MQRC_NO_RETAINED_MSG when there is none to send."""
    count = send(qm, sub)
    if not count:
        raise MQError(CMQC.MQRC_NO_RETAINED_MSG)
    return count
