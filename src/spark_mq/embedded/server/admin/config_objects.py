"""What a configuration event (events/configuration.py) says about an object: its MQOT_*
type and its attributes as PCF names them, its name first (runs in the queue-manager
process, under its lock). A queue's attributes are those Inquire Queue returns
(command_server/attributes.py), the queue manager's those Inquire Queue Manager returns;
a channel's, namelist's, process's, topic's and authentication information object's those
their Inquire command returns, as the command server's module for each tells this one
(`describes`: those modules sit above this one, which MQSC's applying imports).

Which changes are events is IBM's list ("Configuration event generation"): DEFINE, ALTER
and DELETE of queues, the queue manager, channels, namelists, processes, authentication
information and topics, but never of the configuration event queue itself, which only a
refresh reports, nor of a temporary dynamic queue, not even by a refresh; not of
subscriptions (IBM's list has none, and an MQOPEN creating a dynamic queue is no command
either).

REFRESH QMGR TYPE(CONFIGEV), in MQSC or as PCF MQCMD_REFRESH_Q_MGR with MQRT_CONFIGURATION
(command_server/system_commands.py), selects objects by OBJECT (ObjectType), NAME
(ObjectName, generic) and REFINT (RefreshInterval: only objects changed within that many
minutes, by the change times this process has seen, `changed`); switching CONFIGEV on
refreshes every object, as on IBM MQ. An MQSET of a queue is described here too
(`queues_described_by`, events/configuration.py).
"""
from __future__ import annotations

import fnmatch
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from spark_mq.embedded.server.admin.command_server.attributes import is_int_selector, padded, queue_values
from spark_mq.embedded.server.admin.command_server.request import encode
from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand
from spark_mq.embedded.server.core.named_kinds import KINDS as NAMED_KINDS
from spark_mq.embedded.server.core.pcf_structures import cfst
from spark_mq.embedded.server.core.qmgr_attributes import CHAR_LENGTHS, qmgr_value
from spark_mq.embedded.server.core.queue_objects import TEMPORARY_DYNAMIC, LocalQueue
from spark_mq.embedded.server.core.security import authinfo
from spark_mq.embedded.server.core.security.security_state import security_of
from spark_mq.embedded.server.core.state import FeatureState, QueueManagerState
from spark_mq.embedded.server.events import configuration
from spark_mq.embedded.server.events.configuration import Describe, Described
from spark_mq.embedded.server.events.event_messages import CONFIG_QUEUE
from spark_mq.mqi.constants import CMQC, CMQCFC

if TYPE_CHECKING:
    from spark_mq.embedded.server.verbs.qmgr import QueueManager

QUEUE_KINDS = frozenset({"QLOCAL", "QALIAS", "QMODEL", "QREMOTE"})
_QMGR_SELECTORS = sorted({value for name, value in vars(CMQC).items()
                          if name.startswith(("MQIA_", "MQCA_")) and isinstance(value, int)
                          and (is_int_selector(value)
                               or CMQC.MQCA_FIRST <= value <= CMQC.MQCA_LAST)})
#: the object types named without attributes (unless `describes` said how to describe
#: them): (MQOT_*, the parameter of their name)
_NAMED_ONLY = {"CHANNEL": (CMQC.MQOT_CHANNEL, CMQCFC.MQCACH_CHANNEL_NAME),
               "NAMELIST": (CMQC.MQOT_NAMELIST, CMQC.MQCA_NAMELIST_NAME),
               "PROCESS": (CMQC.MQOT_PROCESS, CMQC.MQCA_PROCESS_NAME),
               "AUTHINFO": (CMQC.MQOT_AUTH_INFO, CMQC.MQCA_AUTH_INFO_NAME)}
#: object type -> (describe one of them by name, the names of those there are)
Describer = Callable[[QueueManagerState, str], Described]
Names = Callable[[QueueManagerState], list[str]]
_DESCRIBED_BY: dict[str, tuple[Describer, Names]] = {}
_NAMED_REFRESHED = ("CHANNEL", "NAMELIST", "PROCESS", "AUTHINFO", "TOPIC")
_REFRESH_OBJECTS = frozenset({"ALL", "QUEUE", "QMGR", *QUEUE_KINDS, *_NAMED_REFRESHED})
#: (object type, name) -> when this process last saw it defined or changed, for REFINT (a
#: restarted queue manager has seen no change yet: REFINT then selects nothing older)
_CHANGED: FeatureState[dict[tuple[str, str], float]] = FeatureState("config_changed",
                                                                    lambda qm: {})
_MAX_REFINT = 999999


def describes(object_type: str, describe: Describer, names: Names) -> None:
    """The command server's module of `object_type` says how its objects are described."""
    _DESCRIBED_BY[object_type] = (describe, names)


def watch(qmgr: QueueManager, command: MQSCCommand) -> configuration.Watched | None:
    """configuration.watch for one MQSC command (None: no event will come of it)."""
    if command.name == CONFIG_QUEUE and command.object_type in QUEUE_KINDS:
        return None     # IBM: the configuration event queue's own changes are no event
    return configuration.watch(qmgr, command.verb, describer(qmgr, command.object_type,
                                                             command.name))


