"""Conformance: a message's identity context. The AccountingToken IBM MQ on Unix makes for
a default context, and the reasons MQPUT gives for a context option the handle was not
opened for; through the ibmmq API against the session's embedded queue manager."""
from __future__ import annotations

import os

import ibmmq
import pytest
from ibmmq import CMQC


def reason(excinfo) -> int:
    return excinfo.value.reason


def nowait() -> ibmmq.GMO:
    return ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT)


def unix_token(uid: int) -> bytes:
    """MQ's documented layout: length byte, the numeric user id in ASCII, binary zeros, and
    MQACTT_UNIX_NUMERIC_ID in the last of the 32 bytes."""
    digits = str(uid).encode()
    return bytes([len(digits)]) + digits + b"\0" * (30 - len(digits)) + CMQC.MQACTT_UNIX_NUMERIC_ID


# The queue manager runs as this test's user (a child process of it): its uid is the token's.
EXPECTED_TOKEN = unix_token(os.getuid())


def got(conn, name: str) -> ibmmq.MD:
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_SHARED)
    md = ibmmq.MD()
    try:
        queue.get(None, md, nowait())
    finally:
        queue.close()
    return md


@pytest.mark.parametrize("options", [CMQC.MQPMO_NONE, CMQC.MQPMO_DEFAULT_CONTEXT])
def test_default_context_fills_the_accounting_token(conn, make_queue, options):
    name = make_queue()
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT)
    md = ibmmq.MD(AccountingToken=b"spoofed")
    queue.put(b"x", md, ibmmq.PMO(Options=options))
    queue.close()
    assert md.AccountingToken == EXPECTED_TOKEN   # the MD the put returns
    assert got(conn, name).AccountingToken == EXPECTED_TOKEN


def test_put1_default_context_fills_the_accounting_token(conn, make_queue):
    name = make_queue()
    conn.put1(name, b"x")
    assert got(conn, name).AccountingToken == EXPECTED_TOKEN


def test_set_identity_context_keeps_the_putters_token(conn, make_queue):
    name = make_queue()
    mine = b"\x03abc".ljust(32, b"\0")
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_IDENTITY_CONTEXT)
    queue.put(b"x", ibmmq.MD(AccountingToken=mine),
              ibmmq.PMO(Options=CMQC.MQPMO_SET_IDENTITY_CONTEXT))
    queue.close()
    assert got(conn, name).AccountingToken == mine


def test_pass_identity_context_passes_the_token_on(conn, make_queue):
    source, target = make_queue(), make_queue()
    mine = b"\x05token".ljust(32, b"\0")
    feeder = ibmmq.Queue(conn, source, CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)
    feeder.put(b"x", ibmmq.MD(AccountingToken=mine), ibmmq.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT))
    feeder.close()
    reader = ibmmq.Queue(conn, source, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_SAVE_ALL_CONTEXT)
    body = reader.get(None, ibmmq.MD(), nowait())
    forwarder = ibmmq.Queue(conn, target, CMQC.MQOO_OUTPUT | CMQC.MQOO_PASS_IDENTITY_CONTEXT)
    forwarder.put(body, ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_PASS_IDENTITY_CONTEXT,
                                                Context=reader.get_handle()))
    for handle in (reader, forwarder):
        handle.close()
    assert got(conn, target).AccountingToken == mine


def test_no_context_leaves_the_token_empty(conn, make_queue):
    name = make_queue()
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT)
    queue.put(b"x", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_NO_CONTEXT))
    queue.close()
    assert got(conn, name).AccountingToken == CMQC.MQACT_NONE


@pytest.mark.parametrize("pmo_option,expected", [
    (CMQC.MQPMO_SET_IDENTITY_CONTEXT, CMQC.MQRC_NOT_OPEN_FOR_SET_IDENT),
    (CMQC.MQPMO_SET_ALL_CONTEXT, CMQC.MQRC_NOT_OPEN_FOR_SET_ALL),
    (CMQC.MQPMO_PASS_IDENTITY_CONTEXT, CMQC.MQRC_NOT_OPEN_FOR_PASS_IDENT),
    (CMQC.MQPMO_PASS_ALL_CONTEXT, CMQC.MQRC_NOT_OPEN_FOR_PASS_ALL),
])
def test_a_context_option_the_handle_was_not_opened_for(conn, make_queue, pmo_option, expected):
    queue = ibmmq.Queue(conn, make_queue(), CMQC.MQOO_OUTPUT)
    try:
        with pytest.raises(ibmmq.MQMIError) as exc:
            queue.put(b"x", ibmmq.MD(), ibmmq.PMO(Options=pmo_option))
        assert reason(exc) == expected
    finally:
        queue.close()


def subscribe_and_publish(conn, topic: str, sub_options: int, **sd_fields) -> tuple[ibmmq.SD, ibmmq.MD]:
    """A managed subscription (SD as MQSUB returned it) and the MD of the publication it got;
    the publisher sets its own token, which only its own put keeps."""
    sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_NON_DURABLE | sub_options,
                  **sd_fields)
    sd.set_vs("ObjectString", topic)
    sub = ibmmq.Subscription(conn)
    sub.sub(sub_desc=sd)
    od = ibmmq.OD(ObjectType=CMQC.MQOT_TOPIC, Version=CMQC.MQOD_VERSION_4)
    od.set_vs("ObjectString", topic)
    publisher = ibmmq.Topic(conn, topic_desc=od)
    publisher.open(topic_desc=od, open_opts=CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_IDENTITY_CONTEXT)
    publisher.pub(b"p", ibmmq.MD(AccountingToken=b"publisher".ljust(32, b"\0")),
                  ibmmq.PMO(Options=CMQC.MQPMO_SET_IDENTITY_CONTEXT))
    publisher.close()
    md = ibmmq.MD()
    sub.get(None, md, nowait())
    sub.close(sub_close_options=0, close_sub_queue=True)
    return sd, md


def test_a_subscription_without_set_identity_gets_the_queue_managers_token(conn):
    sd, md = subscribe_and_publish(conn, f"identity/{os.getpid()}/generated", 0)
    assert sd.PubAccountingToken == EXPECTED_TOKEN   # an output field of MQSUB
    assert md.AccountingToken == EXPECTED_TOKEN       # in every publication, not the publisher's
    assert md.ApplIdentityData.strip() == b""


def test_a_subscription_with_set_identity_gets_its_own_token(conn):
    token = b"subscriber".ljust(32, b"\0")
    sd, md = subscribe_and_publish(conn, f"identity/{os.getpid()}/own", CMQC.MQSO_SET_IDENTITY_CONTEXT,
                                   PubAccountingToken=token, PubApplIdentityData=b"mine")
    assert md.AccountingToken == token
    assert md.ApplIdentityData.rstrip(b" \0") == b"mine"
