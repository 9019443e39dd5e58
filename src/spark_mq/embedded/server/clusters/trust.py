"""Trust between cluster members: which cluster command a queue manager keeps, judged by who
the channel says sent it, not by what the command says of itself (runs in the queue-manager
process; DESIGN.md, "A channel partner is a stranger until proven otherwise").

IBM ties a repository record to the queue manager that owns it, and a member publishes only
its own records (IBM docs, "How clusters work", "Cluster repository"; for whom a queue
manager is: "Preventing queue managers joining a cluster": CHLAUTH by address, queue-manager
name or TLS DN, or an exit on the CLUSRCVR). Here:

- *Who sent it* is what the receiving MCA learned in the channel's own handshake: the
  channel (a CLUSRCVR) and the partner's queue-manager name, as the channel admitted it
  (CHLAUTH QMGRMAP and SSLPEERMAP take it as a rule input, SSLPEER checks the certificate:
  the name is as strong as that, a bare claim on a channel with no rule and no TLS). The
  receiver (message_channels/receiver.py) gives every message it puts on
  SYSTEM.CLUSTER.COMMAND.QUEUE a fresh random MsgId and `attest`s it with that sender; the
  repository manager takes the attestation back by the MsgId it got (`attested`). The
  attestation is kept in the process, never on the message: nothing a partner sends and
  nothing a local application puts (whatever its context authority) can make one, so a
  command put on the queue by anyone but a cluster-receiver's MCA is refused. Kept in
  memory only: a command that waited on the queue across a restart is refused too (the
  repository manager reads the queue within a fraction of a second; the member publishes
  again when its records change or it restarts).
- *What it may say* (`refusal`): a publication is the partner's own (its origin and every
  record's CLUSQMGR are the partner), and a member's CLUSRCVR name is its own (another
  member's channel name would take that member's auto-defined cluster-senders); a
  forwarded publication comes from a queue manager this one knows as a full repository of
  the cluster through that queue manager's own record (the message's "full" flag is a
  claim, not a record), and carries one member's records; a reply comes from a known full
  repository, or from the queue manager at the other end of this one's manual CLUSSDR in
  the cluster (its first reply is how a new member learns that queue manager's name); a
  removal (RESET CLUSTER) comes from a known full repository; a query (a partial asking
  for a queue at MQOPEN) is the partner's own.
- *How much*: a command of more than MAX_COMMAND_BYTES, more than MAX_RECORDS records or a
  record of more than MAX_RECORD_BYTES is refused before it is kept (`oversized`); a
  channel's MAXMSGL bounds what arrives at all.

A refused command is logged (`log_refused`) naming the channel, the partner and the name
claimed. IBM logs no message of its own for these (its repository manager keeps its
records to itself, and the refusal is ours): the log line says so.
"""
from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import dataclass
from typing import Any

from spark_mq.embedded.server.clusters import records as cluster_records
from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core import channel_status as statuses
from spark_mq.embedded.server.core.state import FeatureState, QueueManagerState

log = logging.getLogger("spark_mq.embedded")

COMMAND_QUEUE = "SYSTEM.CLUSTER.COMMAND.QUEUE"
#: bounds on what one cluster command may hold (ours: IBM's are its own binary)
MAX_COMMAND_BYTES = 8 * 1024 * 1024
MAX_RECORDS = 10_000
MAX_RECORD_BYTES = 8192
#: attestations not yet taken back (a backed-out batch leaves one behind): the oldest go
_ATTESTATIONS = 4096


@dataclass(frozen=True)
class Sender:
    """Who put a cluster command, as the receiving MCA vouches: its channel and partner."""
    channel: str
    partner: str


class _Attestations:
    def __init__(self, qm: QueueManagerState) -> None:
        # the receiver's threads add, the repository manager takes: not under one lock
        self.lock = threading.Lock()
        self.by_msg_id: dict[bytes, Sender] = {}


_ATTESTED: FeatureState[_Attestations] = FeatureState("cluster command senders", _Attestations)


def attest(qm: QueueManagerState, channel: str, partner: str) -> bytes:
    """A fresh MsgId for a message the receiving MCA of cluster-receiver `channel` puts on
    the cluster command queue for `partner`; `attested` gives the sender back for it."""
    msg_id = os.urandom(24)
    state = _ATTESTED.of(qm)
    with state.lock:
        while len(state.by_msg_id) >= _ATTESTATIONS:
            del state.by_msg_id[next(iter(state.by_msg_id))]
        state.by_msg_id[msg_id] = Sender(channel, partner)
    return msg_id


def attested(qm: QueueManagerState, msg_id: bytes) -> Sender | None:
    """Who put the message with `msg_id` (once: the attestation is taken), or None when no
    cluster-receiver's MCA did."""
    state = _ATTESTED.of(qm)
    with state.lock:
        return state.by_msg_id.pop(bytes(msg_id), None)


