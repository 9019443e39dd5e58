"""What publish/subscribe keeps in the queue manager (runs in the queue-manager process).

`PubSubState` hangs off the queue manager's state (`QueueManagerState.pubsub`) and is read
and changed under the queue manager's lock, like everything else there.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class TopicObject:
    """An administrative topic object (DEFINE TOPIC): a name for a node of the topic tree,
    and attributes that node and the topics below it inherit (see topics.py)."""
    name: str
    attrs: dict[str, Any]
    created: float = field(default_factory=time.time)
    altered: float = field(default_factory=time.time)

    @property
    def topic_string(self) -> str:
        return str(self.attrs.get("TOPICSTR", ""))


@dataclass
class Subscription:
    """One subscription, durable or not, made by MQSUB or by an administrator."""
    sub_id: bytes                    # 24 bytes, unique; what PCF and DISPLAY SUB name it by
    name: str                        # SubName ('' for an unnamed non-durable subscription)
    topic_string: str                # the full topic string, wildcards included
    topic_object: str                # the topic object MQSD.ObjectName named ('' if none)
    wildcard_char: bool              # MQSO_WILDCARD_CHAR: '*' and '?' rather than '#' and '+'
    durable: bool
    managed: bool
    destination: str                 # the queue publications go to
    correl_id: bytes                 # CorrelId of every publication (NONE: the publisher's)
    options: int                     # the MQSO_* options it was made (or last altered) with
    user: str                        # SUBUSER: whose identity publications carry
    user_data: str = ""              # SubUserData: the MQSubUserData property
    priority: int = -3               # PubPriority (MQPRI_PRIORITY_AS_PUBLISHED)
    accounting_token: bytes = b"\0" * 32
    appl_identity: bytes = b" " * 32
    expiry: int = -1                 # SubExpiry, in tenths of a second (kept, not enforced)
    selector: str = ""
    sub_level: int = 1
    admin: bool = False              # made by DEFINE SUB / PCF (SUBTYPE ADMIN) rather than MQSUB
    any_user: bool = False           # VARUSER(ANY): anyone may resume it
    created: float = field(default_factory=time.time)
    altered: float = field(default_factory=time.time)
    holder: tuple[int, int] | None = None  # (conn_id, hsub) of the handle that has it open
    matcher: Callable[[str], bool] | None = None  # compiled topic_string (topic_matching.py)
    compiled_selector: Any = None    # the selector grammar's compiled `selector`, when there is one
    last_delivered: float = 0.0
    # DEFINE SUB's attributes that are kept and shown only (admin/pubsub/pubsub_mqsc.py)
    stored: dict[str, str] = field(default_factory=dict)


@dataclass
class RetainedPublication:
    """The last publication put with MQPMO_RETAIN on one topic string."""
    topic_string: str
    md: list                         # the publication's MQMD, as resolved at put
    body: bytes
    props: list | None
    persistent: bool


@dataclass
class PubSubState:
    topics: dict[str, TopicObject] = field(default_factory=dict)
    subscriptions: dict[bytes, Subscription] = field(default_factory=dict)
    by_name: dict[str, bytes] = field(default_factory=dict)   # SubName -> sub_id
    retained: dict[str, RetainedPublication] = field(default_factory=dict)
    # retained publications put under syncpoint, by connection: retained at MQCMIT
    pending_retained: dict[int, list[RetainedPublication]] = field(default_factory=dict)
    publications: dict[str, int] = field(default_factory=dict)  # topic string -> count (TPSTATUS)

    def add(self, sub: Subscription) -> None:
        self.subscriptions[sub.sub_id] = sub
        if sub.name:
            self.by_name[sub.name] = sub.sub_id

    def remove(self, sub: Subscription) -> None:
        self.subscriptions.pop(sub.sub_id, None)
        if sub.name and self.by_name.get(sub.name) == sub.sub_id:
            del self.by_name[sub.name]

    def named(self, name: str) -> Subscription | None:
        sub_id = self.by_name.get(name)
        return None if sub_id is None else self.subscriptions.get(sub_id)
