"""Conformance: RESET CLUSTER ACTION(FORCEREMOVE) and REFRESH CLUSTER, through runmqsc and
IBM's PCF (MQCMD_RESET_CLUSTER, MQCMD_REFRESH_CLUSTER), in a cluster of three real embedded
queue managers: full repositories FR1 and FR2 and a partial PR.

IBM's pages: "RESET CLUSTER (reset a cluster)" (q086520_: only a repository queue manager
force-removes a member; QMID is preferred to QMNAME; QUEUES(YES) removes its cluster queues
too), "REFRESH CLUSTER (refresh a cluster)" (locally held cluster information is discarded
and rebuilt; REPOS(YES) cannot be specified on a full repository), "MQCMD_RESET_CLUSTER",
"MQCMD_REFRESH_CLUSTER", "Removing a queue manager from a cluster" (a queue manager whose
CLUSRCVR is gone stays in the others' records until RESET CLUSTER)."""
from __future__ import annotations

import re

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

from channel_topology import connect, wait_for
from cluster_topology import shop
from spark_mq.embedded import EmbeddedQueueManagerError

_ROW = re.compile(r"(?:CLUSQMGR|QUEUE)\(([^)]*)\)")


@pytest.fixture
def cluster(tmp_path):
    with shop(tmp_path, {"PR": "DEFINE QLOCAL(ORDERS) CLUSTER(SHOP)\n"}) as qms:
        for full in (qms["FR1"], qms["FR2"]):
            wait_for(lambda full=full: _members(full) == {"FR1", "FR2", "PR"}
                     and ("ORDERS", "PR") in _queues(full), what=f"{full.name} knows PR")
        wait_for(lambda: _members(qms["PR"]) == {"FR1", "FR2", "PR"}, what="PR knows FR2")
        yield qms


def _members(qm) -> set[str]:
    try:
        output = qm.run_mqsc("DISPLAY CLUSQMGR(*)")
    except EmbeddedQueueManagerError:
        return set()
    return {_ROW.search(block).group(1) for block in output.split("AMQ8441I")[1:]}


def _queues(qm) -> set[tuple[str, str]]:
    try:
        output = qm.run_mqsc("DISPLAY QCLUSTER(*) CLUSQMGR")
    except EmbeddedQueueManagerError:
        return set()
    found = set()
    for block in output.split("AMQ8409I")[1:]:
        queue = re.search(r"QUEUE\(([^)]*)\)", block)
        owner = re.search(r"CLUSQMGR\(([^)]*)\)", block)
        if queue and owner:
            found.add((queue.group(1), owner.group(1)))
    return found


def _pcf_reason(qm, command: str, parameters: dict) -> int:
    """The reason PCF `command` answers on `qm` (0: it was done)."""
    conn = connect(qm)
    pcf = ibmmq.PCFExecute(conn, response_wait_interval=10000)
    try:
        getattr(pcf, command)(parameters)
        return 0
    except ibmmq.MQMIError as exc:
        return int(exc.reason)
    finally:
        pcf.disconnect()
        conn.disconnect()


def test_a_member_whose_cluster_receiver_is_gone_is_force_removed_everywhere(cluster):
    fr1, fr2, pr = cluster["FR1"], cluster["FR2"], cluster["PR"]
    # only a full repository removes a member
    with pytest.raises(EmbeddedQueueManagerError, match="PR is not a full repository"):
        pr.run_mqsc("RESET CLUSTER(SHOP) ACTION(FORCEREMOVE) QMNAME(FR2)")
    # PR leaves by deleting its CLUSRCVR: the full repositories still know it
    pr.run_mqsc("DELETE CHANNEL(SHOP.PR)")
    assert "PR" in _members(fr2) and ("ORDERS", "PR") in _queues(fr2)
    reset = {CMQC.MQCA_CLUSTER_NAME: b"SHOP", CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_FORCE_REMOVE,
             CMQC.MQCA_Q_MGR_IDENTIFIER: b"PR_EMBEDDED",
             CMQCFC.MQIACF_REMOVE_QUEUES: CMQCFC.MQCFO_REMOVE_QUEUES_NO}
    assert _pcf_reason(fr1, "MQCMD_RESET_CLUSTER", {
        **reset, CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_REMOVE}) == CMQCFC.MQRCCF_ACTION_VALUE_ERROR
    # by QMID, its queues kept (RemoveQueues MQCFO_REMOVE_QUEUES_NO, IBM's default)
    assert _pcf_reason(fr1, "MQCMD_RESET_CLUSTER", reset) == 0
    assert "PR" not in _members(fr1) and ("ORDERS", "PR") in _queues(fr1)
    # the removal reaches the other full repository
    wait_for(lambda: "PR" not in _members(fr2), what="FR2 forgets PR")
    assert _members(fr2) == {"FR1", "FR2"} and ("ORDERS", "PR") in _queues(fr2)
    # by name, with its queues
    fr1.run_mqsc("RESET CLUSTER(SHOP) ACTION(FORCEREMOVE) QMNAME(PR) QUEUES(YES)")
    assert ("ORDERS", "PR") not in _queues(fr1)
    wait_for(lambda: ("ORDERS", "PR") not in _queues(fr2), what="FR2 forgets PR's queue")
    with pytest.raises(EmbeddedQueueManagerError,
                       match=r"QMNAME\(PR\): no member of cluster SHOP has it"):
        fr1.run_mqsc("RESET CLUSTER(SHOP) ACTION(FORCEREMOVE) QMNAME(PR)")
    with pytest.raises(EmbeddedQueueManagerError, match="FR1 is not a member of cluster OTHER"):
        fr1.run_mqsc("RESET CLUSTER(OTHER) ACTION(FORCEREMOVE) QMNAME(PR)")


def test_refresh_cluster_forgets_and_learns_again(cluster):
    fr1, pr = cluster["FR1"], cluster["PR"]
    # REPOS(YES) is a partial repository's: a full repository keeps its own search
    assert _pcf_reason(fr1, "MQCMD_REFRESH_CLUSTER", {
        CMQC.MQCA_CLUSTER_NAME: b"SHOP",
        CMQCFC.MQIACF_REFRESH_REPOSITORY: CMQCFC.MQCFO_REFRESH_REPOSITORY_YES}) \
        == CMQCFC.MQRCCF_REPOS_VALUE_ERROR
    # the partial forgets the full repositories too and finds them through its CLUSSDR
    answer = pr.run_mqsc("REFRESH CLUSTER(SHOP) REPOS(YES)")
    assert "REFRESH CLUSTER(SHOP) accepted: 2 records of SHOP forgotten" in answer
    wait_for(lambda: _members(pr) == {"FR1", "FR2", "PR"}, what="PR learns FR1 and FR2 again")
    # a full repository forgets PR and its queue, and the other full repository's reply
    # brings them back
    answer = fr1.run_mqsc("REFRESH CLUSTER(SHOP)")    # REPOS(NO): FR2's own record is kept
    assert "REFRESH CLUSTER(SHOP) accepted: 2 records of SHOP forgotten" in answer   # PR, ORDERS
    wait_for(lambda: "PR" in _members(fr1) and ("ORDERS", "PR") in _queues(fr1),
             what="FR1 learns PR and ORDERS again")
