"""The process commands: Inquire Process (Names), Create, Copy, Change and Delete Process
(runs in the queue-manager process, under the queue manager's lock).

The objects are processes.py's; changes go through processes.apply, as MQSC DEFINE/ALTER/
DELETE PROCESS do, so both interfaces validate alike.
"""
from __future__ import annotations

from typing import Any

from spark_mq.embedded.server.admin.command_server import pcf
from spark_mq.embedded.server.admin.command_server.attributes import Value, padded
from spark_mq.embedded.server.admin.command_server.object_changes import ObjectChanges
from spark_mq.embedded.server.admin.command_server.pcf import PCFError
from spark_mq.embedded.server.admin.command_server.request import (
    Reply,
    Request,
    encode,
    matches,
    passes,
    unknown_object,
)
from spark_mq.embedded.server.core import processes
from spark_mq.mqi.constants import CMQC, CMQCFC

_NAME = CMQC.MQCA_PROCESS_NAME
_IN, _ST = CMQCFC.MQCFT_INTEGER, CMQCFC.MQCFT_STRING
#: PCF string parameter -> (MQSC attribute, length)
_STRINGS = {
    CMQC.MQCA_PROCESS_DESC: ("DESCR", CMQC.MQ_PROCESS_DESC_LENGTH),
    CMQC.MQCA_APPL_ID: ("APPLICID", CMQC.MQ_PROCESS_APPL_ID_LENGTH),
    CMQC.MQCA_ENV_DATA: ("ENVRDATA", CMQC.MQ_PROCESS_ENV_DATA_LENGTH),
    CMQC.MQCA_USER_DATA: ("USERDATA", CMQC.MQ_PROCESS_USER_DATA_LENGTH),
}
#: the parameters Create/Change/Copy Process take besides the names of the processes
CHANGE_PARAMETERS = {**{key: _ST for key in _STRINGS}, CMQC.MQIA_APPL_TYPE: _IN}
#: the optional parameters of Inquire Process
INQUIRE_PARAMETERS = {CMQCFC.MQIACF_PROCESS_ATTRS: CMQCFC.MQCFT_INTEGER_LIST}


def _values(name: str, attrs: dict[str, Any]) -> dict[int, Value | list[int]]:
    values: dict[int, Value | list[int]] = {
        _NAME: padded(name, CMQC.MQ_PROCESS_NAME_LENGTH),
        CMQC.MQIA_APPL_TYPE: processes.appl_type_value(str(attrs["APPLTYPE"])),
        CMQC.MQCA_ALTERATION_DATE: padded(str(attrs.get("ALTDATE", "")), CMQC.MQ_DATE_LENGTH),
        CMQC.MQCA_ALTERATION_TIME: padded(str(attrs.get("ALTTIME", "")), CMQC.MQ_TIME_LENGTH),
    }
    for parameter, (keyword, length) in _STRINGS.items():
        values[parameter] = padded(str(attrs.get(keyword, "")), length)
    return values


def _selected(request: Request) -> list[tuple[str, dict[str, Any]]]:
    pattern = request.string(_NAME)
    return [(name, attrs) for name, attrs in sorted(processes.processes_of(request.qm).items())
            if matches(pattern, name)]


def inquire_process(request: Request) -> list[Reply]:
    """MQCMD_INQUIRE_PROCESS: one reply per process; its name always, then the attributes
    MQIACF_PROCESS_ATTRS asks for (all by default)."""
    found = _selected(request)
    if not found:
        raise unknown_object()
    replies = []
    for name, attrs in found:
        values = request.chosen(_values(name, attrs), CMQCFC.MQIACF_PROCESS_ATTRS, (_NAME,))
        if passes(request.filters, values):
            replies.append(Reply(encode(values)))
    return replies


def inquire_process_names(request: Request) -> list[Reply]:
    """MQCMD_INQUIRE_PROCESS_NAMES: one reply listing the names; a generic name that matches
    nothing is an empty list, not an error."""
    found = _selected(request)
    if not found and not request.string(_NAME).endswith("*"):
        raise unknown_object()
    return [Reply([pcf.cfsl(CMQCFC.MQCACF_PROCESS_NAMES, [name for name, _ in found],
                            CMQC.MQ_PROCESS_NAME_LENGTH)])]


def _attributes(request: Request) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    for parameter, (keyword, _) in _STRINGS.items():
        if request.has(parameter):
            try:
                attributes[keyword] = processes.ATTRIBUTES[keyword].coerce(
                    request.string(parameter), quoted=True)
            except ValueError:
                raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, parameter) from None
    if request.has(CMQC.MQIA_APPL_TYPE):
        try:
            attributes["APPLTYPE"] = processes.appl_type_of(request.integer(CMQC.MQIA_APPL_TYPE, -1))
        except ValueError:
            raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, CMQC.MQIA_APPL_TYPE) from None
    return attributes


_CHANGES = ObjectChanges(processes.exists, processes.apply, _attributes, _NAME,
                         CMQCFC.MQCACF_FROM_PROCESS_NAME, CMQCFC.MQCACF_TO_PROCESS_NAME)
#: MQCMD_CREATE/COPY/CHANGE/DELETE_PROCESS
create_process, copy_process = _CHANGES.create, _CHANGES.copy
change_process, delete_process = _CHANGES.change, _CHANGES.delete
