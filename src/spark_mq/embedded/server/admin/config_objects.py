"""What a configuration event (events/configuration.py) says about an object: its MQOT_*
type and its attributes as PCF names them, its name first (runs in the queue-manager
process, under its lock). A queue's attributes are those Inquire Queue returns
(command_server/attributes.py), the queue manager's those Inquire Queue Manager returns;
the other object types are named only. Also REFRESH QMGR TYPE(CONFIGEV), which switching
CONFIGEV on does too, as on IBM MQ (for the queue manager and its queues).
"""
from __future__ import annotations

import fnmatch
from typing import TYPE_CHECKING

from spark_mq.embedded.server.admin.command_server.attributes import is_int_selector, padded, queue_values
from spark_mq.embedded.server.admin.command_server.request import encode
from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand
from spark_mq.embedded.server.core.named_kinds import KINDS as NAMED_KINDS
from spark_mq.embedded.server.core.pcf_structures import cfst
from spark_mq.embedded.server.core.qmgr_attributes import CHAR_LENGTHS, qmgr_value
from spark_mq.embedded.server.core.security import authinfo
from spark_mq.embedded.server.events import configuration
from spark_mq.embedded.server.events.configuration import Describe, Described
from spark_mq.mqi.constants import CMQC, CMQCFC

if TYPE_CHECKING:
    from spark_mq.embedded.server.verbs.qmgr import QueueManager

QUEUE_KINDS = frozenset({"QLOCAL", "QALIAS", "QMODEL", "QREMOTE"})
_QMGR_SELECTORS = sorted({value for name, value in vars(CMQC).items()
                          if name.startswith(("MQIA_", "MQCA_")) and isinstance(value, int)
                          and (is_int_selector(value)
                               or CMQC.MQCA_FIRST <= value <= CMQC.MQCA_LAST)})
#: the object types named without attributes: (MQOT_*, the parameter of their name)
_NAMED_ONLY = {"CHANNEL": (CMQC.MQOT_CHANNEL, CMQCFC.MQCACH_CHANNEL_NAME),
               "NAMELIST": (CMQC.MQOT_NAMELIST, CMQC.MQCA_NAMELIST_NAME),
               "PROCESS": (CMQC.MQOT_PROCESS, CMQC.MQCA_PROCESS_NAME),
               "AUTHINFO": (CMQC.MQOT_AUTH_INFO, CMQC.MQCA_AUTH_INFO_NAME)}
_REFRESH_OBJECTS = frozenset({"ALL", "QUEUE", "QMGR", *QUEUE_KINDS})


def watch(qmgr: QueueManager, command: MQSCCommand) -> configuration.Watched | None:
    """configuration.watch for one MQSC command (None: no event will come of it)."""
    return configuration.watch(qmgr, command.verb, describer(qmgr, command.object_type,
                                                             command.name))


def describer(qmgr: QueueManager, object_type: str, name: str) -> Describe:
    def describe() -> Described:
        if object_type in QUEUE_KINDS:
            return _queue(qmgr, object_type, name)
        if object_type == "QMGR":
            return _qmgr(qmgr)
        return _named(qmgr, object_type, name)
    return describe


def refresh(qmgr: QueueManager, command: MQSCCommand) -> str:
    """REFRESH QMGR TYPE(CONFIGEV) [OBJECT(...)] [NAME(generic)]; other types change nothing
    here (the queue manager keeps no state they would refresh)."""
    if str(command.attributes.get("TYPE", "")).upper() != "CONFIGEV":
        return ""
    if qmgr.attrs.get("CONFIGEV") != "ENABLED":
        raise ValueError("REFRESH QMGR TYPE(CONFIGEV) needs configuration events on: CONFIGEV is "
                         f"{qmgr.attrs.get('CONFIGEV')} (valid: ALTER QMGR CONFIGEV(ENABLED) first)")
    wanted = str(command.attributes.get("OBJECT", "ALL")).upper()
    if wanted not in _REFRESH_OBJECTS:
        raise ValueError(f"OBJECT({wanted}) is not valid for REFRESH QMGR TYPE(CONFIGEV) "
                         f"(valid: {', '.join(sorted(_REFRESH_OBJECTS))})")
    count = _refresh(qmgr, wanted, str(command.attributes.get("NAME", "*")))
    return f"REFRESH QMGR TYPE(CONFIGEV): {count} Refresh object events generated."


def refresh_all(qmgr: QueueManager) -> None:
    """CONFIGEV has just been switched on: IBM MQ then refreshes every object, as REFRESH
    QMGR TYPE(CONFIGEV) OBJECT(ALL) does, so that a monitor starts from the whole picture."""
    _refresh(qmgr, "ALL", "*")


def _refresh(qmgr: QueueManager, wanted: str, pattern: str) -> int:
    objects: list[Described] = []
    if wanted in ("ALL", "QMGR"):
        objects.append(_qmgr(qmgr))
    if wanted != "QMGR":
        objects += [_queue(qmgr, queue.kind, name) for name, queue in sorted(qmgr.queues.items())
                    if wanted in ("ALL", "QUEUE", queue.kind) and fnmatch.fnmatchcase(name, pattern)]
    return configuration.refresh(qmgr, objects)


def _queue(qmgr: QueueManager, kind: str, name: str) -> Described:
    queue = qmgr.queues.get(name)
    if queue is None or queue.kind != kind:
        return None
    return CMQC.MQOT_Q, encode(dict(queue_values(queue, None)))


def _qmgr(qmgr: QueueManager) -> Described:
    values: dict[int, int | bytes | list[int]] = {
        CMQC.MQCA_Q_MGR_NAME: padded(qmgr.name, CMQC.MQ_Q_MGR_NAME_LENGTH)}
    for selector in _QMGR_SELECTORS:
        value = qmgr_value(qmgr, selector)
        if value is None or selector in values:
            continue
        length = CHAR_LENGTHS.get(selector)
        values[selector] = value if isinstance(value, int) or length is None \
            else value[:length].ljust(length, b" ")
    return CMQC.MQOT_Q_MGR, encode(values)


def _named(qmgr: QueueManager, object_type: str, name: str) -> Described:
    if object_type not in _NAMED_ONLY or not _exists(qmgr, object_type, name):
        return None
    mqot, parameter = _NAMED_ONLY[object_type]
    length = CMQC.MQ_CHANNEL_NAME_LENGTH if mqot == CMQC.MQOT_CHANNEL else CMQC.MQ_OBJECT_NAME_LENGTH
    return mqot, [cfst(parameter, name, length)]


def _exists(qmgr: QueueManager, object_type: str, name: str) -> bool:
    if object_type == "CHANNEL":
        return channels.exists(qmgr, name)
    if object_type == "AUTHINFO":
        return authinfo.exists(qmgr, name)
    return NAMED_KINDS[object_type].exists(qmgr, name)
