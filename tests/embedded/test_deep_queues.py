"""Queues deeper than the memory the queue manager gives them: every MQ behaviour holds when
most messages lie only in the store (queues.py, message_rows.py).

The queue managers here keep 8 messages of a queue in memory (--queue-memory 8), so a few
dozen messages put most of a queue in the store, and the same paths a 10-million-message
backlog takes are taken by every get, browse and restart below.
"""
from __future__ import annotations

import os
import time

import ibmmq
import pytest
from ibmmq import CMQC

import spark_mq.embedded as embedded
from support import ibm_otel_hooks_off

OPEN = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE | CMQC.MQOO_BROWSE
PERSISTENT, NOT_PERSISTENT = CMQC.MQPER_PERSISTENT, CMQC.MQPER_NOT_PERSISTENT
MEMORY = 8


@pytest.fixture
def manager(tmp_path):
    with embedded.EmbeddedQueueManager(str(tmp_path), name="QMDEEP", queue_memory=MEMORY,
                                       mqsc="DEFINE QLOCAL(DEEP) MAXDEPTH(100000) REPLACE\n"
                                            "DEFINE QLOCAL(FIFO) MSGDLVSQ(FIFO) REPLACE\n"
                                            "DEFINE QLOCAL(EXPIRING) REPLACE\n") as qm:
        yield qm


def connect(manager):
    return ibmmq.connect(manager.name, manager.channel, manager.conn_name)


def put(queue, body: bytes, persistence: int = PERSISTENT, **fields) -> ibmmq.MD:
    md = ibmmq.MD(Persistence=persistence, **fields)
    queue.put(body, md)
    return md


def get(queue, options: int = CMQC.MQGMO_NO_WAIT, md: ibmmq.MD | None = None,
        match: int = CMQC.MQMO_NONE, **gmo_fields) -> bytes | None:
    gmo = ibmmq.GMO(Options=options, MatchOptions=match, Version=CMQC.MQGMO_VERSION_2,
                    **gmo_fields)
    # IBM's hook fails on a version-2 MQGMO with MQGMO_NO_PROPERTIES (support.py)
    hooks = ("get_trace_before",) if options & CMQC.MQGMO_NO_PROPERTIES else ()
    try:
        with ibm_otel_hooks_off(*hooks):
            return queue.get(None, md or ibmmq.MD(), gmo)
    except ibmmq.MQMIError as exc:
        if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
            return None
        raise


def drain(queue, options: int = CMQC.MQGMO_NO_WAIT) -> list[bytes]:
    out = []
    while (body := get(queue, options)) is not None:
        out.append(body)
    return out


def depth(queue) -> int:
    return queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)


def test_fifo_order_across_memory_and_store_with_non_persistent_among_them(manager):
    conn = connect(manager)
    queue = ibmmq.Queue(conn, "FIFO", OPEN)
    expected = []
    for index in range(120):
        persistence = NOT_PERSISTENT if index % 7 == 0 else PERSISTENT
        put(queue, b"m%03d" % index, persistence)
        expected.append(b"m%03d" % index)
    assert depth(queue) == 120
    # a quarter taken in a unit of work that is backed out: they come back where they were
    for _ in range(30):
        assert get(queue, CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT) is not None
    assert depth(queue) == 90
    conn.backout()
    assert depth(queue) == 120
    assert drain(queue) == expected
    assert depth(queue) == 0
    conn.disconnect()


def test_priority_order_with_most_of_the_queue_in_the_store(manager):
    conn = connect(manager)
    queue = ibmmq.Queue(conn, "DEEP", OPEN)
    sent = []
    for index in range(90):
        priority = (index * 7) % 10
        put(queue, b"p%d-%03d" % (priority, index), Priority=priority)
        sent.append((-priority, index, b"p%d-%03d" % (priority, index)))
    # put last, of the highest priority: before every message of lower priority in the store
    put(queue, b"urgent", Priority=9)
    sent.append((-9, 90, b"urgent"))
    assert drain(queue) == [body for _, _, body in sorted(sent)]
    conn.disconnect()


