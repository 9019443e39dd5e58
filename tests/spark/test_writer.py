"""The writer through real Spark (local[2]) against a real embedded queue manager process:
every column and property type, routing by the queue column, errors at query start,
asynchronous put failures, segmentation and the reference/data pattern."""
from __future__ import annotations

import datetime as dt
import json
import re

import ibmmq
import pytest
from ibmmq import CMQC
from pyspark.sql.types import (
    BinaryType,
    BooleanType,
    ByteType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from support import depth, drain, mq_options, read_properties, text

pytestmark = pytest.mark.timeout(300)


# --- every column and property type ---------------------------------------------------
ALL_SCHEMA = StructType([
    StructField("payload", StringType()),
    StructField("correlation_id", BinaryType()),
    StructField("group_id", StringType()),
    StructField("reply_to_queue", StringType()),
    StructField("reply_to_qmgr", StringType()),
    StructField("priority", IntegerType()),
    StructField("persistent", BooleanType()),
    StructField("expiry", IntegerType()),
    StructField("msg_type", IntegerType()),
    StructField("format", StringType()),
    StructField("ccsid", IntegerType()),
    StructField("properties", MapType(StringType(), StringType())),
    StructField("p_string", StringType()),
    StructField("p_bool", BooleanType()),
    StructField("p_byte", ByteType()),
    StructField("p_short", ShortType()),
    StructField("p_int", IntegerType()),
    StructField("p_long", LongType()),
    StructField("p_float", FloatType()),
    StructField("p_double", DoubleType()),
    StructField("p_binary", BinaryType()),
    StructField("p_null", StringType()),
    StructField("p_time", TimestampType()),
])
WHEN = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)


def test_batch_write_sets_every_mqmd_column_and_types_every_property(spark, qm, conn, make_queue):
    queue = make_queue()
    rows = [("héllo", b"corr-1", "group-1", "REPLY.Q", "QM9", 7, False, 600000, 2, "MYFMT", 819,
             {"from_map": "m", "p_string": "map loses to the column"},
             "ünïcode", True, -8, 300, -70000, 1 << 40, 1.5, 2.25, b"\x00\xff", None, WHEN),
            ("plain", None, None, None, None, None, None, None, None, None, None, None,
             None, None, None, None, None, None, None, None, None, None, None)]
    df = spark.createDataFrame(rows, ALL_SCHEMA).coalesce(1)
    df.write.format("mq").options(**mq_options(qm, queue=queue)).mode("append").save()

    messages = drain(conn, queue)
    assert len(messages) == 2
    md, body, props = messages[0]
    assert body == "héllo".encode("latin-1")      # the row's CCSID 819, not UTF-8
    assert md.CorrelId == b"corr-1".ljust(24, b"\0")
    assert md.GroupId == b"group-1".ljust(24, b"\0")
    assert text(md.ReplyToQ) == "REPLY.Q" and text(md.ReplyToQMgr) == "QM9"
    assert md.Priority == 7 and md.Persistence == CMQC.MQPER_NOT_PERSISTENT
    assert 0 < md.Expiry <= 600000 and md.MsgType == 2
    assert md.Format == b"MYFMT   " and md.CodedCharSetId == 819
    assert props == {"from_map": "m", "p_string": "ünïcode", "p_bool": 1, "p_byte": -8,
                     "p_short": 300, "p_int": -70000, "p_long": 1 << 40, "p_float": 1.5,
                     "p_double": 2.25, "p_binary": b"\x00\xff", "p_null": None,
                     "p_time": int(WHEN.timestamp() * 1000)}
    md, body, props = messages[1]
    assert body == b"plain"
    assert md.CorrelId == CMQC.MQCI_NONE and md.Priority == 0     # the queue's DEFPRTY
    assert md.Persistence == CMQC.MQPER_PERSISTENT                # option default: persistent
    assert md.Expiry == CMQC.MQEI_UNLIMITED and md.MsgType == CMQC.MQMT_DATAGRAM
    assert md.Format == CMQC.MQFMT_STRING and md.CodedCharSetId == 1208
    assert props["p_null"] is None and props["p_string"] is None


