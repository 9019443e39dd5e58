"""SUSPEND QMGR and RESUME QMGR for a cluster (IBM docs, "SUSPEND QMGR (suspend a cluster
queue manager)", "RESUME QMGR (resume a cluster queue manager)", and PCF's
MQCMD_SUSPEND_Q_MGR_CLUSTER / MQCMD_RESUME_Q_MGR_CLUSTER, which the command server applies
as this MQSC), in the queue-manager process, under its lock.

SUSPEND QMGR CLUSTER(name) marks this queue manager's own record in that cluster
SUSPEND(YES) (clusters/records.py `suspend`); the repository manager publishes the changed
record to the full repositories as it publishes any change, so the other members show
SUSPEND(YES) in DISPLAY CLUSQMGR, and the workload choice reads it (`records.suspended`).
RESUME QMGR reverses it. Both outlive a restart, as IBM's do.

MODE(QUIESCE), the default, is what is done; MODE(FORCE) (IBM also stops the cluster
channels at once) and CLUSNL (a namelist of clusters: the repository manager does not follow
namelists yet) are refused by name, as is a cluster this queue manager is not a member of
(it has no CLUSRCVR there: there is no record of it to mark).
"""
from __future__ import annotations

from spark_mq.embedded.server.clusters import records as cluster_records
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand
from spark_mq.embedded.server.core.state import QueueManagerState

_ACCEPTED = {"SUSPEND": "AMQ8559I: Suspend Queue Manager Cluster accepted.",
             "RESUME": "AMQ8560I: Resume Queue Manager Cluster accepted."}


def suspend_or_resume(qm: QueueManagerState, command: MQSCCommand) -> str:
    """SUSPEND QMGR / RESUME QMGR CLUSTER(name) [MODE(QUIESCE)]."""
    verb = command.verb
    attrs = command.attributes
    if str(attrs.get("CLUSNL", "")).strip():
        raise ValueError(f"{verb} QMGR CLUSNL({attrs['CLUSNL']}) is not supported by the "
                         "embedded queue manager yet: name one cluster in CLUSTER")
    cluster = str(attrs.get("CLUSTER", "")).strip()
    if not cluster:
        raise ValueError(f"{verb} QMGR needs CLUSTER(name) (the cluster to {verb.lower()} "
                         "this queue manager in); FACILITY and LOG are z/OS's")
    mode = str(attrs.get("MODE", "QUIESCE")).strip().upper()
    if verb == "SUSPEND" and mode != "QUIESCE":
        raise ValueError(f"SUSPEND QMGR CLUSTER({cluster}) MODE({mode}): only MODE(QUIESCE) "
                         "is supported by the embedded queue manager (MODE(FORCE), which also "
                         "stops the cluster channels, is not yet)")
    member_of = sorted(cluster_records.own_clusters(qm))
    if cluster not in member_of:
        raise ValueError(
            f"{verb} QMGR CLUSTER({cluster}): queue manager {qm.name} is not a member of "
            f"cluster {cluster} (it has no CLUSRCVR channel there); it is a member of "
            f"{', '.join(member_of) if member_of else 'no cluster'}")
    cluster_records.suspend(qm, cluster, verb == "SUSPEND")
    return _ACCEPTED[verb]
