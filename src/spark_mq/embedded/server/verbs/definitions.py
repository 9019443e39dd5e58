"""Object definitions: recovery at start-up, and what MQSC DEFINE/ALTER/DELETE/CLEAR change.

Runs in the queue-manager process, called through `qmgr.QueueManager` by admin.run_mqsc,
which holds the queue manager's lock for the whole script. Failures are `ValueError`s with
the text runmqsc shows, not MQI reasons: these are administration commands, not MQI verbs.

Queue definitions are local, alias, model and remote queues, in one namespace as in MQ; dynamic
queues are local queues that dynamic_queues.py creates and deletes. Channels are stored here
too (kind "CHANNEL", their own namespace) and recovered into core/channel_definitions.py's table, and so
are the security definitions (kinds AUTHINFO, CHLAUTH, AUTHREC: core/security/security_state.py),
namelists and processes (their kinds: core/named_kinds.py).
"""
from __future__ import annotations

import itertools

from spark_mq.embedded.server.clusters import definitions as clusters
from spark_mq.embedded.server.clusters import interest as cluster_interest
from spark_mq.embedded.server.clusters import records as cluster_records
from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core import system_queues
from spark_mq.embedded.server.core.named_kinds import KINDS as NAMED_KINDS
from spark_mq.embedded.server.core.pubsub import storage as pubsub_storage
from spark_mq.embedded.server.core.queue_objects import (
    TEMPORARY_DYNAMIC,
    AliasQueue,
    LocalQueue,
    ModelQueue,
    QueueDefinition,
    RemoteQueue,
)
from spark_mq.embedded.server.core.security import security_state as security
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.embedded.server.resolution import names as resolution_names
from spark_mq.embedded.server.triggering import hook as triggering
from spark_mq.embedded.server.verbs import streaming

#: the class that holds each kind of queue definition
_QUEUE_CLASSES: dict[str, type[QueueDefinition]] = {
    "QLOCAL": LocalQueue, "QALIAS": AliasQueue, "QMODEL": ModelQueue, "QREMOTE": RemoteQueue}

# a put to a cluster queue reaches the instance IBM's workload algorithm chooses (a partial
# repository asks a full repository first for a queue it does not know)
resolution_names.cluster_route = cluster_interest.route
# ObjectQMgrName naming a member of a cluster: the cluster-sender to it
resolution_names.cluster_member = cluster_interest.member


def recover(qm: QueueManagerState) -> None:
    """Reload definitions and persistent messages; uncommitted work was never stored, nor were
    temporary dynamic queues (see save_definition), so a restart has none, as in MQ."""
    pubsub_rows = []
    for kind, name, attrs in qm.store.objects():
        if kind == "QMGR":
            qm.attrs.update(attrs)
        elif kind == "CHANNEL":
            channels.restore(qm, name, attrs)
        elif kind in security.KINDS:
            security.restore(qm, kind, name, attrs)
        elif kind in NAMED_KINDS:
            NAMED_KINDS[kind].restore(qm, name, attrs)
        elif kind in cluster_records.KINDS or kind == cluster_records.SUSPENDED:
            continue   # clusters/records.py reads them when first asked
        elif kind in pubsub_storage.KINDS:
            pubsub_rows.append((kind, name, attrs))  # after the queues: subscriptions name theirs
        else:
            qm.queues[name] = _QUEUE_CLASSES[kind](name, attrs)
    channels.ensure_defaults(qm)
    security.refresh_connauth(qm)  # the CONNAUTH a (re)started queue manager runs with
    pubsub_storage.restore(qm, pubsub_rows)
    pubsub_storage.ensure_system_objects(qm)
    system_queues.ensure(qm)
    # the messages stay in the store: each queue reads its first page at its first get
    depths = qm.store.queue_depths()
    for queue in qm.queues.values():
        if isinstance(queue, LocalQueue):
            qm.back(queue, depths.get(queue.name, 0))
    qm.seq = itertools.count(qm.store.last_seq() + 1)
    system_queues.hold(qm)  # numbered after the stored messages


