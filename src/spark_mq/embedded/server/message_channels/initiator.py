"""The channel initiator: what START, STOP, PING, RESET and RESOLVE CHANNEL and DISPLAY
CHSTATUS do
(from MQSC and PCF alike), and the watcher that starts the sender of a triggered
transmission queue when messages arrive on it (IBM MQ's channel triggering: the
transmission queue has TRIGGER, its TRIGDATA names the channel, or the sender whose XMITQ
it is). A STOPPED channel is never started by a trigger, as on IBM MQ, nor after a restart
of the queue manager: STOP CHANNEL (and a sender that stops itself) keeps the STOPPED state
and START CHANNEL forgets it (saved_status.py); a sender RETRYING when the queue manager
ends is started again at its next start. An auto-defined cluster-sender (DEFTYPE CLUSSDRA:
no definition, its attributes from the member's CLUSRCVR, clusters/records.py) is started
and stopped as a defined one, as IBM MQ allows, and its STOPPED state is kept the same way.

Commands run under the queue manager's lock (admin/mqsc_apply.py holds it for a script); they only
start threads and set flags, except PING, which waits for the partner with the lock let go.
"""
from __future__ import annotations

import fnmatch
import logging
import threading
from typing import TYPE_CHECKING, Any, cast

from spark_mq.embedded.server.clusters import records as cluster_records
from spark_mq.embedded.server.clusters.definitions import CLUSTER_XMITQ
from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core import channel_status as statuses
from spark_mq.embedded.server.core.queue_objects import LocalQueue
from spark_mq.embedded.server.core.state import FeatureState
from spark_mq.embedded.server.message_channels import requester, saved_status, sync
from spark_mq.embedded.server.message_channels.repository import RepositoryManager
from spark_mq.embedded.server.message_channels.sender import (
    SYNC_OPEN,
    SenderAgent,
    channel_tls,
    cluster_correl_id,
    open_link,
    own_max_msg_length,
    transmission_queue,
)
from spark_mq.embedded.server.verbs.local_connection import LocalConnection
from spark_mq.mqi.constants import CMQC

if TYPE_CHECKING:
    from spark_mq.embedded.server.verbs.qmgr import QueueManager

log = logging.getLogger("spark_mq.embedded")

_RESCAN_SECONDS = 0.2
_ACTIVE = frozenset({statuses.STARTING, statuses.BINDING, statuses.RUNNING, statuses.RETRYING,
                     statuses.PAUSED, statuses.STOPPING})


