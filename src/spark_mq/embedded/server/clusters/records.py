"""A queue manager's cluster records (IBM's "repository"): what it publishes about itself and
what it learned from the other members, in the queue-manager process.

Two kinds, as IBM's repository manager keeps them (IBM docs, "Cluster repository",
"DISPLAY CLUSQMGR", "DISPLAY QUEUE TYPE(QCLUSTER)"):

- a queue-manager record (`CLUSQMGR`): one member's CLUSRCVR in one cluster: its name, its
  CONNAME and the channel attributes the other members' auto-defined cluster-senders
  (DEFTYPE CLUSSDRA) are built from, and whether the member is a full repository
  (QMTYPE REPOS) or a partial one (NORMAL);
- a queue record (`CLUSQ`): one clustered queue of one member, with the attributes IBM shows
  for it in DISPLAY QCLUSTER.

Its own records are not kept: they are read from its definitions (its CLUSRCVR channels and
the queues that name a cluster in CLUSTER) whenever they are asked for, so they are always
what the definitions say. The learned ones are store objects of their own kinds, mirrored
onto SYSTEM.CLUSTER.REPOSITORY.QUEUE by core/system_queues.py's `hold` (one message per
record, as the authority records are onto theirs), so they survive a restart. A member's
publication replaces everything known about that member in that cluster: a queue it no
longer clusters disappears from the others' records.

SUSPEND QMGR and RESUME QMGR set this queue manager's own record's SUSPEND (kept in the
store as a CLUSSUSP object per cluster); `suspended(record)` is what the workload choice
reads of any member's record.

Which clusters an object is in is `clusters_of`, the one place that reads CLUSTER and CLUSNL
(REPOS and REPOSNL for the queue manager), as IBM's "Using namelists in clusters" has it: the
cluster CLUSTER names, or every cluster in the namelist CLUSNL names. Every reader (own
clusters and records, the repository manager's targets, trust, routing, DISPLAY) goes
through it, so an object in a namelist's clusters is in each of them: a CLUSRCVR with CLUSNL
is the member's door in every one (its record published in each), a queue with CLUSNL has a
record in each. The namelist is read whenever the question is asked: ALTER NAMELIST changes
the records at once, and the repository manager publishes the change as any other. A
namelist that does not exist (yet, or any more) names no cluster.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core.namelist import NAMELIST
from spark_mq.embedded.server.core.qmgr_attributes import identifier
from spark_mq.embedded.server.core.state import FeatureState, QueueManagerState

CLUSQMGR, CLUSQ = "CLUSQMGR", "CLUSQ"
KINDS = frozenset({CLUSQMGR, CLUSQ})
#: the store kind of a cluster this queue manager is suspended from (SUSPEND QMGR)
SUSPENDED = "CLUSSUSP"
#: the CLUSRCVR attributes a member publishes: what the others' CLUSSDRA are made of
#: (CLUSNL is not: a namelist's name means nothing to the partner, the record's CLUSTER does)
_SENDER_KEYS = tuple(key for key in channels.CLUSSDR_ATTRIBUTES
                     if key not in ("DESCR", "CLUSNL"))
#: a clustered queue's attributes as DISPLAY QCLUSTER shows them (besides its names)
_QUEUE_KEYS = ("DEFBIND", "DEFPRTY", "DEFPSIST", "PUT", "CLWLPRTY", "CLWLRANK", "DESCR")
_CLUSTERED_QUEUES = ("QLOCAL", "QALIAS", "QREMOTE")


def _text(attrs: dict[str, Any], key: str) -> str:
    return str(attrs.get(key, "") or "").strip()


#: the names each kind of record must carry, as text, to be kept at all
_REQUIRED = {CLUSQMGR: ("CLUSTER", "CLUSQMGR", "CHANNEL", "QMTYPE"),
             CLUSQ: ("CLUSTER", "CLUSQMGR", "QUEUE")}


def well_formed(record: object) -> bool:
    """A record a partner sent that this queue manager can keep: a known kind with its names
    as non-blank text (anything else is dropped, never a failure of the repository manager)."""
    if not isinstance(record, dict):
        return False
    required = _REQUIRED.get(str(record.get("KIND")))
    return required is not None and all(
        isinstance(record.get(key), str) and record[key].strip() for key in required)


def key_of(record: dict[str, Any]) -> str:
    """The store name of a record: cluster, member and (for a queue) queue."""
    if record["KIND"] == CLUSQ:
        return f"{record['CLUSTER']}/{record['CLUSQMGR']}/{record['QUEUE']}"
    return f"{record['CLUSTER']}/{record['CLUSQMGR']}"


def clusters_of(qm: QueueManagerState, attrs: dict[str, Any], single: str = "CLUSTER",
                namelist: str = "CLUSNL") -> list[str]:
    """The clusters an object with `attrs` is in: the one its `single` attribute names, else
    each name in the namelist its `namelist` attribute names (REPOS and REPOSNL for the queue
    manager). definitions.py refuses both set; a blank name in the namelist is no cluster."""
    cluster = _text(attrs, single)
    if cluster:
        return [cluster]
    listed = _text(attrs, namelist)
    found = NAMELIST.find(qm, listed) if listed else None
    if found is None:
        return []
    names = (str(name).strip() for name in found.get("NAMES", []))
    return list(dict.fromkeys(name for name in names if name))


def in_cluster(qm: QueueManagerState, attrs: dict[str, Any], cluster: str) -> bool:
    """An object with `attrs` is in `cluster` (by CLUSTER or through CLUSNL)."""
    return cluster in clusters_of(qm, attrs)


def is_full_repository(qm: QueueManagerState, cluster: str) -> bool:
    return cluster in clusters_of(qm, qm.attrs, "REPOS", "REPOSNL")


def own_clusters(qm: QueueManagerState) -> dict[str, str]:
    """cluster -> the name of this queue manager's CLUSRCVR in it (its door)."""
    found: dict[str, str] = {}
    for name, attrs in sorted(channels.table(qm).channels.items()):
        if attrs.get("CHLTYPE") == channels.CLUSRCVR:
            for cluster in clusters_of(qm, attrs):
                found.setdefault(cluster, name)
    return found


