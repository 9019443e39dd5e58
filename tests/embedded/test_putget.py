"""Conformance: put, put1, get, priority and FIFO order, waiting, matching, truncation."""
from __future__ import annotations

import threading
import time

import ibmmq
import pytest
from ibmmq import CMQC

IN_OUT = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE


def reason(excinfo) -> int:
    return excinfo.value.reason


def nowait(options: int = 0, **fields) -> ibmmq.GMO:
    return ibmmq.GMO(Options=options | CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING, **fields)


def drain(queue) -> list[bytes]:
    out = []
    while True:
        try:
            out.append(queue.get(None, ibmmq.MD(), nowait()))
        except ibmmq.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return out


@pytest.fixture
def queue(conn, make_queue):
    handle = ibmmq.Queue(conn, make_queue(), IN_OUT)
    yield handle
    handle.close()


def test_put_then_get_returns_body_and_md(queue):
    md = ibmmq.MD(Format=CMQC.MQFMT_STRING, Persistence=CMQC.MQPER_PERSISTENT)
    queue.put(b"hello", md)
    assert md.MsgId != CMQC.MQMI_NONE  # the queue manager made a MsgId and returned it
    got = ibmmq.MD()
    assert queue.get(None, got, nowait()) == b"hello"
    assert got.MsgId == md.MsgId
    assert got.Format == CMQC.MQFMT_STRING
    assert got.Persistence == CMQC.MQPER_PERSISTENT
    assert got.PutDate.strip() and got.PutTime.strip()
    assert got.BackoutCount == 0


def test_get_on_empty_queue_is_2033(queue):
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), nowait())
    assert reason(exc) == CMQC.MQRC_NO_MSG_AVAILABLE
    assert exc.value.comp == CMQC.MQCC_FAILED


def test_put1_puts_one_message(conn, make_queue):
    name = make_queue()
    md = ibmmq.MD()
    conn.put1(name, b"single", md)
    assert md.MsgId != CMQC.MQMI_NONE
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_SHARED)
    assert queue.get(None, ibmmq.MD(), nowait()) == b"single"
    queue.close()


def test_put1_to_unknown_queue_is_2085(conn):
    with pytest.raises(ibmmq.MQMIError) as exc:
        conn.put1("NO.SUCH.QUEUE", b"x")
    assert reason(exc) == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_priority_order_with_fifo_within_a_priority(queue):
    for body, priority in [(b"p1-a", 1), (b"p5-a", 5), (b"p1-b", 1), (b"p9", 9), (b"p5-b", 5)]:
        queue.put(body, ibmmq.MD(Priority=priority))
    assert drain(queue) == [b"p9", b"p5-a", b"p5-b", b"p1-a", b"p1-b"]


def test_fifo_queue_ignores_priority_for_order_but_keeps_it(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue("MSGDLVSQ(FIFO)"), IN_OUT)
    queue.put(b"low", ibmmq.MD(Priority=1))
    queue.put(b"high", ibmmq.MD(Priority=8))
    md = ibmmq.MD()
    assert queue.get(None, md, nowait()) == b"low"
    assert md.Priority == 1
    assert drain(queue) == [b"high"]
    queue.close()


def test_priority_as_q_def_uses_defprty(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue("DEFPRTY(7)"), IN_OUT)
    queue.put(b"x", ibmmq.MD(Priority=CMQC.MQPRI_PRIORITY_AS_Q_DEF))
    md = ibmmq.MD()
    queue.get(None, md, nowait())
    assert md.Priority == 7
    queue.close()


def test_priority_above_nine_is_warning_2049_and_is_put(queue):
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(b"urgent", ibmmq.MD(Priority=12))
    assert reason(exc) == CMQC.MQRC_PRIORITY_EXCEEDS_MAXIMUM
    assert exc.value.comp == CMQC.MQCC_WARNING
    md = ibmmq.MD()
    assert queue.get(None, md, nowait()) == b"urgent"
    assert md.Priority == 12  # kept as given, delivered as priority 9


def test_invalid_priority_is_2050(queue):
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(b"x", ibmmq.MD(Priority=-5))
    assert reason(exc) == CMQC.MQRC_PRIORITY_ERROR


def test_invalid_persistence_is_2047(queue):
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(b"x", ibmmq.MD(Persistence=7))
    assert reason(exc) == CMQC.MQRC_PERSISTENCE_ERROR


