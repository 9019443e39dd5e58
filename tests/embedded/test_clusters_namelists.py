"""Conformance: namelists in clusters, as IBM MQ's "Using namelists in clusters" and
"Overlapping clusters" set them up: a full repository of two clusters through REPOSNL, a
member joining both through one CLUSRCVR (and one CLUSSDR) with CLUSNL, a queue clustered
in both through CLUSNL, and ALTER NAMELIST changing what the member publishes. Real
embedded queue managers, an application on IBM's `ibmmq` API; IBM's pages: "ALTER QMGR"
(REPOSNL), "DEFINE CHANNEL" (CLUSNL), "DEFINE QUEUE" (CLUSNL), "DISPLAY CLUSQMGR",
"DISPLAY QUEUE" (QCLUSTER).

FR is the full repository of SHOP and DEPOT; M is in both and hosts STOCK in both; S is a
member of SHOP only, D of DEPOT only (each names its one cluster in CLUSTER)."""
from __future__ import annotations

import re

import ibmmq
import pytest
from ibmmq import CMQC

from channel_topology import TIMERS, connect, depth, free_port, start, wait_for
from spark_mq.embedded import EmbeddedQueueManagerError

#: a value may hold one pair of parentheses: SYSTEM.TEMPQMGR.127.0.0.1(1414)
_FIELD = re.compile(r"\b(CLUSQMGR|CLUSTER|QMTYPE|SUSPEND)\(((?:[^()\s]|\([^()]*\))*)\)")


def _door(name: str, port: int, clusters: str) -> str:
    return (f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({port})') "
            f"{clusters} {TIMERS} REPLACE\n")


def _to_fr(port: int, clusters: str) -> str:
    return (f"DEFINE CHANNEL(TO.FR) CHLTYPE(CLUSSDR) CONNAME('127.0.0.1({port})') "
            f"{clusters} {TIMERS} REPLACE\n")


@pytest.fixture
def clusters(tmp_path):
    ports = {name: free_port() for name in ("FR", "M", "S", "D")}
    script = {
        "FR": "DEFINE NAMELIST(ALL.NL) NAMES(SHOP, DEPOT) REPLACE\n"
              "ALTER QMGR REPOSNL(ALL.NL)\n" + _door("FR", ports["FR"], "CLUSNL(ALL.NL)"),
        # the channels' namelist and the queue's are two: changing the queue's clusters
        # leaves the member in both
        "M": "DEFINE NAMELIST(BOTH) NAMES(SHOP, DEPOT) REPLACE\n"
             "DEFINE NAMELIST(STOCK.NL) NAMES(SHOP, DEPOT) REPLACE\n"
             + _door("M", ports["M"], "CLUSNL(BOTH)") + _to_fr(ports["FR"], "CLUSNL(BOTH)")
             + "DEFINE QLOCAL(STOCK) CLUSNL(STOCK.NL) REPLACE\n",
        "S": _door("S", ports["S"], "CLUSTER(SHOP)") + _to_fr(ports["FR"], "CLUSTER(SHOP)"),
        "D": _door("D", ports["D"], "CLUSTER(DEPOT)") + _to_fr(ports["FR"], "CLUSTER(DEPOT)"),
    }
    qms = {name: start(tmp_path, name, ports[name], script[name]) for name in script}
    yield qms
    for qm in qms.values():
        qm.stop()


def _entries(qm, command: str, message: str) -> set[tuple[str, ...]]:
    """(CLUSQMGR, CLUSTER, and QMTYPE or SUSPEND when shown) of each entry a DISPLAY
    CLUSQMGR or QCLUSTER shows (none when nothing matches)."""
    try:
        output = qm.run_mqsc(command)
    except EmbeddedQueueManagerError:
        return set()
    found = set()
    for block in output.split(message)[1:]:
        fields = dict(_FIELD.findall(block))
        found.add(tuple(fields[key] for key in ("CLUSQMGR", "CLUSTER", "QMTYPE", "SUSPEND")
                        if key in fields))
    return found


