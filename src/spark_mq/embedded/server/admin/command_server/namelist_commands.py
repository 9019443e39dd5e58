"""The namelist commands: Inquire Namelist (Names), Create, Copy, Change and Delete Namelist
(runs in the queue-manager process, under the queue manager's lock).

The objects are namelist.py's; changes go through namelist.apply, as MQSC DEFINE/ALTER/
DELETE NAMELIST do, so both interfaces validate alike. Names come and go as MQCFSL string
lists (MQCA_NAMES), each name blank-padded to 48 characters, as MQ returns them.
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
from spark_mq.embedded.server.core import namelist
from spark_mq.mqi.constants import CMQC, CMQCFC

_NAME = CMQC.MQCA_NAMELIST_NAME
_IN, _ST, _SL = CMQCFC.MQCFT_INTEGER, CMQCFC.MQCFT_STRING, CMQCFC.MQCFT_STRING_LIST
#: NLTYPE keywords and their PCF values (MQIA_NAMELIST_TYPE)
_TYPES = {"NONE": CMQC.MQNT_NONE, "QUEUE": CMQC.MQNT_Q, "CLUSTER": CMQC.MQNT_CLUSTER,
          "AUTHINFO": CMQC.MQNT_AUTH_INFO}
_TYPE_KEYWORDS = {value: keyword for keyword, value in _TYPES.items()}
#: the parameters Create/Change/Copy Namelist take besides the names of the namelists
CHANGE_PARAMETERS = {CMQC.MQCA_NAMELIST_DESC: _ST, CMQC.MQCA_NAMES: _SL,
                     CMQC.MQIA_NAMELIST_TYPE: _IN}
#: the optional parameters of Inquire Namelist
INQUIRE_PARAMETERS = {CMQCFC.MQIACF_NAMELIST_ATTRS: CMQCFC.MQCFT_INTEGER_LIST,
                      CMQC.MQIA_NAMELIST_TYPE: _IN}


def _values(name: str, attrs: dict[str, Any]) -> dict[int, Value | list[int]]:
    """A namelist's attributes as PCF values, but for its names (an MQCFSL, see _reply)."""
    return {
        _NAME: padded(name, CMQC.MQ_NAMELIST_NAME_LENGTH),
        CMQC.MQCA_NAMELIST_DESC: padded(str(attrs.get("DESCR", "")), CMQC.MQ_NAMELIST_DESC_LENGTH),
        CMQC.MQIA_NAME_COUNT: len(attrs.get("NAMES", [])),
        CMQC.MQCA_ALTERATION_DATE: padded(str(attrs.get("ALTDATE", "")), CMQC.MQ_DATE_LENGTH),
        CMQC.MQCA_ALTERATION_TIME: padded(str(attrs.get("ALTTIME", "")), CMQC.MQ_TIME_LENGTH),
    }


def _selected(request: Request) -> list[tuple[str, dict[str, Any]]]:
    pattern = request.string(_NAME)
    wanted = request.integer(CMQC.MQIA_NAMELIST_TYPE, CMQC.MQNT_ALL)
    return [(name, attrs) for name, attrs in sorted(namelist.namelists_of(request.qm).items())
            if matches(pattern, name)
            and wanted in (CMQC.MQNT_ALL, _TYPES.get(str(attrs.get("NLTYPE")), CMQC.MQNT_NONE))]


def inquire_namelist(request: Request) -> list[Reply]:
    """MQCMD_INQUIRE_NAMELIST: one reply per namelist; its name always, then the attributes
    MQIACF_NAMELIST_ATTRS asks for (all by default)."""
    selectors = request.integers(CMQCFC.MQIACF_NAMELIST_ATTRS)
    everything = request.everything(CMQCFC.MQIACF_NAMELIST_ATTRS)
    found = _selected(request)
    if not found:
        raise unknown_object()
    replies = []
    for name, attrs in found:
        values = request.chosen(_values(name, attrs), CMQCFC.MQIACF_NAMELIST_ATTRS, (_NAME,))
        if not passes(request.filters, values):
            continue
        structures = encode(values)
        if everything or (selectors is not None and CMQC.MQCA_NAMES in selectors):
            structures.append(pcf.cfsl(CMQC.MQCA_NAMES, attrs.get("NAMES", []),
                                       CMQC.MQ_OBJECT_NAME_LENGTH))
        replies.append(Reply(structures))
    return replies


def inquire_namelist_names(request: Request) -> list[Reply]:
    """MQCMD_INQUIRE_NAMELIST_NAMES: one reply listing the names; a generic name that
    matches nothing is an empty list, not an error."""
    found = _selected(request)
    if not found and not request.string(_NAME).endswith("*"):
        raise unknown_object()
    return [Reply([pcf.cfsl(CMQCFC.MQCACF_NAMELIST_NAMES, [name for name, _ in found],
                            CMQC.MQ_NAMELIST_NAME_LENGTH)])]


def _attributes(request: Request) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    if request.has(CMQC.MQCA_NAMELIST_DESC):
        spec = namelist.ATTRIBUTES["DESCR"]
        try:
            attributes["DESCR"] = spec.coerce(request.string(CMQC.MQCA_NAMELIST_DESC), quoted=True)
        except ValueError:
            raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, CMQC.MQCA_NAMELIST_DESC) from None
    if request.has(CMQC.MQCA_NAMES):
        try:
            attributes["NAMES"] = namelist.check_names(request.strings(CMQC.MQCA_NAMES))
        except ValueError:
            raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, CMQC.MQCA_NAMES) from None
    if request.has(CMQC.MQIA_NAMELIST_TYPE):
        keyword = _TYPE_KEYWORDS.get(request.integer(CMQC.MQIA_NAMELIST_TYPE, -1))
        if keyword is None:
            raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, CMQC.MQIA_NAMELIST_TYPE)
        attributes["NLTYPE"] = keyword
    return attributes


_CHANGES = ObjectChanges(namelist.exists, namelist.apply, _attributes, _NAME,
                         CMQCFC.MQCACF_FROM_NAMELIST_NAME, CMQCFC.MQCACF_TO_NAMELIST_NAME)
#: MQCMD_CREATE/COPY/CHANGE/DELETE_NAMELIST
create_namelist, copy_namelist = _CHANGES.create, _CHANGES.copy
change_namelist, delete_namelist = _CHANGES.change, _CHANGES.delete
