"""Queues of the embedded queue manager: messages, delivery order and the indexes for matching.

Runs in the queue-manager process. The queue definitions are `LocalQueue` (which holds
messages, whether predefined or created from a model), `AliasQueue`, `ModelQueue` (a
template that MQOPEN turns into a dynamic local queue, see dynamic_queues.py) and
`RemoteQueue` (a name for a queue elsewhere, see resolution/).

A local queue keeps its available messages (committed, not taken by a unit of work) in a
sorted list of keys: priority first when MSGDLVSQ is PRIORITY, then arrival sequence. That
one structure serves get-first, get-by-id, browse cursors and reinsertion after a backout.
"""
from __future__ import annotations

import time
from collections.abc import Iterator

from sortedcontainers import SortedList

from spark_mq.embedded.server.mqsc_attributes import default_attributes
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import MD

_I = MD.index
I_PRIORITY, I_PERSISTENCE = _I["Priority"], _I["Persistence"]
I_MSGID, I_CORRELID = _I["MsgId"], _I["CorrelId"]
I_BACKOUT, I_EXPIRY, I_GROUPID, I_SEQ = _I["BackoutCount"], _I["Expiry"], _I["GroupId"], _I["MsgSeqNumber"]
I_OFFSET, I_FLAGS, I_FORMAT, I_ORIGLEN = _I["Offset"], _I["MsgFlags"], _I["Format"], _I["OriginalLength"]
I_ENCODING, I_CCSID = _I["Encoding"], _I["CodedCharSetId"]

NONE_ID = b"\0" * 24
SEGMENT_FLAGS = CMQC.MQMF_SEGMENT | CMQC.MQMF_LAST_SEGMENT
GROUP_FLAGS = CMQC.MQMF_MSG_IN_GROUP | CMQC.MQMF_LAST_MSG_IN_GROUP
_PRIORITY_SHIFT = 44
# A local queue's DEFTYPE: defined by MQSC, or created from a model (dynamic_queues.py)
PREDEFINED = "PREDEFINED"
TEMPORARY_DYNAMIC = "TEMPDYN"
PERMANENT_DYNAMIC = "PERMDYN"

class Message:
    """One physical message (a segment is one physical message).

    `queue` is the local queue the message was put to: where it lies while available, and
    where a commit (of a put) or a backout (of a get) puts it back."""

    __slots__ = ("seq", "md", "body", "props", "persistent", "expires_at", "key", "queue")

    def __init__(self, seq: int, md: list, body: bytes, props: list | None,
                 expires_at: float | None, queue: LocalQueue):
        self.seq = seq
        self.md = md
        self.body = body
        self.props = props
        self.persistent = md[I_PERSISTENCE] == CMQC.MQPER_PERSISTENT
        self.expires_at = expires_at
        self.key = 0
        self.queue = queue

    @property
    def flags(self) -> int:
        return self.md[I_FLAGS]

    def expired(self, now: float) -> bool:
        return self.expires_at is not None and now >= self.expires_at


