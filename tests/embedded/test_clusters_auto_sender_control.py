"""STOP and START CHANNEL of an auto-defined cluster-sender (DISPLAY CLUSQMGR's DEFTYPE
CLUSSDRA): it has no definition, but it has status, and IBM MQ stops and starts it as any
cluster-sender ("Auto-defined channels": "you can stop and start them"). Before, STOP
CHANNEL looked at definitions only and answered AMQ8147E (object not found). Three real
queue managers as IBM's "Setting up a new cluster" joins them: full repositories FR1 and
FR2, partial repository PR, whose cluster-sender on FR1 (SHOP.PR) is auto-defined from
PR's CLUSRCVR."""
from __future__ import annotations

import re

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

from channel_topology import connect, receive, wait_for
from cluster_topology import shop
from spark_mq.embedded import EmbeddedQueueManagerError

CLUSTER_XMITQ = "SYSTEM.CLUSTER.TRANSMIT.QUEUE"


@pytest.fixture
def cluster(tmp_path):
    with shop(tmp_path, {"PR": "DEFINE QLOCAL(ORDERS) CLUSTER(SHOP)\n"}) as qms:
        yield qms


def _status(qm, channel: str) -> str:
    try:
        output = qm.run_mqsc(f"DISPLAY CHSTATUS({channel}) STATUS")
    except EmbeddedQueueManagerError:
        return ""
    found = re.search(r"STATUS\((\w+)\)", output)
    return found.group(1) if found else ""


def _knows_orders_on_pr(fr1) -> bool:
    try:
        return "CLUSQMGR(PR)" in fr1.run_mqsc("DISPLAY QCLUSTER(ORDERS) CLUSQMGR")
    except EmbeddedQueueManagerError:
        return False


def _put(qm, body: bytes) -> None:
    conn = connect(qm)
    try:
        handle = ibmmq.Queue(conn, "ORDERS", CMQC.MQOO_OUTPUT)
        handle.put(body, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        handle.close()
    finally:
        conn.disconnect()


def _waiting_for(qm, channel: str) -> int:
    """How many messages on the cluster transmission queue wait for `channel` (their
    CorrelId names it)."""
    conn = connect(qm)
    browse = ibmmq.Queue(conn, CLUSTER_XMITQ, CMQC.MQOO_BROWSE)
    waiting, option = 0, CMQC.MQGMO_BROWSE_FIRST
    try:
        while True:
            md = ibmmq.MD(CorrelId=channel.encode().ljust(24, b"\0"))
            gmo = ibmmq.GMO(Options=option | CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG,
                            MatchOptions=CMQC.MQMO_MATCH_CORREL_ID, Version=CMQC.MQGMO_VERSION_2)
            try:
                browse.get(None, md, gmo)
            except ibmmq.MQMIError as exc:
                if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return waiting
                if exc.reason != CMQC.MQRC_TRUNCATED_MSG_ACCEPTED:
                    raise
            waiting += 1
            option = CMQC.MQGMO_BROWSE_NEXT
    finally:
        browse.close()
        conn.disconnect()


def _bodies(qm, count: int) -> list[bytes]:
    conn = connect(qm)
    try:
        return [body for _, body in receive(conn, "ORDERS", count)]
    finally:
        conn.disconnect()


def test_stop_and_start_channel_of_an_auto_defined_cluster_sender(cluster):
    """STOP CHANNEL(SHOP.PR) on FR1 is accepted and the channel is STOPPED: a message for
    PR waits on FR1's cluster transmission queue (no trigger starts a STOPPED channel),
    also across a restart of FR1; START CHANNEL sends it."""
    fr1, pr = cluster["FR1"], cluster["PR"]
    wait_for(lambda: _knows_orders_on_pr(fr1), what="FR1 knows ORDERS on PR")
    assert "DEFTYPE(CLUSSDRA)" in fr1.run_mqsc("DISPLAY CLUSQMGR(PR) DEFTYPE")
    with pytest.raises(EmbeddedQueueManagerError, match="AMQ8147E"):
        fr1.run_mqsc("DISPLAY CHANNEL(SHOP.PR)")          # no definition of its own
    _put(fr1, b"before the stop")
    assert _bodies(pr, 1) == [b"before the stop"]

    assert "AMQ8019I" in fr1.run_mqsc("STOP CHANNEL(SHOP.PR)")
    wait_for(lambda: _status(fr1, "SHOP.PR") == "STOPPED", what="SHOP.PR STOPPED")
    _put(fr1, b"while stopped")
    assert _waiting_for(fr1, "SHOP.PR") == 1

    fr1.stop()
    wait_for(lambda: not fr1.running, what="FR1 reaped")
    fr1.start()
    assert _status(fr1, "SHOP.PR") == "STOPPED"          # kept across the restart

    assert "AMQ8018I" in fr1.run_mqsc("START CHANNEL(SHOP.PR)")
    assert _bodies(pr, 1) == [b"while stopped"]
    wait_for(lambda: _status(fr1, "SHOP.PR") in ("RUNNING", "INACTIVE", ""),
             what="SHOP.PR started again")


def test_pcf_stop_channel_status_inactive_of_a_running_auto_defined_cluster_sender(cluster):
    """PCF Stop Channel with ChannelStatus MQCHS_INACTIVE ends the running instance without
    keeping it out: the next message for PR starts it again."""
    fr1, pr = cluster["FR1"], cluster["PR"]
    wait_for(lambda: _knows_orders_on_pr(fr1), what="FR1 knows ORDERS on PR")
    _put(fr1, b"first")
    assert _bodies(pr, 1) == [b"first"]
    wait_for(lambda: _status(fr1, "SHOP.PR") == "RUNNING", what="SHOP.PR RUNNING")
    pcf = ibmmq.PCFExecute(connect(fr1), response_wait_interval=10000)
    try:
        pcf.MQCMD_STOP_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"SHOP.PR",
                                CMQCFC.MQIACH_CHANNEL_STATUS: CMQCFC.MQCHS_INACTIVE})
    finally:
        pcf.disconnect()
    wait_for(lambda: _status(fr1, "SHOP.PR") == "", what="SHOP.PR ended")
    _put(fr1, b"second")
    assert _bodies(pr, 1) == [b"second"]
