"""What the MQSC parser (mqsc.py) gives: a parsed command, or the error that stops a script
(runs in the queue-manager process).

Apart from the parser because the modules the parser hands some commands to, to check and
type their attributes (namelist_mqsc.py, security/mqsc_commands.py), need these too.
"""
from __future__ import annotations

from dataclasses import dataclass, field


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
