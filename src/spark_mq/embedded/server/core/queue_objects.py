"""Queues of the embedded queue manager: messages, delivery order and the indexes for matching.

Runs in the queue-manager process. The queue definitions are `LocalQueue` (which holds
messages, whether predefined or created from a model), `AliasQueue`, `ModelQueue` (a
template that MQOPEN turns into a dynamic local queue, see dynamic_queues.py) and
`RemoteQueue` (a name for a queue elsewhere, see resolution/).

A local queue keeps its available messages (committed, not taken by a unit of work) in a
sorted list of keys: priority first when MSGDLVSQ is PRIORITY, then arrival sequence. That
one structure serves get-first, get-by-id, browse cursors and reinsertion after a backout.
A deep queue keeps only its first messages there and the rest in the store
(message_rows.py), which it reads in the same order: see LocalQueue.
"""
from __future__ import annotations

import heapq
import time
from collections.abc import Iterator
from typing import Any

from sortedcontainers import SortedList

from spark_mq.embedded.server.core.message_rows import QueueRows, Row, order_key
from spark_mq.embedded.server.core.mqsc_attributes import default_attributes
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
# A local queue's DEFTYPE: defined by MQSC, or created from a model (dynamic_queues.py)
PREDEFINED = "PREDEFINED"
TEMPORARY_DYNAMIC = "TEMPDYN"
PERMANENT_DYNAMIC = "PERMDYN"

class Message:
    """One physical message (a segment is one physical message).

    `queue` is the local queue the message was put to: where it lies while available, and
    where a commit (of a put) or a backout (of a get) puts it back. `arrived` is when it
    was put there (time.time()), for the queue's statistics (events/statistics.py); 0.0 for
    one read back from the store, which keeps no such time."""

    __slots__ = ("seq", "md", "body", "props", "persistent", "expires_at", "key", "queue",
                 "arrived")

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
        self.arrived = time.time()

    @property
    def flags(self) -> int:
        return self.md[I_FLAGS]

    def expired(self, now: float) -> bool:
        return self.expires_at is not None and now >= self.expires_at


#: the messages a queue keeps in memory unless told otherwise (--queue-memory)
DEFAULT_QUEUE_MEMORY = 1000


