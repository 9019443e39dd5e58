"""The publish/subscribe commands: Inquire, Create, Change and Delete Topic, and Inquire,
Create, Change and Delete Subscription (runs in the queue-manager process, under the lock).

They change topics and subscriptions through admin/pubsub/administered.py, as MQSC does. An
inquiry that finds no subscription fails with MQRC_NO_SUBSCRIPTION, which IBM's own tests
expect from a clean queue manager. A subscription created without SubUserId belongs to the
user who sent the command. Who may do what is admin/security/subscription_checks.py's, checked
before a command runs; a generic inquiry's answer leaves out what the user may not display.
"""
from __future__ import annotations

from typing import Any

from spark_mq.embedded.server.admin import config_objects
from spark_mq.embedded.server.admin.command_server import pcf
from spark_mq.embedded.server.admin.command_server.pcf import PCFError
from spark_mq.embedded.server.admin.command_server.request import (
    Reply,
    Request,
    authrec_flags,
    matches,
    unknown_object,
)
from spark_mq.embedded.server.admin.mqsc_apply import apply_command
from spark_mq.embedded.server.admin.pubsub import administered
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.pubsub.pubsub_state import Subscription, TopicObject
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.embedded.server.events.configuration import Described
from spark_mq.mqi.constants import CMQC, CMQCFC

_UNSET = -99  # an integer parameter the request does not give
_IN, _ST, _IL, _BS = (CMQCFC.MQCFT_INTEGER, CMQCFC.MQCFT_STRING, CMQCFC.MQCFT_INTEGER_LIST,
                      CMQCFC.MQCFT_BYTE_STRING)

# PCF topic attribute <-> MQSC attribute and value
_ENUMS: dict[int, tuple[str, dict[int, Any]]] = {
    CMQC.MQIA_TOPIC_DEF_PERSISTENCE: ("DEFPSIST", {CMQC.MQPER_PERSISTENCE_AS_PARENT: "ASPARENT",
                                                   CMQC.MQPER_PERSISTENT: "YES",
                                                   CMQC.MQPER_NOT_PERSISTENT: "NO"}),
    CMQC.MQIA_INHIBIT_PUB: ("PUB", {CMQC.MQTA_PUB_AS_PARENT: "ASPARENT",
                                    CMQC.MQTA_PUB_INHIBITED: "DISABLED",
                                    CMQC.MQTA_PUB_ALLOWED: "ENABLED"}),
    CMQC.MQIA_INHIBIT_SUB: ("SUB", {CMQC.MQTA_SUB_AS_PARENT: "ASPARENT",
                                    CMQC.MQTA_SUB_INHIBITED: "DISABLED",
                                    CMQC.MQTA_SUB_ALLOWED: "ENABLED"}),
    CMQC.MQIA_DURABLE_SUB: ("DURSUB", {CMQC.MQSUB_DURABLE_AS_PARENT: "ASPARENT",
                                       CMQC.MQSUB_DURABLE_ALLOWED: "YES",
                                       CMQC.MQSUB_DURABLE_INHIBITED: "NO"}),
    CMQC.MQIA_PM_DELIVERY: ("PMSGDLV", {CMQC.MQDLV_AS_PARENT: "ASPARENT", CMQC.MQDLV_ALL: "ALL",
                                        CMQC.MQDLV_ALL_DUR: "ALLDUR",
                                        CMQC.MQDLV_ALL_AVAIL: "ALLAVAIL"}),
    CMQC.MQIA_NPM_DELIVERY: ("NPMSGDLV", {CMQC.MQDLV_AS_PARENT: "ASPARENT", CMQC.MQDLV_ALL: "ALL",
                                          CMQC.MQDLV_ALL_DUR: "ALLDUR",
                                          CMQC.MQDLV_ALL_AVAIL: "ALLAVAIL"}),
}
_STRINGS = {CMQC.MQCA_TOPIC_DESC: ("DESCR", 64),
            CMQC.MQCA_MODEL_DURABLE_Q: ("MDURMDL", CMQC.MQ_Q_NAME_LENGTH),
            CMQC.MQCA_MODEL_NON_DURABLE_Q: ("MNDURMDL", CMQC.MQ_Q_NAME_LENGTH)}

TOPIC_PARAMETERS: dict[int, int] = {
    CMQC.MQCA_TOPIC_STRING: _ST, CMQC.MQIA_DEF_PRIORITY: _IN, CMQCFC.MQIACF_REPLACE: _IN,
    CMQC.MQIA_TOPIC_TYPE: _IN,
    **{selector: _IN for selector in _ENUMS}, **{selector: _ST for selector in _STRINGS}}
