"""IBM's conditions for a trigger event (IBM docs "Conditions for a trigger event"), over
the queue manager's state; no side effects.

A put makes a trigger message when all of these hold (IBM's numbering in brackets):

* [2] the message's priority is at least the queue's TRIGMPRI;
* [3] the messages of that priority or more on the queue before the put, committed and
  uncommitted, were 0 (TRIGTYPE FIRST), any number (EVERY), or TRIGDPTH-1 or more (DEPTH);
  for FIRST also a put to a queue that is not empty when TRIGINT milliseconds have passed
  since the queue's last trigger message;
* [4] FIRST and DEPTH: no program has the queue open for input (its IPPROCS is 0);
* [6] the queue allows gets;
* [7] PROCESS names an existing process definition, or is blank on a transmission queue
  (channel triggering: TRIGDATA names the channel);
* [8] INITQ names an existing local queue that allows gets, and
* [9] some program has that initiation queue open for input;
* [10, 11] TRIGGER is on and TRIGTYPE is not NONE.

`waiting` is the same test for the events that are not puts (a trigger monitor opening the
initiation queue, the last input handle of the queue closing, TRIGGER set on or the trigger
attributes changed): the queue's messages alone must meet [3].
"""
from __future__ import annotations

import time
from typing import Any

from spark_mq.embedded.server.core import process_definitions as processes
from spark_mq.embedded.server.core.queue_objects import I_PRIORITY, LocalQueue, Message
from spark_mq.embedded.server.core.state import QueueManagerState

FIRST, EVERY, DEPTH = "FIRST", "EVERY", "DEPTH"


def armed(qm: QueueManagerState, queue: LocalQueue) -> bool:
    """[6, 7, 10, 11]: the queue itself may trigger."""
    attrs = queue.attrs
    if attrs.get("TRIGGER") != "TRIGGER" or attrs.get("TRIGTYPE", "NONE") == "NONE":
        return False
    if attrs.get("GET") == "DISABLED" or queue.deleted:
        return False
    return process_of(qm, queue) is not None


def process_of(qm: QueueManagerState, queue: LocalQueue) -> dict[str, Any] | None:
    """[7] The process definition a trigger message names: the PROCESS's attributes, {} for
    a transmission queue without one (its trigger message names none), None when the
    PROCESS does not exist."""
    name = str(queue.attrs.get("PROCESS", "")).strip()
    if not name:
        return {} if queue.attrs.get("USAGE") == "XMITQ" else None
    return processes.find(qm, name)


def initiation_queue(qm: QueueManagerState, queue: LocalQueue) -> LocalQueue | None:
    """[8, 9] The queue's initiation queue, when it exists, allows gets and a trigger monitor
    has it open for input; else None."""
    name = str(queue.attrs.get("INITQ", "")).strip()
    initq = qm.queues.get(name) if name else None
    if not isinstance(initq, LocalQueue) or initq.deleted or initq.attrs.get("GET") == "DISABLED":
        return None
    if not input_count(initq):
        return None
    return initq


def input_count(queue: LocalQueue) -> int:
    """IPPROCS: the handles open for input on the queue."""
    return queue.input_shared + queue.input_exclusive


def qualifying(qm: QueueManagerState, queue: LocalQueue) -> int:
    """[3] The messages on the queue of priority TRIGMPRI or more, uncommitted puts counted
    (for a queue that is not shared in a queue-sharing group, as here, IBM counts them)."""
    threshold = int(queue.attrs.get("TRIGMPRI", 0))
    if threshold <= 0:
        return queue.depth
    count = queue.count_priority(threshold)
    for conn in qm.connections.values():
        count += sum(1 for message in conn.uow_puts
                     if message.queue is queue and message.md[I_PRIORITY] >= threshold)
    return count


def fires_on_put(qm: QueueManagerState, queue: LocalQueue, arrived: list[Message],
                 last_trigger: float | None) -> bool:
    """Whether the put of `arrived` (already counted on `queue`) is a trigger event, given
    the time of the queue's last trigger message (time.monotonic(), None: none yet)."""
    if not armed(qm, queue):
        return False
    threshold = int(queue.attrs.get("TRIGMPRI", 0))
    counted = sum(1 for message in arrived if message.md[I_PRIORITY] >= threshold)
    if not counted:
        return False                                   # [2]
    kind = queue.attrs["TRIGTYPE"]
    if kind != EVERY and input_count(queue):
        return False                                   # [4]
    after = qualifying(qm, queue)
    before = after - counted
    if kind == FIRST:
        if before > 0 and not _interval_passed(qm, last_trigger):
            return False
    elif kind == DEPTH and after < int(queue.attrs.get("TRIGDPTH", 1)):
        return False
    return initiation_queue(qm, queue) is not None


def waiting(qm: QueueManagerState, queue: LocalQueue, every_too: bool) -> bool:
    """Whether the messages already on `queue` are a trigger event now, for an event that is
    not a put. `every_too`: EVERY queues count (a trigger monitor came, the attributes
    changed), else only FIRST and DEPTH do (the last input handle went)."""
    if not armed(qm, queue):
        return False
    kind = queue.attrs["TRIGTYPE"]
    if kind == EVERY and not every_too:
        return False
    if kind != EVERY and input_count(queue):
        return False
    count = qualifying(qm, queue)
    needed = int(queue.attrs.get("TRIGDPTH", 1)) if kind == DEPTH else 1
    return count >= needed and initiation_queue(qm, queue) is not None


def _interval_passed(qm: QueueManagerState, last_trigger: float | None) -> bool:
    """FIRST's extra trigger: TRIGINT milliseconds since the queue's last trigger message."""
    if last_trigger is None:
        return True
    return (time.monotonic() - last_trigger) * 1000 >= int(qm.attrs.get("TRIGINT", 999_999_999))
