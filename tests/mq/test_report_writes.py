"""The writer's `report` option and column (no Spark): MQRO_ names parsed and refused with
the option, the value and the valid names; a row that asks for reports without a reply-to
queue fails naming the column (IBM MQ would answer 2027); and, against a real embedded queue
manager, a message written with report=COA brings a COA report to its reply-to queue, read
by the connector's browser with msg_type MQMT_REPORT and feedback MQFB_COA."""
from __future__ import annotations

import pytest
from ibmmq import CMQC

from spark_mq.mq import producer_pool
from spark_mq.mq.exceptions import MQOptionError
from spark_mq.mq.outgoing import Column, MessageDefaults, MessagePlan, RowValueError
from spark_mq.mq.producer import ProducerSettings
from spark_mq.mq.sink import write_partition
from spark_mq.options import WriteOptions, parse_connection
from support import drain, mq_options

BASE = {"connName": "localhost(1414)", "queue": "Q1"}


@pytest.mark.parametrize("given, bits", [
    ("none", 0),
    ("COA", CMQC.MQRO_COA),
    ("coa, cod_with_data ,EXCEPTION_WITH_FULL_DATA", CMQC.MQRO_COA | CMQC.MQRO_COD_WITH_DATA
     | CMQC.MQRO_EXCEPTION_WITH_FULL_DATA),
    ("MQRO_EXPIRATION,PASS_MSG_ID,PASS_CORREL_ID,PASS_DISCARD_AND_EXPIRY,DISCARD_MSG",
     CMQC.MQRO_EXPIRATION | CMQC.MQRO_PASS_MSG_ID | CMQC.MQRO_PASS_CORREL_ID
     | CMQC.MQRO_PASS_DISCARD_AND_EXPIRY | CMQC.MQRO_DISCARD_MSG),
    ("256", CMQC.MQRO_COA),
])
def test_report_names_become_mqro_bits(given, bits):
    assert WriteOptions.parse({**BASE, "report": given}, streaming=True).report == bits
    assert WriteOptions.parse(BASE, streaming=True).report == 0


@pytest.mark.parametrize("given, valid", [
    ("COA,BOGUS", "COA, COA_WITH_DATA"),
    ("PAN", "DISCARD_MSG"),
    ("COA,COA_WITH_DATA", "COA once"),
    (" , ", "none, or a comma-separated list"),
])
def test_a_bad_report_value_names_the_option_the_value_and_what_is_valid(given, valid):
    with pytest.raises(MQOptionError) as refused:
        WriteOptions.parse({**BASE, "report": given}, streaming=True)
    message = str(refused.value)
    assert "report" in message and repr(given) in message and valid in message


def test_a_row_asking_for_reports_needs_a_reply_to_queue():
    plan = MessagePlan([Column("payload", "binary"), Column("report", "integer")])
    with pytest.raises(RowValueError) as refused:
        plan.message((b"x", CMQC.MQRO_COD))
    assert "reply_to_queue" in str(refused.value) and "2027" in str(refused.value)
    optioned = MessagePlan([Column("payload", "binary")],
                           defaults=MessageDefaults(report=CMQC.MQRO_COA))
    with pytest.raises(RowValueError):
        optioned.message((b"x",))
    # how a report is made asks for none: no reply-to queue needed
    assert plan.message((b"x", CMQC.MQRO_PASS_MSG_ID)).report == CMQC.MQRO_PASS_MSG_ID


def test_the_column_wins_over_the_option():
    plan = MessagePlan([Column("payload", "binary"), Column("report", "integer"),
                        Column("reply_to_queue", "string")],
                       defaults=MessageDefaults(report=CMQC.MQRO_COA))
    assert plan.message((b"x", CMQC.MQRO_COD, "R")).report == CMQC.MQRO_COD
    assert plan.message((b"x", None, "R")).report == CMQC.MQRO_COA


def test_a_coa_report_comes_back_and_reads_as_a_report(qm, conn, make_queue):
    """IBM docs, "Report (MQLONG)": MQRO_COA; the report's CorrelId is the original's MsgId."""
    queue, reply = make_queue(), make_queue(prefix="TEST.REPLY")
    options = parse_connection(mq_options(qm))
    settings = ProducerSettings()
    producer, maxumsgs = producer_pool.acquire(options, settings)
    plan = MessagePlan([Column("payload", "binary"), Column("reply_to_queue", "string")],
                       defaults=MessageDefaults(report=CMQC.MQRO_COA_WITH_DATA))
    write_partition([(b"order 1", reply)], plan, producer, queue, 100, maxumsgs - 2)
    producer_pool.release(options, settings, producer, healthy=True)
    [(original, body, _)] = drain(conn, queue)
    assert body == b"order 1" and original.Report == CMQC.MQRO_COA_WITH_DATA
    [(report, data, _)] = drain(conn, reply)
    assert (report.MsgType, report.Feedback, data) == (CMQC.MQMT_REPORT, CMQC.MQFB_COA, b"order 1")
    assert report.CorrelId == original.MsgId
