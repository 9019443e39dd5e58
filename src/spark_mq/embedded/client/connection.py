"""Connections to embedded queue managers: sockets, request and answer, pipelining; MQCONNX/MQDISC.

MQCONNX finds its channel as IBM's client does (MQCD, the MQCNO's CCDT URL, MQSERVER, a CCDT
from the environment; see "where a connection goes" below), tries each address of the
channel's connection-name list in turn and answers as IBM's client: MQRC_HOST_NOT_AVAILABLE
when TCP fails, MQRC_Q_MGR_NOT_AVAILABLE when what listens is no queue manager, and the
queue manager's own refusal (MQRC_UNKNOWN_CHANNEL_NAME, MQRC_Q_MGR_NAME_ERROR, ...) otherwise.

Runs in the application's process (part of the module installed as `ibmmq.ibmmqc`, see
transport.py). A `Connection` is one socket to the queue manager process, shared by every
verb on that hconn under its lock. Two fast paths live here because they change what is on
the socket: asynchronous puts are queued and sent in batches (by the caller's next verb, or
by the flusher thread after _FLUSH_AFTER seconds) and read-ahead refills can be sent ahead
and their answers read later (`prefetch`, `collect`). And one duty: heartbeats. The queue
manager ends a connection from which nothing arrives for its heartbeat interval between two
calls (as IBM MQ does with HBINT), so a daemon thread sends a heartbeat on every connection
that has been quiet for a third of the interval the CONN answer gave; a stopped process
sends none, and its unit of work is backed out when the interval ends.
"""
from __future__ import annotations

import collections
import ctypes
import itertools
import os
import re
import socket
import ssl
import struct
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

from spark_mq.embedded.client import ccdt, tls
from spark_mq.embedded.wire import FrameReader, ProtocolError
from spark_mq.embedded.wire_verbs import CONN, CONNT, DISC, HB, Verb, request
from spark_mq.mqi.constants import CMQC, CMQXC
from spark_mq.mqi.message_ids import MessageIds
from spark_mq.mqi.structs import CD, CNO, CSP, MAX_TOKEN_LENGTH, Layout, text

# completion codes under short names, and the reason that goes with MQCC_OK
FAILED: int = CMQC.MQCC_FAILED
WARNING: int = CMQC.MQCC_WARNING
OK: int = CMQC.MQCC_OK
NONE: int = CMQC.MQRC_NONE
BROKEN = (FAILED, CMQC.MQRC_CONNECTION_BROKEN)
_FLUSH_AT = 256 << 10        # pipelined asynchronous puts are sent once this much is queued
_FLUSH_AFTER = 0.002         # ... or this many seconds after the first of them, whichever is first

#: queue manager name -> "host(port)" of embedded queue managers started by this process,
#: so that an MQCD without a connection name finds them
local_queue_managers: dict[str, str] = {}
#: queue manager name -> the Unix-domain socket in its data directory (client/process.py
#: registers it when it starts the queue manager): where a bindings connect (no channel, no
#: connection name) goes. The queue manager takes the connecting process's user from the
#: socket (SO_PEERCRED) and accepts no bindings connection over TCP.
local_bindings: dict[str, str] = {}


class ObjectHandle:
    """This side's view of an open object: its read-ahead buffer and put defaults."""

    __slots__ = ("name", "read_ahead", "async_default", "buffer", "buffer_options", "started",
                 "prefetching", "last_batch")

    def __init__(self, name: str, read_ahead: bool, async_default: bool):
        self.name = name
        self.read_ahead = read_ahead
        self.async_default = async_default
        self.buffer: collections.deque = collections.deque()
        self.buffer_options = 0
        self.started = False     # a get has been served by read-ahead: options are now fixed
        self.prefetching = False  # a read-ahead refill has been sent and not yet read
        self.last_batch = 0

    def absorb(self, reply: list) -> None:
        """The answer to a prefetched refill: messages join the buffer; a failure (usually
        MQRC_NO_MSG_AVAILABLE) is dropped, the next synchronous refill reports real errors."""
        self.prefetching = False
        if reply[0] != FAILED and len(reply) > 2:
            self.buffer.extend(reply[2])
            self.last_batch = len(reply[2])
        else:
            self.last_batch = 0


