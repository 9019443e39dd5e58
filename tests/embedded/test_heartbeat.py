"""Heartbeats (IBM MQ's channel HBINT): a client process that is alive but quiet keeps its
connection and its unit of work; a stopped one (SIGSTOP: its socket stays open, as with a
host that died or a network that split) is ended after the heartbeat interval and its unit
of work is backed out, so what it had gotten is back on the queue."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import ibmmq
import pytest
from ibmmq import CMQC

import spark_mq.embedded as embedded
from support import depth, put_messages

HOLDER = textwrap.dedent("""
    import sys, time
    import spark_mq.embedded
    spark_mq.embedded.install()
    import ibmmq
    from ibmmq import CMQC
    conn = ibmmq.connect("QM1", "DEV.APP.SVRCONN", sys.argv[1])
    queue = ibmmq.Queue(conn, "DEV.QUEUE.1", CMQC.MQOO_INPUT_SHARED)
    queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT))
    print("HELD", flush=True)
    time.sleep(600)          # quiet: only the transport's heartbeats go out
""")


def wait_until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def fast_heartbeat_qm(tmp_path):
    with embedded.EmbeddedQueueManager(str(tmp_path / "qm"), heartbeat_interval=1.5) as manager:
        yield manager


def test_a_quiet_live_client_keeps_its_unit_of_work_and_a_stopped_one_loses_it(
        fast_heartbeat_qm, tmp_path):
    qm = fast_heartbeat_qm
    conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    put_messages(conn, "DEV.QUEUE.1", [b"held"])
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, qm.conn_name], text=True,
                              stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == "HELD"
        assert depth(conn, "DEV.QUEUE.1") == 0          # gotten in its open unit of work
        # quiet for four heartbeat intervals, but alive: the queue manager keeps it
        assert not wait_until(lambda: depth(conn, "DEV.QUEUE.1") == 1, 6.0)
        os.kill(holder.pid, signal.SIGSTOP)             # no more heartbeats
        assert wait_until(lambda: depth(conn, "DEV.QUEUE.1") == 1, 10.0)   # backed out
        queue = ibmmq.Queue(conn, "DEV.QUEUE.1", CMQC.MQOO_INPUT_SHARED)
        md = ibmmq.MD()
        assert queue.get(None, md) == b"held"
        assert md.BackoutCount == 1
        queue.close()
    finally:
        holder.kill()
        holder.wait()
        conn.disconnect()
