"""The queue manager's own attributes, as MQINQ on the queue-manager object and DISPLAY QMGR
show them (runs in the queue-manager process).

The embedded queue manager answers as an IBM MQ 9.4 queue manager on a UNIX platform does.
Attributes an administrator can change live in `QueueManagerState.attrs` (see
mqsc_attributes.QMGR_ATTRIBUTES: DEADQ, DESCR, MAXMSGL, MAXUMSGS, MAXPROPL, MAXHANDS,
TRIGINT, CONNAUTH, CHLAUTH, PERFMEV, CHLEV, MONQ... act; the cluster ones REPOS, REPOSNL,
DEFCLXQ, CLWLUSEQ and CLWLMRUC are answered as set, for server/clusters/;
STORED_QMGR_ATTRIBUTES, everything else `dmpmqcfg` writes, are only kept and shown by
DISPLAY QMGR); the rest are fixed here.
Where the embedded queue manager lacks a facility MQ has (distribution lists, the SSL,
logger and channel auto-definition events, channel auto-definition), MQINQ says so rather
than claim it, whatever ALTER QMGR stored (SSLEV(ENABLED) is shown by DISPLAY QMGR, but
MQINQ's MQIA_SSL_EVENT stays MQEVR_DISABLED: no such event comes). The event switches it
acts on (events/) answer as set.
"""
from __future__ import annotations

from typing import Any

from spark_mq.embedded.server.core.state import QMGR_CCSID, QueueManagerState
from spark_mq.mqi.constants import CMQC, CMQCFC

#: MQ's version string, VVRRMMFF (version, release, maintenance level, fix level)
VERSION = "09040000"
#: MQ 9.4's command level (CMDLEVEL)
COMMAND_LEVEL = 940
MAX_PRIORITY = 9
#: the queue PCF commands go to, created with the queue manager (system_queues.py)
COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"
_EVENTS_DISABLED: int = CMQCFC.MQEVR_DISABLED  # an event kind this queue manager never generates