def test_persistence_as_q_def_uses_defpsist(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue("DEFPSIST(YES)"), IN_OUT)
    queue.put(b"x", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENCE_AS_Q_DEF))
    md = ibmmq.MD()
    queue.get(None, md, nowait())
    assert md.Persistence == CMQC.MQPER_PERSISTENT
    queue.close()


def test_invalid_expiry_is_2013(queue):
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(b"x", ibmmq.MD(Expiry=0))
    assert reason(exc) == CMQC.MQRC_EXPIRY_ERROR


def test_put_inhibited_is_2051_and_get_inhibited_is_2016(qm, queue):
    raw_name = queue.get_name()
    name = raw_name.strip() if isinstance(raw_name, str) else raw_name.decode().strip()
    queue.put(b"before")
    qm.run_mqsc(f"ALTER QLOCAL({name}) PUT(DISABLED) GET(DISABLED)")
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(b"x")
    assert reason(exc) == CMQC.MQRC_PUT_INHIBITED
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), nowait())
    assert reason(exc) == CMQC.MQRC_GET_INHIBITED
    qm.run_mqsc(f"ALTER QLOCAL({name}) PUT(ENABLED) GET(ENABLED)")
    assert drain(queue) == [b"before"]


def test_get_match_on_msgid_and_correlid(queue):
    ids = []
    for index in range(3):
        md = ibmmq.MD(CorrelId=f"corr-{index}".encode().ljust(24, b"\0"))
        queue.put(f"m{index}".encode(), md)
        ids.append(md.MsgId)
    assert queue.get(None, ibmmq.MD(MsgId=ids[2]), nowait()) == b"m2"
    assert queue.get(None, ibmmq.MD(CorrelId=b"corr-1".ljust(24, b"\0")), nowait()) == b"m1"
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(MsgId=ids[2]), nowait())
    assert reason(exc) == CMQC.MQRC_NO_MSG_AVAILABLE
    # MatchOptions NONE ignores the ids in the MD
    assert queue.get(None, ibmmq.MD(MsgId=ids[2]), nowait(MatchOptions=CMQC.MQMO_NONE)) == b"m0"


def test_new_correl_id_option_makes_a_correlid(queue):
    md = ibmmq.MD()
    queue.put(b"x", md, ibmmq.PMO(Options=CMQC.MQPMO_NEW_CORREL_ID))
    assert md.CorrelId != CMQC.MQCI_NONE
    got = ibmmq.MD()
    queue.get(None, got, nowait())
    assert got.CorrelId == md.CorrelId


def test_wait_returns_a_message_put_later(qm, queue):
    name = queue.get_name()

    def put_soon():
        time.sleep(0.3)
        other = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
        other.put1(name, b"late")
        other.disconnect()

    thread = threading.Thread(target=put_soon)
    thread.start()
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=5000)
    assert queue.get(None, ibmmq.MD(), gmo) == b"late"
    thread.join()


def test_wait_times_out_with_2033(queue):
    start = time.monotonic()
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=300))
    assert reason(exc) == CMQC.MQRC_NO_MSG_AVAILABLE
    assert time.monotonic() - start >= 0.25


def test_wait_interval_below_unlimited_is_2090(queue):
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=-7))
    assert reason(exc) == CMQC.MQRC_WAIT_INTERVAL_ERROR


def test_truncated_message_failed_2080_leaves_it_on_the_queue(queue):
    queue.put(b"0123456789")
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(4, ibmmq.MD(), nowait())
    assert reason(exc) == CMQC.MQRC_TRUNCATED_MSG_FAILED
    assert exc.value.original_length == 10
    assert drain(queue) == [b"0123456789"]


def test_truncated_message_accepted_2079_removes_it(queue):
    queue.put(b"0123456789")
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(4, ibmmq.MD(), nowait(CMQC.MQGMO_ACCEPT_TRUNCATED_MSG))
    assert reason(exc) == CMQC.MQRC_TRUNCATED_MSG_ACCEPTED
    assert exc.value.comp == CMQC.MQCC_WARNING
    assert drain(queue) == []


def test_get_without_length_rereads_a_large_message(queue):
    big = bytes(range(256)) * 40  # 10240 bytes: larger than ibmmq's first 4096-byte buffer
    queue.put(big)
    assert queue.get(None, ibmmq.MD(), nowait()) == big


