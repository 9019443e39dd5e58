"""REFRESH CLUSTER and RESET CLUSTER ACTION(FORCEREMOVE) on the repository (records.py), in
the queue-manager process, under its lock (IBM docs, "REFRESH CLUSTER (refresh a cluster)",
"RESET CLUSTER (reset a cluster)").

- `refresh`: the queue manager forgets what it learned of the cluster and starts again: with
  REPOS(NO) it keeps the full repositories' queue-manager records (not their queues), with
  REPOS(YES) (never on a full repository) it forgets them too and finds them again through
  its manual CLUSSDRs. Its publication's epoch moves on (`epoch`), so the repository manager
  publishes to the full repositories once more, and their replies bring the records back.
- `force_remove`: a full repository forgets a member (by name, or by QMID, which IBM
  prefers: a name two queue managers have is not acted on), with its queues for
  QUEUES(YES), and leaves a removal in the outbox (`removals`) that the repository manager
  sends to every other member it knows; a member keeps such a removal only from a queue
  manager it knows as a full repository (trust.py). A removed member that is still running
  comes back when it publishes again (its records change, it restarts, or REFRESH CLUSTER
  there), as on IBM MQ.
"""
from __future__ import annotations

from typing import Any

from spark_mq.embedded.server.clusters import records as cluster_records
from spark_mq.embedded.server.core.state import FeatureState, QueueManagerState


class _Pending:
    def __init__(self, qm: QueueManagerState) -> None:
        self.epochs: dict[str, int] = {}
        self.removals: list[dict[str, Any]] = []


_PENDING: FeatureState[_Pending] = FeatureState("cluster refresh and removals", _Pending)


def epoch(qm: QueueManagerState, cluster: str) -> int:
    """How many times REFRESH CLUSTER ran here for `cluster` (part of what is published)."""
    return _PENDING.of(qm).epochs.get(cluster, 0)


def refresh(qm: QueueManagerState, cluster: str, repos: bool) -> int:
    """Forget what was learned of `cluster` (the full repositories' own records kept unless
    `repos`); publish again. Returns the number of records forgotten."""
    forgotten = 0
    for name in sorted({record["CLUSQMGR"] for record in cluster_records.learned(qm)
                        if record["CLUSTER"] == cluster}):
        kept = [] if repos else [
            record for record in cluster_records.full_repositories(qm, cluster)
            if record["CLUSQMGR"] == name]
        forgotten += cluster_records.learn(qm, cluster, kept, replaces=name)
    pending = _PENDING.of(qm)
    pending.epochs[cluster] = pending.epochs.get(cluster, 0) + 1
    return forgotten


def matching(qm: QueueManagerState, cluster: str, name: str, qmid: str) -> list[str]:
    """The members of `cluster` RESET CLUSTER names: by QMNAME, or by QMID (a member known
    only by its queues, after a removal with QUEUES(NO), too)."""
    return sorted({record["CLUSQMGR"] for record in cluster_records.learned(qm)
                   if record["CLUSTER"] == cluster
                   and (record["CLUSQMGR"] == name if name else record.get("QMID") == qmid)})


def forget(qm: QueueManagerState, cluster: str, name: str, queues: bool) -> int:
    """Forget member `name` of `cluster` (its queues too when `queues`)."""
    kept = [] if queues else [record for record in cluster_records.learned(qm)
                              if record["CLUSTER"] == cluster and record["CLUSQMGR"] == name
                              and record["KIND"] == cluster_records.CLUSQ]
    return cluster_records.learn(qm, cluster, kept, replaces=name)


def force_remove(qm: QueueManagerState, cluster: str, name: str, queues: bool) -> None:
    """RESET CLUSTER ACTION(FORCEREMOVE) of member `name` on this full repository, and the
    removal the repository manager is to tell the other members of."""
    receivers = sorted({record["CHANNEL"] for record in cluster_records.members(qm, cluster)
                        if record["CLUSQMGR"] not in (name, qm.name)})
    forget(qm, cluster, name, queues)
    _PENDING.of(qm).removals.append({"cluster": cluster, "name": name, "queues": queues,
                                     "channels": receivers})


def removals(qm: QueueManagerState) -> list[dict[str, Any]]:
    """The removals to send (taken: each is sent once)."""
    pending = _PENDING.of(qm)
    taken, pending.removals = pending.removals, []
    return taken