def test_property_types_travel_as_mq_types_in_the_rfh2(spark, qm, conn, make_queue):
    """The MQ type of each property, seen where it is explicit: the MQRFH2's dt attributes."""
    queue = make_queue()
    df = spark.createDataFrame([(b"x", "s", True, 1, 2, 3, 4, 1.5, 2.5, b"\x01", None)],
                               "payload binary, ps string, pb boolean, pi8 byte, pi16 short, "
                               "pi32 int, pi64 bigint, pf float, pd double, pbin binary, "
                               "pnull string")
    df.write.format("mq").options(**mq_options(qm, queue=queue)).mode("append").save()
    [(md, body, _)] = drain(conn, queue, force_rfh2=True)
    xml = body.decode("utf-8", "replace")
    types = dict(re.findall(r"<(p\w+)(?: dt=['\"]([\w.]+)['\"])?", xml))
    assert types == {"ps": "", "pb": "boolean", "pi8": "i1", "pi16": "i2", "pi32": "i4",
                     "pi64": "i8", "pf": "r4", "pd": "r8", "pbin": "bin.hex", "pnull": ""}
    assert re.search(r"<pnull xsi:nil=['\"]true['\"]\s*/>|<pnull[^>]*nil", xml)


def test_binary_payload_and_per_row_persistence_option(spark, qm, conn, make_queue):
    queue = make_queue()
    df = spark.createDataFrame([(bytes([i]) * 3,) for i in range(5)], "payload binary")
    (df.write.format("mq").options(**mq_options(qm, queue=queue, persistence="nonPersistent",
                                                asyncPut="false", commitEvery=2))
     .mode("append").save())
    messages = drain(conn, queue)
    assert sorted(body for _, body, _ in messages) == [bytes([i]) * 3 for i in range(5)]
    assert {md.Persistence for md, _, _ in messages} == {CMQC.MQPER_NOT_PERSISTENT}
    assert {md.Format for md, _, _ in messages} == {CMQC.MQFMT_NONE}


# --- routing ------------------------------------------------------------------------------
def test_stream_routes_each_row_by_its_queue_column(spark, qm, conn, make_queue, tmp_path):
    queues = [make_queue() for _ in range(3)]
    source = tmp_path / "in"
    source.mkdir()
    with open(source / "part-0.json", "w") as handle:
        for i in range(90):
            handle.write(json.dumps({"payload": f"m{i}", "queue": queues[i % 3], "n": i}) + "\n")
    stream = (spark.readStream.schema("payload string, queue string, n int").json(str(source))
              .writeStream.format("mq").options(**mq_options(qm, commitEvery=7))
              .option("checkpointLocation", str(tmp_path / "chk"))
              .trigger(availableNow=True).start())
    stream.awaitTermination(120)
    assert stream.exception() is None
    for index, queue in enumerate(queues):
        messages = drain(conn, queue)
        assert sorted(props["n"] for _, _, props in messages) == list(range(index, 90, 3))
        assert {body for _, body, _ in messages} == {f"m{n}".encode() for n in range(index, 90, 3)}
        assert all("queue" not in props for _, _, props in messages)


# --- errors at query start ---------------------------------------------------------------
def _start_error(spark, df, options: dict) -> str:
    with pytest.raises(Exception) as excinfo:
        df.write.format("mq").options(**options).mode("append").save()
    return str(excinfo.value)


def test_missing_payload_column_fails_at_start_naming_it(spark, qm, make_queue):
    df = spark.createDataFrame([("x",)], "body string")
    message = _start_error(spark, df, mq_options(qm, queue=make_queue()))
    assert "no 'payload' column" in message and "body" in message


def test_unknown_queue_fails_at_start_with_2085_and_its_name(spark, qm):
    df = spark.createDataFrame([("x",)], "payload string")
    message = _start_error(spark, df, mq_options(qm, queue="NO.SUCH.QUEUE"))
    assert "2085" in message and "MQRC_UNKNOWN_OBJECT_NAME" in message
    assert "NO.SUCH.QUEUE" in message


def test_unknown_queue_in_the_queue_column_fails_with_2085_and_its_name(spark, qm):
    df = spark.createDataFrame([("x", "ROUTED.NOWHERE")], "payload string, queue string")
    message = _start_error(spark, df, mq_options(qm))
    assert "2085" in message and "ROUTED.NOWHERE" in message


def test_a_null_queue_column_without_a_queue_option_fails_naming_the_column(spark, qm):
    df = spark.createDataFrame([("x", None)], "payload string, queue string")
    message = _start_error(spark, df, mq_options(qm))
    assert "column 'queue' is null" in message


def test_a_column_that_cannot_be_a_property_fails_at_start_naming_column_and_type(
        spark, qm, make_queue):
    df = spark.createDataFrame([("x", [1, 2])], "payload string, tags array<int>")
    message = _start_error(spark, df, mq_options(qm, queue=make_queue()))
    assert "column 'tags'" in message and "array" in message and "valid property types" in message
    df = spark.createDataFrame([("x", 1)], StructType([StructField("payload", StringType()),
                                                       StructField("bad name", IntegerType())]))
    message = _start_error(spark, df, mq_options(qm, queue=make_queue()))
    assert "column 'bad name'" in message and "property name" in message


