"""The sending message channel agent: one thread per running sender channel, moving its
transmission queue's messages to the partner in batches with assured delivery (see
__init__.py), as IBM MQ's sender does:

* BATCHSZ (the lower of the two ends') messages a batch at most; a batch also ends when the
  transmission queue is empty (after waiting BATCHINT ms for more), and after the message
  that brings the data sent in it to BATCHLIM KB (0: no limit);
* a batch's messages stream to the partner, several frames to a write and no answer per
  message (link.py); only its END waits for one. The link has TCP_NODELAY: otherwise the
  small END would wait for the partner's delayed ACK of the last write;
* MAXMSGL (the lower of the two ends', link.py): a longer transmission message is not sent
  but put on this queue manager's dead-letter queue with MQRC_MSG_TOO_BIG_FOR_CHANNEL in its
  MQDLH (or discarded when it asks for MQRO_DISCARD_MSG; either way with its MQRO_EXCEPTION
  report), and the channel goes on; without a usable dead-letter queue the channel STOPS with
  the message left on the transmission queue (IBM docs: "Dead-letter queues"), except a
  FAST non-persistent one, which is discarded;
* sequence numbers per message, wrapping after SEQWRAP;
* idle for DISCINT seconds: the channel ends normally (INACTIVE) and starts again when
  messages arrive on a triggered transmission queue (initiator.py); idle in between, a
  heartbeat every HBINT seconds checks that the partner is alive;
* a partner that cannot be reached, or a link that breaks: the batch in flight is backed out
  and the channel is RETRYING, SHORTRTY times SHORTTMR seconds apart, then LONGRTY times
  LONGTMR apart, then STOPPED; it resumes by itself when the partner is back;
* STOP CHANNEL ends it after the batch in flight (MODE QUIESCE), STOPPED or INACTIVE as asked;
* a cluster-sender (CLUSSDR, defined or auto-defined from a member's CLUSRCVR:
  clusters/records.py) sends from SYSTEM.CLUSTER.TRANSMIT.QUEUE, which every cluster-sender
  shares, so it opens it for shared input and gets only the messages whose CorrelId is its
  channel name, as IBM's cluster-senders do (`transmission_queue`);
* its own books (sync.py): at each start it reconciles them with the partner's record
  (`SenderAgent._resync`); books that do not reconcile stop it (AMQ9526, STOPPED, no retry)
  until RESET CHANNEL (initiator.py).

Channel events (events/channel.py): Channel Started once a session is RUNNING, and Channel
Stopped when that session ends, qualified by what the channel does next: OK (INACTIVE),
RETRY (RETRYING), DISABLED (STOPPED).
"""
from __future__ import annotations

import logging
import socket
import threading
import time
from typing import TYPE_CHECKING

from spark_mq.embedded.server.clusters import records as cluster_records
from spark_mq.embedded.server.clusters.definitions import CLUSTER_XMITQ
from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core import channel_status as statuses
from spark_mq.embedded.server.core.faults import fail_point
from spark_mq.embedded.server.core.outcomes import OK, MQError
from spark_mq.embedded.server.core.trace import trace_of
from spark_mq.embedded.server.events import channel_started, channel_stopped
from spark_mq.embedded.server.events.channel import (
    STOPPED_DISABLED,
    STOPPED_OK,
    STOPPED_RETRY,
)
from spark_mq.embedded.server.message_channels import link as frames
from spark_mq.embedded.server.message_channels import reallocation, saved_status, sync
from spark_mq.embedded.server.message_channels.dead_letters import (
    dead_letter_queue as dead_letter_queue_of,
)
from spark_mq.embedded.server.message_channels.dead_letters import put_dead_letter
from spark_mq.embedded.server.message_channels.sync import InDoubt, SenderRecord, SyncRecord
from spark_mq.embedded.server.network import tls as server_tls
from spark_mq.embedded.server.resolution.transmission import unwrap
from spark_mq.embedded.server.verbs import reports
from spark_mq.embedded.server.verbs.local_connection import Got, LocalConnection
from spark_mq.embedded.server.verbs.put import put1
from spark_mq.embedded.tls.outbound import ClientTls, TlsRefused, context, handshake
from spark_mq.embedded.wire import ProtocolError
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import MD

