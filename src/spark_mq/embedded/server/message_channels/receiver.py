"""The receiving message channel agent: a sender's hello on the listener port starts it (in
that connection's thread), and it puts each message it receives where the message's MQXQH
says, as IBM MQ's receiver does (IBM docs: "The receiving MCA"):

* with MQPMO_SET_ALL_CONTEXT, so the message arrives with its sender's context (MsgId,
  CorrelId, UserIdentifier, PutApplName, PutDate/Time) and properties;
* as the MCA user admission.admit_channel settles at the hello (a CHLAUTH rule's MCAUSER,
  the channel's, else mqm, which the default BLOCKUSER('*MQADMIN') refuses on a queue
  manager with users), whose authority each queue's MQOPEN is checked for, as PUTAUT says
  (IBM docs: "PUT authority (PUTAUT)"): DEF (and ONLYMCA, z/OS's name for it) the MCA user
  needs +put and +setall on the queue and +setall on the queue manager; CTX (and ALTMCA) the
  message's UserIdentifier is the alternate user, which needs +put, while the MCA user needs
  +altusr and the +setall ones. A queue manager without users checks nothing;
* the agent's connection is the queue manager's own (as IBM MQ's MCA process runs as mqm):
  its sync records and the dead-letter queue are its bookkeeping, not the partner's puts;
* a put refused for authority (MQRC_NOT_AUTHORIZED) is not retried: it goes to the
  dead-letter queue at once with that reason, so a forged command for the command server or
  a forged trigger message for an initiation queue from a user without authority there
  lands on the dead-letter queue and nothing runs. A command that is delivered is noted
  with its channel, address and MCA user for the command server's log (admin.log_command);
* a cluster command (for SYSTEM.CLUSTER.COMMAND.QUEUE) that arrives on a CLUSRCVR is put
  with a MsgId of this MCA's making, attested with the channel and the partner's
  queue-manager name (clusters/trust.py): the repository manager keeps nothing else;
* to a queue of this queue manager, or onwards to a third one through this one's name
  resolution (a middle hop: resolution/names.py picks the next transmission queue);
* a put that fails on a full or put-inhibited queue is retried MRRTY times MRTMR ms apart;
  one that still fails goes to the dead-letter queue behind an MQDLH naming the reason
  (AMQ9544 in the log), or is discarded when it asks for MQRO_DISCARD_MSG; either way
  with its MQRO_EXCEPTION report (verbs/reports.py). Without a usable dead-letter queue
  (DEADQ blank, USEDLQ(NO), or its put failing too) the batch is backed out and the
  channel ends: the messages stay on the sender's transmission queue, nothing is lost.
  NPMSPEED(FAST) non-persistent messages, which travel outside the batch, are
  dead-lettered the same way and, without a usable dead-letter queue, discarded with
  AMQ9565 in the log (IBM docs: "Safety of messages", "Fast, nonpersistent messages"):
  the channel goes on.

The batch and the channel's sync record (its LUWID and last sequence number) commit in one
unit of work (see __init__.py). The receiver keeps the sender to its books: each message's
sequence number must follow on from the last (1..SEQWRAP, wrapping to 1: the record's, then
the batch's previous message's), a batch must hold 1..BATCHSZ (agreed) messages, no
message may be longer than the MAXMSGL agreed (link.py), and a batch's END must name a
well-formed LUWID and the last message's number. Anything else ends the channel with the
unfinished batch backed out (AMQ9526 in the log for a sequence number).

A receiver channel runs one instance (a cluster-receiver one for each sending member): a
hello while the last one has not ended, RUNNING, PAUSED or STOPPING (STOP CHANNEL cut its
link while it committed a batch), is refused with MQRC_CHANNEL_NOT_AVAILABLE (AMQ9514 in the
log), as IBM MQ refuses it, else the new one would read the sync record before that commit
and the sender would send the batch again; the sender retries. That check and the new
instance's status are made under the queue manager's lock, which STOP CHANNEL holds, so a
STOP cannot fall between them and be undone.

Channel events (events/channel.py): Channel Started once the hello is answered, Channel
Stopped when the sender has gone: qualifier OK after its BYE (or STOP CHANNEL
STATUS(INACTIVE)), DISABLED after STOP CHANNEL, ERROR when the connection broke or the
channel ended on a message it could not deliver.
"""
from __future__ import annotations

