"""Conformance: cluster definitions as IBM MQ's MQSC and PCF take, show and refuse them
(issue 36 item 1, first slice), through IBM's `ibmmq` API on a real embedded queue manager.

IBM's pages: "Queue manager attributes for clusters" (qmclus.html: REPOS, REPOSNL, DEFCLXQ,
CLWLUSEQ), "Cluster channels" (chlclus.html: CLUSSDR, CLUSRCVR, CLUSTER, CLUSNL, CLWLPRTY,
CLWLRANK, CLWLWGHT, NETPRTY), "Cluster queues" (queclus.html), "DEFINE CHANNEL" and "DEFINE
queues"; the PCF reason codes 3088 MQRCCF_CLUSTER_NAME_CONFLICT, 3089
MQRCCF_REPOS_NAME_CONFLICT, 3090 MQRCCF_CLUSTER_Q_USAGE_ERROR (q046870_), 3269
MQRCCF_DEF_XMIT_Q_CLUS_ERROR (q047850_) and 3363 MQRCCF_CLUS_XMIT_Q_USAGE_ERROR (q048180_).
"""
from __future__ import annotations

import re

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC, CMQXC

import spark_mq.embedded as embedded
from spark_mq.embedded import EmbeddedQueueManagerError

QM = "QMCLDEF"


@pytest.fixture(scope="module")
def cqm(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmcldef")), name=QM) as manager:
        manager.run_mqsc("DEFINE NAMELIST(CLUS.NL) NAMES(CLUS1, CLUS2)")
        yield manager


@pytest.fixture
def pcf(cqm):
    connection = ibmmq.connect(QM, "DEV.APP.SVRCONN", cqm.conn_name)
    command = ibmmq.PCFExecute(connection, response_wait_interval=10000)
    yield command
    command.disconnect()
    connection.disconnect()


def values(display: str) -> dict[str, str]:
    return {key: value.strip() for key, value in re.findall(r"([A-Z][A-Z0-9]*)\(([^)]*)\)", display)}


# "Cluster queue manager system queues": crtmqm makes clustering's queues with the others
def test_a_new_queue_manager_has_the_cluster_system_queues(cqm):
    shown = cqm.run_mqsc("DISPLAY QUEUE(SYSTEM.CLUSTER.*) TYPE USAGE")
    for name in ("SYSTEM.CLUSTER.COMMAND.QUEUE", "SYSTEM.CLUSTER.REPOSITORY.QUEUE",
                 "SYSTEM.CLUSTER.TRANSMIT.QUEUE", "SYSTEM.CLUSTER.TRANSMIT.MODEL.QUEUE",
                 "SYSTEM.CLUSTER.HISTORY.QUEUE"):
        assert f"QUEUE({name})" in shown, shown
    transmit = values(cqm.run_mqsc("DISPLAY QLOCAL(SYSTEM.CLUSTER.TRANSMIT.QUEUE) USAGE"))
    assert transmit["USAGE"] == "XMITQ"
    model = values(cqm.run_mqsc("DISPLAY QMODEL(SYSTEM.CLUSTER.TRANSMIT.MODEL.QUEUE) USAGE DEFTYPE"))
    assert (model["USAGE"], model["DEFTYPE"]) == ("XMITQ", "PERMDYN")


# qmclus.html: REPOS makes a full repository; DEFCLXQ and CLWLUSEQ are the queue manager's;
# MQINQ and PCF Inquire Queue Manager answer them as set
def test_alter_qmgr_repos_defclxq_clwluseq_shown_and_inquired(cqm, pcf):
    cqm.run_mqsc("ALTER QMGR REPOS(CLUS1) DEFCLXQ(CHANNEL) CLWLUSEQ(ANY) CLWLMRUC(7)")
    try:
        shown = values(cqm.run_mqsc("DISPLAY QMGR REPOS REPOSNL DEFCLXQ CLWLUSEQ CLWLMRUC"))
        assert (shown["REPOS"], shown["REPOSNL"], shown["DEFCLXQ"], shown["CLWLUSEQ"],
                shown["CLWLMRUC"]) == ("CLUS1", "", "CHANNEL", "ANY", "7")
        connection = ibmmq.connect(QM, "DEV.APP.SVRCONN", cqm.conn_name)
        try:
            assert connection.inquire(CMQC.MQCA_REPOSITORY_NAME).strip() == b"CLUS1"
            assert connection.inquire(CMQC.MQIA_DEF_CLUSTER_XMIT_Q_TYPE) == CMQCFC.MQCLXQ_CHANNEL
            assert connection.inquire(CMQC.MQIA_CLWL_USEQ) == CMQC.MQCLWL_USEQ_ANY
            assert connection.inquire(CMQC.MQIA_CLWL_MRU_CHANNELS) == 7
        finally:
            connection.disconnect()
        # PCF Change Queue Manager sets them as MQSC does
        pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQCA_REPOSITORY_NAME: b" ",
                                CMQC.MQCA_REPOSITORY_NAMELIST: b"CLUS.NL",
                                CMQC.MQIA_DEF_CLUSTER_XMIT_Q_TYPE: CMQCFC.MQCLXQ_SCTQ})
        [qmgr] = pcf.MQCMD_INQUIRE_Q_MGR({CMQCFC.MQIACF_Q_MGR_ATTRS: [
            CMQC.MQCA_REPOSITORY_NAME, CMQC.MQCA_REPOSITORY_NAMELIST,
            CMQC.MQIA_DEF_CLUSTER_XMIT_Q_TYPE]})
        assert qmgr[CMQC.MQCA_REPOSITORY_NAME].strip() == b""
        assert qmgr[CMQC.MQCA_REPOSITORY_NAMELIST].strip() == b"CLUS.NL"
        assert qmgr[CMQC.MQIA_DEF_CLUSTER_XMIT_Q_TYPE] == CMQCFC.MQCLXQ_SCTQ
    finally:
        cqm.run_mqsc("ALTER QMGR REPOS(' ') REPOSNL(' ') DEFCLXQ(SCTQ) CLWLUSEQ(LOCAL) "
                     "CLWLMRUC(999999999)")


