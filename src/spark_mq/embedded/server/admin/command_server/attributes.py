"""Queue attributes as PCF names them (MQIA_*/MQCA_* selectors) and as the queue manager
keeps them (MQSC keywords, mqsc_attributes.py), both ways (runs in the queue-manager process).

Reading: `queue_values` gives a queue's attributes as PCF values, computed ones (depth, open
counts, type, dates) included. Writing: `mqsc_changes` turns the attribute parameters of
Create/Change/Copy Queue into MQSC attributes, validated by the same AttributeSpec that
checks an MQSC DEFINE, so that PCF and MQSC accept exactly the same values. An attribute
the embedded queue manager does not keep for a queue type is not returned by inquiries
(as MQ leaves out attributes that do not apply) and is refused by changes.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from spark_mq.embedded.server.admin.command_server.pcf import PARM_ID_ERRORS, Parameter, PCFError, text
from spark_mq.embedded.server.core.mqsc_attributes import attribute_specs
from spark_mq.embedded.server.core.queue_objects import (
    PERMANENT_DYNAMIC,
    PREDEFINED,
    TEMPORARY_DYNAMIC,
    LocalQueue,
    QueueDefinition,
)
from spark_mq.mqi.constants import CMQC, CMQCFC

#: what a PCF attribute value is: an int (MQIA_*) or blank-padded bytes (MQCA_*)
Value = int | bytes

#: MQIA_Q_TYPE values and the MQSC queue types they stand for
QUEUE_TYPES: dict[int, str] = {CMQC.MQQT_LOCAL: "QLOCAL", CMQC.MQQT_ALIAS: "QALIAS",
                               CMQC.MQQT_MODEL: "QMODEL", CMQC.MQQT_REMOTE: "QREMOTE"}
TYPE_OF_KIND = {kind: qtype for qtype, kind in QUEUE_TYPES.items()}


@dataclass(frozen=True)
class Stored:
    """An attribute kept as an MQSC keyword; `keywords` maps MQSC words to MQI integers."""
    mqsc: str
    keywords: dict[str, int] | None = None
    length: int = 0  # MQCA_*: the length MQ blank-pads the value to


def _words(**values: int) -> dict[str, int]:
    return dict(values)


_EVENT_SWITCH = _words(ENABLED=CMQCFC.MQEVR_ENABLED, DISABLED=CMQCFC.MQEVR_DISABLED)
_MONITORING = _words(QMGR=CMQC.MQMON_Q_MGR, ON=CMQC.MQMON_ON, OFF=CMQC.MQMON_OFF)
# IBM's MQSCO_Q_MGR, MQSCO_CELL and MQQSIE_*, which the constants module lacks
_MQSCO_Q_MGR, _MQSCO_CELL = 1, 2
_MQQSIE_NONE, _MQQSIE_HIGH, _MQQSIE_OK = 0, 1, 2

#: PCF selector -> how the queue manager stores it.
STORED: dict[int, Stored] = {
    CMQC.MQCA_Q_DESC: Stored("DESCR", length=CMQC.MQ_Q_DESC_LENGTH),
    CMQC.MQIA_MAX_MSG_LENGTH: Stored("MAXMSGL"),
    CMQC.MQIA_MAX_Q_DEPTH: Stored("MAXDEPTH"),
    CMQC.MQIA_DEF_PRIORITY: Stored("DEFPRTY"),
    CMQC.MQIA_BACKOUT_THRESHOLD: Stored("BOTHRESH"),
    CMQC.MQCA_BACKOUT_REQ_Q_NAME: Stored("BOQNAME", length=CMQC.MQ_Q_NAME_LENGTH),
    CMQC.MQCA_BASE_Q_NAME: Stored("TARGET", length=CMQC.MQ_Q_NAME_LENGTH),
    CMQC.MQIA_DEF_PERSISTENCE: Stored("DEFPSIST", _words(
        NO=CMQC.MQPER_NOT_PERSISTENT, YES=CMQC.MQPER_PERSISTENT)),
    CMQC.MQIA_MSG_DELIVERY_SEQUENCE: Stored("MSGDLVSQ", _words(
        PRIORITY=CMQC.MQMDS_PRIORITY, FIFO=CMQC.MQMDS_FIFO)),
    CMQC.MQIA_INHIBIT_GET: Stored("GET", _words(
        ENABLED=CMQC.MQQA_GET_ALLOWED, DISABLED=CMQC.MQQA_GET_INHIBITED)),
    CMQC.MQIA_INHIBIT_PUT: Stored("PUT", _words(
        ENABLED=CMQC.MQQA_PUT_ALLOWED, DISABLED=CMQC.MQQA_PUT_INHIBITED)),
    CMQC.MQIA_PROPERTY_CONTROL: Stored("PROPCTL", _words(
        COMPAT=CMQC.MQPROP_COMPATIBILITY, NONE=CMQC.MQPROP_NONE, ALL=CMQC.MQPROP_ALL,
        FORCE=CMQC.MQPROP_FORCE_MQRFH2, V6COMPAT=CMQC.MQPROP_V6COMPAT)),
    CMQC.MQIA_DEF_READ_AHEAD: Stored("DEFREADA", _words(
        NO=CMQC.MQREADA_NO, YES=CMQC.MQREADA_YES, DISABLED=CMQC.MQREADA_DISABLED)),
    CMQC.MQIA_DEF_PUT_RESPONSE_TYPE: Stored("DEFPRESP", _words(
        SYNC=CMQC.MQPRT_SYNC_RESPONSE, ASYNC=CMQC.MQPRT_ASYNC_RESPONSE)),
    CMQC.MQIA_DEF_INPUT_OPEN_OPTION: Stored("DEFSOPT", _words(
        SHARED=CMQC.MQOO_INPUT_SHARED, EXCL=CMQC.MQOO_INPUT_EXCLUSIVE)),
    CMQC.MQIA_SHAREABILITY: Stored("SHARE", _words(
        SHARE=CMQC.MQQA_SHAREABLE, NOSHARE=CMQC.MQQA_NOT_SHAREABLE)),
    CMQC.MQIA_DEFINITION_TYPE: Stored("DEFTYPE", _words(
        PREDEFINED=CMQC.MQQDT_PREDEFINED, PERMDYN=CMQC.MQQDT_PERMANENT_DYNAMIC,
        TEMPDYN=CMQC.MQQDT_TEMPORARY_DYNAMIC)),
    CMQC.MQIA_TRIGGER_CONTROL: Stored("TRIGGER", _words(
        TRIGGER=CMQC.MQTC_ON, NOTRIGGER=CMQC.MQTC_OFF)),
    CMQC.MQIA_TRIGGER_TYPE: Stored("TRIGTYPE", _words(
        NONE=CMQC.MQTT_NONE, FIRST=CMQC.MQTT_FIRST, EVERY=CMQC.MQTT_EVERY,
        DEPTH=CMQC.MQTT_DEPTH)),
    CMQC.MQIA_TRIGGER_DEPTH: Stored("TRIGDPTH"),
    CMQC.MQIA_TRIGGER_MSG_PRIORITY: Stored("TRIGMPRI"),
    CMQC.MQCA_TRIGGER_DATA: Stored("TRIGDATA", length=CMQC.MQ_TRIGGER_DATA_LENGTH),
    CMQC.MQCA_INITIATION_Q_NAME: Stored("INITQ", length=CMQC.MQ_Q_NAME_LENGTH),
    CMQC.MQCA_PROCESS_NAME: Stored("PROCESS", length=CMQC.MQ_PROCESS_NAME_LENGTH),
    CMQC.MQCA_REMOTE_Q_NAME: Stored("RNAME", length=CMQC.MQ_Q_NAME_LENGTH),
    CMQC.MQCA_REMOTE_Q_MGR_NAME: Stored("RQMNAME", length=CMQC.MQ_Q_MGR_NAME_LENGTH),
    CMQC.MQCA_XMIT_Q_NAME: Stored("XMITQ", length=CMQC.MQ_Q_NAME_LENGTH),
    CMQC.MQIA_USAGE: Stored("USAGE", _words(
        NORMAL=CMQC.MQUS_NORMAL, XMITQ=CMQC.MQUS_TRANSMISSION)),
    CMQC.MQIA_Q_DEPTH_HIGH_LIMIT: Stored("QDEPTHHI"),
    CMQC.MQIA_Q_DEPTH_LOW_LIMIT: Stored("QDEPTHLO"),
    CMQC.MQIA_Q_DEPTH_HIGH_EVENT: Stored("QDPHIEV", _EVENT_SWITCH),
    CMQC.MQIA_Q_DEPTH_LOW_EVENT: Stored("QDPLOEV", _EVENT_SWITCH),
    CMQC.MQIA_Q_DEPTH_MAX_EVENT: Stored("QDPMAXEV", _EVENT_SWITCH),
    CMQC.MQIA_MONITORING_Q: Stored("MONQ", _words(
        QMGR=CMQC.MQMON_Q_MGR, OFF=CMQC.MQMON_OFF, LOW=CMQC.MQMON_LOW,
        MEDIUM=CMQC.MQMON_MEDIUM, HIGH=CMQC.MQMON_HIGH)),
    **{selector: Stored(mqsc, words, length) for selector, (mqsc, words, length) in {
        # kept and shown only (mqsc_attributes.STORED_QUEUE_ATTRIBUTES says why)
        CMQC.MQIA_ACCOUNTING_Q: ("ACCTQ", _MONITORING, 0),
        CMQC.MQIA_STATISTICS_Q: ("STATQ", _MONITORING, 0),
        CMQC.MQCA_CLUSTER_NAME: ("CLUSTER", None, CMQC.MQ_CLUSTER_NAME_LENGTH),
        CMQC.MQCA_CLUSTER_NAMELIST: ("CLUSNL", None, CMQC.MQ_NAMELIST_NAME_LENGTH),
        CMQC.MQIA_CLWL_Q_PRIORITY: ("CLWLPRTY", None, 0),
        CMQC.MQIA_CLWL_Q_RANK: ("CLWLRANK", None, 0),
        CMQC.MQIA_CLWL_USEQ: ("CLWLUSEQ", _words(
            QMGR=CMQC.MQCLWL_USEQ_AS_Q_MGR, ANY=CMQC.MQCLWL_USEQ_ANY,
            LOCAL=CMQC.MQCLWL_USEQ_LOCAL), 0),
        CMQC.MQCA_CLUS_CHL_NAME: ("CLCHNAME", None, CMQC.MQ_OBJECT_NAME_LENGTH),
        CMQC.MQIA_SCOPE: ("SCOPE", _words(QMGR=_MQSCO_Q_MGR, CELL=_MQSCO_CELL), 0),
        CMQC.MQIA_DEF_BIND: ("DEFBIND", _words(
            OPEN=CMQC.MQBND_BIND_ON_OPEN, NOTFIXED=CMQC.MQBND_BIND_NOT_FIXED,
            GROUP=CMQC.MQBND_BIND_ON_GROUP), 0),
        CMQC.MQCA_CUSTOM: ("CUSTOM", None, CMQC.MQ_CUSTOM_LENGTH),
        CMQC.MQIA_CAP_EXPIRY: ("CAPEXPRY", None, 0),
        CMQC.MQIA_DIST_LISTS: ("DISTL", _words(
            NO=CMQC.MQDL_NOT_SUPPORTED, YES=CMQC.MQDL_SUPPORTED), 0),
        CMQC.MQIA_HARDEN_GET_BACKOUT: ("HARDENBO", _words(
            HARDENBO=CMQC.MQQA_BACKOUT_HARDENED, NOHARDENBO=CMQC.MQQA_BACKOUT_NOT_HARDENED), 0),
        CMQC.MQIA_MEDIA_IMAGE_RECOVER_Q: ("IMGRCOVQ", _words(
            QMGR=CMQC.MQIMGRCOV_AS_Q_MGR, YES=CMQC.MQIMGRCOV_YES, NO=CMQC.MQIMGRCOV_NO), 0),
        CMQC.MQIA_MAX_Q_FILE_SIZE: ("MAXFSIZE", None, 0),
        CMQC.MQIA_NPM_CLASS: ("NPMCLASS", _words(
            NORMAL=CMQC.MQNPM_CLASS_NORMAL, HIGH=CMQC.MQNPM_CLASS_HIGH), 0),
        CMQC.MQIA_Q_SERVICE_INTERVAL_EVENT: ("QSVCIEV", _words(
            NONE=_MQQSIE_NONE, HIGH=_MQQSIE_HIGH, OK=_MQQSIE_OK), 0),
        CMQC.MQIA_Q_SERVICE_INTERVAL: ("QSVCINT", None, 0),
        CMQC.MQIA_RETENTION_INTERVAL: ("RETINTVL", None, 0),
        CMQC.MQCA_STREAM_QUEUE_NAME: ("STREAMQ", None, CMQC.MQ_Q_NAME_LENGTH),
        CMQC.MQIA_STREAM_QUEUE_QOS: ("STRMQOS", _words(
            BESTEF=CMQC.MQST_BEST_EFFORT, MUSTDUP=CMQC.MQST_MUST_DUP), 0),
    }.items()},
}
_DEFINITION_TYPES = {PREDEFINED: CMQC.MQQDT_PREDEFINED,
                     PERMANENT_DYNAMIC: CMQC.MQQDT_PERMANENT_DYNAMIC,
                     TEMPORARY_DYNAMIC: CMQC.MQQDT_TEMPORARY_DYNAMIC}
#: computed attributes, by the queue types they apply to
_COMPUTED: dict[int, frozenset[str]] = {
    CMQC.MQIA_CURRENT_Q_DEPTH: frozenset({"QLOCAL"}),
    CMQC.MQIA_OPEN_INPUT_COUNT: frozenset({"QLOCAL"}),
    CMQC.MQIA_OPEN_OUTPUT_COUNT: frozenset({"QLOCAL"}),
    CMQC.MQIA_BASE_TYPE: frozenset({"QALIAS"}),
    CMQC.MQCA_CREATION_DATE: frozenset({"QLOCAL", "QALIAS", "QMODEL", "QREMOTE"}),
    CMQC.MQCA_CREATION_TIME: frozenset({"QLOCAL", "QALIAS", "QMODEL", "QREMOTE"}),
}
#: parameters of Create/Change/Copy Queue that are not attributes but say how to change them
CONTROL_PARAMETERS = frozenset({CMQC.MQCA_Q_NAME, CMQC.MQIA_Q_TYPE, CMQCFC.MQIACF_REPLACE,
                                CMQCFC.MQIACF_FORCE, CMQCFC.MQCACF_FROM_Q_NAME,
                                CMQCFC.MQCACF_TO_Q_NAME})


def is_int_selector(selector: int) -> bool:
    return bool(CMQC.MQIA_FIRST <= selector <= CMQC.MQIA_LAST)


def padded(value: str, length: int) -> bytes:
    return value.encode()[:length].ljust(length, b" ")


def queue_values(queue: QueueDefinition, selectors: list[int] | None) -> dict[int, Value]:
    """The attributes of one queue as PCF values: MQCA_Q_NAME and MQIA_Q_TYPE always, then the
    `selectors` asked for (None or MQIACF_ALL: every attribute that applies to its type)."""
    values: dict[int, Value] = {
        CMQC.MQCA_Q_NAME: padded(queue.name, CMQC.MQ_Q_NAME_LENGTH),
        CMQC.MQIA_Q_TYPE: TYPE_OF_KIND[queue.kind],
    }
    wanted = list(STORED) + list(_COMPUTED) if selectors is None or CMQCFC.MQIACF_ALL in selectors \
        else selectors
    for selector in wanted:
        value = _queue_value(queue, selector)
        if value is not None:
            values[selector] = value
    return values


def _queue_value(queue: QueueDefinition, selector: int) -> Value | None:
    if selector in (CMQC.MQCA_Q_NAME, CMQC.MQIA_Q_TYPE):
        return None  # always there already
    if selector in _COMPUTED:
        return _computed(queue, selector) if queue.kind in _COMPUTED[selector] else None
    stored = STORED.get(selector)
    if stored is None:
        return None
    if stored.mqsc == "DEFTYPE" and isinstance(queue, LocalQueue):
        return _DEFINITION_TYPES[queue.definition_type]  # what a local queue was created as
    if stored.mqsc not in queue.attrs or stored.mqsc not in attribute_specs(queue.kind):
        return None
    raw = queue.attrs[stored.mqsc]
    if stored.keywords is not None:
        return stored.keywords.get(str(raw))  # a value this table has no word for: left out
    if is_int_selector(selector):
        return int(raw)
    return padded(str(raw), stored.length)


def _computed(queue: QueueDefinition, selector: int) -> Value:
    if selector == CMQC.MQCA_CREATION_DATE:
        return padded(time.strftime("%Y-%m-%d", queue.created), CMQC.MQ_CREATION_DATE_LENGTH)
    if selector == CMQC.MQCA_CREATION_TIME:
        return padded(time.strftime("%H.%M.%S", queue.created), CMQC.MQ_CREATION_TIME_LENGTH)
    if selector == CMQC.MQIA_BASE_TYPE:
        return CMQC.MQOT_Q                  # an alias resolves to a queue (no topics)
    assert isinstance(queue, LocalQueue)    # _COMPUTED says the rest are local-only
    if selector == CMQC.MQIA_CURRENT_Q_DEPTH:
        return queue.depth
    if selector == CMQC.MQIA_OPEN_INPUT_COUNT:
        return queue.input_shared + queue.input_exclusive
    return queue.output_count               # MQIA_OPEN_OUTPUT_COUNT


def mqsc_changes(kind: str, parameters: list[Parameter]) -> dict[str, object]:
    """The MQSC attributes that the attribute parameters of a queue command set, each
    validated as MQSC validates it. Unknown or read-only attributes, and attributes the
    queue type does not have, are MQ's parameter-identifier errors; a bad value is
    MQRCCF_PARM_VALUE_ERROR naming the parameter."""
    specs = attribute_specs(kind)
    changes: dict[str, object] = {}
    for parameter in parameters:
        if parameter.id in CONTROL_PARAMETERS:
            continue
        stored = STORED.get(parameter.id)
        spec = specs.get(stored.mqsc) if stored is not None else None
        if stored is None or spec is None or spec.readonly or parameter.is_filter:
            raise PCFError(PARM_ID_ERRORS.get(parameter.type, CMQCFC.MQRCCF_PARM_SYNTAX_ERROR),
                           parameter.id)
        if isinstance(parameter.value, int):
            word = str(parameter.value) if stored.keywords is None else next(
                (w for w, n in stored.keywords.items() if n == parameter.value), None)
        elif isinstance(parameter.value, bytes):
            word = text(parameter.value)
        else:
            word = None
        if word is None:
            raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, parameter.id)
        try:
            changes[stored.mqsc] = spec.coerce(word, quoted=True)  # PCF strings keep their case
        except ValueError:
            raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, parameter.id) from None
    return changes

