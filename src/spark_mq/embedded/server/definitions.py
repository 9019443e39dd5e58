"""Object definitions: recovery at start-up, and what MQSC DEFINE/ALTER/DELETE/CLEAR change.

Runs in the queue-manager process, called through `qmgr.QueueManager` by admin.run_mqsc,
which holds the queue manager's lock for the whole script. Failures are `ValueError`s with
the text runmqsc shows, not MQI reasons: these are administration commands, not MQI verbs.

Queue definitions are local, alias, model and remote queues, in one namespace as in MQ; dynamic
queues are local queues that dynamic_queues.py creates and deletes. Channels are stored here
too (kind "CHANNEL", their own namespace) and recovered into channels.py's table, and so
are the security definitions (kinds AUTHINFO, CHLAUTH, AUTHREC: security/state.py),
namelists (kind NAMELIST: namelist.py) and processes (kind PROCESS: processes.py).
"""
from __future__ import annotations

import itertools

from spark_mq.embedded.server import channels, namelist, processes, system_queues
from spark_mq.embedded.server.pubsub import storage as pubsub_storage
from spark_mq.embedded.server.queues import (
    I_BACKOUT,
    TEMPORARY_DYNAMIC,
    AliasQueue,
    LocalQueue,
    Message,
    ModelQueue,
    QueueDefinition,
    RemoteQueue,
)
from spark_mq.embedded.server.security import state as security
from spark_mq.embedded.server.state import QueueManagerState
from spark_mq.embedded.server.triggering import hook as triggering
from spark_mq.embedded.wire import decode
from spark_mq.mqi.structs import MD

#: the class that holds each kind of queue definition
_QUEUE_CLASSES: dict[str, type[QueueDefinition]] = {
    "QLOCAL": LocalQueue, "QALIAS": AliasQueue, "QMODEL": ModelQueue, "QREMOTE": RemoteQueue}


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
        elif kind == namelist.KIND:
            namelist.restore(qm, name, attrs)
        elif kind == processes.KIND:
            processes.restore(qm, name, attrs)
        elif kind in pubsub_storage.KINDS:
            pubsub_rows.append((kind, name, attrs))  # after the queues: subscriptions name theirs
        else:
            qm.queues[name] = _QUEUE_CLASSES[kind](name, attrs)
    channels.ensure_defaults(qm)
    security.refresh_connauth(qm)  # the CONNAUTH a (re)started queue manager runs with
    pubsub_storage.restore(qm, pubsub_rows)
    pubsub_storage.ensure_system_objects(qm)
    system_queues.ensure(qm)
    last = 0
    for stored in qm.store.messages():
        queue = qm.queues.get(stored.queue)
        last = stored.seq
        if not isinstance(queue, LocalQueue):
            continue
        md = MD.unpack(stored.md)
        md[I_BACKOUT] = stored.backout
        message = Message(stored.seq, md, stored.body, _stored_properties(stored.props),
                          stored.expires_at, queue)
        queue.insert(message)
    qm.seq = itertools.count(last + 1)
    system_queues.hold(qm)  # numbered after the stored messages


def _stored_properties(data: bytes | None) -> list | None:
    """The properties of a stored message: the wire encoding of its [name, type, value] list."""
    if not data:
        return None
    props = decode(data)
    if not isinstance(props, list):  # only store.stored() writes this column, always a list
        raise ValueError("the stored properties of a message are not a list")
    return props


def define(qm: QueueManagerState, kind: str, name: str, attrs: dict, replace: bool) -> None:
    existing = qm.queues.get(name)
    if existing is not None:
        if not replace:
            raise ValueError(f"{existing.kind}({name}) already exists; use REPLACE")
        if existing.kind != kind:
            raise ValueError(f"{name} exists as {existing.kind}, not {kind}")
        existing.alter(attrs)
        queue = existing
    else:
        queue = _QUEUE_CLASSES[kind](name, attrs)
        qm.queues[name] = queue
    save_definition(qm, queue)
    if existing is not None:
        triggering.attributes_changed(qm, queue, attrs)


def alter(qm: QueueManagerState, kind: str, name: str, attrs: dict) -> None:
    queue = _definition(qm, kind, name)
    queue.alter(attrs)
    save_definition(qm, queue)
    triggering.attributes_changed(qm, queue, attrs)  # e.g. TRIGGER again: a DEPTH re-arm


def alter_qmgr(qm: QueueManagerState, attrs: dict) -> None:
    qm.attrs.update(attrs)
    qm.store.save_object("QMGR", qm.name, qm.attrs)


def delete(qm: QueueManagerState, kind: str, name: str, purge: bool) -> None:
    queue = _definition(qm, kind, name)
    if isinstance(queue, LocalQueue):
        if queue.input_shared or queue.input_exclusive or queue.output_count:
            raise ValueError(f"QLOCAL({name}) is open")
        if queue.depth and not purge:
            raise ValueError(f"QLOCAL({name}) is not empty; use PURGE")
        qm.store.apply(purge_queue=name)
    del qm.queues[name]
    qm.store.delete_object(kind, name)


def clear(qm: QueueManagerState, name: str) -> int:
    """CLEAR QLOCAL: the number of messages removed."""
    queue = _definition(qm, "QLOCAL", name)
    assert isinstance(queue, LocalQueue)
    if queue.pending_puts or queue.input_shared or queue.input_exclusive or queue.output_count:
        raise ValueError(f"QLOCAL({name}) is open or has uncommitted work")
    count = len(queue.msgs)
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
