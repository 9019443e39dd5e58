"""Pub/sub state in the queue manager's store (runs in the queue-manager process).

Topic objects, durable subscriptions and persistent retained publications are rows of the
store's object table, so they are committed with the same SQLite durability as queue
definitions: kind "TOPIC" (by name), "SUB" (by subscription name) and "RETAINED" (by topic
string). Byte fields are kept as hex and messages in the wire codec, inside the row's JSON.
Non-durable subscriptions and non-persistent retained publications are never written: a
restarted queue manager has none, as MQ.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from spark_mq.embedded.server.core.pubsub.pubsub_state import RetainedPublication, Subscription, TopicObject
from spark_mq.embedded.server.core.pubsub.topic_attributes import DURABLE_MODEL, NON_DURABLE_MODEL
from spark_mq.embedded.server.core.pubsub.topic_matching import compile_pattern
from spark_mq.embedded.server.core.pubsub.topics import ensure_base_topic
from spark_mq.embedded.server.core.queue_objects import ModelQueue
from spark_mq.embedded.wire import decode, encode
from spark_mq.mqi.structs import MD

if TYPE_CHECKING:
    from spark_mq.embedded.server.core.state import QueueManagerState

TOPIC, SUB, RETAINED = "TOPIC", "SUB", "RETAINED"
KINDS = frozenset({TOPIC, SUB, RETAINED})
_BYTE_FIELDS = ("sub_id", "correl_id", "accounting_token", "appl_identity")
_KEPT_FIELDS = ("name", "topic_string", "topic_object", "wildcard_char", "durable", "managed",
                "destination", "options", "user", "user_data", "priority", "expiry", "selector",
                "sub_level", "admin", "any_user", "created", "altered", "stored")


# --- topics ------------------------------------------------------------------------------
def save_topic(qm: QueueManagerState, topic: TopicObject) -> None:
    qm.store.save_object(TOPIC, topic.name, {**topic.attrs, "_created": topic.created,
                                             "_altered": topic.altered})


def delete_topic(qm: QueueManagerState, name: str) -> None:
    qm.store.delete_object(TOPIC, name)


# --- subscriptions -------------------------------------------------------------------------
def save_subscription(qm: QueueManagerState, sub: Subscription) -> None:
    """Store a durable subscription (a non-durable one is never stored)."""
    if not sub.durable:
        return
    row: dict[str, Any] = {key: getattr(sub, key) for key in _KEPT_FIELDS}
    row.update({key: getattr(sub, key).hex() for key in _BYTE_FIELDS})
    qm.store.save_object(SUB, sub.name, row)


def delete_subscription(qm: QueueManagerState, sub: Subscription) -> None:
    if sub.durable:
        qm.store.delete_object(SUB, sub.name)


def _subscription(row: dict[str, Any]) -> Subscription:
    values = {key: row[key] for key in _KEPT_FIELDS if key in row}
    values.update({key: bytes.fromhex(row[key]) for key in _BYTE_FIELDS})
    sub = Subscription(**values)
    sub.matcher = compile_pattern(sub.topic_string, sub.wildcard_char)
    if sub.selector:  # it compiled when the subscription was made
        from spark_mq.mqi.selector import compile_selector
        sub.compiled_selector = compile_selector(sub.selector)
    return sub


# --- retained publications -----------------------------------------------------------------
def save_retained(qm: QueueManagerState, retained: RetainedPublication) -> None:
    """A persistent retained publication is stored; a non-persistent one replaces whatever
    was stored for its topic string with nothing (it is lost at a restart, as in MQ)."""
    if not retained.persistent:
        qm.store.delete_object(RETAINED, retained.topic_string)
        return
    message = encode([MD.pack(retained.md), retained.body, retained.props])
    qm.store.save_object(RETAINED, retained.topic_string, {"message": message.hex()})


def delete_retained(qm: QueueManagerState, topic_string: str) -> None:
    qm.store.delete_object(RETAINED, topic_string)


def _retained(topic_string: str, row: dict[str, Any]) -> RetainedPublication | None:
    value = decode(bytes.fromhex(row["message"]))
    if not isinstance(value, list) or len(value) != 3 or not isinstance(value[0], bytes):
        return None  # only save_retained writes these rows
    md_bytes, body, props = value
    return RetainedPublication(topic_string, MD.unpack(md_bytes), body, props, True)


# --- recovery --------------------------------------------------------------------------------
def restore(qm: QueueManagerState, rows: list[tuple[str, str, dict[str, Any]]]) -> None:
    """Reload the pub/sub rows recovery found (queues are loaded first: durable
    subscriptions name theirs)."""
    pubsub = qm.pubsub
    for kind, name, row in rows:
        if kind == TOPIC:
            created, altered = row.pop("_created", None), row.pop("_altered", None)
            topic = TopicObject(name, row)
            if created is not None:
                topic.created, topic.altered = created, altered or created
            pubsub.topics[name] = topic
        elif kind == SUB:
            pubsub.add(_subscription(row))
        elif kind == RETAINED:
            retained = _retained(name, row)
            if retained is not None:
                pubsub.retained[name] = retained


def ensure_system_objects(qm: QueueManagerState) -> None:
    """SYSTEM.BASE.TOPIC and the two model queues of managed subscriptions, as crtmqm makes
    them, on a new queue manager and on a data directory from before publish/subscribe."""
    created = ensure_base_topic(qm)
    if created is not None:
        save_topic(qm, created)
    for name, deftype in ((DURABLE_MODEL, "PERMDYN"), (NON_DURABLE_MODEL, "TEMPDYN")):
        if name not in qm.queues:
            # shared input, unlike SYSTEM.DEFAULT.MODEL.QUEUE: a subscription may be resumed
            # while its managed queue is open elsewhere
            model = ModelQueue(name, {"DEFTYPE": deftype, "DEFSOPT": "SHARED", "SHARE": "SHARE"})
            qm.queues[name] = model
            qm.store.save_object(model.kind, name, dict(model.attrs))
