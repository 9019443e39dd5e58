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
`msg_type`, `format` (up to 8 characters), `ccsid`, `encoding`, `feedback`, `report`
(integers; `report` wins over the writer option of that name) set MQMD fields;
`properties` (map<string,string>) adds a string property per entry; `traceparent` and
`tracestate` (string, W3C trace context: spark_mq.mq.trace_context) set the string property
of that name, and a null sets none (where `properties` has the entry, it stays). Every other column
becomes a message property of its own name, typed from its Spark type (string,
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
read back as property columns either. So are the ones the reader derives (text,
conversion_reason, jms_map).

Code pages: a string payload is encoded in the row's CCSID (the `ccsid` column, else the
writer option, else UTF-8, 1208: `MessagePlan.message` decides it, once, and the body and a
JMS message's MQRFH2 take it from there) with spark_mq.mqi.codepages, UTF-16 in the byte
order of the row's Encoding; a character the code page cannot hold fails the row (never a
'?'). A CCSID of 0 (MQCCSI_Q_MGR, which the queue manager fills in) is written in UTF-8, as
the reader reads it (QMGR_CCSID). A binary payload is sent as it is: the CCSID only labels
it.

Faithful copy (writer option context=all): every put sets all context from the row:
`message_id` is the MsgId (null: a new one), `put_timestamp` PutDate/PutTime (GMT), the
identity and origin columns their fields; with a `property_types` column each `properties`
entry gets back the MQ type the reader saw (spark_mq.mq.properties.from_text).