def manual_senders(qm: QueueManagerState, cluster: str) -> list[str]:
    """The CLUSSDR channels defined here (by hand) in `cluster`, by name."""
    return [name for name, attrs in sorted(channels.table(qm).channels.items())
            if attrs.get("CHLTYPE") == channels.CLUSSDR and in_cluster(qm, attrs, cluster)]


def own_records(qm: QueueManagerState, cluster: str) -> list[dict[str, Any]]:
    """What this queue manager publishes in `cluster`: its CLUSRCVR and its clustered queues
    (none when it has no CLUSRCVR there: it is not a member)."""
    door = own_clusters(qm).get(cluster)
    if door is None:
        return []
    attrs = channels.table(qm).channels[door]
    # the channel's attributes first: its CLUSTER is blank when it names a namelist
    records: list[dict[str, Any]] = [{
        **{key: attrs[key] for key in _SENDER_KEYS if key in attrs},
        "KIND": CLUSQMGR, "CLUSTER": cluster, "CLUSQMGR": qm.name, "QMID": identifier(qm),
        "CHANNEL": door, "QMTYPE": "REPOS" if is_full_repository(qm, cluster) else "NORMAL",
        "SUSPEND": "YES" if cluster in _SUSPENDED.of(qm) else "NO"}]
    for name in sorted(qm.queues):
        queue = qm.queues[name]
        if queue.kind in _CLUSTERED_QUEUES and in_cluster(qm, queue.attrs, cluster):
            records.append({
                "KIND": CLUSQ, "CLUSTER": cluster, "CLUSQMGR": qm.name, "QMID": identifier(qm),
                "QUEUE": name, "CLUSQT": queue.kind,
                **{key: queue.attrs[key] for key in _QUEUE_KEYS if key in queue.attrs}})
    return records


