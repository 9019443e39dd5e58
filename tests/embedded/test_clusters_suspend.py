"""Conformance: SUSPEND QMGR and RESUME QMGR for a cluster, through runmqsc and IBM's PCF
(MQCMD_SUSPEND_Q_MGR_CLUSTER, MQCMD_RESUME_Q_MGR_CLUSTER), between two real embedded queue
managers: a full repository FR1 and a partial PR that joined through it.

IBM's pages: "SUSPEND QMGR (suspend a cluster queue manager)" (q086850_), "RESUME QMGR
(resume a cluster queue manager)" (q086590_), "MQCMD_SUSPEND_Q_MGR_CLUSTER" (q088560_),
"MQCMD_RESUME_Q_MGR_CLUSTER" (q088350_), "DISPLAY CLUSQMGR" (SUSPEND), "Inquire Cluster
Queue Manager" (Suspend: MQSUS_YES, MQSUS_NO)."""
from __future__ import annotations

import re

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

from channel_topology import connect, free_port, start, wait_for
from cluster_topology import door, to_full
from spark_mq.embedded import EmbeddedQueueManagerError

_SUSPEND = re.compile(r"CLUSQMGR\(([^)]*)\).*?SUSPEND\((YES|NO)\)", re.S)


@pytest.fixture
def cluster(tmp_path):
    ports = {"FR1": free_port(), "PR": free_port()}
    fr1 = start(tmp_path, "FR1", ports["FR1"], "ALTER QMGR REPOS(SHOP)\n"
                + door("FR1", ports["FR1"]))
    pr = start(tmp_path, "PR", ports["PR"], door("PR", ports["PR"])
               + to_full("FR1", ports["FR1"]))
    try:
        wait_for(lambda: _suspend(fr1).get("PR") == "NO", what="FR1 knows PR")
        yield fr1, pr
    finally:
        pr.stop()
        fr1.stop()


def _suspend(qm) -> dict[str, str]:
    """CLUSQMGR -> SUSPEND, as DISPLAY CLUSQMGR shows them."""
    try:
        output = qm.run_mqsc("DISPLAY CLUSQMGR(*) SUSPEND")
    except EmbeddedQueueManagerError:
        return {}
    return {name: flag for block in output.split("AMQ8441I")[1:]
            for name, flag in _SUSPEND.findall(block)}


def _pcf_suspend(qm, name: str) -> int:
    conn = connect(qm)
    pcf = ibmmq.PCFExecute(conn, response_wait_interval=10000)
    try:
        replies = pcf.MQCMD_INQUIRE_CLUSTER_Q_MGR({CMQC.MQCA_CLUSTER_Q_MGR_NAME: name.encode()})
        return int(replies[0][CMQCFC.MQIACF_SUSPEND])
    finally:
        pcf.disconnect()
        conn.disconnect()


def test_suspend_qmgr_is_published_and_resume_reverses_it(cluster):
    fr1, pr = cluster
    assert "AMQ8559I" in pr.run_mqsc("SUSPEND QMGR CLUSTER(SHOP)")
    assert _suspend(pr)["PR"] == "YES"          # its own entry at once
    wait_for(lambda: _suspend(fr1).get("PR") == "YES", what="FR1 learns PR is suspended")
    assert _suspend(fr1)["FR1"] == "NO"
    assert _pcf_suspend(fr1, "PR") == CMQCFC.MQSUS_YES
    # kept across a restart of the suspended queue manager
    pr.stop()
    pr.start()
    assert _suspend(pr)["PR"] == "YES"
    # PCF Resume Queue Manager Cluster reverses it, for the others too
    conn = connect(pr)
    pcf = ibmmq.PCFExecute(conn, response_wait_interval=10000)
    try:
        pcf.MQCMD_RESUME_Q_MGR_CLUSTER({CMQC.MQCA_CLUSTER_NAME: b"SHOP"})
    finally:
        pcf.disconnect()
        conn.disconnect()
    assert _suspend(pr)["PR"] == "NO"
    wait_for(lambda: _suspend(fr1).get("PR") == "NO", what="FR1 learns PR is resumed")
    assert _pcf_suspend(fr1, "PR") == CMQCFC.MQSUS_NO


def test_pcf_suspend_and_what_is_refused(cluster):
    fr1, pr = cluster
    conn = connect(pr)
    pcf = ibmmq.PCFExecute(conn, response_wait_interval=10000)
    try:
        pcf.MQCMD_SUSPEND_Q_MGR_CLUSTER({CMQC.MQCA_CLUSTER_NAME: b"SHOP",
                                         CMQCFC.MQIACF_MODE: CMQCFC.MQMODE_QUIESCE})
        assert _suspend(pr)["PR"] == "YES"
        for parameters, reason in (
                ({CMQC.MQCA_CLUSTER_NAME: b"ELSEWHERE"}, CMQCFC.MQRCCF_COMMAND_FAILED),
                ({}, CMQCFC.MQRCCF_PARM_MISSING),
                ({CMQC.MQCA_CLUSTER_NAME: b"SHOP", CMQC.MQCA_CLUSTER_NAMELIST: b"NL"},
                 CMQCFC.MQRCCF_PARM_CONFLICT),
                ({CMQC.MQCA_CLUSTER_NAME: b"SHOP", CMQCFC.MQIACF_MODE: 7},
                 CMQCFC.MQRCCF_PARM_VALUE_ERROR)):
            with pytest.raises(ibmmq.MQMIError) as refused:
                pcf.MQCMD_SUSPEND_Q_MGR_CLUSTER(parameters)
            assert refused.value.reason == reason, parameters
    finally:
        pcf.disconnect()
        conn.disconnect()
    # runmqsc names the cluster and what the queue manager is a member of
    with pytest.raises(EmbeddedQueueManagerError) as refused_mqsc:
        fr1.run_mqsc("SUSPEND QMGR CLUSTER(ELSEWHERE)")
    assert ("queue manager FR1 is not a member of cluster ELSEWHERE (it has no CLUSRCVR "
            "channel there); it is a member of SHOP") in str(refused_mqsc.value)
    with pytest.raises(EmbeddedQueueManagerError) as forced:
        fr1.run_mqsc("SUSPEND QMGR CLUSTER(SHOP) MODE(FORCE)")
    assert "only MODE(QUIESCE)" in str(forced.value)
    assert "AMQ8560I" in pr.run_mqsc("RESUME QMGR CLUSTER(SHOP)")
    assert _suspend(pr)["PR"] == "NO"