def test_two_syncpoint_options_together_are_2046(queue):
    queue.put(b"x")
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), nowait(CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_SYNCPOINT))
    assert reason(exc) == CMQC.MQRC_OPTIONS_ERROR
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(b"x", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_NO_SYNCPOINT))
    assert reason(exc) == CMQC.MQRC_OPTIONS_ERROR


def test_lock_is_not_supported_2046(queue):
    queue.put(b"x")
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), nowait(CMQC.MQGMO_LOCK))
    assert reason(exc) in (CMQC.MQRC_OPTIONS_ERROR, CMQC.MQRC_NOT_OPEN_FOR_BROWSE)


def test_default_context_sets_identity_and_origin(queue):
    queue.put(b"x", ibmmq.MD(UserIdentifier=b"spoofed", PutApplName=b"spoofed"))
    md = ibmmq.MD()
    queue.get(None, md, nowait())
    assert md.UserIdentifier.rstrip(b"\0 ") != b"spoofed"
    assert md.PutApplName.rstrip(b"\0 ") != b"spoofed"
    assert md.PutApplType == CMQC.MQAT_UNIX


def test_set_identity_context_needs_the_open_option_2096(conn, make_queue):
    name = make_queue()
    plain = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT)
    with pytest.raises(ibmmq.MQMIError) as exc:
        plain.put(b"x", ibmmq.MD(UserIdentifier=b"alice"),
                  ibmmq.PMO(Options=CMQC.MQPMO_SET_IDENTITY_CONTEXT))
    assert reason(exc) == CMQC.MQRC_NOT_OPEN_FOR_SET_IDENT
    plain.close()
    setter = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_IDENTITY_CONTEXT)
    setter.put(b"x", ibmmq.MD(UserIdentifier=b"alice", ApplIdentityData=b"ident"),
               ibmmq.PMO(Options=CMQC.MQPMO_SET_IDENTITY_CONTEXT))
    setter.close()
    reader = ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_SHARED)
    md = ibmmq.MD()
    reader.get(None, md, nowait())
    assert md.UserIdentifier.rstrip(b"\0 ") == b"alice"
    assert md.ApplIdentityData.rstrip(b"\0 ") == b"ident"
    reader.close()


def test_pass_all_context_copies_the_saved_context(conn, make_queue):
    source, target = make_queue(), make_queue()
    feeder = ibmmq.Queue(conn, source, CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)
    feeder.put(b"x", ibmmq.MD(UserIdentifier=b"bob", PutApplName=b"origin-app"),
               ibmmq.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT))
    feeder.close()
    reader = ibmmq.Queue(conn, source, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_SAVE_ALL_CONTEXT)
    body = reader.get(None, ibmmq.MD(), nowait())
    forwarder = ibmmq.Queue(conn, target, CMQC.MQOO_OUTPUT | CMQC.MQOO_PASS_ALL_CONTEXT)
    forwarder.put(body, ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_PASS_ALL_CONTEXT,
                                                Context=reader.get_handle()))
    final = ibmmq.Queue(conn, target, CMQC.MQOO_INPUT_SHARED)
    md = ibmmq.MD()
    final.get(None, md, nowait())
    assert md.UserIdentifier.rstrip(b"\0 ") == b"bob"
    assert md.PutApplName.rstrip(b"\0 ") == b"origin-app"
    for handle in (reader, forwarder, final):
        handle.close()


def test_md_version_one_cannot_carry_group_fields(queue):
    # a v1 MD has no GroupId/MsgSeqNumber: the message is simply not in a group
    queue.put(b"v1", ibmmq.MD(Version=CMQC.MQMD_VERSION_1))
    md = ibmmq.MD()
    assert queue.get(None, md, nowait()) == b"v1"
    assert md.MsgSeqNumber == 1 and md.GroupId == CMQC.MQGI_NONE


# --- structure versions and identifiers -----------------------------------------------------
def test_md_with_a_bad_strucid_or_version_is_2026(queue):
    for md in (ibmmq.MD(_StrucId=b"XX  "), ibmmq.MD(Version=3)):
        with pytest.raises(ibmmq.MQMIError) as exc:
            queue.put(b"x", md)
        assert reason(exc) == CMQC.MQRC_MD_ERROR


def test_pmo_with_a_bad_strucid_or_version_is_2173(queue):
    for pmo in (ibmmq.PMO(_StrucId=b"XXX "), ibmmq.PMO(Version=9)):
        with pytest.raises(ibmmq.MQMIError) as exc:
            queue.put(b"x", ibmmq.MD(), pmo)
        assert reason(exc) == CMQC.MQRC_PMO_ERROR


