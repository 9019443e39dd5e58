"""Objects kept as a name and its attributes in a table of their own (namelists, processes):
one `NamedKind` describes a kind, and every interface works from that description, so a
third kind is one more entry in `KINDS` (runs in the queue-manager process, under its lock).

A kind says its attributes (`NamedAttribute`: type, default and limits, how MQSC writes the
value, the PCF parameter and MQINQ selector that carry it), runmqsc's messages, and the names
PCF and MQOPEN know it by. From that:

- here: the kind's table in the queue manager's feature state (state.FeatureState), DEFINE,
  ALTER and DELETE with runmqsc's rules (AMQ8150E without REPLACE, AMQ8147E for an unknown
  name or LIKE; ALTDATE and ALTTIME set at each change), DISPLAY as runmqsc lays it out, and
  recovery from the store, where definitions are kept under the kind's name;
- admin/named_object_mqsc.py: the MQSC syntax of the four verbs;
- admin/command_server/named_object_commands.py: PCF Inquire, Inquire Names, Create, Copy,
  Change and Delete;
- verbs/handles.py and verbs/inquire.py: MQOPEN for inquire, and MQINQ.
"""
from __future__ import annotations

import fnmatch
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from spark_mq.embedded.server.core.mqsc_attributes import AttributeSpec
from spark_mq.embedded.server.core.runmqsc_layout import render
from spark_mq.embedded.server.core.state import FeatureState, QueueManagerState

#: name -> attributes (ALTDATE and ALTTIME besides the kind's own)
Table = dict[str, dict[str, Any]]


@dataclass(frozen=True)
class NamedAttribute:
    """One attribute of a named object kind.

    `spec` types it and gives its default (for a list, `listed`, each name's limit).
    `parse` turns MQSC's text (quoted text as written, unquoted text folded by the parser)
    into the kept value where `spec.coerce` is not the rule; it raises ValueError naming
    what is valid. `parameter` is the PCF parameter that carries it, and the MQINQ selector
    (0: MQSC only); `length` a string's length there; `to_number` and `from_number` turn a
    kept keyword into PCF's integer and back (ValueError for one MQ does not take);
    `listed` marks a list of names (an MQCFSL in PCF), `from_strings` checks one PCF gives;
    `inquired` False for one PCF takes but neither Inquire nor MQINQ returns. `count` names
    a list's count as DISPLAY and PCF/MQINQ show it (NAMCOUNT, MQIA_NAME_COUNT)."""
    spec: AttributeSpec
    parse: Callable[[str], Any] | None = None
    parameter: int = 0
    length: int = 0
    to_number: Callable[[Any], int] | None = None
    from_number: Callable[[int], Any] | None = None
    listed: bool = False
    from_strings: Callable[[list[str]], list[str]] = list  # checks a list PCF gives
    inquired: bool = True
    count: tuple[str, int] | None = None

    def default(self) -> Any:
        return [] if self.listed else self.spec.default

    def from_mqsc(self, text: str) -> Any:
        """MQSC's text as the kept value; ValueError naming what is valid."""
        if self.parse is not None:
            return self.parse(text)
        try:
            return self.spec.coerce(text, quoted=True)  # the parser folded unquoted text
        except ValueError as err:
            raise ValueError(f"{err} (valid: {self.spec.describe()})") from None


