"""The writer's faithful copy (context=all) and typed properties (`property_types`), without
Spark: rows as the reader gives them with includeContext=true, put by the real writer path
into a real embedded queue manager and got back with MQGMO_PROPERTIES_FORCE_MQRFH2, whose
MQRFH2 shows each property's MQ type."""
from __future__ import annotations

import datetime as dt

import pytest
from ibmmq import CMQC

from spark_mq.mq.outgoing import Column, ColumnError, MessageDefaults, MessagePlan, RowValueError
from spark_mq.mq.producer import ProducerSettings
from spark_mq.mq.properties import as_text, from_text
from spark_mq.mq.sink import write_rows
from spark_mq.mqi.properties import decode_rfh2
from spark_mq.options import parse_connection
from support import drain, mq_options

MAP = "map<string,string>"
COLUMNS = [Column(name, kind) for name, kind in [
    ("payload", "binary"), ("message_id", "binary"), ("put_timestamp", "timestamp"),
    ("correlation_id", "binary"), ("user_id", "string"), ("appl_identity_data", "string"),
    ("accounting_token", "binary"), ("put_appl_name", "string"), ("put_appl_type", "integer"),
    ("appl_origin_data", "string"), ("ccsid", "integer"), ("encoding", "integer"),
    ("format", "string"), ("properties", MAP), ("property_types", MAP), ("text", "string"),
    ("backout_count", "integer")]]
TYPED = [("s", "a & b", "string"), ("b", "true", "boolean"), ("x", "00ff10", "bytes"),
         ("i1", "-8", "int8"), ("i2", "300", "int16"), ("i4", "-70000", "int32"),
         ("i8", str(2**40), "int64"), ("f4", "0.25", "float32"),
         ("f8", "0.1", "float64"), ("n", None, "null"), ("untyped", "7", None)]
MQ_TYPES = {"s": (CMQC.MQTYPE_STRING, "a & b"), "b": (CMQC.MQTYPE_BOOLEAN, True),
            "x": (CMQC.MQTYPE_BYTE_STRING, b"\x00\xff\x10"), "i1": (CMQC.MQTYPE_INT8, -8),
            "i2": (CMQC.MQTYPE_INT16, 300), "i4": (CMQC.MQTYPE_INT32, -70000),
            "i8": (CMQC.MQTYPE_INT64, 2**40), "f4": (CMQC.MQTYPE_FLOAT32, 0.25),
            "f8": (CMQC.MQTYPE_FLOAT64, 0.1), "n": (CMQC.MQTYPE_NULL, None),
            "untyped": (CMQC.MQTYPE_STRING, "7")}


def copy_plan(columns=COLUMNS) -> MessagePlan:
    return MessagePlan(columns, defaults=MessageDefaults(context_all=True))


def row(msg_id: bytes | None, stamp: dt.datetime, body: bytes = b"\xc1\xc2") -> tuple:
    return (body, msg_id, stamp, b"corr".ljust(24, b"\0"), "alice", "id-data", b"\x07" * 32,
            "legacy.app", 28, "orig", 37, 273, "MQSTR",
            [(name, value) for name, value, _ in TYPED],
            [(name, kind) for name, _, kind in TYPED if kind], "ignored", 3)


def test_a_row_copied_with_context_all_keeps_msgid_context_format_and_property_types(
        qm, conn, make_queue):
    queue = make_queue()
    msg_id = b"AMQ QM9         " + bytes(range(8))
    stamp = dt.datetime(2024, 2, 29, 23, 59, 58, 990_000, tzinfo=dt.timezone.utc)
    # a non-UTC zone: PutDate/PutTime are GMT, whatever zone the timestamp arrives in
    local = stamp.astimezone(dt.timezone(dt.timedelta(hours=-5)))
    write_rows([row(msg_id, local), row(None, stamp)], copy_plan(),
               parse_connection(mq_options(qm)),
               ProducerSettings(context="all", keep_msg_id=True), queue, 10)
    [(md, body, _), (md2, _, _)] = drain(conn, queue, force_rfh2=True)
    assert md.MsgId == msg_id
    assert md2.MsgId != msg_id and md2.MsgId != b"\0" * 24     # null: a new one
    assert (md.PutDate, md.PutTime) == (b"20240229", b"23595899")
    assert md.CorrelId == b"corr".ljust(24, b"\0")
    assert md.UserIdentifier.rstrip(b"\0 ") == b"alice"
    assert md.ApplIdentityData.rstrip(b"\0 ") == b"id-data"
    assert md.AccountingToken == b"\x07" * 32
    assert md.PutApplName.rstrip(b"\0 ") == b"legacy.app" and md.PutApplType == 28
    assert md.ApplOriginData.rstrip(b"\0 ") == b"orig"
    decoded = decode_rfh2(body)
    assert (decoded.ccsid, decoded.encoding, decoded.format, decoded.rest) == (
        37, 273, b"MQSTR   ", b"\xc1\xc2")
    assert {p.name: (p.type, p.value) for p in decoded.properties} == MQ_TYPES


def test_without_context_all_message_id_and_put_timestamp_stay_ignored():
    out = MessagePlan(COLUMNS).message(row(b"x" * 24, dt.datetime(2024, 1, 1)))
    assert out.msg_id is None and "PutDate" not in out.context


def test_copied_columns_must_have_the_readers_types():
    with pytest.raises(ColumnError, match="column 'message_id' has type string; valid type "
                                          "with context=all: binary"):
        copy_plan([Column("payload", "binary"), Column("message_id", "string")])


@pytest.mark.parametrize("value,kind,expected", [
    ("1", "int128", "property 'p' has type 'int128'; valid types: string, boolean, bytes"),
    ("yes", "boolean", "property 'p' of type boolean has the value 'yes'; valid: true or false"),
    ("zz", "bytes", "valid: hex digits"),
    ("1.5", "int32", "valid: an integer"),
    ("300", "int8", "property 'p' of type int8 has the value 300; valid: an integer from -128 to 127"),
    ("x", "null", "valid: null"),
])
def test_a_bad_type_or_value_names_the_property(value, kind, expected):
    plan = MessagePlan([Column("payload", "binary"), Column("properties", MAP),
                        Column("property_types", MAP)])
    with pytest.raises(RowValueError) as failure:
        plan.message((b"", [("p", value)], [("p", kind)]))
    assert expected in str(failure.value)


@pytest.mark.parametrize("value", [True, False, b"\x00\xab", -3, 2**62, 1 / 3, "text", None])
def test_from_text_inverts_as_text(value):
    kind = {bool: "boolean", bytes: "bytes", int: "int64", float: "float64", str: "string",
            type(None): "null"}[type(value)]
    typed, _ = from_text("p", as_text(value), kind)
    assert typed == value and type(typed) is type(value)