if TYPE_CHECKING:
    from spark_mq.embedded.server.verbs.qmgr import QueueManager

log = logging.getLogger("spark_mq.embedded")

_I = MD.index
_POLL_MS = 500                 # a waiting get: how soon a STOP CHANNEL is noticed
_ANSWER_SECONDS = 60           # how long a batch's confirmation may take
_CONNECT_SECONDS = 30
_GET = CMQC.MQGMO_FAIL_IF_QUIESCING | CMQC.MQGMO_WAIT
_XMITQ_OPEN = CMQC.MQOO_INPUT_EXCLUSIVE | CMQC.MQOO_BROWSE | CMQC.MQOO_FAIL_IF_QUIESCING
# every cluster-sender shares clustering's transmission queue: none may hold it alone
_CLUSTER_XMITQ_OPEN = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_BROWSE | CMQC.MQOO_FAIL_IF_QUIESCING
SYNC_OPEN = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_BROWSE | CMQC.MQOO_OUTPUT
#: failures of the channel itself (not of the partner or the network): no retry, STOPPED
_LOCAL_FAULTS = frozenset({CMQC.MQRC_UNKNOWN_OBJECT_NAME, CMQC.MQRC_OBJECT_IN_USE,
                           CMQC.MQRC_NOT_AUTHORIZED})


class ChannelEnded(Exception):
    """A failure after which the channel stops instead of retrying; `reason` its MQ reason
    when it has one of its own (else the one of its cause, if any)."""

    def __init__(self, message: str, reason: int = 0) -> None:
        super().__init__(message)
        self.reason = reason


def cluster_correl_id(channel: str) -> bytes:
    """The CorrelId of the messages on SYSTEM.CLUSTER.TRANSMIT.QUEUE that cluster-sender
    `channel` carries: its name (IBM's rule, "Working with cluster transmission queues")."""
    return channel.encode().ljust(24, b"\0")


def transmission_queue(name: str, attrs: dict) -> tuple[str, int, bytes | None]:
    """(the queue, its open options, the CorrelId of the messages to take or None for all)
    that channel `name` sends from: a SDR or SVR its XMITQ, alone; a CLUSSDR (defined or
    auto-defined) the cluster transmission queue, shared, only its own messages."""
    if attrs.get("CHLTYPE") == channels.CLUSSDR:
        return CLUSTER_XMITQ, _CLUSTER_XMITQ_OPEN, cluster_correl_id(name)
    return str(attrs["XMITQ"]).strip(), _XMITQ_OPEN, None


def definition(qmgr: QueueManager, name: str, chltype: str) -> dict | None:
    """Sending channel `name`'s definition: its own, else (a CLUSSDR) the one auto-defined
    from the cluster records (clusters/records.py)."""
    attrs = channels.of_type(qmgr, name, chltype)
    if attrs is None and chltype == channels.CLUSSDR:
        with qmgr.lock:
            attrs = cluster_records.auto_sender(qmgr, name)
    return attrs


def parse_conname(conname: str) -> tuple[str, int]:
    """CONNAME 'host(port)' (default port 1414); the first of a comma-separated list."""
    first = conname.split(",")[0].strip()
    if "(" in first and first.endswith(")"):
        host, _, port = first[:-1].partition("(")
        return host.strip(), int(port)
    return first, 1414


