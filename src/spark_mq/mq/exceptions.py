"""The connector's errors, in one place: each names what was wrong and what would be right.

`MQOptionError` is a bad option or column (raised before anything reaches MQ);
`MQConnectorError` is an MQ call that failed, carrying the reason code, its name and a hint
(`describe` makes one from ibmmq's MQMIError; spark_mq.mq.refusals the hints of 2035).

A hint names the connector's options ('connName', 'queueManager'); a tool with flags of its
own passes `words` (option -> how the tool names it, e.g. the shell's --conn-name) to
`describe`, so the same hints speak the vocabulary of the tool in hand.

`summary_first` is for errors on their way out to Spark: Spark shows a Python worker's
failure as Python formats it, after its own prefix, on the same first line; and Python
formats a chain of exceptions from its root cause, each behind "Traceback (most recent call
last):". So an error leaves with a copy of itself, without traceback, as the root of its
chain: its one line (reason, object, queue manager, hint) is then the first line the user
sees, and the tracebacks, the MQMIError among them, follow. (In Spark's Python workers the
error leaves as that line alone, without the chain: spark_mq.errors.)
"""
from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from spark_mq.mqi.constants import CMQC, reason_name


class MQOptionError(ValueError):
    """A data source option is missing or has a bad value."""

    def __init__(self, option: str, value: object, valid: str) -> None:
        self.option, self.value, self.valid = option, value, valid
        shown = "(missing)" if value is None else repr(value)
        super().__init__(f"option '{option}': invalid value {shown}; valid: {valid}")

    def __reduce__(self) -> tuple[Any, ...]:   # Spark ships exceptions between processes
        return (self.__class__, (self.option, self.value, self.valid))


