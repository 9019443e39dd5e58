"""The instance of a cluster queue a put here reaches: the candidates gathered from the
cluster records, the channel status table and this queue manager's own definitions, and
IBM's workload algorithm (workload.py) run over them (in the queue-manager process, under
its lock). resolution/names.py calls `route` through its `cluster_route` hook: at MQOPEN,
and again at each put of a handle bound MQOO_BIND_NOT_FIXED, or at each new group of one
bound MQOO_BIND_ON_GROUP.

A remote candidate is a queue record of a member in a cluster this queue manager is in,
together with that member's queue-manager record there (its CLUSRCVR: CLWLRANK, CLWLPRTY,
CLWLWGHT, NETPRTY, SUSPEND) and the status of the
cluster-sender of that name here (none: INACTIVE). The local candidate, when the caller
gives a local queue that names a cluster here (in CLUSTER, or through CLUSNL: records.py
`clusters_of`), is that queue with this queue manager's own CLUSRCVR in that cluster. A
queue two shared clusters both advertise is one instance.

`member` is the way to a queue manager an application names in ObjectQMgrName: its
queue-manager records in this queue manager's clusters, whatever queues it hosts. The target
is named, so no instance is chosen and SUSPEND does not count; of several channels to it
(one per cluster both are in), IBM's channel rules (rank, status, NETPRTY, priority) pick one.
"""
from __future__ import annotations

from typing import Any

from spark_mq.embedded.server.clusters import records
from spark_mq.embedded.server.clusters.workload import (
    ANY,
    LOCAL,
    History,
    Instance,
    choose,
    uses_local,
)
from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core import channel_status as statuses
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.queue_objects import LocalQueue
from spark_mq.embedded.server.core.state import FeatureState, QueueManagerState
from spark_mq.mqi.constants import CMQC

_HISTORY: FeatureState[History] = FeatureState("cluster workload", lambda qm: History())


def _number(attrs: dict[str, Any], key: str, default: int) -> int:
    """A workload attribute as a number; a record's odd value counts as the default."""
    value = attrs.get(key, default)
    return value if type(value) is int else default


def _text(attrs: dict[str, Any], key: str, default: str = "") -> str:
    return str(attrs.get(key, default) or default).strip()


def _channel_part(attrs: dict[str, Any]) -> dict[str, Any]:
    return {"channel_rank": _number(attrs, "CLWLRANK", 0),
            "channel_priority": _number(attrs, "CLWLPRTY", 0),
            "weight": _number(attrs, "CLWLWGHT", 50),
            "net_priority": _number(attrs, "NETPRTY", 0)}


def _queue_part(attrs: dict[str, Any]) -> dict[str, Any]:
    return {"put_enabled": _text(attrs, "PUT", "ENABLED") == "ENABLED",
            "queue_rank": _number(attrs, "CLWLRANK", 0),
            "queue_priority": _number(attrs, "CLWLPRTY", 0),
            "defbind": _text(attrs, "DEFBIND", "OPEN")}


def _channel_state(qm: QueueManagerState, channel: str) -> str:
    status = statuses.table(qm).get(channel, channels.CLUSSDR)
    return status.status if status is not None else statuses.INACTIVE


def candidates(qm: QueueManagerState, name: str,
               local: LocalQueue | None = None) -> list[Instance]:
    """Every instance of cluster queue `name` this queue manager could put to."""
    mine = records.own_clusters(qm)
    learned = records.learned(qm)
    members = {(r["CLUSTER"], r["CLUSQMGR"]): r for r in learned if r["KIND"] == records.CLUSQMGR}
    found: dict[tuple[str, str], Instance] = {}
    for record in learned:
        member = members.get((record["CLUSTER"], record["CLUSQMGR"]))
        if (record["KIND"] != records.CLUSQ or record["QUEUE"] != name or member is None
                or record["CLUSTER"] not in mine):
            continue
        channel = str(member["CHANNEL"])
        # a queue in two clusters both are in (CLUSNL) is one instance behind one channel,
        # not two: counted twice it would take two turns of the least recently used rule
        found.setdefault((record["CLUSQMGR"], channel), Instance(
            record["CLUSQMGR"], channel, channel_status=_channel_state(qm, channel),
            suspended=records.suspended(member),
            **_queue_part(record), **_channel_part(member)))
    return sorted([*found.values(), *_local_candidate(qm, mine, local)],
                  key=lambda i: (i.qmgr, i.channel))


def _local_candidate(qm: QueueManagerState, mine: dict[str, str],
                     local: LocalQueue | None) -> list[Instance]:
    """The local queue as an instance, behind this queue manager's CLUSRCVR in the first of
    its clusters this queue manager is a member of (none: it is in no cluster here)."""
    if local is None:
        return []
    door = next((mine[cluster] for cluster in records.clusters_of(qm, local.attrs)
                 if cluster in mine), None)
    if door is None:
        return []
    return [Instance(
        qm.name, local=True, use_queue=_text(local.attrs, "CLWLUSEQ", "QMGR"),
        **_queue_part(local.attrs), **_channel_part(channels.table(qm).channels[door]))]


def route(qm: QueueManagerState, name: str,
          local: LocalQueue | None = None) -> tuple[str, str, str] | None:
    """(the queue manager whose instance of `name` a put reaches, the channel there (blank:
    the local instance), that instance's DEFBIND); None when no record knows the queue
    elsewhere. Every candidate put-inhibited: 2268 MQRC_CLUSTER_PUT_INHIBITED."""
    found = candidates(qm, name, local)
    if not any(not i.local for i in found):
        return None
    history = _HISTORY.of(qm)
    history.notice(found)
    useq = ANY if _text(qm.attrs, "CLWLUSEQ", LOCAL) == ANY else LOCAL
    chosen = choose(found, history, useq, _number(qm.attrs, "CLWLMRUC", 999_999_999))
    assert chosen is not None
    if not chosen.put_enabled and not chosen.local:
        raise MQError(CMQC.MQRC_CLUSTER_PUT_INHIBITED)
    if not (chosen.local and uses_local(chosen.use_queue, useq)):
        history.chose(chosen)   # the local rule ends the algorithm before its last step
    return chosen.qmgr, chosen.channel, chosen.defbind


def member(qm: QueueManagerState, qmgr_name: str) -> str | None:
    """The cluster-sender (its name: the member's CLUSRCVR) that carries messages for
    cluster queue manager `qmgr_name`; None when no record of a cluster here knows it."""
    mine = records.own_clusters(qm)
    found = [Instance(qmgr_name, str(record["CHANNEL"]),
                      channel_status=_channel_state(qm, str(record["CHANNEL"])),
                      **_channel_part(record))
             for record in records.learned(qm)
             if record["KIND"] == records.CLUSQMGR and record["CLUSQMGR"] == qmgr_name
             and record["CLUSTER"] in mine]
    chosen = choose(found, History(), LOCAL)
    return chosen.channel if chosen is not None else None
