"""MQINQ and MQSET: the mapping between MQI selectors and the MQSC attributes we keep.

Runs in the queue-manager process, under the queue manager's lock (see qmgr.py). Queue
attributes live as MQSC keywords and values (mqsc_attributes.py); this module translates
selectors (MQIA_*, MQCA_*) and MQI integer values to and from them. An MQSET of a queue
that is not temporary dynamic is a configuration event (events/configuration.py).
"""
from __future__ import annotations

import time
from typing import cast

from spark_mq.embedded.server.core.mqsc_attributes import QUEUE_ATTRIBUTES, AttributeValue
from spark_mq.embedded.server.core.named_objects import NamedKind
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.qmgr_attributes import CHAR_LENGTHS, qmgr_value
from spark_mq.embedded.server.core.queue_objects import (
    PERMANENT_DYNAMIC,
    PREDEFINED,
    TEMPORARY_DYNAMIC,
    AliasQueue,
    LocalQueue,
    QueueDefinition,
    RemoteQueue,
)
from spark_mq.embedded.server.core.state import Connection, QueueManagerState, blank
from spark_mq.embedded.server.events import configuration
from spark_mq.embedded.server.triggering import hook as triggering
from spark_mq.embedded.server.verbs.definitions import save_definition
from spark_mq.embedded.server.verbs.handles import handle_of
from spark_mq.mqi.constants import CMQC, CMQCFC
from spark_mq.mqi.structs import blank_padded

#: the queue depth event switches (QDPHIEV, QDPLOEV, QDPMAXEV) as MQINQ answers them
_EVENT_SWITCH = {"ENABLED": CMQCFC.MQEVR_ENABLED, "DISABLED": CMQCFC.MQEVR_DISABLED}
# selector -> (MQSC attribute, {MQSC keyword: MQI integer} or None for plain integers)
_QUEUE_INTS: dict[int, tuple[str, dict[str, int] | None]] = {
    CMQC.MQIA_MAX_MSG_LENGTH: ("MAXMSGL", None),
    CMQC.MQIA_MAX_Q_DEPTH: ("MAXDEPTH", None),
    CMQC.MQIA_DEF_PRIORITY: ("DEFPRTY", None),
    CMQC.MQIA_BACKOUT_THRESHOLD: ("BOTHRESH", None),
    CMQC.MQIA_DEF_PERSISTENCE: ("DEFPSIST", {"NO": CMQC.MQPER_NOT_PERSISTENT,
                                             "YES": CMQC.MQPER_PERSISTENT}),
    CMQC.MQIA_MSG_DELIVERY_SEQUENCE: ("MSGDLVSQ", {"PRIORITY": CMQC.MQMDS_PRIORITY,
                                                   "FIFO": CMQC.MQMDS_FIFO}),
    CMQC.MQIA_INHIBIT_GET: ("GET", {"ENABLED": CMQC.MQQA_GET_ALLOWED,
                                    "DISABLED": CMQC.MQQA_GET_INHIBITED}),
    CMQC.MQIA_INHIBIT_PUT: ("PUT", {"ENABLED": CMQC.MQQA_PUT_ALLOWED,
                                    "DISABLED": CMQC.MQQA_PUT_INHIBITED}),
    CMQC.MQIA_PROPERTY_CONTROL: ("PROPCTL", {"COMPAT": CMQC.MQPROP_COMPATIBILITY,
                                             "NONE": CMQC.MQPROP_NONE, "ALL": CMQC.MQPROP_ALL,
                                             "FORCE": CMQC.MQPROP_FORCE_MQRFH2,
                                             "V6COMPAT": CMQC.MQPROP_V6COMPAT}),
    CMQC.MQIA_DEF_READ_AHEAD: ("DEFREADA", {"NO": CMQC.MQREADA_NO, "YES": CMQC.MQREADA_YES,
                                            "DISABLED": CMQC.MQREADA_DISABLED}),
    CMQC.MQIA_DEF_PUT_RESPONSE_TYPE: ("DEFPRESP", {"SYNC": CMQC.MQPRT_SYNC_RESPONSE,
                                                   "ASYNC": CMQC.MQPRT_ASYNC_RESPONSE}),
    CMQC.MQIA_DEF_INPUT_OPEN_OPTION: ("DEFSOPT", {"SHARED": CMQC.MQOO_INPUT_SHARED,
                                                  "EXCL": CMQC.MQOO_INPUT_EXCLUSIVE}),
    CMQC.MQIA_TRIGGER_CONTROL: ("TRIGGER", {"NOTRIGGER": CMQC.MQTC_OFF, "TRIGGER": CMQC.MQTC_ON}),
    CMQC.MQIA_TRIGGER_TYPE: ("TRIGTYPE", {"NONE": CMQC.MQTT_NONE, "FIRST": CMQC.MQTT_FIRST,
                                          "EVERY": CMQC.MQTT_EVERY, "DEPTH": CMQC.MQTT_DEPTH}),
    CMQC.MQIA_TRIGGER_DEPTH: ("TRIGDPTH", None),
    CMQC.MQIA_TRIGGER_MSG_PRIORITY: ("TRIGMPRI", None),
    CMQC.MQIA_USAGE: ("USAGE", {"NORMAL": CMQC.MQUS_NORMAL, "XMITQ": CMQC.MQUS_TRANSMISSION}),
    CMQC.MQIA_Q_DEPTH_HIGH_LIMIT: ("QDEPTHHI", None),
    CMQC.MQIA_Q_DEPTH_LOW_LIMIT: ("QDEPTHLO", None),
    CMQC.MQIA_Q_DEPTH_HIGH_EVENT: ("QDPHIEV", _EVENT_SWITCH),
    CMQC.MQIA_Q_DEPTH_LOW_EVENT: ("QDPLOEV", _EVENT_SWITCH),
    CMQC.MQIA_Q_DEPTH_MAX_EVENT: ("QDPMAXEV", _EVENT_SWITCH),
    CMQC.MQIA_STREAM_QUEUE_QOS: ("STRMQOS", {"BESTEF": CMQC.MQST_BEST_EFFORT,
                                             "MUSTDUP": CMQC.MQST_MUST_DUP}),
    # IBM's MQQSIE_NONE, _HIGH and _OK
    CMQC.MQIA_Q_SERVICE_INTERVAL_EVENT: ("QSVCIEV", {"NONE": 0, "HIGH": 1, "OK": 2}),
    CMQC.MQIA_Q_SERVICE_INTERVAL: ("QSVCINT", None),
}
_DEFINITION_TYPES = {PREDEFINED: CMQC.MQQDT_PREDEFINED,
                     PERMANENT_DYNAMIC: CMQC.MQQDT_PERMANENT_DYNAMIC,
                     TEMPORARY_DYNAMIC: CMQC.MQQDT_TEMPORARY_DYNAMIC}
