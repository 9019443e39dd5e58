"""A partial repository asks a full repository for a queue at MQOPEN (IBM docs, "How
clusters work": a partial repository holds only what it needs, and learns of a cluster
queue from a full repository when it first uses it), in the queue-manager process.

`route` is what name resolution calls for a cluster queue: the instance IBM's workload
algorithm chooses (routing.py `route`). When the records know none elsewhere and there is
no local instance, the resolution is an MQOPEN's or
MQPUT1's (verbs/handles.py resolves `asking`: nothing else may let go of the lock) and this
queue manager is a partial repository of a cluster, the name goes in the outbox (`to_ask`)
that the repository manager sends as a *query* to the full repositories it publishes to,
and the open waits (on the queue manager's `arrived` condition, its lock released) until a
full repository's answer arrives (`answered`) or ASK_SECONDS pass: then 2085
MQRC_UNKNOWN_OBJECT_NAME, as when the full repository does not know the queue either (its
answer is empty). A full repository knows every queue of its clusters and never asks.

A queue manager named in ObjectQMgrName is asked for the same way (`member`), by the same
query: a full repository answers a name with the queue-manager records of a member of that
name as well as the instances of a queue of that name (the two namespaces meet only here,
and a partial takes from the answer what it needs), so a partial can reach a member it has
never heard of, as IBM's partial asks its full repository about a queue manager.

Not yet: IBM's subscription (the full repository would tell the partial of later changes
of what it asked for): what an answer taught is kept until REFRESH CLUSTER.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from spark_mq.embedded.server.clusters import records as cluster_records
from spark_mq.embedded.server.clusters import routing as cluster_routing
from spark_mq.embedded.server.core.state import FeatureState, LocalQueue, QueueManagerState

#: how long an MQOPEN waits for a full repository's answer (ours; IBM does not say)
ASK_SECONDS = 5.0


class _Asking:
    def __init__(self, qm: QueueManagerState) -> None:
        self.outbox: set[str] = set()
        self.answers: dict[str, int] = {}   # name -> answers received (an open waits for one)


_ASKING: FeatureState[_Asking] = FeatureState("cluster queries", _Asking)


def partial_clusters(qm: QueueManagerState) -> list[str]:
    """The clusters this queue manager is a partial repository of."""
    return [cluster for cluster in sorted(cluster_records.own_clusters(qm))
            if not cluster_records.is_full_repository(qm, cluster)]


_OPENING = threading.local()


@contextmanager
def asking() -> Iterator[None]:
    """An MQOPEN's name resolution: only there may `route` wait (a put's stream copy, say,
    must not let go of the lock halfway)."""
    _OPENING.asking = True
    try:
        yield
    finally:
        _OPENING.asking = False


def route(qm: QueueManagerState, name: str,
          local: LocalQueue | None = None) -> tuple[str, str, str] | None:
    """routing.route, after asking the full repositories when a partial knows no instance
    (and has none of its own) and an MQOPEN is `asking` (under the queue manager's lock,
    which the wait releases)."""
    found = cluster_routing.route(qm, name, local)
    if found is not None or local is not None or not _may_ask(qm):
        return found
    _ask(qm, name)
    return cluster_routing.route(qm, name, local)


def member(qm: QueueManagerState, qmgr_name: str, ask: bool) -> str | None:
    """routing.member: the cluster-sender to cluster queue manager `qmgr_name`; a partial
    that knows none asks the full repositories first when `ask` (name resolution's word:
    nothing else would be found) and an MQOPEN is `asking`."""
    found = cluster_routing.member(qm, qmgr_name)
    if found is not None or not ask or not _may_ask(qm):
        return found
    _ask(qm, qmgr_name)
    return cluster_routing.member(qm, qmgr_name)


def _may_ask(qm: QueueManagerState) -> bool:
    return bool(getattr(_OPENING, "asking", False)) and bool(partial_clusters(qm))


def _ask(qm: QueueManagerState, name: str) -> None:
    """Put `name` in the outbox and wait (the lock released) for an answer or ASK_SECONDS."""
    asking = _ASKING.of(qm)
    before = asking.answers.get(name, 0)
    asking.outbox.add(name)
    deadline = time.monotonic() + ASK_SECONDS
    while asking.answers.get(name, 0) == before:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        qm.arrived.wait(left)
    asking.outbox.discard(name)


def to_ask(qm: QueueManagerState) -> list[str]:
    """The names opens are waiting for, to be asked of the full repositories (taken)."""
    asking = _ASKING.of(qm)
    taken = sorted(asking.outbox)
    asking.outbox.clear()
    return taken


def answered(qm: QueueManagerState, name: str) -> None:
    """A full repository answered about `name`: the opens waiting for it go on."""
    asking = _ASKING.of(qm)
    asking.answers[name] = asking.answers.get(name, 0) + 1
    qm.arrived.notify_all()


def answer(qm: QueueManagerState, cluster: str, name: str) -> list[dict]:
    """What a full repository answers a query for `name` in `cluster` with: every instance
    of the queue and the queue-manager record of each host, and the record of a member
    named `name` (empty: it knows none)."""
    known = cluster_records.own_records(qm, cluster) + [
        record for record in cluster_records.learned(qm) if record["CLUSTER"] == cluster]
    queues = [record for record in known
              if record["KIND"] == cluster_records.CLUSQ and record["QUEUE"] == name]
    hosts = {record["CLUSQMGR"] for record in queues} | {name}
    return queues + [record for record in known if record["KIND"] == cluster_records.CLUSQMGR
                     and record["CLUSQMGR"] in hosts]