def test_get_by_msgid_and_correlid_reaches_deep_into_the_store(manager):
    conn = connect(manager)
    queue = ibmmq.Queue(conn, "DEEP", OPEN)
    mds = [put(queue, b"m%03d" % index, CorrelId=b"C%023d" % (index % 5)) for index in range(100)]
    # the 97th by its MsgId
    md = ibmmq.MD(MsgId=mds[96].MsgId)
    assert get(queue, md=md, match=CMQC.MQMO_MATCH_MSG_ID) == b"m096"
    # the first of CorrelId 3 still there, then the next
    md = ibmmq.MD(CorrelId=b"C%023d" % 3)
    assert get(queue, md=md, match=CMQC.MQMO_MATCH_CORREL_ID) == b"m003"
    md = ibmmq.MD(CorrelId=b"C%023d" % 3)
    assert get(queue, md=md, match=CMQC.MQMO_MATCH_CORREL_ID) == b"m008"
    # both ids: only the message with both
    md = ibmmq.MD(MsgId=mds[88].MsgId, CorrelId=b"C%023d" % 3)
    assert get(queue, md=md, match=CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID) == b"m088"
    md = ibmmq.MD(MsgId=mds[89].MsgId, CorrelId=b"C%023d" % 3)
    assert get(queue, md=md, match=CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID) is None
    left = drain(queue)
    assert len(left) == 96 and b"m096" not in left and b"m003" not in left
    assert left == sorted(left)
    conn.disconnect()


def test_browse_the_whole_queue_then_get_under_the_cursor(manager):
    conn = connect(manager)
    queue = ibmmq.Queue(conn, "FIFO", OPEN)
    for index in range(60):
        put(queue, b"b%03d" % index)
    browsed = [get(queue, CMQC.MQGMO_BROWSE_FIRST)]
    while (body := get(queue, CMQC.MQGMO_BROWSE_NEXT)) is not None:
        browsed.append(body)
    assert browsed == [b"b%03d" % index for index in range(60)]
    # a cursor on a message in the store: the browse did not take it into memory for good
    assert get(queue, CMQC.MQGMO_BROWSE_FIRST) == b"b000"
    for _ in range(40):
        get(queue, CMQC.MQGMO_BROWSE_NEXT)
    assert get(queue, CMQC.MQGMO_MSG_UNDER_CURSOR) == b"b040"
    assert depth(queue) == 59
    rest = drain(queue)
    assert len(rest) == 59 and b"b040" not in rest
    conn.disconnect()


def test_selector_finds_messages_in_the_store(manager):
    conn = connect(manager)
    writer = ibmmq.Queue(conn, "FIFO", OPEN)
    for index in range(80):
        put(writer, b"s%03d" % index)
    handle = ibmmq.MessageHandle(conn)
    handle.properties.set("colour", "red")
    writer.put(b"red one", ibmmq.MD(Persistence=PERSISTENT),
               ibmmq.PMO(OriginalMsgHandle=handle.msg_handle))
    od = ibmmq.OD(Version=CMQC.MQOD_VERSION_4, ObjectName=b"FIFO")
    od.set_vs("SelectionString", "colour = 'red'")
    selected = ibmmq.Queue(conn, od, CMQC.MQOO_INPUT_SHARED)
    assert get(selected, CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_PROPERTIES) == b"red one"
    assert get(selected, CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_PROPERTIES) is None
    assert len(drain(writer)) == 80
    conn.disconnect()


def test_segments_and_groups_lying_in_the_store_are_reassembled(manager):
    conn = connect(manager)
    queue = ibmmq.Queue(conn, "FIFO", OPEN)
    for index in range(30):  # in front: the group lies in the store
        put(queue, b"x%03d" % index)
    group = b"G" * 24
    flags = (CMQC.MQMF_SEGMENT, CMQC.MQMF_SEGMENT, CMQC.MQMF_LAST_SEGMENT)
    offset = 0
    for flag, piece in zip(flags, (b"hello ", b"deep ", b"queue")):
        md = ibmmq.MD(Persistence=PERSISTENT, GroupId=group, MsgSeqNumber=1, Offset=offset,
                      MsgFlags=flag | CMQC.MQMF_LAST_MSG_IN_GROUP, Version=CMQC.MQMD_VERSION_2)
        queue.put(piece, md, ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        offset += len(piece)
    conn.commit()
    md = ibmmq.MD(Version=CMQC.MQMD_VERSION_2)
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_COMPLETE_MSG | CMQC.MQGMO_ALL_MSGS_AVAILABLE
                    | CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_SYNCPOINT,
                    MatchOptions=CMQC.MQMO_MATCH_GROUP_ID, Version=CMQC.MQGMO_VERSION_2)
    md.GroupId = group
    assert queue.get(None, md, gmo) == b"hello deep queue"
    conn.commit()
    assert depth(queue) == 30
    conn.disconnect()


