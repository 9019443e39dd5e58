"""Who may publish and subscribe (runs in the queue-manager process, under the lock).

As in MQ, authority on a topic string comes from the topic objects of the tree: the
nearest topic object at or above the string is checked first, then the next one up, as far
as SYSTEM.BASE.TOPIC; authority (PUB to publish, SUB to subscribe) on any of them is
enough. The checks themselves, and whether they apply at all (only on a queue manager
started with users), are security/checks.py's. A managed queue belongs to its subscriber:
the queue manager creates it, so the subscriber needs no authority on the model queue.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from spark_mq.embedded.server.errors import MQError
from spark_mq.embedded.server.security import checks
from spark_mq.mqi.constants import CMQC

if TYPE_CHECKING:
    from spark_mq.embedded.server.state import QueueManagerState

PUBLISH = CMQC.MQOO_OUTPUT
SUBSCRIBE = CMQC.MQOO_INPUT_AS_Q_DEF  # what security/checks.py reads as "needs SUB"


def authorize(qm: QueueManagerState, user: str, topic: str, options: int) -> None:
    """Raise MQRC_NOT_AUTHORIZED unless a topic object at or above `topic` allows it."""
    nodes = {node.topic_string: node.name for node in qm.pubsub.topics.values()}
    levels = topic.split("/") if topic else []
    refused: MQError | None = None
    while True:
        name = nodes.get("/".join(levels))
        if name is not None:
            try:
                checks.check_topic(qm, user, name, options)
                return
            except MQError as exc:
                refused = exc
        if not levels:
            break
        levels.pop()
    if refused is not None:
        raise refused


def own_managed_queue(qm: QueueManagerState, queue_name: str, user: str) -> None:
    checks.created_dynamic(qm, queue_name, user)