class Connection:
    def __init__(self, sock: socket.socket, qm_name: str):
        self.sock = sock
        self.heartbeat_interval = 0.0    # from the CONN answer; 0: the server wants none
        self.last_sent = time.monotonic()
        self.lock = threading.RLock()
        self.pending = bytearray()   # pipelined asynchronous puts not yet sent
        self.handles: dict[int, ObjectHandle] = {}
        self.broken = False
        self.reader = FrameReader(sock)
        self.inflight: collections.deque = collections.deque()  # handles awaiting a refill
        self.set_qm_name(qm_name)

    def set_qm_name(self, qm_name: str) -> None:
        """The queue manager's name, once known (a group name such as *QM1 is not one): it
        starts the message ids this connection makes, as MQ's start with AMQ and its name."""
        self.qm_name = qm_name
        self.new_msgid = MessageIds(b"AMQ " + qm_name.encode()[:8].ljust(8, b" ")
                                    + os.urandom(4))

    def call(self, verb: Verb, *args: object) -> list:
        """Send one verb (after any pipelined puts) and wait for its answer."""
        return self.call_frame(request(verb, *args))

    def call_frame(self, data: bytes) -> list:
        with self.lock:
            if self.broken:
                return list(BROKEN)
            try:
                if self.pending:
                    self.pending += data
                    data, self.pending = bytes(self.pending), bytearray()
                self._send(data)
                self._collect_inflight()
                return self.reader.read_reply()
            except (OSError, ConnectionError, ValueError, ProtocolError):
                self.broken = True
                return list(BROKEN)

    def _collect_inflight(self) -> None:
        while self.inflight:
            self.inflight.popleft().absorb(self.reader.read_reply())

    def collect(self) -> None:
        """Read the answers of prefetched refills that are still on the way."""
        with self.lock:
            if self.broken or not self.inflight:
                return
            try:
                self._collect_inflight()
            except (OSError, ConnectionError, ValueError, ProtocolError):
                self.broken = True

    def prefetch(self, handle: ObjectHandle, data: bytes) -> None:
        """Send a read-ahead refill now and read its answer later, so that the queue manager
        fills the next batch while the application works through this one."""
        with self.lock:
            if self.broken:
                return
            if self.pending:
                data, self.pending = bytes(self.pending) + data, bytearray()
            try:
                self._send(data)
            except OSError:
                self.broken = True
                return
            handle.prefetching = True
            self.inflight.append(handle)

    def pipeline(self, data: bytes) -> bool:
        """Queue a frame that has no answer (an asynchronous put); sent in batches."""
        with self.lock:
            if self.broken:
                return False
            was_empty = not self.pending
            self.pending += data
            if len(self.pending) >= _FLUSH_AT:
                return self._flush()
        if was_empty:  # an asynchronous put must reach the queue soon even if nothing follows
            _flusher.watch(self)
        return True

    def flush(self) -> bool:
        """Send pipelined puts; False when another call holds the connection (that call
        sends them, or the flusher comes back)."""
        if not self.lock.acquire(blocking=False):
            return False
        try:
            if self.pending and not self.broken:
                self._flush()
            return True
        finally:
            self.lock.release()

    def _flush(self) -> bool:
        data, self.pending = bytes(self.pending), bytearray()
        try:
            self._send(data)
            return True
        except OSError:
            self.broken = True
            return False

    def _send(self, data: bytes) -> None:
        self.sock.sendall(data)
        self.last_sent = time.monotonic()

    def heartbeat(self) -> None:
        """Send a heartbeat if the connection has been quiet for a third of the interval;
        never waits for a connection that is inside a call (the queue manager is busy with
        it and expects nothing else)."""
        if not self.heartbeat_interval or self.broken:
            return
        if time.monotonic() - self.last_sent < self.heartbeat_interval / 3:
            return
        if not self.lock.acquire(blocking=False):
            return
        try:
            if self.pending:
                self._flush()
            if not self.broken:
                self._send(_HEARTBEAT)
        except OSError:
            self.broken = True
        finally:
            self.lock.release()


