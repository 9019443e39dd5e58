"""SUSPEND QMGR, RESUME QMGR, REFRESH CLUSTER and RESET CLUSTER (IBM docs, "SUSPEND QMGR (suspend a cluster
queue manager)", "RESUME QMGR (resume a cluster queue manager)", and PCF's
MQCMD_SUSPEND_Q_MGR_CLUSTER / MQCMD_RESUME_Q_MGR_CLUSTER, which the command server applies
as this MQSC), in the queue-manager process, under its lock.

SUSPEND QMGR CLUSTER(name) marks this queue manager's own record in that cluster
SUSPEND(YES) (clusters/records.py `suspend`); the repository manager publishes the changed
record to the full repositories as it publishes any change, so the other members show
SUSPEND(YES) in DISPLAY CLUSQMGR, and the workload choice reads it (`records.suspended`).
RESUME QMGR reverses it. Both outlive a restart, as IBM's do.

CLUSNL(name) instead of CLUSTER does the same in each cluster the namelist names
(clusters/records.py `clusters_of`). MODE(QUIESCE), the default, is what is done;
MODE(FORCE) (IBM also stops the cluster channels at once) is refused by name, as is a
cluster this queue manager is not a member of (it has no CLUSRCVR there: there is no record
of it to mark) and a namelist that does not exist or names no cluster; nothing is marked
then.

REFRESH CLUSTER(name|*) [REPOS(NO|YES)] ("REFRESH CLUSTER (refresh a cluster)") forgets what
was learned of the cluster and publishes again (clusters/membership.py); REPOS(YES) on a full
repository is refused. RESET CLUSTER(name) ACTION(FORCEREMOVE) QMNAME(..)|QMID(..)
[QUEUES(NO|YES)] ("RESET CLUSTER (reset a cluster)") runs only on a full repository of the
cluster, names exactly one member (a name two members have is not acted on: give QMID), and
removes it here and from the other members. Their answers are ours (IBM's AMQ numbers for
them are not known here).
"""
from __future__ import annotations

from spark_mq.embedded.server.clusters import membership
from spark_mq.embedded.server.clusters import records as cluster_records
from spark_mq.embedded.server.clusters.definitions import ClusterRefused
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.mqi.constants import CMQCFC

_ACCEPTED = {"SUSPEND": "AMQ8559I: Suspend Queue Manager Cluster accepted.",
             "RESUME": "AMQ8560I: Resume Queue Manager Cluster accepted."}


def suspend_or_resume(qm: QueueManagerState, command: MQSCCommand) -> str:
    """SUSPEND QMGR / RESUME QMGR CLUSTER(name)|CLUSNL(namelist) [MODE(QUIESCE)]."""
    verb = command.verb
    attrs = command.attributes
    clusters, where = _named_clusters(qm, verb, attrs)
    mode = str(attrs.get("MODE", "QUIESCE")).strip().upper()
    if verb == "SUSPEND" and mode != "QUIESCE":
        raise ValueError(f"SUSPEND QMGR {where} MODE({mode}): only MODE(QUIESCE) "
                         "is supported by the embedded queue manager (MODE(FORCE), which also "
                         "stops the cluster channels, is not yet)")
    member_of = sorted(cluster_records.own_clusters(qm))
    for name in clusters:
        if name not in member_of:
            raise ValueError(
                f"{verb} QMGR {where}: queue manager {qm.name} is not a member of cluster "
                f"{name} (it has no CLUSRCVR channel there); it is a member of "
                f"{', '.join(member_of) if member_of else 'no cluster'}")
    for name in clusters:
        cluster_records.suspend(qm, name, verb == "SUSPEND")
    return _ACCEPTED[verb]


def _named_clusters(qm: QueueManagerState, verb: str,
                    attrs: dict[str, object]) -> tuple[list[str], str]:
    """The clusters SUSPEND/RESUME QMGR names, and how the command named them."""
    namelist = str(attrs.get("CLUSNL", "") or "").strip()
    cluster = str(attrs.get("CLUSTER", "") or "").strip()
    if cluster and namelist:
        raise ValueError(f"{verb} QMGR CLUSTER({cluster}) CLUSNL({namelist}): give one of "
                         "CLUSTER(name) and CLUSNL(namelist), not both")
    if not cluster and not namelist:
        raise ValueError(f"{verb} QMGR needs CLUSTER(name) or CLUSNL(namelist) (the "
                         f"clusters to {verb.lower()} this queue manager in); FACILITY and "
                         "LOG are z/OS's")
    clusters = cluster_records.clusters_of(qm, dict(attrs))
    if not clusters:
        raise ValueError(f"{verb} QMGR CLUSNL({namelist}): no namelist {namelist} naming a "
                         "cluster is defined here; DEFINE NAMELIST(name) NAMES(cluster, ...) "
                         "or name one cluster in CLUSTER")
    return clusters, f"CLUSTER({cluster})" if cluster else f"CLUSNL({namelist})"


