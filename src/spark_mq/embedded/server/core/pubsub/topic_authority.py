"""Who may publish and subscribe (runs in the queue-manager process, under the lock).

As in MQ, authority on a topic string comes from the topic objects of the tree: the
nearest topic object at or above the string is checked first, then the next one up, as far
as SYSTEM.BASE.TOPIC; authority (PUB to publish, SUB to subscribe) on any of them is
enough. The checks themselves, and whether they apply at all (only on a queue manager
started with users), are core/security/checks.py's. A managed queue belongs to its subscriber:
the queue manager creates it, so the subscriber needs no authority on the model queue.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.security import checks
from spark_mq.mqi.constants import CMQC

if TYPE_CHECKING:
    from spark_mq.embedded.server.core.state import QueueManagerState

PUBLISH = CMQC.MQOO_OUTPUT
SUBSCRIBE = CMQC.MQOO_INPUT_AS_Q_DEF  # what core/security/checks.py reads as "needs SUB"


def authorize(qm: QueueManagerState, user: str, topic: str, options: int) -> None:
    """Raise MQRC_NOT_AUTHORIZED unless a topic object at or above `topic` allows it."""
    _walk(qm, topic, lambda name: checks.check_topic(qm, user, name, options))


def authorize_administration(qm: QueueManagerState, user: str, topic: str,
                             authorities: set[int]) -> None:
    """Raise MQRC_NOT_AUTHORIZED unless `user` holds `authorities` (MQAUTH_*, e.g. CTRL to
    administer a subscription, DSP to display one) on a topic object at or above `topic`,
    found as a subscription's SUB authority is."""
    _walk(qm, topic, lambda name: checks.check(qm, user, CMQC.MQOT_TOPIC, name, authorities))


def _walk(qm: QueueManagerState, topic: str, check: Callable[[str], None]) -> None:
    """`check` each topic object from the nearest at or above `topic` up to the root, until
    one passes; the last refusal when none does."""
    refused: MQError | None = None
    for name in admin_topic_names(qm, topic):
        try:
            check(name)
            return
        except MQError as exc:
            refused = exc
    if refused is not None:
        raise refused


def admin_topic_names(qm: QueueManagerState, topic: str) -> list[str]:
    """The topic objects whose authority a check of `topic` looks at, nearest first (what an
    authority event reports as AdminTopicNames)."""
    nodes = {node.topic_string: node.name for node in qm.pubsub.topics.values()}
    levels = topic.split("/") if topic else []
    found = []
    while True:
        name = nodes.get("/".join(levels))
        if name is not None:
            found.append(name)
        if not levels:
            return found
        levels.pop()


def own_managed_queue(qm: QueueManagerState, queue_name: str, user: str) -> None:
    checks.created_dynamic(qm, queue_name, user)