class _Flusher:
    """One daemon thread that sends pipelined asynchronous puts which have waited
    _FLUSH_AFTER seconds: batching must never leave a put unsent while the application
    does nothing else (MQ sends asynchronous puts at once; it only does not wait)."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._waiting: list[Connection] = []
        self._thread: threading.Thread | None = None

    def watch(self, conn: Connection) -> None:
        with self._condition:
            self._waiting.append(conn)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name="embedded-mq-async-put-flusher")
                self._thread.start()
            self._condition.notify()

    def _run(self) -> None:
        while True:
            with self._condition:
                while not self._waiting:
                    self._condition.wait()
            time.sleep(_FLUSH_AFTER)
            with self._condition:
                waiting, self._waiting = self._waiting, []
            busy = [conn for conn in waiting if not conn.flush() and conn.pending]
            if busy:  # never block on a connection that is inside a call (a waiting MQGET)
                with self._condition:
                    self._waiting.extend(busy)


_flusher = _Flusher()
_HEARTBEAT = request(HB)


class _Heartbeats:
    """One daemon thread sending heartbeats on quiet connections (see the module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._period = 60.0

    def watch(self, interval: float) -> None:
        if interval <= 0:
            return
        with self._lock:
            self._period = min(self._period, interval / 6)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name="embedded-mq-heartbeats")
                self._thread.start()

    def _run(self) -> None:
        while True:
            time.sleep(self._period)
            for conn in list(connections.values()):
                conn.heartbeat()


_heartbeats = _Heartbeats()
#: hconn -> its connection
connections: dict[int, Connection] = {}
_hconns = itertools.count(0x1000001)


def connection_of(hconn: int) -> Connection | None:
    return connections.get(hconn)


def broken_connections() -> list[int]:
    """Connection handles whose socket has failed (for diagnostics and tests)."""
    return [hconn for hconn, conn in connections.items() if conn.broken]


def _parse_conn_names(conn_names: str) -> list[tuple[str, int]]:
    """MQ's CONNAME: host(port), comma separated for multi-instance queue managers."""
    targets = []
    for part in conn_names.split(","):
        part = part.strip()
        if not part:
            continue
        match = re.fullmatch(r"(.+?)(?:\((\d+)\))?", part)
        if match is None:  # only a line break inside a name fails "(.+?)": no such host
            continue
        targets.append((match.group(1), int(match.group(2) or 1414)))
    return targets


def _credentials(csp: bytes | None) -> tuple[str, str, str | None]:
    """(user, password, token) of an MQCSP: its token when AuthenticationType is
    MQCSP_AUTH_ID_TOKEN (MQCSP version 3 on), which IBM's client sends instead of the user
    and password. A token longer than IBM's maximum is cut to one character past it: the
    queue manager refuses it all the same, and a frame before MQCONN is small."""
    if not csp or len(csp) < CSP.size:
        return "", "", None
    fields, index = CSP.unpack(csp), CSP.index
    if (fields[index["AuthenticationType"]] == CMQC.MQCSP_AUTH_ID_TOKEN
            and fields[index["Version"]] >= CMQC.MQCSP_VERSION_3):
        length = min(fields[index["TokenLength"]], MAX_TOKEN_LENGTH + 1)
        return "", "", read_pointer(fields[index["TokenPtr"]], length).decode("utf-8", "replace")
    return (read_pointer(fields[index["CSPUserIdPtr"]], fields[index["CSPUserIdLength"]]).decode(),
            read_pointer(fields[index["CSPPasswordPtr"]], fields[index["CSPPasswordLength"]]).decode(),
            None)


def read_pointer(address: int, length: int) -> bytes:
    """The bytes an MQCHARV or CSP pointer field points at (ibmmq passes real addresses)."""
    if not address or length <= 0:
        return b""
    return ctypes.string_at(address, length)


# --- where a connection goes ----------------------------------------------------------------
#
# IBM's client takes the first of these that is there (MQCONNX on a client): the MQCD in the
# MQCNO (ibmmq's `cd`), the CCDT URL in the MQCNO (version 6 and later), the MQSERVER
# environment variable, then a CCDT named by MQCCDTURL or MQCHLLIB/MQCHLTAB. The embedded
# transport adds one source, after the MQCNO's: a queue manager that this process started
# itself is reached without any channel, in bindings mode as a server installation connects
# to a local queue manager: through the Unix-domain socket in its data directory
# (`local_bindings`; the queue manager takes no channel-less connection over TCP).
# MQCNO_CLIENT_BINDING turns this off.
#
# A queue manager name that starts with `*` names a group: any queue manager the channel
# reaches is accepted (its real name is not checked), and a CCDT offers the channels whose
# QMNAME is the name after the `*`.

