"""NAMELIST objects: named lists of up to 256 names (runs in the queue-manager process, under
its lock).

A namelist only holds names; the queue manager itself reads none of them (cluster and
AUTHINFO lists are for features the embedded queue manager does not have), but applications
and IBM's tools define, change, inquire (PCF, MQINQ) and delete them. Definitions are stored
with the others, kind "NAMELIST", and come back through `restore`. MQSC (admin/mqsc_apply.py via
`apply`) and PCF (admin/command_server/namelist_commands.py) change them through `apply`, so both
validate alike.
"""
from __future__ import annotations

import fnmatch
from typing import Any

from spark_mq.embedded.server.core.mqsc_attributes import AttributeSpec
from spark_mq.embedded.server.core.named_objects import change
from spark_mq.embedded.server.core.state import FeatureState, QueueManagerState

#: the store kind of a namelist definition
KIND = "NAMELIST"
#: the most names one namelist holds, on every platform
MAX_NAMES = 256
NAME_LENGTH = 48
_NAMELIST = frozenset({KIND})

#: the attributes a namelist has besides NAMES (a list, checked by `check_names`)
ATTRIBUTES: dict[str, AttributeSpec] = {
    "DESCR": AttributeSpec("str", "", _NAMELIST, max_length=64),
    # what the names are; MQ uses it on z/OS only, other platforms keep NONE
    "NLTYPE": AttributeSpec("enum", "NONE", _NAMELIST,
                            choices=("NONE", "QUEUE", "CLUSTER", "AUTHINFO")),
}
#: MQSC's short form of an NLTYPE value
NLTYPE_SYNONYMS = {"Q": "QUEUE"}

#: namelist name -> attributes: DESCR, NLTYPE, NAMES (a list of str), ALTDATE, ALTTIME
Namelists = dict[str, dict[str, Any]]
_NAMELISTS: FeatureState[Namelists] = FeatureState("namelists", lambda qm: {})


def namelists_of(qm: QueueManagerState) -> Namelists:
    """The queue manager's namelists, in its feature state (state.FeatureState), as
    security's are: the verbs' shared state need not know about them."""
    return _NAMELISTS.of(qm)


def exists(qm: QueueManagerState, name: str) -> bool:
    return name in namelists_of(qm)


def restore(qm: QueueManagerState, name: str, attrs: dict[str, Any]) -> None:
    """A stored definition, at recovery."""
    namelists_of(qm)[name] = dict(attrs)


def check_names(names: list[str]) -> list[str]:
    """NAMES as MQ accepts them: at most 256, each at most 48 characters; else ValueError."""
    if len(names) > MAX_NAMES:
        raise ValueError(f"{len(names)} names; a namelist holds at most {MAX_NAMES}")
    for name in names:
        if len(name) > NAME_LENGTH:
            raise ValueError(f"name '{name}' is longer than {NAME_LENGTH} characters")
    return names


def default_attributes() -> dict[str, Any]:
    values: dict[str, Any] = {key: spec.default for key, spec in ATTRIBUTES.items()}
    values["NAMES"] = []
    return values


def apply(qm: QueueManagerState, verb: str, name: str, attrs: dict[str, Any],
          replace: bool = False, like: str | None = None) -> str:
    """DEFINE, ALTER or DELETE NAMELIST with typed attributes; returns runmqsc's message.
    Failures are ValueErrors with runmqsc's text. `like`: DEFINE ... LIKE(other) copies it."""
    return change(qm, namelists_of(qm), KIND, verb, name, attrs, _MESSAGES, default_attributes,
                  replace, like, _check_values)


_MESSAGES = {"DEFINE": "IBM MQ namelist created.", "ALTER": "IBM MQ namelist changed.",
             "DELETE": "IBM MQ namelist deleted."}


def _check_values(values: dict[str, Any]) -> None:
    values["NAMES"] = check_names([str(n) for n in values.get("NAMES", [])])


def matching(qm: QueueManagerState, pattern: str) -> list[tuple[str, dict[str, Any]]]:
    """The namelists a name, generic with '*' or not, selects, by name."""
    return [(name, attrs) for name, attrs in sorted(namelists_of(qm).items())
            if fnmatch.fnmatchcase(name, pattern)]


def display(qm: QueueManagerState, pattern: str, flags: frozenset[str]) -> str:
    """DISPLAY NAMELIST as runmqsc shows it: NAMES(a,b) and NAMCOUNT; the attributes asked
    for (all of them with ALL or none named)."""
    found = matching(qm, pattern)
    if not found:
        raise ValueError(f"AMQ8147E: IBM MQ object {pattern} not found.")
    wanted = {flag for flag in flags if flag != "ALL"}
    blocks = []
    for name, attrs in found:
        shown = {"NAMCOUNT": len(attrs.get("NAMES", [])), "NAMES": ",".join(attrs.get("NAMES", [])),
                 **{k: v for k, v in attrs.items() if k != "NAMES"}}
        items = [f"NAMELIST({name})"] + [
            f"{key}({value if str(value) else ' '})" for key, value in sorted(shown.items())
            if not wanted or "ALL" in flags or key in wanted]
        blocks.append("AMQ8550I: Display namelist details.\n"
                      + "\n".join("   " + item for item in items))
    return "\n".join(blocks)
