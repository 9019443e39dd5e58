"""Attacks on a cluster's records: a queue manager admitted to a cluster channel (a stranger
speaking link.py's frames to the full repository's CLUSRCVR, as any partner may) or a local
application tries to change what the full repository knows of another member. Before, the
repository manager kept whatever a command said: a member could publish records in another
member's name (choosing where the others' auto-defined cluster-senders connect), forward,
reply or remove a member as a full repository it is not, put commands on
SYSTEM.CLUSTER.COMMAND.QUEUE without a channel, and publish without bound. Now it keeps
only what the CLUSRCVR's MCA vouches the partner sent, and only the partner's own records
(clusters/trust.py).

IBM's pages: "How clusters work" and "Cluster repository" (a full repository keeps each
member's records as that member publishes them), "Preventing queue managers joining a
cluster" (who a partner is: CHLAUTH by address, queue-manager name or TLS DN), "Auto-defined
cluster-sender channels" (built from the member's own CLUSRCVR record).

Each attack is followed by a witness member's publication of a queue of its own: the full
repository's command queue is read in order by one reader, so once FR1 knows that queue it
has judged every command put before it (no sleep, no timed assertion)."""
from __future__ import annotations

import json
import socket
import time
import uuid
from pathlib import Path

import ibmmq
import pytest
from ibmmq import CMQC

from channel_topology import connect, free_port, start, wait_for
from cluster_topology import blocks, clusqmgrs, door, to_full
from spark_mq.embedded import EmbeddedQueueManagerError, wire
from spark_mq.embedded.server.resolution.transmission import wrap
from spark_mq.mqi.structs import default_md

COMMAND_QUEUE = "SYSTEM.CLUSTER.COMMAND.QUEUE"
EVIL_CONNAME = "127.0.0.1(1)"      # where an attacker would have the others connect


@pytest.fixture
def cluster(tmp_path):
    """FR1, a full repository of SHOP, with PR, a partial one that joined through it."""
    ports = {"FR1": free_port(), "PR": free_port()}
    fr1 = start(tmp_path, "FR1", ports["FR1"], "ALTER QMGR REPOS(SHOP)\n"
                + door("FR1", ports["FR1"]))
    pr = start(tmp_path, "PR", ports["PR"], door("PR", ports["PR"])
               + to_full("FR1", ports["FR1"]) + "DEFINE QLOCAL(ORDERS) CLUSTER(SHOP)\n")
    try:
        wait_for(lambda: ("ORDERS", "PR") in _qclusters(fr1), what="FR1 knows PR")
        yield fr1
    finally:
        pr.stop()
        fr1.stop()


