"""One client connection to the embedded queue manager: its frames, served one at a time
on the connection's own thread (network/listener.py accepts it, network/bindings.py accepts
a bindings one), and the verbs they name.

Each frame is a list [verb, args...]; the verbs, their arguments, which are answered and
when each may come are the table both ends share (embedded/wire_verbs.py), and each is bound
here to the handler that serves it (`_DISPATCH`, where `bind` refuses a verb without a handler
or a handler without a verb). Synchronous verbs are answered with [CompCode, Reason,
outputs...]; asynchronous puts are not answered at all (their outcome is counted for
MQSTAT), which is what lets a client pipeline them, and neither are heartbeats (HB).

Heartbeats, as IBM MQ's channel heartbeat interval (HBINT): the CONN answer tells the client
the interval, and the client sends a heartbeat whenever its connection has been quiet for a
third of it. A connection from which nothing arrives for a whole interval between two calls
(a process that is stopped, a host that died, a network that split) is ended and its unit of
work backed out. Until then it is held, exactly as IBM MQ holds it: the locks of its open
unit of work stay in place. A frame that does not decode, or does not fit its verb's entry
in the table, closes that one connection: the unit of work it had open is backed out and
the server carries on.

What one client can make the queue manager hold is bounded (a hostile one included); the
listener bounds the connections at once (network/listener.py):

- before its MQCONN succeeds, a connection's frames are small (`PRE_CONN_MAX_FRAME`, refused
  from the length alone, before the body is read) and each must arrive whole within the
  connect timeout (`--connect-timeout`, default `DEFAULT_CONNECT_TIMEOUT`): a socket that
  sends nothing, or trickles, is dropped;
- once connected, a frame may be as large as the largest put MQ takes allows twice over
  (the body and its properties each up to 100 MB: a segmented put may pass MAXMSGL) plus
  `_FRAME_HEADROOM`; a larger one
  ends the connection. Every decode is bounded in depth and in values (wire.py);
- a connection counts against its SVRCONN channel's MAXINST and MAXINSTC from its CONN
  (`Instances`), before its credentials are checked.

Every verb passes `Session._call`, where the trace (core/trace.py, START TRACE TYPE(API))
records it when it runs; when it does not, the cost is one boolean test.

A sender channel of another queue manager arrives on the same port: its first frame (CHL)
makes this connection that channel's receiver (message_channels/receiver.py). CHL after a
successful MQCONN is a protocol error.
"""
from __future__ import annotations

import logging
import select
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core.outcomes import FAILED, NONE, OK, WARNING, MQError, WarnedPut
from spark_mq.embedded.server.core.security import admission
from spark_mq.embedded.server.core.state import Connection
from spark_mq.embedded.server.core.trace import trace_of
from spark_mq.embedded.server.message_channels import receiver
from spark_mq.embedded.server.network import tls
from spark_mq.embedded.server.resolution.names import BIND_NOT_FIXED
from spark_mq.embedded.server.verbs import consumers
from spark_mq.embedded.server.verbs.pubsub import session_verbs as pubsub_verbs
from spark_mq.embedded.server.verbs.qmgr import QueueManager
from spark_mq.embedded.wire import FrameReader, ProtocolError, reply_frame
from spark_mq.embedded.wire_verbs import (
    BACK,
    BEFORE_CONNECT,
    CBWAIT,
    CHL,
    CHLR,
    CLOSE,
    CMIT,
    CONN,
    CONNECTED,
    CONNT,
    DISC,
    GET,
    GETN,
    HB,
    INQ,
    OPEN,
    PING,
    PUT,
    PUT1,
    PUTA,
    SET,
    STAT,
    Verb,
    bind,
    check_request,
)
from spark_mq.mqi.constants import CMQC

log = logging.getLogger("spark_mq.embedded")


#: IBM MQ's default HBINT for server-connection channels, in seconds
DEFAULT_HEARTBEAT_INTERVAL = 300.0
#: seconds a connection has for each frame before its MQCONN succeeds (--connect-timeout)
DEFAULT_CONNECT_TIMEOUT = 30.0
#: bytes a frame may have before MQCONN succeeds: a CONN or a PING (a few hundred bytes), a
#: CONNT (its token up to IBM's 8192 characters, core/security/tokens.py)
PRE_CONN_MAX_FRAME = 16 * 1024
PRE_CONN_MAX_ELEMENTS = 256
#: values one request may hold once connected (a PUT's properties are four values each)
REQUEST_MAX_ELEMENTS = 1 << 18
#: room beyond twice the largest put for a PUT's MQMD and the encoding of its properties
_FRAME_HEADROOM = 1024 * 1024
#: the largest message one MQPUT may carry (IBM MQ's 100 MB), segmented or not
MQ_LARGEST_PUT = 104_857_600
#: what IBM MQ's channel-instance limits answer (MAXINST, MAXINSTC, MaxChannels)
NOT_AVAILABLE = CMQC.MQRC_CHANNEL_NOT_AVAILABLE


