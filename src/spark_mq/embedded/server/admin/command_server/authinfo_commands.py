"""The authentication information commands: Inquire Authentication Information Object
(Names), Create, Change and Delete Authentication Information Object (runs in the
queue-manager process, under the queue manager's lock).

The objects are core/security/authinfo.py's; changes go through admin.apply_command as MQSC
DEFINE/ALTER/DELETE AUTHINFO do, so both interfaces validate alike. IBM's test suite reads
the queue manager's CONNAUTH (Inquire Queue Manager) and then its object's CHCKCLNT here.
"""
from __future__ import annotations

from typing import Any

from spark_mq.embedded.server.admin import config_objects
from spark_mq.embedded.server.admin.command_server import pcf
from spark_mq.embedded.server.admin.command_server.attributes import Value, padded
from spark_mq.embedded.server.admin.command_server.pcf import PCFError
from spark_mq.embedded.server.admin.command_server.request import (
    KeywordTable,
    Reply,
    Request,
    encode,
    matches,
    mqsc_value,
    passes,
    unknown_object,
)
from spark_mq.embedded.server.admin.mqsc_apply import apply_command
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand
from spark_mq.embedded.server.core.security import authinfo
from spark_mq.embedded.server.core.security.security_state import security_of
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.embedded.server.events.configuration import Described
from spark_mq.mqi.constants import CMQC, CMQCFC

_NAME = CMQC.MQCA_AUTH_INFO_NAME
_TYPE = CMQC.MQIA_AUTH_INFO_TYPE
#: PCF parameter -> (AUTHINFO attribute, {PCF value: keyword} for keyword attributes)
_CHANGES: KeywordTable = {
    CMQC.MQCA_AUTH_INFO_DESC: ("DESCR", None),
    CMQC.MQIA_CHECK_CLIENT_BINDING: ("CHCKCLNT", {v: k for k, v in authinfo.CHECK_VALUES.items()}),
    CMQC.MQIA_CHECK_LOCAL_BINDING: ("CHCKLOCL", {v: k for k, v in authinfo.CHECK_VALUES.items()}),
    CMQC.MQIA_ADOPT_CONTEXT: ("ADOPTCTX", {v: k for k, v in authinfo.ADOPT_VALUES.items()}),
    CMQC.MQIA_AUTHENTICATION_FAIL_DELAY: ("FAILDLAY", None),
}
#: the parameters Create/Change Authentication Information Object take besides name and type
CHANGE_PARAMETERS = {selector: (CMQCFC.MQCFT_STRING if selector >= CMQC.MQCA_FIRST
                                else CMQCFC.MQCFT_INTEGER) for selector in _CHANGES}
_TYPE_KEYWORDS = {value: keyword for keyword, value in authinfo.TYPE_VALUES.items()}


def _values(name: str, attrs: dict[str, Any]) -> dict[int, Value | list[int]]:
    values: dict[int, Value | list[int]] = {
        _NAME: padded(name, CMQC.MQ_AUTH_INFO_NAME_LENGTH),
        _TYPE: authinfo.TYPE_VALUES.get(str(attrs.get("AUTHTYPE")), CMQC.MQAIT_IDPW_OS),
        CMQC.MQCA_AUTH_INFO_DESC: padded(str(attrs.get("DESCR", "")), CMQC.MQ_AUTH_INFO_DESC_LENGTH),
    }
    if attrs.get("AUTHTYPE") in ("IDPWOS", "IDPWLDAP"):
        values[CMQC.MQIA_CHECK_CLIENT_BINDING] = authinfo.CHECK_VALUES[str(attrs["CHCKCLNT"])]
        values[CMQC.MQIA_CHECK_LOCAL_BINDING] = authinfo.CHECK_VALUES[str(attrs["CHCKLOCL"])]
        values[CMQC.MQIA_ADOPT_CONTEXT] = authinfo.ADOPT_VALUES[str(attrs["ADOPTCTX"])]
        values[CMQC.MQIA_AUTHENTICATION_FAIL_DELAY] = int(attrs.get("FAILDLAY", 1))
    return values


def _objects(request: Request) -> list[tuple[str, dict[str, Any]]]:
    pattern = request.string(_NAME)
    wanted = request.integer(_TYPE, CMQC.MQAIT_ALL)
    return [(name, attrs) for name, attrs in sorted(security_of(request.qm).authinfos.items())
            if matches(pattern, name) and wanted in (CMQC.MQAIT_ALL, authinfo.TYPE_VALUES.get(
                str(attrs.get("AUTHTYPE")), 0))]


