"""Channel definitions: SVRCONN (client connections come in through them), and the sender
(SDR) and receiver (RCVR) message channels between queue managers (message_channels/).

Runs in the queue-manager process. MQSC DEFINE/ALTER/DELETE/DISPLAY CHANNEL(name)
CHLTYPE(SVRCONN) change this table (admin/mqsc_apply.py sends them here, under the queue manager's lock);
the listener asks it whether a connecting client named a defined SVRCONN channel, and answers
MQRC_UNKNOWN_CHANNEL_NAME when not, as IBM MQ does. Definitions are stored with the queues'
(kind "CHANNEL") and recovered with them (definitions.recover).

Every attribute IBM MQ's `dmpmqcfg` writes for these types is typed and validated
(`SVRCONN_ATTRIBUTES` ...) and kept, displayed and restored. The name and the TLS attributes
take part in connecting (SSLCIPH, SSLCAUTH, SSLPEER, CERTLABL: see server/network/tls.py),
MAXINST and MAXINSTC bound its instances (server/network/mqi_session.py), its heartbeat interval
is the listener's, and messages are limited by the queue and queue-manager MAXMSGL; the ones
`_STORED_ONLY` lists change nothing (compression, exits, keepalive, monitoring...). An SSLCIPH
that names no CipherSpec IBM MQ knows is refused as runmqsc refuses it (AMQ8242E,
`CipherSpecError`; tls/cipher_specs.py).

SDR and RCVR definitions have their own attributes (`SENDER_ATTRIBUTES`,
`RECEIVER_ATTRIBUTES`, with crtmqm's SYSTEM.DEF.SENDER/RECEIVER defaults); the message
channel agents read them when a channel starts. A server (SVR) has a sender's attributes
and a requester (RQSTR) a receiver's plus CONNAME: a server with CONNAME starts as a sender
does and its partner, a receiver or a requester, receives (server-initiated; the
requester-initiated forms are not modelled yet). CLNTCONN definitions are kept and shown
(`CLNTCONN_ATTRIBUTES`) but carry no clients. Cluster-sender (CLUSSDR) and cluster-receiver
(CLUSRCVR) definitions are kept, validated and shown with their cluster attributes
(`CLUSSDR_ATTRIBUTES`, `CLUSRCVR_ATTRIBUTES`; the refusals IBM gives for them are
clusters/definitions.py's); a CLUSSDR runs as a sender on SYSTEM.CLUSTER.TRANSMIT.QUEUE and
a CLUSRCVR receives as a receiver does (message_channels/sender.py, server/clusters/).
Other channel types (AMQP, MQTT) are accepted and ignored, so IBM's scripts load.
"""
from __future__ import annotations

import fnmatch
import re
from typing import Any

from spark_mq.embedded.server.core.mqsc_attributes import AttributeSpec
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand
from spark_mq.embedded.server.core.state import FeatureState, QueueManagerState
from spark_mq.embedded.tls import cipher_specs

SVRCONN, SENDER, RECEIVER, CLNTCONN = "SVRCONN", "SDR", "RCVR", "CLNTCONN"
SERVER, REQUESTER = "SVR", "RQSTR"
CLUSSDR, CLUSRCVR = "CLUSSDR", "CLUSRCVR"
#: the types whose agent sends a transmission queue's messages, and those that receive them
#: (a cluster-sender sends SYSTEM.CLUSTER.TRANSMIT.QUEUE's messages for it, a
#: cluster-receiver receives as a receiver does: message_channels/sender.py)
SENDING = frozenset({SENDER, SERVER, CLUSSDR})
RECEIVING = frozenset({RECEIVER, REQUESTER, CLUSRCVR})
_CHANNEL = frozenset({"CHANNEL"})
#: IBM's default (and largest) MAXINST and MAXINSTC: no limit of the channel's own
MAX_INSTANCES = 999_999_999

def _int(default: int, low: int, high: int, **keywords: int) -> AttributeSpec:
    return AttributeSpec("int", default, _CHANNEL, bounds=(low, high), keywords=keywords)


def _enum(*choices: str) -> AttributeSpec:
    return AttributeSpec("enum", choices[0], _CHANNEL, choices=choices)