# chlclus.html and "DEFINE CHANNEL": a CLUSRCVR and a CLUSSDR with their cluster and workload
# attributes, kept across a restart, shown by DISPLAY CHANNEL and by PCF Inquire Channel
def test_cluster_channels_defined_shown_and_kept(cqm):
    cqm.run_mqsc(
        "DEFINE CHANNEL(TO.QMCLDEF) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1(1414)') CLUSTER(CLUS1) "
        "CLWLPRTY(3) CLWLRANK(4) CLWLWGHT(75) NETPRTY(2) SHORTTMR(5) REPLACE\n"
        "DEFINE CHANNEL(TO.FR1) CHLTYPE(CLUSSDR) CONNAME('127.0.0.1(1415)') CLUSNL(CLUS.NL) "
        "REPLACE")
    cqm.stop()
    cqm.start()
    receiver = values(cqm.run_mqsc("DISPLAY CHANNEL(TO.QMCLDEF) ALL"))
    assert (receiver["CHLTYPE"], receiver["CLUSTER"], receiver["CLWLPRTY"], receiver["CLWLRANK"],
            receiver["CLWLWGHT"], receiver["NETPRTY"], receiver["SHORTTMR"]) == (
        "CLUSRCVR", "CLUS1", "3", "4", "75", "2", "5")
    sender = values(cqm.run_mqsc("DISPLAY CHANNEL(TO.FR1) ALL"))
    # IBM's defaults: rank 0, priority 0, weight 50
    assert (sender["CHLTYPE"], sender["CLUSNL"], sender["CLWLWGHT"], sender["CLWLRANK"]) == (
        "CLUSSDR", "CLUS.NL", "50", "0")
    assert "CHANNEL(TO.FR1)" in cqm.run_mqsc("DISPLAY CHANNEL(*) TYPE(CLUSSDR)")
    connection = ibmmq.connect(QM, "DEV.APP.SVRCONN", cqm.conn_name)   # after the restart
    pcf = ibmmq.PCFExecute(connection, response_wait_interval=10000)
    try:
        _inquire_cluster_channels(pcf)
    finally:
        pcf.disconnect()
        connection.disconnect()


