"""MQINQ and MQSET: the mapping between MQI selectors and the MQSC attributes we keep.

Runs in the queue-manager process, under the queue manager's lock (see qmgr.py). Queue
attributes live as MQSC keywords and values (mqsc_attributes.py); this module translates
selectors (MQIA_*, MQCA_*) and MQI integer values to and from them.
"""
from __future__ import annotations

import time
from typing import cast

from spark_mq.embedded.server.connections import handle_of
from spark_mq.embedded.server.definitions import save_definition
from spark_mq.embedded.server.errors import MQError
from spark_mq.embedded.server.queues import (
    PERMANENT_DYNAMIC,
    PREDEFINED,
    TEMPORARY_DYNAMIC,
    AliasQueue,
    LocalQueue,
    QueueDefinition,
)
from spark_mq.embedded.server.state import QMGR_CCSID, Connection, QueueManagerState
from spark_mq.mqi.constants import CMQC

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
}
_QMGR_INTS = {
    CMQC.MQIA_MAX_MSG_LENGTH: "MAXMSGL",
    CMQC.MQIA_MAX_UNCOMMITTED_MSGS: "MAXUMSGS",
    CMQC.MQIA_MAX_PROPERTIES_LENGTH: "MAXPROPL",
}
_QMGR_CONSTANT_INTS = {
    CMQC.MQIA_COMMAND_LEVEL: 940, CMQC.MQIA_PLATFORM: CMQC.MQPL_UNIX,
    CMQC.MQIA_SYNCPOINT: CMQC.MQSP_AVAILABLE, CMQC.MQIA_MAX_PRIORITY: 9,
    CMQC.MQIA_CODED_CHAR_SET_ID: QMGR_CCSID,
}
_QMGR_CHARS = {
    CMQC.MQCA_Q_MGR_NAME: CMQC.MQ_Q_MGR_NAME_LENGTH,
    CMQC.MQCA_DEAD_LETTER_Q_NAME: CMQC.MQ_Q_NAME_LENGTH,
    CMQC.MQCA_Q_MGR_DESC: CMQC.MQ_Q_MGR_DESC_LENGTH,
    CMQC.MQCA_Q_MGR_IDENTIFIER: CMQC.MQ_Q_MGR_IDENTIFIER_LENGTH,
    CMQC.MQCA_COMMAND_INPUT_Q_NAME: CMQC.MQ_Q_NAME_LENGTH,
}
#: the queue PCF commands go to, created with the queue manager (mqsc_attributes.SYSTEM_MQSC)
COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"
#: MQSET may change only these, as on IBM MQ
_SETTABLE = {CMQC.MQIA_INHIBIT_GET, CMQC.MQIA_INHIBIT_PUT}


def inquire(qm: QueueManagerState, conn: Connection, hobj: int,
            selectors: list[int]) -> tuple[list[int], bytes, bool]:
    """MQINQ: (integer values, character values, some selector did not apply)."""
    handle = handle_of(conn, hobj)
    if not handle.options & CMQC.MQOO_INQUIRE:
        raise MQError(CMQC.MQRC_NOT_OPEN_FOR_INQUIRE)
    if len(selectors) > 256:
        raise MQError(CMQC.MQRC_SELECTOR_COUNT_ERROR)
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
    set_values(definition, selectors, ints, chars)
    save_definition(qm, definition)


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
        value = _qmgr_value(qmgr, selector) if target is None else _queue_value(*target, selector)
        if value is None:
            warning = True
            value = 0 if _is_int_selector(selector) else b""
        # an MQIA_* selector has an int value, an MQCA_* selector bytes
        if _is_int_selector(selector):
            ints.append(cast(int, value))
        else:
            length = (_QMGR_CHARS if target is None else _QUEUE_CHARS).get(selector, 0)
            chars += cast(bytes, value)[:length].ljust(length, b" ")
    return ints, bytes(chars), warning


def _queue_value(queue: LocalQueue, definition: QueueDefinition,
                 selector: int) -> int | bytes | None:
    attrs = definition.attrs
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
    return None


def _qmgr_value(qmgr: QueueManagerState, selector: int) -> int | bytes | None:
    if selector in _QMGR_INTS:
        return qmgr.attrs[_QMGR_INTS[selector]]
    if selector in _QMGR_CONSTANT_INTS:
        return _QMGR_CONSTANT_INTS[selector]
    if selector == CMQC.MQCA_Q_MGR_NAME:
        return qmgr.name.encode()
    if selector == CMQC.MQCA_DEAD_LETTER_Q_NAME:
        return qmgr.attrs["DEADQ"].encode()
    if selector == CMQC.MQCA_Q_MGR_DESC:
        return qmgr.attrs["DESCR"].encode()
    if selector == CMQC.MQCA_Q_MGR_IDENTIFIER:
        return f"{qmgr.name}_EMBEDDED".encode()
    if selector == CMQC.MQCA_COMMAND_INPUT_Q_NAME:
        return COMMAND_QUEUE.encode()
    return None


def set_values(definition: QueueDefinition | None, selectors: list[int], ints: list[int],
               chars: bytes) -> list[str]:
    """MQSET: validate everything first, then change all or nothing (as MQ does)."""
    if definition is None:
        raise MQError(CMQC.MQRC_NOT_OPEN_FOR_SET)
    if len(selectors) > 256:
        raise MQError(CMQC.MQRC_SELECTOR_COUNT_ERROR)
    int_selectors = [s for s in selectors if _is_int_selector(s)]
    if len(ints) < len(int_selectors):
        raise MQError(CMQC.MQRC_INT_ATTR_COUNT_ERROR)
    if len(int_selectors) != len(selectors) and chars:
        raise MQError(CMQC.MQRC_SELECTOR_ERROR)  # no character attribute is settable here
    changes: dict[str, str] = {}
    for selector, value in zip(int_selectors, ints):
        if selector not in _SETTABLE:
            raise MQError(CMQC.MQRC_SELECTOR_ERROR)
        name, mapping = _QUEUE_INTS[selector]
        keyword = {v: k for k, v in (mapping or {}).items()}.get(value)  # settable ones are mapped
        if keyword is None:
            raise MQError(CMQC.MQRC_INHIBIT_VALUE_ERROR)
        changes[name] = keyword
    if len(int_selectors) != len(selectors):
        raise MQError(CMQC.MQRC_SELECTOR_ERROR)
    definition.alter(changes)
    return list(changes)