def inquire_auth_info(request: Request) -> list[Reply]:
    """MQCMD_INQUIRE_AUTH_INFO: one reply per object; name and type always."""
    found = _objects(request)
    if not found:
        raise unknown_object()
    replies = []
    for name, attrs in found:
        values = request.chosen(_values(name, attrs), CMQCFC.MQIACF_AUTH_INFO_ATTRS,
                                (_NAME, _TYPE))
        if passes(request.filters, values):
            replies.append(Reply(encode(values)))
    return replies


def inquire_auth_info_names(request: Request) -> list[Reply]:
    """MQCMD_INQUIRE_AUTH_INFO_NAMES: one reply with the names and their types."""
    found = _objects(request)
    if not found and not request.string(_NAME).endswith("*"):
        raise unknown_object()
    return [Reply([
        pcf.cfsl(CMQCFC.MQCACF_AUTH_INFO_NAMES, [name for name, _ in found],
                 CMQC.MQ_AUTH_INFO_NAME_LENGTH),
        pcf.cfil(CMQCFC.MQIACH_AUTH_INFO_TYPES,
                 [authinfo.TYPE_VALUES.get(str(attrs.get("AUTHTYPE")), 0) for _, attrs in found])])]


def _attributes(request: Request) -> dict[str, object]:
    attributes: dict[str, object] = {}
    if request.has(_TYPE):
        keyword = _TYPE_KEYWORDS.get(request.integer(_TYPE, 0))
        if keyword is None:
            raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, _TYPE)
        attributes["AUTHTYPE"] = keyword
    for parameter in request.parameters.values():
        if parameter.id not in _CHANGES:
            continue
        keyword, words = _CHANGES[parameter.id]
        value = mqsc_value(parameter, words)
        if isinstance(value, int):   # checked as MQSC checks it (FAILDLAY's bounds, ...)
            try:
                value = authinfo.ATTRIBUTES[keyword].coerce(str(value))
            except ValueError:
                raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, parameter.id) from None
        attributes[keyword] = value
    return attributes


def _apply(request: Request, verb: str, flags: frozenset[str] = frozenset()) -> None:
    name = request.string(_NAME)
    try:
        apply_command(request.qm, MQSCCommand(verb, "AUTHINFO", name, _attributes(request), flags))
    except ValueError:
        raise PCFError(CMQCFC.MQRCCF_COMMAND_FAILED) from None


def create_auth_info(request: Request) -> list[Reply]:
    """MQCMD_CREATE_AUTH_INFO: DEFINE AUTHINFO(...) AUTHTYPE(...) [REPLACE]."""
    replace = request.integer(CMQCFC.MQIACF_REPLACE, CMQCFC.MQRP_NO) == CMQCFC.MQRP_YES
    if authinfo.exists(request.qm, request.string(_NAME)) and not replace:
        raise PCFError(CMQCFC.MQRCCF_OBJECT_ALREADY_EXISTS)
    _apply(request, "DEFINE", frozenset({"REPLACE"}) if replace else frozenset())
    return [Reply()]


def change_auth_info(request: Request) -> list[Reply]:
    """MQCMD_CHANGE_AUTH_INFO: ALTER AUTHINFO(...)."""
    if not authinfo.exists(request.qm, request.string(_NAME)):
        raise unknown_object()
    _apply(request, "ALTER")
    return [Reply()]


def delete_auth_info(request: Request) -> list[Reply]:
    """MQCMD_DELETE_AUTH_INFO: DELETE AUTHINFO(...)."""
    if not authinfo.exists(request.qm, request.string(_NAME)):
        raise unknown_object()
    _apply(request, "DELETE")
    return [Reply()]


# === configuration events ==================================================================
def _described(qm: QueueManagerState, name: str) -> Described:
    """An object as a configuration event describes it: what Inquire returns of it."""
    attrs = security_of(qm).authinfos.get(name)
    if attrs is None:
        return None
    return CMQC.MQOT_AUTH_INFO, encode(_values(name, dict(attrs)))


config_objects.describes("AUTHINFO", _described, lambda qm: sorted(security_of(qm).authinfos))
