"""The reader's side of the columns: messages -> Spark values and Arrow record batches.

Which columns exist, their types and MQMD fields: the column table, spark_mq.mq.column_table
(the writer maps the same table back in spark_mq.mq.outgoing).

Default columns (`DEFAULT_SCHEMA`), in this order:

    payload binary, queue string, queue_manager string, message_id binary,
    correlation_id binary, group_id binary, msg_seq_number int, msg_flags int,
    put_timestamp timestamp, persistent boolean, priority int, format string, ccsid int,
    encoding int, backout_count int, reply_to_queue string, reply_to_qmgr string,
    user_id string, appl_identity_data string, put_appl_name string, msg_type int,
    expiry int, feedback int, properties map<string,string>, text string

`queue` and `queue_manager` say where each message was read: the queue and the queue
manager (the `queueManager` option). The writer takes the pair as where a row goes when no
`queue` or `topic` option routes it (spark_mq.mq.column_table).

`text` is the payload decoded by the message's own CCSID (spark_mq.mqi.codepages) when its
Format is MQSTR, null otherwise. A topic read (option topic or topicObject) adds `topic
string` at the end: the topic string each publication was published on (its MQTopicString
property); the reader option `convert` adds `conversion_reason int` (MQ's reason when a
message came unconverted); `includeContext` adds the context columns and `property_types`
(see `default_schema`).

JMS (spark_mq.mq.jms): `jms_type` (text, bytes, map, stream, object, none), the headers
`jms_type_name`, `jms_destination`, `jms_reply_to`, `jms_expiration`, `jms_delivery_mode`,
`jms_priority`, `jms_timestamp`, `jms_correlation_id`, and `jms_map` (a MapMessage body)
are filled when a user schema names them.

A user schema may pick any of these (with these types; `payload` may also be `string`, the
data decoded by each message's CCSID, see `OTHER_READ_TYPES`), the MQMD context columns
accounting_token binary, appl_origin_data string and put_appl_type int, `topic`, the W3C trace
context `traceparent string` and `tracestate string` (the message properties of exactly those
names, as IBM's ibmmq sets them: spark_mq.mq.trace_context), and add columns
named after message properties: each is filled from the property of that name (exact name first, then
case-insensitively), converted to the column's type, null where absent or not convertible.
"""
from __future__ import annotations

import datetime as _dt
import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from spark_mq.mq import jms
from spark_mq.mq.column_table import COLUMNS
from spark_mq.mq.exceptions import MQSchemaError
from spark_mq.mq.message import MD_INDEX, Message
from spark_mq.mq.properties import as_text, type_name_of
from spark_mq.mq.trace_context import TRACEPARENT, TRACESTATE, trace_property
from spark_mq.mqi.codepages import QMGR_CCSID, decode_text

log = logging.getLogger(__name__)

#: (column, Spark SQL type) of the default schema, in order
DEFAULT_COLUMNS: tuple[tuple[str, str], ...] = tuple(
    (c.name, c.read_type) for c in COLUMNS if c.default)
#: MQMD context columns a user schema may add (not in the default schema)
OPTIONAL_COLUMNS: tuple[tuple[str, str], ...] = tuple(
    (c.name, c.read_type) for c in COLUMNS if not c.default)
COLUMN_TYPES: dict[str, str] = {c.name: c.read_type for c in COLUMNS}
DEFAULT_SCHEMA: str = ", ".join(f"{name} {kind}" for name, kind in DEFAULT_COLUMNS)
TOPIC_PROPERTY = "MQTopicString"
TOPIC_SCHEMA: str = f"{DEFAULT_SCHEMA}, topic string"
#: what includeContext adds: every column a faithful copy (writer context=all) needs
CONTEXT_COLUMNS = ("accounting_token", "appl_origin_data", "put_appl_type", "property_types")


def default_schema(topic: bool = False, convert: bool = False, include_context: bool = False) -> str:
    """The schema a read without .schema(...) gets, given what the options ask for."""
    names = [name for name, _ in DEFAULT_COLUMNS]
    if include_context:
        names += CONTEXT_COLUMNS
    if topic:
        names.append("topic")
    if convert:
        names.append("conversion_reason")
    return ", ".join(f"{name} {COLUMN_TYPES[name]}" for name in names)

#: column -> {another type a user schema may give it: what the column then holds}
OTHER_READ_TYPES: dict[str, dict[str, str]] = {
    "payload": {"string": "the message data as text, decoded by each message's CCSID; null "
                          "where it is not text in that CCSID"}}

#: Spark types a property column may have (simpleString spellings)
PROPERTY_COLUMN_TYPES = ("string", "boolean", "tinyint", "smallint", "int", "bigint",
                         "float", "double", "binary", "timestamp")