_QUEUE_CHARS = {
    CMQC.MQCA_Q_NAME: CMQC.MQ_Q_NAME_LENGTH,
    CMQC.MQCA_Q_DESC: CMQC.MQ_Q_DESC_LENGTH,
    CMQC.MQCA_BACKOUT_REQ_Q_NAME: CMQC.MQ_Q_NAME_LENGTH,
    CMQC.MQCA_BASE_Q_NAME: CMQC.MQ_Q_NAME_LENGTH,
    CMQC.MQCA_CREATION_DATE: CMQC.MQ_CREATION_DATE_LENGTH,
    CMQC.MQCA_CREATION_TIME: CMQC.MQ_CREATION_TIME_LENGTH,
    CMQC.MQCA_TRIGGER_DATA: CMQC.MQ_TRIGGER_DATA_LENGTH,
    CMQC.MQCA_PROCESS_NAME: CMQC.MQ_PROCESS_NAME_LENGTH,
    CMQC.MQCA_INITIATION_Q_NAME: CMQC.MQ_Q_NAME_LENGTH,
    CMQC.MQCA_REMOTE_Q_NAME: CMQC.MQ_Q_NAME_LENGTH,
    CMQC.MQCA_REMOTE_Q_MGR_NAME: CMQC.MQ_Q_MGR_NAME_LENGTH,
    CMQC.MQCA_XMIT_Q_NAME: CMQC.MQ_Q_NAME_LENGTH,
    CMQC.MQCA_STREAM_QUEUE_NAME: CMQC.MQ_Q_NAME_LENGTH,
}
# character selectors -> the MQSC attribute holding them, for the queue types that have it
_QUEUE_CHAR_ATTRIBUTES = {
    CMQC.MQCA_TRIGGER_DATA: "TRIGDATA",
    CMQC.MQCA_PROCESS_NAME: "PROCESS",
    CMQC.MQCA_INITIATION_Q_NAME: "INITQ",
    CMQC.MQCA_REMOTE_Q_NAME: "RNAME",
    CMQC.MQCA_REMOTE_Q_MGR_NAME: "RQMNAME",
    CMQC.MQCA_XMIT_Q_NAME: "XMITQ",
    CMQC.MQCA_STREAM_QUEUE_NAME: "STREAMQ",
}
#: what a remote queue definition answers (others: MQRC_SELECTOR_NOT_FOR_TYPE, as MQ)
_REMOTE_SELECTORS = frozenset({
    CMQC.MQIA_Q_TYPE, CMQC.MQIA_DEF_PRIORITY, CMQC.MQIA_DEF_PERSISTENCE, CMQC.MQIA_INHIBIT_PUT,
    CMQC.MQIA_DEF_PUT_RESPONSE_TYPE, CMQC.MQCA_Q_NAME, CMQC.MQCA_Q_DESC,
    CMQC.MQCA_CREATION_DATE, CMQC.MQCA_CREATION_TIME, CMQC.MQCA_REMOTE_Q_NAME,
    CMQC.MQCA_REMOTE_Q_MGR_NAME, CMQC.MQCA_XMIT_Q_NAME})
