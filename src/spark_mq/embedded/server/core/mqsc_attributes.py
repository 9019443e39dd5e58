"""The MQSC objects the embedded queue manager keeps: their attributes, types and defaults.

Runs in the queue-manager process. `QUEUE_ATTRIBUTES` and `QMGR_ATTRIBUTES` say which
attributes a QLOCAL, QALIAS, QMODEL, QREMOTE or the QMGR has, how each is typed and validated
(the MQSC parser checks DEFINE/ALTER against them) and what a freshly defined object starts
with (`default_attributes`). They hold every standard attribute IBM MQ's `dmpmqcfg` writes for
these objects, so that an exported configuration loads: the ones this queue manager acts on,
and `STORED_QUEUE_ATTRIBUTES` and `STORED_QMGR_ATTRIBUTES`, which it only validates, keeps
across restarts and shows (DISPLAY, PCF Inquire Queue) without any effect; their comments say
what each would do on IBM MQ and does not here. Channels (channels.py), topics
(pubsub/topic_attributes.py) and subscriptions (admin/pubsub/pubsub_mqsc.py) have such tables
of their own. `DEFAULT_MQSC` is what a new embedded queue manager runs: crtmqm's
security definitions (core/security/defaults.py; its system queues are system_queues.py's), then
the script IBM's developer container runs (`DEVELOPER_MQSC`) and its security definitions.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from spark_mq.embedded.server.core.security.defaults import DEVELOPER_SECURITY_MQSC, SYSTEM_SECURITY_MQSC

#: One attribute's value: an int for an "int" attribute, the keyword or text otherwise.
AttributeValue = int | str
#: An object's attributes, MQSC keyword -> value. Read as Any: which of int or str a key
#: holds is fixed by its `AttributeSpec`, which the type cannot say.
Attributes = dict[str, Any]


@dataclass(frozen=True)
class AttributeSpec:
    """How one attribute is typed and validated.

    ``bounds`` is ``(low, high)`` for "int", ``choices`` the keywords for "enum", "flag" and
    "list" (one or more of them, comma-separated, as COMPMSG(ZLIBFAST,RLE)), and
    ``max_length`` the maximum length for "str" (``allowed`` is whichever applies).
    A "flag" attribute is written as a bare keyword (SHARE or NOSHARE), so the parser
    reports it in `MQSCCommand.flags`; its stored value is the keyword.  ``readonly``
    attributes are runtime status that only DISPLAY shows.
    """

    kind: str
    default: AttributeValue
    object_types: frozenset[str]
    bounds: tuple[int, int] = (0, 0)
    choices: tuple[str, ...] = ()
    max_length: int = 0
    readonly: bool = False
    keywords: Mapping[str, int] = field(default_factory=dict)  # named ints, e.g. NOLIMIT

    @property
    def allowed(self) -> tuple[int, int] | tuple[str, ...] | int:
        """The valid values: bounds, choices or max_length, as the kind says."""
        if self.kind == "int":
            return self.bounds
        if self.kind == "str":
            return self.max_length
        return self.choices

    def describe(self) -> str:
        """The valid values, as shown in error messages."""
        if self.kind == "int":
            low, high = self.bounds
            named = "".join(f" or {word}" for word in self.keywords)
            return f"{low}{named}" if low == high else f"{low} to {high}{named}"
        if self.kind == "str":
            return f"a string of at most {self.max_length} characters"
        if self.kind == "list":
            return "one or more of " + ", ".join(self.choices)
        return ", ".join(self.choices)

    def coerce(self, text: str, quoted: bool = False) -> AttributeValue:
        """Turn the text written in parentheses into a typed value, or raise ValueError."""
        if self.kind == "str":
            value = text if quoted else text.upper()   # MQ folds unquoted values
            if len(value) > self.max_length:
                raise ValueError(f"value '{value}' is {len(value)} characters long")
            return value
        word = text.strip().upper()
        if self.kind == "list":
            return self._coerce_list(word)
        if self.kind in ("enum", "flag"):
            if word not in self.choices:
                raise ValueError(f"value '{text}' is not allowed")
            return word
        if word in self.keywords:
            return self.keywords[word]
        if not re.fullmatch(r"[+-]?\d+", word):
            raise ValueError(f"value '{text}' is not an integer")
        number = int(word)
        low, high = self.bounds
        if not low <= number <= high and number not in self.keywords.values():
            raise ValueError(f"value {number} is out of range")
        return number

    def _coerce_list(self, word: str) -> str:
        items = [item for item in re.split(r"[\s,]+", word) if item]
        wrong = [item for item in items if item not in self.choices]
        if not items or wrong:
            raise ValueError(f"value '{word}' is not allowed")
        return ",".join(items)


_LOCAL = frozenset({"QLOCAL"})
_ALIAS = frozenset({"QALIAS"})
_MODEL = frozenset({"QMODEL"})
_REMOTE = frozenset({"QREMOTE"})
# a model queue has a local queue's attributes: its dynamic queues are local queues
_STORING = _LOCAL | _MODEL
_ANY_QUEUE = _LOCAL | _ALIAS | _MODEL
# what a remote queue definition shares with the others (IBM MQ's QREMOTE attributes)
_PUTTABLE = _ANY_QUEUE | _REMOTE
# what can be advertised in a cluster (IBM MQ: local, alias and remote queues, not models)
_CLUSTERABLE = _LOCAL | _ALIAS | _REMOTE
_MAX_COUNT = 999_999_999
_MAX_MSG_LENGTH = 104_857_600      # 100 MB, IBM MQ's largest message
_NAME_LENGTH = 48                  # IBM MQ object names


def _int(low: int, high: int, default: int, types: frozenset[str], readonly: bool = False,
         keywords: Mapping[str, int] | None = None) -> AttributeSpec:
    return AttributeSpec("int", default, types, bounds=(low, high), readonly=readonly,
                         keywords=keywords or {})


def _enum(values: str, types: frozenset[str]) -> AttributeSpec:
    choices = tuple(values.split())
    return AttributeSpec("enum", choices[0], types, choices=choices)   # first value is the default


def _str(length: int, types: frozenset[str]) -> AttributeSpec:
    return AttributeSpec("str", "", types, max_length=length)


def _list(values: str, types: frozenset[str]) -> AttributeSpec:
    choices = tuple(values.split())
    return AttributeSpec("list", choices[0], types, choices=choices)  # first: the default


#: The rest of what `dmpmqcfg` writes for a queue, with IBM MQ 9.4's types, ranges and
#: defaults (MQSC "DEFINE queues", "ALTER queues"): accepted, validated, stored, shown by
#: DISPLAY and PCF Inquire Queue, and restored at restart, so that an exported configuration
#: loads, but none of them changes what this queue manager does, except the cluster ones:
#: - the cluster attributes (CLUSTER, CLUSNL, CLWLPRTY, CLWLRANK, CLWLUSEQ, CLCHNAME,
#:   DEFBIND) are server/clusters/'s: it refuses what IBM refuses in them, 3088/3090/3363,
#:   routes puts by CLUSTER, CLWL* and DEFBIND (workload.py) and says what is missing;
#:   no cell directory (SCOPE), no distribution lists (DISTL);
#: - no accounting or statistics messages (ACCTQ, STATQ); QSVCIEV and QSVCINT do act: they
#:   drive service interval events (events/performance.py), and are kept here with the rest;
#: - no media images (IMGRCOVQ), no queue-file size limit of its own (MAXFSIZE; the store is
#:   one SQLite file), nothing expires queues (RETINTVL), NPMCLASS(HIGH) keeps nothing more;
#: - HARDENBO: backout counts are hardened whatever it says (they survive a restart here);
#: - no expiry cap (CAPEXPRY) on the messages put, only on a streaming queue's copies;
#:   CUSTOM is text.
#: STREAMQ and STRMQOS stream a copy of each message put (verbs/streaming.py), and
#: MQINQ answers them.
#: MQINQ answers what the queue manager does (MQIA_HARDEN_GET_BACKOUT: hardened).
STORED_QUEUE_ATTRIBUTES: dict[str, AttributeSpec] = {
    "ACCTQ": _enum("QMGR ON OFF", _STORING),
    "STATQ": _enum("QMGR ON OFF", _STORING),
    "CLUSTER": _str(_NAME_LENGTH, _CLUSTERABLE),
    "CLUSNL": _str(_NAME_LENGTH, _CLUSTERABLE),
    "CLWLPRTY": _int(0, 9, 0, _CLUSTERABLE),
    "CLWLRANK": _int(0, 9, 0, _CLUSTERABLE),
    "CLWLUSEQ": _enum("QMGR ANY LOCAL", _LOCAL),
    "CLCHNAME": _str(_NAME_LENGTH, _STORING),
    "SCOPE": _enum("QMGR CELL", _CLUSTERABLE),
    "DEFBIND": _enum("OPEN NOTFIXED GROUP", _PUTTABLE),
    "CUSTOM": _str(128, _PUTTABLE),
    "CAPEXPRY": _int(1, _MAX_COUNT, -1, _PUTTABLE, keywords={"NOLIMIT": -1}),
    "DISTL": _enum("NO YES", _STORING),
    "HARDENBO": AttributeSpec("flag", "NOHARDENBO", _STORING,
                              choices=("NOHARDENBO", "HARDENBO")),
    "IMGRCOVQ": _enum("QMGR YES NO", _STORING),
    # in MB; DEFAULT is MQQFS_DEFAULT
    "MAXFSIZE": _int(20, 267_386_880, -1, _STORING, keywords={"DEFAULT": -1}),
    "NPMCLASS": _enum("NORMAL HIGH", _STORING),
    "QSVCIEV": _enum("NONE HIGH OK", _STORING),
    "QSVCINT": _int(0, _MAX_COUNT, _MAX_COUNT, _STORING),
    "RETINTVL": _int(0, _MAX_COUNT, _MAX_COUNT, _STORING),
    "STREAMQ": _str(_NAME_LENGTH, _STORING),
    "STRMQOS": _enum("BESTEF MUSTDUP", _STORING),
    # an alias of a topic is not resolved here: only QUEUE, what dmpmqcfg writes for the others
    "TARGTYPE": _enum("QUEUE", _ALIAS),
}

#: Queue attributes the embedded queue manager supports: name -> spec.
QUEUE_ATTRIBUTES: dict[str, AttributeSpec] = {
    "DESCR": _str(64, _PUTTABLE),
    "MAXMSGL": _int(0, _MAX_MSG_LENGTH, 4_194_304, _STORING),
    "MAXDEPTH": _int(0, _MAX_COUNT, 5000, _STORING),
    "DEFPSIST": _enum("NO YES", _PUTTABLE),
    "DEFPRTY": _int(0, 9, 0, _PUTTABLE),
    "MSGDLVSQ": _enum("PRIORITY FIFO", _STORING),
    "BOTHRESH": _int(0, _MAX_COUNT, 0, _STORING),
    "BOQNAME": _str(_NAME_LENGTH, _STORING),
    "DEFREADA": _enum("NO YES DISABLED", _ANY_QUEUE),
    "DEFPRESP": _enum("SYNC ASYNC", _PUTTABLE),
    "PROPCTL": _enum("COMPAT NONE ALL FORCE V6COMPAT", _ANY_QUEUE),
    "TARGET": _str(_NAME_LENGTH, _ALIAS),
    "GET": _enum("ENABLED DISABLED", _ANY_QUEUE),
    "PUT": _enum("ENABLED DISABLED", _PUTTABLE),
    # distributed queuing (resolution/): a remote queue definition names the queue (RNAME) at
    # a queue manager (RQMNAME) and, optionally, the transmission queue that leads there; a
    # blank RNAME makes it a queue-manager alias, or a reply-to queue alias. A local queue
    # with USAGE(XMITQ) holds messages for other queue managers, each behind an MQXQH.
    "RNAME": _str(_NAME_LENGTH, _REMOTE),
    "RQMNAME": _str(_NAME_LENGTH, _REMOTE),
    "XMITQ": _str(_NAME_LENGTH, _REMOTE),
    "USAGE": _enum("NORMAL XMITQ", _STORING),
    "SHARE": AttributeSpec("flag", "SHARE", _STORING, choices=("SHARE", "NOSHARE")),
    "DEFSOPT": _enum("SHARED EXCL", _STORING),
    # What a model's dynamic queues are (SHAREDYN is z/OS only). A local queue shows it too,
    # read-only: PREDEFINED, or the DEFTYPE of the model it was created from.
    "DEFTYPE": _enum("TEMPDYN PERMDYN", _MODEL),
    # Triggering (triggering/): a trigger message goes on INITQ under IBM's conditions, for a
    # trigger monitor to start the PROCESS (process_definitions.py); also inquirable/settable by MQI.
    "TRIGGER": AttributeSpec("flag", "NOTRIGGER", _STORING, choices=("NOTRIGGER", "TRIGGER")),
    "TRIGTYPE": _enum("FIRST EVERY DEPTH NONE", _STORING),
    "TRIGDPTH": _int(1, _MAX_COUNT, 1, _STORING),
    "TRIGMPRI": _int(0, 9, 0, _STORING),
    "TRIGDATA": _str(64, _STORING),
    "PROCESS": _str(_NAME_LENGTH, _STORING),
    "INITQ": _str(_NAME_LENGTH, _STORING),
    # Performance events (events/performance.py): the depth limits in percent of MAXDEPTH and
    # whether each queue depth event is on; the queue manager itself switches the three flags
    # after each event, as IBM MQ does (IBM's defaults: only Queue Full on).
    "QDEPTHHI": _int(0, 100, 80, _STORING),
    "QDEPTHLO": _int(0, 100, 20, _STORING),
    "QDPHIEV": _enum("DISABLED ENABLED", _STORING),
    "QDPLOEV": _enum("DISABLED ENABLED", _STORING),
    "QDPMAXEV": _enum("ENABLED DISABLED", _STORING),
    # Queue monitoring (events/statistics.py, queue_status.py): DISPLAY QSTATUS shows MSGAGE,
    # QTIME and the last put and get times when it is on; QMGR: as the queue manager's MONQ.
    # LOW, MEDIUM and HIGH all switch it on (they differ only in IBM MQ for z/OS's sampling).
    "MONQ": _enum("QMGR OFF LOW MEDIUM HIGH", _STORING),
    **STORED_QUEUE_ATTRIBUTES,
    "CURDEPTH": _int(0, _MAX_COUNT, 0, _LOCAL, readonly=True),
    "IPPROCS": _int(0, _MAX_COUNT, 0, _LOCAL, readonly=True),
    "OPPROCS": _int(0, _MAX_COUNT, 0, _LOCAL, readonly=True),
}

#: Where a type's defaults differ from the spec's: IBM's SYSTEM.DEFAULT.MODEL.QUEUE (which
#: DEFINE QMODEL copies) opens exclusively and is not shareable, unlike the default local queue.
_TYPE_DEFAULTS: dict[str, Attributes] = {"QMODEL": {"DEFSOPT": "EXCL", "SHARE": "NOSHARE"}}

_QMGR = frozenset({"QMGR"})
_STATS_INTERVAL = 604_800          # a week, in seconds: IBM's longest ACCTINT and STATINT
_ON_OFF = "OFF ON"
_EVENT = "DISABLED ENABLED"


def _qmgr_enum(values: str) -> AttributeSpec:
    return _enum(values, _QMGR)


#: The rest of what `dmpmqcfg` writes in its ALTER QMGR, with IBM MQ 9.4's types, ranges and
#: defaults (MQSC "ALTER QMGR"): accepted, validated, stored, shown by DISPLAY QMGR and kept
#: across restarts, so that an exported configuration loads; none of them changes what this
#: queue manager does, except the event switches it acts on (events/: AUTHOREV, INHIBTEV,
#: LOCALEV, REMOTEEV, STRSTPEV, CONFIGEV, CMDEV; PERFMEV and CHLEV are its own attributes).
#: It generates no SSL, logger or channel auto-definition events (SSLEV, LOGGEREV, CHADEV),
#: no accounting, statistics, activity-trace, route or activity reports, defines no
#: channels automatically (CHAD), no cluster transmission queue per channel (DEFCLXQ) nor
#: clustered publish/subscribe (PSCLUS); server/clusters/ follows REPOS and routes by CLWLUSEQ
#: and CLWLMRUC (workload.py), refuses REPOS with REPOSNL, and MQINQ answers them), no media
#: images (IMG*), no certificate revocation lists, FIPS or Suite B modes of its own (SSLCRLNL,
#: SSLCRYP, SSLFIPS, SUITEB, CERTVPOL, SSLRKEYC), and its publish/subscribe engine is always
#: on and keeps its own rules (PSMODE, PSNPMSG, PSNPRES, PSRTYCNT, PSSYNCPT, TREELIFE, PARENT).
#: MQINQ answers what the queue manager does (qmgr_attributes.py: SSLEV, LOGGEREV and
#: CHADEV DISABLED).
STORED_QMGR_ATTRIBUTES: dict[str, AttributeSpec] = {
    "ACCTCONO": _qmgr_enum("DISABLED ENABLED"),
    "ACCTINT": _int(1, _STATS_INTERVAL, 1800, _QMGR),
    "ACCTMQI": _qmgr_enum(_ON_OFF),
    "ACCTQ": _qmgr_enum("OFF ON NONE"),
    "ACTIVREC": _qmgr_enum("MSG QUEUE DISABLED"),
    "ACTVCONO": _qmgr_enum("DISABLED ENABLED"),
    "ACTVTRC": _qmgr_enum(_ON_OFF),
    "AUTHOREV": _qmgr_enum(_EVENT),
    "CERTVPOL": _qmgr_enum("ANY RFC5280"),
    "CHAD": _qmgr_enum("DISABLED ENABLED"),
    "CHADEV": _qmgr_enum(_EVENT),
    "CHADEXIT": _str(128, _QMGR),
    "CLWLDATA": _str(32, _QMGR),
    "CLWLEXIT": _str(128, _QMGR),
    "CLWLLEN": _int(0, _MAX_COUNT, 100, _QMGR),
    "CLWLMRUC": _int(1, _MAX_COUNT, _MAX_COUNT, _QMGR),
    "CLWLUSEQ": _qmgr_enum("LOCAL ANY"),
    "CMDEV": _qmgr_enum("DISABLED ENABLED NODISPLAY"),
    "CONFIGEV": _qmgr_enum(_EVENT),
    "CUSTOM": _str(128, _QMGR),
    "DEFCLXQ": _qmgr_enum("SCTQ CHANNEL"),
    "IMGINTVL": _int(1, _MAX_COUNT, 60, _QMGR, keywords={"OFF": 0}),     # minutes
    "IMGLOGLN": _int(1, _MAX_COUNT, 0, _QMGR, keywords={"OFF": 0}),      # MB
    "IMGRCOVO": _qmgr_enum("YES NO"),
    "IMGRCOVQ": _qmgr_enum("YES NO"),
    "IMGSCHED": _qmgr_enum("MANUAL AUTO"),
    "INHIBTEV": _qmgr_enum(_EVENT),
    "IPADDRV": _qmgr_enum("IPV4 IPV6"),
    "LOCALEV": _qmgr_enum(_EVENT),
    "LOGGEREV": _qmgr_enum(_EVENT),
    "MARKINT": _int(0, _MAX_COUNT, 5000, _QMGR, keywords={"NOLIMIT": -1}),  # ms
    "MONACLS": _qmgr_enum("QMGR OFF LOW MEDIUM HIGH"),
    "MONCHL": _qmgr_enum("OFF NONE LOW MEDIUM HIGH"),
    "PARENT": _str(_NAME_LENGTH, _QMGR),
    "PSCLUS": _qmgr_enum("ENABLED DISABLED"),
    "PSMODE": _qmgr_enum("ENABLED COMPAT DISABLED"),
    "PSNPMSG": _qmgr_enum("DISCARD KEEP"),
    "PSNPRES": _qmgr_enum("NORMAL SAFE DISCARD"),
    "PSRTYCNT": _int(0, _MAX_COUNT, 5, _QMGR),
    "PSSYNCPT": _qmgr_enum("IFPER YES"),
    "REMOTEEV": _qmgr_enum(_EVENT),
    "REPOS": _str(_NAME_LENGTH, _QMGR),
    "REPOSNL": _str(_NAME_LENGTH, _QMGR),
    "REVDNS": _qmgr_enum("ENABLED DISABLED"),
    "ROUTEREC": _qmgr_enum("MSG QUEUE DISABLED"),
    "SCHINIT": _qmgr_enum("QMGR MANUAL"),
    "SCMDSERV": _qmgr_enum("QMGR MANUAL"),
    "SSLCRLNL": _str(_NAME_LENGTH, _QMGR),
    "SSLCRYP": _str(256, _QMGR),
    "SSLEV": _qmgr_enum(_EVENT),
    "SSLFIPS": _qmgr_enum("NO YES"),
    "SSLRKEYC": _int(0, _MAX_COUNT, 0, _QMGR),
    "STATACLS": _qmgr_enum("QMGR OFF LOW MEDIUM HIGH"),
    "STATCHL": _qmgr_enum("OFF NONE LOW MEDIUM HIGH"),
    "STATINT": _int(1, _STATS_INTERVAL, 1800, _QMGR),
    "STATMQI": _qmgr_enum(_ON_OFF),
    "STATQ": _qmgr_enum("OFF ON NONE"),
    "STRSTPEV": _qmgr_enum("ENABLED DISABLED"),
    "SUITEB": _list("NONE 128_BIT 192_BIT", _QMGR),
    "TREELIFE": _int(0, _STATS_INTERVAL, 1800, _QMGR),
}

#: Queue-manager attributes ALTER QMGR takes (any other is refused, as runmqsc refuses it).
#: Kept apart from QUEUE_ATTRIBUTES because MAXMSGL has a different range here.
QMGR_ATTRIBUTES: dict[str, AttributeSpec] = {
    "DESCR": _str(64, frozenset({"QMGR"})),
    "DEADQ": _str(_NAME_LENGTH, frozenset({"QMGR"})),
    "MAXMSGL": _int(32_768, _MAX_MSG_LENGTH, 4_194_304, frozenset({"QMGR"})),
    "MAXPROPL": _int(-1, _MAX_MSG_LENGTH, -1, frozenset({"QMGR"}), keywords={"NOLIMIT": -1}),
    "MAXUMSGS": _int(1, _MAX_COUNT, 10_000, frozenset({"QMGR"})),
    "MAXHANDS": _int(0, _MAX_COUNT, 256, frozenset({"QMGR"})),
    "TRIGINT": _int(0, _MAX_COUNT, _MAX_COUNT, frozenset({"QMGR"})),
    # the transmission queue for queue managers nothing else names (resolution/names.py)
    "DEFXMITQ": _str(_NAME_LENGTH, frozenset({"QMGR"})),
    # TLS (server/network/tls.py): the key repository stem, blank for <data-dir>/ssl/key, and the label
    # of the queue manager's certificate, blank for <stem>.crt
    "SSLKEYR": _str(256, frozenset({"QMGR"})),
    "CERTLABL": _str(64, frozenset({"QMGR"})),
    # security (security/): the AUTHINFO that authenticates connections, and CHLAUTH rules on/off
    "CONNAUTH": _str(_NAME_LENGTH, frozenset({"QMGR"})),
    "CHLAUTH": _enum("ENABLED DISABLED", frozenset({"QMGR"})),
    # event messages (events/): queue depth events, and channel events (EXCEPTION: only the
    # ones that report a failure); IBM's default is DISABLED for both
    "PERFMEV": _enum("DISABLED ENABLED", frozenset({"QMGR"})),
    "CHLEV": _enum("DISABLED ENABLED EXCEPTION", frozenset({"QMGR"})),
    # queue monitoring for the queues with MONQ(QMGR); NONE: off for every queue, whatever
    # its own MONQ (IBM's default is OFF)
    "MONQ": _enum("OFF NONE LOW MEDIUM HIGH", frozenset({"QMGR"})),
    # the CCSID is fixed (state.QMGR_CCSID): ALTER QMGR accepts it only unchanged
    "CCSID": _int(1, 65_535, 1208, _QMGR),
    **STORED_QMGR_ATTRIBUTES,
}


#: MQSC's short names of object types (DEF QL(...) is DEFINE QLOCAL(...))
TYPE_SYNONYMS = {
    "QL": "QLOCAL", "QA": "QALIAS", "QR": "QREMOTE", "QM": "QMODEL", "Q": "QUEUE",
    "QC": "QCLUSTER", "QS": "QSTATUS", "CHL": "CHANNEL", "CHS": "CHSTATUS",
    "LSTR": "LISTENER", "SVC": "SERVICE", "NL": "NAMELIST", "PRO": "PROCESS",
}


def attribute_specs(object_type: str) -> dict[str, AttributeSpec]:
    """The attribute specs that apply to QLOCAL, QALIAS, QMODEL or QMGR."""
    object_type = TYPE_SYNONYMS.get(object_type.upper(), object_type.upper())
    if object_type == "QMGR":
        return dict(QMGR_ATTRIBUTES)
    return {k: s for k, s in QUEUE_ATTRIBUTES.items() if object_type in s.object_types}


def default_attributes(object_type: str) -> Attributes:
    """Attribute values of a freshly defined object (read-only status excluded)."""
    values = {k: s.default for k, s in attribute_specs(object_type).items() if not s.readonly}
    values.update(_TYPE_DEFAULTS.get(TYPE_SYNONYMS.get(object_type, object_type), {}))
    return values



#: The objects IBM's MQ developer container creates (its dev MQSC), as far as queues and
#: the application channel go. The channels themselves, the container's admin channel
#: included, exist from the start (channels.DEFAULT_CHANNELS); the line here replaces the
#: application channel with the same definition, as the container's script does.
DEVELOPER_MQSC: str = """\
* Default objects of the IBM MQ developer container

* Developer queues
DEFINE QLOCAL('DEV.QUEUE.1') REPLACE
DEFINE QLOCAL('DEV.QUEUE.2') REPLACE
DEFINE QLOCAL('DEV.QUEUE.3') REPLACE
DEFINE QLOCAL('DEV.DEAD.LETTER.QUEUE') REPLACE
DEFINE QMODEL('DEV.APP.MODEL.QUEUE') REPLACE

* Use a different dead letter queue, for undeliverable messages
ALTER QMGR DEADQ('DEV.DEAD.LETTER.QUEUE')

* Developer application channel
DEFINE CHANNEL('DEV.APP.SVRCONN') CHLTYPE(SVRCONN) MCAUSER('app') REPLACE
"""

#: What a new embedded queue manager runs once, before any start-up script of its own.
DEFAULT_MQSC: str = (SYSTEM_SECURITY_MQSC + "\n" + DEVELOPER_MQSC + "\n"
                     + DEVELOPER_SECURITY_MQSC)
