"""Conformance: a cluster of three real embedded queue managers (two full repositories, FR1
and FR2, and a partial one, PR) joined as IBM MQ's "Setting up a new cluster" does it: each
defines its CLUSRCVR and one manual CLUSSDR to a full repository, and the repository
managers do the rest. Through IBM's `ibmmq` API and runmqsc.

IBM's pages: "How clusters work", "Cluster repository", "Working with cluster transmission
queues and cluster-sender channels" (a cluster-sender takes from
SYSTEM.CLUSTER.TRANSMIT.QUEUE the messages whose CorrelId is its name), "Auto-defined
cluster-sender channels", "DISPLAY CLUSQMGR", "DISPLAY QUEUE" (TYPE(QCLUSTER))."""
from __future__ import annotations

import socket

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

from channel_topology import (
    cluster_senders_ready,
    connect,
    depth,
    free_port,
    start,
    wait_for,
)
from cluster_topology import blocks, clusqmgrs, door, shop, to_full
from spark_mq.embedded import EmbeddedQueueManagerError, wire

REPOSITORY_QUEUE = "SYSTEM.CLUSTER.REPOSITORY.QUEUE"
CLUSTER_XMITQ = "SYSTEM.CLUSTER.TRANSMIT.QUEUE"


@pytest.fixture
def cluster(tmp_path):
    stock = "DEFINE QLOCAL(STOCK) CLUSTER(SHOP) REPLACE\n"
    with shop(tmp_path, {"FR1": stock, "FR2": stock, "PR": "DEFINE QLOCAL(ORDERS) CLUSTER(SHOP) "
                         "DEFBIND(NOTFIXED) CLWLRANK(3) REPLACE\n"}) as qms:
        yield qms
def _qclusters(qm, pattern: str = "*") -> set[tuple[str, str]]:
    """(queue, hosting queue manager) of every cluster queue DISPLAY QCLUSTER shows."""
    try:
        output = qm.run_mqsc(f"DISPLAY QCLUSTER({pattern}) ALL")
    except EmbeddedQueueManagerError:
        return set()
    return {(block["QUEUE"], block["CLUSQMGR"]) for block in blocks(output, "AMQ8409I")}


EVERY_QUEUE = {("ORDERS", "PR"), ("STOCK", "FR1"), ("STOCK", "FR2")}


def test_members_join_and_the_full_repositories_share_everything(cluster):
    fr1, fr2, pr = cluster["FR1"], cluster["FR2"], cluster["PR"]
    # PR published only to FR1 (its manual CLUSSDR): FR2 knows it through FR1's forwarding
    # or PR's own publication over the auto-defined channel, either way without a definition
    for full in (fr1, fr2):
        wait_for(lambda full=full: set(clusqmgrs(full)) == {"FR1", "FR2", "PR"}
                 and _qclusters(full) == EVERY_QUEUE, what=f"{full.name} knows the cluster")
    members = clusqmgrs(fr1)
    assert {name: (row["QMTYPE"], row["DEFTYPE"], row["CHANNEL"], row["CLUSTER"])
            for name, row in members.items()} == {
        "FR1": ("REPOS", "CLUSRCVR", "SHOP.FR1", "SHOP"),
        "FR2": ("REPOS", "CLUSSDRB", "SHOP.FR2", "SHOP"),     # manual and auto-defined
        "PR": ("NORMAL", "CLUSSDRA", "SHOP.PR", "SHOP")}      # auto-defined only
    assert members["PR"]["CONNAME"] == f"127.0.0.1({pr.port})"
    assert members["PR"]["XMITQ"] == CLUSTER_XMITQ
    assert members["FR1"]["QMID"] == "FR1_EMBEDDED"
    orders = blocks(fr1.run_mqsc("DISPLAY QCLUSTER(ORDERS) ALL"), "AMQ8409I")
    assert [(row["TYPE"], row["CLUSQT"], row["DEFBIND"], row["CLWLRANK"], row["CLUSTER"])
            for row in orders] == [("QCLUSTER", "QLOCAL", "NOTFIXED", "3", "SHOP")]
    # the queue form of the command, and a selection by hosting queue manager
    assert "CLUSQMGR(FR2)" in fr1.run_mqsc("DISPLAY QUEUE(STOCK) TYPE(QCLUSTER) CLUSQMGR(FR2)")
    assert "CLUSQMGR(FR1)" not in fr1.run_mqsc(
        "DISPLAY QUEUE(STOCK) TYPE(QCLUSTER) CLUSQMGR(FR2)")


