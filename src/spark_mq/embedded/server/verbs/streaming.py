"""Streaming queues (IBM MQ 9.3; IBM docs "Streaming queues", "Stream queues and
transactions", "Streaming queue restrictions", "Streaming to remote and alias queues").

A local queue (or a model, whose dynamic queues inherit it) with STREAMQ(name) gets, for every
message put to it, a copy put to `name`: a local queue, an alias of one, or a remote queue
definition (the copy then travels behind an MQXQH like any remote put). Every put counts:
MQPUT, MQPUT1, a receiving channel's puts, a dead letter put by an agent; they all land
through put.py, which asks `copies` for the copy of what it is about to place. Event messages
are streamed too (IBM lets the SYSTEM.ADMIN.*.EVENT queues, which hold nothing else, have a
STREAMQ): events/ places them below this floor and asks core/stream_copies.py, which this
module serves. Publications delivered to a subscription's queue are not streamed (IBM does
not support a provided destination that has a STREAMQ), nor are the trigger messages the
queue manager places itself (IBM documents no streaming of them: an initiation queue named
SYSTEM.* may not stream).

The copy is the original as put (MsgId, CorrelId, GroupId, context, persistence, priority,
format, properties, segments) except that its Expiry is unlimited, or the stream queue's
CAPEXPRY (the lowest on the way: alias or remote definition, then the local queue), and its
COA, COD, expiration, exception and activity report options are off, so that nobody gets two
reports for one message. The stream queue's DEFPSIST and DEFPRTY do not apply. A copy never
streams again (IBM refuses chains).

STRMQOS(BESTEF): a copy that cannot be put (stream queue missing, full, put-inhibited, too
long for it, a persistent copy for a temporary dynamic queue) is dropped and the original is
put. STRMQOS(MUSTDUP): the put of the original fails with the copy's reason code, and nothing
is put. The copy is placed with the original: in the same unit of work under syncpoint (it
commits or backs out with it, and does not count towards MAXUMSGS), otherwise in the same store
transaction, which is IBM's internal unit of work. The putter needs no authority to the stream
queue: the queue manager puts the copy (IBM's streaming pages name no check on the putter; the
one they imply is the administrator's, who chose the stream queue, and is not made here).

DEFINE and ALTER refuse what IBM's restrictions refuse (`check_definition`): STREAMQ on a
transmission queue, on a SYSTEM.* queue other than IBM's exceptions, naming itself, a model
queue or a SYSTEM.* queue other than SYSTEM.DEFAULT.LOCAL.QUEUE, a chain (streaming to a queue
that streams, or streaming from a queue others stream to) and a changed STREAMQ on a dynamic
queue.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from spark_mq.embedded.server.core import stream_copies
from spark_mq.embedded.server.core.md_context import put_stamp
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.queue_objects import (
    I_EXPIRY,
    I_PERSISTENCE,
    PREDEFINED,
    TEMPORARY_DYNAMIC,
    AliasQueue,
    LocalQueue,
    Message,
    ModelQueue,
    QueueDefinition,
)
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.embedded.server.events import DepthChange, depth_changed
from spark_mq.embedded.server.resolution import names, transmission
from spark_mq.embedded.server.triggering import hook as triggering
from spark_mq.mqi.constants import CMQC, CMQCFC
from spark_mq.mqi.structs import MD

MUST_DUPLICATE = "MUSTDUP"
_I_REPORT = MD.index["Report"]
#: report options a copy does not carry: the original's reports are the only ones
_NOT_COPIED_REPORTS = (CMQC.MQRO_COA_WITH_FULL_DATA | CMQC.MQRO_COD_WITH_FULL_DATA
                       | CMQC.MQRO_EXPIRATION_WITH_FULL_DATA | CMQC.MQRO_EXCEPTION_WITH_FULL_DATA
                       | CMQC.MQRO_ACTIVITY)
_NO_CAP = -1
_NOT_SUPPORTED = CMQCFC.MQRCCF_STREAMQ_NOT_SUPPORTED
_DESTINATION_NOT_SUPPORTED = CMQCFC.MQRCCF_STREAMQ_DEST_NOT_SUPP
_DESTINATION_CONFLICT = CMQCFC.MQRCCF_STREAMQ_DEST_CONFLICT
#: the only SYSTEM.* queue a STREAMQ may name
_SYSTEM_STREAM_QUEUE = "SYSTEM.DEFAULT.LOCAL.QUEUE"
#: the SYSTEM.* queues that may have a STREAMQ
_SYSTEM_STREAMING = frozenset({
    "SYSTEM.DEFAULT.LOCAL.QUEUE", "SYSTEM.DEFAULT.MODEL.QUEUE", "SYSTEM.JMS.TEMPQ.MODEL",
    "SYSTEM.ADMIN.ACCOUNTING.QUEUE", "SYSTEM.ADMIN.ACTIVITY.QUEUE",
    "SYSTEM.ADMIN.STATISTICS.QUEUE", "SYSTEM.ADMIN.CHANNEL.EVENT", "SYSTEM.ADMIN.COMMAND.EVENT",
    "SYSTEM.ADMIN.CONFIG.EVENT", "SYSTEM.ADMIN.LOGGER.EVENT", "SYSTEM.ADMIN.PERFM.EVENT",
    "SYSTEM.ADMIN.PUBSUB.EVENT", "SYSTEM.ADMIN.QMGR.EVENT"})

Piece = tuple[list, bytes, "list | None"]


class StreamingRefused(ValueError):
    """A DEFINE or ALTER a streaming queue restriction refuses: runmqsc's text, and the PCF
    reason the command server answers. IBM's reference names the four MQRCCF_STREAMQ_*
    codes without saying which restriction each stands for; they are given here by their
    names: NOT_SUPPORTED for a queue that may not stream, DEST_NOT_SUPP for a stream queue
    that may not be one, DEST_CONFLICT for a stream queue that streams, CONFLICT for a queue
    that is another's stream queue."""

    def __init__(self, text: str, pcf_reason: int):
        super().__init__(text)
        self.pcf_reason = pcf_reason


