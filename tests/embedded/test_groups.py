"""Conformance: queue-manager segmentation, reassembly, message groups and logical order."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC

OPEN = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT | CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE


def reason(excinfo) -> int:
    return excinfo.value.reason


def gmo(options: int = 0, **fields) -> ibmmq.GMO:
    return ibmmq.GMO(Options=options | CMQC.MQGMO_NO_WAIT, Version=CMQC.MQGMO_VERSION_2,
                     MatchOptions=fields.pop("MatchOptions", CMQC.MQMO_NONE), **fields)


def md2(**fields) -> ibmmq.MD:
    return ibmmq.MD(Version=CMQC.MQMD_VERSION_2, **fields)


def segmented_queue(conn, make_queue, maxmsgl: int = 100):
    return ibmmq.Queue(conn, make_queue(f"MAXMSGL({maxmsgl})"), OPEN)


BODY = bytes(range(256))  # 256 bytes: three segments on a queue with MAXMSGL(100)


def test_too_big_without_segmentation_is_2030(conn, make_queue):
    queue = segmented_queue(conn, make_queue)
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(BODY, md2())
    assert reason(exc) == CMQC.MQRC_MSG_TOO_BIG_FOR_Q


def test_too_big_for_the_queue_manager_is_2031(qm, conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue("MAXMSGL(100000)"), OPEN)
    qm.run_mqsc("ALTER QMGR MAXMSGL(50000)")
    try:
        with pytest.raises(ibmmq.MQMIError) as exc:
            queue.put(b"x" * 60000, md2())
        assert reason(exc) == CMQC.MQRC_MSG_TOO_BIG_FOR_Q_MGR
    finally:
        qm.run_mqsc("ALTER QMGR MAXMSGL(4194304)")


def test_segmentation_allowed_splits_and_complete_msg_reassembles(conn, make_queue):
    queue = segmented_queue(conn, make_queue)
    put_md = md2(MsgFlags=CMQC.MQMF_SEGMENTATION_ALLOWED, Format=CMQC.MQFMT_NONE)
    queue.put(BODY, put_md)
    assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 3
    md = md2()
    options = gmo(CMQC.MQGMO_COMPLETE_MSG)
    assert queue.get(None, md, options) == BODY
    assert md.Offset == 0
    assert not md.MsgFlags & (CMQC.MQMF_SEGMENT | CMQC.MQMF_LAST_SEGMENT)
    assert options.SegmentStatus == CMQC.MQSS_NOT_A_SEGMENT
    assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 0


def test_segments_one_by_one_carry_offsets_and_flags(conn, make_queue):
    queue = segmented_queue(conn, make_queue)
    queue.put(BODY, md2(MsgFlags=CMQC.MQMF_SEGMENTATION_ALLOWED))
    pieces, offsets, statuses = [], [], []
    group_ids = set()
    while True:
        md = md2()
        options = gmo(CMQC.MQGMO_LOGICAL_ORDER)
        try:
            pieces.append(queue.get(None, md, options))
        except ibmmq.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            break
        offsets.append(md.Offset)
        statuses.append(options.SegmentStatus)
        group_ids.add(md.GroupId)
    assert b"".join(pieces) == BODY
    assert offsets == [0, 96, 192]  # segments on 16-byte multiples below MAXMSGL
    assert statuses == [CMQC.MQSS_SEGMENT, CMQC.MQSS_SEGMENT, CMQC.MQSS_LAST_SEGMENT]
    assert len(group_ids) == 1 and CMQC.MQGI_NONE not in group_ids


def test_all_segments_available_holds_back_an_incomplete_message(conn, make_queue):
    queue = segmented_queue(conn, make_queue)
    group = b"G1".ljust(24, b"\0")
    queue.put(b"a" * 32, md2(GroupId=group, Offset=0, MsgFlags=CMQC.MQMF_SEGMENT))
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, md2(), gmo(CMQC.MQGMO_ALL_SEGMENTS_AVAILABLE))
    assert reason(exc) == CMQC.MQRC_NO_MSG_AVAILABLE
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, md2(), gmo(CMQC.MQGMO_COMPLETE_MSG))
    assert reason(exc) == CMQC.MQRC_NO_MSG_AVAILABLE
    queue.put(b"b" * 8, md2(GroupId=group, Offset=32, MsgFlags=CMQC.MQMF_LAST_SEGMENT))
    assert queue.get(None, md2(), gmo(CMQC.MQGMO_COMPLETE_MSG)) == b"a" * 32 + b"b" * 8


def test_complete_msg_on_a_later_segment_under_cursor_is_2246(conn, make_queue):
    queue = segmented_queue(conn, make_queue)
    queue.put(BODY, md2(MsgFlags=CMQC.MQMF_SEGMENTATION_ALLOWED))
    queue.get(None, md2(), gmo(CMQC.MQGMO_BROWSE_FIRST))
    queue.get(None, md2(), gmo(CMQC.MQGMO_BROWSE_NEXT))  # the segment at offset 96
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, md2(), gmo(CMQC.MQGMO_MSG_UNDER_CURSOR | CMQC.MQGMO_COMPLETE_MSG))
    assert reason(exc) == CMQC.MQRC_INVALID_MSG_UNDER_CURSOR


def test_message_with_properties_is_not_segmented(conn, make_queue):
    queue = segmented_queue(conn, make_queue)
    handle = ibmmq.MessageHandle(conn)
    handle.properties.set("colour", "red")
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(BODY, md2(MsgFlags=CMQC.MQMF_SEGMENTATION_ALLOWED),
                  ibmmq.PMO(OriginalMsgHandle=handle.msg_handle))
    assert reason(exc) == CMQC.MQRC_MSG_TOO_BIG_FOR_Q


def put_group(queue, bodies, options=CMQC.MQPMO_LOGICAL_ORDER):
    for index, body in enumerate(bodies):
        last = index == len(bodies) - 1
        flags = CMQC.MQMF_LAST_MSG_IN_GROUP if last else CMQC.MQMF_MSG_IN_GROUP
        queue.put(body, md2(MsgFlags=flags), ibmmq.PMO(Options=options))


def test_logical_order_put_numbers_the_group(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    put_group(queue, [b"g1", b"g2", b"g3"])
    seen = []
    for _ in range(3):
        md = md2()
        options = gmo(CMQC.MQGMO_LOGICAL_ORDER)
        body = queue.get(None, md, options)
        seen.append((body, md.MsgSeqNumber, options.GroupStatus))
    assert seen == [(b"g1", 1, CMQC.MQGS_MSG_IN_GROUP), (b"g2", 2, CMQC.MQGS_MSG_IN_GROUP),
                    (b"g3", 3, CMQC.MQGS_LAST_MSG_IN_GROUP)]


def test_logical_order_get_keeps_groups_together(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    a = b"A".ljust(24, b"\0")
    b = b"B".ljust(24, b"\0")
    # interleaved on the queue, out of sequence within group A
    queue.put(b"a2", md2(GroupId=a, MsgSeqNumber=2, MsgFlags=CMQC.MQMF_LAST_MSG_IN_GROUP))
    queue.put(b"b1", md2(GroupId=b, MsgSeqNumber=1, MsgFlags=CMQC.MQMF_MSG_IN_GROUP))
    queue.put(b"a1", md2(GroupId=a, MsgSeqNumber=1, MsgFlags=CMQC.MQMF_MSG_IN_GROUP))
    queue.put(b"b2", md2(GroupId=b, MsgSeqNumber=2, MsgFlags=CMQC.MQMF_LAST_MSG_IN_GROUP))
    got = [queue.get(None, md2(), gmo(CMQC.MQGMO_LOGICAL_ORDER)) for _ in range(4)]
    assert got == [b"b1", b"b2", b"a1", b"a2"]


def test_all_msgs_available_waits_for_the_whole_group(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    group = b"G".ljust(24, b"\0")
    queue.put(b"1", md2(GroupId=group, MsgSeqNumber=1, MsgFlags=CMQC.MQMF_MSG_IN_GROUP))
    options = CMQC.MQGMO_LOGICAL_ORDER | CMQC.MQGMO_ALL_MSGS_AVAILABLE
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, md2(), gmo(options))
    assert reason(exc) == CMQC.MQRC_NO_MSG_AVAILABLE
    queue.put(b"2", md2(GroupId=group, MsgSeqNumber=2, MsgFlags=CMQC.MQMF_LAST_MSG_IN_GROUP))
    assert [queue.get(None, md2(), gmo(options)) for _ in range(2)] == [b"1", b"2"]


def test_uncommitted_group_member_keeps_the_group_incomplete(conn, qm, make_queue):
    name = make_queue()
    queue = ibmmq.Queue(conn, name, OPEN)
    other = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    writer = ibmmq.Queue(other, name, CMQC.MQOO_OUTPUT)
    put_group(writer, [b"1", b"2"], CMQC.MQPMO_LOGICAL_ORDER | CMQC.MQPMO_SYNCPOINT)
    options = CMQC.MQGMO_LOGICAL_ORDER | CMQC.MQGMO_ALL_MSGS_AVAILABLE
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, md2(), gmo(options))
    assert reason(exc) == CMQC.MQRC_NO_MSG_AVAILABLE
    other.commit()
    assert [queue.get(None, md2(), gmo(options)) for _ in range(2)] == [b"1", b"2"]
    other.disconnect()


def test_non_group_put_inside_a_logical_order_group_is_2241(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    queue.put(b"1", md2(MsgFlags=CMQC.MQMF_MSG_IN_GROUP), ibmmq.PMO(Options=CMQC.MQPMO_LOGICAL_ORDER))
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(b"x", md2(), ibmmq.PMO(Options=CMQC.MQPMO_LOGICAL_ORDER))
    assert reason(exc) == CMQC.MQRC_INCOMPLETE_GROUP
    assert exc.value.comp == CMQC.MQCC_FAILED


def test_close_with_an_unfinished_group_is_warning_2241(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    queue.put(b"1", md2(MsgFlags=CMQC.MQMF_MSG_IN_GROUP), ibmmq.PMO(Options=CMQC.MQPMO_LOGICAL_ORDER))
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.close()
    assert reason(exc) == CMQC.MQRC_INCOMPLETE_GROUP
    assert exc.value.comp == CMQC.MQCC_WARNING


def test_first_group_message_without_logical_order_must_be_sequence_1_2250(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(b"x", md2(MsgFlags=CMQC.MQMF_MSG_IN_GROUP, MsgSeqNumber=2))
    assert reason(exc) == CMQC.MQRC_MSG_SEQ_NUMBER_ERROR


def test_match_on_group_id_and_sequence_number(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    put_group(queue, [b"x1", b"x2", b"x3"])
    md = md2()
    queue.get(None, md, gmo(CMQC.MQGMO_BROWSE_FIRST))
    wanted = md2(GroupId=md.GroupId, MsgSeqNumber=2)
    match = CMQC.MQMO_MATCH_GROUP_ID | CMQC.MQMO_MATCH_MSG_SEQ_NUMBER
    assert queue.get(None, wanted, gmo(MatchOptions=match)) == b"x2"


def test_logical_order_get_with_a_conflicting_group_match_is_2247(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    put_group(queue, [b"x1", b"x2"])
    queue.get(None, md2(), gmo(CMQC.MQGMO_LOGICAL_ORDER))
    wrong = md2(GroupId=b"other".ljust(24, b"\0"))
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, wrong, gmo(CMQC.MQGMO_LOGICAL_ORDER, MatchOptions=CMQC.MQMO_MATCH_GROUP_ID))
    assert reason(exc) == CMQC.MQRC_MATCH_OPTIONS_ERROR


def test_segment_of_zero_length_is_2253(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(b"", md2(MsgFlags=CMQC.MQMF_SEGMENT))
    assert reason(exc) == CMQC.MQRC_SEGMENT_LENGTH_ZERO


def test_last_segment_may_be_empty(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    group = b"E".ljust(24, b"\0")
    queue.put(b"abcd", md2(GroupId=group, MsgFlags=CMQC.MQMF_SEGMENT))
    queue.put(b"", md2(GroupId=group, Offset=4, MsgFlags=CMQC.MQMF_LAST_SEGMENT))
    assert queue.get(None, md2(), gmo(CMQC.MQGMO_COMPLETE_MSG)) == b"abcd"


def test_segmentation_under_an_open_unit_of_work_outside_syncpoint_is_2255(conn, make_queue):
    queue = segmented_queue(conn, make_queue)
    queue.put(b"open uow", md2(), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(BODY, md2(MsgFlags=CMQC.MQMF_SEGMENTATION_ALLOWED,
                            Persistence=CMQC.MQPER_PERSISTENT),
                  ibmmq.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
    assert reason(exc) == CMQC.MQRC_UOW_NOT_AVAILABLE
    conn.backout()


def test_complete_msg_of_persistent_segments_outside_an_open_unit_of_work_is_2255(conn, make_queue):
    queue = segmented_queue(conn, make_queue)
    queue.put(BODY, md2(MsgFlags=CMQC.MQMF_SEGMENTATION_ALLOWED, Persistence=CMQC.MQPER_PERSISTENT))
    queue.put(b"open uow", md2(), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, md2(), gmo(CMQC.MQGMO_COMPLETE_MSG | CMQC.MQGMO_NO_SYNCPOINT))
    assert reason(exc) == CMQC.MQRC_UOW_NOT_AVAILABLE
    conn.commit()
    assert queue.get(None, md2(), gmo(CMQC.MQGMO_COMPLETE_MSG | CMQC.MQGMO_NO_SYNCPOINT)) == BODY


def test_logical_order_put_with_md_version_1_is_2257(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(b"x", ibmmq.MD(Version=CMQC.MQMD_VERSION_1, MsgFlags=CMQC.MQMF_MSG_IN_GROUP),
                  ibmmq.PMO(Options=CMQC.MQPMO_LOGICAL_ORDER))
    assert reason(exc) == CMQC.MQRC_WRONG_MD_VERSION


def test_group_mixing_syncpoint_under_logical_order_is_2245(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    queue.put(b"1", md2(MsgFlags=CMQC.MQMF_MSG_IN_GROUP),
              ibmmq.PMO(Options=CMQC.MQPMO_LOGICAL_ORDER | CMQC.MQPMO_SYNCPOINT))
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(b"2", md2(MsgFlags=CMQC.MQMF_LAST_MSG_IN_GROUP),
                  ibmmq.PMO(Options=CMQC.MQPMO_LOGICAL_ORDER | CMQC.MQPMO_NO_SYNCPOINT))
    assert reason(exc) == CMQC.MQRC_INCONSISTENT_UOW
    assert exc.value.comp == CMQC.MQCC_FAILED
    conn.backout()


def test_group_mixing_persistence_under_logical_order_is_2185(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    queue.put(b"1", md2(MsgFlags=CMQC.MQMF_MSG_IN_GROUP, Persistence=CMQC.MQPER_PERSISTENT),
              ibmmq.PMO(Options=CMQC.MQPMO_LOGICAL_ORDER))
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(b"2", md2(MsgFlags=CMQC.MQMF_LAST_MSG_IN_GROUP, Persistence=CMQC.MQPER_NOT_PERSISTENT),
                  ibmmq.PMO(Options=CMQC.MQPMO_LOGICAL_ORDER))
    assert reason(exc) == CMQC.MQRC_INCONSISTENT_PERSISTENCE


def test_failed_logical_order_put_does_not_advance_the_group(conn, qm, make_queue):
    name = make_queue()
    queue = ibmmq.Queue(conn, name, OPEN)
    queue.put(b"1", md2(MsgFlags=CMQC.MQMF_MSG_IN_GROUP), ibmmq.PMO(Options=CMQC.MQPMO_LOGICAL_ORDER))
    qm.run_mqsc(f"ALTER QLOCAL({name}) PUT(DISABLED)")
    with pytest.raises(ibmmq.MQMIError):
        queue.put(b"2", md2(MsgFlags=CMQC.MQMF_MSG_IN_GROUP), ibmmq.PMO(Options=CMQC.MQPMO_LOGICAL_ORDER))
    qm.run_mqsc(f"ALTER QLOCAL({name}) PUT(ENABLED)")
    queue.put(b"2", md2(MsgFlags=CMQC.MQMF_LAST_MSG_IN_GROUP), ibmmq.PMO(Options=CMQC.MQPMO_LOGICAL_ORDER))
    sequence = []
    for _ in range(2):
        md = md2()
        queue.get(None, md, gmo(CMQC.MQGMO_LOGICAL_ORDER))
        sequence.append(md.MsgSeqNumber)
    assert sequence == [1, 2]


def test_logical_order_application_segments_get_offsets(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    logical = ibmmq.PMO(Options=CMQC.MQPMO_LOGICAL_ORDER)
    queue.put(b"abc", md2(MsgFlags=CMQC.MQMF_SEGMENT), logical)
    queue.put(b"defg", md2(MsgFlags=CMQC.MQMF_SEGMENT), logical)
    queue.put(b"h", md2(MsgFlags=CMQC.MQMF_LAST_SEGMENT), logical)
    offsets = []
    for _ in range(3):
        md = md2()
        queue.get(None, md, gmo(CMQC.MQGMO_BROWSE_NEXT))
        offsets.append(md.Offset)
    assert offsets == [0, 3, 7]
    assert queue.get(None, md2(), gmo(CMQC.MQGMO_COMPLETE_MSG)) == b"abcdefgh"


def test_an_application_segment_too_big_is_split_further_when_allowed(conn, make_queue):
    """IBM docs, MsgFlags: MQMF_SEGMENTATION_ALLOWED on a message that is already a segment
    allows it to be broken into smaller segments; each keeps its place in the message, and
    only the last piece of the last segment is the last segment. Without the flag: 2030."""
    queue = segmented_queue(conn, make_queue)
    group = b"S".ljust(24, b"\0")
    allowed = CMQC.MQMF_SEGMENTATION_ALLOWED
    queue.put(BODY[:200], md2(GroupId=group, MsgFlags=CMQC.MQMF_SEGMENT | allowed))
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(BODY[200:] * 2, md2(GroupId=group, Offset=200, MsgFlags=CMQC.MQMF_LAST_SEGMENT))
    assert reason(exc) == CMQC.MQRC_MSG_TOO_BIG_FOR_Q
    queue.put(BODY[200:], md2(GroupId=group, Offset=200,
                              MsgFlags=CMQC.MQMF_LAST_SEGMENT | allowed))
    pieces = []
    while True:
        md = md2()
        try:
            queue.get(None, md, gmo(CMQC.MQGMO_BROWSE_NEXT))
        except ibmmq.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            break
        pieces.append((md.Offset, md.MsgFlags & (CMQC.MQMF_SEGMENT | CMQC.MQMF_LAST_SEGMENT)))
    assert pieces == [(0, CMQC.MQMF_SEGMENT), (96, CMQC.MQMF_SEGMENT), (192, CMQC.MQMF_SEGMENT),
                      (200, CMQC.MQMF_LAST_SEGMENT)]
    assert queue.get(None, md2(), gmo(CMQC.MQGMO_COMPLETE_MSG)) == BODY


def test_offset_on_a_message_that_is_not_a_segment_is_2251(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(b"x", md2(Offset=10))
    assert reason(exc) == CMQC.MQRC_OFFSET_ERROR


def test_complete_msg_under_cursor_on_an_incomplete_message_is_2242(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    group = b"INC".ljust(24, b"\0")
    queue.put(b"a" * 16, md2(GroupId=group, MsgFlags=CMQC.MQMF_SEGMENT))
    queue.get(None, md2(), gmo(CMQC.MQGMO_BROWSE_FIRST))
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, md2(), gmo(CMQC.MQGMO_MSG_UNDER_CURSOR | CMQC.MQGMO_COMPLETE_MSG))
    assert reason(exc) == CMQC.MQRC_INCOMPLETE_MSG
