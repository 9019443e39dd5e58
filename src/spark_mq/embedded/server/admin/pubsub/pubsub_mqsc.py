"""MQSC for publish/subscribe (runs in the queue-manager process; server/admin/mqsc_apply.py hands
these commands here, holding the queue manager's lock):

    DEFINE/ALTER/DELETE/DISPLAY TOPIC    topic objects (the parser types their attributes)
    DEFINE/ALTER/DELETE/DISPLAY SUB      administrative and API subscriptions (DEFINE SUB
                                         takes every attribute dmpmqcfg writes; DESTQMGR,
                                         PSPROP, SUBSCOPE, SELTYPE are only kept and shown)
    DISPLAY TPSTATUS('string')           the topic tree's strings in use, '#' and '+' allowed
    DISPLAY SBSTATUS(name)               whether a subscription is held open
"""
from __future__ import annotations

import fnmatch
from typing import TYPE_CHECKING, Any

from spark_mq.embedded.server.admin.pubsub import administered
from spark_mq.embedded.server.core.mqsc_attributes import AttributeSpec
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand
from spark_mq.embedded.server.core.pubsub.pubsub_state import Subscription
from spark_mq.embedded.server.core.runmqsc_layout import format_display

if TYPE_CHECKING:
    from spark_mq.embedded.server.verbs.qmgr import QueueManager

KINDS = frozenset({"TOPIC", "SUB", "TPSTATUS", "SBSTATUS"})
_SUB = frozenset({"SUB"})
_HEADERS = {"TOPIC": "AMQ8633I: Display topic details.",
            "SUB": "AMQ8096I: IBM MQ subscription inquired.",
            "TPSTATUS": "AMQ8754I: Display topic status details.",
            "SBSTATUS": "AMQ8099I: IBM MQ subscription status inquired."}
_PRIORITIES = {"ASPUB": -3, "ASQDEF": -1}  # PUBPRTY keywords: MQPRI_PRIORITY_AS_PUBLISHED, _AS_Q_DEF
#: what DEFINE SUB fixes for good (ALTER SUB refuses them)
_FIXED_SUB_ATTRIBUTES = frozenset({"TOPICOBJ", "TOPICSTR", "WSCHEMA", "SELECTOR", "SUBSCOPE",
                                   "DESTCLAS", "SUBLEVEL"})


def exists(qmgr: QueueManager, command: MQSCCommand) -> bool:
    if command.object_type == "TOPIC":
        return command.name in qmgr.pubsub.topics
    return qmgr.pubsub.named(command.name) is not None


def apply(qmgr: QueueManager, command: MQSCCommand) -> str:
    verb, kind, name = command.verb, command.object_type, command.name
    if kind == "TOPIC":
        return _topic(qmgr, verb, name, dict(command.attributes), command.flags)
    if kind == "SUB":
        return _sub(qmgr, command)
    if kind == "TPSTATUS" and verb == "DISPLAY":
        rows = administered.topic_status(qmgr, name or "#")
        if not rows:
            raise ValueError(f"no topic string matches {name} (AMQ8147E: IBM MQ object not found)")
        return "\n".join(_display("TPSTATUS", "TOPICSTR", row["TOPICSTR"], row, command.flags)
                         for row in rows)
    if kind == "SBSTATUS" and verb == "DISPLAY":
        subs = _subscriptions(qmgr, command)
        return "\n".join(_display("SBSTATUS", "SUB", sub.name, _status(qmgr, sub), command.flags)
                         for sub in subs)
    raise ValueError(f"{verb} is not supported for {kind}")


def _topic(qmgr: QueueManager, verb: str, name: str, attrs: dict[str, Any],
           flags: frozenset[str]) -> str:
    if verb == "DEFINE":
        administered.define_topic(qmgr, name, attrs, replace="REPLACE" in flags)
        return f"AMQ8690I: IBM MQ topic created: {name}."
    if verb == "ALTER":
        administered.alter_topic(qmgr, name, attrs)
        return f"AMQ8691I: IBM MQ topic changed: {name}."
    if verb == "DELETE":
        administered.delete_topic(qmgr, name)
        return f"AMQ8692I: IBM MQ topic deleted: {name}."
    if verb == "DISPLAY":
        found = [topic for topic_name, topic in sorted(qmgr.pubsub.topics.items())
                 if fnmatch.fnmatchcase(topic_name, name)]
        if not found:
            raise ValueError(f"no TOPIC matches {name} (AMQ8147E: IBM MQ object not found)")
        return "\n".join(_display("TOPIC", "TOPIC", topic.name, administered.topic_values(topic),
                                  flags) for topic in found)
    raise ValueError(f"{verb} is not supported for TOPIC (valid: DEFINE, ALTER, DELETE, DISPLAY)")


