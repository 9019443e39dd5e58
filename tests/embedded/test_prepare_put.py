"""A put to a queue and a publication share one MQPUT preamble (server verbs/prepare_put.py):
the same mistake in the MQMD or the put options gets the same reason code from both, and what
differs is only what the destination decides (a topic takes no message groups). Through IBM's
ibmmq API against the session's real embedded queue manager."""
from __future__ import annotations

import itertools
import os

import ibmmq
import pytest
from ibmmq import CMQC

_numbers = itertools.count(1)

#: MQMD fields and put options that are wrong, and the reason MQ gives for each
MISTAKES = {
    "priority below -1": ({"Priority": -2}, 0, CMQC.MQRC_PRIORITY_ERROR),
    "unknown persistence": ({"Persistence": 7}, 0, CMQC.MQRC_PERSISTENCE_ERROR),
    "expiry of zero": ({"Expiry": 0}, 0, CMQC.MQRC_EXPIRY_ERROR),
    "two context options": ({}, CMQC.MQPMO_NO_CONTEXT | CMQC.MQPMO_DEFAULT_CONTEXT,
                            CMQC.MQRC_OPTIONS_ERROR),
    "syncpoint and no syncpoint": ({}, CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_NO_SYNCPOINT,
                                   CMQC.MQRC_OPTIONS_ERROR),
}


@pytest.fixture
def topic() -> str:
    return f"test/prepare/{os.getpid()}/{next(_numbers)}"


def _put_reason(conn, queue_name: str, md: ibmmq.MD, options: int) -> int:
    queue = ibmmq.Queue(conn, queue_name, CMQC.MQOO_OUTPUT)
    try:
        queue.put(b"x", md, ibmmq.PMO(Options=options))
    except ibmmq.MQMIError as err:
        return int(err.reason)
    finally:
        queue.close()
    return CMQC.MQRC_NONE


def _publish_reason(conn, topic: str, md: ibmmq.MD, options: int) -> int:
    od = ibmmq.OD(ObjectType=CMQC.MQOT_TOPIC, Version=CMQC.MQOD_VERSION_4)
    od.set_vs("ObjectString", topic)
    handle = ibmmq.Topic(conn, topic_desc=od)
    handle.open(topic_desc=od, open_opts=CMQC.MQOO_OUTPUT)
    try:
        handle.pub(b"x", md, ibmmq.PMO(Options=options))
    except ibmmq.MQMIError as err:
        return int(err.reason)
    finally:
        handle.close()
    return CMQC.MQRC_NONE


@pytest.mark.parametrize("fields, options, expected", MISTAKES.values(), ids=list(MISTAKES))
def test_the_same_mistake_gets_the_same_reason_from_a_queue_and_a_topic(
        conn, make_queue, topic, fields, options, expected):
    queue_name = make_queue()
    assert _put_reason(conn, queue_name, ibmmq.MD(**fields), options) == expected
    assert _publish_reason(conn, topic, ibmmq.MD(**fields), options) == expected


def test_a_priority_above_nine_is_the_same_warning_from_both(conn, make_queue, topic):
    md = {"Priority": 12}
    assert _put_reason(conn, make_queue(), ibmmq.MD(**md), 0) == CMQC.MQRC_PRIORITY_EXCEEDS_MAXIMUM
    assert _publish_reason(conn, topic, ibmmq.MD(**md), 0) == CMQC.MQRC_PRIORITY_EXCEEDS_MAXIMUM


def test_a_topic_takes_no_message_group_where_a_queue_does(conn, make_queue, topic):
    grouped = {"Version": CMQC.MQMD_VERSION_2, "MsgFlags": CMQC.MQMF_MSG_IN_GROUP}
    assert _put_reason(conn, make_queue(), ibmmq.MD(**grouped), 0) == CMQC.MQRC_NONE
    assert _publish_reason(conn, topic, ibmmq.MD(**grouped), 0) == \
        CMQC.MQRC_MSG_NOT_ALLOWED_IN_GROUP


def test_logical_order_with_a_version_1_md_is_the_destinations_refusal(conn, make_queue, topic):
    """A queue refuses the MQMD version (it has no group fields); a topic refuses the group."""
    md = {"Version": CMQC.MQMD_VERSION_1}
    logical = CMQC.MQPMO_LOGICAL_ORDER
    assert _put_reason(conn, make_queue(), ibmmq.MD(**md), logical) == CMQC.MQRC_WRONG_MD_VERSION
    assert _publish_reason(conn, topic, ibmmq.MD(**md), logical) == \
        CMQC.MQRC_MSG_NOT_ALLOWED_IN_GROUP