def _inquire_cluster_channels(pcf) -> None:
    [inquired] = pcf.MQCMD_INQUIRE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"TO.QMCLDEF"})
    assert inquired[CMQCFC.MQIACH_CHANNEL_TYPE] == CMQXC.MQCHT_CLUSRCVR
    assert inquired[CMQC.MQCA_CLUSTER_NAME].strip() == b"CLUS1"
    assert (inquired[CMQCFC.MQIACH_CLWL_CHANNEL_PRIORITY], inquired[CMQCFC.MQIACH_CLWL_CHANNEL_RANK],
            inquired[CMQCFC.MQIACH_CLWL_CHANNEL_WEIGHT], inquired[CMQCFC.MQIACH_NETWORK_PRIORITY]) \
        == (3, 4, 75, 2)
    [listed] = pcf.MQCMD_INQUIRE_CHANNEL_NAMES({CMQCFC.MQCACH_CHANNEL_NAME: b"TO.*"})
    assert dict(zip((name.strip() for name in listed[CMQCFC.MQCACH_CHANNEL_NAMES]),
                    listed[CMQCFC.MQIACH_CHANNEL_TYPES])) == {
        b"TO.FR1": CMQXC.MQCHT_CLUSSDR, b"TO.QMCLDEF": CMQXC.MQCHT_CLUSRCVR}


def test_pcf_creates_a_cluster_receiver(cqm, pcf):
    pcf.MQCMD_CREATE_CHANNEL({
        CMQCFC.MQCACH_CHANNEL_NAME: b"PCF.CLUSRCVR", CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_CLUSRCVR,
        CMQCFC.MQCACH_CONNECTION_NAME: b"127.0.0.1(1416)", CMQC.MQCA_CLUSTER_NAME: b"CLUS2",
        CMQCFC.MQIACH_CLWL_CHANNEL_WEIGHT: 99})
    shown = values(cqm.run_mqsc("DISPLAY CHANNEL(PCF.CLUSRCVR) CLUSTER CLWLWGHT"))
    assert (shown["CHLTYPE"], shown["CLUSTER"], shown["CLWLWGHT"]) == ("CLUSRCVR", "CLUS2", "99")


# a cluster channel has its own attributes: no XMITQ (clustering's transmission queue serves
# every cluster-sender), CLWLWGHT 1 to 99
@pytest.mark.parametrize(("command", "words"), [
    ("DEFINE CHANNEL(BAD.CL) CHLTYPE(CLUSSDR) CONNAME('h(1)') XMITQ(Q)",
     "attribute XMITQ: unknown for a CLUSSDR channel"),
    ("DEFINE CHANNEL(BAD.CL) CHLTYPE(CLUSRCVR) CLWLWGHT(0)", "valid: 1 to 99"),
    ("DEFINE CHANNEL(BAD.CL) CHLTYPE(CLUSRCVR) CLWLRANK(10)", "valid: 0 to 9"),
])
def test_a_wrong_cluster_channel_attribute_is_named(cqm, command, words):
    with pytest.raises(EmbeddedQueueManagerError, match=re.escape(words)):
        cqm.run_mqsc(command)


