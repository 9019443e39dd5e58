"""The one door from the core into triggering: the events the put and get path, units of
work, MQOPEN/MQCLOSE and the attribute changes report (runs under the queue manager's lock).

Each entry point is cheap when nothing is triggered: a put to a queue without TRIGGER costs
one dict lookup. conditions.py decides, trigger_messages.py makes and places the trigger message.
"""
from __future__ import annotations

import time
from collections.abc import Iterable

from spark_mq.embedded.server.core.queue_objects import TEMPORARY_DYNAMIC, LocalQueue, Message
from spark_mq.embedded.server.core.state import Connection, QueueManagerState
from spark_mq.embedded.server.triggering import conditions
from spark_mq.embedded.server.triggering import trigger_messages as messages
from spark_mq.embedded.server.triggering.trigger_state import Pending, state_of
from spark_mq.mqi.constants import CMQC

#: the queue attributes whose change may make a queue's waiting messages a trigger event
TRIGGER_ATTRIBUTES = frozenset({"TRIGGER", "TRIGTYPE", "TRIGDPTH", "TRIGMPRI", "PROCESS",
                                "INITQ", "GET"})


def put(qm: QueueManagerState, conn: Connection | None, queue: LocalQueue,
        arrived: list[Message], syncpoint: bool) -> None:
    """`arrived` was put on `queue`: available now, or uncommitted in `conn`'s unit of work
    (`syncpoint`), whose end shows the trigger message."""
    if queue.attrs.get("TRIGGER") != "TRIGGER":
        return
    state = state_of(qm)
    if not conditions.fires_on_put(qm, queue, arrived, state.last_trigger.get(queue.name)):
        return
    message = _trigger(qm, queue)
    if syncpoint and conn is not None:
        on_backout = queue.attrs["TRIGTYPE"] != conditions.EVERY
        state.pending.setdefault(conn.conn_id, []).append(Pending(message, on_backout))
    else:
        messages.place(qm, message)


def unit_of_work_ended(qm: QueueManagerState, conn: Connection, committed: bool) -> None:
    """`conn`'s unit of work was committed or backed out: its trigger messages appear."""
    pending = state_of(qm).pending.pop(conn.conn_id, None)
    for item in pending or ():
        if committed or item.on_backout:
            messages.place(qm, item.message)


def input_opened(qm: QueueManagerState, queue: LocalQueue) -> None:
    """`queue` got its first input handle: if it is an initiation queue, a trigger monitor
    came, and every queue it serves whose messages qualify triggers now."""
    if conditions.input_count(queue) == 1:
        _served_by(qm, queue.name)


def input_closed(qm: QueueManagerState, queue: LocalQueue) -> None:
    """`queue`'s last input handle went: FIRST and DEPTH trigger for the messages left."""
    if not conditions.input_count(queue) and queue.attrs.get("TRIGGER") == "TRIGGER":
        _fire_if_waiting(qm, queue, every_too=False)


def attributes_changed(qm: QueueManagerState, queue: object, changed: Iterable[str]) -> None:
    """ALTER, DEFINE REPLACE or MQSET set `changed` on `queue`: TRIGGER set on (a DEPTH
    queue re-armed) or other trigger attributes changed while its messages qualify trigger
    now; gets enabled again on an initiation queue do so for the queues it serves."""
    if not isinstance(queue, LocalQueue) or not TRIGGER_ATTRIBUTES.intersection(changed):
        return
    if queue.attrs.get("TRIGGER") == "TRIGGER":
        _fire_if_waiting(qm, queue, every_too=True)
    if "GET" in changed and conditions.input_count(queue):
        _served_by(qm, queue.name)


def _served_by(qm: QueueManagerState, initq_name: str) -> None:
    for queue in list(qm.queues.values()):
        if (isinstance(queue, LocalQueue) and queue.attrs.get("TRIGGER") == "TRIGGER"
                and str(queue.attrs.get("INITQ", "")).strip() == initq_name):
            _fire_if_waiting(qm, queue, every_too=True)


def _fire_if_waiting(qm: QueueManagerState, queue: LocalQueue, every_too: bool) -> None:
    if conditions.waiting(qm, queue, every_too):
        messages.place(qm, _trigger(qm, queue))


def _trigger(qm: QueueManagerState, queue: LocalQueue) -> Message:
    """The trigger message for `queue` (whose conditions hold), not yet placed; a DEPTH
    queue's TRIGGER goes off now, until an ALTER or MQSET sets it on again, as in MQ."""
    initq = conditions.initiation_queue(qm, queue)
    process = conditions.process_of(qm, queue)
    assert initq is not None and process is not None  # the conditions held
    body = messages.trigger_body(queue, str(queue.attrs.get("PROCESS", "")).strip(), process)
    state_of(qm).last_trigger[queue.name] = time.monotonic()
    if queue.attrs["TRIGTYPE"] == conditions.DEPTH:
        queue.attrs["TRIGGER"] = "NOTRIGGER"
        # stored as definitions.save_definition stores it (which this package cannot import:
        # definitions.py reports its changes here)
        if queue.definition_type != TEMPORARY_DYNAMIC:
            qm.store.save_object(queue.kind, queue.name, dict(queue.attrs))
    return messages.trigger_message(qm, initq, body, CMQC.MQFMT_TRIGGER)