SUBSCRIPTION_PARAMETERS: dict[int, int] = {
    CMQC.MQCA_TOPIC_STRING: _ST, CMQC.MQCA_TOPIC_NAME: _ST, CMQCFC.MQCACF_DESTINATION: _ST,
    CMQCFC.MQCACF_DESTINATION_Q_MGR: _ST, CMQCFC.MQIACF_DESTINATION_CLASS: _IN,
    CMQCFC.MQIACF_REPLACE: _IN, CMQCFC.MQCACF_SUB_USER_DATA: _ST,
    CMQCFC.MQCACF_SUB_SELECTOR: _ST, CMQCFC.MQIACF_PUB_PRIORITY: _IN,
    CMQCFC.MQIACF_VARIABLE_USER_ID: _IN, CMQCFC.MQIACF_WILDCARD_SCHEMA: _IN,
    CMQCFC.MQCACF_SUB_USER_ID: _ST, CMQCFC.MQIACF_SUB_TYPE: _IN}


# === topics ================================================================================
def inquire_topic(request: Request) -> list[Reply]:
    pattern = request.string(CMQC.MQCA_TOPIC_NAME)
    found = [topic for name, topic in sorted(request.qm.pubsub.topics.items())
             if matches(pattern, name)]
    if not found:
        raise unknown_object()
    return [Reply(_topic_parameters(topic)) for topic in found]


def _topic_parameters(topic: TopicObject) -> list[bytes]:
    attrs = topic.attrs
    out = [pcf.cfst(CMQC.MQCA_TOPIC_NAME, topic.name, CMQC.MQ_TOPIC_NAME_LENGTH),
           pcf.cfst(CMQC.MQCA_TOPIC_STRING, topic.topic_string),
           pcf.cfin(CMQC.MQIA_TOPIC_TYPE, CMQC.MQTOPT_LOCAL),
           pcf.cfin(CMQC.MQIA_DEF_PRIORITY, _priority_value(attrs.get("DEFPRTY", -2)))]
    for selector, (key, values) in _ENUMS.items():
        number = next((n for n, word in values.items() if word == attrs.get(key)), 0)
        out.append(pcf.cfin(selector, number))
    for selector, (key, length) in _STRINGS.items():
        out.append(pcf.cfst(selector, str(attrs.get(key, "")), length))
    return out


def _priority_value(value: Any) -> int:
    return CMQC.MQPRI_PRIORITY_AS_PARENT if value == -2 else int(value)


def _topic_changes(request: Request) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    for selector, parameter in request.parameters.items():
        if selector in _ENUMS:
            key, values = _ENUMS[selector]
            if parameter.value not in values:
                raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, selector)
            changes[key] = values[parameter.value]
        elif selector in _STRINGS:
            changes[_STRINGS[selector][0]] = pcf.text(parameter.value)
        elif selector == CMQC.MQIA_DEF_PRIORITY:
            value = int(parameter.value)
            if not (value == CMQC.MQPRI_PRIORITY_AS_PARENT or 0 <= value <= 9):
                raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, selector)
            changes["DEFPRTY"] = -2 if value == CMQC.MQPRI_PRIORITY_AS_PARENT else value
        elif selector == CMQC.MQCA_TOPIC_STRING:
            changes["TOPICSTR"] = pcf.text(parameter.value)
    return changes


def create_topic(request: Request) -> list[Reply]:
    name = request.string(CMQC.MQCA_TOPIC_NAME)
    replace = request.integer(CMQCFC.MQIACF_REPLACE, CMQCFC.MQRP_NO) == CMQCFC.MQRP_YES
    if name in request.qm.pubsub.topics and not replace:
        raise PCFError(CMQCFC.MQRCCF_OBJECT_ALREADY_EXISTS)
    _run(administered.define_topic, request.qm, name, _topic_changes(request), replace)
    return [Reply()]


def change_topic(request: Request) -> list[Reply]:
    _run(administered.alter_topic, request.qm, request.string(CMQC.MQCA_TOPIC_NAME),
         _topic_changes(request))
    return [Reply()]


def delete_topic(request: Request) -> list[Reply]:
    """Through MQSC's DELETE TOPIC, which also applies MQIACF_REMOVE_AUTHREC."""
    command = MQSCCommand("DELETE", "TOPIC", request.string(CMQC.MQCA_TOPIC_NAME), {},
                          frozenset(authrec_flags(request)))
    _run(apply_command, request.qm, command)
    return [Reply()]


# === subscriptions =========================================================================
def _selected(request: Request) -> list[Subscription]:
    if request.has(CMQCFC.MQBACF_SUB_ID):
        sub_id = bytes(request.parameters[CMQCFC.MQBACF_SUB_ID].value)
        found = administered.find_subscriptions(request.qm, sub_id=sub_id)
    else:
        found = administered.find_subscriptions(request.qm, name=request.string(CMQCFC.MQCACF_SUB_NAME))
    if not found:
        raise PCFError(CMQC.MQRC_NO_SUBSCRIPTION)
    return found