class Instances:
    """The running instances of each SVRCONN channel, in all and per client address, for
    MAXINST and MAXINSTC (IBM: connections from one network address are one client)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._per_channel: dict[str, int] = {}
        self._per_client: dict[tuple[str, str], int] = {}

    def take(self, qmgr: QueueManager, channel: str, address: str) -> bool:
        """One more instance of `channel` from `address`, or False when a limit forbids it."""
        attrs = channels.table(qmgr).channels.get(channel, {})
        max_inst = channels.instance_limit(attrs, "MAXINST")
        max_per_client = channels.instance_limit(attrs, "MAXINSTC")
        with self._lock:
            running = self._per_channel.get(channel, 0)
            from_client = self._per_client.get((channel, address), 0)
            if running >= max_inst:
                log.warning("channel %s refused a client from %s: the channel has "
                            "MAXINST(%d) instances running", channel, address, max_inst)
                return False
            if from_client >= max_per_client:
                log.warning("channel %s refused a client from %s: that client has "
                            "MAXINSTC(%d) instances running", channel, address, max_per_client)
                return False
            self._per_channel[channel] = running + 1
            self._per_client[(channel, address)] = from_client + 1
            return True

    def release(self, channel: str, address: str) -> None:
        with self._lock:
            _count_down(self._per_channel, channel)
            _count_down(self._per_client, (channel, address))


def _count_down(counts: dict, key: object) -> None:
    left = counts.get(key, 0) - 1
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)


class Late(TimeoutError):
    """A connection that did not send its next frame before MQCONN within the connect timeout
    (a TimeoutError: handlers that know only those still end the connection quietly)."""

    def __init__(self, peer: str, timeout: float):
        super().__init__(f"no complete frame within {timeout:g} s before MQCONN")
        self.peer = peer


def _connected_max_frame(qmgr: QueueManager) -> int:
    """The largest frame a connected client may send: a message body and its properties
    each up to the largest MQPUT MQ takes, and room for the rest. Not the queue manager's
    MAXMSGL: a put with MQMF_SEGMENTATION_ALLOWED may pass it (the queue manager segments it),
    up to MQ's own limit of 100 MB per put."""
    maxmsgl = qmgr.attrs.get("MAXMSGL")
    largest = max(maxmsgl if isinstance(maxmsgl, int) else 0, MQ_LARGEST_PUT)
    return 2 * largest + _FRAME_HEADROOM