def channel_tls(qmgr: QueueManager, attrs: dict) -> tuple[ClientTls, str] | None:
    """A sender with SSLCIPH reaches its partner over TLS, with the queue manager's own key
    repository (SSLKEYR) and certificate (the channel's CERTLABL, else the QMGR's), and the
    partner's DN checked against SSLPEER: what IBM MQ's sending MCA does."""
    cipher = str(attrs.get("SSLCIPH") or "").strip()
    if not cipher:
        return None
    label = str(attrs.get("CERTLABL") or qmgr.attrs.get("CERTLABL") or "")
    return ClientTls(server_tls.repository(qmgr), label, str(attrs.get("SSLPEER") or "")), cipher


def open_link(conname: str, channel: str, qm_name: str, batch_size: int, ping: bool,
              max_length: int, tls: tuple[ClientTls, str] | None = None,
              reset: int = 0) -> tuple[frames.Link, list]:
    """Connect to the partner (over TLS when `tls` says so) and say hello (with the
    sequence number a RESET CHANNEL set, if one is still to be told, and this end's
    MAXMSGL); (the link, its OK answer's outputs: partner, BATCHSZ, record, MAXMSGL)."""
    return say_hello(connect(conname, channel, tls), channel, qm_name, batch_size, ping,
                     max_length, reset)


def no_delay(sock: socket.socket) -> None:
    """A batch's small END follows its messages with no reply between: with Nagle's algorithm
    it waits for the partner's delayed ACK, ~40 ms a batch, most of what a batch took."""
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def connect(conname: str, channel: str, tls: tuple[ClientTls, str] | None) -> frames.Link:
    """A link to the partner at `conname` (over TLS when `tls` says so)."""
    host, port = parse_conname(conname)
    sock = socket.create_connection((host, port), timeout=_CONNECT_SECONDS)
    no_delay(sock)
    if tls is not None:
        options, cipher = tls
        sock = handshake(sock, context(options, cipher), cipher, channel, options.peer_name)
    return frames.Link(sock)


def say_hello(link: frames.Link, channel: str, qm_name: str, batch_size: int, ping: bool,
              max_length: int, reset: int = 0) -> tuple[frames.Link, list]:
    """The sender's hello on `link` (see open_link); the link is closed if it fails."""
    try:
        link.send(frames.HELLO, channel, qm_name, batch_size, ping, reset, max_length)
        answer = link.receive(_CONNECT_SECONDS)
        if answer[0] != OK:
            why = answer[2] if len(answer) > 2 and isinstance(answer[2], str) else ""
            raise frames.ChannelRefused(int(answer[1]) if len(answer) > 1 else 0, why)
        if (len(answer) != 6 or not isinstance(answer[2], str) or type(answer[3]) is not int
                or type(answer[5]) is not int):
            raise ProtocolError("a channel hello's answer is [OK, 0, qmgr, BATCHSZ, record, "
                                "MAXMSGL]")
    except BaseException:
        link.close()
        raise
    return link, answer[2:]