def _members(qm, shown: str = "QMTYPE") -> set[tuple[str, ...]]:
    return _entries(qm, f"DISPLAY CLUSQMGR(*) {shown}", "AMQ8441I")


def _instances(qm, queue: str) -> set[tuple[str, ...]]:
    return _entries(qm, f"DISPLAY QCLUSTER({queue})", "AMQ8409I")


def _wait(what: str, condition) -> None:
    wait_for(condition, what=what)


BOTH_CLUSTERS = {("M", "SHOP"), ("M", "DEPOT")}


def test_one_full_repository_and_one_member_in_two_clusters(clusters):
    fr, m = clusters["FR"], clusters["M"]
    everyone = {("FR", "SHOP", "REPOS"), ("FR", "DEPOT", "REPOS"), ("M", "SHOP", "NORMAL"),
                ("M", "DEPOT", "NORMAL"), ("S", "SHOP", "NORMAL"), ("D", "DEPOT", "NORMAL")}
    # REPOSNL: FR is a full repository of each cluster its namelist names, and learns every
    # member of each; CLUSNL: M's one cluster-receiver is its door in both (an entry each)
    _wait("FR knows every member of both clusters", lambda: _members(fr) == everyone)
    _wait("FR knows STOCK in both clusters", lambda: _instances(fr, "STOCK") == BOTH_CLUSTERS)
    # M learned FR as a full repository of both through its one CLUSNL cluster-sender
    _wait("M knows FR as a full repository of both", lambda: _members(m) >= {
        ("FR", "SHOP", "REPOS"), ("FR", "DEPOT", "REPOS")})
    assert _members(m) - everyone == set()
    assert _instances(m, "STOCK") == BOTH_CLUSTERS


def test_a_queue_in_both_clusters_is_reached_from_a_member_of_each(clusters):
    fr, m = clusters["FR"], clusters["M"]
    _wait("FR knows STOCK in both clusters", lambda: _instances(fr, "STOCK") == BOTH_CLUSTERS)
    for member, body in (("S", b"from SHOP"), ("D", b"from DEPOT")):
        conn = connect(clusters[member])
        try:   # a partial repository asks FR at MQOPEN, and routes in its own cluster
            conn.put1("STOCK", body, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        finally:
            conn.disconnect()
        assert _instances(clusters[member], "STOCK") == {
            ("M", "SHOP" if member == "S" else "DEPOT")}
    at_m = connect(m)
    try:
        wait_for(lambda: depth(at_m, "STOCK") == 2, what="both puts on M's STOCK")
        queue = ibmmq.Queue(at_m, "STOCK", CMQC.MQOO_INPUT_SHARED)
        try:
            got = {queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))
                   for _ in range(2)}
        finally:
            queue.close()
    finally:
        at_m.disconnect()
    assert got == {b"from SHOP", b"from DEPOT"}


def test_alter_namelist_takes_the_queue_out_of_a_cluster(clusters):
    fr, m = clusters["FR"], clusters["M"]
    _wait("FR knows STOCK in both clusters", lambda: _instances(fr, "STOCK") == BOTH_CLUSTERS)
    m.run_mqsc("ALTER NAMELIST(STOCK.NL) NAMES(SHOP)")
    # M publishes again in DEPOT (its records there changed): FR forgets STOCK there only
    _wait("FR forgets STOCK in DEPOT", lambda: _instances(fr, "STOCK") == {("M", "SHOP")})
    assert _instances(m, "STOCK") == {("M", "SHOP")}
    # M is still a member of DEPOT: its cluster-receiver's namelist was not changed
    assert {("M", "SHOP", "NORMAL"), ("M", "DEPOT", "NORMAL")} <= _members(fr)
    # and the cluster comes back with the name
    m.run_mqsc("ALTER NAMELIST(STOCK.NL) NAMES(SHOP, DEPOT)")
    _wait("FR knows STOCK in DEPOT again", lambda: _instances(fr, "STOCK") == BOTH_CLUSTERS)


