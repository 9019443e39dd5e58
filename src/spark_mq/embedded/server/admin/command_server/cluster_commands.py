"""PCF Inquire Cluster Queue Manager (MQCMD_INQUIRE_CLUSTER_Q_MGR): DISPLAY CLUSQMGR's
twin (admin/cluster_display.py), with IBM's parameters ("Inquire Cluster Queue Manager",
the PCF reference): ClusterQMgrName (generic) required, ClusterName and
ClusterQMgrAttrs optional; each reply names the queue manager, its cluster and channel,
and gives CONNAME, QMgrDefinitionType (MQQMDT_*), QMgrType (MQQMT_*), QMgrIdentifier,
ChannelStatus and Suspend.

Suspend Queue Manager Cluster and Resume Queue Manager Cluster (MQCMD_SUSPEND_Q_MGR_CLUSTER,
MQCMD_RESUME_Q_MGR_CLUSTER): ClusterName (or ClusterNamelist) and, for Suspend, Mode
(MQMODE_QUIESCE, MQMODE_FORCE), applied as SUSPEND/RESUME QMGR (admin/cluster_control.py);
what that refuses answers MQRCCF_COMMAND_FAILED, as the other PCF commands applied as MQSC
do. Refresh Cluster (MQCMD_REFRESH_CLUSTER: ClusterName, RefreshRepository) and Reset
Cluster (MQCMD_RESET_CLUSTER: ClusterName, Action MQACT_FORCE_REMOVE, QMgrName or
QMgrIdentifier, RemoveQueues) are REFRESH and RESET CLUSTER the same way, with IBM's
MQRCCF_REPOS_VALUE_ERROR and MQRCCF_ACTION_VALUE_ERROR where those apply."""
from __future__ import annotations

from spark_mq.embedded.server.admin.cluster_display import cluster_qmgr_rows
from spark_mq.embedded.server.admin.command_server.attributes import padded
from spark_mq.embedded.server.admin.command_server.pcf import PCFError
from spark_mq.embedded.server.admin.command_server.request import (
    Reply,
    Request,
    encode,
    matches,
    unknown_object,
)
from spark_mq.embedded.server.admin.mqsc_apply import apply_command
from spark_mq.embedded.server.clusters.definitions import ClusterRefused
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand
from spark_mq.mqi.constants import CMQC, CMQCFC

_DEFINITION_TYPES = {
    "CLUSSDR": CMQCFC.MQQMDT_EXPLICIT_CLUSTER_SENDER,
    "CLUSSDRA": CMQCFC.MQQMDT_AUTO_CLUSTER_SENDER,
    "CLUSRCVR": CMQCFC.MQQMDT_CLUSTER_RECEIVER,
    "CLUSSDRB": CMQCFC.MQQMDT_AUTO_EXP_CLUSTER_SENDER}
_ALWAYS = (CMQC.MQCA_CLUSTER_Q_MGR_NAME, CMQCFC.MQCACH_CHANNEL_NAME, CMQC.MQCA_CLUSTER_NAME)


def inquire_cluster_q_mgr(request: Request) -> list[Reply]:
    pattern = request.string(CMQC.MQCA_CLUSTER_Q_MGR_NAME)
    cluster = request.string(CMQC.MQCA_CLUSTER_NAME).strip()
    replies = []
    for row in cluster_qmgr_rows(request.qm):
        if not matches(pattern, row["CLUSQMGR"]) or cluster and row["CLUSTER"] != cluster:
            continue
        values: dict[int, int | bytes | list[int]] = {
            CMQC.MQCA_CLUSTER_Q_MGR_NAME: padded(row["CLUSQMGR"], CMQC.MQ_Q_MGR_NAME_LENGTH),
            CMQCFC.MQCACH_CHANNEL_NAME: padded(row["CHANNEL"], CMQC.MQ_CHANNEL_NAME_LENGTH),
            CMQC.MQCA_CLUSTER_NAME: padded(row["CLUSTER"], CMQC.MQ_CLUSTER_NAME_LENGTH),
            CMQCFC.MQCACH_CONNECTION_NAME: padded(str(row.get("CONNAME", "")),
                                                  CMQC.MQ_CONN_NAME_LENGTH),
            CMQCFC.MQIACF_Q_MGR_DEFINITION_TYPE: _DEFINITION_TYPES[row["DEFTYPE"]],
            CMQCFC.MQIACF_Q_MGR_TYPE: CMQCFC.MQQMT_REPOSITORY if row["QMTYPE"] == "REPOS"
            else CMQCFC.MQQMT_NORMAL,
            CMQC.MQCA_Q_MGR_IDENTIFIER: padded(str(row.get("QMID", "")),
                                               CMQC.MQ_Q_MGR_IDENTIFIER_LENGTH),
            CMQCFC.MQIACH_CHANNEL_STATUS: getattr(CMQCFC, f"MQCHS_{row['STATUS']}",
                                                  CMQCFC.MQCHS_INACTIVE),
            CMQCFC.MQIACF_SUSPEND: CMQCFC.MQSUS_YES if row["SUSPEND"] == "YES"
            else CMQCFC.MQSUS_NO}
        replies.append(Reply(encode(request.chosen(
            values, CMQCFC.MQIACF_CLUSTER_Q_MGR_ATTRS, _ALWAYS))))
    if not replies:
        raise unknown_object()
    return replies


