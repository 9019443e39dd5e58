"""The embedded queue manager's network side: one thread per client connection.

Runs in the queue-manager process; the other end is client/transport.py in the
application's process, and both speak wire.py's frames.

Each frame is a tuple (verb, args...). Synchronous verbs are answered with
[CompCode, Reason, outputs...]; asynchronous puts are not answered at all (their outcome
is counted for MQSTAT), which is what lets a client pipeline them, and neither are
heartbeats (HB).

Heartbeats, as IBM MQ's channel heartbeat interval (HBINT): the CONN answer tells the client
the interval, and the client sends a heartbeat whenever its connection has been quiet for a
third of it. A connection from which nothing arrives for a whole interval between two calls
(a process that is stopped, a host that died, a network that split) is ended and its unit of
work backed out. Until then it is held, exactly as IBM MQ holds it: the locks of its open
unit of work stay in place. A frame that does not
decode, or has arguments of the wrong shape, closes that one connection: the unit of work
it had open is backed out and the server carries on.
"""
from __future__ import annotations

import logging
import select
import socket
import threading
from collections.abc import Callable

from spark_mq.embedded.server import channels, consumers, tls
from spark_mq.embedded.server.admin import run_mqsc
from spark_mq.embedded.server.errors import FAILED, NONE, OK, WARNING, MQError, WarnedPut
from spark_mq.embedded.server.pubsub import verbs as pubsub_verbs
from spark_mq.embedded.server.qmgr import QueueManager
from spark_mq.embedded.server.state import Connection
from spark_mq.embedded.wire import FrameReader, ProtocolError, reply_frame
from spark_mq.mqi import properties as props_mod
from spark_mq.mqi.constants import CMQC

log = logging.getLogger("spark_mq.embedded")


#: IBM MQ's default HBINT for server-connection channels, in seconds
DEFAULT_HEARTBEAT_INTERVAL = 300.0


class Server:
    def __init__(self, qmgr: QueueManager, host: str = "127.0.0.1", port: int = 0,
                 heartbeat_interval: float = DEFAULT_HEARTBEAT_INTERVAL):
        self.qmgr = qmgr
        self.heartbeat_interval = heartbeat_interval
        self.sock = socket.create_server((host, port), backlog=128)
        self.port = self.sock.getsockname()[1]
        self._stopping = threading.Event()
        self._threads: set[threading.Thread] = set()

    def serve_forever(self) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = self.sock.accept()
            except OSError:
                break
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            thread = threading.Thread(target=self._serve_client, args=(client,), daemon=True)
            self._threads.add(thread)
            thread.start()

    def stop(self) -> None:
        self._stopping.set()
        try:
            self.sock.close()
        except OSError:
            pass

    # --- one client ------------------------------------------------------------------------
    def _serve_client(self, client: socket.socket) -> None:
        # a TLS client is served over its TLS socket, once the handshake is done (server/tls.py)
        served, tls_session = tls.accept(self.qmgr, client, _peer(client))
        if served is None:
            client.close()
            self._threads.discard(threading.current_thread())
            return
        session = _Session(self.qmgr, served, self.heartbeat_interval, tls_session)
        try:
            session.run()
        except TimeoutError:
            log.warning("no heartbeat from %s for %.0f s (heartbeat interval): ending the "
                        "connection and backing out its unit of work", session.peer,
                        self.heartbeat_interval)
        except (ConnectionError, OSError):
            pass
        except ProtocolError as exc:
            log.warning("closing a connection that sent a bad frame: %s", exc)
        except Exception:  # a bug must cost one connection, never the server
            log.exception("closing a connection after an unexpected error")
        finally:
            session.close()
            served.close()
            self._threads.discard(threading.current_thread())