class UnknownOptionError(MQOptionError):
    """An option name the data source does not know (often a misspelt one)."""

    def __init__(self, option: str, use: str, suggestion: str | None,
                 known: tuple[str, ...]) -> None:
        self.option, self.value, self.valid = option, None, ", ".join(known)
        self.use, self.suggestion, self.known = use, suggestion, known
        hint = (f"did you mean '{suggestion}'?" if suggestion
                else f"the options for {use} are: {', '.join(known)}")
        ValueError.__init__(self, f"unknown option '{option}' for {use}; {hint}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (self.__class__, (self.option, self.use, self.suggestion, self.known))


class MQSchemaError(MQOptionError):
    """A column of a user schema that the reader cannot fill: its type, or its name."""

    def __init__(self, column: str, kind: str, valid: str) -> None:
        self.option, self.value, self.valid = f"schema column {column}", kind, valid
        self.column = column
        ValueError.__init__(self, f"schema column '{column}': type {kind} is not one the reader "
                                  f"can give it; valid: {valid}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (self.__class__, (self.column, self.value, self.valid))


class MQConnectorError(RuntimeError):
    """An MQ call failed: carries the reason code, its name and a hint."""

    def __init__(self, message: str, reason: int | None = None,
                 reason_name: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.reason_name = reason_name

    def at(self, queue_manager: str, conn_name: str | None) -> MQConnectorError:
        """Name the queue manager in front of the message, unless the message names it."""
        message = str(self)
        if f"queue manager {queue_manager}" not in message:
            where = f" at {conn_name}" if conn_name else ""
            self.args = (f"queue manager {queue_manager}{where}: {message}",)
        return self


#: how a queue manager that is not running gets started (the embedded one; IBM MQ's strmqm)
_START = ("start it (the embedded one: spark-mq-qmgr start --data-dir DIR --port PORT; IBM MQ: "
          "strmqm QMNAME)")

#: what a person can do about the reasons users meet first
HINTS: dict[int, str] = {
    # what a 2035 means depends on the call: spark_mq.mq.refusals makes those hints
    CMQC.MQRC_NOT_AUTHORIZED: "the queue manager refused the connection or the user lacks "
                              "authority: check 'user' and 'password', the channel's CHLAUTH "
                              "rules and the user's authority records",
    CMQC.MQRC_UNKNOWN_OBJECT_NAME: "no such queue on this queue manager: check the queue name "
                                   "(MQ names are case-sensitive)",
    CMQC.MQRC_Q_MGR_NOT_AVAILABLE: "no queue manager answers at 'connName' (host(port)): it "
                                   "is not running or is stopping, or what listens there is "
                                   f"not one; {_START}, or correct 'connName'",
    CMQC.MQRC_Q_MGR_NAME_ERROR: "the queue manager name does not match the one listening at "
                                "'connName': check 'queueManager'",
    CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR: "no route to that queue manager (option "
                                    "'targetQueueManager' or column 'queue_manager'): the "
                                    "connected queue manager needs a transmission queue of "
                                    "that name, a queue-manager alias or DEFXMITQ",
    CMQC.MQRC_HOST_NOT_AVAILABLE: "nothing listens at 'connName' (host(port)): the queue "
                                  "manager is not running, or listens on another port or "
                                  f"host; {_START}, or correct 'connName'",
    CMQC.MQRC_UNKNOWN_CHANNEL_NAME: "the channel is not known to the queue manager: check 'channel'",
    CMQC.MQRC_SSL_INITIALIZATION_ERROR: "TLS could not be set up: check 'cipherSpec' and "
                                        "'keyRepository'",
    CMQC.MQRC_MSG_TOO_BIG_FOR_Q: "the message is larger than the queue's MAXMSGL",
    CMQC.MQRC_Q_FULL: "the queue is full (MAXDEPTH)",
    CMQC.MQRC_CONNECTION_BROKEN: "the connection to the queue manager broke",
    CMQC.MQRC_SYNCPOINT_LIMIT_REACHED: "too many messages in one unit of work (MAXUMSGS): lower "
                                       "the batch size",
}


#: reasons after which the connection is gone and its unit of work backed out (or, for a
#: failed MQCMIT, its outcome unknown): a new connection may succeed where this one failed
CONNECTION_LOST: frozenset[int] = frozenset({
    CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_HOBJ_ERROR, CMQC.MQRC_HCONN_ERROR,
    CMQC.MQRC_Q_MGR_NOT_AVAILABLE, CMQC.MQRC_Q_MGR_QUIESCING, CMQC.MQRC_Q_MGR_STOPPING,
    CMQC.MQRC_CONNECTION_QUIESCING, CMQC.MQRC_CONNECTION_STOPPING,
    CMQC.MQRC_HOST_NOT_AVAILABLE})


def connection_lost(exc: BaseException) -> bool:
    return getattr(exc, "reason", None) in CONNECTION_LOST


_OPTION_NAME = re.compile(r"'(\w+)'")


def in_words(hint: str, words: Mapping[str, str] | None) -> str:
    """`hint` with each quoted option name that `words` knows ('connName') as `words` says
    it (--conn-name); the connector's own names without `words`."""
    if not words:
        return hint
    return _OPTION_NAME.sub(lambda match: words.get(match.group(1), match.group(0)), hint)


def describe(exc: Exception, action: str, hint: str | None = None,
             words: Mapping[str, str] | None = None) -> MQConnectorError:
    """An MQ failure as a connector error: reason code number, name and a hint (`hint`, else
    the reason's usual one), its option names in `words` (see the module docstring)."""
    reason = getattr(exc, "reason", None)
    comp = getattr(exc, "comp", None)
    if reason is None:
        return MQConnectorError(f"{action} failed: {exc}")
    name = reason_name(reason)
    hint = hint or HINTS.get(reason)
    hint = in_words(hint, words) if hint else hint
    message = f"{action} failed: MQ reason {reason} {name} (completion code {comp})"
    if hint:
        message += f": {hint}"
    return MQConnectorError(message, reason, name)


def summary_first(exc: BaseException) -> BaseException:
    """`exc`, with a copy of itself (no traceback, no cause) as the root of its chain of
    causes, so that its message is the first line wherever the chain is printed (see the
    module docstring). Done once: a chain that starts with a summary keeps it."""
    root, seen = exc, {id(exc)}
    while True:
        below = root.__cause__ if root.__cause__ is not None else (
            None if root.__suppress_context__ else root.__context__)
        if below is None or id(below) in seen:
            break
        seen.add(id(below))
        root = below
    if getattr(root, "is_summary", False):
        return exc
    try:
        summary = copy.copy(exc)
    except Exception:  # noqa: BLE001 - an exception that cannot be copied goes out as it is
        return exc
    summary.__traceback__ = summary.__cause__ = summary.__context__ = None
    summary.is_summary = True  # type: ignore[attr-defined]
    root.__cause__ = summary
    return exc