def _str(length: int) -> AttributeSpec:
    return AttributeSpec("str", "", _CHANNEL, max_length=length)


def _list(*choices: str) -> AttributeSpec:
    return AttributeSpec("list", choices[0], _CHANNEL, choices=choices)


_FOREVER = 999_999_999
_EXITS = 999        # a list of exit names (or their data), as IBM MQ's MQSC takes it
#: The rest of what `dmpmqcfg` writes for each channel type, with IBM MQ 9.4's types, ranges
#: and defaults (MQSC "DEFINE CHANNEL"): kept, shown and restored, but the channels here
#: compress nothing (COMPHDR, COMPMSG), call no exits (*EXIT, *DATA), keep no statistics or
#: monitoring data (MONCHL, STATCHL), convert nothing at the sender (CONVERT), have no LU 6.2
#: (MODENAME, TPNAME) and no policy-based protection (SPLPROT); KAINT is TCP's keepalive,
#: which the listener leaves to the operating system, and a SVRCONN's DISCINT ends no idle
#: client; PROPCTL, BATCHHB, MCANAME, MCATYPE, LOCLADDR, PASSWORD and USERID of a sender
#: are not used by its agent (BATCHLIM is: message_channels/sender.py).
_STORED_ONLY: dict[str, AttributeSpec] = {
    "COMPHDR": _list("NONE", "SYSTEM"),
    "COMPMSG": _list("NONE", "RLE", "ZLIBFAST", "ZLIBHIGH", "LZ4FAST", "LZ4HIGH", "ANY"),
    "KAINT": _int(-1, 0, 99_999, AUTO=-1),
    "MONCHL": _enum("QMGR", "OFF", "LOW", "MEDIUM", "HIGH"),
    "RCVDATA": _str(_EXITS), "RCVEXIT": _str(_EXITS),
    "SENDDATA": _str(_EXITS), "SENDEXIT": _str(_EXITS),
    "SCYDATA": _str(32), "SCYEXIT": _str(128),
}
#: what a message channel (SDR, RCVR) also keeps, to the same end as _STORED_ONLY
_MESSAGE_STORED_ONLY: dict[str, AttributeSpec] = {
    **_STORED_ONLY,
    "MSGDATA": _str(_EXITS), "MSGEXIT": _str(_EXITS),
    "STATCHL": _enum("QMGR", "OFF", "LOW", "MEDIUM", "HIGH"),
    "SPLPROT": _enum("PASSTHRU", "REMOVE", "ASPOLICY"),
}