def test_a_partial_repository_knows_the_full_repositories_and_its_own_queues(cluster):
    pr = cluster["PR"]
    # FR1's reply names FR2: PR makes an auto-defined cluster-sender to it and publishes there
    wait_for(lambda: set(clusqmgrs(pr)) == {"FR1", "FR2", "PR"}, what="PR learns FR2")
    members = clusqmgrs(pr)
    assert {name: (row["QMTYPE"], row["DEFTYPE"]) for name, row in members.items()} == {
        "PR": ("NORMAL", "CLUSRCVR"), "FR1": ("REPOS", "CLUSSDRB"), "FR2": ("REPOS", "CLUSSDRA")}
    wait_for(lambda: clusqmgrs(pr)["FR2"]["STATUS"] == "RUNNING",
             what="PR's auto-defined SHOP.FR2 runs")
    assert "CHLTYPE(CLUSSDR)" in pr.run_mqsc("DISPLAY CHSTATUS(SHOP.FR2) CHLTYPE")
    # the other members' queues are not its interest (yet): only its own
    assert _qclusters(pr) == {("ORDERS", "PR")}
    # an auto-defined cluster-sender is no definition of its own (IBM shows it only as status)
    with pytest.raises(EmbeddedQueueManagerError):
        pr.run_mqsc("DISPLAY CHANNEL(SHOP.FR2)")


def test_a_manual_cluster_sender_shows_as_a_temporary_member_until_its_partner_answers(tmp_path):
    port = free_port()   # nobody listens there
    lone = start(tmp_path, "LONE", mqsc=door("LONE", free_port()) + to_full("NOBODY", port))
    try:
        rows = clusqmgrs(lone)
        assert rows[f"SYSTEM.TEMPQMGR.127.0.0.1({port})"]["DEFTYPE"] == "CLUSSDR"
        assert rows["LONE"]["DEFTYPE"] == "CLUSRCVR"
    finally:
        lone.stop()


def test_records_are_kept_on_the_repository_queue_and_survive_a_restart(cluster):
    fr1, fr2, pr = cluster["FR1"], cluster["FR2"], cluster["PR"]
    wait_for(lambda: _qclusters(fr1) == EVERY_QUEUE, what="FR1 knows every queue")
    conn = connect(fr1)
    try:
        # two members and three of their queues learned: one message each, held by the queue
        # manager as IBM's repository manager holds its queue
        assert depth(conn, REPOSITORY_QUEUE) == 4
        with pytest.raises(ibmmq.MQMIError) as refused:
            ibmmq.Queue(conn, REPOSITORY_QUEUE, CMQC.MQOO_INPUT_SHARED)
        assert refused.value.reason == CMQC.MQRC_OBJECT_IN_USE
    finally:
        conn.disconnect()
    # a queue no longer clustered is forgotten by the full repositories
    pr.run_mqsc("ALTER QLOCAL(ORDERS) CLUSTER(' ')")
    for full in (fr1, fr2):
        wait_for(lambda full=full: ("ORDERS", "PR") not in _qclusters(full),
                 what=f"{full.name} forgets ORDERS")
    pr.run_mqsc("ALTER QLOCAL(ORDERS) CLUSTER(SHOP)")
    wait_for(lambda: ("ORDERS", "PR") in _qclusters(fr1), what="FR1 learns ORDERS again")
    # with every other member down, what FR1 knows after its restart is what it kept
    pr.stop()
    fr2.stop()
    fr1.stop()
    fr1.start()
    assert _qclusters(fr1) == EVERY_QUEUE
    assert set(clusqmgrs(fr1)) == {"FR1", "FR2", "PR"}


