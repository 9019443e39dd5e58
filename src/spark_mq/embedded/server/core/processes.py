"""PROCESS objects: what a trigger monitor starts for a triggered queue (runs in the
queue-manager process, under its lock).

A process definition names an application (APPLICID), its type (APPLTYPE), and two strings
handed to it (ENVRDATA, USERDATA). The queue manager itself starts nothing: a triggered queue's
PROCESS must name an existing process for a trigger message to be written (triggering/), and
the trigger message carries the process's attributes to the trigger monitor, which starts
the application (`spark-mq-qmgr trigger-monitor`, IBM's runmqtrm).

Definitions are stored with the others, kind "PROCESS", and come back through `restore`.
MQSC (admin/mqsc_apply.py via `apply`) and PCF (admin/command_server/process_commands.py) change them
through `apply`, so both validate alike.
"""
from __future__ import annotations

import fnmatch
from typing import Any

from spark_mq.embedded.server.core.mqsc_attributes import AttributeSpec
from spark_mq.embedded.server.core.named_objects import change
from spark_mq.embedded.server.core.runmqsc_layout import render
from spark_mq.embedded.server.core.state import FeatureState, QueueManagerState
from spark_mq.mqi.constants import CMQC

#: the store kind of a process definition
KIND = "PROCESS"
_PROCESS = frozenset({KIND})

#: APPLTYPE keywords and the MQAT_* value a trigger message carries for each. DEF is the
#: platform's default: UNIX here, and what DISPLAY shows for it, as on IBM MQ for Linux.
APPL_TYPES: dict[str, int] = {
    "UNIX": CMQC.MQAT_UNIX, "CICS": CMQC.MQAT_CICS, "DOS": CMQC.MQAT_DOS, "IMS": CMQC.MQAT_IMS,
    "MVS": CMQC.MQAT_MVS, "NOTESAGENT": CMQC.MQAT_NOTES_AGENT, "NSK": CMQC.MQAT_NSK,
    "OPENVMS": CMQC.MQAT_VMS, "OS2": CMQC.MQAT_OS2, "OS400": CMQC.MQAT_OS400,
    "WINDOWS": CMQC.MQAT_WINDOWS, "WINDOWSNT": CMQC.MQAT_WINDOWS_NT, "WLM": CMQC.MQAT_WLM,
}
_APPL_TYPE_KEYWORDS = {value: keyword for keyword, value in APPL_TYPES.items()}
DEFAULT_APPL_TYPE = "UNIX"
#: user-defined application types, written as a number
USER_APPL_TYPES = (CMQC.MQAT_USER_FIRST, CMQC.MQAT_USER_LAST)

#: the attributes a process has besides APPLTYPE (checked by `appl_type`)
ATTRIBUTES: dict[str, AttributeSpec] = {
    "DESCR": AttributeSpec("str", "", _PROCESS, max_length=CMQC.MQ_PROCESS_DESC_LENGTH),
    "APPLICID": AttributeSpec("str", "", _PROCESS, max_length=CMQC.MQ_PROCESS_APPL_ID_LENGTH),
    "ENVRDATA": AttributeSpec("str", "", _PROCESS, max_length=CMQC.MQ_PROCESS_ENV_DATA_LENGTH),
    "USERDATA": AttributeSpec("str", "", _PROCESS, max_length=CMQC.MQ_PROCESS_USER_DATA_LENGTH),
}

#: process name -> attributes: DESCR, APPLICID, APPLTYPE, ENVRDATA, USERDATA, ALTDATE, ALTTIME
Processes = dict[str, dict[str, Any]]
_PROCESSES: FeatureState[Processes] = FeatureState("processes", lambda qm: {})


def processes_of(qm: QueueManagerState) -> Processes:
    """The queue manager's process definitions; in its feature state, as namelists are."""
    return _PROCESSES.of(qm)


def exists(qm: QueueManagerState, name: str) -> bool:
    return name in processes_of(qm)


def find(qm: QueueManagerState, name: str) -> dict[str, Any] | None:
    return processes_of(qm).get(name)


def restore(qm: QueueManagerState, name: str, attrs: dict[str, Any]) -> None:
    """A stored definition, at recovery."""
    processes_of(qm)[name] = dict(attrs)


def appl_type(text: str) -> str:
    """An APPLTYPE as written (a keyword, DEF, or a user type's number) as it is kept: the
    keyword, or the number as digits; ValueError naming what is valid."""
    word = text.strip().upper()
    if word == "DEF":
        return DEFAULT_APPL_TYPE
    if word in APPL_TYPES:
        return word
    if word.isdigit():
        number = int(word)
        keyword = _APPL_TYPE_KEYWORDS.get(number)
        if keyword is not None:
            return keyword
        low, high = USER_APPL_TYPES
        if low <= number <= high:
            return str(number)
    raise ValueError(f"value '{text}' is not valid (valid: DEF, {', '.join(APPL_TYPES)}, "
                     f"or a user type {USER_APPL_TYPES[0]} to {USER_APPL_TYPES[1]})")


def appl_type_value(kept: str) -> int:
    """The MQAT_* number of a kept APPLTYPE (for MQINQ, PCF and the trigger message)."""
    return APPL_TYPES[kept] if kept in APPL_TYPES else int(kept)


def appl_type_of(value: int) -> str:
    """The kept APPLTYPE of an MQAT_* number (PCF); ValueError for one MQ does not take."""
    return appl_type(str(value))


def default_attributes() -> dict[str, Any]:
    values: dict[str, Any] = {key: spec.default for key, spec in ATTRIBUTES.items()}
    values["APPLTYPE"] = DEFAULT_APPL_TYPE
    return values


def apply(qm: QueueManagerState, verb: str, name: str, attrs: dict[str, Any],
          replace: bool = False, like: str | None = None) -> str:
    """DEFINE, ALTER or DELETE PROCESS with typed attributes; returns runmqsc's message.
    Failures are ValueErrors with runmqsc's text. `like`: DEFINE ... LIKE(other) copies it."""
    return change(qm, processes_of(qm), KIND, verb, name, attrs, _MESSAGES, default_attributes,
                  replace, like)


_MESSAGES = {"DEFINE": "AMQ8010I: IBM MQ process created.",
             "ALTER": "AMQ8007I: IBM MQ process changed.",
             "DELETE": "AMQ8101I: IBM MQ process deleted."}


def matching(qm: QueueManagerState, pattern: str) -> list[tuple[str, dict[str, Any]]]:
    """The processes a name, generic with '*' or not, selects, by name."""
    return [(name, attrs) for name, attrs in sorted(processes_of(qm).items())
            if fnmatch.fnmatchcase(name, pattern)]


def display(qm: QueueManagerState, pattern: str, flags: frozenset[str]) -> str:
    """DISPLAY PROCESS as runmqsc shows it: the attributes asked for (all of them with ALL
    or none named), an empty value as ( )."""
    found = matching(qm, pattern)
    if not found:
        raise ValueError(f"AMQ8147E: IBM MQ object {pattern} not found.")
    wanted = {flag for flag in flags if flag != "ALL"}
    blocks = []
    for name, attrs in found:
        items = [f"PROCESS({name})"] + [
            f"{key}({str(value) or ' '})" for key, value in sorted(attrs.items())
            if not wanted or "ALL" in flags or key in wanted]
        blocks.append(render("AMQ8407I: Display Process details.", items))
    return "\n".join(blocks)
