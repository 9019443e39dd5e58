"""The channel commands: Inquire Channel (Names), Create, Change and Delete Channel (runs
in the queue-manager process, under the queue manager's lock).

Channels are core/channel_definitions.py's table: server-connection (SVRCONN) channels, the ones clients
connect through, sender (SDR) and receiver (RCVR) channels to other queue managers, and
cluster-sender (CLUSSDR) and cluster-receiver (CLUSRCVR) channels, refused as IBM refuses
them (MQRCCF_CLUSTER_NAME_CONFLICT: clusters/definitions.py);
changes go through admin.apply_command, as MQSC DEFINE/ALTER/DELETE CHANNEL do. Other
channel types are not modelled: creating one fails (MQRCCF_COMMAND_FAILED) rather than
being ignored, and inquiries find none. Starting, stopping, pinging and resolving channels
and their status are channel_control.py's. A channel in a configuration event has the
attributes Inquire Channel returns (`config_objects.describes`).
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
from spark_mq.embedded.server.clusters.definitions import ClusterRefused
from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.embedded.server.events.configuration import Described
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
#: the message channels' own parameters: selector -> (keyword, words, string length)
_MESSAGE_CHANNEL: dict[int, tuple[str, dict[int, str] | None, int]] = {
    CMQCFC.MQCACH_CONNECTION_NAME: ("CONNAME", None, CMQC.MQ_CONN_NAME_LENGTH),
    CMQCFC.MQCACH_XMIT_Q_NAME: ("XMITQ", None, CMQC.MQ_Q_NAME_LENGTH),
    CMQCFC.MQIACH_BATCH_SIZE: ("BATCHSZ", None, 0),
    CMQCFC.MQIACH_BATCH_INTERVAL: ("BATCHINT", None, 0),
    CMQCFC.MQIACH_DISC_INTERVAL: ("DISCINT", None, 0),
    CMQCFC.MQIACH_SHORT_RETRY: ("SHORTRTY", None, 0),
    CMQCFC.MQIACH_SHORT_TIMER: ("SHORTTMR", None, 0),
    CMQCFC.MQIACH_LONG_RETRY: ("LONGRTY", None, 0),
    CMQCFC.MQIACH_LONG_TIMER: ("LONGTMR", None, 0),
    CMQCFC.MQIACH_SEQUENCE_NUMBER_WRAP: ("SEQWRAP", None, 0),
    CMQCFC.MQIACH_NPM_SPEED: ("NPMSPEED", {CMQXC.MQNPMS_FAST: "FAST",
                                           CMQXC.MQNPMS_NORMAL: "NORMAL"}, 0),
    CMQCFC.MQIACH_PUT_AUTHORITY: ("PUTAUT", {CMQXC.MQPA_DEFAULT: "DEF",
                                             CMQXC.MQPA_CONTEXT: "CTX",
                                             CMQXC.MQPA_ONLY_MCA: "ONLYMCA",
                                             CMQXC.MQPA_ALTERNATE_OR_MCA: "ALTMCA"}, 0),
    CMQCFC.MQIACH_MR_COUNT: ("MRRTY", None, 0),
    CMQCFC.MQIACH_MR_INTERVAL: ("MRTMR", None, 0),
    CMQC.MQIA_USE_DEAD_LETTER_Q: ("USEDLQ", {CMQC.MQUSEDLQ_YES: "YES",
                                             CMQC.MQUSEDLQ_NO: "NO"}, 0),
    # the cluster channels' (core/channel_definitions.py: CLUSSDR and CLUSRCVR only)
    CMQC.MQCA_CLUSTER_NAME: ("CLUSTER", None, CMQC.MQ_CLUSTER_NAME_LENGTH),
    CMQC.MQCA_CLUSTER_NAMELIST: ("CLUSNL", None, CMQC.MQ_NAMELIST_NAME_LENGTH),
    CMQCFC.MQIACH_CLWL_CHANNEL_RANK: ("CLWLRANK", None, 0),
    CMQCFC.MQIACH_CLWL_CHANNEL_PRIORITY: ("CLWLPRTY", None, 0),
    CMQCFC.MQIACH_CLWL_CHANNEL_WEIGHT: ("CLWLWGHT", None, 0),
    CMQCFC.MQIACH_NETWORK_PRIORITY: ("NETPRTY", None, 0),
}
_CHANGES.update({selector: (keyword, words) for selector, (keyword, words, _)
                 in _MESSAGE_CHANNEL.items()})
#: MQIACH_CHANNEL_TYPE values of the channel types kept here
CHANNEL_TYPES = {channels.SVRCONN: CMQXC.MQCHT_SVRCONN, channels.SENDER: CMQXC.MQCHT_SENDER,
                 channels.RECEIVER: CMQXC.MQCHT_RECEIVER, channels.CLNTCONN: CMQXC.MQCHT_CLNTCONN,
                 channels.SERVER: CMQXC.MQCHT_SERVER, channels.REQUESTER: CMQXC.MQCHT_REQUESTER,
                 channels.CLUSSDR: CMQXC.MQCHT_CLUSSDR, channels.CLUSRCVR: CMQXC.MQCHT_CLUSRCVR}
_KINDS = {number: kind for kind, number in CHANNEL_TYPES.items()}
#: the parameters Create/Change Channel take
CHANGE_PARAMETERS = {selector: (CMQCFC.MQCFT_STRING if selector >= CMQC.MQCA_FIRST
                                else CMQCFC.MQCFT_INTEGER) for selector in _CHANGES}


# === channels =============================================================================
def _channel_values(name: str, attrs: dict[str, Any]) -> dict[int, Value | list[int]]:
    def number(key: str, default: int) -> int:
        value = attrs.get(key, default)
        return value if isinstance(value, int) else default

    kind = str(attrs.get("CHLTYPE", channels.SVRCONN))
    if kind != channels.SVRCONN:
        return _message_channel_values(name, kind, attrs)
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


def _message_channel_values(name: str, kind: str, attrs: dict[str, Any]) -> dict[int, Value | list[int]]:
    """A sender's or receiver's attributes as PCF values: those its type has."""
    values: dict[int, Value | list[int]] = {
        CMQCFC.MQCACH_CHANNEL_NAME: padded(name, CMQC.MQ_CHANNEL_NAME_LENGTH),
        CMQCFC.MQIACH_CHANNEL_TYPE: CHANNEL_TYPES[kind],
        CMQCFC.MQCACH_DESC: padded(str(attrs.get("DESCR", "")), CMQC.MQ_CHANNEL_DESC_LENGTH),
        CMQCFC.MQIACH_XMIT_PROTOCOL_TYPE: CMQXC.MQXPT_TCP,
        CMQCFC.MQCACH_MCA_USER_ID: padded(str(attrs.get("MCAUSER", "")), CMQC.MQ_USER_ID_LENGTH),
        CMQCFC.MQIACH_HB_INTERVAL: int(attrs.get("HBINT", 300)),
        CMQCFC.MQIACH_MAX_MSG_LENGTH: int(attrs.get("MAXMSGL", 4_194_304)),
        CMQCFC.MQCACH_SSL_CIPHER_SPEC: padded(str(attrs.get("SSLCIPH", "")),
                                              CMQC.MQ_SSL_CIPHER_SPEC_LENGTH),
    }
    specs = channels.ATTRIBUTES[kind]
    for selector, (keyword, words, length) in _MESSAGE_CHANNEL.items():
        if keyword not in specs or keyword not in attrs:
            continue
        raw = attrs[keyword]
        if words is not None:
            # a word this PCF table lacks is left out of the answer rather than failing it
            number = next((n for n, word in words.items() if word == raw), None)
            if number is not None:
                values[selector] = number
        elif length:
            values[selector] = padded(str(raw), length)
        else:
            values[selector] = int(raw)
    return values


def _channels(request: Request) -> list[tuple[str, dict[str, Any]]]:
    """The channels a (generic) name and MQIACH_CHANNEL_TYPE select; none is an error."""
    pattern = request.string(CMQCFC.MQCACH_CHANNEL_NAME)
    wanted = request.integer(CMQCFC.MQIACH_CHANNEL_TYPE, CMQXC.MQCHT_ALL)
    if wanted != CMQXC.MQCHT_ALL and wanted not in _KINDS:
        raise unknown_object()  # a type not kept here
    found = [(name, dict(attrs)) for name, attrs in sorted(channels.table(request.qm).channels.items())
             if matches(pattern, name) and (
                 wanted == CMQXC.MQCHT_ALL
                 or attrs.get("CHLTYPE", channels.SVRCONN) == _KINDS[wanted])]
    if not found:
        raise unknown_object()
    return found


def inquire_channel(request: Request) -> list[Reply]:
    """MQCMD_INQUIRE_CHANNEL: one reply per SVRCONN channel; name and type always."""
    always = (CMQCFC.MQCACH_CHANNEL_NAME, CMQCFC.MQIACH_CHANNEL_TYPE)
    replies = []
    for name, attrs in _channels(request):
        values = request.chosen(_channel_values(name, attrs), CMQCFC.MQIACF_CHANNEL_ATTRS, always)
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
    types = [CHANNEL_TYPES[str(attrs.get("CHLTYPE", channels.SVRCONN))] for _, attrs in found]
    return [Reply([pcf.cfsl(CMQCFC.MQCACH_CHANNEL_NAMES, names, CMQC.MQ_CHANNEL_NAME_LENGTH),
                   pcf.cfil(CMQCFC.MQIACH_CHANNEL_TYPES, types)])]


# === changes ==============================================================================
def _named(request: Request) -> tuple[str, str]:
    """(the channel's name, its MQSC type) of a Create or Change Channel."""
    name = request.string(CMQCFC.MQCACH_CHANNEL_NAME)
    kind = _KINDS.get(request.integer(CMQCFC.MQIACH_CHANNEL_TYPE, CMQXC.MQCHT_SVRCONN))
    if kind is None:
        raise PCFError(CMQCFC.MQRCCF_COMMAND_FAILED)  # a channel type not modelled here
    return name, kind


def _attributes(request: Request, kind: str) -> dict[str, object]:
    attributes: dict[str, object] = {"CHLTYPE": kind}
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
    except ClusterRefused as refused:
        raise PCFError(refused.pcf_reason) from None
    except channels.CipherSpecError:
        # IBM's Create/Change Channel answer for an SSLCipherSpec that is not a CipherSpec
        raise PCFError(CMQCFC.MQRCCF_SSL_CIPHER_SPEC_ERROR) from None
    except ValueError as exc:
        # core/channel_definitions.py validates names and values as MQSC does
        reason = CMQCFC.MQRCCF_PARM_VALUE_ERROR if "attribute" in str(exc) \
            else CMQCFC.MQRCCF_COMMAND_FAILED
        raise PCFError(reason) from None


def create_channel(request: Request) -> list[Reply]:
    """MQCMD_CREATE_CHANNEL: DEFINE CHANNEL(...) CHLTYPE(SVRCONN|SDR|RCVR|SVR|RQSTR|CLUSSDR|
    CLUSRCVR) [REPLACE]."""
    name, kind = _named(request)
    replace = request.integer(CMQCFC.MQIACF_REPLACE, CMQCFC.MQRP_NO) == CMQCFC.MQRP_YES
    if channels.exists(request.qm, name) and not replace:
        raise PCFError(CMQCFC.MQRCCF_OBJECT_ALREADY_EXISTS)
    _apply(request, "DEFINE", name, _attributes(request, kind),
           frozenset({"REPLACE"}) if replace else frozenset())
    return [Reply()]


def change_channel(request: Request) -> list[Reply]:
    """MQCMD_CHANGE_CHANNEL: ALTER CHANNEL(...) CHLTYPE(...)."""
    name, kind = _named(request)
    if not channels.exists(request.qm, name):
        raise unknown_object()
    _apply(request, "ALTER", name, _attributes(request, kind))
    return [Reply()]


def delete_channel(request: Request) -> list[Reply]:
    """MQCMD_DELETE_CHANNEL: DELETE CHANNEL(...)."""
    name = request.string(CMQCFC.MQCACH_CHANNEL_NAME)
    if not channels.exists(request.qm, name):
        raise unknown_object()
    _apply(request, "DELETE", name, {})
    return [Reply()]


# === configuration events ==================================================================
def _described(qm: QueueManagerState, name: str) -> Described:
    """A channel as a configuration event describes it: its Inquire Channel attributes."""
    attrs = channels.table(qm).channels.get(name)
    if attrs is None:
        return None
    return CMQC.MQOT_CHANNEL, encode(_channel_values(name, dict(attrs)))


config_objects.describes("CHANNEL", _described,
                         lambda qm: sorted(channels.table(qm).channels))