_INT_RANGES = {"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64}
_SPARK_ALIASES = {"integer": "int", "long": "bigint", "short": "smallint", "byte": "tinyint"}


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return value.rstrip("\0 ").strip()


_EPOCH_DAYS: dict[bytes, int] = {}


def put_timestamp_micros(put_date: bytes, put_time: bytes) -> int | None:
    """PutDate YYYYMMDD + PutTime HHMMSSTH (GMT) as microseconds since the epoch."""
    days = _EPOCH_DAYS.get(put_date)
    if days is None:
        try:
            text = _text(put_date)
            days = _dt.date(int(text[:4]), int(text[4:6]), int(text[6:8])).toordinal() - 719163
        except (ValueError, TypeError):
            return None
        _EPOCH_DAYS[put_date] = days
    try:
        t = _text(put_time)
        seconds = int(t[0:2]) * 3600 + int(t[2:4]) * 60 + int(t[4:6])
        hundredths = int(t[6:8]) if len(t) >= 8 else 0
    except (ValueError, TypeError):
        return None
    return (days * 86400 + seconds) * 1_000_000 + hundredths * 10_000


def _md(name: str) -> Callable[[Message], Any]:
    index = MD_INDEX[name]
    return lambda m: m.md[index]


def _md_text(name: str) -> Callable[[Message], Any]:
    index = MD_INDEX[name]
    return lambda m: _text(m.md[index])


_DATE, _TIME = MD_INDEX["PutDate"], MD_INDEX["PutTime"]
_PERSISTENCE, _PRIORITY = MD_INDEX["Persistence"], MD_INDEX["Priority"]
_FORMAT, _CCSID, _ENCODING = MD_INDEX["Format"], MD_INDEX["CodedCharSetId"], MD_INDEX["Encoding"]
_REPLY_Q, _REPLY_QMGR, _CORREL = MD_INDEX["ReplyToQ"], MD_INDEX["ReplyToQMgr"], MD_INDEX["CorrelId"]
_MQSTR = b"MQSTR   "


def _is_text(m: Message) -> bool:
    fmt = m.md[_FORMAT]
    return (fmt if isinstance(fmt, bytes) else str(fmt).encode("ascii", "replace")) == _MQSTR


def message_text(m: Message) -> str | None:
    """The payload as text when its Format is MQSTR (by its own CCSID and Encoding)."""
    if not _is_text(m):
        return None
    return decode_text(m.payload, m.md[_CCSID] or QMGR_CCSID, m.md[_ENCODING])


def _property_types(m: Message) -> list[tuple[str, str]]:
    types = m.property_types
    if types is None:   # read untyped: the Python types are all there is
        return [(name, type_name_of(value)) for name, value in m.properties.items()]
    return list(types.items())


def _jms_map(m: Message) -> list[tuple[str, str | None]] | None:
    if jms.message_class(m.properties, m.md[_FORMAT]) != "map":
        return None
    return jms.map_body(message_text(m))


def _put_micros(m: Message) -> int | None:
    return put_timestamp_micros(m.md[_DATE], m.md[_TIME])

#: column -> function(message) -> value ("queue" and "queue_manager" are the caller's): MQMD columns read
#: their field (text fields without padding), the others are made here
_EXTRACTORS: dict[str, Callable[[Message], Any]] = {
    c.name: (_md_text if c.read_type == "string" else _md)(c.md_field)
    for c in COLUMNS if c.md_field and c.name != "persistent"}
_EXTRACTORS.update({
    "payload": lambda m: m.payload,
    "put_timestamp": lambda m: put_timestamp_micros(m.md[_DATE], m.md[_TIME]),
    "persistent": lambda m: m.md[_PERSISTENCE] == 1,   # MQPER_PERSISTENT
    "properties": lambda m: [(k, as_text(v)) for k, v in m.properties.items()],
    "topic": lambda m: as_text(m.properties.get(TOPIC_PROPERTY)),
    "text": message_text,
    "conversion_reason": lambda m: m.reason or None,
    "property_types": _property_types,
    "jms_type": lambda m: jms.message_class(m.properties, m.md[_FORMAT]),
    "jms_type_name": lambda m: jms.text_or_none(m.properties, "JMSType"),
    "jms_destination": lambda m: jms.text_or_none(m.properties, "JMSDestination"),
    "jms_reply_to": lambda m: jms.reply_to(m.properties, m.md[_REPLY_Q], m.md[_REPLY_QMGR]),
    "jms_expiration": lambda m: jms.expiration_micros(m.properties),
    "jms_delivery_mode": lambda m: jms.delivery_mode(m.properties, m.md[_PERSISTENCE]),
    "jms_priority": lambda m: jms.priority(m.properties, m.md[_PRIORITY]),
    "jms_timestamp": lambda m: jms.timestamp_micros(m.properties, _put_micros(m)),
    "jms_correlation_id": lambda m: jms.correlation_id(m.properties, m.md[_CORREL]),
    "jms_map": _jms_map,
    TRACEPARENT: lambda m: trace_property(m.properties, TRACEPARENT),
    TRACESTATE: lambda m: trace_property(m.properties, TRACESTATE),
})


def payload_text(m: Message) -> str | None:
    """The payload as text by its CCSID and Encoding, whatever its Format (a user schema's
    `payload string`, the counterpart of the writer's string payload)."""
    return decode_text(m.payload, m.md[_CCSID] or QMGR_CCSID, m.md[_ENCODING])


#: (column, type) -> function(message) -> value, for the types of OTHER_READ_TYPES
_TYPED_EXTRACTORS: dict[tuple[str, str], Callable[[Message], Any]] = {
    ("payload", "string"): payload_text}


@dataclass(frozen=True)
class ColumnSpec:
    name: str
    kind: str                 # Spark simpleString type
    is_property: bool


def normalise_type(kind: str) -> str:
    kind = kind.strip().lower().replace(" ", "")
    return _SPARK_ALIASES.get(kind, kind)


def plan_columns(fields: Sequence[tuple[str, str]]) -> list[ColumnSpec]:
    """Check a user schema ((name, Spark simpleString type) pairs) and plan its columns."""
    specs = []
    for name, kind in fields:
        kind = normalise_type(kind)
        if name in COLUMN_TYPES:
            types = {COLUMN_TYPES[name]: "", **OTHER_READ_TYPES.get(name, {})}
            if kind not in types:
                raise MQSchemaError(name, kind, " | ".join(
                    f"{t} ({meaning})" if meaning else t for t, meaning in types.items()))
            specs.append(ColumnSpec(name, kind, False))
        elif kind in PROPERTY_COLUMN_TYPES:
            specs.append(ColumnSpec(name, kind, True))
        else:
            raise MQSchemaError(
                name, kind,
                f"a default column ({', '.join(COLUMN_TYPES)}) with its type, or a message property "
                f"column of type {' | '.join(PROPERTY_COLUMN_TYPES)}")
    return specs


def _property(properties: dict, name: str) -> Any:
    if name in properties:
        return properties[name]
    lowered = name.lower()
    for key, value in properties.items():
        if key.lower() == lowered:
            return value
    return None


def convert_property(value: Any, kind: str) -> Any:
    """A property value as a value of Spark type `kind`; None when it does not convert."""
    if value is None:
        return None
    try:
        if kind == "string":
            return value if isinstance(value, str) else as_text(value)
        if kind == "binary":
            return bytes(value) if isinstance(value, (bytes, bytearray)) else str(value).encode()
        if kind == "boolean":
            if isinstance(value, str):
                lowered = value.strip().lower()
                return True if lowered == "true" else False if lowered == "false" else None
            return bool(value)
        if kind in _INT_RANGES:
            number = int(value) if not isinstance(value, str) else int(value.strip())
            bits = _INT_RANGES[kind]
            return number if -(1 << (bits - 1)) <= number < (1 << (bits - 1)) else None
        if kind in ("float", "double"):
            real = float(value)
            if kind == "float" and math.isfinite(real) and abs(real) > 3.4028235e38:
                return None  # does not fit a float
            return real
        if kind == "timestamp":
            # JMS-style epoch milliseconds, or ISO-8601 text
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return int(value * 1000)
            parsed = _dt.datetime.fromisoformat(str(value).strip())
            if parsed.tzinfo is None:
                parsed = parsed.replace(tzinfo=_dt.timezone.utc)
            return int(parsed.timestamp() * 1_000_000)
    except (ValueError, TypeError, OverflowError):
        return None
    return None


class Source(NamedTuple):
    """Where the messages were read: the `queue` and `queue_manager` columns."""
    queue: str
    queue_manager: str

    @classmethod
    def of(cls, options: Any) -> Source:
        """The source of a reader's ReadOptions."""
        return cls(options.queue or "", options.connection.queue_manager)


def column_values(spec: ColumnSpec, messages: Sequence[Message], source: Source) -> list:
    if spec.is_property:
        kind, name = spec.kind, spec.name
        return [convert_property(_property(m.properties, name), kind) for m in messages]
    if spec.name == "queue":
        return [source.queue] * len(messages)
    if spec.name == "queue_manager":
        return [source.queue_manager] * len(messages)
    extract = _TYPED_EXTRACTORS.get((spec.name, spec.kind)) or _EXTRACTORS[spec.name]
    return [extract(m) for m in messages]


def to_record_batch(messages: Sequence[Message], source: Source, specs: Sequence[ColumnSpec],
                    arrow_schema):
    """A pyarrow.RecordBatch of these messages with exactly `arrow_schema`."""
    import pyarrow as pa
    arrays = [pa.array(column_values(spec, messages, source), type=field.type)
              for spec, field in zip(specs, arrow_schema)]
    return pa.RecordBatch.from_arrays(arrays, schema=arrow_schema)


def to_rows(messages: Sequence[Message], source: Source, specs: Sequence[ColumnSpec]) -> list[tuple]:
    """The same as tuples (timestamps as aware datetimes), for callers that want rows."""
    columns = [column_values(spec, messages, source) for spec in specs]
    for i, spec in enumerate(specs):
        if spec.kind == "timestamp":
            columns[i] = [None if v is None else
                          _dt.datetime.fromtimestamp(v / 1_000_000, _dt.timezone.utc)
                          for v in columns[i]]
        elif spec.kind.startswith("map<"):
            columns[i] = [dict(v) for v in columns[i]]
    return list(zip(*columns))