@dataclass(frozen=True)
class _Route:
    """One channel to try: its name (None: bindings-style, no channel), where it listens,
    and the queue manager name the server must have ("" accepts any)."""
    channel: str | None
    conn_name: str
    check_name: str
    cipher_spec: str = ""
    certificate_label: str = ""   # a CCDT entry's CERTLABL and SSLPEER (client/tls.for_channel)
    peer_name: str = ""


#: reasons after which the next address of a connection-name list, or the next CCDT entry,
#: is tried: nothing listens there, it does not speak our protocol, it is another queue
#: manager, or it lacks the channel. Any other refusal (2035, quiescing ...) is final.
_TRY_NEXT = frozenset({CMQC.MQRC_HOST_NOT_AVAILABLE, CMQC.MQRC_Q_MGR_NOT_AVAILABLE,
                       CMQC.MQRC_Q_MGR_NAME_ERROR, CMQC.MQRC_UNKNOWN_CHANNEL_NAME})
_CONNECT_TIMEOUT = 10.0   # seconds for TCP connect, and for the queue manager's CONN answer


def MQCONNX(name: bytes | str | None, cno: bytes | None, cd: bytes | None, csp: bytes | None,
            sco: bytes | None, bno: bytes | None) -> tuple[int, int, int]:
    cno, cd, sco = as_ibmmqc_sends(cno, cd, sco, bno)
    qm_name = (name.decode() if isinstance(name, bytes) else str(name or "")).strip()
    user, password, token = _credentials(csp)
    appl_name = ccdt_url = ""
    options = 0
    if cno and len(cno) >= CNO.size:
        fields = CNO.unpack(cno)
        index = CNO.index
        options = fields[index["Options"]]
        appl_name = text(fields[index["ApplName"]])
        if fields[index["Version"]] >= CMQC.MQCNO_VERSION_6:  # earlier MQCNOs have no CCDTUrl
            ccdt_url = read_pointer(fields[index["CCDTUrl"]], fields[index["CCDTUrlLength"]]).decode()
    appl_name = appl_name or os.path.basename(sys.argv[0] or "python")[:28]
    if token is not None and options & (CMQC.MQCNO_RECONNECT | CMQC.MQCNO_RECONNECT_Q_MGR):
        # as IBM's client: automatic reconnection and a token do not go together
        return (0, FAILED, CMQC.MQRC_RECONNECT_INCOMPATIBLE)
    routes, from_ccdt = _routes(qm_name, cd, ccdt_url, bool(options & CMQC.MQCNO_CLIENT_BINDING))
    if isinstance(routes, int):
        return (0, FAILED, routes)
    reason = CMQC.MQRC_Q_MGR_NOT_AVAILABLE
    tls_options = tls.from_structures(cd, sco, read_pointer)
    for route in routes:
        client_context = None
        route_tls = tls.for_channel(tls_options, route.certificate_label, route.peer_name)
        if route.cipher_spec:  # a channel with a CipherSpec is reached over TLS (client/tls.py)
            try:
                client_context = tls.context(route_tls, route.cipher_spec)
            except tls.TlsRefused as refused:
                return (0, FAILED, refused.reason)
        attempts: Iterable[tuple[Connection | None, list]]
        if route.channel is None:   # bindings: conn_name is the queue manager's socket
            if token is not None:   # IBM: tokens are for client connections only
                return (0, FAILED, CMQC.MQRC_FUNCTION_NOT_SUPPORTED)
            attempts = [connect_bindings(route.conn_name, route.check_name, user, password,
                                         appl_name)]
        else:
            attempts = (_connect_one(host, port, route, user, password, appl_name,
                                     client_context, route_tls.peer_name, token)
                        for host, port in _parse_conn_names(route.conn_name))
        for conn, reply in attempts:
            if conn is not None:
                hconn = next(_hconns)
                connections[hconn] = conn
                _heartbeats.watch(conn.heartbeat_interval)
                return (hconn, reply[0], reply[1])
            reason = reply[1]
            if reason not in _TRY_NEXT:
                return (0, FAILED, reason)
    if from_ccdt and reason == CMQC.MQRC_Q_MGR_NAME_ERROR:
        # IBM: a CCDT whose channels all reach other queue managers leaves none available
        reason = CMQC.MQRC_Q_MGR_NOT_AVAILABLE
    return (0, FAILED, reason)


