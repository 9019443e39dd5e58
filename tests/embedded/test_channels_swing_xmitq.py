"""Swinging a transmission queue end to end, between two real embedded queue managers through
IBM's `ibmmq` API: after the administrator points the sender channel and the remote queue
definition at a new transmission queue and moves the old one's messages there (IBM docs,
"Changing the transmission queue of a channel"), an application that kept its remote queue
open puts to the new queue, and every message arrives once."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC

from channel_topology import TIMERS, channel_status, connect, define_receiver, depth, start, wait_for

OLD, NEW, REMOTE = "OLD.XQ", "NEW.XQ", "TO.B"


def _put(queue: ibmmq.Queue, bodies: list[bytes]) -> None:
    for body in bodies:
        queue.put(body, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))


def test_an_open_remote_queue_follows_the_switch_and_nothing_is_lost_or_doubled(tmp_path):
    qmb = start(tmp_path, "QMB", mqsc="DEFINE QLOCAL(IN.B)\n")
    qma = start(tmp_path, "QMA")
    try:
        channel = define_receiver(qmb, "QMA")
        qma.run_mqsc(
            f"DEFINE QLOCAL({OLD}) USAGE(XMITQ)\nDEFINE QLOCAL({NEW}) USAGE(XMITQ)\n"
            f"DEFINE CHANNEL({channel}) CHLTYPE(SDR) CONNAME('127.0.0.1({qmb.port})') "
            f"XMITQ({OLD}) {TIMERS}\n"
            f"DEFINE QREMOTE({REMOTE}) RNAME(IN.B) RQMNAME(QMB) XMITQ({OLD})")
        conn_a, conn_b = connect(qma), connect(qmb)
        remote = ibmmq.Queue(conn_a, REMOTE, CMQC.MQOO_OUTPUT)
        before = [f"before {n}".encode() for n in range(3)]
        _put(remote, before)
        assert (depth(conn_a, OLD), depth(conn_a, NEW)) == (3, 0)

        qma.run_mqsc(f"ALTER CHANNEL({channel}) CHLTYPE(SDR) XMITQ({NEW})\n"
                     f"ALTER QREMOTE({REMOTE}) XMITQ({NEW})")
        during = [b"between the alter and the move"]
        _put(remote, during)     # the definition says NEW now: the open handle follows it
        assert (depth(conn_a, OLD), depth(conn_a, NEW)) == (3, 1)
        moved = qma.run_mqsc(f"MOVE QLOCAL({OLD}) TOQLOCAL({NEW}) TYPE(ADD)")
        assert f"3 messages moved from {OLD} to {NEW}" in moved, moved
        qma.run_mqsc(f"DELETE QLOCAL({OLD})")
        after = [f"after {n}".encode() for n in range(3)]
        _put(remote, after)      # the queue the open chose is gone: nothing may vanish with it
        remote.close()
        assert depth(conn_a, NEW) == 7

        qma.run_mqsc(f"START CHANNEL({channel})")
        wait_for(lambda: depth(conn_b, "IN.B") >= 7, what=f"{channel} delivers 7 messages")
        qma.run_mqsc(f"STOP CHANNEL({channel})")   # its batch committed at both ends
        wait_for(lambda: channel_status(qma, channel) in ("", "STOPPED"), what="stopped")
        assert (depth(conn_a, NEW), depth(conn_b, "IN.B")) == (0, 7)
        queue = ibmmq.Queue(conn_b, "IN.B", CMQC.MQOO_INPUT_SHARED)
        got = [queue.get() for _ in range(7)]
        queue.close()
        assert sorted(got) == sorted(before + during + after)
    finally:
        qma.stop()
        qmb.stop()


def test_a_switch_to_a_queue_that_is_not_there_leaves_puts_where_the_open_put_them(tmp_path):
    """Half a switch: the definition names a transmission queue not defined yet. The open
    handle keeps the queue its MQOPEN chose (nothing is lost on the way), and a new MQOPEN
    is refused with 2196 MQRC_UNKNOWN_XMIT_Q, naming what is wrong."""
    qma = start(tmp_path, "QMA", mqsc=f"DEFINE QLOCAL({OLD}) USAGE(XMITQ)\n"
                                      f"DEFINE QREMOTE({REMOTE}) RNAME(IN.B) RQMNAME(QMB) "
                                      f"XMITQ({OLD})\n")
    try:
        conn = connect(qma)
        remote = ibmmq.Queue(conn, REMOTE, CMQC.MQOO_OUTPUT)
        qma.run_mqsc(f"ALTER QREMOTE({REMOTE}) XMITQ(NOT.THERE)")
        _put(remote, [b"kept"])
        remote.close()
        assert depth(conn, OLD) == 1
        with pytest.raises(ibmmq.MQMIError) as refused:
            ibmmq.Queue(conn, REMOTE, CMQC.MQOO_OUTPUT)
        assert refused.value.reason == CMQC.MQRC_UNKNOWN_XMIT_Q
    finally:
        qma.stop()


def test_a_handle_opened_by_queue_manager_name_follows_a_new_queue_of_that_name(tmp_path):
    """Rule 3 of name resolution chosen again at each put: opened through DEFXMITQ, the
    handle's puts go to the queue named after the destination once one is defined, and the
    default transmission queue can be emptied and deleted meanwhile."""
    qma = start(tmp_path, "QMA", mqsc="DEFINE QLOCAL(DEFAULT.XQ) USAGE(XMITQ)\n"
                                      "ALTER QMGR DEFXMITQ(DEFAULT.XQ)\n")
    try:
        conn = connect(qma)
        remote = ibmmq.Queue(conn, ibmmq.OD(ObjectName="IN.B", ObjectQMgrName="QMB"),
                             CMQC.MQOO_OUTPUT)
        _put(remote, [b"by the default"])
        qma.run_mqsc("DEFINE QLOCAL(QMB) USAGE(XMITQ)")
        _put(remote, [b"by the name"])
        assert (depth(conn, "DEFAULT.XQ"), depth(conn, "QMB")) == (1, 1)
        qma.run_mqsc("MOVE QLOCAL(DEFAULT.XQ) TOQLOCAL(QMB) TYPE(ADD)\nDELETE QLOCAL(DEFAULT.XQ)")
        _put(remote, [b"after the move"])
        remote.close()
        assert depth(conn, "QMB") == 3
    finally:
        qma.stop()