class ChannelInitiator:
    def __init__(self, qmgr: QueueManager) -> None:
        self.qmgr = qmgr
        self.agents: dict[str, SenderAgent] = {}
        self._stop = threading.Event()
        self._watcher = threading.Thread(target=self._watch, name="channel-initiator",
                                         daemon=True)
        self.repository = RepositoryManager(qmgr, self.start_channel)
        _INITIATOR.set(qmgr, self)

    def start(self) -> None:
        self._restore()
        self._watcher.start()
        self.repository.start()

    def _restore(self) -> None:
        """What the last run kept (saved_status.py): STOPPED channels stay STOPPED, senders
        that were RETRYING try again."""
        table = statuses.table(self.qmgr)
        with self.qmgr.lock:    # as a command would: START CHANNEL runs under it
            kept = saved_status.kept(self.qmgr)
        for name, chltype, status in kept:
            if status == statuses.STOPPED:
                table.put(statuses.ChannelStatus(name, chltype, status=statuses.STOPPED))
                log.info("%s channel %s is STOPPED, as it was when the queue manager ended "
                         "(START CHANNEL starts it)", chltype, name)
            elif chltype in channels.SENDING:
                log.info("sender channel %s was RETRYING when the queue manager ended: "
                         "started again", name)
                try:
                    with self.qmgr.lock:
                        self.start_channel(name)
                except ValueError as exc:   # its definition changed meanwhile
                    log.warning("sender channel %s not started again: %s", name, exc)

    def stop(self) -> None:
        """The queue manager is ending: every channel ends (INACTIVE) after its batch."""
        self._stop.set()
        self.repository.stop()
        with self.qmgr.arrived:   # the watcher waits on `arrived`: it ends now, not at its timeout
            self.qmgr.arrived.notify_all()
        for status in statuses.table(self.qmgr).all():
            if status.status == statuses.RETRYING and status.chltype in channels.SENDING:
                saved_status.remember(self.qmgr, status.name, status.chltype, status.status)
            if status.status in _ACTIVE:
                _request_stop(status, statuses.INACTIVE)
        for agent in list(self.agents.values()):
            agent.thread.join(10)
        if self._watcher.is_alive():
            self._watcher.join(5)

    # --- START ---------------------------------------------------------------------------
    def start_channel(self, name: str, triggered: bool = False) -> str:
        attrs = channels.table(self.qmgr).channels.get(name) or cluster_records.auto_sender(
            self.qmgr, name)    # a CLUSSDRA: auto-defined from a member's CLUSRCVR
        if attrs is None:
            raise ValueError(f"AMQ8147E: IBM MQ object {name} not found.")
        chltype = attrs.get("CHLTYPE")
        table = statuses.table(self.qmgr)
        if chltype in channels.RECEIVING:
            existing = table.get(name, chltype)
            if existing is not None and existing.status == statuses.STOPPED:
                table.remove(existing)   # the partner may start it now
            if chltype == channels.CLUSRCVR:
                _forget_stopped_instances(table, name)
            saved_status.forget(self.qmgr, name, chltype)
            if chltype == channels.REQUESTER and not triggered:
                requester.start_requester(self.qmgr, name, attrs)
            return "AMQ8018I: Start IBM MQ channel accepted."
        if chltype not in channels.SENDING:
            raise ValueError(f"START CHANNEL({name}): a {chltype} channel is not started here "
                             "(valid: a SDR, SVR, CLUSSDR, RCVR, RQSTR or CLUSRCVR channel)")
        if not str(attrs.get("CONNAME", "")).strip():
            raise ValueError(f"START CHANNEL({name}): server channel {name} has no CONNAME: only "
                             "its requester can start it (valid: a SVR with CONNAME)")
        existing = table.get(name, chltype)
        if existing is not None and existing.status in _ACTIVE:
            if triggered:
                return ""
            raise ValueError(f"AMQ9514E: Channel {name} is in use.")
        if existing is not None and existing.status == statuses.STOPPED and triggered:
            return ""
        if not triggered:
            saved_status.forget(self.qmgr, name, chltype)
        status = statuses.ChannelStatus(name, chltype, conname=str(attrs.get("CONNAME", "")),
                                        xmitq=transmission_queue(name, attrs)[0])
        table.put(status)
        agent = SenderAgent(self.qmgr, name, status)
        self.agents[name] = agent
        agent.start()
        if triggered:
            log.info("sender channel %s started by a trigger (messages on %s)", name, status.xmitq)
        return "AMQ8018I: Start IBM MQ channel accepted."

    # --- DELETE --------------------------------------------------------------------------
    def channel_deleted(self, name: str, chltype: str) -> None:
        """DELETE CHANNEL has removed `name`'s definition: its kept state, saved status and
        a status that is not a running instance's (STOPPED) go too (saved_status.erase). A
        running instance ends as it would have (it finds no definition at its next start)."""
        if chltype not in channels.SENDING | channels.RECEIVING:
            return
        table = statuses.table(self.qmgr)
        existing = table.get(name, chltype)
        if existing is not None and existing.status not in _ACTIVE | {statuses.REQUESTING}:
            table.remove(existing)
        saved_status.erase(self.qmgr, name, chltype)

    # --- STOP ----------------------------------------------------------------------------
    def stop_channel(self, name: str, after: str = statuses.STOPPED) -> str:
        # an auto-defined cluster-sender has no definition but status, which STOP acts on
        attrs = channels.table(self.qmgr).channels.get(name) or cluster_records.auto_sender(
            self.qmgr, name)
        if attrs is None:
            raise ValueError(f"AMQ8147E: IBM MQ object {name} not found.")
        chltype = str(attrs.get("CHLTYPE"))
        if chltype not in channels.SENDING | channels.RECEIVING:
            raise ValueError(f"STOP CHANNEL({name}): a {chltype} channel is not stopped here")
        table = statuses.table(self.qmgr)
        status = table.get(name, chltype)
        if chltype == channels.CLUSRCVR and _stop_instances(table, name, after):
            status = None   # each member's instance ends; STOPPED also keeps new ones out
            if after == statuses.INACTIVE:
                return "AMQ8019I: Stop IBM MQ channel accepted."
        if status is None or status.status not in _ACTIVE:
            if after == statuses.INACTIVE:
                raise ValueError(f"AMQ9533E: Channel {name} is not currently active.")
            saved_status.remember(self.qmgr, name, chltype, statuses.STOPPED)
            # a STOPPED channel is not started by triggers, nor is a receiver by its partner
            table.put(statuses.ChannelStatus(name, chltype, status=statuses.STOPPED))
            return "AMQ8019I: Stop IBM MQ channel accepted."
        if after == statuses.STOPPED:
            saved_status.remember(self.qmgr, name, chltype, statuses.STOPPED)
        _request_stop(status, after)
        return "AMQ8019I: Stop IBM MQ channel accepted."

    # --- PING ----------------------------------------------------------------------------
    def ping_channel(self, name: str) -> str:
        attrs = _sending(self.qmgr, name)
        if attrs is None:
            raise ValueError(f"PING CHANNEL({name}): no sender channel of that name (valid: "
                             "a SDR or SVR channel)")
        status = statuses.table(self.qmgr).get(name, str(attrs["CHLTYPE"]))
        if status is not None and status.status in _ACTIVE:
            raise ValueError(f"AMQ9514E: Channel {name} is in use (PING needs it inactive).")
        outcome: list[Any] = []

        def ping() -> None:
            try:
                link, answer = open_link(str(attrs["CONNAME"]), name, self.qmgr.name,
                                         int(attrs["BATCHSZ"]), True,
                                         own_max_msg_length(self.qmgr, attrs),
                                         channel_tls(self.qmgr, attrs))
                link.close()
                outcome.append(answer[0])
            except Exception as exc:   # reported to the command, not raised in this thread
                outcome.append(exc)
        worker = threading.Thread(target=ping, name=f"ping-{name}", daemon=True)
        worker.start()
        while worker.is_alive():
            with self.qmgr.arrived:            # lets the queue manager's lock go meanwhile
                self.qmgr.arrived.wait(0.05)
        if isinstance(outcome[0], Exception):
            raise ValueError(f"AMQ9558E: PING CHANNEL({name}) to {attrs['CONNAME']} failed: "
                             f"{outcome[0]}")
        return f"AMQ8020I: Ping IBM MQ channel complete (partner {outcome[0]})."

    # --- RESOLVE ------------------------------------------------------------------------
    def resolve_channel(self, name: str, action: str) -> str:
        """COMMIT: the in-doubt batch arrived, remove it from the transmission queue (exactly
        the messages the sender's own record names) and count it committed; BACKOUT: it did
        not, leave it to be sent again. Either way the sender's record is no longer in doubt.
        A wrong choice loses or doubles the batch, and the partner's record then tells the
        next start (AMQ9526: RESET CHANNEL), as on IBM MQ."""
        attrs = _sending(self.qmgr, name)
        if attrs is None:
            raise ValueError(f"RESOLVE CHANNEL({name}): no sender channel of that name (valid: "
                             "a SDR or SVR channel)")
        status = statuses.table(self.qmgr).get(name, str(attrs["CHLTYPE"]))
        if status is not None and status.status in _ACTIVE:
            raise ValueError(f"AMQ9514E: Channel {name} is in use (RESOLVE needs it stopped).")
        local = LocalConnection(self.qmgr, "mqm", "runmqchl")
        try:
            sync_hobj = local.open(sync.SYNC_QUEUE, SYNC_OPEN)
            record = sync.read_sender(local, sync_hobj, name)
            doubt = record.indoubt
            if doubt is None:
                return f"AMQ9528I: channel {name} is not in doubt: nothing to resolve."
            removed = 0
            if action == "COMMIT":
                hobj = local.open(str(attrs["XMITQ"]), CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_BROWSE)
                removed = sync.remove_indoubt(local, hobj, doubt.messages)
                record.seq, record.batch = doubt.last, doubt.batch
            record.indoubt = None
            sync.replace_sender(local, sync_hobj, name, record)
            local.commit()
        finally:
            local.close(clean=False)
        if status is not None:
            status.indoubt = False
        log.info("sender channel %s: RESOLVE CHANNEL ACTION(%s) of batch %s (sequence numbers "
                 "%d..%d): %d messages removed from the transmission queue", name, action,
                 doubt.batch, doubt.first, doubt.last, removed)
        return "AMQ8096I: IBM MQ channel resolved."

    # --- RESET ---------------------------------------------------------------------------
    def reset_channel(self, name: str, seq: int = 1) -> str:
        """RESET CHANNEL SEQNUM(seq): the next message is number `seq`. On a sender its own
        record, and the partner's at the next start (the hello carries it); on a receiver
        only its own records. Refused while the channel runs, and on a sender in doubt
        (RESOLVE CHANNEL first: a reset would forget which messages the batch took)."""
        attrs = channels.table(self.qmgr).channels.get(name)
        if attrs is None:
            raise ValueError(f"AMQ8147E: IBM MQ object {name} not found.")
        chltype = str(attrs.get("CHLTYPE"))
        if chltype not in channels.SENDING | channels.RECEIVING:
            raise ValueError(f"RESET CHANNEL({name}): a {chltype} channel has no sequence "
                             "numbers here (valid: a SDR or RCVR channel)")
        wrap = int(attrs["SEQWRAP"])
        if type(seq) is not int or not 1 <= seq <= wrap:
            raise ValueError(f"RESET CHANNEL({name}) SEQNUM({seq}) is not valid (valid: "
                             f"1..{wrap}, the channel's SEQWRAP)")
        status = statuses.table(self.qmgr).get(name, chltype)
        if status is not None and status.status in _ACTIVE:
            raise ValueError(f"AMQ9514E: Channel {name} is in use (RESET needs it stopped).")
        local = LocalConnection(self.qmgr, "mqm", "runmqchl")
        try:
            sync_hobj = local.open(sync.SYNC_QUEUE, SYNC_OPEN)
            if chltype in channels.SENDING:
                try:
                    record = sync.read_sender(local, sync_hobj, name)
                except ValueError:   # damaged: a reset is the way out, not a refusal
                    record = sync.SenderRecord()
                if record.indoubt is not None:
                    raise ChannelInDoubt(f"RESET CHANNEL({name}): the channel is in doubt "
                                         f"(batch {record.indoubt.batch}): RESOLVE CHANNEL "
                                         "first")
                sync.replace_sender(local, sync_hobj, name,
                                    sync.SenderRecord(seq - 1, "", seq,
                                                      partner=record.partner))
            else:
                sync.reset_receiver(local, sync_hobj, name, seq - 1)
            local.commit()
        finally:
            local.close(clean=False)
        if status is not None:
            status.current_seq = status.last_seq = seq - 1
        log.info("%s channel %s: RESET CHANNEL SEQNUM(%d)%s", chltype, name, seq,
                 ": the partner is reset at the next start" if chltype in channels.SENDING
                 else "")
        return "AMQ8023I: IBM MQ channel reset."

    # --- DISPLAY CHSTATUS ----------------------------------------------------------------
    def display_status(self, pattern: str, saved: bool = False
                       ) -> list[tuple[str, dict[str, object]]]:
        """(channel, attributes) of each current instance matching `pattern`, or of each
        saved one (DISPLAY CHSTATUS SAVED: saved_status.py)."""
        if saved:
            return saved_status.saved(self.qmgr, pattern)
        found = []
        for status in statuses.table(self.qmgr).all():
            if fnmatch.fnmatchcase(status.name, pattern or "*"):
                queue = self.qmgr.queues.get(status.xmitq) if status.xmitq else None
                depth = queue.available_count if isinstance(queue, LocalQueue) else None
                found.append((status.name, status.display(depth)))
        return found

    # --- triggered starts ------------------------------------------------------------------
    def _watch(self) -> None:
        while not self._stop.is_set():
            with self.qmgr.arrived:
                self.qmgr.arrived.wait(1.0)
                if self._stop.is_set():
                    return
                for name in self._triggered():
                    try:
                        self.start_channel(name, triggered=True)
                    except ValueError as exc:
                        log.warning("trigger for channel %s: %s", name, exc)
            # at most a few scans a second: every put wakes `arrived`, and a scan must not
            # compete with a busy queue manager's puts for its lock
            self._stop.wait(_RESCAN_SECONDS)

    def _triggered(self) -> list[str]:
        """Sender channels whose triggered transmission queue holds messages."""
        table = statuses.table(self.qmgr)
        due = []
        for name, attrs in channels.table(self.qmgr).channels.items():
            if attrs.get("CHLTYPE") not in channels.SENDING or not str(attrs.get("CONNAME",
                                                                                  "")).strip():
                continue
            queue = self.qmgr.queues.get(str(attrs.get("XMITQ", "")))
            if not isinstance(queue, LocalQueue) or queue.attrs.get("TRIGGER") != "TRIGGER":
                continue
            named = str(queue.attrs.get("TRIGDATA", "")).strip()
            if named and named != name or not queue.available_count:
                continue
            status = table.get(name, str(attrs["CHLTYPE"]))
            if status is None or status.status not in _ACTIVE and status.status != statuses.STOPPED:
                due.append(name)
        return due + self._cluster_triggered()

    def _cluster_triggered(self) -> list[str]:
        """Cluster-senders (defined or auto-defined) that are not running while
        SYSTEM.CLUSTER.TRANSMIT.QUEUE holds messages for them (CorrelId: the channel's name),
        in memory or only in the store (`_waiting_senders`): IBM's channel initiator starts a
        cluster-sender when messages arrive for it, and after a restart for those kept."""
        queue = self.qmgr.queues.get(CLUSTER_XMITQ)
        if not isinstance(queue, LocalQueue) or not queue.available_count:
            return []
        table = statuses.table(self.qmgr)
        due = []
        for name in _waiting_senders(self.qmgr, queue):
            status = table.get(name, channels.CLUSSDR)
            if status is not None and (status.status in _ACTIVE
                                       or status.status == statuses.STOPPED):
                continue
            attrs = channels.table(self.qmgr).channels.get(name)
            if (attrs is not None and attrs.get("CHLTYPE") == channels.CLUSSDR
                    or attrs is None and cluster_records.auto_sender(self.qmgr, name)):
                due.append(name)
        return due


