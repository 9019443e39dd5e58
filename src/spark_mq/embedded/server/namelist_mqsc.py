"""The MQSC syntax of DEFINE/ALTER/DELETE/DISPLAY NAMELIST, checked when a script is parsed
(runs in the queue-manager process).

mqsc.py parses these as it parses any command it does not model (attributes as folded
text) and hands them to `namelist_command`, which checks the keywords each verb takes and
types the values: NAMES becomes a list of names (unquoted ones upper case, quoted ones as
written), DESCR and NLTYPE are checked by namelist.ATTRIBUTES. namelist.py applies them.
"""
from __future__ import annotations

import re
from dataclasses import replace

from spark_mq.embedded.server import namelist
from spark_mq.embedded.server.mqsc_command import MQSCCommand, MQSCError

_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")
_GENERIC = re.compile(r"[A-Za-z0-9._/%]{0,47}\*")
_LIST_ITEM = re.compile(r"'((?:[^']|'')*)'|([^\s,']+)")
#: the keywords each verb takes with a value, and the bare ones
_VALUES = {"DEFINE": {"DESCR", "NAMES", "NLTYPE", "LIKE"}, "ALTER": {"DESCR", "NAMES", "NLTYPE"},
           "DELETE": set()}
_FLAGS = {"DEFINE": {"REPLACE", "NOREPLACE"}, "ALTER": set(), "DELETE": set()}


def split_names(text: str) -> list[str]:
    """NAMES(a, 'b', c) as the parser keeps it, as a list; NAMES() is the empty list."""
    return [bare or quoted.replace("''", "'") for quoted, bare in _LIST_ITEM.findall(text)]


def namelist_command(command: MQSCCommand) -> MQSCCommand:
    """The command with its attributes checked and typed, or MQSCError."""
    verb, name = command.verb, command.name
    if verb not in ("DEFINE", "ALTER", "DELETE", "DISPLAY"):
        raise MQSCError(command.line, f"{verb} NAMELIST is not valid "
                                      "(valid: DEFINE, ALTER, DELETE, DISPLAY)")
    if not name:
        raise MQSCError(command.line, f"{verb} NAMELIST needs a name, e.g. NAMELIST(MY.LIST)")
    pattern = _GENERIC if verb == "DISPLAY" else _NAME
    if not (pattern.fullmatch(name) or (verb == "DISPLAY" and _NAME.fullmatch(name))):
        raise MQSCError(command.line, f"namelist name '{name}' is not valid (valid: 1 to 48 of "
                                      "A-Z a-z 0-9 . / _ %)")
    if verb == "DISPLAY":
        return command  # bare keywords are the attributes asked for
    typed: dict[str, object] = {}
    for key, value in command.attributes.items():
        if key not in _VALUES[verb]:
            raise _unknown(command, key, _VALUES[verb])
        text = str(value)
        if key == "NAMES":
            try:
                typed[key] = namelist.check_names(split_names(text))
            except ValueError as err:
                raise MQSCError(command.line, str(err), key) from None
        elif key == "LIKE":
            typed[key] = text
        else:
            spec = namelist.ATTRIBUTES[key]
            if key == "NLTYPE":
                text = namelist.NLTYPE_SYNONYMS.get(text, text)
            try:
                typed[key] = spec.coerce(text, quoted=True)
            except ValueError as err:
                raise MQSCError(command.line, f"{err} (valid: {spec.describe()})", key) from None
    for flag in command.flags - _FLAGS[verb]:
        raise _unknown(command, flag, _FLAGS[verb] | _VALUES[verb])
    if {"REPLACE", "NOREPLACE"} <= command.flags:
        raise MQSCError(command.line, "REPLACE and NOREPLACE cannot both be given")
    return replace(command, attributes=typed)


def _unknown(command: MQSCCommand, keyword: str, valid: set[str]) -> MQSCError:
    shown = ", ".join(sorted(valid)) or "none"
    return MQSCError(command.line, f"unknown for {command.verb} NAMELIST (valid: {shown})", keyword)