#: SVRCONN attributes with their types and crtmqm's defaults (SYSTEM.DEF.SVRCONN's values)
SVRCONN_ATTRIBUTES: dict[str, AttributeSpec] = {
    "TRPTYPE": _enum("TCP", "LU62", "NETBIOS", "SPX"),
    "MCAUSER": _str(64),
    "DESCR": _str(64),
    "SSLCIPH": _str(32),
    "HBINT": _int(300, 0, 999_999),
    "MAXMSGL": _int(4_194_304, 0, 104_857_600),
    "SHARECNV": _int(10, 0, _FOREVER),
    # TLS (server/network/tls.py): client certificates required or not, the DN pattern they must
    # match, and the label of the certificate this channel presents (blank: the QMGR's)
    "SSLCAUTH": _enum("REQUIRED", "OPTIONAL"),
    "SSLPEER": _str(1024),
    "CERTLABL": _str(64),
    # instances running at once, in all and from one client address (network/mqi_session.py refuses
    # more with MQRC_CHANNEL_NOT_AVAILABLE); lowering them ends no running instance
    "MAXINST": _int(MAX_INSTANCES, 0, MAX_INSTANCES),
    "MAXINSTC": _int(MAX_INSTANCES, 0, MAX_INSTANCES),
    "DISCINT": _int(0, 0, 999_999),
    **_STORED_ONLY,
}
#: what both ends of a message channel have (IBM's defaults)
_MESSAGE_CHANNEL: dict[str, AttributeSpec] = {
    "TRPTYPE": SVRCONN_ATTRIBUTES["TRPTYPE"], "DESCR": SVRCONN_ATTRIBUTES["DESCR"],
    "MAXMSGL": SVRCONN_ATTRIBUTES["MAXMSGL"], "HBINT": SVRCONN_ATTRIBUTES["HBINT"],
    "SSLCIPH": SVRCONN_ATTRIBUTES["SSLCIPH"], "SSLPEER": SVRCONN_ATTRIBUTES["SSLPEER"],
    "CERTLABL": SVRCONN_ATTRIBUTES["CERTLABL"],
    "BATCHSZ": _int(50, 1, 9999),           # messages per batch (the lower end's wins)
    "SEQWRAP": _int(_FOREVER, 100, _FOREVER),
    "NPMSPEED": _enum("FAST", "NORMAL"),    # FAST: non-persistent messages outside batches
    "MCAUSER": SVRCONN_ATTRIBUTES["MCAUSER"],
    "USEDLQ": _enum("YES", "NO"),
    **_MESSAGE_STORED_ONLY,
}
#: a sender: where its partner listens, which transmission queue it serves, batches, retries
SENDER_ATTRIBUTES: dict[str, AttributeSpec] = {
    **_MESSAGE_CHANNEL,
    "CONNAME": _str(264),
    "XMITQ": _str(48),
    "BATCHINT": _int(0, 0, _FOREVER),       # ms to wait for more before ending a batch
    "DISCINT": _int(6000, 0, 999_999),      # s idle before the channel ends (INACTIVE)
    "SHORTRTY": _int(10, 0, _FOREVER), "SHORTTMR": _int(60, 0, _FOREVER),
    "LONGRTY": _int(_FOREVER, 0, _FOREVER), "LONGTMR": _int(1200, 0, _FOREVER),
    # kept only (_STORED_ONLY says why), but BATCHLIM: KB a batch may carry (0: no limit)
    "BATCHHB": _int(0, 0, _FOREVER), "BATCHLIM": _int(5000, 0, 999_999),
    "CONVERT": _enum("NO", "YES"), "LOCLADDR": _str(48), "MCANAME": _str(20),
    "MCATYPE": _enum("PROCESS", "THREAD"), "MODENAME": _str(8), "TPNAME": _str(64),
    "PASSWORD": _str(12), "USERID": _str(12), "PROPCTL": _enum("COMPAT", "NONE", "ALL"),
}
#: a receiver: who its messages are put as, and what to do when a put fails
RECEIVER_ATTRIBUTES: dict[str, AttributeSpec] = {
    **_MESSAGE_CHANNEL,
    # DEF (ONLYMCA): as the MCA user; CTX (ALTMCA): as each message's user, vouched for by
    # the MCA user (message_channels/receiver.py); ONLYMCA and ALTMCA are z/OS's names
    "PUTAUT": _enum("DEF", "CTX", "ONLYMCA", "ALTMCA"),
    "MRRTY": _int(10, 0, _FOREVER), "MRTMR": _int(1000, 0, _FOREVER),
    "SSLCAUTH": SVRCONN_ATTRIBUTES["SSLCAUTH"],
    "MRDATA": _str(32), "MREXIT": _str(128),   # kept only: no message-retry exit is called
}
#: a server: a sender whose CONNAME may be blank (then only its requester can start it)
SERVER_ATTRIBUTES: dict[str, AttributeSpec] = dict(SENDER_ATTRIBUTES)
#: a requester: a receiver that knows where its server (or sender) listens
REQUESTER_ATTRIBUTES: dict[str, AttributeSpec] = {
    **RECEIVER_ATTRIBUTES,
    "CONNAME": _str(264), "LOCLADDR": _str(48), "MCANAME": _str(20),
    "MCATYPE": _enum("PROCESS", "THREAD"), "MODENAME": _str(8), "TPNAME": _str(64),
    "PASSWORD": _str(12), "USERID": _str(12),
}
#: what both cluster channels add (IBM's chlclus.html): the clusters served, in CLUSTER or in
#: the namelist CLUSNL (clusters/definitions.py refuses both), and the workload attributes
#: the cluster workload algorithm reads from the target's CLUSRCVR: rank, priority, weight
#: and the network priority among several routes to one queue manager
_CLUSTER_CHANNEL: dict[str, AttributeSpec] = {
    "CLUSTER": _str(48), "CLUSNL": _str(48),
    "CLWLRANK": _int(0, 0, 9), "CLWLPRTY": _int(0, 0, 9), "CLWLWGHT": _int(50, 1, 99),
    "NETPRTY": _int(0, 0, 9),
}
#: a cluster-receiver: this queue manager's door into its clusters, a receiver whose
#: definition also says how the other members' auto-defined cluster-senders reach it and
#: behave (CONNAME, batches, retries, intervals), as IBM's CLUSRCVR does
CLUSRCVR_ATTRIBUTES: dict[str, AttributeSpec] = {
    **RECEIVER_ATTRIBUTES,
    **{key: spec for key, spec in SENDER_ATTRIBUTES.items()
       if key not in RECEIVER_ATTRIBUTES and key not in ("XMITQ", "PASSWORD", "USERID")},
    **_CLUSTER_CHANNEL,
}
#: a cluster-sender defined by hand: a sender to a full repository, with no XMITQ of its own
#: (clustering's transmission queue serves every cluster-sender, by CorrelId)
CLUSSDR_ATTRIBUTES: dict[str, AttributeSpec] = {
    **{key: spec for key, spec in SENDER_ATTRIBUTES.items() if key != "XMITQ"},
    **_CLUSTER_CHANNEL,
}
#: a client-connection definition: kept for DISPLAY, PCF and a CCDT made elsewhere; nothing
#: here connects with it (clients read their CCDT themselves)
CLNTCONN_ATTRIBUTES: dict[str, AttributeSpec] = {
    "TRPTYPE": SVRCONN_ATTRIBUTES["TRPTYPE"], "DESCR": _str(64),
    "CONNAME": _str(264), "QMNAME": _str(48),
    "AFFINITY": _enum("PREFERRED", "NONE"), "CLNTWGHT": _int(0, 0, 99),
    "DEFRECON": _enum("NO", "YES", "QMGR", "DISABLED"),
    "HBINT": SVRCONN_ATTRIBUTES["HBINT"], "MAXMSGL": SVRCONN_ATTRIBUTES["MAXMSGL"],
    "SHARECNV": SVRCONN_ATTRIBUTES["SHARECNV"], "LOCLADDR": _str(48),
    "MODENAME": _str(8), "TPNAME": _str(64), "PASSWORD": _str(12), "USERID": _str(12),
    "SSLCIPH": SVRCONN_ATTRIBUTES["SSLCIPH"], "SSLPEER": SVRCONN_ATTRIBUTES["SSLPEER"],
    "CERTLABL": SVRCONN_ATTRIBUTES["CERTLABL"],
    **{key: spec for key, spec in _STORED_ONLY.items() if key != "MONCHL"},
}
ATTRIBUTES: dict[str, dict[str, AttributeSpec]] = {
    SVRCONN: SVRCONN_ATTRIBUTES, SENDER: SENDER_ATTRIBUTES, RECEIVER: RECEIVER_ATTRIBUTES,
    SERVER: SERVER_ATTRIBUTES, REQUESTER: REQUESTER_ATTRIBUTES, CLNTCONN: CLNTCONN_ATTRIBUTES,
    CLUSSDR: CLUSSDR_ATTRIBUTES, CLUSRCVR: CLUSRCVR_ATTRIBUTES}
