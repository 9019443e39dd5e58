"""The PCF commands of a named object kind (namelists, processes: core/named_kinds.py):
Inquire, Inquire ... Names, Create, Copy, Change and Delete (runs in the queue-manager
process, under the queue manager's lock).

Every command works from the kind's description (core/named_objects.py): the parameters a
Create, Copy or Change takes are its attributes' PCF parameters, Inquire returns those
`inquired`, and changes go through the kind's `apply`, as MQSC DEFINE/ALTER/DELETE do, so
both interfaces validate alike. A list of names (a namelist's NAMES) comes and goes as an
MQCFSL, each name blank-padded, as MQ returns it. `COMMANDS` is each kind's six commands
for commands.py's table.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spark_mq.embedded.server.admin import config_objects
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
from spark_mq.embedded.server.core.named_kinds import KINDS
from spark_mq.embedded.server.core.named_objects import NamedAttribute, NamedKind
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.embedded.server.events.configuration import Described
from spark_mq.mqi.constants import CMQC, CMQCFC

_IN, _ST, _SL = CMQCFC.MQCFT_INTEGER, CMQCFC.MQCFT_STRING, CMQCFC.MQCFT_STRING_LIST
_ALTERED = ((CMQC.MQCA_ALTERATION_DATE, "ALTDATE", CMQC.MQ_DATE_LENGTH),
            (CMQC.MQCA_ALTERATION_TIME, "ALTTIME", CMQC.MQ_TIME_LENGTH))
Function = Callable[[Request], list[Reply]]


def _structure(attribute: NamedAttribute) -> int:
    if attribute.listed:
        return _SL
    return _IN if attribute.to_number is not None else _ST


def change_parameters(kind: NamedKind) -> dict[int, int]:
    """The parameters Create/Change/Copy take besides the names of the objects."""
    return {attribute.parameter: _structure(attribute)
            for attribute in kind.attributes.values() if attribute.parameter}


def inquire_parameters(kind: NamedKind) -> dict[int, int]:
    """The optional parameters of Inquire."""
    return {kind.attrs_parameter: CMQCFC.MQCFT_INTEGER_LIST, **names_parameters(kind)}


def names_parameters(kind: NamedKind) -> dict[int, int]:
    """The optional parameters of Inquire ... Names: what Inquire selects by."""
    if kind.inquire_filter is None:
        return {}
    return {kind.attributes[kind.inquire_filter[0]].parameter: _IN}


def _values(kind: NamedKind, name: str, attrs: dict[str, Any]) -> dict[int, Value | list[int]]:
    """An object's attributes as PCF values, but for its lists (MQCFSLs, see _inquire)."""
    values: dict[int, Value | list[int]] = {kind.name_parameter: padded(name, kind.name_length)}
    for key, attribute in kind.attributes.items():
        if not attribute.inquired:
            continue
        if attribute.listed:
            if attribute.count is not None:
                values[attribute.count[1]] = len(attrs.get(key, []))
        elif attribute.to_number is not None:
            values[attribute.parameter] = attribute.to_number(attrs[key])
        else:
            values[attribute.parameter] = padded(str(attrs.get(key, "")), attribute.length)
    for parameter, key, length in _ALTERED:
        values[parameter] = padded(str(attrs.get(key, "")), length)
    return values


def _selected(kind: NamedKind, request: Request) -> list[tuple[str, dict[str, Any]]]:
    pattern = request.string(kind.name_parameter)
    found = [(name, attrs) for name, attrs in sorted(kind.table(request.qm).items())
             if matches(pattern, name)]
    if kind.inquire_filter is None:
        return found
    key, everything = kind.inquire_filter
    attribute = kind.attributes[key]
    wanted = request.integer(attribute.parameter, everything)
    return [(name, attrs) for name, attrs in found
            if wanted in (everything, _number(attribute, attrs.get(key, attribute.default())))]


def _number(attribute: NamedAttribute, kept: Any) -> int | None:
    try:
        return attribute.to_number(kept) if attribute.to_number is not None else None
    except (KeyError, ValueError):
        return None