# --- what IBM's C extension changes in MQCONNX's structures before it calls MQ ------------
#: MQSCO up to version 7: ibmmq packs all of it, spark_mq.mqi.structs.SCO stops at version 5
_SCO7 = Layout(
    "StrucId:4s Version:i KeyRepository:256s CryptoHardware:256s AuthInfoRecCount:i "
    "AuthInfoRecOffset:i AuthInfoRecPtr:P KeyResetCount:i FipsRequired:i "
    "EncryptionPolicySuiteB:16s CertificateValPolicy:i CertificateLabel:64s "
    "KeyRepoPasswordPtr:P KeyRepoPasswordOffset:i KeyRepoPasswordLength:i "
    "HTTPSCertValidation:i HTTPSCertRevocation:i HTTPSKeyStorePtr:P HTTPSKeyStoreOffset:i "
    "HTTPSKeyStoreLength:i")
assert _SCO7.size == 672  # what ibmmq packs
_INT = struct.Struct("=i")


def as_ibmmqc_sends(cno: bytes | None, cd: bytes | None, sco: bytes | None,
                    bno: bytes | None) -> tuple[bytes | None, bytes | None, bytes | None]:
    """MQCONNX's MQCNO, MQCD and MQSCO as IBM's ibmmqc hands them to MQ: it raises the
    structure versions so that the fields an application set are the ones MQ reads. A
    program written against IBM's extension leaves the versions at ibmmq's defaults (MQCNO
    version 5) and still has its CCDTUrl or quantum-safe settings honoured.

    - MQCNO: at least version 7 (ibmmqc raises it to 6, then to 7 whenever it has an
      ApplName field: its blank-name test is always true), and 8 when an MQBNO is given.
    - MQCD: version 12 when SPLProtection is set, 13 when QuantumSafeAlgorithm or
      QuantumSafeRequired is.
    - MQSCO: version 6 when KeyRepoPassword is set, 7 when an HTTPS field is.
    The pointer fields ibmmqc fills (ClientConnPtr, SSLConfigPtr, SecurityParmsPtr,
    BalanceParmsPtr) need no copy here: the structures come as separate arguments."""
    if cno is not None and len(cno) >= CNO.offsets["Options"]:
        wanted = CMQC.MQCNO_VERSION_8 if bno is not None else CMQC.MQCNO_VERSION_7
        cno = _at_least(cno, CNO.offsets["Version"], wanted)
    if cd is not None and len(cd) >= CD.size:
        fields = CD.unpack(cd)
        if fields[CD.index["SPLProtection"]] != 0:
            cd = _at_least(cd, CD.offsets["Version"], CMQXC.MQCD_VERSION_12)
        if fields[CD.index["QuantumSafeAlgorithm"]] > 0 or fields[CD.index["QuantumSafeRequired"]] > 0:
            cd = _at_least(cd, CD.offsets["Version"], CMQXC.MQCD_VERSION_13)
    if sco is not None and len(sco) >= _SCO7.size:
        fields = _SCO7.unpack(sco)
        if fields[_SCO7.index["KeyRepoPasswordPtr"]]:
            sco = _at_least(sco, _SCO7.offsets["Version"], CMQC.MQSCO_VERSION_6)
        if (fields[_SCO7.index["HTTPSCertValidation"]] or fields[_SCO7.index["HTTPSCertRevocation"]]
                or fields[_SCO7.index["HTTPSKeyStorePtr"]]):
            sco = _at_least(sco, _SCO7.offsets["Version"], CMQC.MQSCO_VERSION_7)
    return cno, cd, sco


def _at_least(data: bytes, version_at: int, version: int) -> bytes:
    if _INT.unpack_from(data, version_at)[0] >= version:
        return data
    out = bytearray(data)
    _INT.pack_into(out, version_at, version)
    return bytes(out)


