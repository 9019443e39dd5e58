"""Spark's reader classes for "mq": streaming (offsets tied to syncpoint commits) and batch.

## Streaming: how a microbatch becomes exactly-once

Facts about Spark (pyspark 4.3, see the project's reference notes): the driver-side reader
lives in one long-lived Python process; `latestOffset(start)` is only called once every
batch ending at or before `start` is in Spark's commit log; the source's `commit(end)` is
late and is never called for the last batch; executors share nothing with the driver.

So the DRIVER gets the messages:

1. `latestOffset(start)`: everything up to `start` is durable in Spark, so first MQCMIT the
   batch this process holds (its unit of work), or, right after a restart, remove from the
   queue whatever is still there of the batch ending at `start` (its unit of work was
   backed out when the old driver died, but Spark has it). Then MQGET the next batch under
   syncpoint on the same connection, leave the unit of work OPEN, and return an end offset
   `{"seq": n, "ids": ...}` that carries the batch's id records (spark_mq.mq.records).
   Spark writes that offset to its offset log before it runs the batch: the ids are
   durable before any row is handed over.
2. `partitions(start, end)`: the held messages, split into `numPartitions` partitions
   (executors only turn them into Arrow record batches). When this process does not hold
   the batch (Spark replays an unfinished batch after a restart), its messages are gotten
   again by id, under syncpoint, and held like any other batch.
3. The listener's note that Spark's commit log has it (spark_mq/reader/commit_notes.py:
   the query's progress event, relayed by the listener `spark_mq.register` adds), or else
   the next `latestOffset(end)` or `commit(end)`, whichever comes first, commits it. With
   Trigger.AvailableNow Spark calls `latestOffset` once more after the last batch, so the
   run ends with every delivered message committed off the queue.
4. `query.stop()` calls nothing here: Spark sends the process SIGTERM. With the listener,
   the reader first waits for its word on the batches that finished before the stop and
   commits them; then it dies and MQ backs out the rest (the batch in flight and any
   prefetched one). Without it, the batch Spark committed last is backed out too and
   removed by id at the next start (as after a crash).

With `prefetch` (default) batch N+1 is gotten on a second connection, in its own unit of
work, while Spark runs batch N; it is handed over (its ids written to the offset log) only
at the next `latestOffset`, after batch N's MQCMIT.

A crash at any moment backs the open unit of work out in MQ (broken connection); nothing is
committed in MQ before Spark's commit log has the batch, and a batch Spark finished is
removed by id before anything new is read. A connection that breaks while the driver lives
(queue manager restart) is treated the same way: reconnect, remove the finished batch by
id, and never deliver again a message the previous batch delivered, not even when it comes
back twice (its removal and the commit of the next gets both lost: _without_delivered).
While the queue manager stays away, the triggers of a processing-time query end without a
batch, each after the reconnect attempt that is due, so that its progress shows the outage
(spark_mq/reader/outages.py). Limits: the reader must
be the queue's only consumer (another consumer could take backed-out messages), and
Spark's asynchronous progress tracking must stay off (it calls latestOffset before the
previous batch is in the commit log). `stop()` and interpreter exit back out explicitly,
because MQDISC would commit open work; a SIGTERM ends the process without MQDISC.

minMessagesPerTrigger (spark_mq/reader/limits.py): `latestOffset` returns `start` (no batch)
while fewer messages are available than the minimum and maxTriggerDelay has not passed; a
prefetch stays held for the batch it was made for.

atLeastOnce: the same without ids (a replayed batch is simply the next messages).
atMostOnce: gets outside syncpoint, with read-ahead unless readAhead=false: messages are
off the queue as soon as they are gotten, so a driver crash loses the batch in flight and
the messages in the client's read-ahead buffer (MQ's own read-ahead loss window).
"""
from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field

from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadLimit,
    ReadMaxRows,
    SupportsTriggerAvailableNow,
)
from pyspark.sql.types import StructType

