"""The repository manager (IBM MQ's amqrrmfa): how a queue manager joins its clusters and
keeps its cluster records (clusters/records.py), in the queue-manager process.

Its messages travel as IBM's do: each is put, behind an MQXQH naming the partner's
SYSTEM.CLUSTER.COMMAND.QUEUE, on SYSTEM.CLUSTER.TRANSMIT.QUEUE with the CorrelId of the
cluster-sender that is to carry it (sender.py), and the partner's repository manager reads
it from its command queue. The MQXQH names no queue manager: a command is for whoever is at
the other end of the channel, so a member can speak to a full repository through its
manual CLUSSDR before it knows that queue manager's name. The bodies are JSON (IBM's are
its own binary) and are read only by this module:

    {"type": "publish" | "reply" | "remove" | "query", "cluster": ..., "origin": ...,
     "from": ..., "full": bool, "forwarded": bool, "records": [...]}
    (a removal: also "queues": bool; a query: "queue": name; its answer: "asked": name)

What each member does, as IBM's "How clusters work" describes it:

- it *publishes* its own records in a cluster (its CLUSRCVR and its clustered queues: all of
  them, so the receiver replaces what it knew of it) to the full repositories it knows: at
  first through its manual CLUSSDR channels, then through auto-defined cluster-senders
  (DEFTYPE CLUSSDRA) to the full repositories it learned of. A partial repository uses two
  full repositories, as IBM's does; a full repository publishes to every other one. A
  publication is sent again only when the records change (its digest is remembered per
  channel while the queue manager runs; a restart publishes once more, which changes
  nothing at the partner).
- a full repository that receives a member's publication keeps it, *forwards* it to the
  other full repositories it knows (unless it was itself forwarded, or came from a full
  repository, which publishes to all of them itself), and *replies*: to a full repository
  with every record it has of the cluster, to a partial repository with the records of the
  full repositories (so that it learns of the second one); a partial learns of other
  members' queues when it asks: an MQOPEN of a name it does not know sends a *query* to
  the full repositories it publishes to (clusters/interest.py), answered with the
  queue's instances and their hosts' records (or nothing).
- a reply is only kept: nobody answers it.
- RESET CLUSTER ACTION(FORCEREMOVE) on a full repository (clusters/membership.py) sends a
  *removal* of the member to every other member it knew, who forget it (its queues too for
  QUEUES(YES)); REFRESH CLUSTER publishes once more (its epoch is part of the digest).
- nothing is kept on the word of the command itself (clusters/trust.py): the receiving MCA
  of the CLUSRCVR vouches for who sent each command (its channel and partner), a member
  publishes only its own records, only a known full repository forwards or replies, and a
  command put on the queue by anyone else (a local application) is refused, as is one too
  big to keep. A member publishes before it forwards anything, so that the other full
  repositories know it as one (its own record) when its forwards arrive.

Records learned are kept by clusters/records.py (on SYSTEM.CLUSTER.REPOSITORY.QUEUE); the
channel initiator starts the cluster-sender of every message put here (initiator.py's
cluster trigger).
"""
from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from spark_mq.embedded.server.clusters import interest, membership, trust
from spark_mq.embedded.server.clusters import records as cluster_records
from spark_mq.embedded.server.clusters.definitions import CLUSTER_XMITQ
from spark_mq.embedded.server.core.md_context import put_stamp
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.message_channels.sender import cluster_correl_id
from spark_mq.embedded.server.resolution.transmission import wrap
from spark_mq.embedded.server.verbs.local_connection import LocalConnection
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import MD, default_md

if TYPE_CHECKING:
    from spark_mq.embedded.server.verbs.qmgr import QueueManager

log = logging.getLogger("spark_mq.embedded")

COMMAND_QUEUE = trust.COMMAND_QUEUE
_I = MD.index
_WAIT_MS = 200          # a waiting get on the command queue: also how often it publishes
_PARTIAL_FULL_REPOSITORIES = 2   # IBM: a partial repository publishes to two of them
_GET = CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING
_ENDING = frozenset({CMQC.MQRC_Q_MGR_QUIESCING, CMQC.MQRC_Q_MGR_STOPPING,
                     CMQC.MQRC_CONNECTION_BROKEN})