import logging
import re
import socket
import time
from typing import TYPE_CHECKING

from spark_mq.embedded.server.clusters import trust as cluster_trust
from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core import channel_status as statuses
from spark_mq.embedded.server.core.faults import fail_point, pause_point
from spark_mq.embedded.server.core.outcomes import FAILED, NONE, OK, MQError
from spark_mq.embedded.server.core.qmgr_attributes import COMMAND_QUEUE
from spark_mq.embedded.server.core.security import admission
from spark_mq.embedded.server.core.trace import trace_of
from spark_mq.embedded.server.events import channel_started, channel_stopped
from spark_mq.embedded.server.events.channel import (
    STOPPED_DISABLED,
    STOPPED_ERROR,
    STOPPED_OK,
)
from spark_mq.embedded.server.message_channels import link as frames
from spark_mq.embedded.server.message_channels import serving, sync
from spark_mq.embedded.server.message_channels.dead_letters import (
    dead_letter_queue as dead_letter_queue_of,
)
from spark_mq.embedded.server.message_channels.dead_letters import put_dead_letter
from spark_mq.embedded.server.network import tls
from spark_mq.embedded.server.resolution.transmission import unwrap
from spark_mq.embedded.server.verbs import reports
from spark_mq.embedded.server.verbs.local_connection import LocalConnection
from spark_mq.embedded.server.verbs.put import put1
from spark_mq.embedded.wire import FrameReader, ProtocolError
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import MD, default_md

if TYPE_CHECKING:
    from spark_mq.embedded.server.verbs.qmgr import QueueManager

log = logging.getLogger("spark_mq.embedded")

_I = MD.index
#: put failures a receiver waits out (MRRTY x MRTMR) before it dead-letters the message
_RETRYABLE = frozenset({CMQC.MQRC_Q_FULL, CMQC.MQRC_PUT_INHIBITED})
_SYNC_OPEN = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_BROWSE | CMQC.MQOO_OUTPUT
_STALE_HANDLE = frozenset({CMQC.MQRC_Q_DELETED, CMQC.MQRC_HOBJ_ERROR})
_MAX_HANDLES = 64
_QMGR_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")
#: PUTAUT values that put as the message's UserIdentifier (an alternate user the MCA user
#: vouches for with ALTUSR); DEF and ONLYMCA put as the MCA user itself
_CONTEXT_PUTAUT = frozenset({"CTX", "ALTMCA"})


def serve_request(qmgr: QueueManager, sock: socket.socket, reader: FrameReader, args: list,
                  peer: str, tls_session: tls.TlsSession | None = None) -> None:
    """A requester channel's request (requester.py), which the listener hands here as it
    hands a sender's hello to `serve`: serving.py answers it."""
    serving.serve_request(qmgr, sock, reader, args, peer, tls_session)