#: MQINQ integer selectors -> the QMGR attribute (mqsc_attributes.QMGR_ATTRIBUTES) holding them
_ALTERABLE_INTS = {
    CMQC.MQIA_MAX_MSG_LENGTH: "MAXMSGL",
    CMQC.MQIA_MAX_UNCOMMITTED_MSGS: "MAXUMSGS",
    CMQC.MQIA_MAX_PROPERTIES_LENGTH: "MAXPROPL",
    CMQC.MQIA_MAX_HANDLES: "MAXHANDS",
    CMQC.MQIA_TRIGGER_INTERVAL: "TRIGINT",
    CMQC.MQIA_CLWL_MRU_CHANNELS: "CLWLMRUC",
}
_FIXED_INTS = {
    CMQC.MQIA_COMMAND_LEVEL: COMMAND_LEVEL,
    CMQC.MQIA_PLATFORM: CMQC.MQPL_UNIX,
    CMQC.MQIA_SYNCPOINT: CMQC.MQSP_AVAILABLE,
    CMQC.MQIA_MAX_PRIORITY: MAX_PRIORITY,
    CMQC.MQIA_CODED_CHAR_SET_ID: QMGR_CCSID,
    # an MQOD with object records (a distribution list) is not supported here
    CMQC.MQIA_DIST_LISTS: CMQC.MQDL_NOT_SUPPORTED,
    CMQC.MQIA_CHANNEL_AUTO_DEF: CMQC.MQCHAD_DISABLED,
    **{selector: _EVENTS_DISABLED for selector in (
        CMQC.MQIA_CHANNEL_AUTO_DEF_EVENT, CMQC.MQIA_SSL_EVENT, CMQC.MQIA_LOGGER_EVENT)},
}
#: MQINQ selectors of the switches that ALTER QMGR sets by keyword -> (the QMGR attribute, its
#: MQSC keywords as MQI values): the event switches (MQEVR_*; the selectors in _FIXED_INTS are
#: events never generated) and queue monitoring (MQMON_*)
_ON_OFF_EVENT = {"DISABLED": CMQCFC.MQEVR_DISABLED, "ENABLED": CMQCFC.MQEVR_ENABLED}
KEYWORD_SWITCHES: dict[int, tuple[str, dict[str, int]]] = {
    CMQC.MQIA_AUTHORITY_EVENT: ("AUTHOREV", _ON_OFF_EVENT),
    CMQC.MQIA_INHIBIT_EVENT: ("INHIBTEV", _ON_OFF_EVENT),
    CMQC.MQIA_LOCAL_EVENT: ("LOCALEV", _ON_OFF_EVENT),
    CMQC.MQIA_REMOTE_EVENT: ("REMOTEEV", _ON_OFF_EVENT),
    CMQC.MQIA_START_STOP_EVENT: ("STRSTPEV", _ON_OFF_EVENT),
    CMQC.MQIA_CONFIGURATION_EVENT: ("CONFIGEV", _ON_OFF_EVENT),
    CMQC.MQIA_COMMAND_EVENT: ("CMDEV", {**_ON_OFF_EVENT,
                                        "NODISPLAY": CMQCFC.MQEVR_NO_DISPLAY}),
    CMQC.MQIA_PERFORMANCE_EVENT: ("PERFMEV", {"DISABLED": CMQCFC.MQEVR_DISABLED,
                                              "ENABLED": CMQCFC.MQEVR_ENABLED}),
    CMQC.MQIA_CHANNEL_EVENT: ("CHLEV", {"DISABLED": CMQCFC.MQEVR_DISABLED,
                                        "ENABLED": CMQCFC.MQEVR_ENABLED,
                                        "EXCEPTION": CMQCFC.MQEVR_EXCEPTION}),
    CMQC.MQIA_MONITORING_Q: ("MONQ", {"OFF": CMQC.MQMON_OFF, "NONE": CMQC.MQMON_NONE,
                                      "LOW": CMQC.MQMON_LOW, "MEDIUM": CMQC.MQMON_MEDIUM,
                                      "HIGH": CMQC.MQMON_HIGH}),
    # clusters (server/clusters/): the cluster transmission queue of each cluster-sender, and
    # whether a put prefers the local instance of a cluster queue
    CMQC.MQIA_DEF_CLUSTER_XMIT_Q_TYPE: ("DEFCLXQ", {"SCTQ": CMQCFC.MQCLXQ_SCTQ,
                                                    "CHANNEL": CMQCFC.MQCLXQ_CHANNEL}),
    CMQC.MQIA_CLWL_USEQ: ("CLWLUSEQ", {"LOCAL": CMQC.MQCLWL_USEQ_LOCAL,
                                       "ANY": CMQC.MQCLWL_USEQ_ANY}),
}
#: MQINQ character selectors -> the length of their value (MQ_*_LENGTH)
CHAR_LENGTHS = {
    CMQC.MQCA_Q_MGR_NAME: CMQC.MQ_Q_MGR_NAME_LENGTH,
    CMQC.MQCA_DEAD_LETTER_Q_NAME: CMQC.MQ_Q_NAME_LENGTH,
    CMQC.MQCA_Q_MGR_DESC: CMQC.MQ_Q_MGR_DESC_LENGTH,
    CMQC.MQCA_Q_MGR_IDENTIFIER: CMQC.MQ_Q_MGR_IDENTIFIER_LENGTH,
    CMQC.MQCA_COMMAND_INPUT_Q_NAME: CMQC.MQ_Q_NAME_LENGTH,
    CMQC.MQCA_VERSION: CMQC.MQ_VERSION_LENGTH,
    CMQC.MQCA_DEF_XMIT_Q_NAME: CMQC.MQ_Q_NAME_LENGTH,
    CMQC.MQCA_CONN_AUTH: CMQC.MQ_AUTH_INFO_NAME_LENGTH,
    CMQC.MQCA_SSL_KEY_REPOSITORY: CMQC.MQ_SSL_KEY_REPOSITORY_LENGTH,
    CMQC.MQCA_CERT_LABEL: CMQC.MQ_CERT_LABEL_LENGTH,
    CMQC.MQCA_REPOSITORY_NAME: CMQC.MQ_CLUSTER_NAME_LENGTH,
    CMQC.MQCA_REPOSITORY_NAMELIST: CMQC.MQ_NAMELIST_NAME_LENGTH,
}
#: MQINQ character selectors -> the QMGR attribute holding them (server/network/tls.py reads
#: the TLS ones; REPOS and REPOSNL make the queue manager a full repository, server/clusters/)
_ALTERABLE_CHARS = {CMQC.MQCA_SSL_KEY_REPOSITORY: "SSLKEYR", CMQC.MQCA_CERT_LABEL: "CERTLABL",
                    CMQC.MQCA_REPOSITORY_NAME: "REPOS", CMQC.MQCA_REPOSITORY_NAMELIST: "REPOSNL"}