class HotBudget:
    """How many messages the queue manager's queues hold in memory. A queue holds at most
    `queue_max`, and when it passes that keeps `keep`; once all together hold more than
    `limit`, a queue that grows keeps only `least`. A queue reads `refill` more from the
    store when fewer than `low` are left before its boundary."""

    def __init__(self, queue_max: int = DEFAULT_QUEUE_MEMORY, limit: int = 20 * DEFAULT_QUEUE_MEMORY):
        if queue_max < 4:
            raise ValueError(f"a queue must hold at least 4 messages in memory, not {queue_max}")
        self.queue_max, self.limit = queue_max, limit
        self.keep = queue_max // 2
        self.least = max(2, queue_max // 32)
        self.refill = max(2, queue_max // 4)
        self.low = max(1, queue_max // 64)
        self.held = 0


#: the boundary of a queue whose every available message is in memory
EVERYTHING = 1 << 62


class LocalQueue:
    """A local queue's available messages: committed, not taken by a unit of work.

    Those of a shallow queue are all in memory. A queue that grows past its share of memory
    (see HotBudget) keeps only the first of
    its persistent messages in memory, up to `boundary` in delivery order, and leaves the
    others (`cold` of them) in the store, whence `scan` reads them a page at a time and a
    get takes one in (`adopt`). Every available message with a key up to `boundary` is in
    memory; past it, non-persistent messages (never stored) and adopted ones are too.
    `taken` holds the arrival numbers of persistent messages off the queue but still in the
    store (gotten in a unit of work not yet committed), which a read of the store skips.
    """

    def __init__(self, name: str, attrs: dict):
        self.name = name
        self.attrs = default_attributes("QLOCAL")
        self.attrs.update(attrs)
        self.order: SortedList = SortedList()
        self.msgs: dict[int, Message] = {}
        # the keys of persistent messages in memory: what _shed may leave to the store, found
        # without walking past the non-persistent ones (which must stay)
        self.stored_in_memory: SortedList = SortedList()
        self.by_msgid: dict[bytes, set[int]] = {}
        self.by_correlid: dict[bytes, set[int]] = {}
        self.by_groupid: dict[bytes, set[int]] = {}
        self.rows: QueueRows | None = None   # its messages in the store (none: never stored)
        self.budget = HotBudget()
        self.cold = 0
        self.boundary = EVERYTHING
        self.cold_top = -1        # the highest key ever sent to the store
        self.taken: set[int] = set()
        self.reorders = 0         # inserts not at the end: invalidates selector scan marks
        self.pending_puts = 0     # uncommitted puts count toward CURDEPTH
        self.input_shared = 0
        self.input_exclusive = 0
        self.output_count = 0
        self.created = time.gmtime()
        # a dynamic queue deleted while other handles still have it open: they get
        # MQRC_Q_DELETED, as MQ answers them (the name is free for a new queue at once)
        self.deleted = False
        # the queue's statistics (events/statistics.py), made when first counted; they go
        # with the queue (a dynamic queue deleted, a queue redefined)
        self.statistics: Any = None

    def attach(self, rows: QueueRows, budget: HotBudget, stored: int = 0) -> None:
        """Back the queue with its rows in the store, `stored` of them there already
        (read into memory by the first scan)."""
        self.rows, self.budget = rows, budget
        if stored:
            self.cold, self.boundary = stored, -1

    # --- attributes ---------------------------------------------------------------------
    @property
    def kind(self) -> str:
        return "QLOCAL"

    @property
    def definition_type(self) -> str:
        """PREDEFINED, or the DEFTYPE (TEMPDYN, PERMDYN) of the model the queue came from."""
        return str(self.attrs.get("DEFTYPE", PREDEFINED))

    @property
    def available_count(self) -> int:
        """The committed messages on the queue, in memory and in the store."""
        return len(self.msgs) + self.cold

    @property
    def depth(self) -> int:
        return self.available_count + self.pending_puts

    @property
    def by_priority(self) -> bool:
        return self.attrs["MSGDLVSQ"] == "PRIORITY"

    def alter(self, attrs: dict) -> None:
        """Change attributes; a new MSGDLVSQ reorders the messages in memory, and those in
        the store once the store has renumbered them (`renumbered`)."""
        resort = "MSGDLVSQ" in attrs and attrs["MSGDLVSQ"] != self.attrs["MSGDLVSQ"]
        self.attrs.update(attrs)
        if resort:
            self.renumbered()

    def renumbered(self) -> None:
        held = list(self.msgs.values())
        cold, taken = self.cold, set(self.taken)
        self.clear_index()
        self.taken = taken
        if cold:
            # the boundary meant nothing in the new order: everything stored is read anew
            self.cold = cold + sum(1 for m in held if m.persistent)
            self.boundary = -1
            held = [m for m in held if not m.persistent]
        for message in held:
            self.insert(message)

    # --- ordering and indexes -----------------------------------------------------------
    def key_for(self, message: Message) -> int:
        return order_key(message.seq, message.md[I_PRIORITY], self.by_priority)

    def insert(self, message: Message) -> None:
        """A message becomes available: put and committed, backed out, or recovered. A
        persistent one is in the store already; past the boundary it stays only there."""
        key = message.key = self.key_for(message)
        message.queue = self
        self.taken.discard(message.seq)
        if key < max(self.order[-1] if self.order else -1, self.cold_top):
            self.reorders += 1  # lands before messages a selector scan may have passed
        if self.cold and key > self.boundary and message.persistent:
            self.cold += 1
            self.cold_top = max(self.cold_top, key)
            return
        self._hold(message)
        self._shed()

    def remove(self, message: Message, settled: bool = False) -> None:
        """Take a message off the queue (adopted, or found in the store by a scan). Unless
        `settled` (deleted from the store already) a persistent one is `taken` until then."""
        if self.msgs.get(message.key) is message:
            self._drop(message)
        else:
            self.cold -= 1
        if message.persistent and not settled and self.rows is not None:
            self.taken.add(message.seq)

    def settle(self, message: Message) -> None:
        """A message taken off the queue is gone from the store too."""
        self.taken.discard(message.seq)

    def adopt(self, message: Message) -> Message:
        """The in-memory message for one a scan found: itself, taken in from the store."""
        held = self.msgs.get(message.key)
        if held is not None:
            return held
        self._hold(message)
        self.cold -= 1
        return message

    def current(self, message: Message) -> Message | None:
        """`message` if it is still available (a cursor's message), as held now."""
        held = self.msgs.get(message.key)
        if held is not None:
            return held if held.seq == message.seq else None
        if (self.cold and message.persistent and message.key > self.boundary
                and message.seq not in self.taken and self.rows is not None
                and self.rows.exists(message.seq)):
            return message
        return None

    def clear_index(self) -> None:
        """Forget every available message (CLEAR, a deleted queue, a new order)."""
        self.reorders += 1
        self.budget.held -= len(self.msgs)
        self.order = SortedList()
        self.stored_in_memory = SortedList()
        self.msgs.clear()
        self.by_msgid.clear()
        self.by_correlid.clear()
        self.by_groupid.clear()
        self.cold, self.boundary, self.cold_top = 0, EVERYTHING, -1
        self.taken.clear()

    def _hold(self, message: Message) -> None:
        key = message.key
        self.msgs[key] = message
        self.order.add(key)
        if message.persistent:
            self.stored_in_memory.add(key)
        md = message.md
        _index_add(self.by_msgid, md[I_MSGID], key)
        _index_add(self.by_correlid, md[I_CORRELID], key)
        _index_add(self.by_groupid, md[I_GROUPID], key)
        self.budget.held += 1

    def _drop(self, message: Message) -> None:
        key = message.key
        del self.msgs[key]
        self.order.remove(key)
        if message.persistent:
            self.stored_in_memory.remove(key)
        md = message.md
        _index_discard(self.by_msgid, md[I_MSGID], key)
        _index_discard(self.by_correlid, md[I_CORRELID], key)
        _index_discard(self.by_groupid, md[I_GROUPID], key)
        self.budget.held -= 1

    def _shed(self) -> None:
        """Past its share of memory, leave the persistent messages last in delivery order
        only in the store."""
        if self.rows is None:
            return
        held, budget = len(self.msgs), self.budget
        if held > budget.queue_max:
            keep = budget.keep
        elif budget.held > budget.limit and held > budget.least:
            keep = budget.least
        else:
            return
        excess = min(held - keep, len(self.stored_in_memory))
        if excess <= 0:
            return
        shed = [self.msgs[key] for key in self.stored_in_memory[-excess:]]
        for message in shed:
            self._drop(message)
        self.cold += len(shed)
        self.cold_top = max(self.cold_top, shed[-1].key)
        self.boundary = min(self.boundary, shed[0].key - 1)

    def _refill(self) -> None:
        """Read the next page of the store's part into memory, moving the boundary."""
        assert self.rows is not None    # only a queue with rows has cold messages
        size = self.budget.refill
        rows = self.rows.page(self.boundary, size)
        loaded = 0
        for row in rows:
            if row.seq in self.taken or row.key in self.msgs:
                continue
            self._hold(self._message(row))
            loaded += 1
        self.cold -= loaded
        if len(rows) < size:
            self.boundary, self.cold = EVERYTHING, 0
        else:
            self.boundary = rows[-1].key

    def _message(self, row: Row) -> Message:
        message = Message(row.seq, row.md, row.body, row.props, row.expires_at, self)
        message.key = row.key
        message.arrived = 0.0   # not kept in the store: the MQMD's PutDate/PutTime stand in
        return message

    # --- iteration in delivery order ----------------------------------------------------
    def scan(self, cursor: int | None) -> Iterator[Message]:
        """The available messages after `cursor` (a key; None: from the first)."""
        if self.cold and self.order.bisect_right(self.boundary) < self.budget.low:
            self._refill()
        start = 0 if cursor is None else self.order.bisect_right(cursor)
        hot = (self.msgs[key] for key in self.order.islice(start))
        if not self.cold:
            return hot
        return self._with_stored(hot, cursor, None, None, None)

    def candidates(self, msgid: bytes | None, correlid: bytes | None, groupid: bytes | None,
                   cursor: int | None) -> Iterator[Message]:
        """The messages to examine, narrowed by an id index when the get matches on an id."""
        narrowest = None
        for index, value in ((self.by_msgid, msgid), (self.by_correlid, correlid),
                             (self.by_groupid, groupid)):
            if value is not None:
                keys = index.get(value, ())
                if narrowest is None or len(keys) < len(narrowest):
                    narrowest = keys
        if narrowest is None:
            return self.scan(cursor)
        # narrowed: not every key is visited, so a selector scan mark must not advance
        hot = iter([self.msgs[key] for key in sorted(narrowest) if cursor is None or key > cursor])
        if not self.cold:
            return hot
        return self._with_stored(hot, cursor, msgid, correlid, groupid)

    def _with_stored(self, hot: Iterator[Message], cursor: int | None, msgid: bytes | None,
                     correlid: bytes | None, groupid: bytes | None) -> Iterator[Message]:
        """`hot` (in delivery order), and past the boundary the store's part merged in: the
        store is read only when a get goes that far."""
        for message in hot:
            if message.key > self.boundary:
                yield from heapq.merge([message], hot, self._stored_after(
                    cursor, msgid, correlid, groupid), key=_by_key)
                return
            yield message
        yield from self._stored_after(cursor, msgid, correlid, groupid)

    def with_token(self, seq: int, cursor: int | None) -> list[Message]:
        """The message whose MsgToken (its arrival number) is `seq`, after `cursor`."""
        found = [m for m in self.msgs.values() if m.seq == seq]
        if not found and self.cold and seq not in self.taken:
            assert self.rows is not None
            row = self.rows.by_seq(seq)
            if row is not None and row.key > self.boundary:
                found = [self._message(row)]
        return [m for m in found if cursor is None or m.key > cursor]

    def _stored_after(self, cursor: int | None, msgid: bytes | None, correlid: bytes | None,
                      groupid: bytes | None) -> Iterator[Message]:
        """The store's part after `cursor`, in pages growing from a few (most gets want the
        first) to many (a browse of a deep queue)."""
        assert self.rows is not None
        after = self.boundary if cursor is None else max(cursor, self.boundary)
        size = self.budget.low
        while True:
            rows = (self.rows.page(after, size) if msgid is None and correlid is None
                    and groupid is None else
                    self.rows.matching(after, size, msgid, correlid, groupid))
            for row in rows:
                if row.seq not in self.taken and row.key not in self.msgs:
                    yield self._message(row)
            if len(rows) < size:
                return
            after, size = rows[-1].key, min(size * 4, 1024)

    def count_priority(self, threshold: int) -> int:
        """The available messages of priority `threshold` or more."""
        count = sum(1 for m in self.msgs.values() if m.md[I_PRIORITY] >= threshold)
        if self.cold:
            assert self.rows is not None
            beyond = [m.seq for m in self.msgs.values() if m.key > self.boundary and m.persistent]
            count += self.rows.count_priority(self.boundary, threshold, [*beyond, *self.taken])
        return count

    # --- groups and segments ------------------------------------------------------------
    def group_members(self, groupid: bytes) -> list[Message]:
        members = [self.msgs[key] for key in self.by_groupid.get(groupid, ())]
        if self.cold:
            members.extend(self._stored_after(None, None, None, groupid))
        return members

    def logical_segments(self, groupid: bytes, msgseq: int) -> list[Message] | None:
        """The segments of one logical message in offset order, or None while incomplete."""
        segments = sorted((m for m in self.group_members(groupid) if m.md[I_SEQ] == msgseq),
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
        members = self.group_members(groupid)
        last = [m.md[I_SEQ] for m in members if m.flags & CMQC.MQMF_LAST_MSG_IN_GROUP]
        if not last:
            return False
        present = {m.md[I_SEQ] for m in members if m.md[I_OFFSET] == 0}
        if any(seq not in present for seq in range(1, last[0] + 1)):
            return False
        segmented = {m.md[I_SEQ] for m in members if m.flags & SEGMENT_FLAGS}
        return all(self.logical_segments(groupid, seq) is not None for seq in segmented)


def _by_key(message: Message) -> int:
    return message.key


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