#: keywords of IBM's DEFINE CHANNEL that are about the command, or z/OS's: accepted, kept
_UNMODELLED = frozenset("DEFCDISP QSGDISP CMDSCOPE LIKE".split())
_FLAGS = frozenset({"REPLACE", "NOREPLACE"})
_CHANNEL_NAME = re.compile(r"[A-Za-z0-9._/%]{1,20}")

#: the SVRCONN channels a new queue manager has: crtmqm's two and the developer container's two
DEFAULT_CHANNELS: dict[str, dict[str, Any]] = {
    "SYSTEM.DEF.SVRCONN": {},
    "SYSTEM.AUTO.SVRCONN": {},
    "DEV.ADMIN.SVRCONN": {},
    "DEV.APP.SVRCONN": {"MCAUSER": "app"},
}


class CipherSpecError(ValueError):
    """An SSLCIPH that is not a CipherSpec name (PCF answers MQRCCF_SSL_CIPHER_SPEC_ERROR)."""


class ChannelTable:
    """One queue manager's SVRCONN channels: name -> attributes (CHLTYPE included)."""

    def __init__(self) -> None:
        self.channels: dict[str, dict[str, Any]] = {}


# One table per queue manager, in its feature state (state.FeatureState), so that the verbs'
# shared state (state.py) does not have to know that channels exist.
_CHANNELS: FeatureState[ChannelTable] = FeatureState("channels", lambda qm: ChannelTable())