def changed(qmgr: QueueManager, command: MQSCCommand) -> None:
    """A DEFINE or ALTER succeeded: when, for a later REFRESH QMGR REFINT."""
    if command.verb in ("DEFINE", "ALTER"):
        kind = command.object_type
        key = ("QUEUE", command.name) if kind in QUEUE_KINDS else (
            ("QMGR", "") if kind == "QMGR" else (kind, command.name))
        _CHANGED.of(qmgr)[key] = time.time()


def describer(qmgr: QueueManager, object_type: str, name: str) -> Describe:
    def describe() -> Described:
        if object_type in QUEUE_KINDS:
            return _queue(qmgr, object_type, name)
        if object_type == "QMGR":
            return _qmgr(qmgr)
        if object_type in _DESCRIBED_BY:
            return _DESCRIBED_BY[object_type][0](qmgr, name)
        return _named(qmgr, object_type, name)
    return describe


def refresh(qmgr: QueueManager, command: MQSCCommand) -> str:
    """REFRESH QMGR TYPE(CONFIGEV) [OBJECT(...)] [NAME(generic)] [REFINT(minutes)]; other
    types change nothing here (the queue manager keeps no state they would refresh)."""
    if str(command.attributes.get("TYPE", "")).upper() != "CONFIGEV":
        return ""
    if qmgr.attrs.get("CONFIGEV") != "ENABLED":
        raise ValueError("REFRESH QMGR TYPE(CONFIGEV) needs configuration events on: CONFIGEV is "
                         f"{qmgr.attrs.get('CONFIGEV')} (valid: ALTER QMGR CONFIGEV(ENABLED) first)")
    wanted = str(command.attributes.get("OBJECT", "ALL")).upper()
    if wanted not in _REFRESH_OBJECTS:
        raise ValueError(f"OBJECT({wanted}) is not valid for REFRESH QMGR TYPE(CONFIGEV) "
                         f"(valid: {', '.join(sorted(_REFRESH_OBJECTS))})")
    interval = _interval(command.attributes.get("REFINT", 0))
    count = _refresh(qmgr, wanted, str(command.attributes.get("NAME", "*")), interval)
    return f"REFRESH QMGR TYPE(CONFIGEV): {count} Refresh object events generated."


def refresh_all(qmgr: QueueManager) -> None:
    """CONFIGEV has just been switched on: IBM MQ then refreshes every object, as REFRESH
    QMGR TYPE(CONFIGEV) OBJECT(ALL) does, so that a monitor starts from the whole picture."""
    _refresh(qmgr, "ALL", "*", 0)


def _interval(value: object) -> int:
    try:
        minutes = int(str(value))
    except ValueError:
        minutes = -1
    if not 0 <= minutes <= _MAX_REFINT:
        raise ValueError(f"REFINT({value}) is not valid for REFRESH QMGR TYPE(CONFIGEV) "
                         f"(valid: 0, every object, to {_MAX_REFINT} minutes)")
    return minutes


def _refresh(qmgr: QueueManager, wanted: str, pattern: str, minutes: int) -> int:
    """A Refresh object event for each object of type `wanted` named by `pattern` and, when
    `minutes`, defined or changed within that many minutes."""
    recent = _recent(qmgr, minutes) if minutes else None
    objects: list[Described] = []
    if wanted in ("ALL", "QMGR") and fnmatch.fnmatchcase(qmgr.name, pattern) and (
            recent is None or ("QMGR", "") in recent):
        objects.append(_qmgr(qmgr))
    if wanted != "QMGR":
        objects += [_queue(qmgr, queue.kind, name) for name, queue in sorted(qmgr.queues.items())
                    if wanted in ("ALL", "QUEUE", queue.kind) and fnmatch.fnmatchcase(name, pattern)
                    and (recent is None or ("QUEUE", name) in recent)]
    for object_type in _NAMED_REFRESHED:
        if wanted in ("ALL", object_type):
            objects += [describer(qmgr, object_type, name)()
                        for name in _names(qmgr, object_type) if fnmatch.fnmatchcase(name, pattern)
                        and (recent is None or (object_type, name) in recent)]
    return configuration.refresh(qmgr, objects)


def _names(qmgr: QueueManager, object_type: str) -> list[str]:
    if object_type in _DESCRIBED_BY:
        return _DESCRIBED_BY[object_type][1](qmgr)
    if object_type == "AUTHINFO":
        return sorted(security_of(qmgr).authinfos)
    return []


def _recent(qmgr: QueueManager, minutes: int) -> set[tuple[str, str]]:
    since = time.time() - 60 * minutes
    return {key for key, when in _CHANGED.of(qmgr).items() if when >= since}


def _queue(qmgr: QueueManagerState, kind: str, name: str) -> Described:
    queue = qmgr.queues.get(name)
    if queue is None or queue.kind != kind:
        return None
    if isinstance(queue, LocalQueue) and queue.definition_type == TEMPORARY_DYNAMIC:
        return None     # IBM: no configuration event of a temporary dynamic queue, ever
    return CMQC.MQOT_Q, encode(dict(queue_values(queue, None)))


def _any_queue(qm: QueueManagerState, name: str) -> Described:
    """A queue of any type, as an MQSET's Change object event describes it."""
    queue = qm.queues.get(name)
    return None if queue is None else _queue(qm, queue.kind, name)


configuration.queues_described_by(_any_queue)


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