def _inquire(kind: NamedKind) -> Function:
    def inquire(request: Request) -> list[Reply]:
        """MQCMD_INQUIRE_*: one reply per object; its name always, then the attributes
        MQIACF_*_ATTRS asks for (all by default)."""
        selectors = request.integers(kind.attrs_parameter)
        everything = request.everything(kind.attrs_parameter)
        found = _selected(kind, request)
        if not found:
            raise unknown_object()
        replies = []
        for name, attrs in found:
            values = request.chosen(_values(kind, name, attrs), kind.attrs_parameter,
                                    (kind.name_parameter,))
            if not passes(request.filters, values):
                continue
            structures = encode(values)
            for key, attribute in kind.attributes.items():
                if attribute.listed and (everything or (selectors is not None
                                                        and attribute.parameter in selectors)):
                    structures.append(pcf.cfsl(attribute.parameter, attrs.get(key, []),
                                               attribute.length))
            replies.append(Reply(structures))
        return replies
    return inquire


def _inquire_names(kind: NamedKind) -> Function:
    def inquire_names(request: Request) -> list[Reply]:
        """MQCMD_INQUIRE_*_NAMES: one reply listing the names; a generic name that matches
        nothing is an empty list, not an error."""
        found = _selected(kind, request)
        if not found and not request.string(kind.name_parameter).endswith("*"):
            raise unknown_object()
        return [Reply([pcf.cfsl(kind.names_parameter, [name for name, _ in found],
                                kind.name_length)])]
    return inquire_names


def _attributes(kind: NamedKind) -> Callable[[Request], dict[str, Any]]:
    def attributes(request: Request) -> dict[str, Any]:
        """The attributes a Create, Copy or Change gives, typed as the kind keeps them."""
        typed: dict[str, Any] = {}
        for key, attribute in kind.attributes.items():
            if attribute.parameter and request.has(attribute.parameter):
                try:
                    typed[key] = _from_pcf(attribute, request)
                except ValueError:
                    raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, attribute.parameter) from None
        return typed
    return attributes


def _from_pcf(attribute: NamedAttribute, request: Request) -> Any:
    if attribute.listed:
        return attribute.from_strings(request.strings(attribute.parameter))
    if attribute.from_number is not None:
        return attribute.from_number(request.integer(attribute.parameter, -1))
    return attribute.spec.coerce(request.string(attribute.parameter), quoted=True)


def _commands(kind: NamedKind) -> dict[int, tuple[Function, dict[int, int], dict[int, int]]]:
    """The kind's six commands: MQCMD_* -> (function, required, optional parameters)."""
    changes = ObjectChanges(kind.exists, kind.apply, _attributes(kind), kind.name_parameter,
                            *kind.copy_parameters)
    inquire, names, create, copy, change, delete = kind.pcf_commands
    named = {kind.name_parameter: _ST}
    replace = {CMQCFC.MQIACF_REPLACE: _IN}
    return {
        inquire: (_inquire(kind), named, inquire_parameters(kind)),
        names: (_inquire_names(kind), named, names_parameters(kind)),
        create: (changes.create, named, {**change_parameters(kind), **replace}),
        copy: (changes.copy, {parameter: _ST for parameter in kind.copy_parameters},
               {**change_parameters(kind), **replace}),
        change: (changes.change, named, change_parameters(kind)),
        delete: (changes.delete, named, {}),
    }


#: every named kind's commands: MQCMD_* -> (function, required, optional parameters)
COMMANDS = {command: entry for kind in KINDS.values() for command, entry in _commands(kind).items()}
#: the Inquire commands, which take filters
INQUIRIES = frozenset(kind.pcf_commands[0] for kind in KINDS.values())


# === configuration events ==================================================================
def _names(kind: NamedKind) -> Callable[[QueueManagerState], list[str]]:
    return lambda qm: sorted(kind.table(qm))


def _described(kind: NamedKind) -> Callable[[QueueManagerState, str], Described]:
    def described(qm: QueueManagerState, name: str) -> Described:
        """The object as a configuration event describes it: what its Inquire returns."""
        attrs = kind.table(qm).get(name)
        if attrs is None:
            return None
        lists = [pcf.cfsl(attribute.parameter, attrs.get(key, []), attribute.length)
                 for key, attribute in kind.attributes.items()
                 if attribute.listed and attribute.inquired]
        return kind.object_type, [*encode(_values(kind, name, attrs)), *lists]
    return described


for _kind in KINDS.values():
    config_objects.describes(_kind.kind, _described(_kind), _names(_kind))