def table(qm: QueueManagerState) -> ChannelTable:
    return _CHANNELS.of(qm)


def is_svrconn(qm: QueueManagerState, name: str) -> bool:
    """Whether a client may connect through channel `name` (channel names are case-sensitive)."""
    attrs = table(qm).channels.get(name)
    return attrs is not None and attrs.get("CHLTYPE", SVRCONN) == SVRCONN


def of_type(qm: QueueManagerState, name: str, chltype: str) -> dict[str, Any] | None:
    """The attributes of channel `name` if it is a `chltype` channel, else None."""
    attrs = table(qm).channels.get(name)
    return attrs if attrs is not None and attrs.get("CHLTYPE") == chltype else None


def exists(qm: QueueManagerState, name: str) -> bool:
    return name in table(qm).channels


def default_attributes(chltype: str = SVRCONN) -> dict[str, Any]:
    values: dict[str, Any] = {key: spec.default for key, spec in ATTRIBUTES[chltype].items()}
    values["CHLTYPE"] = chltype
    return values


# --- start-up ------------------------------------------------------------------------------
def restore(qm: QueueManagerState, name: str, attrs: dict[str, Any]) -> None:
    """A stored definition, at recovery (attributes added since it was stored get their defaults)."""
    values = default_attributes(str(attrs.get("CHLTYPE", SVRCONN)))
    values.update(attrs)
    table(qm).channels[name] = values


def instance_limit(attrs: dict[str, Any], key: str) -> int:
    """MAXINST or MAXINSTC of a channel's attributes; a definition stored when they were kept
    as text may hold anything, which limits nothing."""
    try:
        return int(attrs.get(key, MAX_INSTANCES))
    except (TypeError, ValueError):
        return MAX_INSTANCES


def ensure_defaults(qm: QueueManagerState) -> None:
    """Give a store without any channel the default ones: a new queue manager, and one whose
    data directory was created before channels were kept (every client would otherwise be
    refused with MQRC_UNKNOWN_CHANNEL_NAME)."""
    channels = table(qm).channels
    if channels:
        return
    for name, attrs in DEFAULT_CHANNELS.items():
        values = default_attributes()
        values.update(attrs)
        channels[name] = values
        qm.store.save_object("CHANNEL", name, values)