def _need_name_or_id(request: Request) -> None:
    if not request.has(CMQCFC.MQCACF_SUB_NAME) and not request.has(CMQCFC.MQBACF_SUB_ID):
        raise PCFError(CMQCFC.MQRCCF_PARM_MISSING, CMQCFC.MQCACF_SUB_NAME)


def inquire_subscription(request: Request) -> list[Reply]:
    _need_name_or_id(request)
    return [Reply(_subscription_parameters(sub)) for sub in _selected(request)]


def _subscription_parameters(sub: Subscription) -> list[bytes]:
    values = administered.subscription_values(sub)
    return [
        pcf.cfst(CMQCFC.MQCACF_SUB_NAME, sub.name),
        pcf.cfbs(CMQCFC.MQBACF_SUB_ID, sub.sub_id),
        pcf.cfst(CMQC.MQCA_TOPIC_STRING, sub.topic_string),
        pcf.cfst(CMQC.MQCA_TOPIC_NAME, sub.topic_object, CMQC.MQ_TOPIC_NAME_LENGTH),
        pcf.cfst(CMQCFC.MQCACF_DESTINATION, sub.destination, CMQC.MQ_Q_NAME_LENGTH),
        pcf.cfst(CMQCFC.MQCACF_DESTINATION_Q_MGR, "", CMQC.MQ_Q_MGR_NAME_LENGTH),
        pcf.cfin(CMQCFC.MQIACF_DESTINATION_CLASS,
                 CMQC.MQDC_MANAGED if sub.managed else CMQC.MQDC_PROVIDED),
        pcf.cfin(CMQCFC.MQIACF_DURABLE_SUBSCRIPTION,
                 CMQC.MQSUB_DURABLE_YES if sub.durable else CMQC.MQSUB_DURABLE_NO),
        pcf.cfin(CMQCFC.MQIACF_SUB_TYPE, CMQCFC.MQSUBTYPE_ADMIN if sub.admin else CMQCFC.MQSUBTYPE_API),
        pcf.cfst(CMQCFC.MQCACF_SUB_USER_ID, sub.user, CMQC.MQ_USER_ID_LENGTH),
        pcf.cfst(CMQCFC.MQCACF_SUB_USER_DATA, sub.user_data),
        pcf.cfst(CMQCFC.MQCACF_SUB_SELECTOR, sub.selector),
        pcf.cfbs(CMQCFC.MQBACF_DESTINATION_CORREL_ID, sub.correl_id),
        pcf.cfin(CMQCFC.MQIACF_PUB_PRIORITY, sub.priority),
        pcf.cfin(CMQCFC.MQIACF_WILDCARD_SCHEMA, CMQC.MQWS_CHAR if sub.wildcard_char else CMQC.MQWS_TOPIC),
        pcf.cfin(CMQCFC.MQIACF_VARIABLE_USER_ID,
                 CMQC.MQVU_ANY_USER if sub.any_user else CMQC.MQVU_FIXED_USER),
        pcf.cfst(CMQC.MQCA_CREATION_DATE, str(values["CRDATE"]), CMQC.MQ_CREATION_DATE_LENGTH),
        pcf.cfst(CMQC.MQCA_ALTERATION_DATE, str(values["ALTDATE"]), CMQC.MQ_DATE_LENGTH),
    ]


def create_subscription(request: Request) -> list[Reply]:
    name = request.string(CMQCFC.MQCACF_SUB_NAME)
    replace = request.integer(CMQCFC.MQIACF_REPLACE, CMQCFC.MQRP_NO) == CMQCFC.MQRP_YES
    if request.qm.pubsub.named(name) is not None and not replace:
        raise PCFError(CMQCFC.MQRCCF_OBJECT_ALREADY_EXISTS)
    destclass = request.integer(CMQCFC.MQIACF_DESTINATION_CLASS, CMQC.MQDC_PROVIDED)
    if destclass not in (CMQC.MQDC_PROVIDED, CMQC.MQDC_MANAGED):
        raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, CMQCFC.MQIACF_DESTINATION_CLASS)
    destination = request.string(CMQCFC.MQCACF_DESTINATION)
    if destclass == CMQC.MQDC_PROVIDED and not destination:
        raise PCFError(CMQCFC.MQRCCF_PARM_MISSING, CMQCFC.MQCACF_DESTINATION)
    if not request.has(CMQC.MQCA_TOPIC_STRING) and not request.has(CMQC.MQCA_TOPIC_NAME):
        raise PCFError(CMQCFC.MQRCCF_PARM_MISSING, CMQC.MQCA_TOPIC_STRING)
    _run(administered.define_subscription, request.qm, name,
         request.string(CMQC.MQCA_TOPIC_STRING), request.string(CMQC.MQCA_TOPIC_NAME),
         destination, destclass == CMQC.MQDC_MANAGED, replace,
         request.string(CMQCFC.MQCACF_SUB_USER_ID) or request.user or "mqm",
         user_data=request.string(CMQCFC.MQCACF_SUB_USER_DATA),
         selector=request.string(CMQCFC.MQCACF_SUB_SELECTOR),
         priority=request.integer(CMQCFC.MQIACF_PUB_PRIORITY, CMQC.MQPRI_PRIORITY_AS_PUBLISHED),
         any_user=request.integer(CMQCFC.MQIACF_VARIABLE_USER_ID, CMQC.MQVU_ANY_USER)
         == CMQC.MQVU_ANY_USER,
         wildcard_char=request.integer(CMQCFC.MQIACF_WILDCARD_SCHEMA, CMQC.MQWS_TOPIC) == CMQC.MQWS_CHAR)
    return [Reply()]