class _Session:
    def __init__(self, qmgr: QueueManager, sock: socket.socket,
                 heartbeat_interval: float = DEFAULT_HEARTBEAT_INTERVAL,
                 tls_session: tls.TlsSession | None = None):
        self.qmgr = qmgr
        self.sock = sock
        self.tls = tls_session
        self.heartbeat_interval = heartbeat_interval
        self.peer = _peer(sock)
        self.reader = FrameReader(sock) if sock is not None else None
        self.conn: Connection | None = None
        self.clean = False

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
        while True:
            # between calls, a quiet client must prove it lives: see the module docstring
            self.sock.settimeout(self.heartbeat_interval if self.conn is not None else None)
            request = self.reader.read()
            self.sock.settimeout(None)
            if not isinstance(request, list) or not request or not isinstance(request[0], str):
                raise ProtocolError("a request must be a list starting with a verb")
            verb, args = request[0], request[1:]
            _check_arguments(verb, args)
            if verb == "PUTA":  # asynchronous put: no answer, outcome counted for MQSTAT
                self._put_async(args)
                continue
            if verb == "HB":    # a heartbeat: the client lives, nothing to answer
                continue
            reply = self._call(verb, args)
            self.sock.sendall(reply_frame(reply))
            if verb == "DISC":
                return

    def _call(self, verb: str, args: list) -> list:
        handler = _VERBS[verb]
        if self.conn is None and verb not in ("CONN", "MQSC", "PING"):
            return [FAILED, CMQC.MQRC_HCONN_ERROR]
        try:
            return [OK, NONE, *handler(self, *args)]
        except _Outputs as partial:
            return [partial.comp_code, partial.reason, *partial.outputs]
        except WarnedPut as warned:
            return [WARNING, warned.reason, warned.md]
        except MQError as exc:
            return [exc.comp_code, exc.reason]

    def _put_async(self, args: list) -> None:
        if self.conn is None:
            return
        hobj = args[0]
        handle = self.conn.handles.get(hobj)
        name = handle.name if handle else ""
        try:
            self.qmgr.put(self.conn, *args)
            self.qmgr.record_async(self.conn, OK, NONE, name)
        except WarnedPut as warned:
            self.qmgr.record_async(self.conn, WARNING, warned.reason, name)
        except MQError as exc:
            self.qmgr.record_async(self.conn, exc.comp_code, exc.reason, name)

    def close(self) -> None:
        if self.conn is not None:
            self.qmgr.disconnect(self.conn, clean=self.clean)
            self.conn = None

    # --- verbs -----------------------------------------------------------------------------
    def v_ping(self) -> list:
        return [self.qmgr.name]

    def v_conn(self, qm_name: str, user: str, password: str, appl_name: str,
               channel: str | None) -> list:
        """`channel`: the SVRCONN channel the client names; None for a bindings-style connection
        (an application that started this queue manager itself). The channel is checked before
        the queue manager name, as IBM MQ starts the channel before MQCONN flows on it."""
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
        address = self.peer.rpartition("(")[0]
        self.conn = self.qmgr.connect(user, password, appl_name, self.alive, channel, address)
        return [self.qmgr.name, self.conn.conn_id, float(self.heartbeat_interval)]

    def v_disc(self) -> list:
        self.clean = True
        conn, self.conn = self.connected, None
        reason = self.qmgr.disconnect(conn, clean=True)
        if reason:
            raise MQError(reason, WARNING)
        return []

    def v_open(self, obj_type: int, name: str, options: int, selection: str | None,
               dynamic_name: str, alternate_user: str) -> list:
        """Answers [hobj, resolved queue name, read-ahead, async puts by default, object
        name]: the object name is the dynamic queue's when `name` was a model queue."""
        handle = self.qmgr.open(self.connected, obj_type, name, options, selection, dynamic_name,
                                alternate_user)
        queue = handle.queue
        definition = self.qmgr.queues.get(handle.name, queue)
        async_default = bool(definition and definition.attrs.get("DEFPRESP") == "ASYNC")
        resolved = queue.name if queue else self.qmgr.name
        object_name = handle.name if queue else name
        return [handle.hobj, resolved, handle.read_ahead, async_default, object_name]

    def v_close(self, hobj: int, options: int) -> list:
        self.qmgr.close(self.connected, hobj, options)
        return []

    def v_put(self, hobj: int, md: bytes, pmo_options: int, context: int, props: list | None,
              body: bytes) -> list:
        return [self.qmgr.put(self.connected, hobj, md, pmo_options, context, props, body)]

    def v_put1(self, obj_type: int, name: str, alternate_user: str, md: bytes, pmo_options: int,
               context: int, props: list | None, body: bytes) -> list:
        if obj_type != CMQC.MQOT_Q:
            raise MQError(CMQC.MQRC_FUNCTION_NOT_SUPPORTED)
        return [self.qmgr.put1(self.connected, name, md, pmo_options, context, props, body,
                               alternate_user)]

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

    def v_mqsc(self, text: str, user: str = "", password: str = "") -> list:
        # the admin path is as guarded as MQCONNX: with users configured, only they run MQSC
        if self.qmgr.users is not None and self.qmgr.users.get(user) != password:
            raise MQError(CMQC.MQRC_NOT_AUTHORIZED)
        ok, output = run_mqsc(self.qmgr, text)
        return [ok, output]