def serve(qmgr: QueueManager, sock: socket.socket, reader: FrameReader, hello: list,
          peer: str, max_frame: int, max_elements: int,
          tls_session: tls.TlsSession | None = None) -> None:
    """Run the receiving end of the channel the hello names until the sender says BYE or the
    connection ends; every failure ends only this channel."""
    channel, partner, batch_size, ping, offered_length = frames.check_hello(hello)
    link = frames.Link(sock, reader)
    link.trace_as(trace_of(qmgr), channel, received=[frames.HELLO, *hello])
    attrs = channels.table(qmgr).channels.get(channel)
    if attrs is not None and attrs.get("CHLTYPE") not in channels.RECEIVING:
        attrs = None   # a requester receives as a receiver does (server-initiated)
    table = statuses.table(qmgr)
    if attrs is None:
        link.send(FAILED, CMQC.MQRC_UNKNOWN_CHANNEL_NAME,
                  f"no receiver channel {channel} is defined on queue manager {qmgr.name}")
        return
    if not _QMGR_NAME.fullmatch(partner):   # a rule input and a log insert: a name, nothing else
        log.warning("receiver channel %s refused the sender from %s: its queue-manager name "
                    "%r is not one (1 to 48 of A-Z a-z 0-9 . _ / %%)", channel, peer, partner)
        link.send(FAILED, CMQC.MQRC_Q_MGR_NAME_ERROR,
                  f"receiver channel {channel} on {qmgr.name}: the sender's queue-manager "
                  "name is not valid (1 to 48 of A-Z a-z 0-9 . _ / %)")
        return
    refused = tls.check_channel(qmgr, channel, tls_session, peer)   # SSLCIPH, SSLCAUTH, SSLPEER
    if refused is not None:
        link.send(FAILED, refused, f"receiver channel {channel} on {qmgr.name} refused the "
                                   "sender's TLS session (see its log)")
        return
    chltype = str(attrs["CHLTYPE"])
    address = peer.rpartition("(")[0]
    status = statuses.ChannelStatus(channel, chltype, conname=peer, rqmname=partner,
                                    status=statuses.RUNNING)
    status.closer = link.cut   # STOP CHANNEL ends the channel's wait for the sender
    pause_point("receiver-admitting")
    try:
        # STOP CHANNEL runs under the lock: the check and the instance's status must not
        # fall on either side of it, or a STOP between them is undone by the status put
        with qmgr.lock:
            refusal = _instance_refusal(qmgr, table, channel, chltype, partner)
            if refusal is None:
                runs_as = admission.admit_channel(
                    qmgr, channel, address, attrs, partner,
                    tls_session.peer_dn if tls_session else None,
                    tls_session.issuer_dn if tls_session else None)
                if not ping:
                    status.begin(link, attrs, runs_as)
                    table.put(status)
    except MQError as exc:
        log.warning("receiver channel %s refused the sender from %s (queue manager %s): "
                    "reason %d", channel, peer, partner, exc.reason)
        link.send(FAILED, exc.reason, f"receiver channel {channel} refused this sender")
        return
    if refusal is not None:
        link.send(FAILED, *refusal)
        return
    max_length = min(offered_length, frames.own_max_msg_length(int(attrs["MAXMSGL"]),
                                                                int(qmgr.attrs["MAXMSGL"])))
    if ping:
        link.send(OK, NONE, qmgr.name, min(batch_size, int(attrs["BATCHSZ"])), None, max_length)
        return
    local = LocalConnection(qmgr, "mqm", "amqrmppa")
    local.conn.acts_for = runs_as
    started = False
    failure: BaseException | None = None
    try:
        reader.max_frame, reader.max_elements = max_frame, max_elements
        sync_hobj = local.open(sync.SYNC_QUEUE, _SYNC_OPEN)
        record = sync.read(local, sync_hobj, channel, partner)
        reset = frames.hello_reset(hello, int(attrs["SEQWRAP"]))
        if reset:   # RESET CHANNEL on the sender: the next message is number `reset`
            record = sync.SyncRecord("", reset - 1)
            sync.replace(local, sync_hobj, channel, partner, record)
            local.commit()
            log.info("receiver channel %s: sequence number reset to %d by sender queue "
                     "manager %s", channel, reset, partner)
        status.last_seq = status.current_seq = record.seq
        status.last_batch = record.batch
        status.batch_size = min(batch_size, int(attrs["BATCHSZ"]))
        status.max_msg_length = max_length
        link.send(OK, NONE, qmgr.name, status.batch_size, record.to_wire(), max_length)
        log.info("receiver channel %s started: sender queue manager %s at %s", channel,
                 partner, peer)
        channel_started(qmgr, channel, "", peer)
        started = True
        failure = _Receiving(qmgr, local, link, attrs, status, channel, partner, sync_hobj,
                             runs_as, address).run()
    except (ConnectionError, OSError, TimeoutError, ProtocolError, MQError) as exc:
        failure = exc
        if status.stop_requested is None:
            log.info("receiver channel %s ended: %s", channel, exc or type(exc).__name__)
    except BaseException as exc:   # reported below, then raised on
        failure = exc
        raise
    finally:
        local.close(clean=False)   # an unfinished batch is backed out
        status.status = status.stop_requested or statuses.INACTIVE
        if status.status == statuses.INACTIVE:
            table.remove(status)
        if started:
            _report_stop(qmgr, channel, peer, status, failure)


