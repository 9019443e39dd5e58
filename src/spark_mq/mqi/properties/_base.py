"""The value types every part of the message-property rules shares.

`Property` is one message property as the embedded queue manager keeps it, `PropertyValue`
the Python types its value can have, and `PropertyError` how a property call fails (with
the MQRC that MQSETMP, MQINQMP, MQPUT or MQGET would return).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

from spark_mq.mqi.constants import reason_name

#: A property value as stored: bool, int, float, str, bytes, or None for MQTYPE_NULL.
PropertyValue: TypeAlias = bool | int | float | str | bytes | None


@dataclass(frozen=True)
class Property:
    """One message property: canonical name, CMQC.MQTYPE_* type and the value of that type."""

    name: str
    type: int
    # The Python type follows `type` (str for MQTYPE_STRING, ...), so code that has checked
    # `type` casts the value instead of testing it again.
    value: PropertyValue


def show(value: Any) -> str:
    """repr() for error messages, cut short: values can be megabytes long."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


class PropertyError(Exception):
    """A property call failed with MQ reason code `reason`."""

    def __init__(self, reason: int, message: str) -> None:
        super().__init__(f"{reason_name(reason)} ({reason}): {message}")
        self.reason = reason
