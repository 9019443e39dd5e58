"""Rows -> MQ messages: which column sets which MQMD field, and which become properties
(the columns themselves are in the column table, spark_mq.mq.column_table).

Columns (the reader's names): `payload` (binary or string, required) is the message body;
`queue` routes the row to that queue (when no `queue` option is set: the option wins, as
Spark's Kafka sink's `topic` option does over its topic column); `topic` publishes the row
on that topic string instead (when neither a `queue` nor a `topic` option is set; a row
names one of the two); `correlation_id`,
`group_id` (binary, or string taken as UTF-8, at most 24 bytes), `reply_to_queue`,
`reply_to_qmgr` (string), `priority` (0-9, -1 = the queue's default), `persistent` (boolean,
overrides the `persistence` option), `expiry` (tenths of a second, -1 = unlimited),
`msg_type`, `format` (up to 8 characters), `ccsid`, `encoding`, `feedback` (integers) set
MQMD fields; `properties` (map<string,string>) adds a string property per entry. Every other
column becomes a message property of its own name, typed from its Spark type (string,
boolean, byte/short/integer/ long, float/double, binary; timestamp as INT64 epoch
milliseconds, the JMS convention the reader reads back); a null value gives a null property.
A null MQMD column leaves the field at its default.

Message context (MQ's identity and origin fields): `user_id`, `accounting_token`,
`appl_identity_data` set the identity context (the queue is opened with
MQOO_SET_IDENTITY_CONTEXT and each put uses MQPMO_SET_IDENTITY_CONTEXT); any of
`put_appl_name`, `put_appl_type`, `appl_origin_data` as well sets all context
(MQOO/MQPMO_SET_ALL_CONTEXT; the put date and time are then the time of the put). Without
those columns, or with the writer option context=none, the queue manager fills the
context itself. On IBM MQ setting context needs the setid/setall authority on the queue.

The reader's columns that describe a message as it was delivered (message_id,
msg_seq_number, msg_flags, put_timestamp, backout_count) are ignored, so that a DataFrame
read from one queue can be written to another as it is: the queue manager sets those
fields on every put. They are names the reader keeps for itself, so they could not be
read back as property columns either.
"""
from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from spark_mq.mq.column_table import BY_NAME, with_role
from spark_mq.mq.properties import SPARK_TO_MQTYPE
from spark_mq.mqi.properties import PropertyError, validate_name

PAYLOAD = "payload"
#: MQMD columns (and `queue`, `properties`) -> the Spark types each accepts
MD_COLUMNS: dict[str, tuple[str, ...]] = {
    name: c.write_types for name, c in with_role("route", "md", "properties").items()}
#: context columns -> (MQMD field, accepted Spark types, field length in bytes or None)
IDENTITY_COLUMNS: dict[str, tuple[str, tuple[str, ...], int | None]] = {
    name: (c.md_field or "", c.write_types, c.length) for name, c in with_role("identity").items()}
ORIGIN_COLUMNS: dict[str, tuple[str, tuple[str, ...], int | None]] = {
    name: (c.md_field or "", c.write_types, c.length) for name, c in with_role("origin").items()}
CONTEXT_COLUMNS = {**IDENTITY_COLUMNS, **ORIGIN_COLUMNS}
#: the reader's delivery-only columns: the queue manager sets these fields on every put
IGNORED_COLUMNS = frozenset(with_role("delivered"))
_TIMESTAMP = "timestamp"
_ID_LENGTH = BY_NAME["correlation_id"].length or 24
_NAME_LENGTH = BY_NAME["reply_to_queue"].length or 48
_FORMAT_LENGTH = BY_NAME["format"].length or 8


class ColumnError(ValueError):
    """A column that cannot be written: names the column, its type and what would work."""


class RowValueError(ValueError):
    """A value in one row that cannot go into its MQMD field."""


@dataclass(frozen=True)
class Column:
    name: str
    type_name: str   # Spark's typeName(), or "map<string,string>" style for maps


@dataclass
class Outgoing:
    """One row as a message: body, target queue, MQMD values (None = default), properties."""
    payload: bytes
    queue: str | None = None
    topic: str | None = None
    correl_id: bytes | None = None
    group_id: bytes | None = None
    reply_to_queue: str | None = None
    reply_to_qmgr: str | None = None
    priority: int | None = None
    persistent: bool | None = None
    expiry: int | None = None
    msg_type: int | None = None
    format: bytes | None = None
    ccsid: int | None = None
    encoding: int | None = None
    feedback: int | None = None
    properties: list[tuple[str, Any, str]] = field(default_factory=list)  # (name, value, type)
    context: dict[str, Any] = field(default_factory=dict)   # MQMD context field -> value