def _instance_refusal(qmgr: QueueManager, table: statuses.StatusTable, channel: str,
                      chltype: str, partner: str) -> tuple[int, str] | None:
    """Why the channel's instance for `partner` cannot start now (reason, text), or None.
    An instance that has not ended (RUNNING, PAUSED, or STOPPING while it finishes the
    batch STOP CHANNEL found it committing) holds the channel: a second one would read the
    sync record before that batch commits, and the sender, told its batch had not
    arrived, would send it again. IBM MQ refuses a second instance of a receiver channel
    (AMQ9514 here, AMQ9558 at the sender); the sender retries and, once the old one has
    ended, reads the record of what it committed. Called under the queue manager's lock."""
    existing = table.get(channel, chltype)
    if existing is not None and existing.status == statuses.STOPPED:
        return (CMQC.MQRC_CHANNEL_STOPPED_BY_USER,
                f"receiver channel {channel} on {qmgr.name} is STOPPED (START CHANNEL it)")
    if chltype == channels.CLUSRCVR:   # one instance for each member that sends to it
        existing = table.get(channel, chltype, partner)
    if existing is None or existing.status in (statuses.INACTIVE, statuses.STOPPED):
        return None   # ended: its unit of work is over (serve's finally)
    log.warning("AMQ9514E: Channel %s is in use: receiver channel %s on %s refused a new "
                "start from queue manager %s while its instance is %s", channel, channel,
                qmgr.name, partner, existing.status)
    return (CMQC.MQRC_CHANNEL_NOT_AVAILABLE,
            f"receiver channel {channel} on {qmgr.name} is {existing.status}: it starts "
            "again once that instance has ended")


def _report_stop(qmgr: QueueManager, channel: str, peer: str, status: statuses.ChannelStatus,
                 failure: BaseException | None) -> None:
    """Channel Stopped for a receiver that had reported Channel Started."""
    if status.stop_requested is not None:   # STOP CHANNEL: the closed link is no failure
        qualifier = STOPPED_DISABLED if status.stop_requested == statuses.STOPPED else STOPPED_OK
        failure = None
    else:
        qualifier = STOPPED_OK if failure is None else STOPPED_ERROR
    reason = 0 if failure is None else (
        failure.reason if isinstance(failure, MQError) else int(CMQC.MQRC_CONNECTION_BROKEN))
    text = "" if failure is None else str(failure) or type(failure).__name__
    channel_stopped(qmgr, channel, "", peer, qualifier, reason, text)