def _waiting_senders(qmgr: QueueManager, queue: LocalQueue) -> set[str]:
    """The cluster-senders that messages on SYSTEM.CLUSTER.TRANSMIT.QUEUE wait for (their
    CorrelId). The CorrelId index knows only the messages held in memory; those kept only in
    the store (every persistent one after a restart until a scan reads it, and the deep part
    of a long queue: core/queue_objects.py) are looked up there for each cluster-sender this
    queue manager knows, else an auto-defined one would never be started for them."""
    names = {correl_id.rstrip(b"\0").decode(errors="replace")
             for correl_id, keys in list(queue.by_correlid.items()) if keys}
    if queue.cold:
        known = {name for name, attrs in channels.table(qmgr).channels.items()
                 if attrs.get("CHLTYPE") == channels.CLUSSDR}
        known |= {str(record.get("CHANNEL", "")) for record in cluster_records.learned(qmgr)
                  if record["KIND"] == cluster_records.CLUSQMGR}
        names |= {name for name in known - names if name and next(iter(queue.candidates(
            None, cluster_correl_id(name), None, None)), None) is not None}
    names.discard("")
    return names


def _sending(qmgr: QueueManager, name: str) -> dict | None:
    """The definition of sending channel `name` (a SDR or a SVR), or None."""
    attrs = channels.table(qmgr).channels.get(name)
    return attrs if attrs is not None and attrs.get("CHLTYPE") in channels.SENDING else None