def define(qm: QueueManagerState, kind: str, name: str, attrs: dict, replace: bool) -> None:
    existing = qm.queues.get(name)
    if existing is not None:
        if not replace:
            raise ValueError(f"{existing.kind}({name}) already exists; use REPLACE")
        if existing.kind != kind:
            raise ValueError(f"{name} exists as {existing.kind}, not {kind}")
    streaming.check_definition(qm, kind, name, attrs, existing)
    clusters.check_queue(kind, name, {**(existing.attrs if existing else {}), **attrs})
    if existing is not None:
        _alter(qm, existing, attrs)
        queue = existing
    else:
        queue = _QUEUE_CLASSES[kind](name, attrs)
        if isinstance(queue, LocalQueue):
            qm.back(queue)
        qm.queues[name] = queue
    save_definition(qm, queue)
    if existing is not None:
        triggering.attributes_changed(qm, queue, attrs)


def alter(qm: QueueManagerState, kind: str, name: str, attrs: dict) -> None:
    queue = _definition(qm, kind, name)
    streaming.check_definition(qm, kind, name, attrs, queue)
    clusters.check_queue(kind, name, {**queue.attrs, **attrs})
    _alter(qm, queue, attrs)
    save_definition(qm, queue)
    triggering.attributes_changed(qm, queue, attrs)  # e.g. TRIGGER again: a DEPTH re-arm


def _alter(qm: QueueManagerState, queue: QueueDefinition, attrs: dict) -> None:
    """Change a definition's attributes; a local queue's new MSGDLVSQ renumbers its stored
    messages in the same order as those in memory."""
    if isinstance(queue, LocalQueue) and attrs.get("MSGDLVSQ", queue.attrs["MSGDLVSQ"]) \
            != queue.attrs["MSGDLVSQ"]:
        qm.store.apply(rekey=(queue.name, attrs["MSGDLVSQ"] == "PRIORITY"))
    queue.alter(attrs)


def alter_qmgr(qm: QueueManagerState, attrs: dict) -> None:
    clusters.check_qmgr({**qm.attrs, **attrs})
    qm.attrs.update(attrs)
    qm.store.save_object("QMGR", qm.name, qm.attrs)


def delete(qm: QueueManagerState, kind: str, name: str, purge: bool) -> None:
    queue = _definition(qm, kind, name)
    if isinstance(queue, LocalQueue):
        if queue.input_shared or queue.input_exclusive or queue.output_count:
            raise ValueError(f"QLOCAL({name}) is open")
        if queue.depth and not purge:
            raise ValueError(f"QLOCAL({name}) is not empty; use PURGE")
        qm.store.apply(purge_queue=name, forget_queue=True)
    del qm.queues[name]
    qm.store.delete_object(kind, name)


def clear(qm: QueueManagerState, name: str) -> int:
    """CLEAR QLOCAL: the number of messages removed."""
    queue = _definition(qm, "QLOCAL", name)
    assert isinstance(queue, LocalQueue)
    if queue.pending_puts or queue.input_shared or queue.input_exclusive or queue.output_count:
        raise ValueError(f"QLOCAL({name}) is open or has uncommitted work")
    count = queue.available_count
    queue.clear_index()
    qm.store.apply(purge_queue=name)
    return count


def save_definition(qm: QueueManagerState, queue: QueueDefinition) -> None:
    """Store a definition, except a temporary dynamic queue's: those do not survive a restart."""
    if isinstance(queue, LocalQueue) and queue.definition_type == TEMPORARY_DYNAMIC:
        return
    qm.store.save_object(queue.kind, queue.name, dict(queue.attrs))


def _definition(qm: QueueManagerState, kind: str, name: str) -> QueueDefinition:
    queue = qm.queues.get(name)
    if queue is None or queue.kind != kind:
        raise ValueError(f"{kind}({name}) not found")
    return queue