@dataclass(frozen=True)
class Copies:
    """The copies of one put, for `queue` (the stream queue, or the transmission queue that
    leads to it)."""
    queue: LocalQueue
    messages: list[Message]


def stream_queue_of(queue: LocalQueue) -> str:
    return str(queue.attrs.get("STREAMQ", "")).strip()


def copies(qm: QueueManagerState, source: LocalQueue, pieces: list[Piece]) -> Copies | None:
    """The copies of the `pieces` about to be put to `source` (none: it does not stream, or
    the copy failed under BESTEF); raises the copy's MQError under MUSTDUP."""
    name = stream_queue_of(source)
    if not name:
        return None
    try:
        return _copies(qm, name, pieces)
    except MQError:
        if source.attrs.get("STRMQOS") == MUST_DUPLICATE:
            raise
        return None


@dataclass(frozen=True)
class _Placed:
    """Copies of messages the queue manager placed itself (core/stream_copies.py)."""
    made: Copies

    @property
    def messages(self) -> list[Message]:
        return self.made.messages

    def place(self, qm: QueueManagerState) -> None:
        queue = self.made.queue
        for message in self.made.messages:
            queue.insert(message)
        triggering.put(qm, None, queue, self.made.messages, False)
        depth_changed(qm, queue, DepthChange.PUT, self.made.messages)


def _of_queue_manager(qm: QueueManagerState, source: LocalQueue,
                      messages: list[Message]) -> _Placed | None:
    made = copies(qm, source, [(m.md, m.body, m.props) for m in messages])
    return None if made is None else _Placed(made)


stream_copies.register(_of_queue_manager)


def _copies(qm: QueueManagerState, name: str, pieces: list[Piece]) -> Copies:
    resolved = names.resolve(qm, name)
    queue, remote = resolved.queue, resolved.remote
    on_the_way: list[QueueDefinition] = [d for d in (resolved.alias,
                                                     remote and remote.definition) if d]
    if remote is None:
        on_the_way.append(queue)
    if any(d.attrs["PUT"] == "DISABLED" for d in on_the_way) or queue.attrs["PUT"] == "DISABLED":
        raise MQError(CMQC.MQRC_PUT_INHIBITED)
    expiry = _capped_expiry(on_the_way)
    made = [(_copied_md(md, expiry), body, props) for md, body, props in pieces]
    if remote is not None:
        date, hms = put_stamp(int(time.time()))
        made = [(*transmission.wrap(qm.name, remote.queue_name, remote.qmgr_name, md, body,
                                    qm.new_msgid(), date, hms + b"00"), props)
                for md, body, props in made]
    _check_room(qm, queue, made)
    expires_at = None if expiry == CMQC.MQEI_UNLIMITED else time.time() + expiry / 10.0
    return Copies(queue, [Message(next(qm.seq), md, body, props, expires_at, queue)
                          for md, body, props in made])


def _capped_expiry(on_the_way: list[QueueDefinition]) -> int:
    caps = [int(d.attrs.get("CAPEXPRY", _NO_CAP)) for d in on_the_way]
    caps = [cap for cap in caps if cap != _NO_CAP]
    return min(caps) if caps else CMQC.MQEI_UNLIMITED


def _copied_md(md: list, expiry: int) -> list:
    copied = list(md)
    copied[I_EXPIRY] = expiry
    copied[_I_REPORT] = md[_I_REPORT] & ~_NOT_COPIED_REPORTS
    return copied