class SenderAgent:
    def __init__(self, qmgr: QueueManager, name: str, status: statuses.ChannelStatus) -> None:
        self.qmgr, self.name, self.status = qmgr, name, status
        self.thread = threading.Thread(target=self._run, name=f"sender-{name}", daemon=True)
        self.ran = False    # the last session reached RUNNING: retries start counting again
        # (XMITQ, CONNAME) of the session that reported Channel Started, until its Stopped
        self.reported: tuple[str, str] | None = None
        # a requester's connection to serve instead of calling CONNAME (requester.py): one
        # session, no retries (the requester starts the channel again)
        self.inbound: frames.Link | None = None

    def start(self) -> None:
        self.thread.start()

    def serve(self, link: frames.Link) -> None:
        """Run one session over a requester's connection, in the caller's thread."""
        no_delay(link.sock)
        self.inbound = link
        self._run()

    # --- the channel's life ----------------------------------------------------------------
    def _run(self) -> None:
        status = self.status
        short_left = long_left = 0
        try:
            while True:
                attrs = definition(self.qmgr, self.name, status.chltype)
                if attrs is None:
                    raise ChannelEnded(f"sender channel {self.name} is no longer defined")
                if self.ran or not status.error:   # a first try, or one after RUNNING
                    short_left, long_left = int(attrs["SHORTRTY"]), int(attrs["LONGRTY"])
                    self.ran = False
                try:
                    ended = self._session(attrs)
                    status.status = ended
                    self._stopped(STOPPED_DISABLED if ended == statuses.STOPPED else STOPPED_OK)
                    return
                except ChannelEnded:
                    raise
                except (OSError, ConnectionError, TimeoutError, ProtocolError,
                        frames.ChannelRefused, MQError, TlsRefused) as exc:
                    if isinstance(exc, MQError) and exc.reason in _LOCAL_FAULTS:
                        raise ChannelEnded(f"reason {exc.reason}") from exc
                    status.error = _describe(exc)
                    if self.inbound is not None:   # the requester's to start again
                        status.status = statuses.INACTIVE
                        self._stopped(STOPPED_OK, exc)
                        return
                    if status.stop_requested is not None:
                        status.status = status.stop_requested
                        self._stopped(STOPPED_DISABLED if status.status == statuses.STOPPED
                                      else STOPPED_OK, exc)
                        return
                    if short_left > 0:
                        short_left -= 1
                        wait = int(attrs["SHORTTMR"])
                    elif long_left > 0:
                        long_left -= 1
                        wait = int(attrs["LONGTMR"])
                    else:
                        raise ChannelEnded(f"retries used up; last: {status.error}") from exc
                    log.warning("sender channel %s: %s; RETRYING in %d s", self.name,
                                status.error, wait)
                    status.status = statuses.RETRYING
                    self._stopped(STOPPED_RETRY, exc)
                    self._reallocate()
                    if status.wake.wait(wait) and status.stop_requested is not None:
                        status.status = status.stop_requested
                        return
                    status.wake.clear()
                    status.status = statuses.BINDING
        except ChannelEnded as exc:
            log.error("sender channel %s STOPPED: %s", self.name, exc)
            status.error = str(exc)
            status.status = statuses.STOPPED
            _keep_stopped(self.qmgr, self.name, status.chltype)
            self._stopped(STOPPED_DISABLED, exc)
            self._reallocate()
        finally:
            if status.status == statuses.INACTIVE:
                statuses.table(self.qmgr).remove(status)

    def _reallocate(self) -> None:
        """A cluster-sender that cannot reach its partner: the messages waiting for it that
        may go elsewhere do (reallocation.py)."""
        if self.status.chltype == channels.CLUSSDR:
            reallocation.reallocate(self.qmgr, self.name)

    def _session(self, attrs: dict) -> str:
        """One connection to the partner, until DISCINT (INACTIVE) or STOP CHANNEL."""
        status = self.status
        status.status = statuses.BINDING
        # the agent runs as the queue manager (as IBM MQ's MCA runs as mqm): the channel's
        # books are its own; the transmission queue is opened with MCAUSER's authority. The
        # in-doubt record commits on a connection of its own, before the batch's gets do.
        local = LocalConnection(self.qmgr, "mqm", "runmqchl")
        books = LocalConnection(self.qmgr, "mqm", "runmqchl")
        mcauser = str(attrs.get("MCAUSER") or "").strip()
        link: frames.Link | None = None
        try:
            xmitq, xmitq_open, correl_id = transmission_queue(self.name, attrs)
            if not xmitq:
                raise ChannelEnded("XMITQ is blank (valid: the transmission queue it serves)")
            hobj = local.open(xmitq, xmitq_open | (
                CMQC.MQOO_ALTERNATE_USER_AUTHORITY if mcauser else 0), "", mcauser)
            sync_hobj = local.open(sync.SYNC_QUEUE, SYNC_OPEN)
            try:
                mine = sync.read_sender(local, sync_hobj, self.name)
            except ValueError as exc:
                raise ChannelEnded(f"its sync record on {sync.SYNC_QUEUE} is damaged ({exc}): "
                                   f"RESET CHANNEL({self.name})") from None
            offered = own_max_msg_length(self.qmgr, attrs)
            link, (partner, batch_size, record, max_length) = (
                say_hello(self.inbound, self.name, self.qmgr.name, int(attrs["BATCHSZ"]), False,
                          offered, mine.reset) if self.inbound is not None else open_link(
                str(attrs["CONNAME"]), self.name, self.qmgr.name, int(attrs["BATCHSZ"]), False,
                offered, channel_tls(self.qmgr, attrs), mine.reset))
            link.trace_as(trace_of(self.qmgr), self.name)   # from the hello's answer on
            if type(batch_size) is not int or not 1 <= batch_size <= int(attrs["BATCHSZ"]):
                raise ProtocolError(f"the partner agreed BATCHSZ {batch_size!r:.20} (valid: "
                                    f"1..{attrs['BATCHSZ']})")
            if not 1 <= max_length <= offered:
                raise ProtocolError(f"the partner agreed MAXMSGL {max_length} (valid: "
                                    f"1..{offered}, this end's)")
            try:
                record = SyncRecord.from_wire(record)
            except ValueError as exc:
                raise ProtocolError(str(exc)) from None
            status.rqmname, status.error, status.batch_size = partner, "", batch_size
            mine.partner = partner    # the books every batch commits: saved status's RQMNAME
            status.max_msg_length = max_length
            status.begin(link, attrs, "mqm")
            self._resync(local, hobj, sync_hobj, mine, record, partner)
            status.status = statuses.RUNNING
            self.ran = True
            log.info("sender channel %s RUNNING: partner %s at %s", self.name, partner,
                     attrs["CONNAME"])
            self.reported = (xmitq, str(attrs["CONNAME"]))
            channel_started(self.qmgr, self.name, *self.reported)
            sending = _Sending(self, local, link, hobj, attrs, batch_size, max_length,
                               _Books(books, books.open(sync.SYNC_QUEUE, SYNC_OPEN), sync_hobj,
                                      mine))
            sending.correl_id = correl_id
            return sending.run()
        finally:
            local.close(clean=False)   # a batch not confirmed is backed out: sent again
            books.close(clean=False)
            if link is not None:
                link.close()

    def _stopped(self, qualifier: int, failure: BaseException | None = None) -> None:
        """Channel Stopped for the session that reported Channel Started, if one did."""
        if self.reported is None:
            return
        xmitq, conname = self.reported
        self.reported = None
        channel_stopped(self.qmgr, self.name, xmitq, conname, qualifier, _reason(failure),
                        "" if failure is None else _describe(failure))

    def _resync(self, local: LocalConnection, hobj: int, sync_hobj: int, mine: SenderRecord,
                theirs: SyncRecord, partner: str) -> None:
        """Reconcile this end's books with the partner's record, IBM MQ's way: an in-doubt
        batch the partner committed (its record names that batch's LUWID and last sequence
        number) is removed from the transmission queue, exactly the messages this end's own
        record names; one the partner did not commit (its record is this end's last
        committed state) is backed out: its messages are there to be sent again. Without a
        batch in doubt nothing is removed, whatever the partner says. Anything else is
        AMQ9526: the channel stops until RESET CHANNEL."""
        doubt, status = mine.indoubt, self.status
        status.indoubt = doubt is not None
        said = (theirs.batch, theirs.seq)
        removed = 0
        if doubt is not None and said == (doubt.batch, doubt.last):
            removed = sync.remove_indoubt(local, hobj, doubt.messages)
            mine.seq, mine.batch = doubt.last, doubt.batch
        elif said != (mine.batch, mine.seq):
            raise ChannelEnded(_sequence_error(self.name, partner, mine, theirs))
        if doubt is not None or mine.reset:
            mine.indoubt, mine.reset = None, 0
            sync.replace_sender(local, sync_hobj, self.name, mine)
            local.commit()
        status.current_seq = status.last_seq = mine.seq
        status.last_batch = mine.batch
        status.indoubt = False
        if doubt is not None:
            log.info("sender channel %s: resynchronised; batch %s (%d messages, sequence "
                     "numbers %d..%d) %s", self.name, doubt.batch, len(doubt.messages),
                     doubt.first, doubt.last,
                     f"had arrived: {removed} removed from the transmission queue"
                     if said == (doubt.batch, doubt.last) else
                     "had not arrived: backed out, to be sent again")