class Session:
    #: the operating-system user of the process at the other end of a bindings socket
    #: (server/network/bindings.py sets it from SO_PEERCRED); None on TCP
    bindings_user: str | None = None

    def __init__(self, qmgr: QueueManager, sock: socket.socket,
                 heartbeat_interval: float = DEFAULT_HEARTBEAT_INTERVAL,
                 tls_session: tls.TlsSession | None = None, *,
                 instances: Instances | None = None,
                 connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
                 first_deadline: float | None = None):
        self.qmgr = qmgr
        self.sock = sock
        self.tls = tls_session
        self.heartbeat_interval = heartbeat_interval
        self.peer = peer(sock)
        self.reader = (FrameReader(sock, PRE_CONN_MAX_FRAME, PRE_CONN_MAX_ELEMENTS)
                       if sock is not None else None)
        self.conn: Connection | None = None
        self.clean = False
        self.instances = instances or Instances()
        self.instance: tuple[str, str] | None = None   # (channel, client address) once connected
        self.connect_timeout = connect_timeout
        self.first_deadline = first_deadline
        self.trace = trace_of(qmgr)

    @property
    def connected(self) -> Connection:
        """The session's connection; `_call` answers MQRC_HCONN_ERROR before CONN, and so does this."""
        if self.conn is None:
            raise MQError(CMQC.MQRC_HCONN_ERROR)
        return self.conn

    def alive(self) -> bool:
        """False once the client has gone away (checked while a get waits)."""
        try:
            readable, _, _ = select.select([self.sock], [], [], 0)
            # socket.socket's own recv: a TLS socket refuses flags, and bytes pending at the
            # TCP level (a record, or nothing at end of stream) tell as much
            return not readable or bool(socket.socket.recv(self.sock, 1, socket.MSG_PEEK))
        except OSError:
            return False

    def run(self) -> None:
        reader = self.reader
        while True:
            if self.conn is None:
                # see the module docstring: small frames, each within the connect timeout
                reader.max_frame, reader.max_elements = PRE_CONN_MAX_FRAME, PRE_CONN_MAX_ELEMENTS
                deadline = self.first_deadline or time.monotonic() + self.connect_timeout
                self.first_deadline = None
                try:
                    request = reader.read(deadline)
                except TimeoutError:
                    raise Late(self.peer, self.connect_timeout) from None
            else:
                reader.max_frame = _connected_max_frame(self.qmgr)
                reader.max_elements = REQUEST_MAX_ELEMENTS
                # between calls, a quiet client must prove it lives: see the module docstring
                self.sock.settimeout(self.heartbeat_interval)
                request = reader.read()
            self.sock.settimeout(None)
            verb, args = check_request(request)
            if verb.when == BEFORE_CONNECT and self.conn is not None:
                raise ProtocolError(f"{verb.name} comes only before MQCONN")
            if verb.answered:
                with self.qmgr.answering():   # a stopping queue manager waits for the answer
                    reply = self._call(verb, args)
                    if reply is not None:
                        self.sock.sendall(reply_frame(reply))
            else:   # nothing to wait for (a CHL's receiver runs here for the channel's life)
                self._call(verb, args)
            if verb.ends:
                return

    def _call(self, verb: Verb, args: list) -> list | None:
        """The answer to one verb (None for a verb that is not answered)."""
        if self.trace.on:   # core/trace.py: the one check a call makes when trace is off
            reply = self.trace.call(self.conn, self.instance[0] if self.instance else "",
                                    verb.name, args, lambda: self._outcome(verb, args))
        else:
            reply = self._outcome(verb, args)
        return reply if verb.answered else None

    def _outcome(self, verb: Verb, args: list) -> list:
        """[CompCode, Reason, outputs...] of one verb."""
        if self.conn is None and verb.when == CONNECTED:
            return [FAILED, CMQC.MQRC_HCONN_ERROR]
        try:
            return [OK, NONE, *_DISPATCH[verb.name](self, *args)]
        except _Outputs as partial:
            return [partial.comp_code, partial.reason, *partial.outputs]
        except WarnedPut as warned:
            return [WARNING, warned.reason, warned.md]
        except MQError as exc:
            return [exc.comp_code, exc.reason]

    def close(self) -> None:
        try:
            if self.conn is not None:
                self.qmgr.disconnect(self.conn, clean=self.clean)
                self.conn = None
        finally:
            self._release_instance()

    def _release_instance(self) -> None:
        if self.instance is not None:
            self.instances.release(*self.instance)
            self.instance = None

    # --- verbs: each bound to its entry of wire_verbs.TABLE below ----------------------------
    def v_ping(self) -> list:
        return [self.qmgr.name]

    def v_heartbeat(self) -> list:
        """The client lives: nothing to do, nothing to answer."""
        return []

    def v_channel(self, *hello: Any) -> list:
        """A sender channel of another queue manager: this connection is its receiver."""
        receiver.serve(self.qmgr, self.sock, self.reader, list(hello), self.peer,
                       _connected_max_frame(self.qmgr), REQUEST_MAX_ELEMENTS, self.tls)
        return []

    def v_request_channel(self, *request: Any) -> list:
        """A requester channel of another queue manager asks for its server or sender."""
        receiver.serve_request(self.qmgr, self.sock, self.reader, list(request), self.peer,
                               self.tls)
        return []

    def v_conn(self, qm_name: str, user: str, password: str, appl_name: str,
               channel: str | None, token: str | None = None) -> list:
        """CONN, counted against the channel's MAXINST and MAXINSTC (checked when the channel
        starts, as IBM MQ does: before the client's credentials are)."""
        counted = self._take_instance(channel)
        try:
            return self._conn(qm_name, user, password, appl_name, channel, token)
        except BaseException:
            if counted:
                self._release_instance()
            raise

    def v_conn_token(self, qm_name: str, token: str, appl_name: str,
                     channel: str | None) -> list:
        """CONNT: CONN with an authentication token in place of a user and password."""
        return self.v_conn(qm_name, "", "", appl_name, channel, token)

    def _take_instance(self, channel: str | None) -> bool:
        """Count this connection as an instance of its SVRCONN channel (False: not counted:
        connected already, bindings, an unknown channel, which `_conn` answers)."""
        if (self.conn is not None or self.instance is not None or channel is None
                or not channels.is_svrconn(self.qmgr, channel)):
            return False
        address = self.peer.rpartition("(")[0]
        if not self.instances.take(self.qmgr, channel, address):
            raise MQError(NOT_AVAILABLE)
        self.instance = (channel, address)
        return True

    def _conn(self, qm_name: str, user: str, password: str, appl_name: str,
              channel: str | None, token: str | None = None) -> list:
        """`channel`: the SVRCONN channel the client names; None for a bindings connection,
        which only the bindings socket takes (server/network/bindings.py: the OS names its user). Over
        TCP a channel is always needed, loopback included: a client naming none is answered
        as IBM MQ answers a channel it does not know (AMQ9519). The channel is checked before
        the queue manager name, as IBM MQ starts the channel before MQCONN flows on it."""
        if (channel is None) == (self.bindings_user is None):
            log.warning("refused a connection from %s: %s", self.peer,
                        "a bindings connection needs the bindings socket" if channel is None
                        else "the bindings socket takes no channel")
            raise MQError(CMQC.MQRC_UNKNOWN_CHANNEL_NAME)
        if channel is not None and not channels.is_svrconn(self.qmgr, channel):
            raise MQError(CMQC.MQRC_UNKNOWN_CHANNEL_NAME)
        refused = channel is not None and tls.check_channel(self.qmgr, channel, self.tls, self.peer)
        if refused:
            raise MQError(refused)
        if qm_name and qm_name != self.qmgr.name:
            raise MQError(CMQC.MQRC_Q_MGR_NAME_ERROR)
        if self.conn is not None:
            raise MQError(CMQC.MQRC_ALREADY_CONNECTED, WARNING)
        # the channel and the client's address are what CHLAUTH rules match (security/)
        address = self.peer.rpartition("(")[0] if channel is not None else ""
        certificate = ((self.tls.peer_dn, self.tls.issuer_dn)
                       if self.tls is not None and self.tls.has_certificate else None)
        self.conn = self.qmgr.connect(user, password, appl_name, self.alive, channel, address,
                                      self.bindings_user, certificate, token)
        admission.note_origin(self.qmgr, self.conn, channel, self.peer)
        return [self.qmgr.name, self.conn.conn_id, float(self.heartbeat_interval)]

    def v_disc(self) -> list:
        self.clean = True
        conn, self.conn = self.connected, None
        try:
            reason = self.qmgr.disconnect(conn, clean=True)
        finally:
            # before the answer: a client that reconnects at once must find it free
            self._release_instance()
        if reason:
            raise MQError(reason, WARNING)
        return []

    def v_open(self, obj_type: int, name: str, options: int, selection: str | None,
               dynamic_name: str, alternate_user: str, qmgr_name: str) -> list:
        """Answers [hobj, resolved queue name, read-ahead, async puts by default, object
        name, resolved queue-manager name]: the object name is the dynamic queue's when
        `name` was a model queue; a queue elsewhere resolves to its name there."""
        handle = self.qmgr.open(self.connected, obj_type, name, options, selection, dynamic_name,
                                alternate_user, qmgr_name)
        queue = handle.queue
        definition = self.qmgr.queues.get(handle.name, queue)
        async_default = bool(definition and definition.attrs.get("DEFPRESP") == "ASYNC")
        resolved, resolved_qmgr = queue.name if queue else self.qmgr.name, self.qmgr.name
        if handle.remote is not None:
            resolved, resolved_qmgr = handle.remote.queue_name, handle.remote.qmgr_name
        if handle.bind == BIND_NOT_FIXED:   # a cluster queue whose every put chooses: no one qmgr
            resolved, resolved_qmgr = handle.name, ""
        object_name = handle.name if queue else name
        return [handle.hobj, resolved, handle.read_ahead, async_default, object_name,
                resolved_qmgr]

    def v_close(self, hobj: int, options: int) -> list:
        self.qmgr.close(self.connected, hobj, options)
        return []

    def v_put(self, hobj: int, md: bytes, pmo_options: int, context: int, props: list | None,
              body: bytes) -> list:
        return [self.qmgr.put(self.connected, hobj, md, pmo_options, context, props, body)]

    def v_puta(self, hobj: int, md: bytes, pmo_options: int, context: int, props: list | None,
               body: bytes) -> list:
        """An asynchronous put: not answered, its outcome counted for MQSTAT."""
        conn = self.connected
        handle = conn.handles.get(hobj)
        name = handle.name if handle else ""
        try:
            self.qmgr.put(conn, hobj, md, pmo_options, context, props, body)
            self.qmgr.record_async(conn, OK, NONE, name)
        except WarnedPut as warned:
            self.qmgr.record_async(conn, WARNING, warned.reason, name)
        except MQError as exc:
            self.qmgr.record_async(conn, exc.comp_code, exc.reason, name)
        return []

    def v_put1(self, obj_type: int, name: str, qmgr_name: str, alternate_user: str, md: bytes,
               pmo_options: int, context: int, props: list | None, body: bytes) -> list:
        if obj_type != CMQC.MQOT_Q:
            raise MQError(CMQC.MQRC_FUNCTION_NOT_SUPPORTED)
        return [self.qmgr.put1(self.connected, name, md, pmo_options, context, props, body,
                               alternate_user, qmgr_name)]

    def v_get(self, hobj: int, md: bytes, gmo: bytes, max_length: int, has_handle: bool) -> list:
        comp_code, reason, *outputs = self.qmgr.get(self.connected, hobj, md, gmo, max_length, has_handle)
        if comp_code != OK:
            raise _Outputs(comp_code, reason, outputs)
        return outputs

    def v_getn(self, hobj: int, gmo: bytes, has_handle: bool, max_count: int,
               max_bytes: int) -> list:
        results = self.qmgr.get_batch(self.connected, hobj, gmo, has_handle, max_count, max_bytes)
        return [[list(result) for result in results]]

    def v_cmit(self) -> list:
        self.qmgr.commit(self.connected)
        return []

    def v_back(self) -> list:
        self.qmgr.backout(self.connected)
        return []

    def v_stat(self, stat_type: int, sts: bytes) -> list:
        return [self.qmgr.stat(self.connected, stat_type, sts)]

    def v_inq(self, hobj: int, selectors: list) -> list:
        ints, chars, warning = self.qmgr.inquire(self.connected, hobj, selectors)
        if warning:
            raise _Outputs(WARNING, CMQC.MQRC_SELECTOR_NOT_FOR_TYPE, [ints, chars])
        return [ints, chars]

    def v_set(self, hobj: int, selectors: list, ints: list, chars: bytes) -> list:
        self.qmgr.set(self.connected, hobj, selectors, ints, chars)
        return []

    def v_cbwait(self, waiting: list, wait_ms: int, first: int) -> list:
        """Asynchronous consume: the first message for any of the connection's consumers."""
        return consumers.wait_for_consumers(self.qmgr, self.connected, waiting, wait_ms, first)


