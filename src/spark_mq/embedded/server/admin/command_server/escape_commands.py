"""MQCMD_ESCAPE: one MQSC command carried in a PCF message (runs in the queue-manager
process, under its lock).

As IBM MQ's command server on Multiplatforms: EscapeType must be MQET_MQSC (else
MQRCCF_ESCAPE_TYPE_ERROR) and EscapeText holds one MQSC command, applied as runmqsc applies
it. The answer is one response message per displayed object (one for any other command),
each with EscapeType and the text runmqsc would print; its MQCFH Command is the PCF command
the MQSC one is (MQCMD_CREATE_Q for DEFINE QLOCAL, ...), its CompCode whether the command
succeeded (MQCC_FAILED with MQRCCF_COMMAND_FAILED and runmqsc's message when not).

The requesting user's authority is checked as for that PCF command (security/
command_checks.py): the MQSC command is seen as its PCF equivalent naming the same object,
and a generic DISPLAY leaves out the objects the user may not display (a subscription is
known by the SUBID its block shows). An MQSC command without a PCF equivalent needs what an
unlisted command needs: CHG on the queue manager. DEFINE SUB without SUBUSER makes the
subscription the issuing user's, as IBM MQ does.
"""
from __future__ import annotations

import re
from dataclasses import replace

from spark_mq.embedded.server.admin.command_server import pcf
from spark_mq.embedded.server.admin.command_server.pcf import Parameter, PCFError
from spark_mq.embedded.server.admin.command_server.request import Reply, Request
from spark_mq.embedded.server.admin.mqsc import parse_mqsc
from spark_mq.embedded.server.admin.mqsc_apply import apply_command
from spark_mq.embedded.server.admin.security import command_checks
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand, MQSCError
from spark_mq.embedded.server.core.named_kinds import KINDS as NAMED_KINDS
from spark_mq.embedded.server.core.named_objects import NamedKind
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.events import queue_manager as qmgr_events
from spark_mq.mqi.constants import CMQC, CMQCFC, CMQXC

_ST, _IN = CMQCFC.MQCFT_STRING, CMQCFC.MQCFT_INTEGER
_QUEUE_TYPES = {"QLOCAL": CMQC.MQQT_LOCAL, "QALIAS": CMQC.MQQT_ALIAS, "QMODEL": CMQC.MQQT_MODEL}
_CHANNEL_TYPES = {"SVRCONN": CMQXC.MQCHT_SVRCONN, "CLNTCONN": CMQXC.MQCHT_CLNTCONN,
                  "SDR": CMQXC.MQCHT_SENDER, "RCVR": CMQXC.MQCHT_RECEIVER,
                  "CLUSSDR": CMQXC.MQCHT_CLUSSDR, "CLUSRCVR": CMQXC.MQCHT_CLUSRCVR}
_AUTH_INFO_TYPES = {"IDPWOS": CMQC.MQAIT_IDPW_OS, "IDPWLDAP": CMQC.MQAIT_IDPW_LDAP,
                    "CRLLDAP": CMQC.MQAIT_CRL_LDAP, "OCSP": CMQC.MQAIT_OCSP}


def _create_change_delete_inquire(kind: NamedKind) -> tuple[int, int, int, int]:
    """A named kind's commands in _OBJECTS' order: DEFINE, ALTER, DELETE, DISPLAY."""
    inquire, _, create, _, change, delete = kind.pcf_commands
    return create, change, delete, inquire


