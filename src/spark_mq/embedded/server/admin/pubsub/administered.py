"""What administrators do to topics and subscriptions, for MQSC (admin/pubsub/pubsub_mqsc.py) and PCF
(admin/command_server/pubsub_commands.py) alike (runs in the queue-manager process, under the
lock). Failures are ValueErrors with the text runmqsc shows; PCF maps them to its reasons.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from spark_mq.embedded.server.core.pubsub import storage, topics
from spark_mq.embedded.server.core.pubsub.pubsub_state import Subscription, TopicObject
from spark_mq.embedded.server.core.pubsub.topic_attributes import (
    BASE_TOPIC,
    TOPIC_ATTRIBUTES,
    default_topic_attributes,
)
from spark_mq.embedded.server.core.pubsub.topic_matching import compile_pattern, fixed_prefix
from spark_mq.embedded.server.core.queue_objects import LocalQueue, ModelQueue
from spark_mq.embedded.server.verbs import dynamic_queues
from spark_mq.embedded.server.verbs.pubsub import retained
from spark_mq.embedded.server.verbs.pubsub import subscribe as subscriptions
from spark_mq.mqi.constants import CMQC

if TYPE_CHECKING:
    from spark_mq.embedded.server.core.state import QueueManagerState

NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")


class InUse(ValueError):
    """The subscription is open in an application (PCF: MQRCCF_SUBSCRIPTION_IN_USE)."""


class NotFound(ValueError):
    """No such topic object or subscription."""


# === topics ================================================================================
def define_topic(qm: QueueManagerState, name: str, attrs: dict[str, Any], replace: bool) -> None:
    if not NAME.fullmatch(name):
        raise ValueError(f"topic name '{name}' is not valid")
    existing = qm.pubsub.topics.get(name)
    if existing is not None and not replace:
        raise ValueError(f"TOPIC({name}) already exists; use REPLACE")
    topic_string = str(attrs.get("TOPICSTR", existing.topic_string if existing else ""))
    if existing is None and "TOPICSTR" not in attrs:
        raise ValueError("TOPICSTR is required on DEFINE TOPIC")
    if existing is not None and topic_string != existing.topic_string:
        raise ValueError(f"the TOPICSTR of TOPIC({name}) cannot be changed")
    _check_topic_string_free(qm, name, topic_string)
    if existing is None:
        topic = TopicObject(name, {**default_topic_attributes(), **attrs})
        qm.pubsub.topics[name] = topic
    else:
        topic = existing
        topic.attrs.update(attrs)
        topic.altered = time.time()
    storage.save_topic(qm, topic)


def alter_topic(qm: QueueManagerState, name: str, attrs: dict[str, Any]) -> None:
    topic = qm.pubsub.topics.get(name)
    if topic is None:
        raise NotFound(f"TOPIC({name}) not found")
    if "TOPICSTR" in attrs and attrs["TOPICSTR"] != topic.topic_string:
        raise ValueError("TOPICSTR cannot be altered")
    topic.attrs.update(attrs)
    topic.altered = time.time()
    storage.save_topic(qm, topic)


def delete_topic(qm: QueueManagerState, name: str) -> None:
    if name not in qm.pubsub.topics:
        raise NotFound(f"TOPIC({name}) not found")
    if name == BASE_TOPIC:
        raise ValueError(f"{BASE_TOPIC} is the root of the topic tree and cannot be deleted")
    del qm.pubsub.topics[name]
    storage.delete_topic(qm, name)


def _check_topic_string_free(qm: QueueManagerState, name: str, topic_string: str) -> None:
    for other in qm.pubsub.topics.values():
        if other.name != name and other.topic_string == topic_string:
            raise ValueError(f"TOPICSTR('{topic_string}') is already the topic string of "
                             f"TOPIC({other.name})")


def topic_values(topic: TopicObject) -> dict[str, Any]:
    """A topic object's attributes as DISPLAY TOPIC shows them."""
    values = {key: topic.attrs.get(key, spec.default) for key, spec in TOPIC_ATTRIBUTES.items()}
    values.update({k: v for k, v in topic.attrs.items() if k not in values})
    values.update(_dates("ALT", topic.altered), **_dates("CRT", topic.created))
    return values


# === subscriptions =========================================================================
@dataclass(frozen=True)
class SubscriptionDetails:
    """What else DEFINE SUB may say: the CorrelId publications carry (DESTCORL; None: one
    the queue manager makes), their expiry (EXPIRY, tenths of a second, -1 unlimited; kept,
    as MQSUB's SubExpiry is), publications on request only (REQONLY), the subscription
    level (SUBLEVEL), the accounting token and application identity publications carry
    (PUBACCT, PUBAPPID; None: the defaults), and attributes only kept and shown (`stored`)."""
    correl_id: bytes | None = None
    expiry: int = -1
    on_request: bool = False
    sub_level: int = 1
    accounting_token: bytes | None = None
    appl_identity: bytes | None = None
    stored: dict[str, str] = field(default_factory=dict)