@pytest.mark.parametrize("option,value,expected", [
    ("persistence", "sometimes", "persistent | nonPersistent | asQueueDef"),
    ("asyncPut", "maybe", "true | false"),
    ("commitEvery", "0", "an integer from 1"),
    ("commitEvery", "20000", "MAXUMSGS 10000"),
    ("delivery", "twice", "exactlyOnce | atLeastOnce"),
    ("largeMessageThreshold", "-5", "an integer from 1"),
])
def test_bad_options_fail_at_start_naming_option_value_and_valid_values(
        spark, qm, make_queue, option, value, expected):
    df = spark.createDataFrame([("x",)], "payload string")
    message = _start_error(spark, df, {**mq_options(qm, queue=make_queue()), option: value})
    assert f"option '{option}'" in message and value in message
    assert expected in message


def test_a_missing_queue_option_without_a_queue_column_fails_at_start(spark, qm):
    df = spark.createDataFrame([("x",)], "payload string")
    message = _start_error(spark, df, mq_options(qm))
    assert "option 'queue'" in message and "'queue' column" in message


def test_stream_errors_fail_when_the_query_starts(spark, qm, tmp_path):
    df = spark.readStream.format("rate").load().selectExpr("value AS n")
    with pytest.raises(Exception) as excinfo:
        (df.writeStream.format("mq").options(**mq_options(qm, queue="X"))
         .option("checkpointLocation", str(tmp_path / "chk")).start().awaitTermination(60))
    assert "no 'payload' column" in str(excinfo.value)


# --- asynchronous put failures -----------------------------------------------------------
def test_async_put_failure_fails_the_write_with_its_reason_and_backs_out(spark, qm, conn,
                                                                         make_queue):
    queue = make_queue()
    qm.run_mqsc(f"ALTER QLOCAL({queue}) MAXDEPTH(5)")
    df = spark.createDataFrame([(f"m{i}",) for i in range(40)], "payload string").coalesce(1)
    message = _start_error(spark, df, mq_options(qm, queue=queue, commitEvery=20))
    assert "2053" in message and "MQRC_Q_FULL" in message and queue in message
    assert "asynchronous put" in message
    assert depth(conn, queue) == 0           # the failed unit of work was backed out


def test_async_put_failure_keeps_earlier_committed_chunks_only(spark, qm, conn, make_queue):
    queue = make_queue()
    qm.run_mqsc(f"ALTER QLOCAL({queue}) MAXDEPTH(25)")
    df = spark.createDataFrame([(f"m{i}",) for i in range(40)], "payload string").coalesce(1)
    message = _start_error(spark, df, mq_options(qm, queue=queue, commitEvery=10))
    assert "MQRC_Q_FULL" in message
    # chunks of 10: two committed; the third failed at its 6th put and was backed out whole
    assert [body for _, body, _ in drain(conn, queue)] == [f"m{i}".encode() for i in range(20)]


# --- large messages ----------------------------------------------------------------------
BIG = 10 * 1024 * 1024


def _big_payload() -> bytes:
    return bytes(range(256)) * (BIG // 256)


def test_large_payload_without_properties_is_segmented_by_the_queue_manager(spark, qm, conn,
                                                                          make_queue):
    queue = make_queue("MAXMSGL(4194304)")
    payload = _big_payload()
    df = spark.createDataFrame([(payload,)], "payload binary")
    df.write.format("mq").options(**mq_options(qm, queue=queue)).mode("append").save()
    assert depth(conn, queue) == 3           # three segments of at most 4 MiB
    [(md, body, _)] = drain(conn, queue)
    assert body == payload


def test_large_payload_without_segmentation_fails_with_2030(spark, qm, make_queue):
    queue = make_queue("MAXMSGL(1048576)")
    df = spark.createDataFrame([(b"x" * 2_000_000,)], "payload binary")
    message = _start_error(spark, df, mq_options(qm, queue=queue, segmentation="false"))
    assert "2030" in message and "MQRC_MSG_TOO_BIG_FOR_Q" in message


def test_large_payload_with_properties_uses_the_reference_data_pattern(spark, qm, conn,
                                                                       make_queue):
    queue = make_queue("MAXMSGL(4194304)")
    payload = _big_payload()
    df = spark.createDataFrame([(payload, "blue", 42, b"c-1")],
                               "payload binary, colour string, size int, correlation_id binary")
    df.write.format("mq").options(**mq_options(qm, queue=queue)).mode("append").save()
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED)
    props = ibmmq.MessageHandle(conn)
    md = ibmmq.MD()
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE
                    | CMQC.MQGMO_SYNCPOINT, Version=CMQC.MQGMO_VERSION_4,
                    MsgHandle=props.msg_handle)
    assert handle.get(None, md, gmo) == b""
    assert md.Format == b"SPKMQREF" and md.CorrelId == b"c-1".ljust(24, b"\0")
    reference = read_properties(props)
    group_id = reference.pop("SparkMQDataGroupId")
    assert reference == {"colour": "blue", "size": 42, "SparkMQDataLength": BIG}
    assert len(group_id) == 24
    md = ibmmq.MD(GroupId=group_id)
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_COMPLETE_MSG | CMQC.MQGMO_SYNCPOINT,
                    MatchOptions=CMQC.MQMO_MATCH_GROUP_ID, Version=CMQC.MQGMO_VERSION_4)
    body = handle.get(None, md, gmo)
    conn.commit()
    handle.close()
    assert body == payload and md.Format == b"SPKMQDAT" and md.GroupId == group_id
    assert md.MsgFlags & CMQC.MQMF_LAST_MSG_IN_GROUP and md.MsgSeqNumber == 1
    assert depth(conn, queue) == 0