def test_expired_messages_in_the_store_are_removed_when_a_get_passes_them(manager):
    conn = connect(manager)
    queue = ibmmq.Queue(conn, "EXPIRING", OPEN)
    for index in range(40):
        put(queue, b"keep%02d" % index)
    for index in range(20):
        put(queue, b"gone%02d" % index, Expiry=1)  # a tenth of a second
    put(queue, b"last")
    time.sleep(0.3)  # let them expire: expiry is measured in time
    assert [body for body in drain(queue) if body.startswith(b"gone")] == []
    assert depth(queue) == 0
    conn.disconnect()


def test_changing_the_delivery_order_of_a_deep_queue(manager):
    conn = connect(manager)
    queue = ibmmq.Queue(conn, "FIFO", OPEN)
    for index in range(50):
        put(queue, b"%d-%03d" % (index % 3, index), Priority=index % 3)
    manager.run_mqsc("ALTER QLOCAL(FIFO) MSGDLVSQ(PRIORITY)")
    got = drain(queue)
    assert got == sorted(got, key=lambda body: (-int(body[:1]), body[2:]))
    conn.disconnect()


def test_deep_queue_survives_kill_9_exactly_once_in_order(manager):
    conn = connect(manager)
    queue = ibmmq.Queue(conn, "DEEP", OPEN)
    for index in range(300):
        queue.put(b"c%04d" % index, ibmmq.MD(Persistence=PERSISTENT),
                  ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        if index % 50 == 49:
            conn.commit()
    put(queue, b"np", NOT_PERSISTENT)
    # an open unit of work at the kill: gets from the front and from the store, a put
    for _ in range(20):
        assert get(queue, CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT) is not None
    queue.put(b"uncommitted", ibmmq.MD(Persistence=PERSISTENT),
              ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    pid = manager.pid
    manager.kill()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    manager.start()
    conn = connect(manager)
    queue = ibmmq.Queue(conn, "DEEP", OPEN)
    assert depth(queue) == 300
    assert drain(queue) == [b"c%04d" % index for index in range(300)]
    conn.disconnect()


def test_deep_queue_restart_reads_only_its_first_page(manager):
    """A clean restart of a deep queue: depth right at once, messages in order."""
    conn = connect(manager)
    queue = ibmmq.Queue(conn, "DEEP", OPEN)
    for index in range(200):
        put(queue, b"r%04d" % index)
    conn.disconnect()
    manager.stop()
    manager.start()
    conn = connect(manager)
    queue = ibmmq.Queue(conn, "DEEP", OPEN)
    assert depth(queue) == 200
    assert get(queue) == b"r0000"
    put(queue, b"after")
    assert drain(queue) == [b"r%04d" % index for index in range(1, 200)] + [b"after"]
    conn.disconnect()


def test_clear_and_maxdepth_count_the_messages_in_the_store(manager):
    conn = connect(manager)
    manager.run_mqsc("ALTER QLOCAL(FIFO) MAXDEPTH(40)")
    queue = ibmmq.Queue(conn, "FIFO", OPEN)
    for index in range(40):
        put(queue, b"q%02d" % index)
    with pytest.raises(ibmmq.MQMIError) as exc:
        put(queue, b"one too many")
    assert exc.value.reason == CMQC.MQRC_Q_FULL
    queue.close()
    out = manager.run_mqsc("CLEAR QLOCAL(FIFO)")
    assert "40" in out or "cleared" in out.lower()
    queue = ibmmq.Queue(conn, "FIFO", OPEN)
    assert depth(queue) == 0
    assert get(queue) is None
    conn.disconnect()


def test_a_store_written_before_the_queued_table_is_migrated(tmp_path):
    """Messages stored by a queue manager of an earlier release (one `messages` table with
    the whole MQMD) are all there after the upgrade, in order, with their properties."""
    import json
    import sqlite3

    from spark_mq.embedded.wire import encode
    from spark_mq.mqi.structs import MD, default_md

    data_dir = tmp_path / "qm"
    data_dir.mkdir(mode=0o700)
    db = sqlite3.connect(data_dir / "qmgr.db")
    db.executescript(
        "CREATE TABLE objects (kind TEXT NOT NULL, name TEXT NOT NULL, attrs TEXT NOT NULL, "
        "PRIMARY KEY (kind, name));"
        "CREATE TABLE messages (seq INTEGER PRIMARY KEY, queue TEXT NOT NULL, md BLOB NOT NULL, "
        "body BLOB NOT NULL, props BLOB, backout INTEGER NOT NULL DEFAULT 0, expires_at REAL);")
    db.execute("INSERT INTO objects VALUES ('QLOCAL', 'OLD.Q', ?)",
               (json.dumps({"MSGDLVSQ": "FIFO"}),))
    for seq in range(1, 31):
        md = default_md(Persistence=PERSISTENT, Format=b"MQSTR   ", MsgId=b"M%023d" % seq,
                        CorrelId=b"C" * 24 if seq == 7 else b"\0" * 24, Priority=seq % 10)
        props = encode([["colour", CMQC.MQTYPE_STRING, "red"]]) if seq == 7 else None
        db.execute("INSERT INTO messages VALUES (?, 'OLD.Q', ?, ?, ?, ?, NULL)",
                   (seq, MD.pack(md), b"old%02d" % seq, props, 2 if seq == 7 else 0))
    db.commit()
    db.close()
    with embedded.EmbeddedQueueManager(str(data_dir), name="QMOLD", queue_memory=MEMORY) as qm:
        conn = connect(qm)
        queue = ibmmq.Queue(conn, "OLD.Q", OPEN)
        assert depth(queue) == 30
        md = ibmmq.MD(CorrelId=b"C" * 24)
        handle = ibmmq.MessageHandle(conn)
        gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE,
                        MatchOptions=CMQC.MQMO_MATCH_CORREL_ID, MsgHandle=handle.msg_handle,
                        Version=CMQC.MQGMO_VERSION_4)
        assert queue.get(None, md, gmo) == b"old07"
        assert md.MsgId == b"M%023d" % 7 and md.BackoutCount == 2
        assert handle.properties.get("colour") == "red"
        assert drain(queue) == [b"old%02d" % seq for seq in range(1, 31) if seq != 7]
        conn.disconnect()
    db = sqlite3.connect(data_dir / "qmgr.db")
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    db.close()
    assert "messages" not in tables and "queued" in tables


def test_a_drained_queue_gives_its_space_back(manager):
    """The store keeps 16 MiB of free pages for new messages and gives the rest back to the
    file system in the background."""
    conn = connect(manager)
    queue = ibmmq.Queue(conn, "DEEP", OPEN)
    for index in range(120):        # 30 MiB in large messages: few round trips
        queue.put(b"%03d" % index + b"x" * (256 * 1024 - 3), ibmmq.MD(Persistence=PERSISTENT))
    store = os.path.join(manager.data_dir, "qmgr.db")
    deadline = time.monotonic() + 120
    while os.path.getsize(store) < 30 * 2**20 and time.monotonic() < deadline:
        time.sleep(0.5)     # until the checkpointer has copied them from the WAL
    full = os.path.getsize(store)
    assert full > 30 * 2**20
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT)
    assert [queue.get(None, ibmmq.MD(), gmo)[:3] for _ in range(120)] == [
        b"%03d" % index for index in range(120)]
    # the file itself shrinks (the WAL beside it keeps its size, up to 64 MiB, for reuse)
    deadline = time.monotonic() + 120
    while os.path.getsize(store) > 22 * 2**20 and time.monotonic() < deadline:
        time.sleep(0.5)     # the checkpointer's rounds run every half second
    assert os.path.getsize(store) <= 22 * 2**20, (full, os.path.getsize(store))
    conn.disconnect()