class RepositoryManager:
    def __init__(self, qmgr: QueueManager, start_channel: Callable[[str, bool], str]) -> None:
        """`start_channel(name, triggered)`: the channel initiator's, for the cluster-sender
        that is to carry a message."""
        self.qmgr, self.start_channel = qmgr, start_channel
        self.sent: dict[tuple[str, str], str] = {}   # (cluster, channel) -> digest sent
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="repository-manager",
                                       daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self.thread.is_alive():
            self.thread.join(5)

    def _run(self) -> None:
        """While the queue manager is in no cluster it has no connection of its own (the
        connection count and the command queue's IPPROCS stay as they were)."""
        local: LocalConnection | None = None
        hobj = 0
        try:
            while not self._stop.is_set():
                with self.qmgr.lock:
                    member = bool(cluster_records.own_clusters(self.qmgr))
                if not member:
                    if local is not None:
                        local.close()
                        local = None
                    self._stop.wait(_WAIT_MS / 1000)
                    continue
                if local is None:
                    local = LocalConnection(self.qmgr, "mqm", "amqrrmfa")
                    hobj = local.open(COMMAND_QUEUE,
                                      CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_FAIL_IF_QUIESCING)
                got = local.get(hobj, _GET, _WAIT_MS)
                with self.qmgr.lock:
                    # its own records first: a forward it is about to send follows them
                    self._publish(local)
                    self._send_removals(local)
                    self._send_queries(local)
                    if got is not None:
                        self._received(local, got.md[_I["MsgId"]], got.data)
        except MQError as exc:
            if exc.reason not in _ENDING:
                log.error("the repository manager ended: MQ reason %d", exc.reason)
        finally:
            if local is not None:
                local.close()

    # --- publishing ------------------------------------------------------------------------
    def _publish(self, local: LocalConnection) -> None:
        for cluster in cluster_records.own_clusters(self.qmgr):
            mine = cluster_records.own_records(self.qmgr, cluster)
            # REFRESH CLUSTER moves the epoch on: the same records are published once more
            digest = hashlib.sha256(json.dumps(
                [mine, membership.epoch(self.qmgr, cluster)], sort_keys=True).encode()).hexdigest()
            for channel in self._targets(cluster):
                if self.sent.get((cluster, channel)) != digest:
                    self._send(local, channel, self._message("publish", cluster, mine))
                    self.sent[(cluster, channel)] = digest

    def _send_removals(self, local: LocalConnection) -> None:
        """RESET CLUSTER's removals, to every other member the full repository knew."""
        for removal in membership.removals(self.qmgr):
            message = self._message("remove", removal["cluster"], [], removal["name"])
            message["queues"] = removal["queues"]
            for channel in removal["channels"]:
                self._send(local, channel, message)

    def _send_queries(self, local: LocalConnection) -> None:
        """The queues opens here wait for, asked of the full repositories it publishes to."""
        for name in interest.to_ask(self.qmgr):
            for cluster in interest.partial_clusters(self.qmgr):
                message = self._message("query", cluster, [])
                message["queue"] = name
                for channel in self._targets(cluster):
                    self._send(local, channel, message)

    def _targets(self, cluster: str) -> list[str]:
        """The channels to the full repositories this queue manager publishes to in
        `cluster`: its manual CLUSSDRs first, then the auto-defined ones it learned."""
        qm = self.qmgr
        door = cluster_records.own_clusters(qm).get(cluster)
        found = cluster_records.manual_senders(qm, cluster)
        for record in cluster_records.full_repositories(qm, cluster):
            if record["CHANNEL"] not in found:
                found.append(record["CHANNEL"])
        found = [name for name in found if name != door]
        if cluster_records.is_full_repository(qm, cluster):
            return found
        return found[:_PARTIAL_FULL_REPOSITORIES]

    def _message(self, kind: str, cluster: str, records: list[dict[str, Any]],
                 origin: str = "", forwarded: bool = False) -> dict[str, Any]:
        return {"type": kind, "cluster": cluster, "origin": origin or self.qmgr.name,
                "from": self.qmgr.name, "full": cluster_records.is_full_repository(
                    self.qmgr, cluster), "forwarded": forwarded, "records": records}

    def _send(self, local: LocalConnection, channel: str, message: dict[str, Any]) -> None:
        """Put `message` for the partner at the other end of cluster-sender `channel`, and
        have the channel run."""
        qm = self.qmgr
        body = json.dumps(message).encode()
        md = default_md(Format=CMQC.MQFMT_STRING, CodedCharSetId=1208,
                        Persistence=CMQC.MQPER_PERSISTENT, MsgId=qm.new_msgid())
        date, hms = put_stamp(int(time.time()))
        outer, data = wrap(qm.name, COMMAND_QUEUE, "", md, body, qm.new_msgid(), date,
                           hms + b"00")
        outer[_I["CorrelId"]] = cluster_correl_id(channel)
        local.put1(CLUSTER_XMITQ, "", outer, CMQC.MQPMO_NO_SYNCPOINT, None, data)
        try:
            self.start_channel(channel, True)
        except ValueError as exc:   # e.g. its definition went: the trigger tries again
            log.warning("cluster-sender channel %s not started: %s", channel, exc)

    # --- receiving -------------------------------------------------------------------------
    def _received(self, local: LocalConnection, msg_id: bytes, data: bytes) -> None:
        qm = self.qmgr
        sender = trust.attested(qm, msg_id)
        message = self._parsed(sender, data)
        if message is None:
            return
        kind, cluster, origin = message["type"], message["cluster"], message["origin"]
        if sender is None:
            trust.log_refused(qm, None, origin, "")
            return
        records = [record for record in message["records"]
                   if cluster_records.well_formed(record)]
        why = trust.refusal(qm, sender, message, records)
        if why:
            trust.log_refused(qm, sender, origin, why)
            return
        if cluster not in cluster_records.own_clusters(qm):
            log.warning("%s: a cluster command for cluster %s, of which queue manager %s is "
                        "not a member (it has no CLUSRCVR there), is discarded", COMMAND_QUEUE,
                        cluster, qm.name)
            return
        if kind == "reply":
            cluster_records.learn(qm, cluster, records)
            if isinstance(message.get("asked"), str):
                interest.answered(qm, message["asked"])
            return
        if kind == "query":
            self._answer(local, cluster, origin, message["queue"])
            return
        if kind == "remove":
            removed = membership.forget(qm, cluster, origin, message.get("queues") is True)
            log.info("cluster %s: queue manager %s removed by full repository %s (RESET "
                     "CLUSTER): %d records forgotten", cluster, origin, sender.partner, removed)
            return
        changed = cluster_records.learn(qm, cluster, records, replaces=origin)
        if changed:
            log.info("cluster %s: the records of queue manager %s changed (%d)", cluster,
                     origin, changed)
        if not cluster_records.is_full_repository(qm, cluster) or message.get("forwarded"):
            return
        # a full repository by its own record, not by the message's word
        full = any(record["KIND"] == cluster_records.CLUSQMGR and record["QMTYPE"] == "REPOS"
                   for record in records)
        if not full:
            forward = self._message("publish", cluster, records, origin, forwarded=True)
            for record in cluster_records.full_repositories(qm, cluster):
                if record["CLUSQMGR"] not in (origin, sender.partner):
                    self._send(local, record["CHANNEL"], forward)
        self._reply(local, cluster, origin, full)

    def _parsed(self, sender: trust.Sender | None, data: bytes) -> dict[str, Any] | None:
        """The body of a cluster command, bounded; None (logged) when it is none or too big."""
        too_big = trust.oversized(data, None)
        try:
            message = None if too_big else json.loads(data)
            if not too_big:
                if not isinstance(message, dict) or not isinstance(message["records"], list):
                    raise TypeError("a cluster command is an object with a list of records")
                if not all(isinstance(message[key], str)
                           for key in ("type", "cluster", "origin")):
                    raise TypeError("type, cluster and origin are names")
                too_big = trust.oversized(data, message["records"])
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("%s: a message that is not a cluster command is discarded (%s)",
                        COMMAND_QUEUE, exc)
            return None
        if too_big:
            claimed = str(message.get("origin", ""))[:48] if message else ""
            trust.log_refused(self.qmgr, sender, claimed, f"a command of {too_big}")
            return None
        return message

    def _answer(self, local: LocalConnection, cluster: str, origin: str, name: str) -> None:
        """A full repository's answer to a partial's query for queue `name` (maybe empty)."""
        qm = self.qmgr
        channel = next((record["CHANNEL"] for record in cluster_records.members(qm, cluster)
                        if record["CLUSQMGR"] == origin), "")
        if not cluster_records.is_full_repository(qm, cluster) or not channel:
            return
        reply = self._message("reply", cluster, interest.answer(qm, cluster, name))
        reply["asked"] = name
        self._send(local, channel, reply)

    def _reply(self, local: LocalConnection, cluster: str, origin: str, full: bool) -> None:
        """What a full repository answers a member's publication with: everything it has of
        the cluster (to a full repository), the full repositories' records (to a partial)."""
        qm = self.qmgr
        everything = cluster_records.own_records(qm, cluster) + [
            record for record in cluster_records.learned(qm) if record["CLUSTER"] == cluster]
        answer = everything if full else [
            record for record in everything if record["KIND"] == cluster_records.CLUSQMGR
            and record["QMTYPE"] == "REPOS"]
        channel = next((record["CHANNEL"] for record in cluster_records.members(qm, cluster)
                        if record["CLUSQMGR"] == origin), "")
        if channel:
            self._send(local, channel, self._message("reply", cluster, answer))
