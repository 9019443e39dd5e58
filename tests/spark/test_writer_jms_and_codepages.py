"""Code pages and JMS messages through real Spark (local[2]) into a real embedded queue
manager: string payloads in the rows' CCSIDs (batch and stream), TextMessages with JMS
headers as a JMS receiver sees them, and the errors at query start."""
from __future__ import annotations

import datetime as dt
import json

import pytest
from ibmmq import CMQC

from spark_mq.mqi.properties import decode_rfh2
from support import drain, mq_options

pytestmark = pytest.mark.timeout(300)

TEXT = "Caf\u00e9 [42] ^ | !"


def test_rows_with_ccsid_37_arrive_as_ebcdic_bytes(spark, qm, conn, make_queue):
    queue = make_queue()
    df = spark.createDataFrame([(TEXT, 37, 1), (TEXT, None, 2), ("A\u00e9", 1200, 3)],
                               "payload string, ccsid int, n int").coalesce(1)
    (df.write.format("mq").options(**mq_options(qm, queue=queue, ccsid=500, encoding=273))
     .mode("append").save())
    got = {props["n"]: (md, body) for md, body, props in drain(conn, queue)}
    assert got[1][1] == TEXT.encode("cp037") and got[1][0].CodedCharSetId == 37
    assert got[2][1] == TEXT.encode("cp500") and got[2][0].CodedCharSetId == 500
    assert got[3][1] == "A\u00e9".encode("utf-16-be") and got[3][0].Encoding == 273
    assert {md.Format for md, _ in got.values()} == {CMQC.MQFMT_STRING}


def test_a_stream_writes_its_rows_in_the_ccsid_column(spark, qm, conn, make_queue, tmp_path):
    queue = make_queue()
    source = tmp_path / "in"
    source.mkdir()
    (source / "a.json").write_text("".join(json.dumps({"n": n}) + "\n" for n in range(20)))
    query = (spark.readStream.schema("n int").json(str(source))
             .selectExpr("concat('r\u00e9ponse ', n) AS payload", "37 AS ccsid", "n")
             .writeStream.format("mq").options(**mq_options(qm, queue=queue))
             .option("checkpointLocation", str(tmp_path / "chk"))
             .trigger(availableNow=True).start())
    query.awaitTermination(180)
    assert query.exception() is None
    got = drain(conn, queue)
    assert sorted(body for _, body, _ in got) == sorted(
        f"r\u00e9ponse {n}".encode("cp037") for n in range(20))
    assert {md.CodedCharSetId for md, _, _ in got} == {37}


def test_unencodable_text_fails_the_write_naming_column_and_character(spark, qm, make_queue):
    df = spark.createDataFrame([("5 \u20ac", 37)], "payload string, ccsid int")
    with pytest.raises(Exception) as failure:
        df.write.format("mq").options(**mq_options(qm, queue=make_queue())).mode("append").save()
    message = str(failure.value)
    assert "column 'payload'" in message and "'\u20ac'" in message and "CCSID 37" in message


def test_an_unknown_ccsid_option_fails_at_start(spark, qm, make_queue):
    df = spark.createDataFrame([("x",)], "payload string")
    with pytest.raises(Exception) as failure:
        df.write.format("mq").options(**mq_options(qm, queue=make_queue(), ccsid=4242)) \
            .mode("append").save()
    message = str(failure.value)
    assert "ccsid" in message and "4242" in message and "1208" in message


def test_jms_text_messages_with_headers(spark, qm, conn, make_queue):
    queue = make_queue()
    stamp = dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=dt.timezone.utc)
    df = spark.createDataFrame(
        [("<order id='1'/>", "Order", "queue://QM1/REPLY.Q", stamp, "ID:" + "ab" * 24, 1, 8,
          "eu", 7)],
        "payload string, jms_type_name string, jms_reply_to string, jms_timestamp timestamp, "
        "jms_correlation_id string, jms_delivery_mode int, jms_priority int, region string, "
        "n long")
    copy = make_queue()
    for target in (queue, copy):
        (df.write.format("mq").options(**mq_options(qm, queue=target, jmsMessageType="text"))
         .mode("append").save())
    [(md, body, props)] = drain(conn, queue)
    assert body == b"<order id='1'/>"
    assert props["mcd.Msd"] == "jms_text" and props["JMSType"] == "Order"
    assert props["JMSDestination"] == f"queue:///{queue}"
    assert props["JMSReplyTo"] == "queue://QM1/REPLY.Q"
    assert str(props["JMSTimestamp"]) == "1700000000000"
    assert "JMSCorrelationID" not in props and md.CorrelId == b"\xab" * 24
    assert (props["region"], props["n"]) == ("eu", 7)
    assert (md.Persistence, md.Priority) == (CMQC.MQPER_NOT_PERSISTENT, 8)
    assert (md.ReplyToQ.rstrip(b"\0 "), md.ReplyToQMgr.rstrip(b"\0 ")) == (b"REPLY.Q", b"QM1")
    [(md, body, _)] = drain(conn, copy, force_rfh2=True)
    assert md.Format == CMQC.MQFMT_RF_HEADER_2
    decoded = decode_rfh2(body)
    assert decoded.rest == b"<order id='1'/>" and decoded.format == b"MQSTR   "
    assert {p.name: p.value for p in decoded.properties}["mcd.Msd"] == "jms_text"


def test_jms_columns_without_jms_message_type_fail_at_start(spark, qm, make_queue):
    df = spark.createDataFrame([("x", "queue:///Q")], "payload string, jms_destination string")
    with pytest.raises(Exception) as failure:
        df.write.format("mq").options(**mq_options(qm, queue=make_queue())).mode("append").save()
    assert "jms_destination" in str(failure.value) and "jmsMessageType" in str(failure.value)
