"""Dynamic queues: MQOPEN of a model queue creates one, MQCLOSE and MQDISC delete them.

Runs in the queue-manager process, under the queue manager's lock (see qmgr.py). A dynamic
queue is a local queue with its model's attributes, DEFTYPE included, which says what it is:

* temporary (TEMPDYN): lives as long as the handle whose MQOPEN created it. Closing that
  handle, MQDISC or a broken connection deletes it with its messages. It never holds a
  persistent message (put.py) and is never stored, so a restarted queue manager has none.
* permanent (PERMDYN): stored like any definition, with its persistent messages; it goes
  only with MQCLOSE(MQCO_DELETE or MQCO_DELETE_PURGE) or an MQSC DELETE. On a queue manager
  with users, that MQCLOSE through a handle other than the creating one needs +dlt
  (handles.py; refused: MQRC_NOT_AUTHORIZED and a Not Authorized (type 3) event).

Deleting a dynamic queue that other handles still have open frees its name at once; those
handles then get MQRC_Q_DELETED, and their MQCLOSE succeeds, as MQ answers them.
"""
from __future__ import annotations

import re
import time

from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.queue_objects import (
    PERMANENT_DYNAMIC,
    TEMPORARY_DYNAMIC,
    LocalQueue,
    ModelQueue,
)
from spark_mq.embedded.server.core.state import Handle, QueueManagerState
from spark_mq.embedded.server.verbs.definitions import save_definition
from spark_mq.mqi.constants import CMQC

#: MQOD's initial DynamicQName on Multiplatforms (z/OS's is CSQ.*)
DEFAULT_DYNAMIC_NAME = "AMQ.*"
DELETE_OPTIONS: int = CMQC.MQCO_DELETE | CMQC.MQCO_DELETE_PURGE
# MQ accepts '*' only in positions 1 to 33: the rest of the 48 is the generated suffix
_LAST_STAR_POSITION = 33
_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")
_PREFIX = re.compile(r"[A-Za-z0-9._/%]*")


def create(qm: QueueManagerState, model: ModelQueue, dynamic_name: str) -> LocalQueue:
    """The dynamic queue an MQOPEN of `model` creates, named after MQOD.DynamicQName."""
    name = _queue_name(qm, dynamic_name)
    queue = LocalQueue(name, dict(model.attrs))
    if queue.definition_type != TEMPORARY_DYNAMIC:  # a temporary one holds no persistent message
        qm.back(queue)
    qm.queues[name] = queue
    save_definition(qm, queue)  # a temporary queue is not stored (see save_definition)
    return queue


def _queue_name(qm: QueueManagerState, pattern: str) -> str:
    """DynamicQName as MQ reads it: a full name used as given, or a prefix ending in '*'
    that the queue manager completes with a suffix unique on this queue manager."""
    if not pattern.endswith("*"):
        if not _NAME.fullmatch(pattern):  # blank, a '*' not at the end, a bad character
            raise MQError(CMQC.MQRC_DYNAMIC_Q_NAME_ERROR)
        if pattern in qm.queues:
            raise MQError(CMQC.MQRC_OBJECT_ALREADY_EXISTS)
        return pattern
    prefix = pattern[:-1]
    if len(pattern) > _LAST_STAR_POSITION or not _PREFIX.fullmatch(prefix):
        raise MQError(CMQC.MQRC_DYNAMIC_Q_NAME_ERROR)
    while True:
        # 16 hex digits like MQ's own: the second, then a counter within this process
        name = f"{prefix}{int(time.time()) & 0xFFFFFFFF:08X}{next(qm.dynamic_names) & 0xFFFFFFFF:08X}"
        if name not in qm.queues:
            return name


def check_close(qm: QueueManagerState, handle: Handle, options: int) -> None:
    """Raise what MQCLOSE with MQCO_DELETE or MQCO_DELETE_PURGE fails with on this handle,
    before anything is closed: a failed MQCLOSE leaves the handle open."""
    if not options & DELETE_OPTIONS:
        return
    queue = handle.queue
    if queue is None:
        raise MQError(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)
    if queue.deleted:
        return  # deleted meanwhile: the handle's MQCLOSE succeeds, as MQ says
    kind = queue.definition_type
    opened_directly = handle.name == queue.name  # not through an alias
    if not opened_directly or kind not in (TEMPORARY_DYNAMIC, PERMANENT_DYNAMIC) or (
            kind == TEMPORARY_DYNAMIC and not handle.created_temporary):
        raise MQError(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)
    if kind == PERMANENT_DYNAMIC and (_uncommitted(qm, queue) or (
            options & CMQC.MQCO_DELETE and queue.available_count)):
        raise MQError(CMQC.MQRC_Q_NOT_EMPTY)


def delete_on_close(qm: QueueManagerState, handle: Handle, options: int) -> None:
    """After a handle is closed: delete its queue when it created it as a temporary dynamic
    queue, or when MQCO_DELETE / MQCO_DELETE_PURGE asked for it (check_close allowed it)."""
    queue = handle.queue
    if queue is not None and (handle.created_temporary or options & DELETE_OPTIONS):
        remove(qm, queue)


def remove(qm: QueueManagerState, queue: LocalQueue) -> None:
    """Delete a dynamic queue and its messages; handles still open on it see MQRC_Q_DELETED."""
    if queue.deleted:
        return
    queue.deleted = True
    if qm.queues.get(queue.name) is queue:
        del qm.queues[queue.name]
    if queue.definition_type == PERMANENT_DYNAMIC:
        qm.store.apply(purge_queue=queue.name, forget_queue=True)
        qm.store.delete_object(queue.kind, queue.name)
    queue.clear_index()
    qm.arrived.notify_all()  # gets waiting on it end now, with MQRC_Q_DELETED


def _uncommitted(qm: QueueManagerState, queue: LocalQueue) -> bool:
    """Whether any unit of work has a put to the queue or a get from it outstanding."""
    if queue.pending_puts:
        return True
    return any(message.queue is queue for conn in qm.connections.values()
               for message in conn.uow_gets)