class _Books:
    """A sender's record (see sync.py): `local`/`hobj` the connection and SYNCQ handle that
    commit an in-doubt record alone; `batch_hobj` the SYNCQ handle of the connection whose
    unit of work holds the batch's gets (the record commits with them at the batch's end)."""

    def __init__(self, local: LocalConnection, hobj: int, batch_hobj: int,
                 record: SenderRecord) -> None:
        self.local, self.hobj, self.batch_hobj, self.record = local, hobj, batch_hobj, record


def _sequence_error(channel: str, partner: str, mine: SenderRecord, theirs: SyncRecord) -> str:
    doubt = mine.indoubt
    ours = f"last committed sequence number {mine.seq} (batch {mine.batch or 'none'})" + (
        f", in doubt: batch {doubt.batch} ending at {doubt.last}" if doubt else "")
    return (f"AMQ9526E: Message sequence number error for channel {channel}: queue manager "
            f"{partner} last committed sequence number {theirs.seq} (batch "
            f"{theirs.batch or 'none'}), this end has {ours}. Resolve any batch in doubt, "
            f"then RESET CHANNEL({channel}) to start again.")


class _Sending:
    """The RUNNING loop of one session."""

    def __init__(self, agent: SenderAgent, local: LocalConnection, link: frames.Link,
                 hobj: int, attrs: dict, batch_size: int, max_length: int,
                 books: _Books) -> None:
        self.agent, self.local, self.link, self.hobj = agent, local, link, hobj
        self.attrs = attrs
        self.status = agent.status
        self.batch_size = batch_size
        self.max_length = max_length
        self.batch_interval = int(attrs["BATCHINT"])
        # BATCHLIM: KB of transmission data after which the batch ends (0: no limit)
        self.batch_bytes = int(attrs["BATCHLIM"]) * 1024
        self.disconnect_interval = int(attrs["DISCINT"])
        self.heartbeat = max(1, int(attrs["HBINT"]))
        self.seq_wrap = int(attrs["SEQWRAP"])
        self.fast = attrs["NPMSPEED"] == "FAST"
        self.books = books
        self.seq = books.record.seq
        self.correl_id: bytes | None = None   # a cluster-sender's: only its messages

    def run(self) -> str:
        status = self.status
        idle_since = quiet_since = time.monotonic()
        while True:
            if status.stop_requested is not None:
                self.link.send(frames.BYE)
                return status.stop_requested
            sent = self._batch()
            now = time.monotonic()
            if sent:
                idle_since = quiet_since = now
                continue
            if self.disconnect_interval and now - idle_since >= self.disconnect_interval:
                self.link.send(frames.BYE)
                log.info("sender channel %s INACTIVE: idle for %d s (DISCINT)",
                         self.agent.name, self.disconnect_interval)
                return statuses.INACTIVE
            if now - quiet_since >= self.heartbeat:
                self.link.send(frames.HEARTBEAT)
                if self.link.receive(_ANSWER_SECONDS)[0] != frames.HEARTBEAT:
                    raise ProtocolError("a heartbeat must be answered with a heartbeat")
                quiet_since = time.monotonic()

    def _get(self, wait_ms: int) -> Got | None:
        """The next message: waiting up to `wait_ms` (0: not at all)."""
        syncpoint = CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT if self.fast else CMQC.MQGMO_SYNCPOINT
        wait = _GET if wait_ms else CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING
        return self.local.get(self.hobj, syncpoint | wait, wait_ms, correl_id=self.correl_id)

    def _at_batch_limit(self, sent_bytes: int) -> bool:
        """BATCHLIM reached: as on IBM MQ the batch ends after the message that reached it."""
        return 0 < self.batch_bytes <= sent_bytes

    def _next(self) -> Got | None:
        """The batch's next message: at once if there is one, else after the frames streamed
        so far have been sent (a FAST message is not held back while the queue is idle),
        waiting up to BATCHINT."""
        got = self._get(0)
        if got is None and self.batch_interval:
            self.link.flush()
            got = self._get(self.batch_interval)
        return got

    def _batch(self) -> int:
        """Send one batch and have it confirmed; the number of messages (0: none came)."""
        got = self._get(_POLL_MS)
        if got is None:
            return 0
        batch_id = sync.new_luwid()
        in_batch: list[tuple[bytes, bytes]] = []
        first, count, dead = self.seq % self.seq_wrap + 1, 0, 0
        sent_bytes = 0
        status = self.status
        status.current_batch = batch_id
        while got is not None:
            persistent = got.md[_I["Persistence"]] == CMQC.MQPER_PERSISTENT
            batched = persistent or not self.fast
            if len(got.data) > self.max_length:
                self._too_long(got, batched)
                dead += 1
                if count + dead >= self.batch_size or status.stop_requested is not None:
                    break
                got = self._next()
                continue
            self.seq = self.seq % self.seq_wrap + 1
            msg_id = got.md[_I["MsgId"]]
            self.link.stream(frames.MESSAGE, self.seq, msg_id, got.data, got.props, batched)
            status.current_seq = self.seq
            count += 1
            sent_bytes += len(got.data)
            if batched:
                in_batch.append((msg_id, sync.digest(msg_id, got.data)))
                status.current_msgs = len(in_batch)
            if (count + dead >= self.batch_size or status.stop_requested is not None
                    or self._at_batch_limit(sent_bytes)):
                break
            got = self._next()
        self.link.flush()   # the receiver puts the batch while this end records it in doubt
        if not count:   # all dead-lettered: nothing crossed, nothing for the partner to confirm
            self.local.commit()
            status.current_batch = ""
            return dead
        self._in_doubt(InDoubt(batch_id, first, self.seq, in_batch))
        self.link.send(frames.END, batch_id, self.seq)
        answer = self.link.receive(_ANSWER_SECONDS)
        if answer[:2] != [frames.DONE, batch_id]:
            reason = answer[1] if len(answer) > 1 and type(answer[1]) is int else 0
            why = answer[2] if len(answer) > 2 and isinstance(answer[2], str) else str(answer)
            raise ChannelEnded(f"the partner did not take batch {batch_id}: reason {reason}: {why}",
                               reason)
        record = self.books.record
        record.seq, record.batch, record.indoubt = self.seq, batch_id, None
        # the gets and the books commit together: never a batch gone and still in doubt
        sync.replace_sender(self.local, self.books.batch_hobj, self.agent.name, record)
        fail_point("sender-confirmed")   # the partner has committed; this side has not
        self.local.commit()
        status.committed(count, self.seq, batch_id)
        return count

    def _too_long(self, got: Got, batched: bool) -> None:
        """A transmission message longer than the MAXMSGL agreed is not sent: it goes to this
        queue manager's dead-letter queue with MQRC_MSG_TOO_BIG_FOR_CHANNEL (in the batch's
        unit of work when it was got in it), or is discarded when it asks for
        MQRO_DISCARD_MSG, either way with its MQRO_EXCEPTION report (verbs/reports.py), and
        the channel goes on. Without a usable
        dead-letter queue a batched message stops the channel and stays on the transmission
        queue; a FAST non-persistent one, got outside any unit of work, is discarded."""
        qmgr, reason = self.agent.qmgr, int(CMQC.MQRC_MSG_TOO_BIG_FOR_CHANNEL)
        unwrapped = unwrap(got.data)
        queue, qmgr_name, md, body = unwrapped or ("", "", got.md, got.data)
        where = f"{queue or '(no MQXQH)'} at {qmgr_name or '?'}"
        if unwrapped and md[_I["Report"]] & CMQC.MQRO_DISCARD_MSG:
            log.warning("sender channel %s: a message for %s is longer than the channel's "
                        "MAXMSGL (%d) and is discarded, as its MQRO_DISCARD_MSG asks",
                        self.agent.name, where, self.max_length)
            reports.exception(qmgr, put1, self.local.conn, md, body, reason, batched)
            return
        dead_letter_queue = dead_letter_queue_of(qmgr.attrs, self.attrs)
        failed = "USEDLQ(NO) or DEADQ blank" if not dead_letter_queue else ""
        if dead_letter_queue:
            try:
                put_dead_letter(self.local, qmgr.name, dead_letter_queue, md, body, got.props,
                                reason, queue, qmgr_name, batched)
            except MQError as exc:
                failed = f"its put failed with reason {exc.reason}"
        what = (f"sender channel {self.agent.name}: a message of {len(got.data)} bytes for "
                f"{where} is longer than the channel's MAXMSGL agreed with the partner "
                f"({self.max_length}; reason {reason})")
        if not failed:
            log.warning("AMQ9544W: %s: it went to the dead-letter queue %s", what,
                        dead_letter_queue)
            if unwrapped:
                reports.exception(qmgr, put1, self.local.conn, md, body, reason, batched)
        elif batched:
            raise ChannelEnded(f"{what}, and there is no usable dead-letter queue ({failed}): "
                               "the message stays on the transmission queue", reason)
        else:
            log.error("AMQ9565E: %s, and there is no usable dead-letter queue (%s): the "
                      "NPMSPEED(FAST) non-persistent message is discarded", what, failed)

    def _in_doubt(self, doubt: InDoubt) -> None:
        """Make the batch's record durable before its END: whatever dies from here on, the
        next start knows exactly which messages the batch took."""
        record = self.books.record
        record.indoubt = doubt
        sync.replace_sender(self.books.local, self.books.hobj, self.agent.name, record)
        self.books.local.commit()
        self.status.indoubt = True
        fail_point("sender-indoubt")     # recorded, END not sent: the partner has nothing


