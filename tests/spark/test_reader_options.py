"""Reader options, column planning and the MQMD -> column mapping (no queue manager)."""
from __future__ import annotations

import datetime as dt

import pytest

from spark_mq.columns import (
    COLUMN_TYPES,
    DEFAULT_COLUMNS,
    DEFAULT_SCHEMA,
    Source,
    convert_property,
    plan_columns,
    put_timestamp_micros,
    to_rows,
)
from spark_mq.errors import MQOptionError
from spark_mq.mq import records
from spark_mq.mq.message import MD_FIELDS, Message
from spark_mq.options import ReadOptions

BASE = {"connname": "localhost(1414)", "queue": "DEV.QUEUE.1"}


def test_defaults():
    options = ReadOptions.parse(BASE)
    assert options.queue == "DEV.QUEUE.1"
    assert options.delivery == "exactlyOnce" and options.exactly_once and options.syncpoint
    assert options.max_messages == 10000
    assert options.backout_threshold is None and options.backout_queue is None
    assert options.connection.conn_name == "localhost(1414)"


def test_options_are_case_insensitive_and_canonical():
    options = ReadOptions.parse({**BASE, "DELIVERY": "ATMOSTONCE", "maxMessagesPerTrigger": "5",
                                 "readAhead": "true"})
    assert options.delivery == "atMostOnce" and not options.syncpoint
    assert options.max_messages == 5 and options.read_ahead


@pytest.mark.parametrize("key,value,option,valid", [
    ("queue", None, "queue", "local queue"),
    ("delivery", "twice", "delivery", "exactlyOnce | atLeastOnce | atMostOnce"),
    ("maxmessagespertrigger", "0", "maxMessagesPerTrigger", "integer from 1"),
    ("maxmessagespertrigger", "lots", "maxMessagesPerTrigger", "integer from 1"),
    ("maxbytespertrigger", "-5", "maxBytesPerTrigger", "integer from 1"),
    ("waitintervalms", "soon", "waitIntervalMs", "integer from 0"),
    ("backoutthreshold", "-1", "backoutThreshold", "integer from 0"),
    ("readahead", "maybe", "readAhead", "true | false"),
    ("readahead", "true", "readAhead", "only with delivery atMostOnce"),
    ("connname", "localhost:1414", "connName", "host(port)"),
    ("transport", "carrier-pigeon", "transport", "auto | ibmmq | embedded"),
    ("stopfile", "  ", "stopFile", "the path of a file on the driver"),
    ("minmessagespertrigger", "0", "minMessagesPerTrigger", "integer from 1"),
    ("minmessagespertrigger", "20000", "minMessagesPerTrigger", "maxMessagesPerTrigger (10000)"),
    ("maxtriggerdelay", "soon", "maxTriggerDelay", "15m, 30s or 500ms"),
    ("maxtriggerdelay", "2d", "maxTriggerDelay", "at most 1d"),
])
def test_bad_options_name_option_value_and_valid_values(key, value, option, valid):
    raw = dict(BASE)
    if value is None:
        raw.pop(key)
    else:
        raw[key] = value
    with pytest.raises(MQOptionError) as info:
        ReadOptions.parse(raw)
    text = str(info.value)
    assert f"option '{option}'" in text
    assert (repr(value) if value is not None else "(missing)") in text
    assert valid in text


def test_trigger_minimum_and_delay():
    assert ReadOptions.parse(BASE).min_messages is None
    parsed = ReadOptions.parse({**BASE, "minMessagesPerTrigger": "50", "maxTriggerDelay": "30s"})
    assert (parsed.min_messages, parsed.max_trigger_delay_ms) == (50, 30_000)
    for given, ms in (("15m", 900_000), ("500ms", 500), ("250", 250), ("1h", 3_600_000)):
        assert ReadOptions.parse({**BASE, "maxTriggerDelay": given}).max_trigger_delay_ms == ms
    with pytest.raises(MQOptionError, match="readMode executors"):
        ReadOptions.parse({**BASE, "minMessagesPerTrigger": "5", "readMode": "executors"})