#: What MQSET may change, as on IBM MQ (MQIA_DIST_LISTS aside: no distribution lists here),
#: and the reason it fails with for a value the attribute cannot take.
_SETTABLE_INTS = {
    CMQC.MQIA_INHIBIT_GET: CMQC.MQRC_INHIBIT_VALUE_ERROR,
    CMQC.MQIA_INHIBIT_PUT: CMQC.MQRC_INHIBIT_VALUE_ERROR,
    CMQC.MQIA_TRIGGER_CONTROL: CMQC.MQRC_TRIGGER_CONTROL_ERROR,
    CMQC.MQIA_TRIGGER_TYPE: CMQC.MQRC_TRIGGER_TYPE_ERROR,
    CMQC.MQIA_TRIGGER_DEPTH: CMQC.MQRC_TRIGGER_DEPTH_ERROR,
    CMQC.MQIA_TRIGGER_MSG_PRIORITY: CMQC.MQRC_TRIGGER_MSG_PRIORITY_ERR,
}
_SETTABLE_CHARS = {CMQC.MQCA_TRIGGER_DATA}


def inquire(qm: QueueManagerState, conn: Connection, hobj: int,
            selectors: list[int]) -> tuple[list[int], bytes, bool]:
    """MQINQ: (integer values, character values, some selector did not apply)."""
    handle = handle_of(conn, hobj)
    if not handle.options & CMQC.MQOO_INQUIRE:
        raise MQError(CMQC.MQRC_NOT_OPEN_FOR_INQUIRE)
    if len(selectors) > 256:
        raise MQError(CMQC.MQRC_SELECTOR_COUNT_ERROR)
    if handle.named_kind is not None:
        return _definition_values(_named_table(qm, handle.named_kind, handle.name), selectors)
    queue = handle.queue
    if queue is not None and queue.deleted:
        raise MQError(CMQC.MQRC_Q_DELETED)
    target = None if queue is None else (queue, qm.queues.get(handle.name, queue))
    return inquire_values(qm, target, selectors)


def set_attributes(qm: QueueManagerState, conn: Connection, hobj: int, selectors: list[int],
                   ints: list[int], chars: bytes) -> None:
    """MQSET, made durable at once as MQ does."""
    handle = handle_of(conn, hobj)
    if not handle.options & CMQC.MQOO_SET:
        raise MQError(CMQC.MQRC_NOT_OPEN_FOR_SET)
    queue = handle.local_queue(CMQC.MQRC_NOT_OPEN_FOR_SET)  # a queue-manager handle has no SET
    definition = qm.queues.get(handle.name, queue)
    # IBM: an MQSET is a configuration event, but for a temporary dynamic queue
    watched = None if queue.definition_type == TEMPORARY_DYNAMIC \
        else configuration.watch_mqset(qm, definition.name)
    changed = set_values(definition, selectors, ints, chars)
    save_definition(qm, definition)
    if watched is not None:
        configuration.mqset_applied(qm, conn.user, watched)
    triggering.attributes_changed(qm, definition, changed)  # TRIGGER on again: a DEPTH re-arm


def _is_int_selector(selector: int) -> bool:
    return CMQC.MQIA_FIRST <= selector <= CMQC.MQIA_LAST