def refresh_cluster(qm: QueueManagerState, command: MQSCCommand) -> str:
    """REFRESH CLUSTER(name|*) [REPOS(NO|YES)]."""
    repos = _yes_no(command, "REPOS")
    member_of = sorted(cluster_records.own_clusters(qm))
    clusters = member_of if command.name == "*" else [_member_cluster(qm, command)]
    for cluster in clusters:
        if repos and cluster_records.is_full_repository(qm, cluster):
            raise ClusterRefused(
                f"REFRESH CLUSTER({command.name}) REPOS(YES): queue manager {qm.name} is a "
                f"full repository of cluster {cluster} (REPOS); REPOS(YES) is only for a "
                "partial repository (MQRCCF_REPOS_VALUE_ERROR): give REPOS(NO)",
                CMQCFC.MQRCCF_REPOS_VALUE_ERROR)
    forgotten = sum(membership.refresh(qm, cluster, repos) for cluster in clusters)
    return (f"REFRESH CLUSTER({command.name}) accepted: {forgotten} records of "
            f"{', '.join(clusters) or 'no cluster'} forgotten; they are asked for again")


def reset_cluster(qm: QueueManagerState, command: MQSCCommand) -> str:
    """RESET CLUSTER(name) ACTION(FORCEREMOVE) QMNAME(name)|QMID(id) [QUEUES(NO|YES)]."""
    attrs = command.attributes
    action = str(attrs.get("ACTION", "")).strip()
    if action != "FORCEREMOVE":
        raise ClusterRefused(f"RESET CLUSTER({command.name}) ACTION({action}) is not valid "
                             "(MQRCCF_ACTION_VALUE_ERROR): the action is FORCEREMOVE",
                             CMQCFC.MQRCCF_ACTION_VALUE_ERROR)
    name, qmid = str(attrs.get("QMNAME", "")).strip(), str(attrs.get("QMID", "")).strip()
    if bool(name) == bool(qmid):
        raise ValueError(f"RESET CLUSTER({command.name}) needs QMNAME(name) or QMID(id), "
                         "one of the two")
    cluster = _member_cluster(qm, command)
    if not cluster_records.is_full_repository(qm, cluster):
        raise ValueError(f"RESET CLUSTER({cluster}): queue manager {qm.name} is not a full "
                         f"repository of cluster {cluster} (REPOS): only a full repository "
                         "removes a member")
    given = f"QMNAME({name})" if name else f"QMID({qmid})"
    if name == qm.name:
        raise ValueError(f"RESET CLUSTER({cluster}) {given}: that is this queue manager")
    found = membership.matching(qm, cluster, name, qmid)
    if len(found) != 1:
        raise ValueError(f"RESET CLUSTER({cluster}) {given}: "
                         + (f"no member of cluster {cluster} has it" if not found else
                            f"more than one member has it ({', '.join(found)}): name it by "
                            "QMID"))
    membership.force_remove(qm, cluster, found[0], _yes_no(command, "QUEUES"))
    return (f"RESET CLUSTER({cluster}) accepted: queue manager {found[0]} is removed here "
            "and from the other members")


def _yes_no(command: MQSCCommand, key: str) -> bool:
    value = str(command.attributes.get(key, "NO")).strip().upper()
    if value not in ("YES", "NO"):
        raise ValueError(f"{command.verb} CLUSTER({command.name}) {key}({value}) is not "
                         "valid: YES or NO")
    return value == "YES"


def _member_cluster(qm: QueueManagerState, command: MQSCCommand) -> str:
    member_of = sorted(cluster_records.own_clusters(qm))
    if command.name not in member_of:
        raise ValueError(
            f"{command.verb} CLUSTER({command.name}): queue manager {qm.name} is not a member "
            f"of cluster {command.name} (it has no CLUSRCVR channel there); it is a member of "
            f"{', '.join(member_of) if member_of else 'no cluster'}")
    return command.name
