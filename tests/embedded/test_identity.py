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


def test_the_token_layout_is_mqs():
    token = unix_token(1001)
    assert len(token) == 32 and token[0] == 4 and token[1:5] == b"1001" and token[31] == 6
    assert token[5:31] == b"\0" * 26


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
