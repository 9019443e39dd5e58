"""The jobs' errors: JobError for a problem the user can fix, and `explain`, which finds the
line worth printing in any exception, even one Spark wrapped in its own."""
from __future__ import annotations

import re


class JobError(Exception):
    """A problem the user can fix; printed without a traceback."""


_OWN_ERRORS = ("MQOptionError", "UnknownOptionError", "MQSchemaError", "MQConnectorError",
               "AsyncPutError", "RowValueError", "ColumnError",
               "MarkerAheadError", "JobError")
_CONNECTOR_ERROR = re.compile(rf"({'|'.join(_OWN_ERRORS)})[:]\s*(.+)")


def explain(exc: BaseException) -> str:
    """The line a user needs from an exception, even when Spark wrapped it in its own."""
    text = str(exc)
    match = _CONNECTOR_ERROR.search(text)
    if match:
        return match.group(2).strip()
    if type(exc).__name__ in _OWN_ERRORS:
        return text
    lines = [line for line in text.splitlines() if line.strip()]
    head = "\n".join(lines[:12])
    return f"{type(exc).__name__}: {head}"
