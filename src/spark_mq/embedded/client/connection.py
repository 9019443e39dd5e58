"""Connections to embedded queue managers: sockets, request and answer, pipelining; MQCONNX/MQDISC.

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
import sys
import threading
import time

from spark_mq.embedded.wire import FrameReader, frame
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import CD, CNO, CSP, text

# completion codes under short names, and the reason that goes with MQCC_OK
FAILED: int = CMQC.MQCC_FAILED
WARNING: int = CMQC.MQCC_WARNING
OK: int = CMQC.MQCC_OK
NONE: int = CMQC.MQRC_NONE
BROKEN = (FAILED, CMQC.MQRC_CONNECTION_BROKEN)
_FLUSH_AT = 256 << 10        # pipelined asynchronous puts are sent once this much is queued
_FLUSH_AFTER = 0.002         # ... or this many seconds after the first of them, whichever is first

#: queue manager name -> "host(port)" of embedded queue managers started by this process,
#: so that a bindings-style connect (no channel, no connection name) finds them
local_queue_managers: dict[str, str] = {}


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
        self.qm_name = qm_name
        self.heartbeat_interval = 0.0    # from the CONN answer; 0: the server wants none
        self.last_sent = time.monotonic()
        self.lock = threading.RLock()
        self.pending = bytearray()   # pipelined asynchronous puts not yet sent
        self.handles: dict[int, ObjectHandle] = {}
        self.broken = False
        self.reader = FrameReader(sock)
        self.inflight: collections.deque = collections.deque()  # handles awaiting a refill
        self.msgid_prefix = b"AMQ " + qm_name.encode()[:8].ljust(8, b" ") + os.urandom(4)
        self.msgid_counter = itertools.count(1)

    def call(self, *request: object) -> list:
        """Send one verb (after any pipelined puts) and wait for its answer."""
        return self.call_frame(frame(request))

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
            except (OSError, ConnectionError, ValueError):
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
            except (OSError, ConnectionError, ValueError):
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

    def new_msgid(self) -> bytes:
        return self.msgid_prefix + next(self.msgid_counter).to_bytes(8, "big")


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
_HEARTBEAT = frame(("HB",))


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


def read_pointer(address: int, length: int) -> bytes:
    """The bytes an MQCHARV or CSP pointer field points at (ibmmq passes real addresses)."""
    if not address or length <= 0:
        return b""
    return ctypes.string_at(address, length)


def MQCONNX(name: bytes | str | None, cno: bytes | None, cd: bytes | None, csp: bytes | None,
            sco: bytes | None, bno: bytes | None) -> tuple[int, int, int]:
    qm_name = (name.decode() if isinstance(name, bytes) else str(name or "")).strip()
    conn_names = ""
    if cd:
        conn_names = text(cd[CD.offsets["ConnectionName"]:CD.offsets["ConnectionName"] + 264])
        if text(cd[CD.offsets["SSLCipherSpec"]:CD.offsets["SSLCipherSpec"] + 32]):
            # the embedded queue manager speaks no TLS: refuse rather than send in clear
            return (0, FAILED, CMQC.MQRC_SSL_INITIALIZATION_ERROR)
    if not conn_names:
        conn_names = _conn_name_from_environment(qm_name)
    if not conn_names:
        return (0, FAILED, CMQC.MQRC_Q_MGR_NOT_AVAILABLE)
    user = password = ""
    if csp:
        fields = CSP.unpack(csp)
        index = CSP.index
        user = read_pointer(fields[index["CSPUserIdPtr"]], fields[index["CSPUserIdLength"]]).decode()
        password = read_pointer(fields[index["CSPPasswordPtr"]], fields[index["CSPPasswordLength"]]).decode()
    appl_name = ""
    if cno and len(cno) >= CNO.size:
        appl_name = text(CNO.unpack(cno)[CNO.index["ApplName"]])
    appl_name = appl_name or os.path.basename(sys.argv[0] or "python")[:28]
    sock = None
    for host, port in _parse_conn_names(conn_names):
        try:
            sock = socket.create_connection((host, port), timeout=10)
            break
        except OSError:
            continue
    if sock is None:
        return (0, FAILED, CMQC.MQRC_Q_MGR_NOT_AVAILABLE)
    sock.settimeout(None)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    conn = Connection(sock, qm_name)
    reply = conn.call("CONN", qm_name, user, password, appl_name)
    if reply[0] == FAILED:
        sock.close()
        return (0, reply[0], reply[1])
    conn.qm_name = reply[2]
    if len(reply) > 4:
        conn.heartbeat_interval = float(reply[4])
    hconn = next(_hconns)
    connections[hconn] = conn
    _heartbeats.watch(conn.heartbeat_interval)
    return (hconn, reply[0], reply[1])


def _conn_name_from_environment(qm_name: str) -> str:
    if qm_name in local_queue_managers:
        return local_queue_managers[qm_name]
    if not qm_name and len(local_queue_managers) == 1:
        return next(iter(local_queue_managers.values()))
    server = os.environ.get("MQSERVER", "")  # CHANNEL/TCP/host(port)
    parts = server.split("/")
    return parts[2] if len(parts) == 3 else ""


def MQCONN(name: bytes | str | None) -> tuple[int, int, int]:
    return MQCONNX(name, None, None, None, None, None)


def MQDISC(hconn: int) -> tuple[int, int]:
    conn = connections.pop(hconn, None)
    if conn is None:
        return (FAILED, CMQC.MQRC_HCONN_ERROR)
    reply = conn.call("DISC")
    try:
        conn.sock.close()
    except OSError:
        pass
    return (reply[0], reply[1])