def change_subscription(request: Request) -> list[Reply]:
    """What Change Subscription may change (administered.alter_subscription): the
    destination, user data, publication priority, owner and whether others may resume it."""
    _need_name_or_id(request)
    priority = request.integer(CMQCFC.MQIACF_PUB_PRIORITY, _UNSET)
    if priority != _UNSET and not (priority in (CMQC.MQPRI_PRIORITY_AS_PUBLISHED,
                                                CMQC.MQPRI_PRIORITY_AS_Q_DEF)
                                   or 0 <= priority <= 9):
        raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, CMQCFC.MQIACF_PUB_PRIORITY)
    variable = request.integer(CMQCFC.MQIACF_VARIABLE_USER_ID, _UNSET)
    if variable not in (_UNSET, CMQC.MQVU_ANY_USER, CMQC.MQVU_FIXED_USER):
        raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, CMQCFC.MQIACF_VARIABLE_USER_ID)
    for sub in _selected(request):
        _run(administered.alter_subscription, request.qm, sub,
             destination=_given(request, CMQCFC.MQCACF_DESTINATION),
             user_data=_given(request, CMQCFC.MQCACF_SUB_USER_DATA),
             priority=None if priority == _UNSET else priority,
             user=_given(request, CMQCFC.MQCACF_SUB_USER_ID),
             any_user=None if variable == _UNSET else variable == CMQC.MQVU_ANY_USER)
    return [Reply()]


def _given(request: Request, parameter: int) -> str | None:
    return request.string(parameter) if request.has(parameter) else None


def delete_subscription(request: Request) -> list[Reply]:
    _need_name_or_id(request)
    for sub in _selected(request):
        _run(administered.delete_subscription, request.qm, sub)
    return [Reply()]


def _run(function: Any, *args: Any, **kwargs: Any) -> Any:
    """An administered.py change, its failures as MQ's command server reports them."""
    try:
        return function(*args, **kwargs)
    except administered.InUse:
        raise PCFError(CMQCFC.MQRCCF_SUBSCRIPTION_IN_USE) from None
    except administered.NotFound:
        raise unknown_object() from None
    except MQError as exc:
        raise PCFError(exc.reason) from None
    except ValueError:
        raise PCFError(CMQCFC.MQRCCF_COMMAND_FAILED) from None


SUBSCRIPTION_SELECTORS = {CMQCFC.MQCACF_SUB_NAME: _ST, CMQCFC.MQBACF_SUB_ID: _BS}
CHANGE_SUBSCRIPTION_PARAMETERS = {
    **SUBSCRIPTION_SELECTORS, CMQCFC.MQCACF_DESTINATION: _ST,
    CMQCFC.MQCACF_DESTINATION_Q_MGR: _ST, CMQCFC.MQCACF_SUB_USER_DATA: _ST,
    CMQCFC.MQIACF_PUB_PRIORITY: _IN, CMQCFC.MQCACF_SUB_USER_ID: _ST,
    CMQCFC.MQIACF_VARIABLE_USER_ID: _IN}
INQUIRE_SUBSCRIPTION_OPTIONAL = {**SUBSCRIPTION_SELECTORS, CMQCFC.MQIACF_SUB_ATTRS: _IL,
                                 CMQCFC.MQIACF_DURABLE_SUBSCRIPTION: _IN,
                                 CMQCFC.MQIACF_SUB_TYPE: _IN}
INQUIRE_TOPIC_OPTIONAL = {CMQC.MQIA_TOPIC_TYPE: _IN, CMQCFC.MQIACF_TOPIC_ATTRS: _IL}


# === configuration events ==================================================================
def _described_topic(qm: QueueManagerState, name: str) -> Described:
    """A topic object as a configuration event describes it: what Inquire Topic returns."""
    topic = qm.pubsub.topics.get(name)
    return None if topic is None else (CMQC.MQOT_TOPIC, _topic_parameters(topic))


config_objects.describes("TOPIC", _described_topic, lambda qm: sorted(qm.pubsub.topics))