def _check_room(qm: QueueManagerState, queue: LocalQueue, made: list[Piece]) -> None:
    """What a put of the copies to `queue` would be refused for."""
    queue_limit, qmgr_limit = queue.attrs["MAXMSGL"], qm.attrs["MAXMSGL"]
    if any(len(body) > min(queue_limit, qmgr_limit) for _, body, _ in made):
        raise MQError(CMQC.MQRC_MSG_TOO_BIG_FOR_Q if queue_limit <= qmgr_limit
                      else CMQC.MQRC_MSG_TOO_BIG_FOR_Q_MGR)
    if queue.definition_type == TEMPORARY_DYNAMIC and any(
            md[I_PERSISTENCE] == CMQC.MQPER_PERSISTENT for md, _, _ in made):
        raise MQError(CMQC.MQRC_PERSISTENT_NOT_ALLOWED)
    if queue.depth + len(made) > queue.attrs["MAXDEPTH"]:
        depth_changed(qm, queue, DepthChange.FULL)
        raise MQError(CMQC.MQRC_Q_FULL)


def check_definition(qm: QueueManagerState, kind: str, name: str, attrs: dict,
                     existing: QueueDefinition | None) -> None:
    """Refuse (StreamingRefused) a DEFINE or ALTER that IBM's streaming queue restrictions
    refuse; `attrs` are the command's, `existing` the definition it changes."""
    if kind not in ("QLOCAL", "QMODEL"):
        return
    old = existing.attrs if existing is not None else {}
    stream = str(attrs.get("STREAMQ", old.get("STREAMQ", ""))).strip()
    if isinstance(existing, LocalQueue) and existing.definition_type != PREDEFINED \
            and stream != str(old.get("STREAMQ", "")).strip():
        raise StreamingRefused(f"STREAMQ of dynamic queue {name} cannot be altered: a dynamic "
                               f"queue streams as the model it was created from", _NOT_SUPPORTED)
    if not stream:
        return
    usage = attrs.get("USAGE", old.get("USAGE", "NORMAL"))
    if usage == names.XMITQ_USAGE:
        raise StreamingRefused(f"STREAMQ({stream}) not allowed on {kind}({name}): it is a "
                               f"transmission queue (USAGE(XMITQ)); only USAGE(NORMAL) queues "
                               f"stream", _NOT_SUPPORTED)
    if name.startswith("SYSTEM.") and name not in _SYSTEM_STREAMING:
        raise StreamingRefused(f"STREAMQ({stream}) not allowed on {kind}({name}): of the "
                               f"SYSTEM.* queues only {', '.join(sorted(_SYSTEM_STREAMING))} "
                               f"may stream", _NOT_SUPPORTED)
    if stream == name:
        raise StreamingRefused(f"STREAMQ({stream}) of {kind}({name}) names the queue itself; "
                               f"name another queue", _DESTINATION_NOT_SUPPORTED)
    if stream.startswith("SYSTEM.") and stream != _SYSTEM_STREAM_QUEUE:
        raise StreamingRefused(f"STREAMQ({stream}) of {kind}({name}) is a SYSTEM.* queue; of "
                               f"those only {_SYSTEM_STREAM_QUEUE} may be a stream queue",
                               _DESTINATION_NOT_SUPPORTED)
    _check_no_chain(qm, kind, name, stream)


def _check_no_chain(qm: QueueManagerState, kind: str, name: str, stream: str) -> None:
    target = qm.queues.get(stream)
    if isinstance(target, ModelQueue):
        raise StreamingRefused(f"STREAMQ({stream}) of {kind}({name}) is a model queue; name a "
                               f"local, alias or remote queue", _DESTINATION_NOT_SUPPORTED)
    if isinstance(target, AliasQueue):
        target = qm.queues.get(str(target.attrs["TARGET"]))
        if target is not None and target.name == name:
            raise StreamingRefused(f"STREAMQ({stream}) of {kind}({name}) is an alias of the "
                                   f"queue itself; name another queue", _DESTINATION_NOT_SUPPORTED)
    if isinstance(target, LocalQueue) and stream_queue_of(target):
        raise StreamingRefused(f"STREAMQ({stream}) of {kind}({name}) streams to "
                               f"{stream_queue_of(target)} itself; a stream queue cannot stream "
                               f"(no chains)", _DESTINATION_CONFLICT)
    for other in qm.queues.values():
        if isinstance(other, (LocalQueue, ModelQueue)) and other.name != name \
                and _streams_to(qm, other, name):
            raise StreamingRefused(f"{kind}({name}) is the stream queue of {other.name}; a "
                                   f"stream queue cannot stream (no chains): STREAMQ must stay "
                                   f"blank", CMQCFC.MQRCCF_STREAMQ_CONFLICT)


def _streams_to(qm: QueueManagerState, queue: LocalQueue | ModelQueue, name: str) -> bool:
    stream = str(queue.attrs.get("STREAMQ", "")).strip()
    if stream == name:
        return True
    alias = qm.queues.get(stream)
    return isinstance(alias, AliasQueue) and str(alias.attrs["TARGET"]).strip() == name
