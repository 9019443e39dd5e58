"""Topic objects and the topic tree (runs in the queue-manager process, under the lock).

A topic string's levels ('price/fruit/apple') form a tree. An administrative topic object
(DEFINE TOPIC) names one node by its TOPICSTR; the attributes of any topic string come from
the nearest topic object at or above it, and an attribute that object leaves ASPARENT from
the next one up, as far as SYSTEM.BASE.TOPIC (TOPICSTR ''), which has them all.

`topic_string` combines an MQOD's or MQSD's ObjectName and ObjectString as MQ does: the
topic object's TOPICSTR, then '/', then the ObjectString; either alone when the other is
blank.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.pubsub.pubsub_state import TopicObject
from spark_mq.embedded.server.core.pubsub.topic_attributes import (
    AS_PARENT,
    BASE_TOPIC,
    BASE_TOPIC_ATTRIBUTES,
    MAX_TOPIC_STRING,
)
from spark_mq.mqi.constants import CMQC

if TYPE_CHECKING:
    from spark_mq.embedded.server.core.state import QueueManagerState


def topic_string(qm: QueueManagerState, object_name: str, object_string: str) -> str:
    """The full topic string an ObjectName and ObjectString name (MQRC_UNKNOWN_OBJECT_NAME
    for a topic object that does not exist, MQRC_TOPIC_STRING_ERROR for a bad string)."""
    if "\0" in object_string or len(object_string) > MAX_TOPIC_STRING:
        raise MQError(CMQC.MQRC_TOPIC_STRING_ERROR)
    if not object_name:
        if not object_string:
            raise MQError(CMQC.MQRC_UNKNOWN_OBJECT_NAME)  # neither names a topic
        return object_string
    topic = qm.pubsub.topics.get(object_name)
    if topic is None:
        raise MQError(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    base = topic.topic_string
    if not object_string:
        return base
    if not base:
        return object_string
    full = f"{base}/{object_string}"
    if len(full) > MAX_TOPIC_STRING:
        raise MQError(CMQC.MQRC_TOPIC_STRING_ERROR)
    return full


def by_topic_string(qm: QueueManagerState) -> dict[str, TopicObject]:
    return {topic.topic_string: topic for topic in qm.pubsub.topics.values()}


def admin_node(qm: QueueManagerState, topic: str) -> TopicObject | None:
    """The topic object at `topic` or nearest above it (None only without SYSTEM.BASE.TOPIC)."""
    nodes = by_topic_string(qm)
    levels = topic.split("/") if topic else []
    while True:
        found = nodes.get("/".join(levels))
        if found is not None:
            return found
        if not levels:
            return None
        levels.pop()


def attribute(qm: QueueManagerState, topic: str, key: str) -> Any:
    """One attribute of a topic string, inherited up the tree."""
    return attributes(qm, topic, (key,))[key]


def attributes(qm: QueueManagerState, topic: str, keys: tuple[str, ...]) -> dict[str, Any]:
    """Several attributes of a topic string, each from the nearest object that sets it."""
    nodes = by_topic_string(qm)
    levels = topic.split("/") if topic else []
    found: dict[str, Any] = {}
    while len(found) < len(keys):
        node = nodes.get("/".join(levels))
        if node is not None:
            for key in keys:
                value = node.attrs.get(key, "")
                if key not in found and value not in AS_PARENT:
                    found[key] = value
        if not levels:
            break
        levels.pop()
    for key in keys:  # without SYSTEM.BASE.TOPIC (deleted): MQ's own base values
        found.setdefault(key, BASE_TOPIC_ATTRIBUTES.get(key, ""))
    return found


def ensure_base_topic(qm: QueueManagerState) -> TopicObject | None:
    """SYSTEM.BASE.TOPIC, created when missing (a new queue manager, or a data directory
    from before publish/subscribe); returns it when it was created, for the caller to store."""
    if BASE_TOPIC in qm.pubsub.topics:
        return None
    topic = TopicObject(BASE_TOPIC, dict(BASE_TOPIC_ATTRIBUTES))
    qm.pubsub.topics[BASE_TOPIC] = topic
    return topic