class MessagePlan:
    """How each column of a schema becomes part of a message; checked once, at query start."""

    def __init__(self, columns: Sequence[Column], use_context: bool = True) -> None:
        self.columns = list(columns)
        by_name = {c.name: (i, c) for i, c in enumerate(self.columns)}
        if PAYLOAD not in by_name:
            raise ColumnError(
                "the DataFrame has no 'payload' column (binary or string): it is the message "
                f"body and is required; columns present: {', '.join(c.name for c in self.columns)}")
        self.payload_index, payload = by_name[PAYLOAD]
        if payload.type_name not in ("binary", "string"):
            raise ColumnError(f"column 'payload' has type {payload.type_name}; valid types: "
                              "binary, string (cast it)")
        self.payload_is_text = payload.type_name == "string"
        self.md_indexes: dict[str, int] = {}
        self.property_columns: list[tuple[int, str, str]] = []
        self.context_columns: list[tuple[int, str]] = []
        for index, column in enumerate(self.columns):
            if column.name == PAYLOAD or column.name in IGNORED_COLUMNS:
                continue
            if column.name in CONTEXT_COLUMNS:
                if use_context:
                    self._check_context_column(column)
                    self.context_columns.append((index, column.name))
                continue
            if column.name in MD_COLUMNS:
                self._check_md_column(column)
                self.md_indexes[column.name] = index
            else:
                self._check_property_column(column)
                self.property_columns.append((index, column.name, column.type_name))
        self.queue_index = self.md_indexes.get("queue")
        self.topic_index = self.md_indexes.get("topic")
        self._md_getters = [(name, index) for name, index in self.md_indexes.items()
                            if name not in ("queue", "topic", "properties")]
        self._map_index = self.md_indexes.get("properties")

    @property
    def routes_by_column(self) -> bool:
        return self.queue_index is not None or self.topic_index is not None

    @property
    def context_level(self) -> str:
        """none | identity | all: which MQMD context the columns set."""
        names = {name for _, name in self.context_columns}
        if names & ORIGIN_COLUMNS.keys():
            return "all"
        return "identity" if names else "none"

    @staticmethod
    def _check_context_column(column: Column) -> None:
        valid = CONTEXT_COLUMNS[column.name][1]
        if column.type_name not in valid:
            raise ColumnError(f"column '{column.name}' has type {column.type_name}; valid types: "
                              f"{', '.join(valid)} (or drop it, or set the writer option "
                              "context=none)")

    @property
    def may_have_properties(self) -> bool:
        return bool(self.property_columns) or self._map_index is not None

    @staticmethod
    def _check_md_column(column: Column) -> None:
        valid = MD_COLUMNS[column.name]
        if column.type_name not in valid:
            raise ColumnError(f"column '{column.name}' has type {column.type_name}; valid types: "
                              f"{', '.join(valid)}")

    @staticmethod
    def _check_property_column(column: Column) -> None:
        if column.type_name not in SPARK_TO_MQTYPE and column.type_name != _TIMESTAMP:
            raise ColumnError(
                f"column '{column.name}' of type {column.type_name} cannot become a message "
                f"property; valid property types: {', '.join(SPARK_TO_MQTYPE)}, timestamp (cast or drop "
                f"the column; MQMD columns are: payload, {', '.join(MD_COLUMNS)})")
        try:
            validate_name(column.name)
        except PropertyError as exc:
            raise ColumnError(f"column '{column.name}' cannot be a message property name: "
                              f"{exc}; rename it (letters, digits, '_' and '.' separated parts, "
                              "not starting with JMS or mq)") from None

    def message(self, row: Sequence[Any]) -> Outgoing:
        """The message for one row (values in schema order)."""
        payload = row[self.payload_index]
        if payload is None:
            body = b""
        elif self.payload_is_text:
            body = payload.encode("utf-8")
        else:
            body = bytes(payload)
        out = Outgoing(body)
        if self.queue_index is not None:
            out.queue = row[self.queue_index]
        if self.topic_index is not None:
            out.topic = row[self.topic_index]
        for name, index in self._md_getters:
            value = row[index]
            if value is not None:
                _SETTERS[name](out, value)
        if self.payload_is_text:
            if out.format is None:
                out.format = b"MQSTR   "
            if out.ccsid is None:
                out.ccsid = 1208
        if self.property_columns or self._map_index is not None:
            out.properties = self._properties(row)
        for index, name in self.context_columns:
            value = row[index]
            if value is not None:
                field_name, _types, length = CONTEXT_COLUMNS[name]
                out.context[field_name] = _context_value(name, value, length)
        return out

    def _properties(self, row: Sequence[Any]) -> list[tuple[str, Any, str]]:
        props: dict[str, tuple[str, Any, str]] = {}
        if self._map_index is not None:
            for key, value in row[self._map_index] or ():
                props[key] = (key, value, "string")
        for index, name, type_name in self.property_columns:
            value = row[index]
            if type_name == _TIMESTAMP:
                type_name = "long"
                value = None if value is None else _epoch_millis(value)
            props[name] = (name, value, type_name)   # a typed column wins over the map
        return list(props.values())