# the refusals IBM gives, each naming the object, the values and what is valid; nothing of
# the refused command is kept
@pytest.mark.parametrize(("command", "words"), [
    ("DEFINE QLOCAL(CL.BOTH) CLUSTER(CLUS1) CLUSNL(CLUS.NL)",
     "CLUSTER(CLUS1) and CLUSNL(CLUS.NL) of QLOCAL(CL.BOTH) cannot both be set "
     "(MQRCCF_CLUSTER_NAME_CONFLICT)"),
    ("ALTER QLOCAL(CL.QUEUE) CLUSNL(CLUS.NL)",
     "CLUSTER(CLUS1) and CLUSNL(CLUS.NL) of QLOCAL(CL.QUEUE) cannot both be set"),
    ("DEFINE QLOCAL(CL.XMITQ) USAGE(XMITQ) CLUSTER(CLUS1)",
     "cannot be both a cluster queue (CLUSTER(CLUS1)) and a transmission queue "
     "(USAGE(XMITQ)) (MQRCCF_CLUSTER_Q_USAGE_ERROR)"),
    ("ALTER QLOCAL(CL.QUEUE) USAGE(XMITQ)", "MQRCCF_CLUSTER_Q_USAGE_ERROR"),
    ("ALTER QLOCAL(SYSTEM.CLUSTER.COMMAND.QUEUE) CLUSTER(CLUS1)",
     "QLOCAL(SYSTEM.CLUSTER.COMMAND.QUEUE) cannot be a cluster queue (CLUSTER(CLUS1)) "
     "(MQRCCF_CLUSTER_Q_USAGE_ERROR)"),
    ("ALTER QLOCAL(SYSTEM.CHANNEL.SYNCQ) CLUSNL(CLUS.NL)", "MQRCCF_CLUSTER_Q_USAGE_ERROR"),
    ("DEFINE QLOCAL(CL.CLCHNAME) CLCHNAME('CL.*')",
     "CLCHNAME(CL.*) of QLOCAL(CL.CLCHNAME) needs USAGE(XMITQ), not USAGE(NORMAL) "
     "(MQRCCF_CLUS_XMIT_Q_USAGE_ERROR)"),
    ("ALTER QMGR REPOS(CLUS1) REPOSNL(CLUS.NL)",
     "REPOS(CLUS1) and REPOSNL(CLUS.NL) cannot both be set (MQRCCF_REPOS_NAME_CONFLICT)"),
    ("ALTER QMGR DEFXMITQ(SYSTEM.CLUSTER.TRANSMIT.QUEUE)",
     "DEFXMITQ(SYSTEM.CLUSTER.TRANSMIT.QUEUE) is not allowed (MQRCCF_DEF_XMIT_Q_CLUS_ERROR)"),
    ("DEFINE CHANNEL(CL.BOTH) CHLTYPE(CLUSRCVR) CLUSTER(CLUS1) CLUSNL(CLUS.NL)",
     "of CHANNEL(CL.BOTH) CHLTYPE(CLUSRCVR) cannot both be set (MQRCCF_CLUSTER_NAME_CONFLICT)"),
])
def test_mqsc_refuses_what_ibm_refuses(cqm, command, words):
    cqm.run_mqsc("DEFINE QLOCAL(CL.QUEUE) CLUSTER(CLUS1) REPLACE")
    with pytest.raises(EmbeddedQueueManagerError, match=re.escape(words)):
        cqm.run_mqsc(command)
    queue = values(cqm.run_mqsc("DISPLAY QLOCAL(CL.QUEUE) CLUSTER CLUSNL USAGE"))
    assert (queue["CLUSTER"], queue["CLUSNL"], queue["USAGE"]) == ("CLUS1", "", "NORMAL")
    qmgr = values(cqm.run_mqsc("DISPLAY QMGR REPOS REPOSNL DEFXMITQ"))
    assert (qmgr["REPOS"], qmgr["REPOSNL"], qmgr["DEFXMITQ"]) == ("", "", "")
    for name in ("CL.BOTH", "CL.XMITQ", "CL.CLCHNAME"):
        with pytest.raises(EmbeddedQueueManagerError, match="not found"):
            cqm.run_mqsc(f"DISPLAY QUEUE({name})")
    with pytest.raises(EmbeddedQueueManagerError, match="not found"):
        cqm.run_mqsc("DISPLAY CHANNEL(CL.BOTH)")


def test_blank_cluster_names_are_not_set(cqm):
    """dmpmqcfg writes CLUSNL(' ') beside CLUSTER('CLUS1'): a blank is no second name."""
    cqm.run_mqsc("DEFINE QLOCAL(CL.BLANK) CLUSTER(CLUS1) CLUSNL(' ') REPLACE\n"
                 "DEFINE QLOCAL(CL.XMIT.OK) USAGE(XMITQ) CLCHNAME('CL.*') CLUSTER(' ') REPLACE\n"
                 "ALTER QMGR REPOS(' ') REPOSNL(' ')")
    assert values(cqm.run_mqsc("DISPLAY QLOCAL(CL.XMIT.OK) CLCHNAME"))["CLCHNAME"] == "CL.*"


def _pcf_reason(call, arguments: dict) -> int:
    with pytest.raises(ibmmq.MQMIError) as refused:
        call(arguments)
    return int(refused.value.reason)