from spark_mq.columns import Source
from spark_mq.errors import MQConnectorError, reports_to_spark
from spark_mq.mq import records
from spark_mq.mq.connecting import forget_outage, last_outage, outage_now
from spark_mq.mq.exceptions import connection_lost
from spark_mq.mq.message import Message
from spark_mq.mq.orphans import wait_for_sole_consumer
from spark_mq.options import ReadOptions
from spark_mq.reader.commit_notes import TakesCommitNotes, one_at_a_time
from spark_mq.reader.limits import TriggerMinimum, batch_limits
from spark_mq.reader.outages import no_batch_during_outage, settled_later_during_outage
from spark_mq.reader.progress import ReaderProgress
from spark_mq.reader.rows import MessagesPartition, arrow_schema, record_batches
from spark_mq.reader.slots import ConnectionSlot, live_slots, reading_what
from spark_mq.reader.start import StartsOnFirstCall

log = logging.getLogger(__name__)


@dataclass
class _HeldBatch:
    start_seq: int
    end: dict
    messages: list[Message]
    slot: ConnectionSlot | None
    commit_lost: bool = False   # its MQCMIT's connection broke: the outcome is unknown
    # records of messages an earlier batch delivered that came back into this batch's unit of
    # work (_without_delivered): its commit consumes them, a lost commit must remove them too
    came_back: list[bytes] = field(default_factory=list)


@dataclass
class _Prefetch:
    start_seq: int
    slot: ConnectionSlot
    future: Future


@reports_to_spark("initialOffset", "getDefaultReadLimit", "prepareForTriggerAvailableNow",
                  "latestOffset", "partitions", "commit", "read")
@one_at_a_time("initialOffset", "prepareForTriggerAvailableNow", "latestOffset", "partitions",
               "commit", "reportLatestOffset")