#: an object type's DEFINE/ALTER/DELETE/DISPLAY as PCF commands, the parameter naming the
#: object, and the parameter and MQSC attribute giving a Create its object's type
_OBJECTS: dict[str, tuple[tuple[int, int, int, int], int, int | None, str | None]] = {
    "QUEUE": ((CMQCFC.MQCMD_CREATE_Q, CMQCFC.MQCMD_CHANGE_Q, CMQCFC.MQCMD_DELETE_Q,
               CMQCFC.MQCMD_INQUIRE_Q), CMQC.MQCA_Q_NAME, CMQC.MQIA_Q_TYPE, None),
    "CHANNEL": ((CMQCFC.MQCMD_CREATE_CHANNEL, CMQCFC.MQCMD_CHANGE_CHANNEL,
                 CMQCFC.MQCMD_DELETE_CHANNEL, CMQCFC.MQCMD_INQUIRE_CHANNEL),
                CMQCFC.MQCACH_CHANNEL_NAME, CMQCFC.MQIACH_CHANNEL_TYPE, "CHLTYPE"),
    "AUTHINFO": ((CMQCFC.MQCMD_CREATE_AUTH_INFO, CMQCFC.MQCMD_CHANGE_AUTH_INFO,
                  CMQCFC.MQCMD_DELETE_AUTH_INFO, CMQCFC.MQCMD_INQUIRE_AUTH_INFO),
                 CMQC.MQCA_AUTH_INFO_NAME, CMQC.MQIA_AUTH_INFO_TYPE, "AUTHTYPE"),
    # the named object kinds (namelists, processes)
    **{kind.kind: (_create_change_delete_inquire(kind), kind.name_parameter, None, None)
       for kind in NAMED_KINDS.values()},
    "TOPIC": ((CMQCFC.MQCMD_CREATE_TOPIC, CMQCFC.MQCMD_CHANGE_TOPIC, CMQCFC.MQCMD_DELETE_TOPIC,
               CMQCFC.MQCMD_INQUIRE_TOPIC), CMQC.MQCA_TOPIC_NAME, None, None),
}
_VERBS = ("DEFINE", "ALTER", "DELETE", "DISPLAY")
#: the other MQSC commands with a PCF equivalent: (verb, object type) -> MQCMD_*
_OTHERS = {
    ("CLEAR", "QLOCAL"): CMQCFC.MQCMD_CLEAR_Q, ("DISPLAY", "QSTATUS"): CMQCFC.MQCMD_INQUIRE_Q_STATUS,
    ("DISPLAY", "QMGR"): CMQCFC.MQCMD_INQUIRE_Q_MGR, ("ALTER", "QMGR"): CMQCFC.MQCMD_CHANGE_Q_MGR,
    ("PING", "QMGR"): CMQCFC.MQCMD_PING_Q_MGR, ("SET", "AUTHREC"): CMQCFC.MQCMD_SET_AUTH_REC,
    ("REFRESH", "QMGR"): CMQCFC.MQCMD_REFRESH_Q_MGR,
    ("DELETE", "AUTHREC"): CMQCFC.MQCMD_DELETE_AUTH_REC,
    ("DISPLAY", "AUTHREC"): CMQCFC.MQCMD_INQUIRE_AUTH_RECS,
    ("SET", "CHLAUTH"): CMQCFC.MQCMD_SET_CHLAUTH_REC,
    ("DISPLAY", "CHLAUTH"): CMQCFC.MQCMD_INQUIRE_CHLAUTH_RECS,
    ("REFRESH", "SECURITY"): CMQCFC.MQCMD_REFRESH_SECURITY,
    ("DEFINE", "SUB"): CMQCFC.MQCMD_CREATE_SUBSCRIPTION,
    ("DELETE", "SUB"): CMQCFC.MQCMD_DELETE_SUBSCRIPTION,
    ("ALTER", "SUB"): CMQCFC.MQCMD_CHANGE_SUBSCRIPTION,
    ("DISPLAY", "SUB"): CMQCFC.MQCMD_INQUIRE_SUBSCRIPTION,
    ("DISPLAY", "SBSTATUS"): CMQCFC.MQCMD_INQUIRE_SUB_STATUS,
}
#: the SUB commands' attributes as the PCF parameters the authority checks read
_SUB_STRINGS = {"TOPICSTR": CMQC.MQCA_TOPIC_STRING, "TOPICOBJ": CMQC.MQCA_TOPIC_NAME,
                "DEST": CMQCFC.MQCACF_DESTINATION, "DESTQMGR": CMQCFC.MQCACF_DESTINATION_Q_MGR,
                "SUBUSER": CMQCFC.MQCACF_SUB_USER_ID}
# a DISPLAY's output: one block per object, each opened by runmqsc's AMQ message line
_BLOCK_START = re.compile(r"^AMQ\d{4}I: (?:Display .*|IBM MQ subscription (?:status )?inquired\.)$",
                          re.MULTILINE)
