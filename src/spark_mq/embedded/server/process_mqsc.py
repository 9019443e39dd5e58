"""The MQSC syntax of DEFINE/ALTER/DELETE/DISPLAY PROCESS, checked when a script is parsed
(runs in the queue-manager process).

mqsc.py parses these as it parses any command it does not model (attributes as folded
text) and hands them to `process_command`, which checks the keywords each verb takes and
types the values: APPLICID, ENVRDATA, USERDATA and DESCR by processes.ATTRIBUTES (quoted
text keeps its case, unquoted text is folded to upper case as MQ does), APPLTYPE by
processes.appl_type. processes.py applies them.
"""
from __future__ import annotations

import re
from dataclasses import replace

from spark_mq.embedded.server import processes
from spark_mq.embedded.server.mqsc_command import MQSCCommand, MQSCError

_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")
_GENERIC = re.compile(r"[A-Za-z0-9._/%]{0,47}\*")
_ATTRIBUTES = {"DESCR", "APPLICID", "APPLTYPE", "ENVRDATA", "USERDATA"}
#: the keywords each verb takes with a value, and the bare ones
_VALUES = {"DEFINE": _ATTRIBUTES | {"LIKE"}, "ALTER": _ATTRIBUTES, "DELETE": set()}
_FLAGS = {"DEFINE": {"REPLACE", "NOREPLACE"}, "ALTER": set(), "DELETE": set()}


def process_command(command: MQSCCommand) -> MQSCCommand:
    """The command with its attributes checked and typed, or MQSCError."""
    verb, name = command.verb, command.name
    if verb not in ("DEFINE", "ALTER", "DELETE", "DISPLAY"):
        raise MQSCError(command.line, f"{verb} PROCESS is not valid "
                                      "(valid: DEFINE, ALTER, DELETE, DISPLAY)")
    if not name:
        raise MQSCError(command.line, f"{verb} PROCESS needs a name, e.g. PROCESS(MY.PROCESS)")
    pattern = _GENERIC if verb == "DISPLAY" else _NAME
    if not (pattern.fullmatch(name) or (verb == "DISPLAY" and _NAME.fullmatch(name))):
        raise MQSCError(command.line, f"process name '{name}' is not valid (valid: 1 to 48 of "
                                      "A-Z a-z 0-9 . / _ %)")
    if verb == "DISPLAY":
        return command  # bare keywords are the attributes asked for
    typed: dict[str, object] = {}
    for key, value in command.attributes.items():
        if key not in _VALUES[verb]:
            raise _unknown(command, key, _VALUES[verb])
        text = str(value)
        try:
            if key == "APPLTYPE":
                typed[key] = processes.appl_type(text)
            elif key == "LIKE":
                typed[key] = text
            else:
                spec = processes.ATTRIBUTES[key]
                try:
                    typed[key] = spec.coerce(text, quoted=True)  # the parser folded unquoted text
                except ValueError as err:
                    raise ValueError(f"{err} (valid: {spec.describe()})") from None
        except ValueError as err:
            raise MQSCError(command.line, str(err), key) from None
    for flag in sorted(command.flags - _FLAGS[verb]):
        if flag in _VALUES[verb]:
            raise MQSCError(command.line, f"needs a value in parentheses, e.g. {flag}(...)", flag)
        raise _unknown(command, flag, _FLAGS[verb] | _VALUES[verb])
    if {"REPLACE", "NOREPLACE"} <= command.flags:
        raise MQSCError(command.line, "REPLACE and NOREPLACE cannot both be given")
    return replace(command, attributes=typed)


def _unknown(command: MQSCCommand, keyword: str, valid: set[str]) -> MQSCError:
    shown = ", ".join(sorted(valid)) or "none"
    return MQSCError(command.line, f"unknown for {command.verb} PROCESS (valid: {shown})", keyword)