def test_a_cluster_sender_takes_only_the_messages_whose_correlid_is_its_name(cluster):
    pr = cluster["PR"]
    wait_for(lambda: set(clusqmgrs(pr)) == {"FR1", "FR2", "PR"}, what="PR joined")
    conn = connect(pr)
    try:
        # a transmission message for a cluster-sender PR does not have: no channel takes it
        stray = ibmmq.MD(CorrelId=b"SHOP.NOBODY".ljust(24, b"\0"), Format=CMQC.MQFMT_STRING,
                         Persistence=CMQC.MQPER_PERSISTENT)
        ibmmq.Queue(conn, CLUSTER_XMITQ, CMQC.MQOO_OUTPUT).put(b"for nobody", stray)
        # PR's publication to FR1 changes when its queues do: SHOP.FR1 carries it, not the stray
        pr.run_mqsc("DEFINE QLOCAL(RETURNS) CLUSTER(SHOP)")
        fr1 = cluster["FR1"]
        wait_for(lambda: ("RETURNS", "PR") in _qclusters(fr1), what="FR1 learns RETURNS")
        wait_for(lambda: depth(conn, CLUSTER_XMITQ) == 1, what="PR's own messages sent")
        browse = ibmmq.Queue(conn, CLUSTER_XMITQ, CMQC.MQOO_BROWSE)
        md = ibmmq.MD()
        assert browse.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_BROWSE_FIRST)) == b"for nobody"
        assert md.CorrelId.rstrip(b"\0") == b"SHOP.NOBODY"
        browse.close()
    finally:
        conn.disconnect()


