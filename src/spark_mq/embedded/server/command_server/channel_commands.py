"""The channel commands: Inquire Channel (Names), Create, Change and Delete Channel (runs
in the queue-manager process, under the queue manager's lock).

Channels are channels.py's table of server-connection (SVRCONN) channels, the ones clients
connect through; changes go through admin.apply_command, as MQSC DEFINE/ALTER/DELETE
CHANNEL do. Other channel types are not modelled: creating one fails
(MQRCCF_COMMAND_FAILED) rather than being ignored, and inquiries find none.
"""
from __future__ import annotations

from typing import Any

from spark_mq.embedded.server import channels
from spark_mq.embedded.server.admin import apply_command
from spark_mq.embedded.server.command_server import pcf
from spark_mq.embedded.server.command_server.attributes import Value, padded
from spark_mq.embedded.server.command_server.pcf import PCFError
from spark_mq.embedded.server.command_server.request import (
    KeywordTable,
    Reply,
    Request,
    encode,
    matches,
    mqsc_value,
    passes,
    unknown_object,
)
from spark_mq.embedded.server.mqsc_command import MQSCCommand
from spark_mq.mqi.constants import CMQC, CMQCFC, CMQXC

#: Create/Change Channel's parameters -> the SVRCONN attribute (channels.SVRCONN_ATTRIBUTES)
#: and, for integers that stand for keywords, the keyword of each value
_CHANGES: KeywordTable = {
    CMQCFC.MQCACH_DESC: ("DESCR", None),
    CMQCFC.MQCACH_MCA_USER_ID: ("MCAUSER", None),
    CMQCFC.MQCACH_SSL_CIPHER_SPEC: ("SSLCIPH", None),
    CMQCFC.MQCACH_SSL_PEER_NAME: ("SSLPEER", None),
    CMQCFC.MQIACH_SSL_CLIENT_AUTH: ("SSLCAUTH", {
        CMQXC.MQSCA_REQUIRED: "REQUIRED", CMQXC.MQSCA_OPTIONAL: "OPTIONAL"}),
    CMQC.MQCA_CERT_LABEL: ("CERTLABL", None),
    CMQCFC.MQIACH_HB_INTERVAL: ("HBINT", None),
    CMQCFC.MQIACH_MAX_MSG_LENGTH: ("MAXMSGL", None),
    CMQCFC.MQIACH_SHARING_CONVERSATIONS: ("SHARECNV", None),
    CMQCFC.MQIACH_MAX_INSTANCES: ("MAXINST", None),
    CMQCFC.MQIACH_MAX_INSTS_PER_CLIENT: ("MAXINSTC", None),
    CMQCFC.MQIACH_XMIT_PROTOCOL_TYPE: ("TRPTYPE", {
        CMQXC.MQXPT_TCP: "TCP", CMQXC.MQXPT_LU62: "LU62", CMQXC.MQXPT_NETBIOS: "NETBIOS",
        CMQXC.MQXPT_SPX: "SPX"}),
}
#: the parameters Create/Change Channel take
CHANGE_PARAMETERS = {selector: (CMQCFC.MQCFT_STRING if selector >= CMQC.MQCA_FIRST
                                else CMQCFC.MQCFT_INTEGER) for selector in _CHANGES}


# === channels =============================================================================
def _channel_values(name: str, attrs: dict[str, Any]) -> dict[int, Value | list[int]]:
    def number(key: str, default: int) -> int:
        value = attrs.get(key, default)
        return value if isinstance(value, int) else default

    return {
        CMQCFC.MQCACH_CHANNEL_NAME: padded(name, CMQC.MQ_CHANNEL_NAME_LENGTH),
        CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_SVRCONN,
        CMQCFC.MQCACH_DESC: padded(str(attrs.get("DESCR", "")), CMQC.MQ_CHANNEL_DESC_LENGTH),
        CMQCFC.MQIACH_XMIT_PROTOCOL_TYPE: CMQXC.MQXPT_TCP,
        CMQCFC.MQCACH_MCA_USER_ID: padded(str(attrs.get("MCAUSER", "")), CMQC.MQ_USER_ID_LENGTH),
        CMQCFC.MQIACH_HB_INTERVAL: number("HBINT", 300),
        CMQCFC.MQIACH_MAX_MSG_LENGTH: number("MAXMSGL", 4_194_304),
        CMQCFC.MQIACH_SHARING_CONVERSATIONS: number("SHARECNV", 10),
        CMQCFC.MQIACH_MAX_INSTANCES: channels.instance_limit(attrs, "MAXINST"),
        CMQCFC.MQIACH_MAX_INSTS_PER_CLIENT: channels.instance_limit(attrs, "MAXINSTC"),
        CMQCFC.MQCACH_SSL_CIPHER_SPEC: padded(str(attrs.get("SSLCIPH", "")),
                                              CMQC.MQ_SSL_CIPHER_SPEC_LENGTH),
        CMQCFC.MQCACH_SSL_PEER_NAME: padded(str(attrs.get("SSLPEER", "")),
                                            CMQC.MQ_DISTINGUISHED_NAME_LENGTH),
        CMQCFC.MQIACH_SSL_CLIENT_AUTH: CMQXC.MQSCA_OPTIONAL if attrs.get("SSLCAUTH") == "OPTIONAL"
        else CMQXC.MQSCA_REQUIRED,
        CMQC.MQCA_CERT_LABEL: padded(str(attrs.get("CERTLABL", "")), CMQC.MQ_CERT_LABEL_LENGTH),
    }


