"""A null payload is an error naming the column and the row, unless nullPayload=empty."""
from __future__ import annotations

import pytest

from spark_mq.errors import MQOptionError
from spark_mq.mq.outgoing import Column, MessageDefaults, MessagePlan, RowValueError
from spark_mq.options import WriteOptions

COLUMNS = [Column("payload", "string"), Column("colour", "string")]


def test_a_null_payload_fails_naming_the_column_and_the_way_out():
    plan = MessagePlan(COLUMNS)
    with pytest.raises(RowValueError) as info:
        plan.message((None, "red"))
    assert "column 'payload' is null" in str(info.value) and "nullPayload=empty" in str(info.value)


def test_null_payload_empty_puts_an_empty_message():
    message = MessagePlan(COLUMNS, defaults=MessageDefaults(null_payload="empty")).message((None, "red"))
    assert message.payload == b"" and message.properties == [("colour", "red", "string")]


def test_the_option_is_checked():
    base = {"connName": "localhost(1414)", "queue": "Q"}
    assert WriteOptions.parse(base, streaming=True).null_payload == "error"
    assert WriteOptions.parse({**base, "nullPayload": "EMPTY"}, streaming=True).null_payload == "empty"
    with pytest.raises(MQOptionError, match="option 'nullPayload'.*'skip'.*error \\| empty"):
        WriteOptions.parse({**base, "nullPayload": "skip"}, streaming=True)
