"""Set Channel Authentication Record (runs in the queue-manager process, under the queue
manager's lock).

The rules are core/security/chlauth.py's, the ones MQSC's SET CHLAUTH changes. The PCF command
is turned into that MQSC command and checked as runmqsc checks it (which attributes each
TYPE and ACTION take), so both interfaces change rules alike; IBM's test suite sets the
USERMAP and BLOCKUSER rules of its TLS channel this way.
"""
from __future__ import annotations

from spark_mq.embedded.server.admin.command_server import pcf
from spark_mq.embedded.server.admin.command_server.pcf import PCFError
from spark_mq.embedded.server.admin.command_server.request import KeywordTable, Reply, Request, mqsc_value
from spark_mq.embedded.server.admin.mqsc_apply import apply_command
from spark_mq.embedded.server.admin.security.mqsc_commands import security_command
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand, MQSCError
from spark_mq.embedded.server.core.security.authinfo import CHECK_VALUES
from spark_mq.mqi.constants import CMQC, CMQCFC

_IN, _ST, _SL = CMQCFC.MQCFT_INTEGER, CMQCFC.MQCFT_STRING, CMQCFC.MQCFT_STRING_LIST

_TYPES = {CMQCFC.MQCAUT_BLOCKUSER: "BLOCKUSER", CMQCFC.MQCAUT_BLOCKADDR: "BLOCKADDR",
          CMQCFC.MQCAUT_SSLPEERMAP: "SSLPEERMAP", CMQCFC.MQCAUT_ADDRESSMAP: "ADDRESSMAP",
          CMQCFC.MQCAUT_USERMAP: "USERMAP", CMQCFC.MQCAUT_QMGRMAP: "QMGRMAP"}
_ACTIONS = {CMQCFC.MQACT_ADD: "ADD", CMQCFC.MQACT_REPLACE: "REPLACE",
            CMQCFC.MQACT_REMOVE: "REMOVE", CMQCFC.MQACT_REMOVEALL: "REMOVEALL"}
#: PCF parameter -> (SET CHLAUTH keyword, {PCF value: keyword} for keyword attributes)
_KEYWORDS: KeywordTable = {
    CMQCFC.MQIACF_CHLAUTH_TYPE: ("TYPE", _TYPES),
    CMQCFC.MQIACF_ACTION: ("ACTION", _ACTIONS),
    CMQCFC.MQCACH_CONNECTION_NAME: ("ADDRESS", None),
    CMQCFC.MQCACH_CONNECTION_NAME_LIST: ("ADDRLIST", None),
    CMQC.MQIA_CHECK_CLIENT_BINDING: ("CHCKCLNT", {
        CHECK_VALUES[word]: word for word in ("ASQMGR", "REQUIRED", "REQDADM")}),
    CMQCFC.MQCACH_CLIENT_USER_ID: ("CLNTUSER", None),
    CMQC.MQCA_CUSTOM: ("CUSTOM", None),
    CMQC.MQCA_CHLAUTH_DESC: ("DESCR", None),
    CMQCFC.MQCACH_MCA_USER_ID: ("MCAUSER", None),
    CMQC.MQCA_REMOTE_Q_MGR_NAME: ("QMNAME", None),
    CMQC.MQCA_SSL_CERT_ISSUER_NAME: ("SSLCERTI", None),
    CMQCFC.MQCACH_SSL_PEER_NAME: ("SSLPEER", None),
    CMQCFC.MQCACH_MCA_USER_ID_LIST: ("USERLIST", None),
    CMQCFC.MQIACH_USER_SOURCE: ("USERSRC", {
        CMQC.MQUSRC_MAP: "MAP", CMQC.MQUSRC_NOACCESS: "NOACCESS", CMQC.MQUSRC_CHANNEL: "CHANNEL"}),
    CMQCFC.MQIACH_WARNING: ("WARN", {CMQC.MQWARN_NO: "NO", CMQC.MQWARN_YES: "YES"}),
}
#: the reason for a keyword value that is not one of the parameter's
_VALUE_ERRORS = {CMQCFC.MQIACF_CHLAUTH_TYPE: CMQCFC.MQRCCF_CHLAUTH_TYPE_ERROR,
                 CMQCFC.MQIACF_ACTION: CMQCFC.MQRCCF_CHLAUTH_ACTION_ERROR,
                 CMQC.MQIA_CHECK_CLIENT_BINDING: CMQCFC.MQRCCF_CHLAUTH_CHKCLI_ERROR,
                 CMQCFC.MQIACH_USER_SOURCE: CMQCFC.MQRCCF_CHLAUTH_USERSRC_ERROR,
                 CMQCFC.MQIACH_WARNING: CMQCFC.MQRCCF_CHLAUTH_WARN_ERROR}
