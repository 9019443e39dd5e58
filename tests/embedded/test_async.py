"""Conformance: asynchronous put with MQSTAT, and read-ahead gets."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC

OPEN = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE
ASYNC = ibmmq.PMO(Options=CMQC.MQPMO_ASYNC_RESPONSE)


def reason(excinfo) -> int:
    return excinfo.value.reason


def nowait(options: int = 0) -> ibmmq.GMO:
    return ibmmq.GMO(Options=options | CMQC.MQGMO_NO_WAIT)


def drain(queue, options: int = 0) -> list[bytes]:
    out = []
    while True:
        try:
            out.append(queue.get(None, ibmmq.MD(), nowait(options)))
        except ibmmq.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return out


# --- asynchronous put ------------------------------------------------------------------------
def test_async_puts_are_counted_by_mqstat_and_arrive_in_order(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    for index in range(200):
        queue.put(f"m{index}".encode(), ibmmq.MD(), ASYNC)
    status = conn.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    assert (status.CompCode, status.Reason) == (CMQC.MQCC_OK, CMQC.MQRC_NONE)
    assert status.PutSuccessCount == 200
    assert status.PutWarningCount == 0 and status.PutFailureCount == 0
    assert drain(queue) == [f"m{index}".encode() for index in range(200)]
    again = conn.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)  # a successful MQSTAT resets the counts
    assert again.PutSuccessCount == 0


def test_async_put_failure_is_reported_by_mqstat_not_by_the_put(conn, qm, make_queue):
    name = make_queue()
    qm.run_mqsc(f"ALTER QLOCAL({name}) MAXDEPTH(2)")
    queue = ibmmq.Queue(conn, name, OPEN)
    for _ in range(3):
        queue.put(b"x", ibmmq.MD(), ASYNC)  # the third fails with 2053, but later
    status = conn.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    assert status.CompCode == CMQC.MQCC_FAILED and status.Reason == CMQC.MQRC_Q_FULL
    assert (status.PutSuccessCount, status.PutFailureCount) == (2, 1)
    assert status.ObjectName.strip() == name.encode()


def test_a_later_failure_replaces_an_earlier_warning(conn, qm, make_queue):
    name = make_queue()
    qm.run_mqsc(f"ALTER QLOCAL({name}) MAXDEPTH(1)")
    queue = ibmmq.Queue(conn, name, OPEN)
    queue.put(b"x", ibmmq.MD(Priority=15), ASYNC)  # warning 2049
    queue.put(b"x", ibmmq.MD(), ASYNC)             # failure 2053
    status = conn.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    assert (status.CompCode, status.Reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_Q_FULL)
    assert (status.PutWarningCount, status.PutFailureCount) == (1, 1)


def test_async_put_returns_the_message_id_it_will_have(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    md = ibmmq.MD()
    queue.put(b"x", md, ibmmq.PMO(Options=CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_NEW_MSG_ID))
    assert md.MsgId != CMQC.MQMI_NONE
    got = ibmmq.MD()
    queue.get(None, got, nowait())
    assert got.MsgId == md.MsgId


def test_async_put_under_syncpoint_is_committed_with_the_unit_of_work(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    for _ in range(5):
        queue.put(b"x", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_SYNCPOINT))
    conn.backout()
    for _ in range(3):
        queue.put(b"y", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_SYNCPOINT))
    conn.commit()
    assert drain(queue) == [b"y"] * 3


def test_defpresp_async_makes_response_as_q_def_asynchronous(conn, qm, make_queue):
    name = make_queue("DEFPRESP(ASYNC)")
    qm.run_mqsc(f"ALTER QLOCAL({name}) MAXDEPTH(1)")
    queue = ibmmq.Queue(conn, name, OPEN)
    queue.put(b"1", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_RESPONSE_AS_Q_DEF))
    queue.put(b"2", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_RESPONSE_AS_Q_DEF))  # fails later
    status = conn.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    assert status.Reason == CMQC.MQRC_Q_FULL
    with pytest.raises(ibmmq.MQMIError) as exc:  # SYNC_RESPONSE overrides the queue default
        queue.put(b"3", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_SYNC_RESPONSE))
    assert reason(exc) == CMQC.MQRC_Q_FULL


def test_mqstat_with_a_bad_type_is_2430(conn):
    with pytest.raises(ibmmq.MQMIError) as exc:
        conn.stat(99)
    assert reason(exc) == CMQC.MQRC_STAT_TYPE_ERROR


def test_both_response_options_are_2046(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(b"x", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_SYNC_RESPONSE))
    assert reason(exc) == CMQC.MQRC_OPTIONS_ERROR


# --- read-ahead --------------------------------------------------------------------------------
def read_ahead_queue(conn, make_queue, count: int = 0, attrs: str = "",
                     options: int = CMQC.MQOO_READ_AHEAD):
    name = make_queue(attrs)
    writer = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT)
    for index in range(count):
        writer.put(f"m{index}".encode())
    writer.close()
    return name, ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_SHARED | options)


def test_read_ahead_delivers_everything_in_order(conn, make_queue):
    _, queue = read_ahead_queue(conn, make_queue, 1200)
    assert drain(queue) == [f"m{index}".encode() for index in range(1200)]


def test_read_ahead_streams_messages_to_the_client(conn, qm, make_queue):
    name, queue = read_ahead_queue(conn, make_queue, 50)
    assert queue.get(None, ibmmq.MD(), nowait()) == b"m0"
    observer = ibmmq.Queue(conn, name, CMQC.MQOO_INQUIRE)
    assert observer.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) < 49  # more than one left the queue
    assert len(drain(queue)) == 49


def test_read_ahead_still_delivers_persistent_messages(conn, make_queue):
    name, queue = read_ahead_queue(conn, make_queue)
    writer = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT)
    for index in range(6):
        writer.put(f"m{index}".encode(), ibmmq.MD(Persistence=index % 2))
    assert drain(queue) == [f"m{index}".encode() for index in range(6)]


def test_read_ahead_get_by_msgid(conn, make_queue):
    name, queue = read_ahead_queue(conn, make_queue)
    writer = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT)
    ids = []
    for index in range(5):
        md = ibmmq.MD()
        writer.put(f"m{index}".encode(), md)
        ids.append(md.MsgId)
    assert queue.get(None, ibmmq.MD(), nowait()) == b"m0"
    assert queue.get(None, ibmmq.MD(MsgId=ids[3]), nowait()) == b"m3"  # MsgId may change
    assert drain(queue) == [b"m1", b"m2", b"m4"]


def test_read_ahead_options_that_must_not_change_give_2457(conn, make_queue):
    _, queue = read_ahead_queue(conn, make_queue, 5)
    queue.get(None, ibmmq.MD(), nowait())
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), nowait(CMQC.MQGMO_ACCEPT_TRUNCATED_MSG))
    assert reason(exc) == CMQC.MQRC_OPTIONS_CHANGED
    queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=100))  # WAIT may change


def test_read_ahead_syncpoint_get_after_read_ahead_started_is_2046(conn, make_queue):
    _, queue = read_ahead_queue(conn, make_queue, 5)
    queue.get(None, ibmmq.MD(), nowait())
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), nowait(CMQC.MQGMO_SYNCPOINT))
    assert reason(exc) == CMQC.MQRC_OPTIONS_ERROR


def test_read_ahead_is_quietly_off_when_the_first_get_is_under_syncpoint(conn, make_queue):
    _, queue = read_ahead_queue(conn, make_queue, 3)
    assert queue.get(None, ibmmq.MD(), nowait(CMQC.MQGMO_SYNCPOINT)) == b"m0"
    conn.backout()
    assert drain(queue, CMQC.MQGMO_SYNCPOINT) == [b"m0", b"m1", b"m2"]
    conn.commit()


def test_close_quiesce_with_unread_read_ahead_messages_is_2458(conn, make_queue):
    _, queue = read_ahead_queue(conn, make_queue, 10)
    queue.get(None, ibmmq.MD(), nowait())
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.close(CMQC.MQCO_QUIESCE)
    assert reason(exc) == CMQC.MQRC_READ_AHEAD_MSGS
    assert len(drain(queue)) == 9  # the handle stayed open
    queue.close(CMQC.MQCO_QUIESCE)


def test_defreada_yes_turns_read_ahead_on_for_as_q_def(conn, qm, make_queue):
    name, queue = read_ahead_queue(conn, make_queue, 20, "DEFREADA(YES)",
                                   CMQC.MQOO_READ_AHEAD_AS_Q_DEF)
    queue.get(None, ibmmq.MD(), nowait())
    observer = ibmmq.Queue(conn, name, CMQC.MQOO_INQUIRE)
    assert observer.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) < 19


def test_defreada_disabled_wins_over_read_ahead(conn, make_queue):
    name, queue = read_ahead_queue(conn, make_queue, 20, "DEFREADA(DISABLED)")
    queue.get(None, ibmmq.MD(), nowait())
    observer = ibmmq.Queue(conn, name, CMQC.MQOO_INQUIRE)
    assert observer.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 19


def test_read_ahead_truncation_then_full_get(conn, make_queue):
    name, queue = read_ahead_queue(conn, make_queue)
    writer = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT)
    big = b"z" * 10000
    writer.put(big)
    writer.put(b"small")
    assert queue.get(None, ibmmq.MD(), nowait()) == big  # ibmmq retries after 2080
    assert queue.get(None, ibmmq.MD(), nowait()) == b"small"


def test_async_put_reaches_the_queue_without_any_further_call(conn, qm, make_queue):
    name = make_queue()
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT)
    queue.put(b"lonely", ibmmq.MD(), ASYNC)  # nothing else happens on this connection
    other = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    reader = ibmmq.Queue(other, name, CMQC.MQOO_INPUT_SHARED)
    got = reader.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=2000))
    assert got == b"lonely"
    other.disconnect()


def test_read_ahead_fills_the_message_handle(conn, make_queue):
    name, queue = read_ahead_queue(conn, make_queue)
    writer = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT)
    for index in range(3):
        source = ibmmq.MessageHandle(conn)
        source.properties.set("index", index, property_type=CMQC.MQTYPE_INT32, value_length=4)
        writer.put(b"x", ibmmq.MD(), ibmmq.PMO(OriginalMsgHandle=source.msg_handle))
    target = ibmmq.MessageHandle(conn)
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE,
                    MsgHandle=target.msg_handle)
    seen = []
    for _ in range(3):
        queue.get(None, ibmmq.MD(), gmo)
        seen.append(target.properties.get("index", property_type=CMQC.MQTYPE_INT32))
    assert seen == [0, 1, 2]