def identifier(qmgr: QueueManagerState) -> str:
    """QMID: unique to this queue manager and the same across restarts."""
    return f"{qmgr.name}_EMBEDDED"


def qmgr_value(qmgr: QueueManagerState, selector: int) -> int | bytes | None:
    """The value MQINQ answers for one selector on the queue manager, None when the selector
    is not a queue-manager attribute (MQRC_SELECTOR_NOT_FOR_TYPE)."""
    if selector in _ALTERABLE_INTS:
        return int(qmgr.attrs[_ALTERABLE_INTS[selector]])
    if selector in _FIXED_INTS:
        return _FIXED_INTS[selector]
    if selector in KEYWORD_SWITCHES:
        keyword, values = KEYWORD_SWITCHES[selector]
        return values.get(str(qmgr.attrs.get(keyword)), CMQCFC.MQEVR_DISABLED)
    if selector == CMQC.MQIA_CHLAUTH_RECORDS:
        return 0 if qmgr.attrs.get("CHLAUTH") == "DISABLED" else 1  # MQCHLA_DISABLED/ENABLED
    text = _char_value(qmgr, selector)
    return None if text is None else text.encode()


def _char_value(qmgr: QueueManagerState, selector: int) -> str | None:
    if selector == CMQC.MQCA_Q_MGR_NAME:
        return qmgr.name
    if selector == CMQC.MQCA_DEAD_LETTER_Q_NAME:
        return str(qmgr.attrs["DEADQ"])
    if selector == CMQC.MQCA_Q_MGR_DESC:
        return str(qmgr.attrs["DESCR"])
    if selector == CMQC.MQCA_Q_MGR_IDENTIFIER:
        return identifier(qmgr)
    if selector == CMQC.MQCA_COMMAND_INPUT_Q_NAME:
        return COMMAND_QUEUE
    if selector == CMQC.MQCA_VERSION:
        return VERSION
    if selector == CMQC.MQCA_DEF_XMIT_Q_NAME:
        return str(qmgr.attrs.get("DEFXMITQ", ""))
    if selector == CMQC.MQCA_CONN_AUTH:
        return str(qmgr.attrs.get("CONNAUTH", ""))
    if selector in _ALTERABLE_CHARS:
        return str(qmgr.attrs.get(_ALTERABLE_CHARS[selector], ""))
    return None


def status_attributes(qmgr: QueueManagerState) -> dict[str, Any]:
    """What DISPLAY QMGR shows besides the alterable attributes, in MQSC terms (True is a
    keyword shown bare, as runmqsc shows SYNCPT)."""
    return {"VERSION": VERSION, "CMDLEVEL": COMMAND_LEVEL, "PLATFORM": "UNIX",
            "CCSID": QMGR_CCSID, "QMID": identifier(qmgr), "MAXPRTY": MAX_PRIORITY,
            "SYNCPT": True, "DISTL": "NO", "COMMANDQ": COMMAND_QUEUE}
