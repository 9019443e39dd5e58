"""Conformance: an ObjectQMgrName that names a queue manager known only as a member of a
cluster (no transmission queue or queue-manager alias of that name) is resolved through the
cluster, whether or not the queue is a cluster queue: the queue manager named resolves the
queue name. Through IBM's `ibmmq` API against real embedded queue managers: two full
repositories (FR1, FR2) and two partial ones (PR1, PR2), as IBM's "Setting up a new
cluster" joins them. IBM's pages: "Name resolution", "Sending messages to a specific queue
manager in a cluster", "Queue-manager aliases and clusters", MQRC_UNKNOWN_REMOTE_Q_MGR."""
from __future__ import annotations

import re

import ibmmq
import pytest
from ibmmq import CMQC

from channel_topology import TIMERS, channel_status, connect, free_port, receive, start, wait_for

NAMES = ("FR1", "FR2", "PR1", "PR2")
CLUSTER_XMITQ = "SYSTEM.CLUSTER.TRANSMIT.QUEUE"


def _door(name: str, port: int) -> str:
    return (f"DEFINE CHANNEL(SHOP.{name}) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({port})') "
            f"CLUSTER(SHOP) {TIMERS} REPLACE\n")


def _to_full(name: str, port: int) -> str:
    return (f"DEFINE CHANNEL(SHOP.{name}) CHLTYPE(CLUSSDR) CONNAME('127.0.0.1({port})') "
            f"CLUSTER(SHOP) {TIMERS} REPLACE\n")


def _members(qm) -> dict[str, str]:
    """CLUSQMGR -> the STATUS of its cluster-sender, as `qm` shows them."""
    output = qm.run_mqsc("DISPLAY CLUSQMGR(*) STATUS")
    return {m.group(1): m.group(2) for b in output.split("AMQ8441I")[1:]
            if (m := re.search(r"CLUSQMGR\((\S+)\).*?STATUS\((\w+)\)", b, re.S))}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("clqmgr")
    ports = {name: free_port() for name in NAMES}
    script = {
        "FR1": "ALTER QMGR REPOS(SHOP)\n" + _door("FR1", ports["FR1"]) + _to_full("FR2", ports["FR2"]),
        "FR2": "ALTER QMGR REPOS(SHOP)\n" + _door("FR2", ports["FR2"]) + _to_full("FR1", ports["FR1"]),
        "PR1": _door("PR1", ports["PR1"]) + _to_full("FR1", ports["FR1"]),
        "PR2": _door("PR2", ports["PR2"]) + _to_full("FR1", ports["FR1"]),
    }
    qms = {name: start(tmp_path, name, ports[name], script[name]) for name in NAMES}
    try:
        # every member published to both full repositories, and PR1 learned of FR2 from
        # FR1's reply; the cluster-senders out of the retry that a start before the
        # partner listened put them in (a put waits behind a retrying channel)
        wait_for(lambda: set(_members(qms["FR2"])) >= set(NAMES), what="FR2 knows every member")
        wait_for(lambda: set(_members(qms["FR1"])) >= set(NAMES), what="FR1 knows every member")
        wait_for(lambda: "FR2" in _members(qms["PR1"]), what="PR1 knows FR2")
        yield qms
    finally:
        for qm in qms.values():
            qm.stop()


def _open(conn, queue: str, qmgr: str) -> tuple[ibmmq.Queue, str]:
    """An output handle to `queue` at `qmgr`, and the MQOD's ResolvedQMgrName."""
    od = ibmmq.OD(ObjectName=queue, ObjectQMgrName=qmgr, Version=CMQC.MQOD_VERSION_4)
    handle = ibmmq.Queue(conn, od, CMQC.MQOO_OUTPUT)
    return handle, od.ResolvedQMgrName.decode().strip(" \0")