def _sub(qmgr: QueueManager, command: MQSCCommand) -> str:
    verb, name, attrs = command.verb, command.name, command.attributes
    if verb == "DEFINE":
        destclass = str(attrs.get("DESTCLAS", "PROVIDED"))
        if destclass not in ("PROVIDED", "MANAGED"):
            raise ValueError(f"DESTCLAS({destclass}) is not valid (valid: PROVIDED, MANAGED)")
        if destclass == "PROVIDED" and not attrs.get("DEST"):
            raise ValueError("DEST is required for DESTCLAS(PROVIDED)")
        priority = _priority(str(attrs.get("PUBPRTY", "ASPUB")))
        details = _details(attrs)
        # dmpmqcfg writes a blank name or selector as ' ': none
        administered.define_subscription(
            qmgr, name, str(attrs.get("TOPICSTR", "")), _name(attrs, "TOPICOBJ"),
            _name(attrs, "DEST"), destclass == "MANAGED", "REPLACE" in command.flags,
            str(attrs.get("SUBUSER", "mqm")), user_data=str(attrs.get("USERDATA", "")),
            selector=str(attrs.get("SELECTOR", "")).strip(),
            priority=priority,
            any_user=str(attrs.get("VARUSER", "ANY")) == "ANY",
            wildcard_char=str(attrs.get("WSCHEMA", "TOPIC")) == "CHAR", details=details)
        return f"AMQ8094I: IBM MQ subscription created: {name}."
    if verb == "ALTER":
        return _alter_sub(qmgr, command)
    if verb == "DELETE":
        subs = _subscriptions(qmgr, command)
        for sub in subs:
            administered.delete_subscription(qmgr, sub)
        return f"AMQ8095I: IBM MQ subscription deleted: {name or subs[0].name}."
    if verb == "DISPLAY":
        return "\n".join(_display("SUB", "SUB", sub.name, administered.subscription_values(sub),
                                  command.flags) for sub in _subscriptions(qmgr, command))
    raise ValueError(f"{verb} is not supported for SUB (valid: DEFINE, ALTER, DELETE, DISPLAY)")


#: DEFINE SUB's keywords (IBM MQ 9.4, as dmpmqcfg writes them, and LIKE and the z/OS ones)
_DEFINE_SUB_KEYWORDS = frozenset(
    "TOPICSTR TOPICOBJ DEST DESTQMGR DESTCLAS DESTCORL EXPIRY PSPROP PUBACCT PUBAPPID PUBPRTY "
    "REQONLY SELECTOR SELTYPE SUBSCOPE SUBLEVEL SUBUSER USERDATA VARUSER WSCHEMA LIKE CMDSCOPE "
    "QSGDISP".split())
#: DEFINE SUB's attributes that are kept and shown, and change nothing here: publications go
#: to DEST on this queue manager whatever DESTQMGR says, with their properties as MQSUB's
#: default (PSPROP's MSGPROP); there are no other queue managers to scope to (SUBSCOPE), and
#: SELTYPE follows from SELECTOR
_SUB_STORED_ONLY: dict[str, AttributeSpec] = {
    "DESTQMGR": AttributeSpec("str", "", _SUB, max_length=48),
    "PSPROP": AttributeSpec("enum", "MSGPROP", _SUB, choices=("NONE", "COMPAT", "RFH2", "MSGPROP")),
    "SUBSCOPE": AttributeSpec("enum", "ALL", _SUB, choices=("ALL", "QMGR")),
    "SELTYPE": AttributeSpec("enum", "NONE", _SUB, choices=("NONE", "STANDARD", "EXTENDED")),
}
_SUB_DETAILS: dict[str, AttributeSpec] = {
    "EXPIRY": AttributeSpec("int", -1, _SUB, bounds=(0, 999_999_999),
                            keywords={"UNLIMITED": -1}),
    "REQONLY": AttributeSpec("enum", "NO", _SUB, choices=("NO", "YES")),
    "SUBLEVEL": AttributeSpec("int", 1, _SUB, bounds=(1, 9)),
    "PUBAPPID": AttributeSpec("str", "", _SUB, max_length=32),
}


def _details(attrs: dict[str, Any]) -> administered.SubscriptionDetails:
    """DEFINE SUB's keywords beyond the topic, destination and user: checked and typed."""
    unknown = sorted(set(attrs) - _DEFINE_SUB_KEYWORDS)
    if unknown:
        raise ValueError(f"{unknown[0]} is not a DEFINE SUB attribute (valid: "
                         f"{', '.join(sorted(_DEFINE_SUB_KEYWORDS))})")
    typed: dict[str, int | str] = {key: _typed(key, spec, attrs[key]) for key, spec in
             {**_SUB_STORED_ONLY, **_SUB_DETAILS}.items() if key in attrs}
    appl = typed.get("PUBAPPID")
    return administered.SubscriptionDetails(
        correl_id=_hex(attrs, "DESTCORL", 24), accounting_token=_hex(attrs, "PUBACCT", 32),
        appl_identity=None if appl is None else str(appl).encode().ljust(32),
        expiry=int(typed.get("EXPIRY", -1)), on_request=typed.get("REQONLY") == "YES",
        sub_level=int(typed.get("SUBLEVEL", 1)),
        stored={key: str(typed[key]) for key in _SUB_STORED_ONLY if key in typed})