_MODES = {CMQCFC.MQMODE_QUIESCE: "QUIESCE", CMQCFC.MQMODE_FORCE: "FORCE"}


def suspend_q_mgr_cluster(request: Request) -> list[Reply]:
    return _suspend_or_resume(request, "SUSPEND")


def resume_q_mgr_cluster(request: Request) -> list[Reply]:
    return _suspend_or_resume(request, "RESUME")


def _suspend_or_resume(request: Request, verb: str) -> list[Reply]:
    cluster = request.string(CMQC.MQCA_CLUSTER_NAME).strip()
    namelist = request.string(CMQC.MQCA_CLUSTER_NAMELIST).strip()
    if bool(cluster) == bool(namelist):   # IBM: one of the two, never both
        raise PCFError(CMQCFC.MQRCCF_PARM_CONFLICT if cluster else CMQCFC.MQRCCF_PARM_MISSING,
                       CMQC.MQCA_CLUSTER_NAME)
    attributes: dict[str, object] = {"CLUSTER": cluster} if cluster else {"CLUSNL": namelist}
    if verb == "SUSPEND":
        mode = _MODES.get(request.integer(CMQCFC.MQIACF_MODE, CMQCFC.MQMODE_QUIESCE))
        if mode is None:
            raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, CMQCFC.MQIACF_MODE)
        attributes["MODE"] = mode
    return _apply(request, MQSCCommand(verb, "QMGR", "", attributes))


def refresh_cluster(request: Request) -> list[Reply]:
    repository = request.integer(CMQCFC.MQIACF_REFRESH_REPOSITORY,
                                 CMQCFC.MQCFO_REFRESH_REPOSITORY_NO)
    if repository not in (CMQCFC.MQCFO_REFRESH_REPOSITORY_NO, CMQCFC.MQCFO_REFRESH_REPOSITORY_YES):
        raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, CMQCFC.MQIACF_REFRESH_REPOSITORY)
    repos = "YES" if repository == CMQCFC.MQCFO_REFRESH_REPOSITORY_YES else "NO"
    return _apply(request, MQSCCommand("REFRESH", "CLUSTER", request.string(
        CMQC.MQCA_CLUSTER_NAME).strip(), {"REPOS": repos}))


def reset_cluster(request: Request) -> list[Reply]:
    action = request.integer(CMQCFC.MQIACF_ACTION, CMQCFC.MQACT_FORCE_REMOVE)
    queues = request.integer(CMQCFC.MQIACF_REMOVE_QUEUES, CMQCFC.MQCFO_REMOVE_QUEUES_NO)
    attributes: dict[str, object] = {
        "ACTION": "FORCEREMOVE" if action == CMQCFC.MQACT_FORCE_REMOVE else str(action),
        "QMNAME": request.string(CMQC.MQCA_Q_MGR_NAME).strip(),
        "QMID": request.string(CMQC.MQCA_Q_MGR_IDENTIFIER).strip(),
        "QUEUES": "YES" if queues == CMQCFC.MQCFO_REMOVE_QUEUES_YES else "NO"}
    return _apply(request, MQSCCommand("RESET", "CLUSTER", request.string(
        CMQC.MQCA_CLUSTER_NAME).strip(), attributes))


def _apply(request: Request, command: MQSCCommand) -> list[Reply]:
    try:
        apply_command(request.qm, command)
    except ClusterRefused as refused:
        raise PCFError(refused.pcf_reason) from None
    except ValueError:
        raise PCFError(CMQCFC.MQRCCF_COMMAND_FAILED) from None
    return [Reply()]