def oversized(data: bytes, records: object) -> str:
    """Why a command is too big to keep ("" when it is not); `records` as the body has it."""
    if len(data) > MAX_COMMAND_BYTES:
        return f"{len(data)} bytes (at most {MAX_COMMAND_BYTES})"
    if not isinstance(records, list):
        return ""
    if len(records) > MAX_RECORDS:
        return f"{len(records)} records (at most {MAX_RECORDS})"
    for record in records:
        size = len(json.dumps(record, default=str))
        if size > MAX_RECORD_BYTES:
            return f"a record of {size} bytes (at most {MAX_RECORD_BYTES})"
    return ""


def refusal(qm: QueueManagerState, sender: Sender, message: dict[str, Any],
            records: list[dict[str, Any]]) -> str:
    """Why a well-formed cluster command from `sender` must not be kept ("" when it may):
    `message` its body, `records` the well-formed ones in it."""
    kind, cluster = message["type"], message["cluster"]
    partner = sender.partner
    if kind == "reply":
        if _known_full(qm, cluster, partner) or _manual_partner(qm, cluster, partner):
            return ""
        return (f"a reply with cluster {cluster}'s records from {partner}, which this queue "
                f"manager knows neither as a full repository of {cluster} nor as the partner "
                "of its manual cluster-sender there")
    if kind == "query":
        if message["origin"] == partner and _queue_name(message.get("queue")):
            return ""
        return (f"a query for queue {str(message.get('queue'))[:48]!r} in the name of "
                f"{message['origin']}")
    if kind == "remove":
        if _known_full(qm, cluster, partner):
            return ""
        return (f"a removal of {message['origin']} (RESET CLUSTER) from {partner}, which no "
                f"record of its own shows as a full repository of {cluster}")
    if kind != "publish":
        return (f"a command of type {str(kind)[:20]!r} (valid: publish, reply, remove, "
                "query)")
    origin = message["origin"]
    if message.get("forwarded"):
        if not _known_full(qm, cluster, partner):
            return (f"a forwarded publication of {origin} from {partner}, which no record "
                    f"of its own shows as a full repository of {cluster}")
    elif origin != partner:
        return f"a publication in the name of {origin}"
    others = sorted({record["CLUSQMGR"] for record in records} - {origin})
    if others:
        return f"a publication of {origin} with records of {', '.join(others[:3])}"
    return _channel_taken(qm, cluster, origin, records)


def _queue_name(name: object) -> bool:
    return isinstance(name, str) and 0 < len(name) <= 48


def log_refused(qm: QueueManagerState, sender: Sender | None, claimed: str, why: str) -> None:
    """The log line of a refused cluster command (ours: IBM has no message for it)."""
    if sender is None:
        log.warning("%s on %s: a message not put by a cluster-receiver channel's MCA (a local "
                    "application's, or one left from before a restart) is refused, claiming "
                    "%r (spark-mq's refusal; IBM MQ logs no AMQ message for it)",
                    COMMAND_QUEUE, qm.name, claimed)
        return
    log.warning("%s on %s: cluster command refused: cluster-receiver channel %s, partner "
                "queue manager %s, name claimed %r: %s; nothing of it is kept (spark-mq's "
                "refusal; IBM MQ logs no AMQ message for it)", COMMAND_QUEUE, qm.name,
                sender.channel, sender.partner, claimed, why)


def _known_full(qm: QueueManagerState, cluster: str, name: str) -> bool:
    """`name` is a full repository of `cluster` by its own record (learned from it, or
    forwarded by a full repository that learned it from it)."""
    return any(record["CLUSQMGR"] == name
               for record in cluster_records.full_repositories(qm, cluster))


def _manual_partner(qm: QueueManagerState, cluster: str, name: str) -> bool:
    """`name` answered the handshake of one of this queue manager's manual CLUSSDRs in
    `cluster` (the CONNAME its administrator chose)."""
    manual = set(cluster_records.manual_senders(qm, cluster))
    return any(status.name in manual and status.chltype == channels.CLUSSDR
               and status.rqmname == name for status in statuses.table(qm).all())


def _channel_taken(qm: QueueManagerState, cluster: str, origin: str,
                   records: list[dict[str, Any]]) -> str:
    """A CLUSRCVR name another member of `cluster` (this one included) already has: the
    auto-defined cluster-senders are found by channel name."""
    holders = {record["CHANNEL"]: record["CLUSQMGR"]
               for record in cluster_records.members(qm, cluster)
               if record["CLUSQMGR"] != origin}
    for record in records:
        holder = holders.get(record.get("CHANNEL", ""))
        if record["KIND"] == cluster_records.CLUSQMGR and holder:
            return (f"a cluster-receiver channel named {record['CHANNEL']}, which is "
                    f"{holder}'s in cluster {cluster}")
    return ""