# the same refusals through PCF, with IBM's reason codes
def test_pcf_refuses_them_with_the_cluster_reason_codes(cqm, pcf):
    local = {CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL}
    assert _pcf_reason(pcf.MQCMD_CREATE_Q, {
        CMQC.MQCA_Q_NAME: b"PCF.BOTH", **local, CMQC.MQCA_CLUSTER_NAME: b"CLUS1",
        CMQC.MQCA_CLUSTER_NAMELIST: b"CLUS.NL"}) == CMQCFC.MQRCCF_CLUSTER_NAME_CONFLICT
    assert _pcf_reason(pcf.MQCMD_CREATE_Q, {
        CMQC.MQCA_Q_NAME: b"PCF.XMITQ", **local, CMQC.MQIA_USAGE: CMQC.MQUS_TRANSMISSION,
        CMQC.MQCA_CLUSTER_NAME: b"CLUS1"}) == CMQCFC.MQRCCF_CLUSTER_Q_USAGE_ERROR
    assert _pcf_reason(pcf.MQCMD_CHANGE_Q, {
        CMQC.MQCA_Q_NAME: b"SYSTEM.CLUSTER.REPOSITORY.QUEUE", **local,
        CMQC.MQCA_CLUSTER_NAME: b"CLUS1"}) == CMQCFC.MQRCCF_CLUSTER_Q_USAGE_ERROR
    assert _pcf_reason(pcf.MQCMD_CREATE_Q, {
        CMQC.MQCA_Q_NAME: b"PCF.CLCH", **local, CMQC.MQCA_CLUS_CHL_NAME: b"CL.*"}) \
        == CMQCFC.MQRCCF_CLUS_XMIT_Q_USAGE_ERROR
    assert _pcf_reason(pcf.MQCMD_CHANGE_Q_MGR, {
        CMQC.MQCA_REPOSITORY_NAME: b"CLUS1", CMQC.MQCA_REPOSITORY_NAMELIST: b"CLUS.NL"}) \
        == CMQCFC.MQRCCF_REPOS_NAME_CONFLICT
    assert _pcf_reason(pcf.MQCMD_CHANGE_Q_MGR, {
        CMQC.MQCA_DEF_XMIT_Q_NAME: b"SYSTEM.CLUSTER.TRANSMIT.QUEUE"}) \
        == CMQCFC.MQRCCF_DEF_XMIT_Q_CLUS_ERROR
    assert _pcf_reason(pcf.MQCMD_CREATE_CHANNEL, {
        CMQCFC.MQCACH_CHANNEL_NAME: b"PCF.BOTH", CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_CLUSSDR,
        CMQCFC.MQCACH_CONNECTION_NAME: b"127.0.0.1(1)", CMQC.MQCA_CLUSTER_NAME: b"CLUS1",
        CMQC.MQCA_CLUSTER_NAMELIST: b"CLUS.NL"}) == CMQCFC.MQRCCF_CLUSTER_NAME_CONFLICT
    qmgr = values(cqm.run_mqsc("DISPLAY QMGR REPOS REPOSNL DEFXMITQ"))
    assert (qmgr["REPOS"], qmgr["REPOSNL"], qmgr["DEFXMITQ"]) == ("", "", "")


# through PCF: Refresh Cluster of a cluster the queue manager has no CLUSRCVR in fails (never
# silently), and PCF Inquire Queue finds no cluster queue yet
def test_pcf_cluster_commands_not_there_yet_fail(cqm, pcf):
    assert _pcf_reason(pcf.MQCMD_REFRESH_CLUSTER, {
        CMQC.MQCA_CLUSTER_NAME: b"NO.SUCH.CLUSTER"}) == CMQCFC.MQRCCF_COMMAND_FAILED
    cqm.run_mqsc("DEFINE QLOCAL(CL.QUEUE) CLUSTER(CLUS1) REPLACE")
    assert _pcf_reason(pcf.MQCMD_INQUIRE_Q, {
        CMQC.MQCA_Q_NAME: b"CL.*", CMQC.MQIA_Q_TYPE: CMQC.MQQT_CLUSTER}) \
        == CMQC.MQRC_UNKNOWN_OBJECT_NAME
