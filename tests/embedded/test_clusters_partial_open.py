"""Conformance: a partial repository asks a full repository for a queue at its first MQOPEN,
through IBM's `ibmmq` API, in a cluster of three real embedded queue managers: the full
repository FR1 and the partial repositories PR1 and PR2 (each joined through FR1, so neither
knows the other's queues until it asks).

IBM's pages: "How clusters work" (a partial repository holds information only about the
queues and queue managers it uses; the first time it opens a cluster queue it asks a full
repository), "Cluster repository", "Auto-defined cluster-sender channels" (made from the
host's CLUSRCVR record the answer carries), reason 2085 MQRC_UNKNOWN_OBJECT_NAME (no
definition here and none in the cluster)."""
from __future__ import annotations

import re

import ibmmq
import pytest
from ibmmq import CMQC

from channel_topology import TIMERS, connect, depth, free_port, start, wait_for
from spark_mq.embedded import EmbeddedQueueManagerError


@pytest.fixture
def cluster(tmp_path):
    ports = {name: free_port() for name in ("FR1", "PR1", "PR2")}

    def door(name: str) -> str:
        return (f"DEFINE CHANNEL(SHOP.{name}) CHLTYPE(CLUSRCVR) "
                f"CONNAME('127.0.0.1({ports[name]})') CLUSTER(SHOP) {TIMERS} REPLACE\n")

    to_fr1 = (f"DEFINE CHANNEL(SHOP.FR1) CHLTYPE(CLUSSDR) CONNAME('127.0.0.1({ports['FR1']})') "
              f"CLUSTER(SHOP) {TIMERS} REPLACE\n")
    script = {"FR1": "ALTER QMGR REPOS(SHOP)\n" + door("FR1")
              + "DEFINE QLOCAL(STOCK) CLUSTER(SHOP)\n",
              "PR1": door("PR1") + to_fr1,
              "PR2": door("PR2") + to_fr1 + "DEFINE QLOCAL(ORDERS) CLUSTER(SHOP)\n"}
    qms = {name: start(tmp_path, name, ports[name], script[name]) for name in script}
    try:
        wait_for(lambda: {("ORDERS", "PR2"), ("STOCK", "FR1")} <= _queues(qms["FR1"])
                 and "PR1" in _members(qms["FR1"]), what="FR1 knows every member")
        wait_for(lambda: "FR1" in _members(qms["PR1"]), what="PR1 knows FR1")
        yield qms
    finally:
        for qm in qms.values():
            qm.stop()


def _members(qm) -> set[str]:
    try:
        output = qm.run_mqsc("DISPLAY CLUSQMGR(*)")
    except EmbeddedQueueManagerError:
        return set()
    return set(re.findall(r"CLUSQMGR\(([^)]*)\)", output))


def _queues(qm) -> set[tuple[str, str]]:
    try:
        output = qm.run_mqsc("DISPLAY QCLUSTER(*) CLUSQMGR")
    except EmbeddedQueueManagerError:
        return set()
    return {(queue, owner) for block in output.split("AMQ8409I")[1:]
            for queue, owner in re.findall(r"QUEUE\(([^)]*)\).*?CLUSQMGR\(([^)]*)\)", block,
                                           re.S)}


def test_a_partial_asks_a_full_repository_at_its_first_open(cluster):
    fr1, pr1, pr2 = cluster["FR1"], cluster["PR1"], cluster["PR2"]
    assert ("ORDERS", "PR2") not in _queues(pr1) and "PR2" not in _members(pr1)
    conn = connect(pr1)
    try:
        # a queue on another partial repository: the answer brings the queue and its host,
        # and the put travels over an auto-defined cluster-sender to PR2
        orders = ibmmq.Queue(conn, "ORDERS", CMQC.MQOO_OUTPUT)
        orders.put(b"an order", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        orders.close()
        assert ("ORDERS", "PR2") in _queues(pr1) and "PR2" in _members(pr1)
        # a queue on the full repository itself
        ibmmq.Queue(conn, "STOCK", CMQC.MQOO_OUTPUT).put(b"stock")
        # a name the full repository does not know either: its empty answer ends the wait
        with pytest.raises(ibmmq.MQMIError) as unknown:
            ibmmq.Queue(conn, "NOWHERE", CMQC.MQOO_OUTPUT)
        assert unknown.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    finally:
        conn.disconnect()
    at_pr2, at_fr1 = connect(pr2), connect(fr1)
    try:
        wait_for(lambda: depth(at_pr2, "ORDERS") == 1, what="the order reaches PR2")
        wait_for(lambda: depth(at_fr1, "STOCK") == 1, what="the stock message reaches FR1")
    finally:
        at_pr2.disconnect()
        at_fr1.disconnect()