@dataclass(frozen=True)
class NamedKind:
    """One kind of named object (see the module docstring)."""
    kind: str                                 # MQSC's object type, and the store's kind
    attributes: Mapping[str, NamedAttribute]
    messages: Mapping[str, str]               # runmqsc's, by verb (DISPLAY: the header)
    example: str                              # a name, for an error that needs one
    object_type: int                          # MQOT_*
    name_parameter: int                       # MQCA_*_NAME: PCF's, and MQINQ's selector
    name_length: int
    names_parameter: int                      # MQCACF_*_NAMES: Inquire ... Names' reply
    copy_parameters: tuple[int, int]          # Copy's MQCACF_FROM_/TO_*_NAME
    attrs_parameter: int                      # MQIACF_*_ATTRS: Inquire's selector list
    #: MQCMD_INQUIRE_*, MQCMD_INQUIRE_*_NAMES, MQCMD_CREATE_*, _COPY_, _CHANGE_, _DELETE_
    pcf_commands: tuple[int, int, int, int, int, int]
    #: an attribute whose PCF parameter Inquire and Inquire Names select by, and the value
    #: that selects all (a namelist's NLTYPE, MQNT_ALL)
    inquire_filter: tuple[str, int] | None = None
    finish: Callable[[dict[str, Any]], None] | None = None  # checks a DEFINE's or ALTER's values
    state: FeatureState[Table] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "state", FeatureState(self.kind.lower(), lambda qm: {}))

    def table(self, qm: QueueManagerState) -> Table:
        """The queue manager's objects of this kind, in its feature state."""
        return self.state.of(qm)

    def exists(self, qm: QueueManagerState, name: str) -> bool:
        return name in self.table(qm)

    def find(self, qm: QueueManagerState, name: str) -> dict[str, Any] | None:
        return self.table(qm).get(name)

    def restore(self, qm: QueueManagerState, name: str, attrs: dict[str, Any]) -> None:
        """A stored definition, at recovery."""
        self.table(qm)[name] = dict(attrs)

    def defaults(self) -> dict[str, Any]:
        return {key: attribute.default() for key, attribute in self.attributes.items()}

    def matching(self, qm: QueueManagerState, pattern: str) -> list[tuple[str, dict[str, Any]]]:
        """The objects a name, generic with '*' or not, selects, by name."""
        return [(name, attrs) for name, attrs in sorted(self.table(qm).items())
                if fnmatch.fnmatchcase(name, pattern)]

    def apply(self, qm: QueueManagerState, verb: str, name: str, attrs: Mapping[str, Any],
              replace: bool = False, like: str | None = None) -> str:
        """DEFINE, ALTER or DELETE with typed attributes; returns runmqsc's message. Failures
        are ValueErrors with runmqsc's text. `like`: DEFINE ... LIKE(other) copies it."""
        table = self.table(qm)
        if verb == "DELETE":
            _existing(table, name)
            del table[name]
            qm.store.delete_object(self.kind, name)
            return self.messages["DELETE"]
        values = self._start(table, verb, name, replace, like)
        values.update(attrs)
        if self.finish is not None:
            self.finish(values)
        values["ALTDATE"], values["ALTTIME"] = time.strftime("%Y-%m-%d"), time.strftime("%H.%M.%S")
        table[name] = values
        qm.store.save_object(self.kind, name, values)
        return self.messages[verb]

    def _start(self, table: Table, verb: str, name: str, replace: bool,
               like: str | None) -> dict[str, Any]:
        """The values a DEFINE or ALTER starts from."""
        if verb == "ALTER":
            return dict(_existing(table, name))
        if verb != "DEFINE":
            raise ValueError(f"{verb} is not valid for {self.kind} "
                             "(valid: DEFINE, ALTER, DELETE, DISPLAY)")
        if name in table and not replace:
            raise ValueError(f"AMQ8150E: IBM MQ object already exists: {name}; use REPLACE.")
        return dict(_existing(table, like)) if like is not None else self.defaults()

    def display(self, qm: QueueManagerState, pattern: str, flags: frozenset[str]) -> str:
        """DISPLAY as runmqsc shows it: the attributes asked for (all of them with ALL or none
        named), a list as its names joined by commas, an empty value as ( )."""
        found = self.matching(qm, pattern)
        if not found:
            raise ValueError(f"AMQ8147E: IBM MQ object {pattern} not found.")
        wanted = {flag for flag in flags if flag != "ALL"}
        blocks = []
        for name, attrs in found:
            shown = self._shown(attrs)
            items = [f"{self.kind}({name})"] + [
                f"{key}({str(value) or ' '})" for key, value in sorted(shown.items())
                if not wanted or "ALL" in flags or key in wanted]
            blocks.append(render(self.messages["DISPLAY"], items))
        return "\n".join(blocks)

    def _shown(self, attrs: dict[str, Any]) -> dict[str, Any]:
        shown = dict(attrs)
        for key, attribute in self.attributes.items():
            if attribute.listed:
                names = list(attrs.get(key, []))
                shown[key] = ",".join(names)
                if attribute.count is not None:
                    shown[attribute.count[0]] = len(names)
        return shown


def _existing(table: Table, name: str) -> dict[str, Any]:
    found = table.get(name)
    if found is None:
        raise ValueError(f"AMQ8147E: IBM MQ object {name} not found.")
    return found