class ChannelInDoubt(ValueError):
    """A command a channel in doubt cannot take (PCF: MQRCCF_CHANNEL_INDOUBT)."""


def _stop_instances(table: statuses.StatusTable, name: str, after: str) -> int:
    """Stop every running instance of cluster-receiver `name` (one per sending member);
    how many there were."""
    running = [status for status in table.all() if status.name == name
               and status.chltype == channels.CLUSRCVR and status.status in _ACTIVE]
    for status in running:
        _request_stop(status, after)
    return len(running)


def _forget_stopped_instances(table: statuses.StatusTable, name: str) -> None:
    """START CHANNEL of cluster-receiver `name`: the instances STOP CHANNEL ended (one per
    member) are STOPPED no more; each member's sender starts its own again."""
    for status in table.all():
        if (status.name, status.chltype, status.status) == (name, channels.CLUSRCVR,
                                                             statuses.STOPPED):
            table.remove(status)


def _request_stop(status: statuses.ChannelStatus, after: str) -> None:
    status.stop_requested = after
    status.status = statuses.STOPPING if status.status == statuses.RUNNING else status.status
    status.wake.set()
    if status.closer is not None:
        status.closer()


_INITIATOR: FeatureState[ChannelInitiator] = FeatureState(
    "channel initiator", lambda qm: ChannelInitiator(cast("QueueManager", qm)))


def initiator_of(qmgr: QueueManager) -> ChannelInitiator:
    """The queue manager's channel initiator (one is made, not watching triggers, for a queue
    manager started without one: tests that drive the server in-process)."""
    return _INITIATOR.of(qmgr)