class _Receiving:
    def __init__(self, qmgr: QueueManager, local: LocalConnection, link: frames.Link,
                 attrs: dict, status: statuses.ChannelStatus, channel: str, partner: str,
                 sync_hobj: int, runs_as: str = "mqm", address: str = "") -> None:
        self.qmgr, self.local, self.link, self.attrs = qmgr, local, link, attrs
        self.runs_as = runs_as   # the MCA user (admission.admit_channel): whose authority puts use
        self.address = address
        self.status, self.channel, self.partner, self.sync_hobj = status, channel, partner, sync_hobj
        # the sender's books as this end keeps them: the last sequence number received
        # (committed, or of the batch so far), SEQWRAP, the BATCHSZ agreed in the hello
        self.last_seq = status.last_seq
        self.seq_wrap = int(attrs["SEQWRAP"])
        self.batch_limit = status.batch_size or int(attrs["BATCHSZ"])
        self.length_limit = status.max_msg_length   # MAXMSGL agreed in the hello
        # messages received since the last batch ended, NPMSPEED(FAST) ones outside the batch
        # included: what MSGS counts, as IBM's does
        self.received = 0
        self.failure: MQError | None = None   # why the channel ended, if it failed
        self.idle_timeout = max(int(attrs["HBINT"]), 30) * 2 + 30
        # output handles by (queue, queue manager, alternate user): a batch mostly goes to a
        # few queues, and an MQOPEN per message would cost more than the put
        self.handles: dict[tuple[str, str, str], int] = {}

    def run(self) -> MQError | None:
        """Receive until the sender says BYE (None) or a message cannot be delivered anywhere
        (that failure, once the sender has been told)."""
        try:
            self._run()
        except _NoDeadLetterQueue as exc:
            self.local.backout()
            why = (f"receiver channel {self.channel} on {self.qmgr.name} cannot put a message "
                   f"for {exc.queue} at {exc.qmgr_name or self.qmgr.name} (reason {exc.reason}) "
                   "and has no usable dead-letter queue"
                   + (f" (reason {exc.dlq_reason})" if exc.dlq_reason else ""))
            log.error("%s: the batch is backed out and the channel ends", why)
            self._drain_batch()
            self.link.send(FAILED, exc.reason, why)
            self.failure = exc
        return self.failure

    def _drain_batch(self) -> None:
        """Read the rest of the batch, so that the sender reads the refusal as the answer to
        its END (and stops) rather than meeting a closed connection (and retrying)."""
        while self.link.receive(self.idle_timeout)[0] not in (frames.END, frames.BYE):
            pass

    def _run(self) -> None:
        while self.status.stop_requested is None:
            value = self.link.receive(self.idle_timeout)
            verb = value[0]
            if verb == frames.MESSAGE:
                self._message(*frames.check_message(value))
            elif verb == frames.END:
                if len(value) != 3 or not isinstance(value[1], str) or type(value[2]) is not int:
                    raise ProtocolError("a batch end is [END, batch id, last seq]")
                if not self._end(value[1], value[2]):
                    return
            elif verb == frames.HEARTBEAT:
                self.link.send(frames.HEARTBEAT)
            elif verb == frames.BYE:
                return
            else:
                raise ProtocolError(f"unknown channel frame {verb!r}")

    def _message(self, seq: int, msg_id: bytes, data: bytes, props: list | None,
                 in_batch: bool) -> None:
        if self.received >= self.batch_limit:
            raise self._violation(f"a batch of more than {self.batch_limit} messages (the "
                                  "BATCHSZ agreed)")
        expected = self.last_seq % self.seq_wrap + 1
        if seq != expected:
            raise self._sequence_error(f"message sequence number {seq} (expected {expected}: "
                                       f"1..SEQWRAP {self.seq_wrap}, following "
                                       f"{self.last_seq})")
        if len(data) > self.length_limit:
            raise self._violation(f"a transmission message of {len(data)} bytes (the MAXMSGL "
                                  f"agreed is {self.length_limit})")
        self.last_seq = self.status.current_seq = seq
        self.received += 1
        if in_batch:
            self.status.current_msgs += 1
        unwrapped = unwrap(data)
        if unwrapped is None:   # not a transmission message: nowhere to put it but the DLQ
            self._undeliverable(default_md(), data, props, CMQC.MQRC_XQH_ERROR, "", "",
                                in_batch)
            return
        queue, qmgr_name, md, body = unwrapped
        self._deliver(queue, qmgr_name, md, body, props, in_batch)

    def _deliver(self, queue: str, qmgr_name: str, md: list, body: bytes, props: list | None,
                 in_batch: bool) -> None:
        options = CMQC.MQPMO_SET_ALL_CONTEXT | (
            CMQC.MQPMO_SYNCPOINT if in_batch else CMQC.MQPMO_NO_SYNCPOINT)
        alternate = ""
        if self.attrs.get("PUTAUT") in _CONTEXT_PUTAUT:
            alternate = md[_I["UserIdentifier"]].decode(errors="replace").strip()
        tries = int(self.attrs["MRRTY"])
        while True:
            try:
                hobj = self._handle(queue, qmgr_name, alternate)
                md = self._vouched(hobj, md)
                put = self.local.put(hobj, md, options, props, body)
                if self.local.queue_of(hobj) == COMMAND_QUEUE:
                    self._note_command(put)
                return
            except MQError as exc:
                if exc.reason in _STALE_HANDLE:    # deleted or redefined since it was opened
                    self.handles.pop((queue, qmgr_name, alternate), None)
                    continue
                if exc.reason in _RETRYABLE and tries > 0 and self.status.stop_requested is None:
                    tries -= 1
                    self.status.status = statuses.PAUSED
                    time.sleep(int(self.attrs["MRTMR"]) / 1000)
                    self.status.status = statuses.RUNNING
                    continue
                self._undeliverable(md, body, props, exc.reason, queue, qmgr_name, in_batch)
                return

    def _vouched(self, hobj: int, md: list) -> list:
        """A cluster command arriving on a CLUSRCVR gets a MsgId of this MCA's making, by
        which the repository manager learns who sent it (clusters/trust.py): the channel
        and the partner its handshake admitted, not what the command claims."""
        if (self.attrs.get("CHLTYPE") != channels.CLUSRCVR
                or self.local.queue_of(hobj) != cluster_trust.COMMAND_QUEUE):
            return md
        md = list(md)
        md[_I["MsgId"]] = cluster_trust.attest(self.qmgr, self.channel, self.partner)
        return md

    def _handle(self, queue: str, qmgr_name: str, alternate: str) -> int:
        key = (queue, qmgr_name, alternate)
        hobj = self.handles.get(key)
        if hobj is None:
            if len(self.handles) >= _MAX_HANDLES:
                self.local.close_handle(self.handles.pop(next(iter(self.handles))))
            options = CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT | (
                CMQC.MQOO_ALTERNATE_USER_AUTHORITY
                if self.attrs.get("PUTAUT") in _CONTEXT_PUTAUT else 0)
            hobj = self.handles[key] = self.local.open_as(self.runs_as, queue, options,
                                                          qmgr_name, alternate)
        return hobj

    def _note_command(self, put: list) -> None:
        """A command put for the command server: remember where it came from, for the log of
        administrative commands (admin.log_command)."""
        admission.note_message_origin(
            self.qmgr, put[_I["MsgId"]], put[_I["UserIdentifier"]],
            f"receiver channel {self.channel} from {self.address or 'an unknown address'}, "
            f"partner queue manager {self.partner!r}, put by MCA user {self.runs_as!r}")

    def _undeliverable(self, md: list, body: bytes, props: list | None, reason: int,
                       queue: str, qmgr_name: str, in_batch: bool) -> None:
        """To the dead-letter queue; without one a batched message ends the channel
        (_NoDeadLetterQueue) and a FAST non-persistent one, outside any batch, is discarded.
        A message that asks for MQRO_DISCARD_MSG is discarded instead; either way its
        MQRO_EXCEPTION report follows (verbs/reports.py)."""
        if md[_I["Report"]] & CMQC.MQRO_DISCARD_MSG:
            log.warning("receiver channel %s: a message for %s at %s could not be put there "
                        "(reason %d) and is discarded, as its MQRO_DISCARD_MSG asks",
                        self.channel, queue, qmgr_name or self.qmgr.name, reason)
            reports.exception(self.qmgr, put1, self.local.conn, md, body, reason, in_batch)
            return
        dead_letter_queue = dead_letter_queue_of(self.qmgr.attrs, self.attrs)
        try:
            if not dead_letter_queue:
                raise _NoDeadLetterQueue(reason, queue, qmgr_name)
            try:
                put_dead_letter(self.local, self.qmgr.name, dead_letter_queue, md, body, props,
                                reason, queue, qmgr_name, in_batch)
            except MQError as exc:
                raise _NoDeadLetterQueue(reason, queue, qmgr_name, exc.reason) from None
        except _NoDeadLetterQueue as exc:
            if in_batch:
                raise
            self._discard(exc)
            return
        log.warning("AMQ9544W: receiver channel %s: a message for %s at %s could not be put "
                    "there and went to the dead-letter queue %s (reason %d)", self.channel,
                    queue, qmgr_name or self.qmgr.name, dead_letter_queue, reason)
        reports.exception(self.qmgr, put1, self.local.conn, md, body, reason, in_batch)

    def _discard(self, failed: _NoDeadLetterQueue) -> None:
        """A FAST non-persistent message travelled outside the batch's unit of work: there is
        nothing to back out, so without a dead-letter queue it is lost, as on IBM MQ."""
        log.error("AMQ9565E: receiver channel %s on %s has no usable dead-letter queue%s: a "
                  "NPMSPEED(FAST) non-persistent message for %s at %s that could not be put "
                  "there (reason %d) is discarded", self.channel, self.qmgr.name,
                  f" (reason {failed.dlq_reason})" if failed.dlq_reason else
                  (" (USEDLQ(NO))" if self.attrs.get("USEDLQ") == "NO" else " (DEADQ is blank)"),
                  failed.queue, failed.qmgr_name or self.qmgr.name, failed.reason)

    def _violation(self, what: str) -> ProtocolError:
        """The sender broke the channel's rules: the channel ends, the batch backed out."""
        text = (f"receiver channel {self.channel} (sender queue manager {self.partner}): "
                f"{what}; the channel ends, its unfinished batch backed out")
        log.warning("%s", text)
        return ProtocolError(text)

    def _sequence_error(self, what: str) -> ProtocolError:
        text = (f"AMQ9526E: Message sequence number error for channel {self.channel} (sender "
                f"queue manager {self.partner}): {what}; the channel ends, its unfinished "
                "batch backed out")
        log.error("%s", text)
        return ProtocolError(text)

    def _end(self, batch: str, seq: int) -> bool:
        """Commit the batch with the sync record; False when it cannot be (channel ends)."""
        frames.check_end([frames.END, batch, seq])
        if not self.received:
            raise self._violation(f"batch {batch} is empty (valid: 1..{self.batch_limit} "
                                  "messages)")
        if seq != self.last_seq:
            raise self._sequence_error(f"batch {batch} ends at sequence number {seq}, its "
                                       f"last message was {self.last_seq}")
        pause_point("receiver-committing")   # the batch is whole: a race with a new instance
        try:
            sync.replace(self.local, self.sync_hobj, self.channel, self.partner,
                         sync.SyncRecord(batch, seq))
            self.local.commit()
            fail_point("receiver-committed")      # the sender is in doubt from here on
        except MQError as exc:
            self.local.backout()
            self.link.send(FAILED, exc.reason, f"receiver channel {self.channel} could not "
                                               f"commit batch {batch}")
            self.failure = exc
            return False
        self.status.committed(self.received, seq, batch)
        self.received = 0
        self.link.send(frames.DONE, batch)
        return True


class _NoDeadLetterQueue(MQError):
    """A message that can be put neither where it goes nor on the dead-letter queue: the
    batch is backed out and the channel ends (the sender keeps the messages)."""

    def __init__(self, reason: int, queue: str, qmgr_name: str, dlq_reason: int = 0) -> None:
        super().__init__(reason)
        self.queue, self.qmgr_name, self.dlq_reason = queue, qmgr_name, dlq_reason

