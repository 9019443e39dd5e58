"""How runmqsc lays out what DISPLAY shows (runs in the queue-manager process): the
message line, then the attributes in two 40-character columns indented by three blanks."""
from __future__ import annotations

_COLUMN = 40


def render(header: str, items: list[str]) -> str:
    """`header`, then `items` (KEYWORD(value) texts) two to a line where they fit."""
    lines = [header]
    pending = list(items)
    while pending:
        left = pending.pop(0)
        if pending and len(left) < _COLUMN:
            lines.append("   " + left.ljust(_COLUMN) + pending.pop(0))
        else:
            lines.append("   " + left)
    return "\n".join(lines)