def define_subscription(qm: QueueManagerState, name: str, topic_string: str, topic_object: str,
                        destination: str, managed: bool, replace: bool, user: str,
                        user_data: str = "", selector: str = "", priority: int = -3,
                        any_user: bool = True, wildcard_char: bool = False,
                        details: SubscriptionDetails | None = None) -> Subscription:
    """DEFINE SUB / Create Subscription: a durable administrative subscription (SUBTYPE
    ADMIN), resumable by any user unless VARUSER(FIXED)."""
    details = details or SubscriptionDetails()
    if not name:
        raise ValueError("a subscription needs a name")
    existing = qm.pubsub.named(name)
    if existing is not None:
        if not replace:
            raise ValueError(f"SUB({name}) already exists; use REPLACE")
        if existing.holder is not None:
            raise InUse(f"SUB({name}) is in use")
    full = topics.topic_string(qm, topic_object, topic_string) if (topic_object or topic_string) \
        else ""
    if not full and existing is None:
        raise ValueError("TOPICSTR or TOPICOBJ is required on DEFINE SUB")
    if existing is not None:
        if full and full != existing.topic_string:
            raise ValueError(f"the topic of SUB({name}) cannot be changed")
        existing.destination = destination or existing.destination
        existing.user_data, existing.priority = user_data, priority
        _detail(existing, details)
        existing.altered = time.time()
        storage.save_subscription(qm, existing)
        return existing
    if managed:
        model_name = topics.attribute(qm, fixed_prefix(full, wildcard_char), "MDURMDL")
        model = qm.queues.get(model_name)
        if not isinstance(model, ModelQueue):
            raise ValueError(f"the model queue {model_name} for managed subscriptions does not exist")
        destination = dynamic_queues.create(qm, model, subscriptions.MANAGED_DURABLE_PREFIX).name
    elif not isinstance(qm.queues.get(destination), LocalQueue) and destination not in qm.queues:
        raise ValueError(f"DEST({destination}) is not a queue")
    sub = Subscription(
        sub_id=qm.new_msgid(), name=name, topic_string=full, topic_object=topic_object,
        wildcard_char=wildcard_char, durable=True, managed=managed, destination=destination,
        correl_id=qm.new_msgid(), options=CMQC.MQSO_CREATE | CMQC.MQSO_DURABLE, user=user,
        user_data=user_data, priority=priority, selector=selector, admin=True, any_user=any_user)
    _detail(sub, details)
    sub.matcher = compile_pattern(full, wildcard_char)
    if selector:
        from spark_mq.mqi.selector import SelectorError, compile_selector
        try:
            sub.compiled_selector = compile_selector(selector)
        except SelectorError as exc:
            raise ValueError(f"SELECTOR is not valid: {exc}") from None
    qm.pubsub.add(sub)
    storage.save_subscription(qm, sub)
    retained.send(qm, sub)
    return sub


def _detail(sub: Subscription, details: SubscriptionDetails) -> None:
    if details.correl_id is not None:
        sub.correl_id = details.correl_id
    if details.accounting_token is not None:
        sub.accounting_token = details.accounting_token
    if details.appl_identity is not None:
        sub.appl_identity = details.appl_identity
    sub.expiry, sub.sub_level = details.expiry, details.sub_level
    sub.options = (sub.options | CMQC.MQSO_PUBLICATIONS_ON_REQUEST if details.on_request
                   else sub.options & ~CMQC.MQSO_PUBLICATIONS_ON_REQUEST)
    sub.stored = dict(details.stored)


def find_subscriptions(qm: QueueManagerState, name: str | None = None,
                       sub_id: bytes | None = None) -> list[Subscription]:
    """By SubId, or by name (a trailing '*' is generic), sorted by name."""
    subs = list(qm.pubsub.subscriptions.values())
    if sub_id is not None:
        subs = [sub for sub in subs if sub.sub_id == sub_id]
    if name is not None:
        subs = [sub for sub in subs if _name_matches(name, sub.name)]
    return sorted(subs, key=lambda sub: (sub.name, sub.sub_id))


def _name_matches(pattern: str, name: str) -> bool:
    if pattern.endswith("*"):
        return name.startswith(pattern[:-1])
    return name == pattern


