"""The MQSC syntax of DEFINE/ALTER/DELETE/DISPLAY PROCESS, checked when a script is parsed
(runs in the queue-manager process).

mqsc.py parses these as it parses any command it does not model (attributes as folded
text) and hands them to `process_command`, which checks the keywords each verb takes and
types the values: APPLICID, ENVRDATA, USERDATA and DESCR by processes.ATTRIBUTES (quoted
text keeps its case, unquoted text is folded to upper case as MQ does), APPLTYPE by
processes.appl_type. processes.py applies them.
"""
from __future__ import annotations

from dataclasses import replace

from spark_mq.embedded.server.core import processes
from spark_mq.embedded.server.core.mqsc_command import (
    MQSCCommand,
    MQSCError,
    check_flags,
    check_named_object,
    unknown_keyword,
)

_ATTRIBUTES = {"DESCR", "APPLICID", "APPLTYPE", "ENVRDATA", "USERDATA"}
#: the keywords each verb takes with a value, and the bare ones
_VALUES = {"DEFINE": _ATTRIBUTES | {"LIKE"}, "ALTER": _ATTRIBUTES, "DELETE": set()}
_FLAGS = {"DEFINE": {"REPLACE", "NOREPLACE"}, "ALTER": set(), "DELETE": set()}


def process_command(command: MQSCCommand) -> MQSCCommand:
    """The command with its attributes checked and typed, or MQSCError."""
    verb = command.verb
    check_named_object(command, "MY.PROCESS")
    if verb == "DISPLAY":
        return command  # bare keywords are the attributes asked for
    typed: dict[str, object] = {}
    for key, value in command.attributes.items():
        if key not in _VALUES[verb]:
            raise unknown_keyword(command, key, _VALUES[verb])
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
    check_flags(command, _FLAGS[verb], _VALUES[verb])
    return replace(command, attributes=typed)

