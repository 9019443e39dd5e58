"""THE column table: every column the connector knows, for both directions.

One row per column: the Spark type the reader gives it, the MQMD field behind it, whether
it is in the reader's default schema, what the writer does with it and which Spark types
the writer accepts for it. The reader's conversions (spark_mq.columns) and the writer's
(spark_mq.mq.outgoing) are keyed by these names and derive their tables from this one.

Writer roles:
    payload     the message body (binary or string)
    route       names the row's target queue or topic (when no `queue` or `topic` option
                is set)
    md          sets its MQMD field
    properties  map<string,string>: a string property per entry
    identity    MQMD identity context (needs MQOO/MQPMO_SET_IDENTITY_CONTEXT)
    origin      MQMD origin context (needs MQOO/MQPMO_SET_ALL_CONTEXT)
    delivered   describes the message as it was delivered; the queue manager sets it on
                every put, so the writer ignores it (read -> write passes through); with the
                writer option context=all, message_id and put_timestamp are set as read
    derived     computed by the reader from the message (text, conversion_reason, jms_map):
                the writer ignores it
    property_types  map<string,string>: the MQ type of each entry of `properties`, so that
                a copy keeps the types (reader: with includeContext; writer: types `properties`)
    trace       W3C trace context (spark_mq.mq.trace_context): the message property of the same
                name, as IBM's ibmmq (2.0.2+) sets it from OpenTelemetry; a null value sets none
    jms         a JMS header or the JMS message class (spark_mq.mq.jms); the writer writes
                it into the MQRFH2 when jmsMessageType is text or bytes
"""
from __future__ import annotations

from dataclasses import dataclass

#: Spark typeName()s of the integer types the writer accepts for integer MQMD fields
INTEGER_TYPES = ("byte", "short", "integer", "long")
PROPERTIES_MAP = "map<string,string>"


@dataclass(frozen=True)
class MQColumn:
    name: str
    read_type: str                  # Spark simpleString type the reader gives it
    md_field: str | None            # the MQMD field behind it (None: not one field)
    default: bool                   # in the reader's default schema
    write_role: str                 # see the module docstring
    write_types: tuple[str, ...]    # Spark typeName()s the writer accepts
    length: int | None = None       # MQMD field length in bytes (text and byte fields)


def _c(name: str, read_type: str, md_field: str | None, default: bool, write_role: str,
       write_types: tuple[str, ...] = (), length: int | None = None) -> MQColumn:
    return MQColumn(name, read_type, md_field, default, write_role, write_types, length)


#: in the reader's default column order; the context columns at the end are opt-in
COLUMNS: tuple[MQColumn, ...] = (
    _c("payload", "binary", None, True, "payload", ("binary", "string")),
    _c("queue", "string", None, True, "route", ("string",)),
    # reading: the queue manager the message was read from; writing: MQOD.ObjectQMgrName, the
    # queue manager (or queue-manager alias) the row's `queue` is on, reached through channels.
    # Like `queue`, it routes only rows that no `queue` option routes: a read written on with
    # a `queue` option goes there, not back where it was read
    _c("queue_manager", "string", None, True, "route", ("string",)),
    _c("message_id", "binary", "MsgId", True, "delivered"),
    _c("correlation_id", "binary", "CorrelId", True, "md", ("binary", "string"), 24),
    _c("group_id", "binary", "GroupId", True, "md", ("binary", "string"), 24),
    _c("msg_seq_number", "int", "MsgSeqNumber", True, "delivered"),
    _c("msg_flags", "int", "MsgFlags", True, "delivered"),
    _c("put_timestamp", "timestamp", None, True, "delivered"),     # PutDate + PutTime
    _c("persistent", "boolean", "Persistence", True, "md", ("boolean",)),
    _c("priority", "int", "Priority", True, "md", INTEGER_TYPES),
    _c("format", "string", "Format", True, "md", ("string",), 8),
    _c("ccsid", "int", "CodedCharSetId", True, "md", INTEGER_TYPES),
    _c("encoding", "int", "Encoding", True, "md", INTEGER_TYPES),
    _c("backout_count", "int", "BackoutCount", True, "delivered"),
    _c("reply_to_queue", "string", "ReplyToQ", True, "md", ("string",), 48),
    _c("reply_to_qmgr", "string", "ReplyToQMgr", True, "md", ("string",), 48),
    _c("user_id", "string", "UserIdentifier", True, "identity", ("string",), 12),
    _c("appl_identity_data", "string", "ApplIdentityData", True, "identity", ("string",), 32),
    _c("put_appl_name", "string", "PutApplName", True, "origin", ("string",), 28),
    _c("msg_type", "int", "MsgType", True, "md", INTEGER_TYPES),
    _c("expiry", "int", "Expiry", True, "md", INTEGER_TYPES),
    _c("feedback", "int", "Feedback", True, "md", INTEGER_TYPES),
    # opt-in (a user schema names it): the reports a message asks for (MQRO_ bits)
    _c("report", "int", "Report", False, "md", INTEGER_TYPES),
    _c("properties", PROPERTIES_MAP, None, True, "properties", (PROPERTIES_MAP,)),
    _c("accounting_token", "binary", "AccountingToken", False, "identity", ("binary",), 32),
    _c("appl_origin_data", "string", "ApplOriginData", False, "origin", ("string",), 4),
    _c("put_appl_type", "int", "PutApplType", False, "origin", INTEGER_TYPES),
    # the MQTopicString property of a publication: in a topic read's default schema
    _c("topic", "string", None, False, "route", ("string",)),
    # the payload as text, decoded by its own CCSID when its Format is MQSTR (default schema)
    _c("text", "string", None, True, "derived"),
    # the MQ reason when MQGMO_CONVERT left the message unconverted (reader option convert)
    _c("conversion_reason", "int", None, False, "derived"),
    _c("property_types", PROPERTIES_MAP, None, False, "property_types", (PROPERTIES_MAP,)),
    # W3C trace context: the traceparent and tracestate properties, null where absent
    _c("traceparent", "string", None, False, "trace", ("string",)),
    _c("tracestate", "string", None, False, "trace", ("string",)),
    # JMS (spark_mq.mq.jms): the message class and the JMS headers
    _c("jms_type", "string", None, False, "jms", ("string",)),
    _c("jms_type_name", "string", None, False, "jms", ("string",)),
    _c("jms_destination", "string", None, False, "jms", ("string",)),
    _c("jms_reply_to", "string", None, False, "jms", ("string",)),
    _c("jms_expiration", "timestamp", None, False, "jms", ("timestamp", "long")),
    _c("jms_delivery_mode", "int", None, False, "jms", INTEGER_TYPES),
    _c("jms_priority", "int", None, False, "jms", INTEGER_TYPES),
    _c("jms_timestamp", "timestamp", None, False, "jms", ("timestamp", "long")),
    _c("jms_correlation_id", "string", None, False, "jms", ("string",)),
    # a MapMessage body as name -> value (as text); null for other messages
    _c("jms_map", PROPERTIES_MAP, None, False, "derived"),
)
BY_NAME: dict[str, MQColumn] = {column.name: column for column in COLUMNS}


def with_role(*roles: str) -> dict[str, MQColumn]:
    return {c.name: c for c in COLUMNS if c.write_role in roles}
