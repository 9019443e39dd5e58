"""SelectorError, the reason codes it carries, and the constructor for syntax errors."""
from __future__ import annotations

from spark_mq.mqi.constants import CMQC

_SYNTAX: int = CMQC.MQRC_SELECTOR_SYNTAX_ERROR
ALWAYS_FALSE: int = CMQC.MQRC_SELECTOR_ALWAYS_FALSE
STRING_ERROR: int = CMQC.MQRC_SELECTION_STRING_ERROR


class SelectorError(Exception):
    """A selection string MQ would refuse: `reason` is the MQRC, `position` a 0-based offset."""

    def __init__(self, message: str, reason: int, position: int) -> None:
        super().__init__(message)
        self.reason = reason
        self.position = position


def syntax_error(position: int, detail: str) -> SelectorError:
    """MQRC_SELECTOR_SYNTAX_ERROR at `position`: anything malformed, invalid names included."""
    return SelectorError(f"selector syntax error at position {position}: {detail}",
                         _SYNTAX, position)