_PARAMETERS = {keyword: parameter for parameter, (keyword, _) in _KEYWORDS.items()}
_LISTS = (CMQCFC.MQCACH_CONNECTION_NAME_LIST, CMQCFC.MQCACH_MCA_USER_ID_LIST)

#: the parameters Set Channel Authentication Record takes besides the profile and the type
SET_PARAMETERS = {parameter: (_SL if parameter in _LISTS else _IN if words is not None else _ST)
                  for parameter, (_, words) in _KEYWORDS.items()
                  if parameter != CMQCFC.MQIACF_CHLAUTH_TYPE}


def _quoted(items: list[str]) -> str:
    """A list as MQSC writes it, which is what the MQSC checks read."""
    return ",".join("'" + item.replace("'", "''") + "'" for item in items)


def _attributes(request: Request) -> dict[str, object]:
    attributes: dict[str, object] = {}
    for parameter in request.parameters.values():
        if parameter.id not in _KEYWORDS:
            continue
        keyword, words = _KEYWORDS[parameter.id]
        if parameter.id in _LISTS:
            attributes[keyword] = _quoted([pcf.text(item) if isinstance(item, bytes) else str(item)
                                           for item in parameter.value])
        else:
            attributes[keyword] = mqsc_value(
                parameter, words, _VALUE_ERRORS.get(parameter.id, CMQCFC.MQRCCF_PARM_VALUE_ERROR))
    return attributes


def _refusal(error: MQSCError) -> PCFError:
    """The PCF answer to what runmqsc would have refused (mqsc_commands._check_rule)."""
    parameter = _PARAMETERS.get(error.attribute or "")
    if "is required" in error.message:
        return PCFError(CMQCFC.MQRCCF_PARM_MISSING, parameter)
    if "is not valid with TYPE" in error.message:
        return PCFError(CMQCFC.MQRCCF_WRONG_CHLAUTH_TYPE, parameter)
    if error.attribute == "MCAUSER":   # MCAUSER without USERSRC(MAP)
        return PCFError(CMQCFC.MQRCCF_WRONG_CHLAUTH_USERSRC, parameter)
    if "BLOCKADDR" in error.message:   # BLOCKADDR on a profile other than '*'
        return PCFError(CMQCFC.MQRCCF_CHLAUTH_NAME_ERROR, CMQCFC.MQCACH_CHANNEL_NAME)
    return PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, parameter)


def set_chlauth_rec(request: Request) -> list[Reply]:
    """MQCMD_SET_CHLAUTH_REC: SET CHLAUTH(profile) TYPE(...) [ACTION(...)] ..."""
    profile = request.string(CMQCFC.MQCACH_CHANNEL_NAME)
    if not profile or len(profile) > CMQC.MQ_CHANNEL_NAME_LENGTH:
        raise PCFError(CMQCFC.MQRCCF_CHLAUTH_NAME_ERROR, CMQCFC.MQCACH_CHANNEL_NAME)
    try:
        command = security_command(MQSCCommand("SET", "CHLAUTH", profile, _attributes(request)))
    except MQSCError as error:
        raise _refusal(error) from None
    try:
        apply_command(request.qm, command)
    except ValueError as error:
        if "AMQ8883E" in str(error):
            raise PCFError(CMQCFC.MQRCCF_CHLAUTH_ALREADY_EXISTS) from None
        if "AMQ8884E" in str(error):
            raise PCFError(CMQCFC.MQRCCF_CHLAUTH_NOT_FOUND) from None
        raise PCFError(CMQCFC.MQRCCF_COMMAND_FAILED) from None
    return [Reply()]
