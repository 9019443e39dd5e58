"""Conformance: browse cursors (first/next/under cursor) and match options while browsing."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC

OPEN = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT | CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE


def reason(excinfo) -> int:
    return excinfo.value.reason


def gmo(options: int, **fields) -> ibmmq.GMO:
    return ibmmq.GMO(Options=options | CMQC.MQGMO_NO_WAIT, **fields)


@pytest.fixture
def queue(conn, make_queue):
    handle = ibmmq.Queue(conn, make_queue(), OPEN)
    for body in (b"one", b"two", b"three"):
        handle.put(body)
    yield handle
    handle.close()


def test_browse_first_and_next_leave_messages_on_the_queue(queue):
    assert queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_FIRST)) == b"one"
    assert queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_NEXT)) == b"two"
    assert queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_NEXT)) == b"three"
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_NEXT))
    assert reason(exc) == CMQC.MQRC_NO_MSG_AVAILABLE
    assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 3


def test_browse_next_from_a_fresh_handle_starts_at_the_first(queue):
    assert queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_NEXT)) == b"one"


def test_browse_first_resets_the_cursor(queue):
    queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_NEXT))
    queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_NEXT))
    assert queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_FIRST)) == b"one"


def test_browse_does_not_count_as_a_backout(conn, queue):
    queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_FIRST))
    conn.backout()
    md = ibmmq.MD()
    queue.get(None, md, gmo(0))
    assert md.BackoutCount == 0


def test_browse_under_cursor_rereads_and_get_under_cursor_removes(queue):
    queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_FIRST))
    queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_NEXT))
    assert queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR)) == b"two"
    assert queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_MSG_UNDER_CURSOR)) == b"two"
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR))
    assert reason(exc) == CMQC.MQRC_NO_MSG_UNDER_CURSOR
    # the cursor keeps its position: next is the message after the removed one
    assert queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_NEXT)) == b"three"
    assert queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_FIRST)) == b"one"


def test_under_cursor_before_any_browse_is_2034(queue):
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR))
    assert reason(exc) == CMQC.MQRC_NO_MSG_UNDER_CURSOR
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_MSG_UNDER_CURSOR))
    assert reason(exc) == CMQC.MQRC_NO_MSG_UNDER_CURSOR


def test_message_got_by_another_handle_is_no_longer_under_cursor(conn, queue):
    other = ibmmq.Queue(conn, queue.get_name(), CMQC.MQOO_INPUT_SHARED)
    queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_FIRST))
    assert other.get(None, ibmmq.MD(), gmo(0)) == b"one"
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR))
    assert reason(exc) == CMQC.MQRC_NO_MSG_UNDER_CURSOR
    other.close()


def test_each_handle_has_its_own_cursor(conn, queue):
    second = ibmmq.Queue(conn, queue.get_name(), CMQC.MQOO_BROWSE)
    queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_NEXT))
    queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_NEXT))
    assert second.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_NEXT)) == b"one"
    second.close()


def test_browse_next_respects_match_options(queue):
    md = ibmmq.MD(CorrelId=b"wanted".ljust(24, b"\0"))
    queue.put(b"four", md)
    queue.put(b"five", ibmmq.MD(CorrelId=b"wanted".ljust(24, b"\0")))
    match = ibmmq.MD(CorrelId=b"wanted".ljust(24, b"\0"))
    assert queue.get(None, match, gmo(CMQC.MQGMO_BROWSE_NEXT)) == b"four"
    match = ibmmq.MD(CorrelId=b"wanted".ljust(24, b"\0"))
    assert queue.get(None, match, gmo(CMQC.MQGMO_BROWSE_NEXT)) == b"five"


def test_two_browse_options_together_are_2046(queue):
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_BROWSE_NEXT))
    assert reason(exc) == CMQC.MQRC_OPTIONS_ERROR


def test_msg_token_selects_the_browsed_message(queue):
    browse = gmo(CMQC.MQGMO_BROWSE_FIRST)
    queue.get(None, ibmmq.MD(), browse)
    browse = gmo(CMQC.MQGMO_BROWSE_NEXT)
    queue.get(None, ibmmq.MD(), browse)
    token = browse.MsgToken
    take = gmo(0, MatchOptions=CMQC.MQMO_MATCH_MSG_TOKEN, MsgToken=token, Version=CMQC.MQGMO_VERSION_3)
    assert queue.get(None, ibmmq.MD(), take) == b"two"
    take = gmo(0, MatchOptions=CMQC.MQMO_MATCH_MSG_TOKEN, MsgToken=token, Version=CMQC.MQGMO_VERSION_3)
    with pytest.raises(ibmmq.MQMIError) as exc:  # stale token
        queue.get(None, ibmmq.MD(), take)
    assert reason(exc) == CMQC.MQRC_NO_MSG_AVAILABLE


def test_msg_token_with_wait_is_2331(queue):
    take = ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=10, MatchOptions=CMQC.MQMO_MATCH_MSG_TOKEN)
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), take)
    assert reason(exc) == CMQC.MQRC_MSG_TOKEN_ERROR


def test_msg_token_needs_gmo_version_3_2256(queue):
    take = gmo(0, MatchOptions=CMQC.MQMO_MATCH_MSG_TOKEN, Version=CMQC.MQGMO_VERSION_2)
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), take)
    assert reason(exc) == CMQC.MQRC_WRONG_GMO_VERSION


def test_browse_with_wait_sees_a_later_message(conn, make_queue, qm):
    import threading
    import time
    name = make_queue()
    browser = ibmmq.Queue(conn, name, CMQC.MQOO_BROWSE)

    def later():
        time.sleep(0.2)
        connection = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
        connection.put1(name, b"arrived")
        connection.disconnect()

    thread = threading.Thread(target=later)
    thread.start()
    got = browser.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_BROWSE_NEXT | CMQC.MQGMO_WAIT,
                                                  WaitInterval=5000))
    thread.join()
    assert got == b"arrived"
    browser.close()


def test_browse_under_syncpoint_is_2046(queue):
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_SYNCPOINT))
    assert reason(exc) == CMQC.MQRC_OPTIONS_ERROR