def _channels(request: Request) -> list[tuple[str, dict[str, Any]]]:
    """The SVRCONN channels a (generic) name and MQIACH_CHANNEL_TYPE select; none is an error."""
    pattern = request.string(CMQCFC.MQCACH_CHANNEL_NAME)
    wanted = request.integer(CMQCFC.MQIACH_CHANNEL_TYPE, CMQXC.MQCHT_ALL)
    if wanted not in (CMQXC.MQCHT_ALL, CMQXC.MQCHT_SVRCONN):
        raise unknown_object()  # only server-connection channels exist here
    found = [(name, dict(attrs)) for name, attrs in sorted(channels.table(request.qm).channels.items())
             if matches(pattern, name)]
    if not found:
        raise unknown_object()
    return found


def inquire_channel(request: Request) -> list[Reply]:
    """MQCMD_INQUIRE_CHANNEL: one reply per SVRCONN channel; name and type always."""
    selectors = request.integers(CMQCFC.MQIACF_CHANNEL_ATTRS)
    everything = selectors is None or CMQCFC.MQIACF_ALL in selectors
    always = (CMQCFC.MQCACH_CHANNEL_NAME, CMQCFC.MQIACH_CHANNEL_TYPE)
    replies = []
    for name, attrs in _channels(request):
        row = _channel_values(name, attrs)
        values = {k: v for k, v in row.items()
                  if everything or k in always or (selectors is not None and k in selectors)
                  or any(f.id == k for f in request.filters)}
        if passes(request.filters, values):
            replies.append(Reply(encode(values)))
    return replies


def inquire_channel_names(request: Request) -> list[Reply]:
    """MQCMD_INQUIRE_CHANNEL_NAMES: one reply listing the names and their types."""
    try:
        found = _channels(request)
    except PCFError:
        if not request.string(CMQCFC.MQCACH_CHANNEL_NAME).endswith("*"):
            raise
        found = []
    names = [name for name, _ in found]
    return [Reply([pcf.cfsl(CMQCFC.MQCACH_CHANNEL_NAMES, names, CMQC.MQ_CHANNEL_NAME_LENGTH),
                   pcf.cfil(CMQCFC.MQIACH_CHANNEL_TYPES, [CMQXC.MQCHT_SVRCONN] * len(names))])]


# === changes ==============================================================================
def _svrconn(request: Request) -> str:
    name = request.string(CMQCFC.MQCACH_CHANNEL_NAME)
    if request.integer(CMQCFC.MQIACH_CHANNEL_TYPE, CMQXC.MQCHT_SVRCONN) != CMQXC.MQCHT_SVRCONN:
        raise PCFError(CMQCFC.MQRCCF_COMMAND_FAILED)  # only SVRCONN channels are modelled
    return name


def _attributes(request: Request) -> dict[str, object]:
    attributes: dict[str, object] = {"CHLTYPE": channels.SVRCONN}
    for parameter in request.parameters.values():
        if parameter.id not in _CHANGES:
            continue
        keyword, words = _CHANGES[parameter.id]
        attributes[keyword] = str(mqsc_value(parameter, words))
    return attributes


def _apply(request: Request, verb: str, name: str, attributes: dict[str, object],
           flags: frozenset[str] = frozenset()) -> None:
    try:
        apply_command(request.qm, MQSCCommand(verb, "CHANNEL", name, attributes, flags))
    except channels.CipherSpecError:
        # IBM's Create/Change Channel answer for an SSLCipherSpec that is not a CipherSpec
        raise PCFError(CMQCFC.MQRCCF_SSL_CIPHER_SPEC_ERROR) from None
    except ValueError as exc:
        # channels.py validates names and values as MQSC does
        reason = CMQCFC.MQRCCF_PARM_VALUE_ERROR if "attribute" in str(exc) \
            else CMQCFC.MQRCCF_COMMAND_FAILED
        raise PCFError(reason) from None


def create_channel(request: Request) -> list[Reply]:
    """MQCMD_CREATE_CHANNEL: DEFINE CHANNEL(...) CHLTYPE(SVRCONN) [REPLACE]."""
    name = _svrconn(request)
    replace = request.integer(CMQCFC.MQIACF_REPLACE, CMQCFC.MQRP_NO) == CMQCFC.MQRP_YES
    if channels.exists(request.qm, name) and not replace:
        raise PCFError(CMQCFC.MQRCCF_OBJECT_ALREADY_EXISTS)
    _apply(request, "DEFINE", name, _attributes(request),
           frozenset({"REPLACE"}) if replace else frozenset())
    return [Reply()]


def change_channel(request: Request) -> list[Reply]:
    """MQCMD_CHANGE_CHANNEL: ALTER CHANNEL(...) CHLTYPE(SVRCONN)."""
    name = _svrconn(request)
    if not channels.exists(request.qm, name):
        raise unknown_object()
    _apply(request, "ALTER", name, _attributes(request))
    return [Reply()]


def delete_channel(request: Request) -> list[Reply]:
    """MQCMD_DELETE_CHANNEL: DELETE CHANNEL(...)."""
    name = request.string(CMQCFC.MQCACH_CHANNEL_NAME)
    if not channels.exists(request.qm, name):
        raise unknown_object()
    _apply(request, "DELETE", name, {})
    return [Reply()]