def test_a_put_naming_a_cluster_member_reaches_a_queue_only_it_defines(cluster):
    cluster["FR2"].run_mqsc("DEFINE QLOCAL(PLAIN) REPLACE")   # no CLUSTER: not a cluster queue
    conn = connect(cluster["PR1"])
    try:
        handle, resolved = _open(conn, "PLAIN", "FR2")
        handle.put(b"to FR2 by name", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        handle.close()
    finally:
        conn.disconnect()
    assert resolved == "FR2"
    fr2 = connect(cluster["FR2"])
    try:
        got = receive(fr2, "PLAIN", 1)
    finally:
        fr2.disconnect()
    assert [body for _, body in got] == [b"to FR2 by name"]


def test_a_queue_manager_alias_of_a_cluster_member_goes_through_the_cluster(cluster):
    # "Queue-manager aliases and clusters": an alias with a blank XMITQ names the member
    cluster["FR2"].run_mqsc("DEFINE QLOCAL(BY.ALIAS) REPLACE")
    cluster["PR1"].run_mqsc("DEFINE QREMOTE(SECOND.FULL) RNAME(' ') RQMNAME(FR2) REPLACE")
    conn = connect(cluster["PR1"])
    try:
        handle, resolved = _open(conn, "BY.ALIAS", "SECOND.FULL")
        handle.put(b"through an alias")
        handle.close()
    finally:
        conn.disconnect()
    assert resolved == "FR2"
    fr2 = connect(cluster["FR2"])
    try:
        assert [body for _, body in receive(fr2, "BY.ALIAS", 1)] == [b"through an alias"]
    finally:
        fr2.disconnect()


def test_a_suspended_member_named_still_gets_the_message(cluster):
    fr1, fr2 = cluster["FR1"], cluster["FR2"]
    fr2.run_mqsc("DEFINE QLOCAL(PAUSED.PLAIN) REPLACE")
    fr2.run_mqsc("SUSPEND QMGR CLUSTER(SHOP)")
    try:
        wait_for(lambda: re.search(r"SUSPEND\(YES\)", fr1.run_mqsc(
            "DISPLAY CLUSQMGR(FR2) SUSPEND")) is not None, what="FR1 sees FR2 suspended")
        conn = connect(fr1)
        try:
            handle, resolved = _open(conn, "PAUSED.PLAIN", "FR2")
            handle.put(b"named, so not a workload choice")
            handle.close()
        finally:
            conn.disconnect()
        assert resolved == "FR2"
        fr2_conn = connect(fr2)
        try:
            assert [body for _, body in receive(fr2_conn, "PAUSED.PLAIN", 1)] == [
                b"named, so not a workload choice"]
        finally:
            fr2_conn.disconnect()
    finally:
        fr2.run_mqsc("RESUME QMGR CLUSTER(SHOP)")


@pytest.mark.parametrize("member", ["FR1", "PR1"])
def test_a_name_no_cluster_knows_is_still_an_unknown_remote_queue_manager(cluster, member):
    # PR1, a partial repository, asks its full repository first; nobody knows the name
    conn = connect(cluster[member])
    try:
        with pytest.raises(ibmmq.MQMIError) as failed:
            ibmmq.Queue(conn, ibmmq.OD(ObjectName="PLAIN", ObjectQMgrName="NOWHERE"),
                        CMQC.MQOO_OUTPUT)
    finally:
        conn.disconnect()
    assert failed.value.reason == CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR


def test_a_transmission_queue_named_like_the_member_comes_before_the_cluster(cluster):
    # IBM's order: a queue of the queue manager's name is the way, the cluster only after
    fr1 = cluster["FR1"]
    fr1.run_mqsc("DEFINE QLOCAL(PR2) USAGE(XMITQ) REPLACE")
    conn = connect(fr1)
    try:
        handle, _ = _open(conn, "ANY.QUEUE", "PR2")
        handle.put(b"held on FR1's own transmission queue")
        handle.close()
        assert [body.endswith(b"held on FR1's own transmission queue")
                for _, body in receive(conn, "PR2", 1)] == [True]
    finally:
        conn.disconnect()
        fr1.run_mqsc("DELETE QLOCAL(PR2) PURGE")


def test_request_and_reply_between_two_partials_through_the_cluster(cluster):
    pr1, pr2 = cluster["PR1"], cluster["PR2"]
    pr1.run_mqsc("DEFINE QLOCAL(REPLIES) REPLACE")
    pr2.run_mqsc("DEFINE QLOCAL(SERVICE) REPLACE")
    requester = connect(pr1)
    server = connect(pr2)
    try:
        # PR1 knows PR2 only by asking a full repository, at the MQOPEN
        handle, resolved = _open(requester, "SERVICE", "PR2")
        request = ibmmq.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"REPLIES")
        handle.put(b"ping", request)
        handle.close()
        assert resolved == "PR2"
        (md, body), = receive(server, "SERVICE", 1)
        assert body == b"ping"
        assert md.ReplyToQMgr.decode().strip(" \0") == "PR1"
        # the server answers where the request says: ReplyToQ at ReplyToQMgr, a partial
        # that PR2 in turn asks its full repository about
        reply = ibmmq.Queue(server, ibmmq.OD(ObjectName=md.ReplyToQ, ObjectQMgrName=md.ReplyToQMgr),
                            CMQC.MQOO_OUTPUT)
        reply.put(b"pong", ibmmq.MD(MsgType=CMQC.MQMT_REPLY, CorrelId=md.MsgId))
        reply.close()
        (reply_md, reply_body), = receive(requester, "REPLIES", 1)
        assert reply_body == b"pong"
        assert reply_md.CorrelId == request.MsgId
    finally:
        requester.disconnect()
        server.disconnect()