class MQStreamReader(StartsOnFirstCall, TakesCommitNotes, DataSourceStreamReader,
                     SupportsTriggerAvailableNow):
    """See the module docstring for the protocol. Made from the options as given (parsed
    ReadOptions, or the data source's own), it checks them at Spark's first call
    (spark_mq.reader.start)."""

    def __init__(self, options: ReadOptions | Mapping[str, str], schema: StructType):
        super().__init__(options, schema)
        self._slots: list[ConnectionSlot] = []
        self._held: dict[int, _HeldBatch] = {}
        self._prefetch: _Prefetch | None = None
        self._settled_seq = 0               # every batch up to this seq is settled in MQ
        self._just_settled: set[bytes] = set()  # records of the batches settled last (and
        #                                         what came back with them): _without_delivered
        self._remaining: int | None = None  # Trigger.AvailableNow: messages still to deliver
        self._last_seq = 0
        self._orphans_checked = False       # see _await_orphaned_work
        self._progress = ReaderProgress()   # what reportLatestOffset tells Spark (progress.py)
        self._minimum: TriggerMinimum | None = None   # minMessagesPerTrigger (limits.py)

    # executors get a copy without the driver's connections
    def __getstate__(self):
        state = dict(self.__dict__)
        state.update(_slots=[], _held={}, _prefetch=None, _remaining=None, _just_settled=set(),
                     _notes_lock_obj=None, _minimum=None)
        return state

    # --- connections --------------------------------------------------------------------
    def _all_slots(self) -> list[ConnectionSlot]:
        if not self._slots:
            # two connections when prefetching: one holds batch N while the other gets N+1
            count = 2 if self.options.prefetch else 1
            self._slots = [ConnectionSlot(self.options, i) for i in range(count)]
            live_slots.update(self._slots)
        return self._slots

    def _busy(self) -> set[int]:
        busy = {id(h.slot) for h in self._held.values() if h.slot is not None}
        if self._prefetch is not None:
            busy.add(id(self._prefetch.slot))
        return busy

    def _free_slot(self) -> ConnectionSlot:
        busy = self._busy()
        for slot in self._all_slots():
            if id(slot) not in busy:
                return slot
        raise MQConnectorError("internal error: no free MQ connection for the next batch")

    def _idle_slot(self) -> ConnectionSlot:
        """A slot not getting a batch in the background (MQINQ needs no unit of work)."""
        prefetching = self._prefetch.slot if self._prefetch is not None else None
        return next(s for s in self._all_slots() if s is not prefetching)

    def _offset(self, seq: int, batch: list[Message]) -> dict:
        offset: dict = {"seq": seq}
        if self.options.exactly_once:
            offset["ids"] = records.encode([m.record for m in batch])
        notify = self.notify_id() if self.options.syncpoint else None
        if notify is not None:
            offset["notify"] = notify   # where the listener says Spark committed it (commit_notes)
        return offset

    # --- Spark's driver-side calls ------------------------------------------------------
    def initialOffset(self) -> dict:
        # connects and opens the queue: bad connection options or an unknown queue fail
        # the query when it starts
        self.start()
        self._all_slots()[0].call(lambda consumer: None)
        return self._offset(0, [])

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadMaxRows(self.options.max_messages)

    def prepareForTriggerAvailableNow(self) -> None:
        self.start()
        self._remaining = self._idle_slot().call(lambda c: c.depth())
        log.info("Trigger.AvailableNow: %d messages on %s at start", self._remaining,
                 self.options.queue)
        if self.options.min_messages is not None:
            log.info("Trigger.AvailableNow: minMessagesPerTrigger=%d is ignored, the run "
                     "reads everything on %s at its start", self.options.min_messages,
                     self.options.queue)

    def available_now(self) -> bool:
        return self._remaining is not None

    @no_batch_during_outage
    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:
        self.start()
        seq = int(start["seq"])
        self._await_orphaned_work(seq)
        self._settle(start)
        for held in self._held.values():
            if held.start_seq == seq:
                return held.end  # asked again for the batch we hold: the same answer
        max_messages, max_bytes = self._limits(limit)
        if max_messages <= 0:
            self._drop_prefetch()
            return start
        if self._below_minimum():
            return start     # the prefetch, if any, stays held for this same batch
        batch, slot = self._take_prefetch(seq)
        if slot is not None:
            batch, slot = self._top_up(batch, slot, max_messages, max_bytes)
        while True:
            if slot is None:
                slot = self._free_slot()
                wait = self.options.wait_interval_ms
                batch = slot.call_retrying(
                    lambda c, wait=wait: c.get_batch(max_messages, max_bytes, wait))
            got = len(batch)
            batch, came_back = self._without_delivered(batch)
            if batch:
                break
            moved = slot.call_retrying(self._commit_if_consumed)   # lost: the moves were backed out
            if moved:
                self._just_settled = set()   # what came back is consumed: it cannot come back
            if not got and not moved:
                return start
            # a batch of moves only ends where MAXUMSGS ends the unit of work, not where the
            # queue ends: get again
            slot = None  # it held only messages delivered before: get a real batch
        end = self._offset(seq + 1, batch)
        self._progress.delivered(batch)
        self._held[seq + 1] = _HeldBatch(seq, end, batch, slot if self.options.syncpoint else None,
                                         came_back=came_back)
        self._last_seq = seq + 1
        if self._remaining is not None:
            self._remaining -= len(batch)
        self._start_prefetch(seq + 1)
        self._trigger_minimum().batch_planned()
        return end

    def _trigger_minimum(self) -> TriggerMinimum:
        if self._minimum is None:
            self._minimum = TriggerMinimum(self.options.min_messages,
                                           self.options.max_trigger_delay_ms)
        return self._minimum

    def _below_minimum(self) -> bool:
        """minMessagesPerTrigger: fewer messages available than the minimum, and the delay
        not passed. Available: the queue's depth (which leaves out messages gotten in open
        units of work) plus what the prefetch holds for this batch."""
        minimum = self._trigger_minimum()
        if not minimum.active or self._remaining is not None:
            return False
        prefetched = 0
        prefetch = self._prefetch
        if prefetch is not None:
            try:
                prefetched = len(prefetch.future.result())
            except Exception:  # noqa: BLE001 - _take_prefetch reports it and gets again
                prefetched = 0
        depth = self._idle_slot().call_retrying(lambda c: c.depth())
        return minimum.holds_back(depth + prefetched)

    @staticmethod
    def _commit_if_consumed(consumer) -> bool:
        # only poison moves, or messages an earlier (durable) batch delivered: nothing of
        # this unit of work goes to Spark, so it can be committed now
        if consumer.open_operations:
            consumer.commit()
            return True
        return False

    def _without_delivered(self, batch: list[Message]) -> tuple[list[Message], list[bytes]]:
        """The batch without the messages the batches just settled already delivered, and
        the records of those it drops.

        They can only be here if a settled batch's connection broke before its MQCMIT (its
        gets went back to the queue) while this batch was being got on the other connection.
        They stay in this batch's unit of work, so its commit consumes them. That commit can
        break too and give them back again (a batch of only such messages is committed at
        once, _commit_if_consumed; a held one with its batch). So the records of those that
        came back stay, and only those: the rest of the settled batches is off the queue by
        now (committed, or removed by id while this batch's gets held the ones it has), and
        a message put later with one of their MsgIds is a new message. They go when that
        commit succeeds, or at the next settle, which replaces them by what it settled, the
        dropped records of its batches included (_HeldBatch.came_back): a commit of those
        that is lost removes them by id like the batch's own messages."""
        if not self._just_settled or not batch:
            return batch, []
        kept = [m for m in batch if m.record not in self._just_settled]
        came_back = [m.record for m in batch if m.record in self._just_settled]
        self._just_settled = set(came_back)
        if came_back:
            log.warning("%d messages of %s delivered by the previous batch came back after a "
                        "broken connection; not delivered again", len(came_back),
                        self.options.queue)
        return kept, came_back

    def _limits(self, limit: ReadLimit) -> tuple[int, int]:
        max_messages, max_bytes = batch_limits(self.options, limit)
        if self._remaining is not None:
            max_messages = min(max_messages, self._remaining)
        return max_messages, max_bytes

    # --- prefetch: get batch N+1 while Spark runs batch N -------------------------------
    def _start_prefetch(self, start_seq: int) -> None:
        if not self.options.prefetch or self._prefetch is not None:
            return
        max_messages, max_bytes = self._limits(ReadAllAvailable())
        if max_messages <= 0:
            return
        slot = self._free_slot()
        wait = self.options.wait_interval_ms
        future = slot.submit(lambda c: c.get_batch(max_messages, max_bytes, wait))
        self._prefetch = _Prefetch(start_seq, slot, future)

    def _take_prefetch(self, seq: int):
        """(batch, slot) of a prefetch made for a batch starting at `seq`, else (None, None)."""
        prefetch, self._prefetch = self._prefetch, None
        if prefetch is None:
            return None, None
        try:
            batch = prefetch.future.result()
        except Exception as exc:  # noqa: BLE001 - fall back to a get now
            log.warning("prefetch of the next batch from %s failed (%s); getting it again",
                        self.options.queue, exc)
            prefetch.slot.reset()
            return None, None
        if prefetch.start_seq != seq:
            try:
                prefetch.slot.call(lambda c: c.backout())  # made for another batch: give it back
            except MQConnectorError as exc:
                if not connection_lost(exc):
                    raise
                prefetch.slot.reset()    # a lost connection gave it back already
            return None, None
        return batch, prefetch.slot

    def _top_up(self, batch: list[Message], slot: ConnectionSlot, max_messages: int, max_bytes: int):
        """A prefetched batch may be short (the queue was nearly empty then): add what has
        arrived since, in the same unit of work. (None, None) if its connection broke."""
        room, size = max_messages - len(batch), sum(len(m.payload) for m in batch)
        if room <= 0 or size >= max_bytes:
            return batch, slot
        try:
            return batch + slot.call(lambda c: c.get_batch(room, max_bytes - size, 0)), slot
        except MQConnectorError as exc:
            if not connection_lost(exc):
                raise
            slot.reset()  # the prefetched gets were backed out with the connection
            return None, None

    def _drop_prefetch(self) -> None:
        prefetch, self._prefetch = self._prefetch, None
        if prefetch is not None:
            try:
                prefetch.future.result()
                if self.options.syncpoint:
                    prefetch.slot.call(lambda c: c.backout())
            except Exception:  # noqa: BLE001
                prefetch.slot.reset()

    # --- planning -----------------------------------------------------------------------
    def partitions(self, start: dict, end: dict) -> Sequence[InputPartition]:
        start_seq, end_seq = int(start["seq"]), int(end["seq"])
        if end_seq == start_seq:
            return []
        self.start()
        held = self._held.get(end_seq)
        if held is None or held.start_seq != start_seq:
            self._await_orphaned_work(start_seq)
            held = self._replay(start, end)
        return self._split(held.messages)

    def _replay(self, start: dict, end: dict) -> _HeldBatch:
        """Spark runs a batch this process does not hold: after a restart, the last batch of
        the offset log had not finished. Get exactly its messages again (exactlyOnce)."""
        start_seq, end_seq = int(start["seq"]), int(end["seq"])
        # the batch ending at `start` was settled before `end` was written (latestOffset)
        self._settled_seq = max(self._settled_seq, start_seq)
        self._drop_prefetch()
        slot = self._free_slot()
        if self.options.exactly_once:
            wanted = records.decode(end.get("ids", ""))
            batch, missing = slot.call_retrying(lambda c: c.get_records(wanted))
            if missing:
                log.warning("replaying batch %d of %s: %d of its %d messages are no longer on "
                            "the queue (expired, or taken by another consumer)", end_seq,
                            self.options.queue, missing, len(wanted))
        else:
            opts = self.options
            batch = slot.call_retrying(lambda c: c.get_batch(opts.max_messages, opts.max_bytes, 0))
        held = _HeldBatch(start_seq, end, batch, slot if self.options.syncpoint else None)
        self._progress.delivered(batch)
        self._held[end_seq] = held
        self._last_seq = max(self._last_seq, end_seq)
        return held

    def _split(self, messages: list[Message]) -> list[MessagesPartition]:
        if not messages:
            return []
        parts = max(1, min(self.options.num_partitions, len(messages) // 1000 + 1))
        size = -(-len(messages) // parts)
        source = Source.of(self.options)   # a topic's managed queue: the executors do not know it
        return [MessagesPartition(i, messages[i * size:(i + 1) * size], source)
                for i in range(parts) if messages[i * size:(i + 1) * size]]

    def _await_orphaned_work(self, seq: int) -> None:
        """Once per process, on a restart (Spark resumes at `seq` > 0): wait until no
        earlier driver's connection still holds messages of a batch Spark finished (see
        spark_mq/mq/orphans.py). This process holds nothing yet, so its own handles are
        closed first and do not count."""
        if self._orphans_checked or seq <= 0 or not self.options.exactly_once:
            self._orphans_checked = True
            return
        for slot in self._slots:
            slot.reset()
        wait_for_sole_consumer(self.options.connection, self.options.queue,
                               self.options.orphaned_work_timeout_ms)
        self._orphans_checked = True

    # --- settling: MQ catches up with Spark's commit log --------------------------------
    def commit(self, end: dict) -> None:
        self.start()
        self._settle(end)

    @settled_later_during_outage
    def settle_committed(self, end: dict) -> None:
        """The listener's word: Spark's commit log has every batch up to `end` (commit_notes).
        Only batches this process holds are committed; anything else waits for Spark's own
        calls, as without a listener."""
        self._settle_held(int(end.get("seq", 0)))

    def _settle_held(self, seq: int) -> bool:
        """MQCMIT the held batches up to `seq`; whether there were any."""
        done = sorted(s for s in self._held if s <= seq)
        if not done:
            return False
        self._just_settled = set()
        for s in done:
            held = self._held[s]
            if self.options.exactly_once:
                self._just_settled.update(m.record for m in held.messages)
                self._just_settled.update(held.came_back)
            if held.slot is not None:
                self._commit_held(held)
            self._progress.committed(held.messages)
            del self._held[s]
        self._settled_seq = max(self._settled_seq, seq)
        return True

    def _settle(self, durable: dict) -> None:
        """Everything up to `durable` is in Spark's commit log: make MQ agree."""
        seq = int(durable["seq"])
        if seq <= 0 or self._settle_held(seq):
            return
        if seq > self._settled_seq:
            if self.options.exactly_once and durable.get("ids"):
                # a restart: Spark finished this batch but MQ backed it out; take it off now
                self._remove(records.decode(durable["ids"]), seq)
            self._settled_seq = seq

    def _commit_held(self, held: _HeldBatch) -> None:
        if held.slot is None:
            return      # nothing of it is held in an open unit of work
        if not held.commit_lost:
            try:
                held.slot.call(lambda c: c.commit())
                return
            except MQConnectorError as exc:
                if not connection_lost(exc):
                    raise
                # the outcome of a commit on a broken connection is unknown: treat the batch
                # like after a restart (exactlyOnce: take whatever came back off by id). The
                # mark outlives an outage that ends this call (outages.py): committing on the
                # new connection would commit nothing and leave those messages to come back
                log.warning("connection lost while committing a batch of %s; reconnecting",
                            self.options.queue)
                held.slot.reset()
                held.commit_lost = True
        if self.options.exactly_once:
            self._remove([m.record for m in held.messages] + held.came_back,
                         int(held.end["seq"]), held.slot)

    def _remove(self, wanted: list[bytes], seq: int, slot: ConnectionSlot | None = None) -> None:
        def remove(consumer):
            removed = consumer.remove_records(wanted)
            consumer.commit()
            return removed
        removed = (slot or self._free_slot()).call_retrying(remove)
        if removed:
            log.info("removed %d messages of finished batch %d from %s", removed, seq,
                     self.options.queue)

    def reportLatestOffset(self) -> dict | None:
        """The queue's figures for this trigger's progress (see progress.py)."""
        what = reading_what(self.options.queue)
        outage = outage_now(what)
        if outage is not None:
            # a trigger that gave back (outages.py): a connect here would only fail again
            return self._progress.in_outage(self.options.queue, self._last_seq, outage,
                                            last_outage(what))
        try:
            depth = self._idle_slot().call(lambda c: c.depth())
        except Exception:  # noqa: BLE001 - progress reporting must not fail the query
            # a connection lost since its last use: the outage is worth showing all the same
            last = last_outage(what)
            return {"queue": self.options.queue, "outage": None, "lastOutage": last} if last else None
        held = [h.messages for h in self._held.values()]
        prefetch = self._prefetch
        if prefetch is not None and prefetch.future.done() and prefetch.future.exception() is None:
            held.append(prefetch.future.result())
        report = self._progress.report(self.options.queue, depth, held,
                                       sum(slot.poison_moved for slot in self._slots), self._last_seq)
        report["outage"], report["lastOutage"] = None, last_outage(what)
        if self.options.require_text:
            # the held batches' moves too: they are committed with the batches Spark runs,
            # and the report after the last batch may be the last one a query shows
            report["notTextMessagesMoved"] = (
                sum(slot.not_text_moved for slot in self._slots)
                + sum(h.slot.not_text_open for h in self._held.values() if h.slot is not None))
            report["notTextMovedTo"] = next((slot.not_text_destination for slot in self._slots
                                             if slot.not_text_destination), None)
        return report

    # --- executors ----------------------------------------------------------------------
    def read(self, partition: InputPartition) -> Iterator:
        assert isinstance(partition, MessagesPartition)
        yield from record_batches(partition.messages, partition.source, self.specs,
                                   arrow_schema(self.schema))

    def stop(self) -> None:
        forget_outage(reading_what(self.options.queue))
        # backs out: a held batch comes back and is settled on restart
        for slot in self._slots:
            try:
                slot.close(timeout=30)
            except Exception:  # noqa: BLE001
                pass
        self._slots = []
        self._held.clear()
        self._prefetch = None
