"""Errors the connector raises: each names what was wrong and what would be right."""
from __future__ import annotations


class MQOptionError(ValueError):
    """A data source option is missing or has a bad value."""

    def __init__(self, option: str, value: object, valid: str):
        self.option, self.value, self.valid = option, value, valid
        shown = "(missing)" if value is None else repr(value)
        super().__init__(f"option '{option}': invalid value {shown}; valid: {valid}")


class MQConnectorError(RuntimeError):
    """An MQ call failed: carries the reason code, its name and a hint."""

    def __init__(self, message: str, reason: int | None = None, reason_name: str | None = None):
        super().__init__(message)
        self.reason = reason
        self.reason_name = reason_name