_FIRST_VALUE = re.compile(r"\(([^)]*)\)")
# a subscription's block is named by its SUBID: subscription names need not be unique
_SUB_ID = re.compile(r"\bSUBID\(([0-9A-Fa-f]*)\)")


#: the channel initiator's commands (message_channels/initiator.py), named by their channel
CHANNEL_CONTROL = {
    ("START", "CHANNEL"): CMQCFC.MQCMD_START_CHANNEL, ("STOP", "CHANNEL"): CMQCFC.MQCMD_STOP_CHANNEL,
    ("PING", "CHANNEL"): CMQCFC.MQCMD_PING_CHANNEL,
    ("RESOLVE", "CHANNEL"): CMQCFC.MQCMD_RESOLVE_CHANNEL,
    ("RESET", "CHANNEL"): CMQCFC.MQCMD_RESET_CHANNEL,
    ("DISPLAY", "CHSTATUS"): CMQCFC.MQCMD_INQUIRE_CHANNEL_STATUS,
}


def escape(request: Request) -> list[Reply]:
    """MQCMD_ESCAPE (see the module docstring)."""
    if request.integer(CMQCFC.MQIACF_ESCAPE_TYPE, 0) != CMQCFC.MQET_MQSC:
        raise PCFError(CMQCFC.MQRCCF_ESCAPE_TYPE_ERROR, CMQCFC.MQIACF_ESCAPE_TYPE)
    try:
        commands = parse_mqsc(request.string(CMQCFC.MQCACF_ESCAPE_TEXT))
    except MQSCError as exc:
        return [_text_reply(CMQCFC.MQCMD_ESCAPE, "AMQ8405E: Syntax error detected at or near "
                            f"end of command segment.\n{exc}", failed=True)]
    if len(commands) != 1:
        return [_text_reply(CMQCFC.MQCMD_ESCAPE, "AMQ8405E: EscapeText holds "
                            f"{len(commands)} MQSC commands (valid: exactly one)", failed=True)]
    command = commands[0]
    equivalent = _equivalent(request, command)
    try:
        command_checks.check(equivalent)
    except MQError as exc:
        if exc.reason == CMQC.MQRC_NOT_AUTHORIZED:
            qmgr_events.command_refused(request.qm, request.user,
                                        equivalent.command or CMQCFC.MQCMD_ESCAPE)
        raise PCFError(exc.reason) from None
    answered = equivalent.command or CMQCFC.MQCMD_ESCAPE
    command = _owned(request, command)
    try:
        output = apply_command(request.qm, command)
    except (ValueError, MQSCError) as exc:
        return [_text_reply(answered, f"{command.verb} {command.object_type}({command.name}) "
                            f"failed: {exc}", failed=True)]
    if command.verb != "DISPLAY":
        return [_text_reply(answered, output)]
    return [_text_reply(answered, block) for block in _shown(equivalent, output)]


def _equivalent(request: Request, command: MQSCCommand) -> Request:
    """The PCF request the MQSC command is, as far as authority checks go."""
    kind = "QUEUE" if command.object_type in (*_QUEUE_TYPES, "QUEUE") else command.object_type
    parameters: dict[int, Parameter] = {}
    # MQCMD_NONE: no PCF equivalent, so what an unlisted command needs
    number = _OTHERS.get((command.verb, command.object_type), CMQCFC.MQCMD_NONE)
    if command.object_type == "QSTATUS":   # checked as Inquire Queue Status of the queue named
        parameters[CMQC.MQCA_Q_NAME] = Parameter(_ST, CMQC.MQCA_Q_NAME, command.name.encode())
    if (command.verb, command.object_type) in CHANNEL_CONTROL:
        number = CHANNEL_CONTROL[(command.verb, command.object_type)]
        parameters[CMQCFC.MQCACH_CHANNEL_NAME] = Parameter(
            _ST, CMQCFC.MQCACH_CHANNEL_NAME, command.name.encode())
    if kind in _OBJECTS and command.verb in _VERBS:
        numbers, name_parameter, type_parameter, type_attribute = _OBJECTS[kind]
        number = numbers[_VERBS.index(command.verb)]
        parameters[name_parameter] = Parameter(_ST, name_parameter, command.name.encode())
        if command.verb == "DEFINE" and type_parameter is not None:
            value = (_QUEUE_TYPES.get(command.object_type) if type_attribute is None else
                     _type_of(type_attribute, command))
            if value is not None:
                parameters[type_parameter] = Parameter(_IN, type_parameter, value)
        if "REPLACE" in command.flags:
            parameters[CMQCFC.MQIACF_REPLACE] = Parameter(_IN, CMQCFC.MQIACF_REPLACE,
                                                          CMQCFC.MQRP_YES)
    if command.object_type in ("SUB", "SBSTATUS"):
        parameters.update(_subscription_parameters(command))
    return Request(request.qm, request.authority, number, parameters,
                   server_conn_id=request.server_conn_id, user=request.user)


