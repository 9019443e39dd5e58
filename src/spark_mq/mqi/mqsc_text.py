"""MQSC text split into commands, as runmqsc reads a script, for clients that send one command
at a time (the command server's MQCMD_ESCAPE carries exactly one).

Follows the line rules of IBM's "MQSC input file syntax" that the queue manager's parser
(embedded/server/admin/mqsc.py) follows too: `*` starts a comment line, blank lines vanish, a
trailing `+` continues from the next line's first non-blank character and `-` from its first
character, `;` outside quotes ends a command, END ends the script. Only the structure is
checked here (quotes closed, parentheses balanced), so that a script with a broken command
is refused before any of it runs; the command's grammar is the queue manager's to check.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MQSCText:
    """One command: its text on one line, and the script line it starts on (1-based)."""
    text: str
    line: int


class MQSCSyntaxError(ValueError):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"MQSC line {line}: {message}")
        self.line = line


def split_mqsc(script: str) -> list[MQSCText]:
    """The commands of a script, up to END; MQSCSyntaxError for an unclosed quote or
    unbalanced parentheses anywhere in it."""
    commands: list[MQSCText] = []
    for text, line in _joined(script):
        for part in _statements(text, line):
            if part.split(None, 1)[0].upper() == "END":
                return commands
            commands.append(MQSCText(part, line))
    return commands


def _joined(script: str) -> list[tuple[str, int]]:
    """Commands with their continuation lines joined, with the line each starts on."""
    joined: list[tuple[str, int]] = []
    current: list[str] = []
    first = 0
    strip_leading = False
    for number, raw in enumerate(script.splitlines(), start=1):
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("*"):
            continue
        if strip_leading:
            line = line.lstrip()
        continuation = line[-1] if line[-1] in "+-" else ""
        if continuation:
            line = line[:-1]
        if not current:
            first = number
        current.append(line)
        strip_leading = continuation == "+"
        if not continuation:
            joined.append(("".join(current), first))
            current = []
    if current:
        joined.append(("".join(current), first))
    return joined


def _statements(text: str, line: int) -> list[str]:
    """`;`-separated commands of one joined command, each checked for quotes and parentheses."""
    parts: list[str] = []
    start = depth = 0
    quoted = False
    index = 0
    while index < len(text):
        char = text[index]
        if quoted:
            if char == "'":
                if text[index + 1:index + 2] == "'":   # '' is a quote inside quotes
                    index += 1
                else:
                    quoted = False
        elif char == "'":
            quoted = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise MQSCSyntaxError(line, "')' without '('")
        elif char == ";":
            if depth:
                raise MQSCSyntaxError(line, "';' inside parentheses")
            parts.append(text[start:index])
            start = index + 1
        index += 1
    if quoted:
        raise MQSCSyntaxError(line, "unterminated quoted string")
    if depth:
        raise MQSCSyntaxError(line, "'(' without ')'")
    parts.append(text[start:])
    return [part.strip() for part in parts if part.strip()]