def suspended(record: dict[str, Any]) -> bool:
    """A member SUSPEND QMGR took out of the cluster's workload, by its queue-manager record
    (key SUSPEND, YES or NO as DISPLAY CLUSQMGR shows it): IBM's workload algorithm sends
    to it only when no other instance is there."""
    return record.get("SUSPEND") == "YES"


def suspend(qm: QueueManagerState, cluster: str, yes: bool) -> None:
    """SUSPEND QMGR (`yes`) or RESUME QMGR in `cluster`: its own record says so from now
    on (the repository manager publishes the change), and after a restart."""
    clusters = _SUSPENDED.of(qm)
    if yes and cluster not in clusters:
        clusters.add(cluster)
        qm.store.save_object(SUSPENDED, cluster, {"SUSPEND": "YES"})
    elif not yes and cluster in clusters:
        clusters.discard(cluster)
        qm.store.delete_object(SUSPENDED, cluster)


_SUSPENDED: FeatureState[set[str]] = FeatureState(
    "suspended clusters", lambda qm: {name for kind, name, _ in qm.store.objects()
                                      if kind == SUSPENDED})


class _Learned:
    """The records learned from other members, by store name (loaded once from the store)."""

    def __init__(self, qm: QueueManagerState) -> None:
        self.records: dict[str, dict[str, Any]] = {
            name: attrs for kind, name, attrs in qm.store.objects() if kind in KINDS}


_LEARNED: FeatureState[_Learned] = FeatureState("cluster records", _Learned)


def learned(qm: QueueManagerState) -> list[dict[str, Any]]:
    """Every record learned from the other members (under the queue manager's lock)."""
    return list(_LEARNED.of(qm).records.values())


def learn(qm: QueueManagerState, cluster: str, records: Iterable[dict[str, Any]],
          replaces: str = "") -> int:
    """Keep `records` of `cluster` (none about this queue manager: its own are its
    definitions); with `replaces` (a member's name) they are everything that member now
    publishes there, so what else was known about it there is forgotten. Returns the
    number of records that changed."""
    known = _LEARNED.of(qm).records
    fresh = {key_of(record): record for record in records
             if well_formed(record) and record["CLUSTER"] == cluster
             and record["CLUSQMGR"] != qm.name}
    changed = 0
    if replaces:
        for key, old in list(known.items()):
            if old["CLUSTER"] == cluster and old["CLUSQMGR"] == replaces and key not in fresh:
                del known[key]
                qm.store.delete_object(old["KIND"], key)
                changed += 1
    for key, record in fresh.items():
        if known.get(key) != record:
            known[key] = record
            qm.store.save_object(record["KIND"], key, record)
            changed += 1
    return changed


def members(qm: QueueManagerState, cluster: str) -> list[dict[str, Any]]:
    """The queue-manager records of `cluster`, this queue manager's first."""
    return [record for record in own_records(qm, cluster) + learned(qm)
            if record["KIND"] == CLUSQMGR and record["CLUSTER"] == cluster]


def full_repositories(qm: QueueManagerState, cluster: str) -> list[dict[str, Any]]:
    """The other members of `cluster` known to be full repositories."""
    return [record for record in members(qm, cluster)
            if record["QMTYPE"] == "REPOS" and record["CLUSQMGR"] != qm.name]


def auto_sender(qm: QueueManagerState, name: str) -> dict[str, Any] | None:
    """The auto-defined cluster-sender (DEFTYPE CLUSSDRA) `name`: a CLUSSDR built from the
    learned CLUSRCVR of that name, or None when no member published one."""
    for record in learned(qm):
        if record["KIND"] == CLUSQMGR and record.get("CHANNEL") == name:
            attrs = channels.default_attributes(channels.CLUSSDR)
            # a value of another type than the attribute's (a partner's mistake or worse)
            # leaves the default: the channel agent reads these as they are typed here
            attrs.update({key: record[key] for key in _SENDER_KEYS
                          if key in record and type(record[key]) is type(attrs.get(key))})
            attrs["CHLTYPE"] = channels.CLUSSDR
            return attrs
    return None
