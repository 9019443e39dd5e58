"""What the MQSC parser (mqsc.py) gives: a parsed command, or the error that stops a script
(runs in the queue-manager process).

Apart from the parser because the modules the parser hands some commands to, to check and
type their attributes (admin/named_object_mqsc.py, admin/security/mqsc_commands.py), need
these too, and the checks the objects kept as a name and attributes share.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")
_GENERIC = re.compile(r"[A-Za-z0-9._/%]{0,47}\*")


class MQSCError(Exception):
    """A script error; ``line`` is 1-based, ``attribute`` the offending keyword if any."""

    def __init__(self, line: int, message: str, attribute: str | None = None) -> None:
        self.line = line
        self.attribute = attribute
        self.message = message
        where = f"attribute {attribute}: " if attribute else ""
        super().__init__(f"MQSC line {line}: {where}{message}")


@dataclass(frozen=True)
class MQSCCommand:
    verb: str                       # DEFINE, ALTER, DELETE, CLEAR, DISPLAY, SET, END, ...
    object_type: str                # QLOCAL, QALIAS, QUEUE (DISPLAY only), QMGR, CHANNEL, ...
    name: str                       # object name, '' when the command has none
    attributes: dict[str, object] = field(default_factory=dict)
    flags: frozenset[str] = frozenset()
    line: int = 0


def check_named_object(command: MQSCCommand, example: str) -> None:
    """DEFINE, ALTER, DELETE or DISPLAY of an object kept as a name and attributes (NAMELIST,
    PROCESS): the verb, and a name (generic for DISPLAY); MQSCError otherwise."""
    verb, name, kind = command.verb, command.name, command.object_type
    if verb not in ("DEFINE", "ALTER", "DELETE", "DISPLAY"):
        raise MQSCError(command.line, f"{verb} {kind} is not valid "
                                      "(valid: DEFINE, ALTER, DELETE, DISPLAY)")
    if not name:
        raise MQSCError(command.line, f"{verb} {kind} needs a name, e.g. {kind}({example})")
    if not (_NAME.fullmatch(name) or (verb == "DISPLAY" and _GENERIC.fullmatch(name))):
        raise MQSCError(command.line, f"{kind.lower()} name '{name}' is not valid (valid: 1 to "
                                      "48 of A-Z a-z 0-9 . / _ %)")


def check_flags(command: MQSCCommand, flags: set[str], values: set[str]) -> None:
    """The bare keywords of a command that takes `flags` bare and `values` with a value."""
    for flag in sorted(command.flags - flags):
        if flag in values:
            raise MQSCError(command.line, f"needs a value in parentheses, e.g. {flag}(...)", flag)
        raise unknown_keyword(command, flag, flags | values)
    if {"REPLACE", "NOREPLACE"} <= command.flags:
        raise MQSCError(command.line, "REPLACE and NOREPLACE cannot both be given")


def unknown_keyword(command: MQSCCommand, keyword: str, valid: set[str]) -> MQSCError:
    shown = ", ".join(sorted(valid)) or "none"
    return MQSCError(command.line, f"unknown for {command.verb} {command.object_type} "
                                   f"(valid: {shown})", keyword)