def test_reference_data_pair_reads_back_as_one_row(spark, qm, conn, make_queue):
    queue = make_queue("MAXMSGL(4194304)")
    payload = _big_payload()
    df = spark.createDataFrame([(payload, "blue")], "payload binary, colour string")
    df.write.format("mq").options(**mq_options(qm, queue=queue)).mode("append").save()
    rows = (spark.read.format("mq").options(**mq_options(qm, queue=queue))
            .schema("payload binary, colour string, properties map<string,string>").load()
            .collect())
    assert len(rows) == 1
    assert bytes(rows[0]["payload"]) == payload and rows[0]["colour"] == "blue"
    assert "SparkMQDataGroupId" not in (rows[0]["properties"] or {})


# --- with the reader ---------------------------------------------------------------------
def test_rows_read_with_the_default_schema_copy_to_another_queue(spark, qm, conn, make_queue):
    """The reader's delivery-only columns are ignored; the others keep their meaning."""
    source, target = make_queue(), make_queue()
    df = spark.createDataFrame([(b"body-1", b"corr", 4, "blue")],
                               "payload binary, correlation_id binary, priority int, colour string")
    df.write.format("mq").options(**mq_options(qm, queue=source)).mode("append").save()
    copied = spark.read.format("mq").options(**mq_options(qm, queue=source)).load()
    assert "put_timestamp" in copied.columns and "message_id" in copied.columns
    # the queue option wins over the reader's queue column, as Kafka's topic option does
    copied.write.format("mq").options(**mq_options(qm, queue=target)).mode("append").save()
    assert depth(conn, source) == 1
    [(md, body, props)] = drain(conn, target)
    assert body == b"body-1" and md.CorrelId == b"corr".ljust(24, b"\0") and md.Priority == 4
    assert props == {"colour": "blue"}


def test_save_modes(spark, qm, conn, make_queue):
    """A queue is only ever appended to: overwrite is refused, naming the valid mode."""
    queue = make_queue()
    df = spark.createDataFrame([("a",)], "payload string")
    df.write.format("mq").options(**mq_options(qm, queue=queue)).mode("append").save()
    with pytest.raises(Exception) as excinfo:
        df.write.format("mq").options(**mq_options(qm, queue=queue)).mode("overwrite").save()
    assert "option 'mode'" in str(excinfo.value) and "append" in str(excinfo.value)
    assert depth(conn, queue) == 1


def test_stream_from_one_queue_to_another(spark, qm, conn, make_queue, tmp_path):
    """The flagship pipeline: readStream.format("mq") -> writeStream.format("mq"), both
    exactly-once; the rows keep their properties and correlation ids."""
    source, target = make_queue(), make_queue()
    df = spark.createDataFrame([(f"m{i}".encode(), f"c{i}".encode(), i) for i in range(60)],
                               "payload binary, correlation_id binary, n int")
    df.write.format("mq").options(**mq_options(qm, queue=source)).mode("append").save()
    query = (spark.readStream.format("mq").options(**mq_options(qm, queue=source))
             .option("maxMessagesPerTrigger", "25")
             .schema("payload binary, correlation_id binary, n int").load()
             .writeStream.format("mq").options(**mq_options(qm, queue=target, commitEvery=10))
             .option("checkpointLocation", str(tmp_path / "chk"))
             .trigger(availableNow=True).start())
    query.awaitTermination(180)
    assert query.exception() is None
    assert depth(conn, source) == 0
    copied = drain(conn, target)
    assert sorted(props["n"] for _, _, props in copied) == list(range(60))
    assert {md.CorrelId for md, _, _ in copied} == {f"c{i}".encode().ljust(24, b"\0")
                                                   for i in range(60)}