def _id(column: str, value: Any) -> bytes:
    data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
    if len(data) > _ID_LENGTH:
        raise RowValueError(f"column '{column}': {len(data)} bytes, valid: at most {_ID_LENGTH}")
    return data.ljust(_ID_LENGTH, b"\0")


def _text(column: str, value: str, length: int) -> str:
    if len(value.encode("utf-8")) > length:
        raise RowValueError(f"column '{column}': {value!r} is longer than {length} bytes")
    return value


def _context_value(column: str, value: Any, length: int | None) -> Any:
    if length is None:
        return int(value)
    data = bytes(value) if isinstance(value, (bytes, bytearray)) else str(value).encode("utf-8")
    if len(data) > length:
        raise RowValueError(f"column '{column}': {len(data)} bytes, valid: at most {length}")
    return data


def _priority(out: Outgoing, value: int) -> None:
    if not -1 <= value <= 9:
        raise RowValueError(f"column 'priority': {value}, valid: 0 to 9, or -1 for the "
                            "queue's default")
    out.priority = value


def _expiry(out: Outgoing, value: int) -> None:
    if value == 0 or value < -1 or value > 999_999_999:
        raise RowValueError(f"column 'expiry': {value}, valid: 1 to 999999999 tenths of a "
                            "second, or -1 for unlimited")
    out.expiry = value


def _format(out: Outgoing, value: str) -> None:
    data = value.encode("ascii", "replace")
    if len(data) > _FORMAT_LENGTH:
        raise RowValueError(f"column 'format': {value!r}, valid: at most 8 characters")
    out.format = data.ljust(_FORMAT_LENGTH, b" ")


#: MQMD column -> sets its Outgoing field from a non-null value (checked as the field needs)
_SETTERS: dict[str, Callable[[Outgoing, Any], None]] = {
    "correlation_id": lambda out, v: setattr(out, "correl_id", _id("correlation_id", v)),
    "group_id": lambda out, v: setattr(out, "group_id", _id("group_id", v)),
    "reply_to_queue": lambda out, v: setattr(out, "reply_to_queue",
                                             _text("reply_to_queue", v, _NAME_LENGTH)),
    "reply_to_qmgr": lambda out, v: setattr(out, "reply_to_qmgr",
                                            _text("reply_to_qmgr", v, _NAME_LENGTH)),
    "priority": _priority,
    "persistent": lambda out, v: setattr(out, "persistent", bool(v)),
    "expiry": _expiry,
    "msg_type": lambda out, v: setattr(out, "msg_type", int(v)),
    "format": _format,
    "ccsid": lambda out, v: setattr(out, "ccsid", int(v)),
    "encoding": lambda out, v: setattr(out, "encoding", int(v)),
    "feedback": lambda out, v: setattr(out, "feedback", int(v)),
}


def _epoch_millis(value: _dt.datetime) -> int:
    """A timestamp value (datetime, naive = UTC as Arrow gives it) as epoch milliseconds."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=_dt.timezone.utc)
    return int(value.timestamp() * 1000)


def property_size(props: list[tuple[str, Any, str]]) -> int:
    """Roughly the bytes the properties add to a message (names and values)."""
    size = 0
    for name, value, _type in props:
        size += len(name) + 16
        if isinstance(value, (bytes, bytearray, str)):
            size += len(value)
    return size

