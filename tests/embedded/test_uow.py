"""Conformance: units of work, MQCMIT/MQBACK, BackoutCount, MQDISC and broken connections."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import ibmmq
import pytest
from ibmmq import CMQC

IN_OUT = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE
SYNC_PUT = ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT)


def reason(excinfo) -> int:
    return excinfo.value.reason


def gmo(options: int = 0) -> ibmmq.GMO:
    return ibmmq.GMO(Options=options | CMQC.MQGMO_NO_WAIT)


def drain(queue, options: int = 0) -> list[bytes]:
    out = []
    while True:
        try:
            out.append(queue.get(None, ibmmq.MD(), gmo(options)))
        except ibmmq.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return out


def depth(queue) -> int:
    return queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)


@pytest.fixture
def other(qm):
    connection = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    yield connection
    try:
        connection.disconnect()
    except ibmmq.MQMIError:
        pass


def test_uncommitted_put_is_invisible_to_others_but_counts_in_curdepth(conn, other, make_queue):
    name = make_queue()
    writer = ibmmq.Queue(conn, name, IN_OUT)
    writer.put(b"pending", ibmmq.MD(), SYNC_PUT)
    reader = ibmmq.Queue(other, name, IN_OUT)
    assert drain(reader) == []
    assert depth(reader) == 1
    conn.commit()
    assert drain(reader) == [b"pending"]


def test_backout_of_a_put_discards_it(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), IN_OUT)
    queue.put(b"gone", ibmmq.MD(), SYNC_PUT)
    conn.backout()
    assert depth(queue) == 0
    assert drain(queue) == []


def test_backed_out_get_returns_with_backout_count(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), IN_OUT)
    queue.put(b"retry-me", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
    for expected in (0, 1, 2):
        md = ibmmq.MD()
        assert queue.get(None, md, gmo(CMQC.MQGMO_SYNCPOINT)) == b"retry-me"
        assert md.BackoutCount == expected
        assert depth(queue) == 0  # uncommitted gets do not count
        conn.backout()
        assert depth(queue) == 1
    md = ibmmq.MD()
    queue.get(None, md, gmo(CMQC.MQGMO_SYNCPOINT))
    conn.commit()
    assert md.BackoutCount == 3
    assert drain(queue) == []


def test_backed_out_get_keeps_its_place_in_the_queue(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), IN_OUT)
    for body in (b"1", b"2", b"3"):
        queue.put(body)
    assert queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_SYNCPOINT)) == b"1"
    conn.backout()
    assert drain(queue) == [b"1", b"2", b"3"]


def test_commit_of_gets_removes_them(conn, other, make_queue):
    name = make_queue()
    queue = ibmmq.Queue(conn, name, IN_OUT)
    for body in (b"a", b"b"):
        queue.put(body)
    assert drain(queue, CMQC.MQGMO_SYNCPOINT) == [b"a", b"b"]
    reader = ibmmq.Queue(other, name, IN_OUT)
    assert drain(reader) == []  # taken by the open unit of work
    conn.commit()
    conn.backout()  # nothing left to back out
    assert drain(reader) == []


def test_syncpoint_if_persistent_only_takes_persistent_under_syncpoint(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), IN_OUT)
    queue.put(b"np", ibmmq.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT))
    queue.put(b"p", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
    assert drain(queue, CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT) == [b"np", b"p"]
    conn.backout()
    assert drain(queue) == [b"p"]


def test_units_of_work_are_per_connection(conn, other, make_queue):
    name = make_queue()
    mine = ibmmq.Queue(conn, name, IN_OUT)
    theirs = ibmmq.Queue(other, name, IN_OUT)
    mine.put(b"mine", ibmmq.MD(), SYNC_PUT)
    theirs.put(b"theirs", ibmmq.MD(), SYNC_PUT)
    other.backout()
    conn.commit()
    assert drain(mine) == [b"mine"]


def test_normal_disconnect_commits_open_work(qm, conn, make_queue):
    name = make_queue()
    leaving = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    queue = ibmmq.Queue(leaving, name, IN_OUT)
    queue.put(b"committed-by-disc", ibmmq.MD(), SYNC_PUT)
    leaving.disconnect()
    assert drain(ibmmq.Queue(conn, name, IN_OUT)) == [b"committed-by-disc"]


def test_syncpoint_limit_is_2024(qm, conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), IN_OUT)
    qm.run_mqsc("ALTER QMGR MAXUMSGS(5)")
    try:
        for _ in range(5):
            queue.put(b"x", ibmmq.MD(), SYNC_PUT)
        with pytest.raises(ibmmq.MQMIError) as exc:
            queue.put(b"x", ibmmq.MD(), SYNC_PUT)
        assert reason(exc) == CMQC.MQRC_SYNCPOINT_LIMIT_REACHED
        conn.commit()
        assert depth(queue) == 5
    finally:
        qm.run_mqsc("ALTER QMGR MAXUMSGS(10000)")


def test_backout_count_survives_a_queue_manager_restart(tmp_path):
    import spark_mq.embedded as embedded
    with embedded.EmbeddedQueueManager(str(tmp_path), name="QMBO") as manager:
        connection = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
        queue = ibmmq.Queue(connection, "DEV.QUEUE.1", IN_OUT)
        queue.put(b"p", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        queue.get(None, ibmmq.MD(), gmo(CMQC.MQGMO_SYNCPOINT))
        connection.backout()
        connection.disconnect()
        manager.kill()
        manager.start()
        connection = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
        queue = ibmmq.Queue(connection, "DEV.QUEUE.1", IN_OUT)
        md = ibmmq.MD()
        assert queue.get(None, md, gmo()) == b"p"
        assert md.BackoutCount == 1
        connection.disconnect()


_CLIENT = textwrap.dedent("""
    import sys, time
    import spark_mq.embedded as embedded
    embedded.install()
    import ibmmq
    from ibmmq import CMQC
    name, channel, conn_name, queue_name, count = sys.argv[1:6]
    conn = ibmmq.connect(name, channel, conn_name)
    queue = ibmmq.Queue(conn, queue_name, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT)
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT)
    for _ in range(int(count)):
        queue.get(None, ibmmq.MD(), gmo)
    queue.put(b"uncommitted", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    print("READY", flush=True)
    time.sleep(600)
""")


def test_killed_client_backs_out_its_unit_of_work(qm, conn, make_queue):
    name = make_queue()
    queue = ibmmq.Queue(conn, name, IN_OUT)
    for index in range(3):
        queue.put(f"m{index}".encode(), ibmmq.MD(Persistence=index % 2))
    child = subprocess.Popen([sys.executable, "-c", _CLIENT, qm.name, qm.channel, qm.conn_name,
                              name, "3"], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "READY"
        assert depth(queue) == 1  # three gets in flight, one uncommitted put
        assert drain(queue) == []
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()
        child.wait()
    got = []
    gmo_wait = ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=5000)
    for _ in range(3):
        md = ibmmq.MD()
        got.append((queue.get(None, md, gmo_wait), md.BackoutCount))
    assert got == [(b"m0", 1), (b"m1", 1), (b"m2", 1)]
    assert drain(queue) == []  # the uncommitted put is gone
    assert depth(queue) == 0


def test_waiting_get_of_a_killed_client_does_not_steal_a_message(qm, conn, make_queue):
    name = make_queue()
    script = textwrap.dedent("""
        import sys
        import spark_mq.embedded as embedded
        embedded.install()
        import ibmmq
        from ibmmq import CMQC
        conn = ibmmq.connect(*sys.argv[1:4])
        queue = ibmmq.Queue(conn, sys.argv[4], CMQC.MQOO_INPUT_SHARED)
        print("READY", flush=True)
        queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_SYNCPOINT,
                                               WaitInterval=-1))
    """)
    child = subprocess.Popen([sys.executable, "-c", script, qm.name, qm.channel, qm.conn_name, name],
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "READY"
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    queue = ibmmq.Queue(conn, name, IN_OUT)
    queue.put(b"for the living")
    md = ibmmq.MD()
    assert queue.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=5000)) == b"for the living"
    assert md.BackoutCount == 0