def _routes(qm_name: str, cd: bytes | None, ccdt_url: str,
            client_only: bool) -> tuple[list[_Route] | int, bool]:
    """The channels to try, in IBM's order of sources (see above), and whether they came
    from a CCDT; a reason instead when the configuration itself is wrong."""
    group = qm_name.startswith("*")
    check_name = "" if group else qm_name
    local_name = qm_name[1:] if group else qm_name
    if cd:
        channel = text(cd[CD.offsets["ChannelName"]:CD.offsets["ChannelName"] + 20])
        conn_name = text(cd[CD.offsets["ConnectionName"]:CD.offsets["ConnectionName"] + 264])
        cipher = text(cd[CD.offsets["SSLCipherSpec"]:CD.offsets["SSLCipherSpec"] + 32])
        # an MQCD without a connection name reaches a queue manager this process started
        conn_name = conn_name or _local_conn_name(local_name)
        if not conn_name:
            return CMQC.MQRC_Q_MGR_NOT_AVAILABLE, False
        return [_Route(channel, conn_name, check_name, cipher)], False
    if ccdt_url:
        return _ccdt_routes(ccdt_url, qm_name), True
    local = "" if client_only else _local_socket(local_name)
    if local:
        return [_Route(None, local, check_name)], False
    server = os.environ.get("MQSERVER", "").strip()
    if server:
        return _mqserver_route(server, check_name), False
    url = ccdt.location_from_environment()
    if url:
        return _ccdt_routes(url, qm_name), True
    # no channel anywhere: IBM's client gives up on the name it cannot find a channel for
    return CMQC.MQRC_Q_MGR_NAME_ERROR, False


def _local_conn_name(qm_name: str) -> str:
    if qm_name in local_queue_managers:
        return local_queue_managers[qm_name]
    if not qm_name and len(local_queue_managers) == 1:
        return next(iter(local_queue_managers.values()))
    return ""


def _local_socket(qm_name: str) -> str:
    if qm_name in local_bindings:
        return local_bindings[qm_name]
    if not qm_name and len(local_bindings) == 1:
        return next(iter(local_bindings.values()))
    return ""


def _mqserver_route(server: str, check_name: str) -> list[_Route] | int:
    """MQSERVER=CHANNEL/TCP/host(port)[,host(port)]; the connection name may be quoted, as
    shells need for the parentheses. Other transports, or a malformed value, fail as IBM's
    client fails them, with MQRC_Q_MGR_NAME_ERROR."""
    parts = server.split("/", 2)
    if len(parts) != 3 or not parts[0].strip() or parts[1].strip().upper() != "TCP":
        return CMQC.MQRC_Q_MGR_NAME_ERROR
    conn_name = parts[2].strip().strip("'\"")
    if not conn_name:
        return CMQC.MQRC_Q_MGR_NAME_ERROR
    return [_Route(parts[0].strip(), conn_name, check_name)]


def _ccdt_routes(url: str, qm_name: str) -> list[_Route] | int:
    try:
        table = ccdt.read(url)
    except ccdt.CCDTError:
        return CMQC.MQRC_CLIENT_CONN_ERROR
    chosen = ccdt.candidates(table, qm_name)
    if not chosen:
        return CMQC.MQRC_Q_MGR_NAME_ERROR   # no channel in the table for this name
    check_name = "" if qm_name.startswith("*") else qm_name
    return [_Route(c.name, c.conn_name, check_name, c.cipher_spec, c.certificate_label, c.peer_name)
            for c in chosen]