class _Outputs(MQError):
    """A verb that completed with a warning or failure but still returns outputs."""

    def __init__(self, comp_code: int, reason: int, outputs: list):
        super().__init__(reason, comp_code)
        self.outputs = outputs


#: verb -> the _Session method that serves it (called with the session and the frame's arguments)
_VERBS: dict[str, Callable[..., list]] = {
    "PING": _Session.v_ping, "CONN": _Session.v_conn, "DISC": _Session.v_disc,
    "OPEN": _Session.v_open, "CLOSE": _Session.v_close, "PUT": _Session.v_put,
    "PUT1": _Session.v_put1, "GET": _Session.v_get, "GETN": _Session.v_getn,
    "CMIT": _Session.v_cmit, "BACK": _Session.v_back, "STAT": _Session.v_stat,
    "INQ": _Session.v_inq, "SET": _Session.v_set, "MQSC": _Session.v_mqsc,
    "CBWAIT": _Session.v_cbwait,
}


_PROPS = (list, type(None))
_PUT_ARGS = (int, bytes, int, int, _PROPS, bytes)
#: the argument types of every verb; a frame that does not fit is a protocol error
_SIGNATURES: dict[str, tuple] = {
    "PING": (), "HB": (), "CONN": (str, str, str, str, (str, type(None))), "DISC": (),
    "OPEN": (int, str, int, (str, type(None)), str, str), "CLOSE": (int, int),
    "PUT": _PUT_ARGS, "PUTA": _PUT_ARGS, "PUT1": (int, str, str, bytes, int, int, _PROPS, bytes),
    "GET": (int, bytes, bytes, int, bool), "GETN": (int, bytes, bool, int, int),
    "CMIT": (), "BACK": (), "STAT": (int, bytes), "INQ": (int, list), "SET": (int, list, list, bytes),
    "MQSC": (str, str, str), "CBWAIT": (list, int, int),
}
# the publish/subscribe verbs (TOPEN, SUB, SUBRQ) are served by pubsub/verbs.py
_VERBS.update(pubsub_verbs.VERBS)
_SIGNATURES.update(pubsub_verbs.SIGNATURES)


def _peer(sock: socket.socket | None) -> str:
    try:
        host, port = sock.getpeername()[:2] if sock is not None else ("?", 0)
        return f"{host}({port})"
    except OSError:
        return "a client"


def _check_arguments(verb: str, args: list) -> None:
    signature = _SIGNATURES.get(verb)
    if signature is None:
        raise ProtocolError(f"unknown verb {verb!r}")
    if len(args) != len(signature):
        raise ProtocolError(f"{verb} takes {len(signature)} arguments, not {len(args)}")
    for position, (value, expected) in enumerate(zip(args, signature)):
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise ProtocolError(f"{verb} argument {position + 1} has the wrong type")
    if verb in ("PUT", "PUTA", "PUT1"):
        _check_properties(args[-2])
    elif verb == "CBWAIT":
        consumers.check_consumers(args[0])
    elif verb == "INQ" or verb == "SET":
        if not all(type(item) is int for item in args[1]) or (
                verb == "SET" and not all(type(item) is int for item in args[2])):
            raise ProtocolError(f"{verb} selectors and values must be integers")


def _check_properties(props: list | None) -> None:
    """Properties come from the client's message handle: [name, MQTYPE, value] each."""
    if props is None:
        return
    for item in props:
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], str)
                and type(item[1]) is int):
            raise ProtocolError("a message property must be [name, type, value]")
        try:
            props_mod.validate_name(item[0])
            props_mod.coerce_value(item[1], item[2], len(item[2]) if isinstance(item[2], bytes) else -1)
        except props_mod.PropertyError as exc:
            raise ProtocolError(f"message property {item[0]!r}: {exc}") from None