class ClusterPeer:
    """A cluster-sender written by hand, to FR1's CLUSRCVR SHOP.FR1, as queue manager
    `partner`: each batch carries cluster commands for FR1's SYSTEM.CLUSTER.COMMAND.QUEUE."""

    def __init__(self, fr1, partner: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", int(fr1.port)), timeout=30)
        self.reader = wire.FrameReader(self.sock)
        self.sock.sendall(wire.frame(["CHL", "SHOP.FR1", partner, 50, False, 0, 4_194_304]))
        answer = self.reader.read_reply()
        assert answer[0] == CMQC.MQCC_OK, answer
        self.partner, self.seq = partner, int(answer[4][1])

    def send(self, *commands: dict) -> None:
        """One batch, committed on FR1 when this returns."""
        for command in commands:
            self.seq += 1
            msg_id = uuid.uuid4().bytes + b"\0" * 8
            md = default_md(Format=CMQC.MQFMT_STRING, Persistence=CMQC.MQPER_PERSISTENT,
                            MsgId=msg_id)
            xmit_md, xmit = wrap(self.partner, COMMAND_QUEUE, "", md,
                                 json.dumps(command).encode(), msg_id,
                                 time.strftime("%Y%m%d").encode(), b"12000000")
            self.sock.sendall(wire.frame(["MSG", self.seq, msg_id, xmit, None, True]))
        self.sock.sendall(wire.frame(["END", uuid.uuid4().hex[:16], self.seq]))
        answer = self.reader.read(time.monotonic() + 30)
        assert answer[0] == "DONE", answer

    def close(self) -> None:
        try:
            self.sock.sendall(wire.frame(["BYE"]))
        except OSError:
            pass
        self.sock.close()


def member(name: str, qmtype: str = "NORMAL", conname: str = EVIL_CONNAME,
           channel: str = "") -> dict:
    """A queue-manager record as a member publishes its CLUSRCVR."""
    return {"KIND": "CLUSQMGR", "CLUSTER": "SHOP", "CLUSQMGR": name, "QMID": f"{name}_X",
            "CHANNEL": channel or f"SHOP.{name}", "QMTYPE": qmtype, "CONNAME": conname}


def queue(owner: str, name: str, **attrs: object) -> dict:
    return {"KIND": "CLUSQ", "CLUSTER": "SHOP", "CLUSQMGR": owner, "QMID": f"{owner}_X",
            "QUEUE": name, "CLUSQT": "QLOCAL", **attrs}


def command(kind: str, origin: str, records: list[dict], *, sender: str = "",
            full: bool = False, forwarded: bool = False) -> dict:
    return {"type": kind, "cluster": "SHOP", "origin": origin, "from": sender or origin,
            "full": full, "forwarded": forwarded, "records": records}
def _qclusters(qm) -> set[tuple[str, str]]:
    try:
        output = qm.run_mqsc("DISPLAY QCLUSTER(*) ALL")
    except EmbeddedQueueManagerError:
        return set()
    return {(block["QUEUE"], block["CLUSQMGR"]) for block in blocks(output, "AMQ8409I")}


def _log(qm) -> str:
    return (Path(qm.data_dir) / "qmgr.log").read_text(errors="replace")


def judged(fr1, marker: str) -> None:
    """Wait until FR1 has read every command put on its command queue so far: a witness
    member publishes a queue of its own, which FR1 reads after them (not PR: its
    publication would replace whatever had been kept in its name)."""
    witness = ClusterPeer(fr1, "WITNESS")
    try:
        witness.send(command("publish", "WITNESS", [member("WITNESS"), queue("WITNESS", marker)]))
    finally:
        witness.close()
    wait_for(lambda: (marker, "WITNESS") in _qclusters(fr1), what=f"FR1 learns {marker}")


def _pr_as_fr1_knows_it(fr1) -> tuple[str, str]:
    row = clusqmgrs(fr1)["PR"]
    return row["CONNAME"], row["CHANNEL"]


def test_a_member_publishes_only_its_own_records(cluster):
    fr1 = cluster
    before = _pr_as_fr1_knows_it(fr1)
    assert before[0] != EVIL_CONNAME
    evil = ClusterPeer(fr1, "EVIL")
    try:
        evil.send(
            command("publish", "PR", [member("PR")]),                      # in PR's name
            command("publish", "EVIL", [member("EVIL"), member("PR")]),    # PR's record inside
            command("publish", "EVIL", [member("EVIL", channel="SHOP.PR")]),  # PR's channel
            command("publish", "EVIL", [member("EVIL"), queue("PR", "ORDERS", PUT="DISABLED")]),
            command("publish", "EVIL", [member("EVIL"), queue("EVIL", "EVIL.OWN")]))  # its own
        judged(fr1, "MARK.ONE")
    finally:
        evil.close()
    assert _pr_as_fr1_knows_it(fr1) == before
    orders = blocks(fr1.run_mqsc("DISPLAY QCLUSTER(ORDERS) CLUSQMGR(PR) PUT"), "AMQ8409I")
    assert [row["PUT"] for row in orders] == ["ENABLED"]
    # its own records are kept: the door is shut on the others' names, not on members
    assert ("EVIL.OWN", "EVIL") in _qclusters(fr1)
    assert clusqmgrs(fr1)["EVIL"]["CHANNEL"] == "SHOP.EVIL"
    text = _log(fr1)
    assert ("cluster-receiver channel SHOP.FR1, partner queue manager EVIL, name claimed 'PR': "
            "a publication in the name of PR") in text
    assert "a publication of EVIL with records of PR" in text
    assert "a cluster-receiver channel named SHOP.PR, which is PR's in cluster SHOP" in text


def test_a_partial_repository_cannot_forward_reply_or_remove_as_a_full_one(cluster):
    fr1 = cluster
    before = _pr_as_fr1_knows_it(fr1)
    evil = ClusterPeer(fr1, "EVIL")
    try:
        evil.send(
            command("publish", "EVIL", [member("EVIL")]),    # a member: a partial one
            # a full repository's forward of PR's records, by a partial claiming to be full
            command("publish", "PR", [member("PR"), queue("PR", "ORDERS", PUT="DISABLED")],
                    sender="EVIL", full=True, forwarded=True),
            # a full repository's reply with the cluster's records
            command("reply", "EVIL", [member("PR"), member("GHOST")], full=True),
            # a full repository's removal of a member (RESET CLUSTER)
            command("remove", "PR", [], full=True))
        judged(fr1, "MARK.TWO")
    finally:
        evil.close()
    assert _pr_as_fr1_knows_it(fr1) == before
    assert "GHOST" not in clusqmgrs(fr1)
    assert clusqmgrs(fr1)["EVIL"]["QMTYPE"] == "NORMAL"
    text = _log(fr1)
    assert ("partner queue manager EVIL, name claimed 'PR': a forwarded publication of PR from "
            "EVIL, which no record of its own shows as a full repository of SHOP") in text
    assert ("a reply with cluster SHOP's records from EVIL, which this queue manager knows "
            "neither as a full repository of SHOP") in text
    assert "a removal of PR (RESET CLUSTER) from EVIL" in text


def test_a_local_application_cannot_put_cluster_commands(cluster):
    fr1 = cluster
    before = _pr_as_fr1_knows_it(fr1)
    conn = connect(fr1)
    try:
        handle = ibmmq.Queue(conn, COMMAND_QUEUE, CMQC.MQOO_OUTPUT)
        for forged in (command("publish", "PR", [member("PR")]),
                       command("publish", "LOCAL", [member("LOCAL")]),
                       command("reply", "PR", [member("GHOST", qmtype="REPOS")])):
            handle.put(json.dumps(forged).encode(), ibmmq.MD(Format=CMQC.MQFMT_STRING))
        handle.close()
    finally:
        conn.disconnect()
    judged(fr1, "MARK.THREE")
    assert _pr_as_fr1_knows_it(fr1) == before
    assert {"LOCAL", "GHOST"}.isdisjoint(clusqmgrs(fr1))
    assert (f"{COMMAND_QUEUE} on FR1: a message not put by a cluster-receiver channel's MCA (a "
            "local application's, or one left from before a restart) is refused, claiming "
            "'LOCAL'") in _log(fr1)


def test_a_publication_too_big_to_keep_is_refused(cluster):
    fr1 = cluster
    evil = ClusterPeer(fr1, "EVIL")
    try:
        many = [member("EVIL")] + [queue("EVIL", f"Q{n}") for n in range(10_000)]
        evil.send(command("publish", "EVIL", many))              # 10,001 records
        evil.send(command("publish", "EVIL", [member("EVIL"),
                                              queue("EVIL", "BIG", DESCR="x" * 100_000)]))
        judged(fr1, "MARK.FOUR")
    finally:
        evil.close()
    assert "EVIL" not in clusqmgrs(fr1)
    assert not {queue for queue, owner in _qclusters(fr1) if owner == "EVIL"}
    text = _log(fr1)
    assert "name claimed 'EVIL': a command of 10001 records (at most 10000)" in text
    assert "a command of a record of 100" in text and "bytes (at most 8192)" in text
