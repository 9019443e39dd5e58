"""The MQSC syntax of DEFINE/ALTER/DELETE/DISPLAY of a named object kind (NAMELIST, PROCESS:
core/named_kinds.py), checked when a script is parsed (runs in the queue-manager process).

mqsc.py parses these as it parses any command it does not model (attributes as folded
text) and hands them to `named_object_command`, which checks the keywords each verb takes
and types the values by the kind's description (NamedAttribute.from_mqsc: quoted text keeps
its case, unquoted text was folded to upper case, as MQ does; a namelist's NAMES becomes a
list). The kind's `apply` applies them.
"""
from __future__ import annotations

from dataclasses import replace

from spark_mq.embedded.server.core.mqsc_command import (
    MQSCCommand,
    MQSCError,
    check_flags,
    check_named_object,
    unknown_keyword,
)
from spark_mq.embedded.server.core.named_kinds import KINDS

_FLAGS = {"DEFINE": {"REPLACE", "NOREPLACE"}, "ALTER": set(), "DELETE": set()}


def named_object_command(command: MQSCCommand) -> MQSCCommand:
    """The command with its attributes checked and typed, or MQSCError."""
    kind = KINDS[command.object_type]
    verb = command.verb
    check_named_object(command, kind.example)
    if verb == "DISPLAY":
        return command  # bare keywords are the attributes asked for
    keywords = {"DEFINE": set(kind.attributes) | {"LIKE"}, "ALTER": set(kind.attributes),
                "DELETE": set()}[verb]
    typed: dict[str, object] = {}
    for key, value in command.attributes.items():
        if key not in keywords:
            raise unknown_keyword(command, key, keywords)
        if key == "LIKE":
            typed[key] = str(value)
            continue
        try:
            typed[key] = kind.attributes[key].from_mqsc(str(value))
        except ValueError as err:
            raise MQSCError(command.line, str(err), key) from None
    check_flags(command, _FLAGS[verb], keywords)
    return replace(command, attributes=typed)
