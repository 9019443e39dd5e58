"""The TOPIC object's MQSC attributes: which the embedded queue manager acts on, how each
is typed, and the values of a new topic and of SYSTEM.BASE.TOPIC (runs in the queue-manager
process; the MQSC parser validates DEFINE/ALTER TOPIC against `TOPIC_ATTRIBUTES`).

Most attributes of a new topic are ASPARENT: the value comes from the nearest topic object
above it in the topic tree (topics.py), and in the end from SYSTEM.BASE.TOPIC, which has a
real value for each. `OTHER_TOPIC_KEYWORDS` are attributes MQ has but this queue manager
does not act on (clustering, multicast, proxy subscriptions...): a script may set them and
DISPLAY shows them, as text (`STORED_TOPIC_ATTRIBUTES` types them).
"""
from __future__ import annotations

from spark_mq.embedded.server.core.mqsc_attributes import AttributeSpec

_TOPIC = frozenset({"TOPIC"})
_NAME_LENGTH = 48
MAX_TOPIC_STRING = 10240  # MQ_TOPIC_STR_LENGTH


def _enum(values: str) -> AttributeSpec:
    choices = tuple(values.split())
    return AttributeSpec("enum", choices[0], _TOPIC, choices=choices)


def _str(length: int) -> AttributeSpec:
    return AttributeSpec("str", "", _TOPIC, max_length=length)


#: attribute -> spec; a blank MDURMDL/MNDURMDL, like ASPARENT, means "as the parent"
TOPIC_ATTRIBUTES: dict[str, AttributeSpec] = {
    "TOPICSTR": _str(MAX_TOPIC_STRING),
    "DESCR": _str(64),
    "TYPE": _enum("LOCAL"),
    "DEFPSIST": _enum("ASPARENT YES NO"),
    "DEFPRTY": AttributeSpec("int", -2, _TOPIC, bounds=(0, 9), keywords={"ASPARENT": -2}),
    "DEFPRESP": _enum("ASPARENT SYNC ASYNC"),
    "PUB": _enum("ASPARENT ENABLED DISABLED"),
    "SUB": _enum("ASPARENT ENABLED DISABLED"),
    "DURSUB": _enum("ASPARENT YES NO"),
    "MDURMDL": _str(_NAME_LENGTH),
    "MNDURMDL": _str(_NAME_LENGTH),
    "NPMSGDLV": _enum("ASPARENT ALL ALLAVAIL ALLDUR"),
    "PMSGDLV": _enum("ASPARENT ALL ALLAVAIL ALLDUR"),
    "WILDCARD": _enum("PASSTHRU BLOCK"),
}

#: The rest of what `dmpmqcfg` writes for a topic, typed as IBM MQ 9.4 types them (MQSC
#: "DEFINE TOPIC"): checked, then kept as the text given, and shown by DISPLAY TOPIC. None of
#: them changes what this queue manager does: no clusters (CLUSTER, CLROUTE), no multicast
#: (MCAST, COMMINFO), no proxy subscriptions or publication scopes between queue managers
#: (PROXYSUB, PUBSCOPE, SUBSCOPE), no expiry cap (CAPEXPRY); undeliverable publications go
#: as the subscriptions' rules say whatever USEDLQ says; CUSTOM is text.
STORED_TOPIC_ATTRIBUTES: dict[str, AttributeSpec] = {
    "CLUSTER": _str(_NAME_LENGTH),
    "CLROUTE": _enum("DIRECT TOPICHOST NONE"),
    "COMMINFO": _str(_NAME_LENGTH),
    "CUSTOM": _str(128),
    "MCAST": _enum("ASPARENT ENABLED DISABLED ONLY"),
    "PROXYSUB": _enum("FIRSTUSE FORCE"),
    "PUBSCOPE": _enum("ASPARENT QMGR ALL"),
    "SUBSCOPE": _enum("ASPARENT QMGR ALL"),
    "USEDLQ": _enum("ASPARENT NO YES"),
    "CAPEXPRY": AttributeSpec("int", -2, _TOPIC, bounds=(1, 999_999_999),
                              keywords={"ASPARENT": -2, "NOLIMIT": -1}),
}
OTHER_TOPIC_KEYWORDS = frozenset(STORED_TOPIC_ATTRIBUTES)

#: the topic at the root of the tree (TOPICSTR ''), with a value for every inherited attribute
BASE_TOPIC = "SYSTEM.BASE.TOPIC"
DURABLE_MODEL = "SYSTEM.DURABLE.MODEL.QUEUE"
NON_DURABLE_MODEL = "SYSTEM.NDURABLE.MODEL.QUEUE"
BASE_TOPIC_ATTRIBUTES: dict[str, object] = {
    "TOPICSTR": "", "DESCR": "Base topic for resolving attributes", "TYPE": "LOCAL",
    "DEFPSIST": "NO", "DEFPRTY": 0, "DEFPRESP": "SYNC", "PUB": "ENABLED", "SUB": "ENABLED",
    "DURSUB": "YES", "MDURMDL": DURABLE_MODEL, "MNDURMDL": NON_DURABLE_MODEL,
    "NPMSGDLV": "ALLAVAIL", "PMSGDLV": "ALLDUR", "WILDCARD": "PASSTHRU"}
#: the values that mean "look at the parent"
AS_PARENT = ("ASPARENT", -2, "")


def default_topic_attributes() -> dict[str, object]:
    """A new topic object: everything as its parent, a blank description."""
    return {key: spec.default for key, spec in TOPIC_ATTRIBUTES.items()}
