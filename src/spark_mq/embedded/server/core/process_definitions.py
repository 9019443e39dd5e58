"""PROCESS objects: what a trigger monitor starts for a triggered queue (runs in the
queue-manager process, under its lock).

A process definition names an application (APPLICID), its type (APPLTYPE), and two strings
handed to it (ENVRDATA, USERDATA). The queue manager itself starts nothing: a triggered queue's
PROCESS must name an existing process for a trigger message to be written (triggering/), and
the trigger message carries the process's attributes to the trigger monitor, which starts
the application (`spark-mq-qmgr trigger-monitor`, IBM's runmqtrm).

`PROCESS` describes the kind (core/named_objects.py), and MQSC, PCF, MQINQ and the store work
from it; what is a process's own is here: APPLTYPE's keywords and numbers.
"""
from __future__ import annotations

from typing import Any

from spark_mq.embedded.server.core.mqsc_attributes import AttributeSpec
from spark_mq.embedded.server.core.named_objects import NamedAttribute, NamedKind
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.mqi.constants import CMQC, CMQCFC

_PROCESS = frozenset({"PROCESS"})

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


def _string(length: int) -> AttributeSpec:
    return AttributeSpec("str", "", _PROCESS, max_length=length)


#: the process kind: DESCR, APPLICID, APPLTYPE, ENVRDATA, USERDATA
PROCESS = NamedKind(
    "PROCESS",
    attributes={
        "DESCR": NamedAttribute(_string(CMQC.MQ_PROCESS_DESC_LENGTH),
                                parameter=CMQC.MQCA_PROCESS_DESC,
                                length=CMQC.MQ_PROCESS_DESC_LENGTH),
        "APPLICID": NamedAttribute(_string(CMQC.MQ_PROCESS_APPL_ID_LENGTH),
                                   parameter=CMQC.MQCA_APPL_ID,
                                   length=CMQC.MQ_PROCESS_APPL_ID_LENGTH),
        "APPLTYPE": NamedAttribute(AttributeSpec("str", DEFAULT_APPL_TYPE, _PROCESS),
                                   appl_type, CMQC.MQIA_APPL_TYPE,
                                   to_number=lambda kept: appl_type_value(str(kept)),
                                   from_number=appl_type_of),
        "ENVRDATA": NamedAttribute(_string(CMQC.MQ_PROCESS_ENV_DATA_LENGTH),
                                   parameter=CMQC.MQCA_ENV_DATA,
                                   length=CMQC.MQ_PROCESS_ENV_DATA_LENGTH),
        "USERDATA": NamedAttribute(_string(CMQC.MQ_PROCESS_USER_DATA_LENGTH),
                                   parameter=CMQC.MQCA_USER_DATA,
                                   length=CMQC.MQ_PROCESS_USER_DATA_LENGTH),
    },
    messages={"DEFINE": "AMQ8010I: IBM MQ process created.",
              "ALTER": "AMQ8007I: IBM MQ process changed.",
              "DELETE": "AMQ8101I: IBM MQ process deleted.",
              "DISPLAY": "AMQ8407I: Display Process details."},
    example="MY.PROCESS", object_type=CMQC.MQOT_PROCESS, name_parameter=CMQC.MQCA_PROCESS_NAME,
    name_length=CMQC.MQ_PROCESS_NAME_LENGTH, names_parameter=CMQCFC.MQCACF_PROCESS_NAMES,
    copy_parameters=(CMQCFC.MQCACF_FROM_PROCESS_NAME, CMQCFC.MQCACF_TO_PROCESS_NAME),
    attrs_parameter=CMQCFC.MQIACF_PROCESS_ATTRS,
    pcf_commands=(CMQCFC.MQCMD_INQUIRE_PROCESS, CMQCFC.MQCMD_INQUIRE_PROCESS_NAMES,
                  CMQCFC.MQCMD_CREATE_PROCESS, CMQCFC.MQCMD_COPY_PROCESS,
                  CMQCFC.MQCMD_CHANGE_PROCESS, CMQCFC.MQCMD_DELETE_PROCESS))


def find(qm: QueueManagerState, name: str) -> dict[str, Any] | None:
    """The process definition `name`, None when there is none (triggering/ asks)."""
    return PROCESS.find(qm, name)
