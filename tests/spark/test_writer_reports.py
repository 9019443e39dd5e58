"""Report messages through real Spark (local[2]) against a real embedded queue manager: the
writer's `report` option asks for COA and COD reports (IBM docs: "Report (MQLONG)"), and the
reader reads the reports the queue manager sends to the reply-to queue as any message, with
msg_type MQMT_REPORT, feedback MQFB_COA / MQFB_COD and correlation_id the original's MsgId;
an opt-in `report int` column reads the Report field. A batch read browses, so it brings no
COD: the destructive get does."""
from __future__ import annotations

import pytest
from ibmmq import CMQC

from support import drain, mq_options

pytestmark = pytest.mark.timeout(300)


def _reports(spark, qm, reply: str) -> list:
    return (spark.read.format("mq").options(**mq_options(qm, queue=reply)).load()
            .orderBy("feedback").collect())


def test_reports_asked_by_the_writer_are_read_by_the_reader(spark, qm, conn, make_queue):
    queue, reply = make_queue(), make_queue(prefix="TEST.REPLY")
    df = spark.createDataFrame([(b"order-1", reply)], "payload binary, reply_to_queue string")
    (df.write.format("mq").options(**mq_options(qm, queue=queue, report="COA,COD_WITH_DATA"))
     .mode("append").save())
    [original] = (spark.read.format("mq").options(**mq_options(qm, queue=queue))
                  .schema("payload binary, message_id binary, report int").load().collect())
    assert original["report"] == CMQC.MQRO_COA | CMQC.MQRO_COD_WITH_DATA
    [coa] = _reports(spark, qm, reply)
    assert (coa["msg_type"], coa["feedback"], bytes(coa["payload"])) == (
        CMQC.MQMT_REPORT, CMQC.MQFB_COA, b"")
    assert bytes(coa["correlation_id"]) == bytes(original["message_id"])
    assert [body for _, body, _ in drain(conn, queue)] == [b"order-1"]
    cod = _reports(spark, qm, reply)[1]
    assert (cod["msg_type"], cod["feedback"], bytes(cod["payload"])) == (
        CMQC.MQMT_REPORT, CMQC.MQFB_COD, b"order-1")
    assert bytes(cod["correlation_id"]) == bytes(original["message_id"])
