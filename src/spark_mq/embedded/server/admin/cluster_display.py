"""DISPLAY CLUSQMGR and DISPLAY QCLUSTER (also DISPLAY QUEUE(...) TYPE(QCLUSTER)): what this
queue manager's repository holds (clusters/records.py), as IBM's runmqsc shows it (IBM docs,
"DISPLAY CLUSQMGR", "DISPLAY QUEUE": the QCLUSTER parameters).

A full repository shows every member and clustered queue of its clusters; a partial one
itself, the full repositories it learned of and the queues it has an interest in. Without ALL
or named fields a queue manager shows CHANNEL and CLUSTER, a queue CLUSQMGR and CLUSTER,
beside the name, as runmqsc does. A CLUSTER(name) or CLUSQMGR(name) given with the command
selects.

DEFTYPE is IBM's: CLUSRCVR for this queue manager's own entry, CLUSSDRA for a member reached
by an auto-defined cluster-sender, CLUSSDRB when a CLUSSDR was also defined by hand, and
CLUSSDR for a manual cluster-sender whose partner is not known yet (CLUSQMGR
SYSTEM.TEMPQMGR.<conname>, as IBM names it). An object in a namelist's clusters (CLUSNL,
REPOSNL: clusters/records.py `clusters_of`) shows one entry in each, as IBM's does.
"""
from __future__ import annotations

import fnmatch
from typing import Any

from spark_mq.embedded.server.clusters import records as cluster_records
from spark_mq.embedded.server.clusters.definitions import CLUSTER_XMITQ
from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core import channel_status as statuses
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand
from spark_mq.embedded.server.core.runmqsc_layout import format_display
from spark_mq.embedded.server.core.state import QueueManagerState

_QMGR_ALWAYS = ("CHANNEL", "CLUSTER")
_QUEUE_ALWAYS = ("CLUSQMGR", "CLUSTER")
_INTERNAL = ("KIND", "CHLTYPE")


def display_clusqmgr(qm: QueueManagerState, command: MQSCCommand) -> str:
    rows = [(record["CLUSQMGR"], record) for record in cluster_qmgr_rows(qm)
            if _selected(record, command, record["CLUSQMGR"])]
    if not rows:
        raise ValueError(f"AMQ8147E: IBM MQ object {command.name} not found.")
    return "\n".join(format_display("CLUSQMGR", name, _shown(record, command.flags, _QMGR_ALWAYS,
                                                               "CLUSQMGR"))
                     for name, record in rows)


def display_qcluster(qm: QueueManagerState, command: MQSCCommand) -> str:
    rows = [record for record in _queue_rows(qm)
            if _selected(record, command, record["QUEUE"])]
    if not rows:
        raise ValueError(f"AMQ8147E: IBM MQ object {command.name} not found.")
    return "\n".join(format_display("QCLUSTER", record["QUEUE"],
                                    _shown(record, command.flags, _QUEUE_ALWAYS, "QUEUE"))
                     for record in rows)


def _selected(record: dict[str, Any], command: MQSCCommand, name: str) -> bool:
    if not fnmatch.fnmatchcase(name, command.name or "*"):
        return False
    return all(str(command.attributes[key]).strip() == record.get(key)
               for key in ("CLUSTER", "CLUSQMGR") if command.attributes.get(key))


def _shown(record: dict[str, Any], flags: frozenset[str], always: tuple[str, ...],
           name_key: str) -> dict[str, Any]:
    shown = {key: value for key, value in record.items()
             if key not in _INTERNAL and key != name_key}
    if "ALL" in flags:
        return shown
    return {key: value for key, value in shown.items() if key in always or key in flags}


def cluster_qmgr_rows(qm: QueueManagerState) -> list[dict[str, Any]]:
    """Every entry DISPLAY CLUSQMGR(*) ALL shows (PCF's Inquire Cluster Queue Manager too)."""
    manual = {name: attrs for name, attrs in channels.table(qm).channels.items()
              if attrs.get("CHLTYPE") == channels.CLUSSDR}
    rows, known = [], set()
    for cluster in sorted(cluster_records.own_clusters(qm)):
        for record in cluster_records.members(qm, cluster):
            channel = record["CHANNEL"]
            own = record["CLUSQMGR"] == qm.name
            known.add(channel)
            deftype = "CLUSRCVR" if own else "CLUSSDRB" if channel in manual else "CLUSSDRA"
            rows.append({**record, "DEFTYPE": deftype,
                         "SUSPEND": "YES" if cluster_records.suspended(record) else "NO",
                         "STATUS": _status(qm, channel, channels.CLUSRCVR if own
                                           else channels.CLUSSDR),
                         "XMITQ": "" if own else CLUSTER_XMITQ})
    for name, attrs in sorted(manual.items()):
        if name not in known:
            rows += _unanswered(qm, name, attrs)
    return rows


def _unanswered(qm: QueueManagerState, name: str, attrs: dict[str, Any]) -> list[dict[str, Any]]:
    """A manual CLUSSDR whose partner has not answered: one SYSTEM.TEMPQMGR entry in each
    of its clusters (a CLUSNL namelist's each), as IBM shows one entry per cluster."""
    conname = str(attrs.get("CONNAME", "")).strip()
    shown = {key: value for key, value in attrs.items()
             if key not in ("PASSWORD", "USERID", "CLUSNL")}
    return [{**shown, "KIND": cluster_records.CLUSQMGR, "CHANNEL": name, "CLUSTER": cluster,
             "CLUSQMGR": f"SYSTEM.TEMPQMGR.{conname}", "DEFTYPE": "CLUSSDR",
             "QMTYPE": "REPOS", "SUSPEND": "NO", "XMITQ": CLUSTER_XMITQ,
             "STATUS": _status(qm, name, channels.CLUSSDR)}
            for cluster in cluster_records.clusters_of(qm, attrs) or [""]]


def _status(qm: QueueManagerState, channel: str, chltype: str) -> str:
    status = statuses.table(qm).get(channel, chltype)
    return status.status if status is not None else statuses.INACTIVE


def _queue_rows(qm: QueueManagerState) -> list[dict[str, Any]]:
    rows = []
    for cluster in sorted(cluster_records.own_clusters(qm)):
        rows += [record for record in cluster_records.own_records(qm, cluster)
                 if record["KIND"] == cluster_records.CLUSQ]
    rows += [record for record in cluster_records.learned(qm)
             if record["KIND"] == cluster_records.CLUSQ]
    return sorted(rows, key=lambda record: (record["QUEUE"], record["CLUSTER"],
                                            record["CLUSQMGR"]))