class _Outputs(MQError):
    """A verb that completed with a warning or failure but still returns outputs."""

    def __init__(self, comp_code: int, reason: int, outputs: list):
        super().__init__(reason, comp_code)
        self.outputs = outputs


#: verb name -> the handler that serves it, called with the session and the frame's arguments
#: (the publish/subscribe verbs TOPEN, SUB and SUBRQ are verbs/pubsub/session_verbs.py's). `bind`
#: refuses a verb without a handler and a v_ method without a verb: the server does not start.
_DISPATCH: dict[str, Callable[..., list]] = bind({
    PING: Session.v_ping, HB: Session.v_heartbeat, CONN: Session.v_conn, DISC: Session.v_disc,
    CONNT: Session.v_conn_token,
    CHL: Session.v_channel, OPEN: Session.v_open, CLOSE: Session.v_close, PUT: Session.v_put,
    CHLR: Session.v_request_channel,
    PUTA: Session.v_puta, PUT1: Session.v_put1, GET: Session.v_get, GETN: Session.v_getn,
    CMIT: Session.v_cmit, BACK: Session.v_back, STAT: Session.v_stat, INQ: Session.v_inq,
    SET: Session.v_set, CBWAIT: Session.v_cbwait, **pubsub_verbs.HANDLERS,
}, offered=[*(getattr(Session, name) for name in vars(Session) if name.startswith("v_")),
            *pubsub_verbs.HANDLERS.values()])


def peer(sock: socket.socket | None) -> str:
    if sock is not None and sock.family == socket.AF_UNIX:
        return "the bindings socket"   # server/network/bindings.py names the process instead
    try:
        host, port = sock.getpeername()[:2] if sock is not None else ("?", 0)
        return f"{host}({port})"
    except OSError:
        return "a client"