def test_default_schema_has_the_documented_columns():
    names = [name for name, _ in DEFAULT_COLUMNS]
    assert names[:4] == ["payload", "queue", "queue_manager", "message_id"]
    assert names[-2:] == ["properties", "text"] and len(names) == 25
    assert COLUMN_TYPES["put_timestamp"] == "timestamp"
    assert DEFAULT_SCHEMA.startswith("payload binary, queue string, queue_manager string, "
                                     "message_id binary")


def test_user_schema_columns_are_checked():
    specs = plan_columns([("payload", "binary"), ("amount", "bigint"), ("flag", "boolean")])
    assert [(s.name, s.is_property) for s in specs] == [
        ("payload", False), ("amount", True), ("flag", True)]
    with pytest.raises(MQOptionError, match=r"schema column 'priority': type string .*; valid: int$"):
        plan_columns([("priority", "string")])
    with pytest.raises(MQOptionError, match=r"schema column 'tags': type array<string> "):
        plan_columns([("tags", "array<string>")])


def test_property_conversion():
    assert convert_property(5, "bigint") == 5
    assert convert_property("17", "int") == 17
    assert convert_property(300, "tinyint") is None          # does not fit
    assert convert_property("abc", "int") is None
    assert convert_property(1, "boolean") is True
    assert convert_property("false", "boolean") is False
    assert convert_property(2.5, "double") == 2.5
    assert convert_property(b"\x01", "string") == "01"       # bytes show as hex
    assert convert_property(1_700_000_000_000, "timestamp") == 1_700_000_000_000_000
    assert convert_property(None, "string") is None


def test_put_timestamp():
    micros = put_timestamp_micros(b"20240229", b"23595999")
    expected = dt.datetime(2024, 2, 29, 23, 59, 59, 990000, tzinfo=dt.timezone.utc)
    assert micros == int(expected.timestamp() * 1_000_000)
    assert put_timestamp_micros(b"        ", b"        ") is None


def test_rows_from_a_message():
    import ibmmq
    md = ibmmq.MD()
    values = {name: getattr(md, name) for name in MD_FIELDS}
    values.update(MsgId=b"M" * 24, CorrelId=b"C" * 24, GroupId=b"\0" * 24, MsgSeqNumber=1,
                  PutDate=b"20250101", PutTime=b"12000000", Persistence=1, Format=b"MQSTR   ",
                  ReplyToQ=b"REPLY.Q" + b" " * 41, UserIdentifier=b"app\0\0\0\0\0\0\0\0\0",
                  PutApplName=b"x" * 28, Expiry=-1)
    message = Message(b"body", tuple(values[n] for n in MD_FIELDS), {"n": 3, "s": "v"},
                      records.plain(b"M" * 24))
    specs = plan_columns([(n, t) for n, t in DEFAULT_COLUMNS] + [("n", "int"), ("missing", "string")])
    [row] = to_rows([message], Source("Q1", "QM1"), specs)
    columns = dict(zip([s.name for s in specs], row))
    assert columns["payload"] == b"body" and columns["queue"] == "Q1"
    assert columns["persistent"] is True and columns["format"] == "MQSTR"
    assert columns["reply_to_queue"] == "REPLY.Q" and columns["user_id"] == "app"
    assert columns["put_timestamp"] == dt.datetime(2025, 1, 1, 12, tzinfo=dt.timezone.utc)
    assert columns["properties"] == {"n": "3", "s": "v"}
    assert columns["n"] == 3 and columns["missing"] is None


def test_records_round_trip():
    wanted = [records.plain(b"A" * 24), records.grouped(b"G" * 24, 7),
              records.reference(b"R" * 24, b"D" * 24)]
    assert records.decode(records.encode(wanted)) == wanted
    assert records.parse(wanted[1]) == (b"g", b"\0" * 24, b"G" * 24, 7)
    assert records.decode("") == []


def test_a_misspelt_option_fails_at_load_naming_it_and_the_right_one(spark):
    with pytest.raises(Exception, match=r"unknown option 'maxmessagepertrigger' for the mq data "
                                        r"source; did you mean 'maxMessagesPerTrigger'\?"):
        (spark.readStream.format("mq").option("connName", "localhost(1414)")
         .option("queue", "DEV.QUEUE.1").option("maxMessagePerTrigger", "5").load())