def _browse_for(conn, queue: str, remote_q: str) -> tuple[ibmmq.MD, bytes]:
    """The first transmission message on `queue` whose MQXQH names queue `remote_q` (the
    repository manager's own messages may lie there too)."""
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_BROWSE)
    try:
        options = CMQC.MQGMO_BROWSE_FIRST
        while True:
            md = ibmmq.MD()
            body = handle.get(None, md, ibmmq.GMO(Options=options))
            if body[8:56].decode(errors="replace").strip(" \0") == remote_q:
                return md, body
            options = CMQC.MQGMO_BROWSE_NEXT
    finally:
        handle.close()


def test_the_message_waits_for_the_cluster_sender_to_the_member_named(cluster):
    """While the member cannot be reached, the message lies on SYSTEM.CLUSTER.TRANSMIT.QUEUE
    as IBM's does: its MQXQH names the queue and the member, its CorrelId is the
    cluster-sender to the member, its AccountingToken all zeros (never reallocated: it
    stays there while that channel retries), and it arrives when the member listens again."""
    pr1, pr2 = cluster["PR1"], cluster["PR2"]
    pr2.run_mqsc("DEFINE QLOCAL(LATER) REPLACE")
    pr2.run_mqsc("STOP CHANNEL(SHOP.PR2)")   # PR2's cluster-receiver: nobody gets in
    conn = connect(pr1)
    try:
        handle, _ = _open(conn, "LATER", "PR2")
        handle.put(b"waits for PR2")
        handle.close()
        wait_for(lambda: channel_status(pr1, "SHOP.PR2") == "RETRYING",
                 what="PR1's cluster-sender to PR2 retries")
        md, body = _browse_for(conn, CLUSTER_XMITQ, "LATER")
    finally:
        conn.disconnect()
    try:
        assert body[:4] == b"XQH "
        assert body[56:104].decode().strip(" \0") == "PR2"
        assert md.CorrelId.rstrip(b"\0") == b"SHOP.PR2"
        assert md.AccountingToken == b"\0" * 32
    finally:
        pr2.run_mqsc("START CHANNEL(SHOP.PR2)")
    at_pr2 = connect(pr2)
    try:
        assert [body for _, body in receive(at_pr2, "LATER", 1)] == [b"waits for PR2"]
    finally:
        at_pr2.disconnect()