JMS (writer option jmsMessageType, or a `jms_type` column per row): the message is what IBM
MQ classes for JMS put for a TextMessage or BytesMessage: MQMD Format MQHRF2, an MQRFH2
(spark_mq.mq.jms.jms_rfh2) with the class in mcd.Msd, the JMS headers of the jms_* columns
in the jms folder (and in their MQMD fields) and the property columns in usr, then the body.
"""
from __future__ import annotations

import datetime as _dt
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from spark_mq.mq import jms
from spark_mq.mq.column_table import BY_NAME, with_role
from spark_mq.mq.properties import SPARK_TO_MQTYPE, PropertyValueError, from_text, to_mq
from spark_mq.mqi.codepages import EURO_VARIANTS, QMGR_CCSID, UTF8, ConversionError, encode_text
from spark_mq.mqi.constants import CMQC, reason_name
from spark_mq.mqi.properties import Property, PropertyError, location, validate_name

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
IGNORED_COLUMNS = frozenset(with_role("delivered", "derived"))
_TIMESTAMP = "timestamp"
_ID_LENGTH = BY_NAME["correlation_id"].length or 24
_NAME_LENGTH = BY_NAME["reply_to_queue"].length or 48
_FORMAT_LENGTH = BY_NAME["format"].length or 8
#: JMS header columns (and jms_type): they shape the MQRFH2 of a JMS message
JMS_COLUMNS = with_role("jms")
TRACE_COLUMNS = with_role("trace")
PROPERTY_TYPES = "property_types"
#: set as read when the writer option context=all asks for a faithful copy
MESSAGE_ID, PUT_TIMESTAMP = "message_id", "put_timestamp"
_MQSTR = b"MQSTR   "
_NONE_FORMAT = b"        "
_MAX_EXPIRY = 999_999_999      # tenths of a second: MQ's largest Expiry short of unlimited
_CCSID_EXAMPLES = ("e.g. 1208 (UTF-8), 37, 273, 500, 1047 (EBCDIC), 819, 1252; every one: "
                   "docs/mainframe-and-jms.md, \"Code pages\"")


def _holding(text: str, ccsid: int) -> str:
    """The CCSIDs to suggest for text that `ccsid` cannot hold: first the same code page with
    the euro sign (37 -> 1140), where that holds the text, then UTF-8."""
    variant = EURO_VARIANTS.get(ccsid)
    if variant is not None:
        try:
            encode_text(text, variant, CMQC.MQENC_NATIVE)
        except ConversionError:
            pass
        else:
            return f"CCSID {variant} ({ccsid} with the euro sign) or 1208 (UTF-8), which hold it"
    return "a CCSID that holds it (e.g. 1208, UTF-8)"


class ColumnError(ValueError):
    """A column that cannot be written: names the column, its type and what would work."""


class RowValueError(ValueError):
    """A value in one row that cannot go into its MQMD field."""


@dataclass(frozen=True)
class Column:
    name: str
    type_name: str   # Spark's typeName(), or "map<string,string>" style for maps


@dataclass(frozen=True)
class MessageDefaults:
    """The writer options that shape every message; a column of the same name wins per row."""
    ccsid: int | None = None           # None: UTF-8 for text, unset for a binary payload
    encoding: int | None = None        # None: native (JMS messages: 273, as Java writes)
    format: str | None = None          # None: MQSTR for text, blank for binary
    jms_message_type: str = "none"     # none | text | bytes
    context_all: bool = False          # context=all: MsgId and PutDate/PutTime from the row
    persistence: str = "persistent"    # the JMSDeliveryMode a row without one gets
    null_payload: str = "error"        # error | empty: what a null payload becomes
    queue_manager: str | None = None   # option targetQueueManager: wins over the column
    report: int = 0                    # option report: MQMD Report (MQRO_ bits)


@dataclass
class Outgoing:
    """One row as a message: body, target queue, MQMD values (None = default), properties."""
    payload: bytes
    queue: str | None = None
    queue_manager: str | None = None   # MQOD.ObjectQMgrName: blank is the connected one
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
    report: int | None = None
    properties: list[tuple[str, Any, str]] = field(default_factory=list)  # (name, value, type)
    context: dict[str, Any] = field(default_factory=dict)   # MQMD context field -> value
    msg_id: bytes | None = None        # context=all: the MsgId as read (None: a new one)
    jms: jms.JmsHeaders | None = None  # a JMS message: the MQRFH2 goes in front of the body


class MessagePlan:
    """How each column of a schema becomes part of a message; checked once, at query start."""

    def __init__(self, columns: Sequence[Column], use_context: bool = True,
                 defaults: MessageDefaults | None = None) -> None:
        self.columns = list(columns)
        self.defaults = defaults = defaults or MessageDefaults()
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
        self.jms_indexes: dict[str, int] = {}
        self.trace_columns: list[tuple[int, str]] = []
        self._types_index: int | None = None
        self._msg_id_index: int | None = None
        self._put_time_index: int | None = None
        writes_jms = defaults.jms_message_type != "none" or "jms_type" in by_name
        for index, column in enumerate(self.columns):
            if column.name == PAYLOAD:
                continue
            if defaults.context_all and column.name in (MESSAGE_ID, PUT_TIMESTAMP):
                self._check_copied_column(column)
                if column.name == MESSAGE_ID:
                    self._msg_id_index = index
                else:
                    self._put_time_index = index
                continue
            if column.name in IGNORED_COLUMNS:
                continue
            if column.name in CONTEXT_COLUMNS:
                if use_context:
                    self._check_context_column(column)
                    self.context_columns.append((index, column.name))
                continue
            if column.name in JMS_COLUMNS:
                self._check_jms_column(column, writes_jms)
                self.jms_indexes[column.name] = index
            elif column.name in TRACE_COLUMNS:
                self._check_md_column(column, TRACE_COLUMNS[column.name].write_types)
                self.trace_columns.append((index, column.name))
            elif column.name == PROPERTY_TYPES:
                self._check_md_column(column, BY_NAME[PROPERTY_TYPES].write_types)
                self._types_index = index
            elif column.name in MD_COLUMNS:
                self._check_md_column(column, MD_COLUMNS[column.name])
                self.md_indexes[column.name] = index
            else:
                self._check_property_column(column)
                self.property_columns.append((index, column.name, column.type_name))
        self.queue_index = self.md_indexes.get("queue")
        self.queue_manager_index = self.md_indexes.get("queue_manager")
        self.topic_index = self.md_indexes.get("topic")
        self._md_getters = [(name, index) for name, index in self.md_indexes.items()
                            if name not in ("queue", "queue_manager", "topic", "properties")]
        self._map_index = self.md_indexes.get("properties")
        self._kind_index = self.jms_indexes.get("jms_type")
        self._jms_getters = [(name, index) for name, index in self.jms_indexes.items()
                             if name != "jms_type"]
        self._default_format = (None if defaults.format is None
                                else defaults.format.encode("ascii").ljust(_FORMAT_LENGTH))

    @property
    def routes_by_column(self) -> bool:
        return self.queue_index is not None or self.topic_index is not None

    @property
    def context_level(self) -> str:
        """none | identity | all: which MQMD context the columns (or context=all) set."""
        if self.defaults.context_all:
            return "all"
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

    @staticmethod
    def _check_copied_column(column: Column) -> None:
        valid = "binary" if column.name == MESSAGE_ID else "timestamp"
        if column.type_name != valid:
            raise ColumnError(f"column '{column.name}' has type {column.type_name}; valid type "
                              f"with context=all: {valid} (as the reader gives it), or drop it")

    @staticmethod
    def _check_jms_column(column: Column, writes_jms: bool) -> None:
        if not writes_jms:
            raise ColumnError(
                f"column '{column.name}' is a JMS header, but the writer option jmsMessageType "
                "is none; valid: set jmsMessageType to text or bytes (or add a 'jms_type' "
                "column) to write JMS messages, or drop the column")
        valid = JMS_COLUMNS[column.name].write_types
        if column.type_name not in valid:
            raise ColumnError(f"column '{column.name}' has type {column.type_name}; valid types: "
                              f"{', '.join(valid)}")

    @property
    def may_have_properties(self) -> bool:
        return (bool(self.property_columns) or bool(self.trace_columns)
                or self._map_index is not None)

    @staticmethod
    def _check_md_column(column: Column, valid: tuple[str, ...]) -> None:
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
        out = Outgoing(b"")
        if self.queue_index is not None:
            out.queue = row[self.queue_index]
        out.queue_manager = self.defaults.queue_manager or (
            row[self.queue_manager_index] if self.queue_manager_index is not None else None)
        if self.topic_index is not None:
            out.topic = row[self.topic_index]
        for name, index in self._md_getters:
            value = row[index]
            if value is not None:
                _SETTERS[name](out, value)
        kind = self._jms_kind(row)
        ccsid_from = "column 'ccsid'" if out.ccsid is not None else "option 'ccsid'"
        defaults = self.defaults
        if out.ccsid is None:
            out.ccsid = defaults.ccsid
        if out.encoding is None:
            out.encoding = jms.JAVA_ENCODING if kind and defaults.encoding is None \
                else defaults.encoding
        if out.format is None:
            out.format = self._default_format
        text = self.payload_is_text or kind == "text"
        if text or kind:
            # a JMS message's MQRFH2 always names a body CCSID; a text body is in it
            if out.ccsid is None:
                out.ccsid, ccsid_from = UTF8, "the default"
            if out.format is None:
                out.format = _MQSTR if kind == "text" or (not kind and text) else _NONE_FORMAT
        out.payload = self._body(row[self.payload_index], out, ccsid_from)
        if self.may_have_properties:
            out.properties = self._properties(row)
        for index, name in self.context_columns:
            value = row[index]
            if value is not None:
                field_name, _types, length = CONTEXT_COLUMNS[name]
                out.context[field_name] = _context_value(name, value, length)
        if self._msg_id_index is not None and row[self._msg_id_index] is not None:
            out.msg_id = _id(MESSAGE_ID, row[self._msg_id_index])
        if self._put_time_index is not None and row[self._put_time_index] is not None:
            out.context.update(_put_date_time(row[self._put_time_index]))
        if kind:
            out.jms = self._jms_headers(row, kind, out)
        if out.report is None and defaults.report:
            out.report = defaults.report
        _check_reply_to(out)
        return out

    def _body(self, payload: Any, out: Outgoing, ccsid_from: str) -> bytes:
        if payload is None:
            if self.defaults.null_payload == "empty":
                return b""
            # an empty message is rarely what a null meant (a failed to_json, a missed join)
            raise RowValueError("column 'payload' is null; valid: a binary or string value, or "
                                "the writer option nullPayload=empty to put an empty message")
        if not self.payload_is_text:
            return bytes(payload)
        ccsid = out.ccsid or QMGR_CCSID
        if ccsid == UTF8:
            return bytes(payload.encode("utf-8"))
        try:
            return encode_text(payload, ccsid, CMQC.MQENC_NATIVE if out.encoding is None
                               else out.encoding)
        except ConversionError as exc:
            if exc.reason != CMQC.MQRC_NOT_CONVERTED:
                raise RowValueError(f"column 'ccsid': {ccsid} is not a CCSID this process can "
                                    f"encode the string payload in; valid: {_CCSID_EXAMPLES}") \
                    from None
            raise RowValueError(f"column 'payload' cannot be encoded in the row's CCSID {ccsid} "
                                f"({ccsid_from}): {exc} (MQ reason {exc.reason} "
                                f"{reason_name(exc.reason)}); valid: {_holding(payload, ccsid)}, or "
                                "text that code page holds, or a binary payload") from None

    def _jms_kind(self, row: Sequence[Any]) -> str | None:
        """text | bytes for a JMS message, None for a plain one."""
        kind = self.defaults.jms_message_type
        if self._kind_index is not None and row[self._kind_index] is not None:
            value = str(row[self._kind_index]).strip().lower()
            if value not in jms.WRITE_CLASSES:
                raise RowValueError(
                    f"column 'jms_type': {row[self._kind_index]!r}; valid: "
                    f"{' | '.join(jms.WRITE_CLASSES)} (the writer makes TextMessages and "
                    "BytesMessages; cast a map, stream or object message's body to bytes)")
            kind = value
        return None if kind == "none" else kind

    def _jms_headers(self, row: Sequence[Any], kind: str, out: Outgoing) -> jms.JmsHeaders:
        headers = jms.JmsHeaders(kind)
        for name, index in self._jms_getters:
            value = row[index]
            if value is not None:
                _JMS_SETTERS[name](headers, out, value)
        if headers.delivery_mode is None:
            persistent = out.persistent
            if persistent is None and self.defaults.persistence != "asQueueDef":
                persistent = self.defaults.persistence == "persistent"
            if persistent is not None:
                headers.delivery_mode = jms.PERSISTENT if persistent else jms.NON_PERSISTENT
        # the properties travel in the MQRFH2's usr folder, not on a message handle
        headers.usr = [_usr_property(name, value, type_name)
                       for name, value, type_name in out.properties
                       if _in_usr(name)]
        out.properties = []
        return headers

    def _properties(self, row: Sequence[Any]) -> list[tuple[str, Any, str]]:
        props: dict[str, tuple[str, Any, str]] = {}
        if self._map_index is not None:
            types = {}
            if self._types_index is not None:
                types = dict(row[self._types_index] or ())
            for key, value in row[self._map_index] or ():
                type_name = types.get(key)
                if type_name is None:
                    props[key] = (key, value, "string")
                    continue
                try:
                    typed, spark_type = from_text(key, value, type_name)
                except PropertyValueError as exc:
                    raise RowValueError(str(exc)) from None
                props[key] = (key, typed, spark_type)
        for index, name, type_name in self.property_columns:
            value = row[index]
            if type_name == _TIMESTAMP:
                type_name = "long"
                value = None if value is None else _epoch_millis(value)
            props[name] = (name, value, type_name)   # a typed column wins over the map
        for index, name in self.trace_columns:
            # null: no trace to carry (the map's entry, if any, stays)
            if row[index] is not None:
                props[name] = (name, row[index], "string")
        return list(props.values())


def _in_usr(name: str) -> bool:
    """Whether a property goes in the usr folder: the mcd and jms folders are what the jms_*
    columns say (a JMS message read with its JMS headers among its `properties` is written
    with the headers of its columns, not twice)."""
    try:
        found = location(validate_name(name))
    except PropertyError as exc:
        raise RowValueError(f"column 'properties': {exc}; valid: letters, digits, '_' and '.' "
                            "separated parts") from None
    return found is not None and found[0] == "usr"


def _usr_property(name: str, value: Any, type_name: str) -> Property:
    try:
        mq_type, raw, _length = to_mq(name, value, type_name)
    except PropertyValueError as exc:
        raise RowValueError(str(exc)) from None
    return Property(validate_name(name), mq_type, raw)


def _put_date_time(value: _dt.datetime) -> dict[str, bytes]:
    """PutDate YYYYMMDD and PutTime HHMMSSTH (GMT) of a put_timestamp as the reader read it."""
    if value.tzinfo is not None:
        value = value.astimezone(_dt.timezone.utc)
    return {"PutDate": value.strftime("%Y%m%d").encode(),
            "PutTime": (value.strftime("%H%M%S") + f"{value.microsecond // 10_000:02d}").encode()}


def _now_ms() -> int:
    return int(time.time() * 1000)


def _jms_reply_to(headers: jms.JmsHeaders, out: Outgoing, value: str) -> None:
    try:
        found = jms.queue_of_uri(value)
    except ValueError as exc:
        raise RowValueError(f"column 'jms_reply_to': {exc}") from None
    headers.reply_to = value
    if found is not None:
        out.reply_to_queue = _text("jms_reply_to", found[0], _NAME_LENGTH)
        out.reply_to_qmgr = _text("jms_reply_to", found[1], _NAME_LENGTH)


def _jms_expiration(headers: jms.JmsHeaders, out: Outgoing, value: Any) -> None:
    millis = _epoch_millis(value)
    if millis <= 0:
        return      # 0: never expires, as JMS says
    headers.expiration_ms = millis
    tenths = -(-(millis - _now_ms()) // 100)
    out.expiry = -1 if tenths > _MAX_EXPIRY else max(1, tenths)


def _jms_correlation_id(headers: jms.JmsHeaders, out: Outgoing, value: str) -> None:
    out.correl_id, in_rfh2 = jms.correl_id_for(value)
    if in_rfh2:
        headers.correlation_id = value


def _jms_delivery_mode(headers: jms.JmsHeaders, out: Outgoing, value: int) -> None:
    if value not in (jms.PERSISTENT, jms.NON_PERSISTENT):
        raise RowValueError(f"column 'jms_delivery_mode': {value}, valid: 2 (persistent) or 1 "
                            "(non-persistent)")
    headers.delivery_mode = int(value)
    out.persistent = value == jms.PERSISTENT


def _jms_priority(headers: jms.JmsHeaders, out: Outgoing, value: int) -> None:
    if not 0 <= value <= 9:
        raise RowValueError(f"column 'jms_priority': {value}, valid: 0 to 9")
    headers.priority = out.priority = int(value)


def _set_header(attribute: str, convert: Callable[[Any], Any]) -> Callable[
        [jms.JmsHeaders, Outgoing, Any], None]:
    return lambda headers, _out, value: setattr(headers, attribute, convert(value))


#: JMS header column -> sets its header (and the MQMD field behind it) from a non-null value
_JMS_SETTERS: dict[str, Callable[[jms.JmsHeaders, Outgoing, Any], None]] = {
    "jms_type_name": _set_header("type_name", str),
    "jms_destination": _set_header("destination", str),
    "jms_reply_to": _jms_reply_to,
    "jms_timestamp": _set_header("timestamp_ms", lambda value: _epoch_millis(value)),
    "jms_expiration": _jms_expiration,
    "jms_correlation_id": _jms_correlation_id,
    "jms_delivery_mode": _jms_delivery_mode,
    "jms_priority": _jms_priority,
}


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


#: the Report bits that ask for a report message sent to ReplyToQ (IBM docs: "ReplyToQ
#: (MQCHAR48)": it must not be blank "if any report messages are requested")
_REPORT_REQUESTS = (CMQC.MQRO_COA_WITH_FULL_DATA | CMQC.MQRO_COD_WITH_FULL_DATA
                    | CMQC.MQRO_EXCEPTION_WITH_FULL_DATA | CMQC.MQRO_EXPIRATION_WITH_FULL_DATA
                    | CMQC.MQRO_PAN | CMQC.MQRO_NAN)


def _check_reply_to(out: Outgoing) -> None:
    """The queue manager would refuse a request or a report request without a reply-to
    queue with 2027 (MQRC_MISSING_REPLY_TO_Q); say which column to fill."""
    if (out.reply_to_queue or "").strip():
        return
    if out.msg_type == CMQC.MQMT_REQUEST:
        raise RowValueError("column 'msg_type': 1 (MQMT_REQUEST) asks for a reply, and "
                            "column 'reply_to_queue' (or 'jms_reply_to') is not set; valid: "
                            "a reply-to queue for a request, or another msg_type (IBM MQ "
                            "refuses a request without one: MQRC_MISSING_REPLY_TO_Q 2027)")
    if out.report is not None and out.report & _REPORT_REQUESTS:
        raise RowValueError(f"report {out.report} (the `report` column or option) asks for "
                            "report messages, and column 'reply_to_queue' (or 'jms_reply_to') "
                            "is not set; valid: a reply-to queue where the reports go, or no "
                            "report types (IBM MQ refuses the put: MQRC_MISSING_REPLY_TO_Q 2027)")


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
    "report": lambda out, v: setattr(out, "report", int(v)),
}


def _epoch_millis(value: _dt.datetime | int) -> int:
    """A timestamp value (datetime, naive = UTC as Arrow gives it) or a number of ms as epoch
    milliseconds."""
    if not isinstance(value, _dt.datetime):
        return int(value)
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