def test_suspend_qmgr_clusnl_suspends_in_each_cluster(clusters):
    fr, m = clusters["FR"], clusters["M"]
    _wait("FR knows M in both", lambda: {
        ("M", "SHOP", "NO"), ("M", "DEPOT", "NO")} <= _members(fr, "SUSPEND"))
    assert "AMQ8559I" in m.run_mqsc("SUSPEND QMGR CLUSNL(BOTH)")
    _wait("FR shows M suspended in both", lambda: {
        ("M", "SHOP", "YES"), ("M", "DEPOT", "YES")} <= _members(fr, "SUSPEND"))
    # PCF Resume Queue Manager Cluster with a ClusterNamelist: the same, in each cluster
    conn = connect(m)
    pcf = ibmmq.PCFExecute(conn, response_wait_interval=10000)
    try:
        pcf.MQCMD_RESUME_Q_MGR_CLUSTER({CMQC.MQCA_CLUSTER_NAMELIST: b"BOTH"})
    finally:
        pcf.disconnect()
        conn.disconnect()
    _wait("FR shows M resumed in both", lambda: {
        ("M", "SHOP", "NO"), ("M", "DEPOT", "NO")} <= _members(fr, "SUSPEND"))
    with pytest.raises(EmbeddedQueueManagerError, match=r"CLUSNL\(NO.SUCH.NL\).*namelist"):
        m.run_mqsc("SUSPEND QMGR CLUSNL(NO.SUCH.NL)")
    # S is in SHOP only: a namelist naming DEPOT too is refused whole
    clusters["S"].run_mqsc("DEFINE NAMELIST(BOTH) NAMES(SHOP, DEPOT)")
    with pytest.raises(EmbeddedQueueManagerError, match="not a member of cluster DEPOT"):
        clusters["S"].run_mqsc("SUSPEND QMGR CLUSNL(BOTH)")
    assert ("S", "SHOP", "NO") in _members(clusters["S"], "SUSPEND")


def test_a_local_instance_in_a_namelists_clusters_takes_part(clusters):
    """FR hosts STOCK too, in both clusters through its REPOSNL's namelist, CLWLUSEQ(ANY):
    its own instance and M's (one instance, though FR knows it in two clusters) share the
    puts of an application on FR."""
    fr = clusters["FR"]
    fr.run_mqsc("DEFINE QLOCAL(STOCK) CLUSNL(ALL.NL) CLWLUSEQ(ANY) REPLACE")
    _wait("FR knows STOCK on M in both clusters", lambda: _instances(fr, "STOCK") == {
        *BOTH_CLUSTERS, ("FR", "SHOP"), ("FR", "DEPOT")})
    _wait("FR's cluster-sender to M out of retry", lambda: all(
        state in ("RUNNING", "INACTIVE") for state in re.findall(
            r"STATUS\((\w+)\)", fr.run_mqsc("DISPLAY CLUSQMGR(M) STATUS"))))
    conn = connect(fr)
    try:
        for n in range(4):
            conn.put1("STOCK", b"%d" % n, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        assert depth(conn, "STOCK") == 2
    finally:
        conn.disconnect()
    at_m = connect(clusters["M"])
    try:
        wait_for(lambda: depth(at_m, "STOCK") == 2, what="two puts on M's STOCK")
    finally:
        at_m.disconnect()


def test_a_cluster_sender_not_answered_yet_shows_in_each_of_its_clusters(tmp_path):
    nobody = free_port()   # nothing listens there: the partner never answers
    qm = start(tmp_path, "NEW", 0, "DEFINE NAMELIST(BOTH) NAMES(SHOP, DEPOT)\n"
                                   + _to_fr(nobody, "CLUSNL(BOTH)"))
    try:
        assert _entries(qm, "DISPLAY CLUSQMGR(*) DEFTYPE", "AMQ8441I") == {
            (f"SYSTEM.TEMPQMGR.127.0.0.1({nobody})", "SHOP"),
            (f"SYSTEM.TEMPQMGR.127.0.0.1({nobody})", "DEPOT")}
    finally:
        qm.stop()
