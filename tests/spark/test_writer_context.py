"""Message context from writer columns (identity and origin), through real Spark and a real
embedded queue manager: set-identity and set-all context, and the queue manager's own
context when the columns are absent or context=none."""
from __future__ import annotations

import pytest
from ibmmq import CMQC

from support import drain, mq_options

pytestmark = pytest.mark.timeout(300)


def text(raw: bytes) -> str:
    return raw.rstrip(b"\0 ").decode()


def test_identity_columns_set_identity_context(spark, qm, conn, make_queue):
    queue = make_queue()
    df = spark.createDataFrame(
        [("req-1", "alice", "order-42", bytes(range(32)))],
        "payload string, user_id string, appl_identity_data string, accounting_token binary")
    df.write.format("mq").options(**mq_options(qm, queue=queue)).mode("append").save()
    [(md, body, _)] = drain(conn, queue)
    assert body == b"req-1"
    assert text(md.UserIdentifier) == "alice"
    assert text(md.ApplIdentityData) == "order-42"
    assert md.AccountingToken == bytes(range(32))
    # identity only: the queue manager still sets the origin context
    assert md.PutApplType == CMQC.MQAT_UNIX and text(md.PutDate)


def test_origin_columns_set_all_context(spark, qm, conn, make_queue):
    queue = make_queue()
    df = spark.createDataFrame([("x", "bob", "BRIDGE.APP", 28, "ab")],
                               "payload string, user_id string, put_appl_name string, "
                               "put_appl_type int, appl_origin_data string")
    df.write.format("mq").options(**mq_options(qm, queue=queue)).mode("append").save()
    [(md, _, _)] = drain(conn, queue)
    assert text(md.UserIdentifier) == "bob"
    assert text(md.PutApplName) == "BRIDGE.APP"
    assert md.PutApplType == 28
    assert text(md.ApplOriginData) == "ab"
    assert len(text(md.PutDate)) == 8 and len(text(md.PutTime)) == 8


def test_context_none_leaves_context_to_the_queue_manager(spark, qm, conn, make_queue):
    queue = make_queue()
    df = spark.createDataFrame([("x", "mallory", "forged")],
                               "payload string, user_id string, appl_identity_data string")
    df.write.format("mq").options(**mq_options(qm, queue=queue, context="none")).mode("append").save()
    [(md, _, props)] = drain(conn, queue)
    assert text(md.UserIdentifier) != "mallory"
    assert text(md.ApplIdentityData) == ""
    assert "user_id" not in props and "appl_identity_data" not in props


def test_bad_context_column_type_fails_at_start(spark, qm, make_queue):
    queue = make_queue()
    df = spark.createDataFrame([("x", 7)], "payload string, appl_identity_data int")
    with pytest.raises(Exception) as failure:
        df.write.format("mq").options(**mq_options(qm, queue=queue)).mode("append").save()
    message = str(failure.value)
    assert "appl_identity_data" in message and "string" in message


def test_context_option_is_validated(spark, qm, make_queue):
    df = spark.createDataFrame([("x",)], "payload string")
    with pytest.raises(Exception) as failure:
        df.write.format("mq").options(**mq_options(qm, queue=make_queue(), context="pass")) \
            .mode("append").save()
    assert "context" in str(failure.value) and "auto | none" in str(failure.value)


def test_context_round_trips_through_writer_queue_and_reader(spark, qm, make_queue):
    queue = make_queue()
    df = spark.createDataFrame(
        [("hello", "carol", "corr-7", b"\x01" * 32, "APP.ORIGIN", 6, "zz")],
        "payload string, user_id string, appl_identity_data string, accounting_token binary, "
        "put_appl_name string, put_appl_type int, appl_origin_data string")
    df.write.format("mq").options(**mq_options(qm, queue=queue)).mode("append").save()
    schema = ("payload binary, user_id string, appl_identity_data string, "
              "accounting_token binary, put_appl_name string, put_appl_type int, "
              "appl_origin_data string")
    [row] = spark.read.format("mq").schema(schema).options(**mq_options(qm, queue=queue)).load().collect()
    assert (bytes(row.payload), row.user_id, row.appl_identity_data, bytes(row.accounting_token),
            row.put_appl_name, row.put_appl_type, row.appl_origin_data) == (
        b"hello", "carol", "corr-7", b"\x01" * 32, "APP.ORIGIN", 6, "zz")