def _connect_one(host: str, port: int, route: _Route, user: str, password: str,
                 appl_name: str, client_context: ssl.SSLContext | None = None,
                 peer_name: str = "", token: str | None = None) -> tuple[Connection | None, list]:
    """One address: the connection and the CONN answer, or None and [FAILED, reason].
    MQRC_HOST_NOT_AVAILABLE when TCP fails (no such host, nothing listening, unreachable),
    MQRC_Q_MGR_NOT_AVAILABLE when something listens but does not answer as a queue manager;
    with a TLS context, the TLS reasons of client/tls.py, and MQRC_SSL_INITIALIZATION_ERROR
    when the queue manager ends the session (it refused this client's certificate)."""
    try:
        sock = socket.create_connection((host, port), timeout=_CONNECT_TIMEOUT)
    except OSError:
        return None, [FAILED, CMQC.MQRC_HOST_NOT_AVAILABLE]
    # a peer that accepts and then says nothing must not hold MQCONNX for ever
    sock.settimeout(_CONNECT_TIMEOUT)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if client_context is not None:
        try:
            sock = tls.handshake(sock, client_context, route.cipher_spec, route.channel or "", peer_name)
        except tls.TlsRefused as refused:
            return None, [FAILED, refused.reason]
    return _conn_on(sock, route.check_name, user, password, appl_name, route.channel,
                    client_context is not None, token)


def _conn_on(sock: socket.socket, qm_name: str, user: str, password: str, appl_name: str,
             channel: str | None, tls_used: bool,
             token: str | None = None) -> tuple[Connection | None, list]:
    """CONN (CONNT with a token) on a connected socket: the connection and the answer, or
    None and [FAILED, reason]."""
    conn = Connection(sock, qm_name)
    if token is not None:
        reply = conn.call(CONNT, qm_name, token, appl_name, channel)
    else:
        reply = conn.call(CONN, qm_name, user, password, appl_name, channel)
    if conn.broken or not _is_conn_answer(reply):
        sock.close()
        return None, [FAILED, CMQC.MQRC_SSL_INITIALIZATION_ERROR if tls_used
                      else CMQC.MQRC_Q_MGR_NOT_AVAILABLE]
    if reply[0] == FAILED:
        sock.close()
        return None, reply
    sock.settimeout(None)
    conn.set_qm_name(reply[2])
    if len(reply) > 4:
        conn.heartbeat_interval = float(reply[4])
    return conn, reply


def connect_bindings(path: str, qm_name: str, user: str, password: str,
                     appl_name: str) -> tuple[Connection | None, list]:
    """A bindings connection through the queue manager's Unix-domain socket (see
    local_bindings): the connection and the CONN answer, or None and [FAILED, reason];
    MQRC_Q_MGR_NOT_AVAILABLE when no queue manager listens there, as IBM's bindings connect
    answers for a queue manager that is not running."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(_CONNECT_TIMEOUT)
        connect_unix(sock, path)
    except OSError:
        sock.close()
        return None, [FAILED, CMQC.MQRC_Q_MGR_NOT_AVAILABLE]
    return _conn_on(sock, qm_name, user, password, appl_name, None, False)


def connect_channel(host: str, port: int, channel: str, qm_name: str, user: str,
                    password: str, appl_name: str) -> tuple[Connection | None, list]:
    """A client connection on `channel` at host(port), without TLS (the admin client's)."""
    return _connect_one(host, port, _Route(channel, f"{host}({port})", qm_name), user, password,
                        appl_name)


def connect_unix(sock: socket.socket, path: str) -> None:
    """Connect to the socket `path`; one longer than a sockaddr_un holds (about 107 bytes)
    is reached through its directory's descriptor in /proc, as the server binds it."""
    if len(os.fsencode(path)) < 100:
        sock.connect(path)
        return
    directory = os.open(os.path.dirname(path) or ".", os.O_PATH)
    try:
        sock.connect(f"/proc/self/fd/{directory}/{os.path.basename(path)}")
    finally:
        os.close(directory)


def _is_conn_answer(reply: object) -> bool:
    """Whether a reply has the shape of a CONN answer: a peer that happens to send a valid
    frame must still not pass for a queue manager."""
    if not isinstance(reply, list) or len(reply) < 2:
        return False
    if not all(type(item) is int for item in reply[:2]):
        return False
    return reply[0] == FAILED or (len(reply) >= 4 and isinstance(reply[2], str))


def MQCONN(name: bytes | str | None) -> tuple[int, int, int]:
    return MQCONNX(name, None, None, None, None, None)


def MQDISC(hconn: int) -> tuple[int, int]:
    conn = connections.pop(hconn, None)
    if conn is None:
        return (FAILED, CMQC.MQRC_HCONN_ERROR)
    reply = conn.call(DISC)
    try:
        conn.sock.close()
    except OSError:
        pass
    return (reply[0], reply[1])