def inquire_values(qmgr: QueueManagerState,
                   target: tuple[LocalQueue, QueueDefinition] | None,
                   selectors: list[int]) -> tuple[list[int], bytes, bool]:
    """Integer values in selector order, and the character values concatenated.

    `target` is the open queue and the definition it was opened through (itself, or an
    alias); None inquires on the queue manager."""
    ints: list[int] = []
    chars = bytearray()
    warning = False
    for selector in selectors:
        if not (_is_int_selector(selector) or CMQC.MQCA_FIRST <= selector <= CMQC.MQCA_LAST):
            raise MQError(CMQC.MQRC_SELECTOR_ERROR)
        value = qmgr_value(qmgr, selector) if target is None else _queue_value(*target, selector)
        if value is None:
            warning = True
            value = 0 if _is_int_selector(selector) else b""
        # an MQIA_* selector has an int value, an MQCA_* selector bytes
        if _is_int_selector(selector):
            ints.append(cast(int, value))
        else:
            length = (CHAR_LENGTHS if target is None else _QUEUE_CHARS).get(selector, 0)
            chars += cast(bytes, value)[:length].ljust(length, b" ")
    return ints, bytes(chars), warning


def _named_table(qm: QueueManagerState, kind: NamedKind, name: str) -> dict[int, int | bytes]:
    """MQINQ's values of a namelist or process, by its kind's description: a list (a
    namelist's MQCA_NAMES) is its names of `length` characters each, as MQ returns it; an
    attribute not `inquired` (MQIA_NAMELIST_TYPE, z/OS's) is not there (a warning)."""
    attrs = kind.find(qm, name)
    if attrs is None:  # deleted since it was opened
        raise MQError(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    values: dict[int, int | bytes] = {kind.name_parameter: blank(name, kind.name_length)}
    for key, attribute in kind.attributes.items():
        if not attribute.inquired:
            continue
        if attribute.listed:
            names = [str(n) for n in attrs.get(key, [])]
            values[attribute.parameter] = b"".join(blank(n, attribute.length) for n in names)
            if attribute.count is not None:
                values[attribute.count[1]] = len(names)
        elif attribute.to_number is not None:
            values[attribute.parameter] = attribute.to_number(attrs[key])
        else:
            values[attribute.parameter] = blank(str(attrs.get(key, "")), attribute.length)
    values[CMQC.MQCA_ALTERATION_DATE] = blank(str(attrs.get("ALTDATE", "")), CMQC.MQ_DATE_LENGTH)
    values[CMQC.MQCA_ALTERATION_TIME] = blank(str(attrs.get("ALTTIME", "")), CMQC.MQ_TIME_LENGTH)
    return values


def _definition_values(values: dict[int, int | bytes],
                       selectors: list[int]) -> tuple[list[int], bytes, bool]:
    """MQINQ on a namelist or process: a selector the object has not is a warning."""
    ints: list[int] = []
    chars = bytearray()
    warning = False
    for selector in selectors:
        if not (_is_int_selector(selector) or CMQC.MQCA_FIRST <= selector <= CMQC.MQCA_LAST):
            raise MQError(CMQC.MQRC_SELECTOR_ERROR)
        value = values.get(selector)
        if value is None:
            warning = True
        if _is_int_selector(selector):
            ints.append(cast(int, value or 0))
        else:
            chars += cast(bytes, value or b"")
    return ints, bytes(chars), warning


def _queue_value(queue: LocalQueue, definition: QueueDefinition,
                 selector: int) -> int | bytes | None:
    attrs = definition.attrs
    if isinstance(definition, RemoteQueue):
        if selector not in _REMOTE_SELECTORS:
            return None
        if selector == CMQC.MQIA_Q_TYPE:
            return CMQC.MQQT_REMOTE
    if selector == CMQC.MQIA_CURRENT_Q_DEPTH:
        return queue.depth if isinstance(definition, LocalQueue) else None
    if selector == CMQC.MQIA_Q_TYPE:
        return CMQC.MQQT_LOCAL if isinstance(definition, LocalQueue) else CMQC.MQQT_ALIAS
    if selector == CMQC.MQIA_DEFINITION_TYPE:
        if not isinstance(definition, LocalQueue):
            return None
        return _DEFINITION_TYPES[definition.definition_type]
    if selector == CMQC.MQIA_OPEN_INPUT_COUNT:
        return queue.input_shared + queue.input_exclusive
    if selector == CMQC.MQIA_OPEN_OUTPUT_COUNT:
        return queue.output_count
    if selector == CMQC.MQIA_SHAREABILITY:
        return CMQC.MQQA_SHAREABLE if attrs.get("SHARE") != "NOSHARE" else CMQC.MQQA_NOT_SHAREABLE
    if selector == CMQC.MQIA_HARDEN_GET_BACKOUT:
        return CMQC.MQQA_BACKOUT_HARDENED
    if selector in _QUEUE_INTS:
        name, mapping = _QUEUE_INTS[selector]
        if name not in attrs:
            return None
        return attrs[name] if mapping is None else mapping[attrs[name]]
    if selector == CMQC.MQCA_Q_NAME:
        return definition.name.encode()
    if selector == CMQC.MQCA_Q_DESC:
        return attrs.get("DESCR", "").encode()
    if selector == CMQC.MQCA_BACKOUT_REQ_Q_NAME:
        return attrs.get("BOQNAME", "").encode() if isinstance(definition, LocalQueue) else None
    if selector == CMQC.MQCA_BASE_Q_NAME:
        return attrs["TARGET"].encode() if isinstance(definition, AliasQueue) else None
    if selector == CMQC.MQCA_CREATION_DATE:
        return time.strftime("%Y-%m-%d", definition.created).encode()
    if selector == CMQC.MQCA_CREATION_TIME:
        return time.strftime("%H.%M.%S", definition.created).encode()
    if selector in _QUEUE_CHAR_ATTRIBUTES:
        value = attrs.get(_QUEUE_CHAR_ATTRIBUTES[selector])
        return None if value is None else str(value).encode()
    return None


def set_values(definition: QueueDefinition | None, selectors: list[int], ints: list[int],
               chars: bytes) -> list[str]:
    """MQSET: validate everything first, then change all or nothing (as MQ does); returns the
    MQSC attributes changed.

    MQSET may set the trigger attributes (TriggerControl among them) as MQ allows: setting
    TriggerControl on again is how an application re-arms a DEPTH-triggered queue."""
    if definition is None:
        raise MQError(CMQC.MQRC_NOT_OPEN_FOR_SET)
    if len(selectors) > 256:
        raise MQError(CMQC.MQRC_SELECTOR_COUNT_ERROR)
    int_selectors = [s for s in selectors if _is_int_selector(s)]
    char_selectors = [s for s in selectors if not _is_int_selector(s)]
    if len(ints) < len(int_selectors):
        raise MQError(CMQC.MQRC_INT_ATTR_COUNT_ERROR)
    for selector in selectors:
        settable = selector in _SETTABLE_INTS or selector in _SETTABLE_CHARS
        # a selector that is not one of this queue's attributes is a selector error for MQSET
        if not settable or _queue_value_name(definition, selector) is None:
            raise MQError(CMQC.MQRC_SELECTOR_ERROR)
    if len(chars) < sum(_QUEUE_CHARS[s] for s in char_selectors):
        raise MQError(CMQC.MQRC_CHAR_ATTR_LENGTH_ERROR)
    changes: dict[str, AttributeValue] = {}
    for selector, value in zip(int_selectors, ints):
        name, mapping = _QUEUE_INTS[selector]
        changes[name] = _int_setting(selector, value, mapping)
    offset = 0
    for selector in char_selectors:
        length = _QUEUE_CHARS[selector]
        # MQ reads a NUL as the end of the value, and keeps it without trailing blanks
        raw = chars[offset:offset + length]
        changes[_QUEUE_CHAR_ATTRIBUTES[selector]] = blank_padded(raw, length).decode().rstrip(" ")
        offset += length
    definition.alter(changes)
    return list(changes)


def _queue_value_name(definition: QueueDefinition, selector: int) -> str | None:
    """The MQSC attribute a settable selector stands for, if this kind of queue has it."""
    name = (_QUEUE_INTS[selector][0] if selector in _QUEUE_INTS
            else _QUEUE_CHAR_ATTRIBUTES.get(selector))
    return name if name is not None and name in definition.attrs else None


def _int_setting(selector: int, value: int, mapping: dict[str, int] | None) -> AttributeValue:
    """The MQSC value an MQSET integer stands for, or MQ's reason for one it cannot take."""
    if mapping is not None:
        keyword = {number: word for word, number in mapping.items()}.get(value)
        if keyword is None:
            raise MQError(_SETTABLE_INTS[selector])
        return keyword
    spec = QUEUE_ATTRIBUTES[_QUEUE_INTS[selector][0]]
    low, high = spec.bounds
    if not low <= value <= high:
        raise MQError(_SETTABLE_INTS[selector])
    return value