class LocalQueue:
    def __init__(self, name: str, attrs: dict):
        self.name = name
        self.attrs = default_attributes("QLOCAL")
        self.attrs.update(attrs)
        self.order: SortedList = SortedList()
        self.msgs: dict[int, Message] = {}
        self.by_msgid: dict[bytes, set[int]] = {}
        self.by_correlid: dict[bytes, set[int]] = {}
        self.by_groupid: dict[bytes, set[int]] = {}
        self.reorders = 0         # inserts not at the end: invalidates selector scan marks
        self.pending_puts = 0     # uncommitted puts count toward CURDEPTH
        self.input_shared = 0
        self.input_exclusive = 0
        self.output_count = 0
        self.created = time.gmtime()
        # a dynamic queue deleted while other handles still have it open: they get
        # MQRC_Q_DELETED, as MQ answers them (the name is free for a new queue at once)
        self.deleted = False

    # --- attributes ---------------------------------------------------------------------
    @property
    def kind(self) -> str:
        return "QLOCAL"

    @property
    def definition_type(self) -> str:
        """PREDEFINED, or the DEFTYPE (TEMPDYN, PERMDYN) of the model the queue came from."""
        return str(self.attrs.get("DEFTYPE", PREDEFINED))

    @property
    def depth(self) -> int:
        return len(self.msgs) + self.pending_puts

    @property
    def by_priority(self) -> bool:
        return self.attrs["MSGDLVSQ"] == "PRIORITY"

    def alter(self, attrs: dict) -> None:
        resort = "MSGDLVSQ" in attrs and attrs["MSGDLVSQ"] != self.attrs["MSGDLVSQ"]
        self.attrs.update(attrs)
        if resort:
            messages = [self.msgs[key] for key in self.order]
            self.clear_index()
            for message in messages:
                self.insert(message)

    # --- ordering and indexes -----------------------------------------------------------
    def key_for(self, message: Message) -> int:
        if not self.by_priority:
            return message.seq
        priority = min(max(message.md[I_PRIORITY], 0), 9)
        return ((9 - priority) << _PRIORITY_SHIFT) | message.seq

    def insert(self, message: Message) -> None:
        key = message.key = self.key_for(message)
        message.queue = self
        if self.order and key < self.order[-1]:
            self.reorders += 1  # lands before messages a selector scan may have passed
        self.msgs[key] = message
        self.order.add(key)
        md = message.md
        _index_add(self.by_msgid, md[I_MSGID], key)
        _index_add(self.by_correlid, md[I_CORRELID], key)
        _index_add(self.by_groupid, md[I_GROUPID], key)

    def remove(self, message: Message) -> None:
        key = message.key
        del self.msgs[key]
        self.order.remove(key)
        md = message.md
        _index_discard(self.by_msgid, md[I_MSGID], key)
        _index_discard(self.by_correlid, md[I_CORRELID], key)
        _index_discard(self.by_groupid, md[I_GROUPID], key)

    def clear_index(self) -> None:
        self.reorders += 1
        self.order = SortedList()
        self.msgs.clear()
        self.by_msgid.clear()
        self.by_correlid.clear()
        self.by_groupid.clear()

    def available(self, message: Message) -> bool:
        return self.msgs.get(message.key) is message

    # --- iteration in delivery order ----------------------------------------------------
    def keys_after(self, cursor: int | None) -> Iterator[int]:
        start = 0 if cursor is None else self.order.bisect_right(cursor)
        return self.order.islice(start)

    def candidate_keys(self, msgid: bytes | None, correlid: bytes | None,
                       groupid: bytes | None, cursor: int | None) -> Iterator[int]:
        """Keys to examine, narrowed by an index when the get matches on an id."""
        narrowest = None
        for index, value in ((self.by_msgid, msgid), (self.by_correlid, correlid),
                             (self.by_groupid, groupid)):
            if value is not None:
                keys = index.get(value, ())
                if narrowest is None or len(keys) < len(narrowest):
                    narrowest = keys
        if narrowest is None:
            return self.keys_after(cursor)
        # narrowed: not every key is visited, so a selector scan mark must not advance

        ordered = sorted(narrowest)
        if cursor is not None:
            ordered = [key for key in ordered if key > cursor]
        return iter(ordered)

    # --- groups and segments ------------------------------------------------------------
    def logical_segments(self, groupid: bytes, msgseq: int) -> list[Message] | None:
        """The segments of one logical message in offset order, or None while incomplete."""
        segments = sorted((self.msgs[key] for key in self.by_groupid.get(groupid, ())
                           if self.msgs[key].md[I_SEQ] == msgseq),
                          key=lambda m: m.md[I_OFFSET])
        expected = 0
        for segment in segments:
            if segment.md[I_OFFSET] != expected:
                return None
            expected += len(segment.body)
            if not segment.flags & SEGMENT_FLAGS or segment.flags & CMQC.MQMF_LAST_SEGMENT:
                return segments[: segments.index(segment) + 1]
        return None

    def group_complete(self, groupid: bytes) -> bool:
        """True when every logical message of the group, up to the last one, is available."""
        members = [self.msgs[key] for key in self.by_groupid.get(groupid, ())]
        last = [m.md[I_SEQ] for m in members if m.flags & CMQC.MQMF_LAST_MSG_IN_GROUP]
        if not last:
            return False
        present = {m.md[I_SEQ] for m in members if m.md[I_OFFSET] == 0}
        if any(seq not in present for seq in range(1, last[0] + 1)):
            return False
        segmented = {m.md[I_SEQ] for m in members if m.flags & SEGMENT_FLAGS}
        return all(self.logical_segments(groupid, seq) is not None for seq in segmented)


class AliasQueue:
    def __init__(self, name: str, attrs: dict):
        self.name = name
        self.attrs = default_attributes("QALIAS")
        self.attrs.update(attrs)
        self.created = time.gmtime()

    @property
    def kind(self) -> str:
        return "QALIAS"

    def alter(self, attrs: dict) -> None:
        self.attrs.update(attrs)


class ModelQueue:
    """A model queue: the attributes MQOPEN gives each dynamic queue it creates from it."""

    def __init__(self, name: str, attrs: dict):
        self.name = name
        self.attrs = default_attributes("QMODEL")
        self.attrs.update(attrs)
        self.created = time.gmtime()

    @property
    def kind(self) -> str:
        return "QMODEL"

    def alter(self, attrs: dict) -> None:
        # dynamic queues already created keep their attributes, as in MQ
        self.attrs.update(attrs)


class RemoteQueue:
    """A remote queue definition (QREMOTE): the queue RNAME at queue manager RQMNAME, reached
    through XMITQ; with a blank RNAME, a queue-manager alias or a reply-to queue alias. It
    holds no messages: name resolution (resolution/) reads it."""

    def __init__(self, name: str, attrs: dict):
        self.name = name
        self.attrs = default_attributes("QREMOTE")
        self.attrs.update(attrs)
        self.created = time.gmtime()

    @property
    def kind(self) -> str:
        return "QREMOTE"

    def alter(self, attrs: dict) -> None:
        self.attrs.update(attrs)


#: Any queue definition: what the queue manager's one namespace of queue names holds.
QueueDefinition = LocalQueue | AliasQueue | ModelQueue | RemoteQueue


def _index_add(index: dict[bytes, set[int]], value: bytes, key: int) -> None:
    if value != NONE_ID:
        index.setdefault(value, set()).add(key)


def _index_discard(index: dict[bytes, set[int]], value: bytes, key: int) -> None:
    if value != NONE_ID:
        keys = index.get(value)
        if keys is not None:
            keys.discard(key)
            if not keys:
                del index[value]
