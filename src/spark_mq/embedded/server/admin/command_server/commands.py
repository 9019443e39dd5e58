"""The commands the command server answers, each with the parameters it takes, and the
checks every command gets before it runs (runs in the queue-manager process).

`run` is the whole of one command: check the parameters against the command's table
entry (MQ's parameter-count, parameter-identifier, duplicate, missing-parameter and filter
errors), check that the requesting user may run it (admin/security/command_checks.py), then call
the command's function, leaving out of an inquiry's answer the objects the user may not
display. The functions are in queue_commands.py,
channel_commands.py, system_commands.py, authinfo_commands.py, named_object_commands.py
(namelists, processes), chlauth_commands.py, escape_commands.py and authority_commands.py, one per command.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from spark_mq.embedded.server.admin.command_server import (
    authinfo_commands,
    channel_commands,
    channel_control,
    chlauth_commands,
    cluster_commands,
    escape_commands,
    named_object_commands,
    pcf,
    pubsub_commands,
    queue_commands,
    system_commands,
)
from spark_mq.embedded.server.admin.command_server import (
    authority_commands as authority,
)
from spark_mq.embedded.server.admin.command_server.attributes import STORED
from spark_mq.embedded.server.admin.command_server.pcf import (
    DUPLICATE_ERRORS,
    PARM_ID_ERRORS,
    Parameter,
    PCFError,
)
from spark_mq.embedded.server.admin.command_server.request import Reply, Request
from spark_mq.embedded.server.admin.security import command_checks
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.events import queue_manager as qmgr_events
from spark_mq.mqi.constants import CMQC, CMQCFC

_IN, _ST, _IL, _SL, _BS = (CMQCFC.MQCFT_INTEGER, CMQCFC.MQCFT_STRING, CMQCFC.MQCFT_INTEGER_LIST,
                           CMQCFC.MQCFT_STRING_LIST, CMQCFC.MQCFT_BYTE_STRING)
#: MQ's command numbers (MQCMD_*), to tell a command MQ has from a number it does not
_MQ_COMMANDS = frozenset(value for name, value in vars(CMQCFC).items()
                         if name.startswith("MQCMD_") and isinstance(value, int))


@dataclass(frozen=True)
class Command:
    """One command: its function, required parameters (in MQ's order) and optional ones,
    each with the structure type it comes in (queue attributes among the optional ones of
    Create/Change/Copy Queue); `filters`: one MQCFIF/MQCFSF may restrict an inquiry."""
    function: Callable[[Request], list[Reply]]
    required: dict[int, int]
    optional: dict[int, int]
    filters: bool = False


def _attribute_type(selector: int) -> int:
    return _IN if CMQC.MQIA_FIRST <= selector <= CMQC.MQIA_LAST else _ST


_QUEUE_ATTRIBUTES = {selector: _attribute_type(selector) for selector in STORED}
_REPLACE = {CMQCFC.MQIACF_REPLACE: _IN}
_ENTITIES = {CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES: _SL, CMQCFC.MQCACF_GROUP_ENTITY_NAMES: _SL}

COMMANDS: dict[int, Command] = {
    CMQCFC.MQCMD_INQUIRE_Q: Command(
        queue_commands.inquire_q, {CMQC.MQCA_Q_NAME: _ST},
        {CMQC.MQIA_Q_TYPE: _IN, CMQCFC.MQIACF_Q_ATTRS: _IL}, filters=True),
    CMQCFC.MQCMD_INQUIRE_Q_NAMES: Command(
        queue_commands.inquire_q_names, {CMQC.MQCA_Q_NAME: _ST}, {CMQC.MQIA_Q_TYPE: _IN}),
    CMQCFC.MQCMD_INQUIRE_Q_STATUS: Command(
        queue_commands.inquire_q_status, {CMQC.MQCA_Q_NAME: _ST},
        {CMQCFC.MQIACF_Q_STATUS_TYPE: _IN, CMQCFC.MQIACF_Q_STATUS_ATTRS: _IL,
         CMQCFC.MQIACF_OPEN_TYPE: _IN}, filters=True),
    CMQCFC.MQCMD_CREATE_Q: Command(
        queue_commands.create_q, {CMQC.MQCA_Q_NAME: _ST, CMQC.MQIA_Q_TYPE: _IN},
        {**_QUEUE_ATTRIBUTES, **_REPLACE}),
    CMQCFC.MQCMD_COPY_Q: Command(
        queue_commands.copy_q,
        {CMQCFC.MQCACF_FROM_Q_NAME: _ST, CMQCFC.MQCACF_TO_Q_NAME: _ST, CMQC.MQIA_Q_TYPE: _IN},
        {**_QUEUE_ATTRIBUTES, **_REPLACE}),
    CMQCFC.MQCMD_CHANGE_Q: Command(
        queue_commands.change_q, {CMQC.MQCA_Q_NAME: _ST, CMQC.MQIA_Q_TYPE: _IN},
        {**_QUEUE_ATTRIBUTES, CMQCFC.MQIACF_FORCE: _IN}),
    CMQCFC.MQCMD_DELETE_Q: Command(
        queue_commands.delete_q, {CMQC.MQCA_Q_NAME: _ST},
        {CMQC.MQIA_Q_TYPE: _IN, CMQCFC.MQIACF_PURGE: _IN, CMQCFC.MQIACF_REMOVE_AUTHREC: _IN}),
    CMQCFC.MQCMD_CLEAR_Q: Command(queue_commands.clear_q, {CMQC.MQCA_Q_NAME: _ST}, {}),
    CMQCFC.MQCMD_INQUIRE_Q_MGR: Command(
        system_commands.inquire_q_mgr, {}, {CMQCFC.MQIACF_Q_MGR_ATTRS: _IL}),
    CMQCFC.MQCMD_CHANGE_Q_MGR: Command(
        system_commands.change_q_mgr, {},
        {CMQCFC.MQIACF_FORCE: _IN, CMQC.MQCA_Q_MGR_DESC: _ST, CMQC.MQCA_DEAD_LETTER_Q_NAME: _ST,
         CMQC.MQIA_MAX_MSG_LENGTH: _IN, CMQC.MQIA_MAX_UNCOMMITTED_MSGS: _IN,
         CMQC.MQIA_MAX_PROPERTIES_LENGTH: _IN, CMQC.MQIA_MAX_HANDLES: _IN,
         CMQC.MQIA_TRIGGER_INTERVAL: _IN, CMQC.MQCA_CONN_AUTH: _ST,
         CMQC.MQCA_SSL_KEY_REPOSITORY: _ST, CMQC.MQCA_CERT_LABEL: _ST,
         CMQC.MQIA_PERFORMANCE_EVENT: _IN, CMQC.MQIA_CHANNEL_EVENT: _IN,
         CMQC.MQIA_MONITORING_Q: _IN, CMQC.MQIA_AUTHORITY_EVENT: _IN,
         CMQC.MQIA_INHIBIT_EVENT: _IN, CMQC.MQIA_LOCAL_EVENT: _IN, CMQC.MQIA_REMOTE_EVENT: _IN,
         CMQC.MQIA_START_STOP_EVENT: _IN, CMQC.MQIA_CONFIGURATION_EVENT: _IN,
         CMQC.MQIA_COMMAND_EVENT: _IN, CMQC.MQCA_DEF_XMIT_Q_NAME: _ST,
         # clusters (server/clusters/)
         CMQC.MQCA_REPOSITORY_NAME: _ST, CMQC.MQCA_REPOSITORY_NAMELIST: _ST,
         CMQC.MQIA_DEF_CLUSTER_XMIT_Q_TYPE: _IN, CMQC.MQIA_CLWL_USEQ: _IN,
         CMQC.MQIA_CLWL_MRU_CHANNELS: _IN}),
    CMQCFC.MQCMD_PING_Q_MGR: Command(system_commands.ping_q_mgr, {}, {}),
    CMQCFC.MQCMD_REFRESH_Q_MGR: Command(
        system_commands.refresh_q_mgr, {CMQCFC.MQIACF_REFRESH_TYPE: _IN},
        {CMQCFC.MQIACF_OBJECT_TYPE: _IN, CMQCFC.MQCACF_OBJECT_NAME: _ST,
         CMQCFC.MQIACF_REFRESH_INTERVAL: _IN}),
    CMQCFC.MQCMD_INQUIRE_CHANNEL: Command(
        channel_commands.inquire_channel, {CMQCFC.MQCACH_CHANNEL_NAME: _ST},
        {CMQCFC.MQIACH_CHANNEL_TYPE: _IN, CMQCFC.MQIACF_CHANNEL_ATTRS: _IL}, filters=True),
    CMQCFC.MQCMD_INQUIRE_CHANNEL_NAMES: Command(
        channel_commands.inquire_channel_names, {CMQCFC.MQCACH_CHANNEL_NAME: _ST},
        {CMQCFC.MQIACH_CHANNEL_TYPE: _IN}),
    CMQCFC.MQCMD_CREATE_CHANNEL: Command(
        channel_commands.create_channel,
        {CMQCFC.MQCACH_CHANNEL_NAME: _ST, CMQCFC.MQIACH_CHANNEL_TYPE: _IN},
        {**channel_commands.CHANGE_PARAMETERS, **_REPLACE}),
    CMQCFC.MQCMD_CHANGE_CHANNEL: Command(
        channel_commands.change_channel,
        {CMQCFC.MQCACH_CHANNEL_NAME: _ST, CMQCFC.MQIACH_CHANNEL_TYPE: _IN},
        channel_commands.CHANGE_PARAMETERS),
    CMQCFC.MQCMD_DELETE_CHANNEL: Command(
        channel_commands.delete_channel, {CMQCFC.MQCACH_CHANNEL_NAME: _ST},
        {CMQCFC.MQIACH_CHANNEL_TYPE: _IN}),
    CMQCFC.MQCMD_START_CHANNEL: Command(
        channel_control.start_channel, {CMQCFC.MQCACH_CHANNEL_NAME: _ST}, {}),
    CMQCFC.MQCMD_STOP_CHANNEL: Command(
        channel_control.stop_channel, {CMQCFC.MQCACH_CHANNEL_NAME: _ST},
        {CMQCFC.MQIACF_MODE: _IN, CMQCFC.MQIACH_CHANNEL_STATUS: _IN}),
    CMQCFC.MQCMD_PING_CHANNEL: Command(
        channel_control.ping_channel, {CMQCFC.MQCACH_CHANNEL_NAME: _ST},
        {CMQCFC.MQIACH_DATA_COUNT: _IN}),
    CMQCFC.MQCMD_RESET_CHANNEL: Command(
        channel_control.reset_channel, {CMQCFC.MQCACH_CHANNEL_NAME: _ST},
        {CMQCFC.MQIACH_MSG_SEQUENCE_NUMBER: _IN}),
    CMQCFC.MQCMD_RESOLVE_CHANNEL: Command(
        channel_control.resolve_channel,
        {CMQCFC.MQCACH_CHANNEL_NAME: _ST, CMQCFC.MQIACH_IN_DOUBT: _IN}, {}),
    CMQCFC.MQCMD_INQUIRE_CLUSTER_Q_MGR: Command(
        cluster_commands.inquire_cluster_q_mgr, {CMQC.MQCA_CLUSTER_Q_MGR_NAME: _ST},
        {CMQC.MQCA_CLUSTER_NAME: _ST, CMQCFC.MQIACF_CLUSTER_Q_MGR_ATTRS: _IL}),
    CMQCFC.MQCMD_SUSPEND_Q_MGR_CLUSTER: Command(
        cluster_commands.suspend_q_mgr_cluster, {},
        {CMQC.MQCA_CLUSTER_NAME: _ST, CMQC.MQCA_CLUSTER_NAMELIST: _ST, CMQCFC.MQIACF_MODE: _IN}),
    CMQCFC.MQCMD_RESUME_Q_MGR_CLUSTER: Command(
        cluster_commands.resume_q_mgr_cluster, {},
        {CMQC.MQCA_CLUSTER_NAME: _ST, CMQC.MQCA_CLUSTER_NAMELIST: _ST}),
    CMQCFC.MQCMD_REFRESH_CLUSTER: Command(
        cluster_commands.refresh_cluster, {CMQC.MQCA_CLUSTER_NAME: _ST},
        {CMQCFC.MQIACF_REFRESH_REPOSITORY: _IN}),
    CMQCFC.MQCMD_RESET_CLUSTER: Command(
        cluster_commands.reset_cluster, {CMQC.MQCA_CLUSTER_NAME: _ST, CMQCFC.MQIACF_ACTION: _IN},
        {CMQC.MQCA_Q_MGR_NAME: _ST, CMQC.MQCA_Q_MGR_IDENTIFIER: _ST,
         CMQCFC.MQIACF_REMOVE_QUEUES: _IN}),
    CMQCFC.MQCMD_INQUIRE_CHANNEL_STATUS: Command(
        channel_control.inquire_channel_status, {CMQCFC.MQCACH_CHANNEL_NAME: _ST},
        {CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE: _IN, CMQCFC.MQIACH_CHANNEL_INSTANCE_ATTRS: _IL}),
    CMQCFC.MQCMD_INQUIRE_AUTH_INFO: Command(
        authinfo_commands.inquire_auth_info, {CMQC.MQCA_AUTH_INFO_NAME: _ST},
        {CMQC.MQIA_AUTH_INFO_TYPE: _IN, CMQCFC.MQIACF_AUTH_INFO_ATTRS: _IL}, filters=True),
    CMQCFC.MQCMD_INQUIRE_AUTH_INFO_NAMES: Command(
        authinfo_commands.inquire_auth_info_names, {CMQC.MQCA_AUTH_INFO_NAME: _ST},
        {CMQC.MQIA_AUTH_INFO_TYPE: _IN}),
    CMQCFC.MQCMD_CREATE_AUTH_INFO: Command(
        authinfo_commands.create_auth_info,
        {CMQC.MQCA_AUTH_INFO_NAME: _ST, CMQC.MQIA_AUTH_INFO_TYPE: _IN},
        {**authinfo_commands.CHANGE_PARAMETERS, **_REPLACE}),
    CMQCFC.MQCMD_CHANGE_AUTH_INFO: Command(
        authinfo_commands.change_auth_info,
        {CMQC.MQCA_AUTH_INFO_NAME: _ST, CMQC.MQIA_AUTH_INFO_TYPE: _IN},
        authinfo_commands.CHANGE_PARAMETERS),
    CMQCFC.MQCMD_DELETE_AUTH_INFO: Command(
        authinfo_commands.delete_auth_info, {CMQC.MQCA_AUTH_INFO_NAME: _ST},
        {CMQC.MQIA_AUTH_INFO_TYPE: _IN}),
    CMQCFC.MQCMD_INQUIRE_CONNECTION: Command(
        system_commands.inquire_connection, {},
        {CMQCFC.MQBACF_CONNECTION_ID: _BS, CMQCFC.MQBACF_GENERIC_CONNECTION_ID: _BS,
         CMQCFC.MQIACF_CONN_INFO_TYPE: _IN, CMQCFC.MQIACF_CONNECTION_ATTRS: _IL}, filters=True),
    CMQCFC.MQCMD_SET_AUTH_REC: Command(
        authority.set_auth_rec,
        {CMQCFC.MQCACF_AUTH_PROFILE_NAME: _ST, CMQCFC.MQIACF_OBJECT_TYPE: _IN},
        {CMQCFC.MQIACF_AUTH_ADD_AUTHS: _IL, CMQCFC.MQIACF_AUTH_REMOVE_AUTHS: _IL, **_ENTITIES,
         CMQCFC.MQCACF_SERVICE_COMPONENT: _ST}),
    CMQCFC.MQCMD_INQUIRE_AUTH_RECS: Command(
        authority.inquire_auth_recs,
        {CMQCFC.MQIACF_AUTH_OPTIONS: _IN, CMQCFC.MQCACF_AUTH_PROFILE_NAME: _ST},
        {CMQCFC.MQIACF_OBJECT_TYPE: _IN, CMQCFC.MQCACF_ENTITY_NAME: _ST,
         CMQCFC.MQIACF_ENTITY_TYPE: _IN, CMQCFC.MQIACF_AUTH_PROFILE_ATTRS: _IL,
         CMQCFC.MQCACF_SERVICE_COMPONENT: _ST}),
    CMQCFC.MQCMD_DELETE_AUTH_REC: Command(
        authority.delete_auth_rec,
        {CMQCFC.MQCACF_AUTH_PROFILE_NAME: _ST, CMQCFC.MQIACF_OBJECT_TYPE: _IN},
        {**_ENTITIES, CMQCFC.MQCACF_SERVICE_COMPONENT: _ST}),
    CMQCFC.MQCMD_SET_CHLAUTH_REC: Command(
        chlauth_commands.set_chlauth_rec,
        {CMQCFC.MQCACH_CHANNEL_NAME: _ST, CMQCFC.MQIACF_CHLAUTH_TYPE: _IN},
        chlauth_commands.SET_PARAMETERS),
}
# MQSC in PCF (escape_commands.py)
COMMANDS[CMQCFC.MQCMD_ESCAPE] = Command(
    escape_commands.escape, {CMQCFC.MQIACF_ESCAPE_TYPE: _IN, CMQCFC.MQCACF_ESCAPE_TEXT: _ST}, {})
# the named object kinds' commands: namelists, processes (named_object_commands.py)
COMMANDS.update({
    command: Command(function, required, optional,
                     filters=command in named_object_commands.INQUIRIES)
    for command, (function, required, optional) in named_object_commands.COMMANDS.items()})
# the publish/subscribe commands (pubsub_commands.py); Inquire, Change and Delete Subscription
# take a SubName or a SubId, so neither is required here (the functions check)
COMMANDS.update({
    CMQCFC.MQCMD_INQUIRE_TOPIC: Command(
        pubsub_commands.inquire_topic, {CMQC.MQCA_TOPIC_NAME: _ST},
        pubsub_commands.INQUIRE_TOPIC_OPTIONAL),
    CMQCFC.MQCMD_CREATE_TOPIC: Command(
        pubsub_commands.create_topic, {CMQC.MQCA_TOPIC_NAME: _ST, CMQC.MQCA_TOPIC_STRING: _ST},
        pubsub_commands.TOPIC_PARAMETERS),
    CMQCFC.MQCMD_CHANGE_TOPIC: Command(
        pubsub_commands.change_topic, {CMQC.MQCA_TOPIC_NAME: _ST},
        pubsub_commands.TOPIC_PARAMETERS),
    CMQCFC.MQCMD_DELETE_TOPIC: Command(
        pubsub_commands.delete_topic, {CMQC.MQCA_TOPIC_NAME: _ST},
        {CMQCFC.MQIACF_REMOVE_AUTHREC: _IN}),
    CMQCFC.MQCMD_INQUIRE_SUBSCRIPTION: Command(
        pubsub_commands.inquire_subscription, {},
        pubsub_commands.INQUIRE_SUBSCRIPTION_OPTIONAL),
    CMQCFC.MQCMD_CREATE_SUBSCRIPTION: Command(
        pubsub_commands.create_subscription, {CMQCFC.MQCACF_SUB_NAME: _ST},
        pubsub_commands.SUBSCRIPTION_PARAMETERS),
    CMQCFC.MQCMD_DELETE_SUBSCRIPTION: Command(
        pubsub_commands.delete_subscription, {}, pubsub_commands.SUBSCRIPTION_SELECTORS),
    CMQCFC.MQCMD_CHANGE_SUBSCRIPTION: Command(
        pubsub_commands.change_subscription, {}, pubsub_commands.CHANGE_SUBSCRIPTION_PARAMETERS),
})


def run(request: Request, parameters: list[Parameter], count: int) -> list[Reply]:
    """Check one command's parameters (`count`: the MQCFH's ParameterCount), then run it."""
    command = COMMANDS.get(request.command)
    if command is None:
        # a command MQ has but the embedded queue manager does not: it fails, never silently
        raise PCFError(CMQCFC.MQRCCF_COMMAND_FAILED if request.command in _MQ_COMMANDS
                       else CMQCFC.MQRCCF_CFH_COMMAND_ERROR)
    if count < len(command.required):
        raise PCFError(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
    for parameter in parameters:
        _check(command, request, parameter)
    for required in command.required:
        if required not in request.parameters:
            raise PCFError(CMQCFC.MQRCCF_PARM_MISSING, required)
    return _run_authorized(request, command.function)


def _run_authorized(request: Request, function: Callable[[Request], list[Reply]]) -> list[Reply]:
    """The command, if its user may run it (else MQRC_NOT_AUTHORIZED), without the objects
    of its answer that the user may not display."""
    try:
        command_checks.check(request)
    except MQError as exc:
        if exc.reason == CMQC.MQRC_NOT_AUTHORIZED:
            qmgr_events.command_refused(request.qm, request.user, request.command)
        raise PCFError(exc.reason) from None
    replies = function(request)
    shown = command_checks.display_filter(request)
    if shown is None:
        return replies
    parameter, may_display = shown
    return [reply for reply in replies
            if may_display(pcf.string_in(reply.parameters, parameter) or "")]


def _check(command: Command, request: Request, parameter: Parameter) -> None:
    """One parameter: a filter, or one the command takes, in the structure type it takes
    it in (an MQCFIN for an *_ATTRS list is accepted as a list of one, as MQ does)."""
    if parameter.is_filter:
        if not command.filters:
            raise PCFError(PARM_ID_ERRORS[parameter.type], parameter.id)
        if request.filters:
            raise PCFError(CMQCFC.MQRCCF_TOO_MANY_FILTERS)
        request.filters.append(parameter)
        return
    expected = command.required.get(parameter.id, command.optional.get(parameter.id))
    if expected == _IL and parameter.type == _IN:
        parameter.type, parameter.value = _IL, [parameter.value]
    elif expected == _ST and parameter.type == _SL and len(parameter.value) == 1:
        parameter.type, parameter.value = _ST, parameter.value[0]
    elif expected == _SL and parameter.type == _ST:  # a list of one name, e.g. NAMES
        parameter.type, parameter.value = _SL, [parameter.value]
    if expected is None or expected != parameter.type:
        raise PCFError(PARM_ID_ERRORS.get(parameter.type, CMQCFC.MQRCCF_PARM_SYNTAX_ERROR),
                       parameter.id)
    if parameter.id in request.parameters:
        raise PCFError(DUPLICATE_ERRORS.get(parameter.type, CMQCFC.MQRCCF_CFIN_DUPLICATE_PARM),
                       parameter.id)
    request.parameters[parameter.id] = parameter