def alter_subscription(qm: QueueManagerState, sub: Subscription, destination: str | None = None,
                       user_data: str | None = None, priority: int | None = None,
                       user: str | None = None, any_user: bool | None = None) -> None:
    """ALTER SUB / Change Subscription: what IBM MQ lets change (None: unchanged); the topic,
    selector, wildcard schema and destination class stay what DEFINE made them."""
    if sub.holder is not None:
        raise InUse(f"SUB({sub.name}) is in use by an application")
    if destination is not None:
        if sub.managed:
            raise ValueError(f"DEST of SUB({sub.name}) is managed by the queue manager "
                             "(DESTCLAS(MANAGED)); it cannot be changed")
        if destination not in qm.queues:
            raise ValueError(f"DEST({destination}) is not a queue")
        sub.destination = destination
    if user_data is not None:
        sub.user_data = user_data
    if priority is not None:
        sub.priority = priority
    if user is not None:
        sub.user = user
    if any_user is not None:
        sub.any_user = any_user
    sub.altered = time.time()
    storage.save_subscription(qm, sub)


def delete_subscription(qm: QueueManagerState, sub: Subscription) -> None:
    if sub.holder is not None:
        raise InUse(f"SUB({sub.name}) is in use by an application")
    subscriptions.remove(qm, sub)


def subscription_values(sub: Subscription) -> dict[str, Any]:
    """A subscription's attributes as DISPLAY SUB shows them."""
    return {
        "SUBID": sub.sub_id.hex().upper(), "TOPICSTR": sub.topic_string,
        "TOPICOBJ": sub.topic_object, "DEST": sub.destination, "DESTQMGR": "",
        "DESTCLAS": "MANAGED" if sub.managed else "PROVIDED",
        "DURABLE": "YES" if sub.durable else "NO",
        "SUBTYPE": "ADMIN" if sub.admin else "API", "SUBUSER": sub.user,
        "USERDATA": sub.user_data, "SELECTOR": sub.selector,
        "WSCHEMA": "CHAR" if sub.wildcard_char else "TOPIC",
        "VARUSER": "ANY" if sub.any_user else "FIXED",
        "PUBPRTY": {-3: "ASPUB", -1: "ASQDEF"}.get(sub.priority, sub.priority),
        "DESTCORL": sub.correl_id.hex().upper(), "SUBLEVEL": sub.sub_level,
        "EXPIRY": "UNLIMITED" if sub.expiry < 0 else sub.expiry,
        "REQONLY": "YES" if sub.options & CMQC.MQSO_PUBLICATIONS_ON_REQUEST else "NO",
        "PUBACCT": sub.accounting_token.hex().upper(),
        "PUBAPPID": sub.appl_identity.decode("utf-8", "replace").strip(),
        "SELTYPE": "STANDARD" if sub.selector else "NONE",
        "PSPROP": "MSGPROP", "SUBSCOPE": "ALL", **sub.stored,
        **_dates("ALT", sub.altered), **_dates("CRDATE", sub.created),
    }


def topic_status(qm: QueueManagerState, pattern: str) -> list[dict[str, Any]]:
    """DISPLAY TPSTATUS: each known topic string `pattern` matches ('#' and '+' as in a
    subscription), with its subscriptions, publishers and retained publication."""
    known = {topic.topic_string for topic in qm.pubsub.topics.values()}
    known |= {sub.topic_string for sub in qm.pubsub.subscriptions.values()}
    known |= set(qm.pubsub.retained) | set(qm.pubsub.publications)
    publishers: dict[str, int] = {}
    for conn in qm.connections.values():
        for handle in conn.handles.values():
            if handle.topic is not None:
                publishers[handle.topic] = publishers.get(handle.topic, 0) + 1
    known |= set(publishers)
    matcher = compile_pattern(pattern, False)
    rows = []
    for topic_string in sorted(known):
        if not matcher(topic_string):
            continue
        node = topics.admin_node(qm, topic_string)
        rows.append({
            "TOPICSTR": topic_string, "ADMIN": node.name if node and node.topic_string == topic_string
            else "", "PUBCOUNT": publishers.get(topic_string, 0),
            "SUBCOUNT": sum(1 for sub in qm.pubsub.subscriptions.values()
                            if sub.matcher is not None and sub.matcher(topic_string)),
            "RETAINED": "YES" if topic_string in qm.pubsub.retained else "NO",
            "PUBLISHED": qm.pubsub.publications.get(topic_string, 0),
        })
    return rows


def _dates(prefix: str, when: float) -> dict[str, str]:
    stamp = time.localtime(when)
    if prefix == "CRDATE":
        return {"CRDATE": time.strftime("%Y-%m-%d", stamp), "CRTIME": time.strftime("%H.%M.%S", stamp)}
    return {f"{prefix}DATE": time.strftime("%Y-%m-%d", stamp),
            f"{prefix}TIME": time.strftime("%H.%M.%S", stamp)}