def _put(conn, queue: str, body: bytes) -> None:
    """One MQOPEN, one MQPUT, one MQCLOSE: each open chooses an instance (MQOO_BIND_ON_OPEN)."""
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
    try:
        handle.put(body, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
    finally:
        handle.close()


def test_a_queue_known_only_from_the_cluster_is_opened_and_its_puts_go_round_the_instances(
        cluster):
    fr1, fr2, pr = cluster["FR1"], cluster["FR2"], cluster["PR"]
    fr2.run_mqsc("DEFINE QLOCAL(PARTS) CLUSTER(SHOP)")
    pr.run_mqsc("DEFINE QLOCAL(PARTS) CLUSTER(SHOP)")
    wait_for(lambda: {("PARTS", "FR2"), ("PARTS", "PR")} <= _qclusters(fr1),
             what="FR1 knows both instances of PARTS")
    cluster_senders_ready(fr1, {"FR2", "PR"})
    conn = connect(fr1)
    try:
        for n in range(4):
            _put(conn, "PARTS", b"part %d" % n)
        _put(conn, "ORDERS", b"an order")   # one instance, on PR only
        # a name the cluster does not know is still unknown
        with pytest.raises(ibmmq.MQMIError) as unknown:
            ibmmq.Queue(conn, "NOWHERE", CMQC.MQOO_OUTPUT)
        assert unknown.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    finally:
        conn.disconnect()
    at_fr2, at_pr = connect(fr2), connect(pr)
    try:
        wait_for(lambda: depth(at_fr2, "PARTS") + depth(at_pr, "PARTS") == 4
                 and depth(at_pr, "ORDERS") == 1, what="the puts arrive at the instances")
        assert (depth(at_fr2, "PARTS"), depth(at_pr, "PARTS")) == (2, 2)   # round robin
        # the partial repository had not learned the full repositories' queues: STOCK
        # opens once it has asked a full repository (test_clusters_partial_open.py)
        assert ("STOCK", "FR1") not in _qclusters(pr)
        ibmmq.Queue(at_pr, "STOCK", CMQC.MQOO_OUTPUT).close()
        assert {("STOCK", "FR1"), ("STOCK", "FR2")} <= _qclusters(pr)
    finally:
        at_fr2.disconnect()
        at_pr.disconnect()


def _instances(qm, channel: str) -> dict[str, str]:
    """RQMNAME -> STATUS of each running instance of `channel` on `qm`."""
    try:
        output = qm.run_mqsc(f"DISPLAY CHSTATUS({channel}) ALL")
    except EmbeddedQueueManagerError:
        return {}
    return {block.get("RQMNAME", ""): block["STATUS"] for block in blocks(output, "AMQ8417I")}


def test_a_cluster_receiver_runs_once_for_each_member_and_stop_channel_ends_them_all(cluster):
    fr1 = cluster["FR1"]
    # FR2 (its manual CLUSSDR) and PR (its manual CLUSSDR) both send to FR1's one CLUSRCVR
    wait_for(lambda: _instances(fr1, "SHOP.FR1") == {"FR2": "RUNNING", "PR": "RUNNING"},
             what="two instances of SHOP.FR1 on FR1")
    fr1.run_mqsc("STOP CHANNEL(SHOP.FR1)")
    wait_for(lambda: "RUNNING" not in _instances(fr1, "SHOP.FR1").values(),
             what="every instance stopped")
    assert "STATUS(STOPPED)" in fr1.run_mqsc("DISPLAY CHSTATUS(SHOP.FR1)")
    fr1.run_mqsc("START CHANNEL(SHOP.FR1)")
    # neither the channel nor an instance STOP ended is STOPPED any more
    assert "STOPPED" not in _instances(fr1, "SHOP.FR1").values()
    # each member's cluster-sender met an error, RETRYING, and is back by itself once the
    # receiver runs again (IBM docs, "Channel errors": a sender goes to RETRY state and
    # "if the error clears, the channel restarts automatically"; "Channel states")
    wait_for(lambda: _instances(fr1, "SHOP.FR1") == {"FR2": "RUNNING", "PR": "RUNNING"},
             what="both members back on SHOP.FR1 by themselves")


def test_stop_channel_of_a_cluster_receiver_ends_the_partners_connection_at_once(cluster):
    """The interleaving behind issue 36's note: a member's cluster-sender whose batch was in
    flight when the full repository's CLUSRCVR was stopped waited for the batch's
    confirmation until its timeout (a minute), because the receiver's STOP only closed its
    socket from the command's thread; the agent's thread, waiting in recv, kept it open, so
    the partner saw neither an answer nor the end of the connection. Here the partner is
    this test, at the step where the sender waits: hello answered, nothing more to come."""
    fr1 = cluster["FR1"]
    with socket.create_connection(("127.0.0.1", fr1.port), timeout=30) as sock:
        sock.sendall(wire.frame(["CHL", "SHOP.FR1", "NEWBIE", 50, False, 0, 4_194_304]))
        reader = wire.FrameReader(sock)
        assert reader.read_reply()[0] == CMQC.MQCC_OK
        sock.sendall(wire.frame(["HB"]))           # answered: the agent waits in recv again
        assert reader.read_reply() == ["HB"]
        fr1.run_mqsc("STOP CHANNEL(SHOP.FR1) STATUS(INACTIVE)")
        sock.settimeout(30)
        assert sock.recv(65536) == b""             # the end of the connection, at once
    wait_for(lambda: "NEWBIE" not in _instances(fr1, "SHOP.FR1"), what="the instance ended")


# PCF "Inquire Cluster Queue Manager", DISPLAY CLUSQMGR's twin
def test_pcf_inquire_cluster_queue_manager(cluster):
    fr1 = cluster["FR1"]
    wait_for(lambda: set(clusqmgrs(fr1)) == {"FR1", "FR2", "PR"}, what="FR1 knows the members")
    conn = connect(fr1)
    pcf = ibmmq.PCFExecute(conn, response_wait_interval=10000)
    try:
        replies = pcf.MQCMD_INQUIRE_CLUSTER_Q_MGR({CMQC.MQCA_CLUSTER_Q_MGR_NAME: b"*"})
        found = {reply[CMQC.MQCA_CLUSTER_Q_MGR_NAME].strip(): (
            reply[CMQCFC.MQIACF_Q_MGR_TYPE], reply[CMQCFC.MQIACF_Q_MGR_DEFINITION_TYPE],
            reply[CMQCFC.MQCACH_CHANNEL_NAME].strip(), reply[CMQC.MQCA_CLUSTER_NAME].strip())
            for reply in replies}
        assert found == {
            b"FR1": (CMQCFC.MQQMT_REPOSITORY, CMQCFC.MQQMDT_CLUSTER_RECEIVER, b"SHOP.FR1", b"SHOP"),
            b"FR2": (CMQCFC.MQQMT_REPOSITORY, CMQCFC.MQQMDT_AUTO_EXP_CLUSTER_SENDER, b"SHOP.FR2",
                     b"SHOP"),
            b"PR": (CMQCFC.MQQMT_NORMAL, CMQCFC.MQQMDT_AUTO_CLUSTER_SENDER, b"SHOP.PR", b"SHOP")}
        with pytest.raises(ibmmq.MQMIError) as unknown:
            pcf.MQCMD_INQUIRE_CLUSTER_Q_MGR({CMQC.MQCA_CLUSTER_Q_MGR_NAME: b"NOSUCH*"})
        assert unknown.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    finally:
        pcf.disconnect()
        conn.disconnect()


# "A channel partner is a stranger": what arrives on the command queue is checked, and what
# cannot be kept is dropped without stopping the repository manager
def test_malformed_cluster_commands_are_dropped_and_the_repository_manager_goes_on(cluster):
    fr1, pr = cluster["FR1"], cluster["PR"]
    wait_for(lambda: ("ORDERS", "PR") in _qclusters(fr1), what="FR1 knows ORDERS")
    conn = connect(fr1)
    try:
        command_queue = ibmmq.Queue(conn, "SYSTEM.CLUSTER.COMMAND.QUEUE", CMQC.MQOO_OUTPUT)
        for body in (b"not json", b'{"type": "publish"}', b'[1, 2]',
                     b'{"type": "publish", "cluster": "SHOP", "origin": "EVIL", "full": false,'
                     b' "records": [{"KIND": "CLUSQ", "CLUSTER": "SHOP", "CLUSQMGR": 7},'
                     b' {"KIND": "CLUSQMGR", "CLUSTER": "SHOP"}, "text", 3]}'):
            command_queue.put(body, ibmmq.MD(Format=CMQC.MQFMT_STRING))
        command_queue.close()
        wait_for(lambda: depth(conn, "SYSTEM.CLUSTER.COMMAND.QUEUE") == 0,
                 what="the repository manager read them")
    finally:
        conn.disconnect()
    assert "EVIL" not in fr1.run_mqsc("DISPLAY CLUSQMGR(*)")
    pr.run_mqsc("DEFINE QLOCAL(RETURNS) CLUSTER(SHOP)")
    wait_for(lambda: ("RETURNS", "PR") in _qclusters(fr1), what="FR1 still learns from PR")


def test_messages_kept_through_a_restart_start_their_auto_defined_cluster_sender(cluster):
    """After a restart the messages on SYSTEM.CLUSTER.TRANSMIT.QUEUE are in the store only
    (read into memory by the first scan): the channel initiator still starts the cluster-
    sender they wait for, an auto-defined one too, which nothing else would start (the
    repository manager restarts only the channels to the full repositories)."""
    fr1, pr = cluster["FR1"], cluster["PR"]
    wait_for(lambda: ("ORDERS", "PR") in _qclusters(fr1), what="FR1 knows ORDERS")
    cluster_senders_ready(fr1, {"FR2", "PR"})
    conn = connect(fr1)
    try:   # FR1's own cluster commands delivered first
        wait_for(lambda: depth(conn, CLUSTER_XMITQ) == 0, what="FR1's transmission queue empty")
    finally:
        conn.disconnect()
    pr.run_mqsc("STOP CHANNEL(SHOP.PR)")     # FR1's SHOP.PR cannot deliver: they wait
    conn = connect(fr1)
    try:
        for n in range(3):
            _put(conn, "ORDERS", b"order %d" % n)
        assert depth(conn, CLUSTER_XMITQ) == 3
    finally:
        conn.disconnect()
    fr1.kill()                              # nothing saved: no status restored at the start
    wait_for(lambda: not fr1.running, what="FR1 reaped")
    pr.run_mqsc("START CHANNEL(SHOP.PR)")
    fr1.start()
    at_pr = connect(pr)
    try:
        wait_for(lambda: depth(at_pr, "ORDERS") == 3, what="the orders kept on FR1 arrive")
    finally:
        at_pr.disconnect()
    at_fr1 = connect(fr1)
    try:
        assert depth(at_fr1, CLUSTER_XMITQ) == 0
    finally:
        at_fr1.disconnect()