def _subscription_parameters(command: MQSCCommand) -> dict[int, Parameter]:
    """SUB(name) or SUBID, and what DEFINE SUB's checks read (subscription_checks.py)."""
    found: dict[int, Parameter] = {}
    if command.name:
        found[CMQCFC.MQCACF_SUB_NAME] = Parameter(_ST, CMQCFC.MQCACF_SUB_NAME,
                                                  command.name.encode())
    attrs = command.attributes
    if attrs.get("SUBID"):
        try:
            sub_id = bytes.fromhex(str(attrs["SUBID"]))
        except ValueError:
            sub_id = b""   # names no subscription: the command says so
        found[CMQCFC.MQBACF_SUB_ID] = Parameter(CMQCFC.MQCFT_BYTE_STRING, CMQCFC.MQBACF_SUB_ID,
                                                sub_id)
    for keyword, selector in _SUB_STRINGS.items():
        if attrs.get(keyword):
            found[selector] = Parameter(_ST, selector, str(attrs[keyword]).encode())
    if str(attrs.get("DESTCLAS", "PROVIDED")).upper() == "MANAGED":
        found[CMQCFC.MQIACF_DESTINATION_CLASS] = Parameter(
            _IN, CMQCFC.MQIACF_DESTINATION_CLASS, CMQC.MQDC_MANAGED)
    if "REPLACE" in command.flags:
        found[CMQCFC.MQIACF_REPLACE] = Parameter(_IN, CMQCFC.MQIACF_REPLACE, CMQCFC.MQRP_YES)
    return found


def _owned(request: Request, command: MQSCCommand) -> MQSCCommand:
    """DEFINE SUB without SUBUSER: the subscription belongs to the user who issued it."""
    if (command.verb, command.object_type) != ("DEFINE", "SUB") or not request.user \
            or command.attributes.get("SUBUSER"):
        return command
    return replace(command, attributes={**command.attributes, "SUBUSER": request.user})


def _type_of(attribute: str, command: MQSCCommand) -> int | None:
    value = str(command.attributes.get(attribute, "")).upper()
    return (_CHANNEL_TYPES if attribute == "CHLTYPE" else _AUTH_INFO_TYPES).get(value)


def _shown(request: Request, output: str) -> list[str]:
    """A DISPLAY's blocks, without the objects the user may not display."""
    starts = [match.start() for match in _BLOCK_START.finditer(output)] or [0]
    blocks = [output[start:end].strip() for start, end in zip(starts, [*starts[1:], len(output)])]
    shown = command_checks.display_filter(request)
    if shown is None:
        return blocks
    parameter, may_display = shown
    return [block for block in blocks if may_display(_object_name(block, parameter))]


def _object_name(block: str, parameter: int) -> str:
    """The object a DISPLAY block shows: its first value, e.g. QUEUE(name); a
    subscription's SUBID."""
    found = (_SUB_ID if parameter == CMQCFC.MQBACF_SUB_ID else _FIRST_VALUE).search(block)
    return found.group(1).strip() if found else ""


def _text_reply(command: int, text: str, failed: bool = False) -> Reply:
    parameters = [pcf.cfin(CMQCFC.MQIACF_ESCAPE_TYPE, CMQCFC.MQET_MQSC),
                  pcf.cfst(CMQCFC.MQCACF_ESCAPE_TEXT, text.encode())]
    if failed:
        return Reply(parameters, CMQC.MQCC_FAILED, CMQCFC.MQRCCF_COMMAND_FAILED, command=command)
    return Reply(parameters, command=command)