# --- MQSC ----------------------------------------------------------------------------------
def apply(qm: QueueManagerState, command: MQSCCommand) -> str:
    """DEFINE, ALTER or DELETE CHANNEL; returns runmqsc's message, "" for an ignored command.
    Failures are ValueErrors with the text runmqsc shows."""
    name, verb = _name(command.name), command.verb
    channels = table(qm).channels
    chltype = str(command.attributes.get("CHLTYPE", "")).upper()
    if verb == "DELETE":
        if name not in channels:
            if chltype and chltype not in ATTRIBUTES:
                return ""
            raise ValueError(f"AMQ8147E: IBM MQ object {name} not found.")
        del channels[name]
        qm.store.delete_object("CHANNEL", name)
        return "AMQ8015I: IBM MQ channel deleted."
    if not chltype:
        raise ValueError(f"CHLTYPE is required on {verb} CHANNEL (valid: SVRCONN, SDR, RCVR, "
                         "SVR, RQSTR, CLNTCONN, CLUSSDR, CLUSRCVR, AMQP)")
    if chltype not in ATTRIBUTES:
        return ""   # not modelled: see the module docstring
    attrs = _typed(command, chltype)
    existing = channels.get(name)
    if existing is not None and existing.get("CHLTYPE", SVRCONN) != chltype:
        raise ValueError(f"AMQ8509E: channel {name} is a {existing.get('CHLTYPE')} channel, "
                         f"not {chltype} (valid: CHLTYPE({existing.get('CHLTYPE')}))")
    if verb == "DEFINE":
        if existing is not None and "REPLACE" not in command.flags:
            raise ValueError(f"AMQ8227E: Channel name {name} already defined; use REPLACE.")
        values = default_attributes(chltype)
        values.update(attrs)
        channels[name] = values
        message = "AMQ8014I: IBM MQ channel created."
    elif verb == "ALTER":
        if name not in channels:
            raise ValueError(f"AMQ8147E: IBM MQ object {name} not found.")
        channels[name].update(attrs)
        message = "AMQ8016I: IBM MQ channel changed."
    else:
        raise ValueError(f"{verb} CHANNEL is not supported (valid: DEFINE, ALTER, DELETE, DISPLAY)")
    qm.store.save_object("CHANNEL", name, channels[name])
    return message


def display(qm: QueueManagerState, command: MQSCCommand) -> list[tuple[str, dict[str, Any]]]:
    """The channels DISPLAY CHANNEL(pattern) [TYPE(t) | CHLTYPE(t)] shows, sorted by name."""
    pattern = command.name or "*"
    wanted = str(command.attributes.get("TYPE") or command.attributes.get("CHLTYPE")
                 or "ALL").upper()
    if wanted != "ALL" and wanted not in ATTRIBUTES:
        return []
    found = [(name, dict(attrs)) for name, attrs in sorted(table(qm).channels.items())
             if fnmatch.fnmatchcase(name, pattern)
             and wanted in ("ALL", attrs.get("CHLTYPE", SVRCONN))]
    if not found:
        raise ValueError(f"AMQ8147E: IBM MQ object {pattern} not found.")
    return found


def _name(text: str) -> str:
    if not _CHANNEL_NAME.fullmatch(text or ""):
        raise ValueError(f"channel name '{text}' is not valid (valid: 1 to 20 of A-Z a-z 0-9 . / _ %)")
    return text


def _typed(command: MQSCCommand, chltype: str) -> dict[str, Any]:
    """The command's attributes: modelled ones coerced, IBM's other ones kept as text."""
    specs = ATTRIBUTES[chltype]
    attrs: dict[str, Any] = {}
    for key, value in command.attributes.items():
        if key == "CHLTYPE":
            continue
        spec = specs.get(key)
        if spec is not None:
            try:
                # the parser has already folded unquoted text to upper case: keep it as given
                attrs[key] = spec.coerce(str(value), quoted=True)
            except ValueError as err:
                raise ValueError(f"attribute {key}: {err} (valid: {spec.describe()})") from None
        elif key in _UNMODELLED:
            attrs[key] = value
        else:
            valid = ", ".join(sorted({*specs, *_UNMODELLED, "CHLTYPE"}))
            raise ValueError(f"attribute {key}: unknown for a {chltype} channel (valid: {valid})")
    for flag in command.flags - _FLAGS:
        raise ValueError(f"keyword {flag} is not valid on {command.verb} CHANNEL "
                         "(valid: REPLACE, NOREPLACE)")
    _check_cipher_spec(str(attrs.get("SSLCIPH", "")))
    return attrs


def _check_cipher_spec(value: str) -> None:
    """Blank (no TLS) or a CipherSpec name IBM MQ knows, else runmqsc's AMQ8242E."""
    if value.strip() and not cipher_specs.is_known(value):
        raise CipherSpecError(
            f"AMQ8242E: SSLCIPH definition wrong. ({value!r} is not a CipherSpec; valid: blank, "
            "an alias such as ANY_TLS12_OR_HIGHER, ANY_TLS12, ANY_TLS13, ANY, or a CipherSpec "
            "name such as ECDHE_RSA_AES_256_GCM_SHA384 or TLS_AES_128_GCM_SHA256)")