def _typed(key: str, spec: AttributeSpec, value: object) -> int | str:
    try:
        return spec.coerce(str(value), quoted=True)  # the parser has folded unquoted text
    except ValueError as err:
        raise ValueError(f"{key}: {err} (valid: {spec.describe()})") from None


def _hex(attrs: dict[str, Any], key: str, length: int) -> bytes | None:
    """DESTCORL or PUBACCT: `length` bytes written as hexadecimal digits."""
    if key not in attrs:
        return None
    text = str(attrs[key]).strip()
    try:
        value = bytes.fromhex(text)
    except ValueError:
        value = b""
    if len(value) != length:
        raise ValueError(f"{key}({text}) is not valid (valid: {2 * length} hexadecimal digits)")
    return value


def _priority(text: str) -> int:
    if text not in _PRIORITIES and not (text.isdigit() and int(text) <= 9):
        raise ValueError(f"PUBPRTY({text}) is not valid (valid: ASPUB, ASQDEF, 0 to 9)")
    return _PRIORITIES[text] if text in _PRIORITIES else int(text)


def _alter_sub(qmgr: QueueManager, command: MQSCCommand) -> str:
    """ALTER SUB(name) or SUBID: DEST, USERDATA, PUBPRTY, SUBUSER and VARUSER; the others
    are fixed when the subscription is defined (IBM MQ's ALTER SUB usage notes)."""
    attrs = command.attributes
    fixed = sorted(set(attrs) & _FIXED_SUB_ATTRIBUTES)
    if fixed:
        raise ValueError(f"{', '.join(fixed)} cannot be altered (valid: "
                         "DEST, USERDATA, PUBPRTY, SUBUSER, VARUSER)")
    if "*" in command.name:
        raise ValueError(f"SUB({command.name}) must name one subscription (no '*')")
    variable = str(attrs["VARUSER"]) if "VARUSER" in attrs else None
    if variable not in (None, "ANY", "FIXED"):
        raise ValueError(f"VARUSER({variable}) is not valid (valid: ANY, FIXED)")
    subs = _subscriptions(qmgr, command)
    for sub in subs:
        administered.alter_subscription(
            qmgr, sub, destination=_text(attrs, "DEST"), user_data=_text(attrs, "USERDATA"),
            priority=_priority(str(attrs["PUBPRTY"])) if "PUBPRTY" in attrs else None,
            user=_text(attrs, "SUBUSER"), any_user=None if variable is None else variable == "ANY")
    return f"AMQ8097I: IBM MQ subscription changed: {subs[0].name}."


def _name(attrs: dict[str, Any], key: str) -> str:
    return str(attrs.get(key, "")).strip()


def _text(attrs: dict[str, Any], key: str) -> str | None:
    return str(attrs[key]) if key in attrs else None


def _subscriptions(qmgr: QueueManager, command: MQSCCommand) -> list[Subscription]:
    """The subscriptions SUB(name, generic with '*') or SUBID(hex) names."""
    sub_id = command.attributes.get("SUBID")
    if sub_id:
        try:
            found = administered.find_subscriptions(qmgr, sub_id=bytes.fromhex(str(sub_id)))
        except ValueError:
            found = []
    else:
        found = administered.find_subscriptions(qmgr, name=command.name or "*")
    if not found:
        raise ValueError(f"subscription {command.name or sub_id} not found "
                         "(AMQ8147E: IBM MQ object not found)")
    return found


def _status(qmgr: QueueManager, sub: Subscription) -> dict[str, Any]:
    holder = sub.holder
    conn = qmgr.connections.get(holder[0]) if holder else None
    return {"SUBID": sub.sub_id.hex().upper(), "DURABLE": "YES" if sub.durable else "NO",
            "SUBTYPE": "ADMIN" if sub.admin else "API",
            "ACTCONN": f"{holder[0]:048X}" if holder else "0" * 48,
            "SUBUSER": sub.user, "RESMDATE": "", "LMSGDATE": "", "NUMMSGS": 0,
            "APPLTAG": conn.appl_name if conn else ""}


def _display(kind: str, name_key: str, name: str, values: dict[str, Any],
             flags: frozenset[str]) -> str:
    """runmqsc's two-column DISPLAY layout, as server/admin/mqsc_apply.py prints queues."""
    wanted = {flag for flag in flags if flag != "ALL"}
    if wanted and kind in ("SUB", "SBSTATUS"):
        wanted.add("SUBID")   # runmqsc always shows it; the command server knows a block by it
    if wanted and "ALL" not in flags:
        values = {key: value for key, value in values.items() if key in wanted}
    values = {key: ("ASPARENT" if key == "DEFPRTY" and value == -2 else value)
              for key, value in values.items()}
    text = format_display(name_key, name, values)
    lines = text.splitlines()
    lines[0] = _HEADERS[kind]
    return "\n".join(lines)
