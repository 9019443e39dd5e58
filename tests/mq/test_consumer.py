"""spark_mq.mq.consumer / browser against the real embedded queue manager (no Spark)."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC

from spark_mq.mq import records
from spark_mq.mq.browser import Browser
from spark_mq.mq.consumer import Consumer
from spark_mq.mq.message import REFERENCE_FORMAT
from support import depth, drain_payloads, put_group, put_messages, put_reference_pair


def _consumer(qm, queue, **kw) -> Consumer:
    connection = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    return Consumer(ibmmq, connection, queue, **kw)


def test_batch_is_held_until_commit_and_comes_back_on_backout(qm, conn, make_queue):
    queue = make_queue()
    put_messages(conn, queue, [b"a", b"b", b"c"])
    consumer = _consumer(qm, queue)
    try:
        batch = consumer.get_batch(10, 1 << 20)
        assert [m.payload for m in batch] == [b"a", b"b", b"c"]
        assert depth(conn, queue) == 0          # gotten, not yet committed
        consumer.backout()
        assert depth(conn, queue) == 3
        again = consumer.get_batch(2, 1 << 20)  # maxMessages honoured
        assert [m.payload for m in again] == [b"a", b"b"]
        assert [m.field("BackoutCount") for m in again] == [1, 1]
        consumer.commit()
        assert depth(conn, queue) == 1
    finally:
        consumer.close()


def test_max_bytes_takes_at_least_one_message(qm, conn, make_queue):
    queue = make_queue()
    put_messages(conn, queue, [b"x" * 100] * 5)
    consumer = _consumer(qm, queue)
    try:
        assert len(consumer.get_batch(100, 250)) == 3   # stops once 250 bytes are reached
        assert len(consumer.get_batch(100, 1)) == 1
    finally:
        consumer.close()


def test_close_backs_out_instead_of_committing(qm, conn, make_queue):
    queue = make_queue()
    put_messages(conn, queue, [b"a", b"b"])
    consumer = _consumer(qm, queue)
    assert len(consumer.get_batch(10, 1 << 20)) == 2
    consumer.close()  # MQDISC alone would commit the gets
    assert depth(conn, queue) == 2


def test_records_find_messages_again_and_remove_them(qm, conn, make_queue):
    queue = make_queue()
    put_messages(conn, queue, [b"m%d" % i for i in range(6)])
    consumer = _consumer(qm, queue)
    try:
        batch = consumer.get_batch(4, 1 << 20)
        wanted = [m.record for m in batch]
        consumer.backout()
        text = records.encode(wanted)
        assert records.decode(text) == wanted
        again, missing = consumer.get_records(records.decode(text), wait_s=0)
        assert missing == 0
        assert [m.payload for m in again] == [b"m0", b"m1", b"m2", b"m3"]
        consumer.backout()
        assert consumer.remove_records(wanted[:2]) == 2
        assert consumer.remove_records(wanted[:2]) == 0   # already gone (uncommitted get)
        consumer.commit()
        assert sorted(p for p, _ in drain_payloads(conn, queue)) == [b"m2", b"m3", b"m4", b"m5"]
    finally:
        consumer.close()


def test_poison_message_goes_to_the_backout_queue_in_the_same_unit_of_work(qm, conn, make_queue):
    boq = make_queue()
    queue = make_queue(f"BOTHRESH(2) BOQNAME('{boq}')")
    put_messages(conn, queue, [b"good", b"bad"],
                 properties=[None, {"kind": ("poison", CMQC.MQTYPE_STRING, 6)}])
    consumer = _consumer(qm, queue)
    try:
        for _ in range(2):   # two failed deliveries of both
            assert len(consumer.get_batch(10, 1 << 20)) == 2
            consumer.backout()
        put_messages(conn, queue, [b"new"])
        batch = consumer.get_batch(10, 1 << 20)
        assert [m.payload for m in batch] == [b"new"]  # both old ones reached BOTHRESH 2
        assert drain_payloads(conn, boq) == []                  # the move is in the open unit of work
        consumer.commit()
        moved = drain_payloads(conn, boq)
        assert sorted(p for p, _ in moved) == [b"bad", b"good"]
        assert depth(conn, queue) == 0
    finally:
        consumer.close()


def test_poison_message_goes_to_the_dead_letter_queue_with_an_mqdlh(qm, conn, make_queue):
    queue = make_queue()
    dlq = make_queue()
    # the queue manager's own DEADQ is shared by all tests: name a private one
    consumer = _consumer(qm, queue, backout_threshold=1, dead_letter_queue=dlq)
    try:
        put_messages(conn, queue, [b"payload"])
        assert len(consumer.get_batch(10, 1 << 20)) == 1
        consumer.backout()
        assert consumer.get_batch(10, 1 << 20) == []
        consumer.commit()
        [(body, md)] = drain_payloads(conn, dlq)
        assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER
        dlh = ibmmq.DLH().get_header(body)
        assert dlh.Reason == 2362  # MQRC_BACKOUT_THRESHOLD_REACHED
        assert dlh.DestQName.decode().strip("\0 ") == queue
        assert body[CMQC.MQDLH_LENGTH_1:] == b"payload"
    finally:
        consumer.close()


def _put_text(conn, queue: str, data: bytes, ccsid: int, fmt: bytes = CMQC.MQFMT_STRING) -> bytes:
    [msg_id] = put_messages(conn, queue, [data], md_fields={"CodedCharSetId": ccsid, "Format": fmt})
    return msg_id


def test_require_text_moves_what_is_not_text_with_its_reason_and_counts_committed_moves(
        qm, conn, make_queue):
    boq = make_queue()
    queue = make_queue(f"BOQNAME('{boq}')")      # BOTHRESH 0: no poison handling, yet moves
    _put_text(conn, queue, "Grüße [x] | ¬".encode("cp500"), 500)
    bad = {_put_text(conn, queue, b"caf\xe9 \xff", 1208): (2119, b"caf\xe9 \xff", 1208),   # not UTF-8
           _put_text(conn, queue, b"\xc1\xc2", 4242): (2111, b"\xc1\xc2", 4242),        # no such code page
           _put_text(conn, queue, b"\x00\x01", 1208, CMQC.MQFMT_NONE): (2110, b"\x00\x01", 1208)}
    _put_text(conn, queue, "Grüße [x] | ¬".encode("cp037"), 37)
    consumer = _consumer(qm, queue, require_text=True)
    try:
        assert consumer.backout_threshold == 0 and consumer.not_text_destination == boq
        batch = consumer.get_batch(10, 1 << 20)
        assert [(m.field("CodedCharSetId"), m.payload) for m in batch] == [
            (500, "Grüße [x] | ¬".encode("cp500")), (37, "Grüße [x] | ¬".encode("cp037"))]
        consumer.backout()                        # a backed-out move is no move
        assert consumer.not_text_moved == 0 and depth(conn, boq) == 0 and depth(conn, queue) == 5
        assert len(consumer.get_batch(10, 1 << 20)) == 2
        consumer.commit()
        assert consumer.not_text_moved == 3
        moved = drain_payloads(conn, boq)
    finally:
        consumer.close()
    assert depth(conn, queue) == 0
    assert len(moved) == 3
    for body, md in moved:
        reason, data, ccsid = bad[md.MsgId]           # MsgId kept
        assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER
        dlh = ibmmq.DLH().get_header(body)
        assert dlh.Reason == reason
        assert dlh.DestQName.decode().strip("\0 ") == queue
        assert dlh.CodedCharSetId == ccsid                  # the data's own label, kept
        assert body[CMQC.MQDLH_LENGTH_1:] == data             # byte for byte


def test_require_text_with_nowhere_to_move_fails_and_leaves_the_message(qm, conn, make_queue):
    queue = make_queue()
    _put_text(conn, queue, b"\xff", 1208)
    consumer = _consumer(qm, queue, require_text=True, dead_letter_queue="")
    try:
        consumer._not_text._dlq = None   # the shared queue manager has a DEADQ; this test wants none
        with pytest.raises(Exception, match="not valid in its CCSID 1208.*stays on the queue"):
            consumer.get_batch(10, 1 << 20)
    finally:
        consumer.close()
    assert depth(conn, queue) == 1


def test_groups_come_whole_in_logical_order_and_incomplete_groups_wait(qm, conn, make_queue):
    queue = make_queue()
    put_group(conn, queue, [b"open-1", b"open-2"], complete=False)   # no last message yet
    put_group(conn, queue, [b"g-1", b"g-2", b"g-3"])
    put_messages(conn, queue, [b"single"])
    consumer = _consumer(qm, queue)
    try:
        batch = consumer.get_batch(2, 1 << 20)   # a group is never split across batches
        assert [m.payload for m in batch] == [b"g-1", b"g-2", b"g-3"]
        assert [m.field("MsgSeqNumber") for m in batch] == [1, 2, 3]
        assert len({m.field("GroupId") for m in batch}) == 1
        assert [m.payload for m in consumer.get_batch(10, 1 << 20)] == [b"single"]
        consumer.commit()
        assert depth(conn, queue) == 2           # the incomplete group stays
    finally:
        consumer.close()


def test_segmented_message_comes_out_whole(qm, conn, make_queue):
    queue = make_queue("MAXMSGL(1024)")
    payload = bytes(range(256)) * 20   # 5120 bytes, > MAXMSGL
    q = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
    md = ibmmq.MD()
    md.MsgFlags = CMQC.MQMF_SEGMENTATION_ALLOWED
    md.Persistence = CMQC.MQPER_PERSISTENT
    q.put(payload, md)
    q.close()
    consumer = _consumer(qm, queue)
    try:
        [message] = consumer.get_batch(10, 1 << 20)
        assert message.payload == payload
        consumer.backout()
        again, missing = consumer.get_records([message.record], wait_s=0)
        assert missing == 0 and again[0].payload == payload
        consumer.commit()
        assert depth(conn, queue) == 0
    finally:
        consumer.close()


def test_reference_and_data_message_come_out_as_one(qm, conn, make_queue):
    queue = make_queue("MAXMSGL(4096)")
    payload = b"0123456789abcdef" * 1024   # 16 KiB: the data message is segmented
    put_reference_pair(conn, queue, payload, {"colour": ("blue", CMQC.MQTYPE_STRING, 4)})
    put_messages(conn, queue, [b"after"])
    consumer = _consumer(qm, queue)
    try:
        batch = consumer.get_batch(10, 1 << 30)
        assert [m.payload for m in batch] == [payload, b"after"]
        assert batch[0].properties == {"colour": "blue"}
        assert batch[0].field("Format") == REFERENCE_FORMAT
        consumer.backout()
        again, missing = consumer.get_records([batch[0].record], wait_s=0)
        assert missing == 0 and again[0].payload == payload
        assert again[0].properties == {"colour": "blue"}
        consumer.commit()
        assert depth(conn, queue) == 1   # both halves gone, "after" stays
    finally:
        consumer.close()


def test_browse_is_a_snapshot_that_consumes_nothing(qm, conn, make_queue):
    queue = make_queue()
    put_messages(conn, queue, [b"one", b"two"],
                 properties=[{"n": (1, CMQC.MQTYPE_INT32, 4)}, None])
    browser = Browser(ibmmq, ibmmq.connect(qm.name, qm.channel, qm.conn_name), queue)
    try:
        messages = list(browser.messages())
        assert [m.payload for m in messages] == [b"one", b"two"]
        assert messages[0].properties == {"n": 1}
        assert [m.payload for m in browser.messages()] == [b"one", b"two"]  # again: still there
    finally:
        browser.close()
    assert depth(conn, queue) == 2


def test_unknown_queue_names_the_reason(qm, make_queue):
    from spark_mq.mq.exceptions import MQConnectorError
    with pytest.raises(MQConnectorError, match=r"2085 MQRC_UNKNOWN_OBJECT_NAME.*NO.SUCH.QUEUE|"
                                               r"NO.SUCH.QUEUE.*2085"):
        _consumer(qm, "NO.SUCH.QUEUE")


def test_refused_credentials_and_unreachable_queue_manager_name_the_reason(tmp_path):
    import spark_mq.embedded as embedded
    from spark_mq.mq.connecting import connect
    from spark_mq.mq.exceptions import MQConnectorError
    from spark_mq.options import ReadOptions
    with embedded.EmbeddedQueueManager(str(tmp_path / "qm-auth"), name="QMAUTH",
                                       users={"app": "s3cret"}) as secured:
        options = ReadOptions.parse({"queueManager": "QMAUTH", "connName": secured.conn_name,
                                     "queue": "Q", "user": "app", "password": "wrong",
                                     "transport": "embedded"})
        with pytest.raises(MQConnectorError, match=r"2035 MQRC_NOT_AUTHORIZED.*'user' and 'password'"):
            connect(options.connection)
    options = ReadOptions.parse({"queueManager": "QMAUTH", "connName": "127.0.0.1(1)",
                                 "queue": "Q", "transport": "embedded"})
    with pytest.raises(MQConnectorError, match=r"2538 MQRC_HOST_NOT_AVAILABLE.*connName"):
        connect(options.connection)


def test_selector_picks_messages_by_property(qm, conn, make_queue):
    queue = make_queue()
    put_messages(conn, queue, [b"r1", b"b1", b"r2"], properties=[
        {"colour": ("red", CMQC.MQTYPE_STRING, 3)}, {"colour": ("blue", CMQC.MQTYPE_STRING, 4)},
        {"colour": ("red", CMQC.MQTYPE_STRING, 3)}])
    consumer = _consumer(qm, queue, selector="colour = 'red'")
    try:
        assert [m.payload for m in consumer.get_batch(10, 1 << 20)] == [b"r1", b"r2"]
        consumer.commit()
        assert depth(conn, queue) == 1
    finally:
        consumer.close()


def test_large_messages_grow_the_get_buffer(qm, conn, make_queue):
    queue = make_queue()
    big = bytes(range(256)) * 1024   # 256 KiB, past the first 64 KiB buffer
    put_messages(conn, queue, [b"small", big, b"small again"])
    browser = Browser(ibmmq, ibmmq.connect(qm.name, qm.channel, qm.conn_name), queue)
    try:
        assert [m.payload for m in browser.messages()] == [b"small", big, b"small again"]
    finally:
        browser.close()
    consumer = _consumer(qm, queue)
    try:
        assert [m.payload for m in consumer.get_batch(10, 1 << 30)] == [b"small", big, b"small again"]
    finally:
        consumer.close()


def test_browse_shows_a_reference_pair_as_one_message(qm, conn, make_queue):
    queue = make_queue("MAXMSGL(4096)")
    payload = b"abcdefgh" * 3000   # 24000 bytes, segmented
    put_reference_pair(conn, queue, payload, {"k": ("v", CMQC.MQTYPE_STRING, 1)})
    browser = Browser(ibmmq, ibmmq.connect(qm.name, qm.channel, qm.conn_name), queue)
    try:
        [message] = list(browser.messages())
        assert message.payload == payload and message.properties == {"k": "v"}
    finally:
        browser.close()


def test_the_queue_get_path_gives_the_same_messages(qm, conn, make_queue):
    """Where ibmmq's C boundary is not reachable (pymqi), Queue.get is used instead."""
    queue = make_queue()
    put_messages(conn, queue, [b"p1", b"p2"], properties=[{"n": (7, CMQC.MQTYPE_INT32, 4)}, None])
    fast, slow = _consumer(qm, queue), _consumer(qm, queue)
    slow._raw = None
    try:
        by_fast = fast.get_batch(10, 1 << 20)
        fast.backout()
        by_slow = slow.get_batch(10, 1 << 20)
        assert [(m.payload, m.properties, m.record) for m in by_slow] == [
            (m.payload, m.properties, m.record) for m in by_fast]
        assert [m.md[:3] for m in by_slow] == [m.md[:3] for m in by_fast]
        assert by_slow[0].field("BackoutCount") == by_fast[0].field("BackoutCount") + 1
    finally:
        fast.close()
        slow.close()
