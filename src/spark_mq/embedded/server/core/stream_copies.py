"""The STREAMQ copies of messages the queue manager places itself, below the verbs floor
(event messages: events/event_messages.py), made as verbs/streaming.py makes a put's: that
module registers how (the floors let events/ reach down to core/ only).

`made(qm, queue, messages)` answers the copies of `messages` about to be placed on `queue`
(None: it does not stream, or the copy failed under STRMQOS(BESTEF)); it raises the copy's
MQError under STRMQOS(MUSTDUP). The caller stores the persistent ones in its own store
transaction with the originals, then calls their `place`.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from spark_mq.embedded.server.core.queue_objects import LocalQueue, Message
from spark_mq.embedded.server.core.state import QueueManagerState


class Placeable(Protocol):
    """Copies made for one placement: `messages` to store, `place` to put them on their
    queue (with the triggers and depth events a put would cause)."""
    @property
    def messages(self) -> list[Message]: ...

    def place(self, qm: QueueManagerState) -> None: ...


Maker = Callable[[QueueManagerState, LocalQueue, list[Message]], "Placeable | None"]
_makers: list[Maker] = []


def register(maker: Maker) -> None:
    """verbs/streaming.py's maker (one per process: the last registered is used)."""
    _makers[:] = [maker]


def made(qm: QueueManagerState, queue: LocalQueue, messages: list[Message]) -> Placeable | None:
    return _makers[0](qm, queue, messages) if _makers else None
