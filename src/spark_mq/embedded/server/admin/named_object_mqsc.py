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

from spark_mq.embedded.server.core import namelist
from spark_mq.embedded.server.core.mqsc_command import (
    MQSCCommand,
    MQSCError,
    check_flags,
    check_named_object,
    unknown_keyword,
)

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
    verb = command.verb
    check_named_object(command, "MY.LIST")
    if verb == "DISPLAY":
        return command  # bare keywords are the attributes asked for
    typed: dict[str, object] = {}
    for key, value in command.attributes.items():
        if key not in _VALUES[verb]:
            raise unknown_keyword(command, key, _VALUES[verb])
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
    check_flags(command, _FLAGS[verb], _VALUES[verb])
    return replace(command, attributes=typed)