def test_gmo_with_a_bad_strucid_or_version_is_2186(queue):
    queue.put(b"x")
    for gmo in (ibmmq.GMO(_StrucId=b"XXX "), ibmmq.GMO(Version=7)):
        with pytest.raises(ibmmq.MQMIError) as exc:
            queue.get(None, ibmmq.MD(), gmo)
        assert reason(exc) == CMQC.MQRC_GMO_ERROR


def test_gmo_version_1_matches_on_msgid_and_correlid_whatever_matchoptions_says(queue):
    first, second = ibmmq.MD(), ibmmq.MD()
    queue.put(b"first", first)
    queue.put(b"second", second)
    gmo = ibmmq.GMO(Version=CMQC.MQGMO_VERSION_1, Options=CMQC.MQGMO_NO_WAIT,
                    MatchOptions=CMQC.MQMO_NONE)
    assert queue.get(None, ibmmq.MD(MsgId=second.MsgId), gmo) == b"second"


def test_pmo_below_version_3_carries_no_message_handle(conn, queue):
    handle = ibmmq.MessageHandle(conn)
    handle.properties.set("colour", "red")
    queue.put(b"x", ibmmq.MD(), ibmmq.PMO(Version=CMQC.MQPMO_VERSION_2,
                                          OriginalMsgHandle=handle.msg_handle))
    got = ibmmq.MessageHandle(conn)
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT, MsgHandle=got.msg_handle)
    assert queue.get(None, ibmmq.MD(), gmo) == b"x"
    with pytest.raises(ibmmq.MQMIError):
        got.properties.get("colour")


def test_ten_megabyte_message_round_trip(qm, conn, make_queue):
    qm.run_mqsc("ALTER QMGR MAXMSGL(104857600)")
    try:
        queue = ibmmq.Queue(conn, make_queue("MAXMSGL(104857600)"), IN_OUT)
        big = bytes(range(256)) * (10 * 4096)
        queue.put(big, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        assert queue.get(None, ibmmq.MD(), nowait()) == big
        queue.close()
    finally:
        qm.run_mqsc("ALTER QMGR MAXMSGL(4194304)")


# --- data conversion --------------------------------------------------------------------------
def test_ccsid_as_queue_manager_is_stored_as_the_queue_managers_ccsid(conn, queue):
    queue.put(b"x", ibmmq.MD(CodedCharSetId=CMQC.MQCCSI_Q_MGR))
    md = ibmmq.MD()
    queue.get(None, md, nowait())
    assert md.CodedCharSetId == conn.inquire(CMQC.MQIA_CODED_CHAR_SET_ID)


def test_convert_turns_string_data_into_the_requested_ccsid(queue):
    queue.put("café".encode(), ibmmq.MD(Format=CMQC.MQFMT_STRING, CodedCharSetId=1208))
    md = ibmmq.MD(CodedCharSetId=819)
    assert queue.get(None, md, nowait(CMQC.MQGMO_CONVERT)) == "café".encode("latin-1")
    assert md.CodedCharSetId == 819


def test_convert_without_a_conversion_is_warning_2119(queue):
    queue.put(b"\xff\xfe", ibmmq.MD(Format=CMQC.MQFMT_STRING, CodedCharSetId=1208))  # not UTF-8
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(CodedCharSetId=819), nowait(CMQC.MQGMO_CONVERT))
    assert reason(exc) == CMQC.MQRC_NOT_CONVERTED and exc.value.comp == CMQC.MQCC_WARNING
    assert exc.value.message == b"\xff\xfe"  # returned as it was, and taken off the queue
    assert drain(queue) == []


def test_convert_of_format_none_to_another_ccsid_is_warning_2110(queue):
    queue.put(b"\x01\x02", ibmmq.MD(Format=CMQC.MQFMT_NONE, CodedCharSetId=1208))
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(CodedCharSetId=819), nowait(CMQC.MQGMO_CONVERT))
    assert reason(exc) == CMQC.MQRC_FORMAT_ERROR


def test_convert_to_the_same_ccsid_is_quiet(queue):
    queue.put(b"\x01\x02", ibmmq.MD(Format=CMQC.MQFMT_NONE))
    assert queue.get(None, ibmmq.MD(), nowait(CMQC.MQGMO_CONVERT)) == b"\x01\x02"