def _keep_stopped(qmgr: QueueManager, name: str, chltype: str) -> None:
    """A channel that stopped itself stays STOPPED across a restart, as one that STOP
    CHANNEL stopped (IBM docs, "Restarting stopped channels")."""
    try:
        saved_status.remember(qmgr, name, chltype, statuses.STOPPED)
    except MQError as exc:   # a queue manager ending under it: the status still says STOPPED
        log.warning("sender channel %s: its STOPPED state is not kept (reason %d)", name,
                    exc.reason)


def own_max_msg_length(qmgr: QueueManager, attrs: dict) -> int:
    """The MAXMSGL this end of channel `attrs` offers at start (link.own_max_msg_length)."""
    return frames.own_max_msg_length(int(attrs["MAXMSGL"]), int(qmgr.attrs["MAXMSGL"]))


def _reason(failure: BaseException | None) -> int:
    """The MQ reason of a channel's failure: its own, the partner's, else the connection's."""
    while failure is not None:
        if isinstance(failure, (MQError, frames.ChannelRefused)) or (
                isinstance(failure, ChannelEnded) and failure.reason):
            return int(failure.reason)
        if not isinstance(failure, ChannelEnded):
            return int(CMQC.MQRC_CONNECTION_BROKEN)   # the network or the partner's frames
        failure = failure.__cause__
    return 0


def _describe(exc: BaseException) -> str:
    if isinstance(exc, MQError):
        return f"MQ reason {exc.reason}"
    return str(exc) or type(exc).__name__
