"""Conformance: 2027 MQRC_MISSING_REPLY_TO_Q through IBM's `ibmmq` API. IBM docs, "ReplyToQ
(MQCHAR48)": "For the MQPUT and MQPUT1 calls, this field must not be blank if the MsgType
field has the value MQMT_REQUEST, or if any report messages are requested by the Report
field"; and "2027 (07EB) (RC2027): MQRC_MISSING_REPLY_TO_Q". Report options that only say
how a report is made (PASS_MSG_ID, DISCARD_MSG...) ask for none and need no ReplyToQ."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC

REQUESTS = [
    pytest.param({"MsgType": CMQC.MQMT_REQUEST}, id="request"),
    *[pytest.param({"Report": getattr(CMQC, name)}, id=name) for name in (
        "MQRO_COA", "MQRO_COA_WITH_DATA", "MQRO_COA_WITH_FULL_DATA", "MQRO_COD",
        "MQRO_COD_WITH_FULL_DATA", "MQRO_EXCEPTION", "MQRO_EXCEPTION_WITH_DATA",
        "MQRO_EXPIRATION", "MQRO_EXPIRATION_WITH_FULL_DATA", "MQRO_PAN", "MQRO_NAN")],
    pytest.param({"MsgType": CMQC.MQMT_REQUEST, "ReplyToQMgr": b"QM1"}, id="qmgr-only"),
]
NOT_REQUESTS = [
    pytest.param({"MsgType": CMQC.MQMT_DATAGRAM}, id="datagram"),
    pytest.param({"MsgType": CMQC.MQMT_REPLY}, id="reply"),
    pytest.param({"MsgType": CMQC.MQMT_REPORT, "Feedback": CMQC.MQFB_COA}, id="report"),
    pytest.param({"Report": CMQC.MQRO_PASS_MSG_ID | CMQC.MQRO_PASS_CORREL_ID
                  | CMQC.MQRO_DISCARD_MSG | CMQC.MQRO_NEW_MSG_ID}, id="report-how-only"),
]


@pytest.fixture
def queue(conn, make_queue):
    name = make_queue()
    handle = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE)
    yield name, handle
    handle.close()


def _depth(handle: ibmmq.Queue) -> int:
    return int(handle.inquire(CMQC.MQIA_CURRENT_Q_DEPTH))


@pytest.mark.parametrize("fields", REQUESTS)
def test_a_request_or_report_request_without_a_reply_to_queue_is_2027(conn, queue, fields):
    name, handle = queue
    with pytest.raises(ibmmq.MQMIError) as put:
        handle.put(b"where to?", ibmmq.MD(**fields))
    assert (put.value.comp, put.value.reason) == (CMQC.MQCC_FAILED,
                                                  CMQC.MQRC_MISSING_REPLY_TO_Q)
    with pytest.raises(ibmmq.MQMIError) as put1:
        conn.put1(name, b"where to?", ibmmq.MD(**fields))
    assert put1.value.reason == CMQC.MQRC_MISSING_REPLY_TO_Q
    assert _depth(handle) == 0
    handle.put(b"here", ibmmq.MD(ReplyToQ=b"REPLIES", **fields))
    conn.put1(name, b"here", ibmmq.MD(ReplyToQ=b"REPLIES", **fields))
    assert _depth(handle) == 2


@pytest.mark.parametrize("fields", NOT_REQUESTS)
def test_messages_that_ask_for_nothing_need_no_reply_to_queue(queue, fields):
    _, handle = queue
    handle.put(b"fine", ibmmq.MD(**fields))
    assert _depth(handle) == 1


def test_a_request_published_without_a_reply_to_queue_is_2027(conn):
    """MQPUT on a topic handle is an MQPUT too."""
    topic = ibmmq.Topic(conn, topic_string="edges/reply/to")
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    try:
        with pytest.raises(ibmmq.MQMIError) as put:
            topic.pub(b"where to?", ibmmq.MD(MsgType=CMQC.MQMT_REQUEST))
        assert put.value.reason == CMQC.MQRC_MISSING_REPLY_TO_Q
        topic.pub(b"here", ibmmq.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"REPLIES"))
    finally:
        topic.close()
