"""The metrics endpoint: `GET /metrics` answers families.py's figures in Prometheus's text
format (runs in the queue-manager process, `--metrics-port`).

A door into the queue manager, kept as narrow as the listener's:

- who may reach it: without users (a queue manager open to anyone who reaches it) it
  listens on loopback only; with users, every request carries HTTP basic credentials of
  one of them, compared as connection authentication compares a password (a wrong one is
  answered after the CONNAUTH's FAILDLAY, as MQCONN is), and that user needs CONNECT and
  DISPLAY on the queue manager (and sees the queues it may display). When the key
  repository holds the queue manager's certificate (server/network/tls.py) the endpoint speaks
  HTTPS only; a password would otherwise cross the network in clear, so beyond loopback
  without TLS it does not start unless told --insecure.
- what one client can make it hold: a request (its line and headers, no body: GET and
  HEAD only) of at most `MAX_REQUEST` bytes, arriving whole, TLS handshake included,
  within `REQUEST_SECONDS`; the answer written within `WRITE_SECONDS`; then the
  connection is closed (no keep-alive).
- what strangers cannot take from a scraper: one thread (the loop) accepts connections,
  does TLS handshakes and reads request heads for all of them without blocking (a
  selector), so a client that sends nothing or trickles holds no thread. At most
  `MAX_PENDING` connections wait there for their heads; one more evicts the OLDEST, so
  silent sockets, however many, are pushed out by newer clients, and a scraper, which
  sends its request at once, is read before `MAX_PENDING` others arrive behind it. Only a
  complete request with the right password (any complete request, without users) takes
  one of the `MAX_CLIENTS` worker slots that check its authority, gather the figures
  (read under the queue manager's lock before any byte is written, so a slow reader
  never holds the lock) and write the answer; with every slot busy it is answered 503 at
  once. Refusals (400, 401, 404, 405, 431, 503) are written by the loop itself.
- a wrong password holds no slot either: its connection waits FAILDLAY in the loop (at
  most `MAX_FAILING` of them). While that many wait, further complete requests are left
  unjudged among the pending ones (evictable, but a guess is never answered early), so
  guessing goes no faster than `MAX_FAILING` per FAILDLAY.
- the accept loop itself never stops while the queue manager runs: a failed accept (out
  of file descriptors, ...) is logged, the oldest pending connection is given up to free
  a descriptor, and accepting is retried; an error on one connection closes that one.
"""
from __future__ import annotations

import base64
import binascii
import errno
import hmac
import logging
import selectors
import socket
import ssl
import threading
import time

from prometheus_client.exposition import generate_latest

from spark_mq.embedded.server.core.addresses import is_loopback
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.security.checks import check
from spark_mq.embedded.server.core.security.security_state import security_of
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.embedded.server.metrics.families import collect
from spark_mq.embedded.server.network import tls
from spark_mq.mqi.constants import CMQC, CMQCFC

log = logging.getLogger("spark_mq.embedded")

MAX_REQUEST = 8192          # bytes of request line and headers
REQUEST_SECONDS = 5.0       # to send the whole request (TLS handshake included)
WRITE_SECONDS = 10.0        # to take the whole answer
MAX_CLIENTS = 8             # requests served at once (authority, figures, answer)
MAX_PENDING = 128           # connections waiting for their request heads; one more evicts the oldest
MAX_FAILING = 32            # wrong passwords waiting out FAILDLAY
MAX_FAIL_DELAY = 30.0       # the most a wrong password waits (FAILDLAY, in seconds)
LINGER_SECONDS = 1.0        # reading what a client sent beyond its request, before closing
PATHS = ("/metrics", "/")
#: the classic text format, which every Prometheus (and IBM's own collector) writes and reads;
#: prometheus_client's newer default label (version=1.0.0) older scrapers may not take
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_ACCEPT_PAUSE = 0.2
#: connections taken from the backlog in one turn of the loop, so reading heads goes on
_ACCEPTS_AT_ONCE = 64
#: what the loop reads and drops after a refusal before it closes (see _linger)
_LINGER_BYTES = 1 << 20

# what the loop is doing with a connection
_HANDSHAKE, _HEAD, _UNJUDGED, _FAILING, _ANSWER, _DRAIN = range(6)


class MetricsError(Exception):
    """Why the endpoint cannot start, as one line a person can act on."""


class _Refusal(Exception):
    def __init__(self, status: str, headers: tuple[str, ...] = ()):
        super().__init__(status)
        self.status, self.headers = status, headers


class _Client:
    """A connection while the loop holds it (before a worker takes it, or instead of one)."""

    __slots__ = ("sock", "peer", "deadline", "state", "received", "out", "drained")

    def __init__(self, sock: socket.socket, peer: str, state: int, deadline: float):
        self.sock, self.peer, self.state, self.deadline = sock, peer, state, deadline
        self.received = b""
        self.out = memoryview(b"")
        self.drained = 0


class MetricsEndpoint:
    """Serves GET /metrics for `qm` on host:port (port 0: a free one)."""

    def __init__(self, qm: QueueManagerState, host: str, port: int, insecure: bool = False):
        self.qm, self.host = qm, host
        self.started = time.time()
        self._tls = tls.server_context(qm)
        loopback = is_loopback(host)
        if qm.users is None and not loopback:
            raise MetricsError(
                f"--metrics-host {host} reaches beyond this machine and the queue manager has no "
                "users, so anyone could read its queues' names and depths: listen on 127.0.0.1 "
                "or give the queue manager users")
        if qm.users is not None and not loopback and self._tls is None and not insecure:
            raise MetricsError(
                f"--metrics-host {host} reaches beyond this machine and the queue manager has no "
                f"TLS certificate in its key repository ({tls.repository(qm)}.crt/.key), so "
                "scrapers' passwords would cross the network in clear: add the certificate, "
                "listen on 127.0.0.1, or say --insecure")
        try:
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            self._socket = socket.create_server((host, port), family=family,
                                                backlog=MAX_PENDING)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise MetricsError(f"--metrics-port {port} on {host} is already in use; choose "
                                   "another, or 0 for a free one") from None
            raise MetricsError(f"--metrics-port: cannot listen on {host}({port}): "
                               f"{exc.strerror or exc}") from None
        self._socket.setblocking(False)
        self._stop = threading.Event()
        self._busy = threading.BoundedSemaphore(MAX_CLIENTS)
        self._thread: threading.Thread | None = None
        self._selector = selectors.DefaultSelector()
        # insertion-ordered: the first is the oldest, the one a newcomer evicts
        self._pending: dict[_Client, None] = {}
        self._failing: dict[_Client, float] = {}      # -> when its 401 goes out
        self._accept_failing = False

    @property
    def port(self) -> int:
        return int(self._socket.getsockname()[1])

    @property
    def tls(self) -> bool:
        return self._tls is not None

    @property
    def url(self) -> str:
        scheme = "https" if self.tls else "http"
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{scheme}://{host}:{self.port}/metrics"

    def start(self) -> MetricsEndpoint:
        self._thread = threading.Thread(target=self._loop, name="metrics", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        self._socket.close()

    # --- the loop: accepting, handshakes, heads, refusals ---------------------------------
    def _loop(self) -> None:
        self._selector.register(self._socket, selectors.EVENT_READ, None)
        try:
            while not self._stop.is_set():
                try:
                    self._turn()
                except Exception:  # noqa: BLE001 - the door stays open whatever one client did
                    log.exception("the metrics endpoint met an unexpected error; going on")
                    self._stop.wait(_ACCEPT_PAUSE)
        finally:
            for client in [*self._pending, *self._failing]:
                self._drop(client)
            self._selector.close()

    def _turn(self) -> None:
        for key, _events in self._selector.select(self._timeout()):
            if key.data is None:
                self._accept()
            elif key.data in self._pending:
                self._step(key.data)
        now = time.monotonic()
        for client in [c for c in self._pending if c.deadline <= now]:
            self._drop(client)          # silent, trickling, or not taking its refusal
        for client in [c for c, due in self._failing.items() if due <= now]:
            del self._failing[client]
            self._refuse(client, _Refusal("401 Unauthorized", self._challenge()))
        if len(self._failing) < MAX_FAILING:
            for client in [c for c in self._pending if c.state == _UNJUDGED]:
                if len(self._failing) >= MAX_FAILING:
                    break
                self._judge(client)

    def _timeout(self) -> float:
        soonest = min((*(c.deadline for c in self._pending), *self._failing.values()),
                      default=time.monotonic() + _ACCEPT_PAUSE)
        return min(_ACCEPT_PAUSE, max(0.0, soonest - time.monotonic()))

    def _accept(self) -> None:
        for _ in range(_ACCEPTS_AT_ONCE):
            try:
                sock, address = self._socket.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if not self._accept_failing:
                    log.warning("the metrics endpoint cannot accept a connection (%s); retrying",
                                exc.strerror or exc)
                self._accept_failing = True
                if self._pending:          # out of descriptors: the oldest stranger gives one up
                    self._drop(next(iter(self._pending)))
                else:
                    self._stop.wait(_ACCEPT_PAUSE)
                return
            self._accept_failing = False
            self._admit(self._new_client(sock, address[0]))

    def _new_client(self, sock: socket.socket, peer: str) -> _Client:
        sock.setblocking(False)
        deadline = time.monotonic() + REQUEST_SECONDS
        if self._tls is None:
            return _Client(sock, peer, _HEAD, deadline)
        wrapped = self._tls.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        return _Client(wrapped, peer, _HANDSHAKE, deadline)

    def _admit(self, client: _Client) -> None:
        while len(self._pending) >= MAX_PENDING:
            self._drop(next(iter(self._pending)))
        self._pending[client] = None
        self._watch(client, selectors.EVENT_READ)

    def _step(self, client: _Client) -> None:
        try:
            if client.state == _HANDSHAKE:
                self._handshake(client)
            if client.state == _HEAD:
                self._read_head(client)
            elif client.state == _ANSWER:
                self._send(client)
            elif client.state == _DRAIN:
                self._drain(client)
        except (OSError, ValueError):      # went away, garbage for a handshake, or reset
            self._drop(client)

    def _handshake(self, client: _Client) -> None:
        try:
            client.sock.do_handshake()     # type: ignore[attr-defined]
        except ssl.SSLWantReadError:
            return
        except ssl.SSLWantWriteError:
            self._watch(client, selectors.EVENT_WRITE)
            return
        client.state = _HEAD
        self._watch(client, selectors.EVENT_READ)

    def _read_head(self, client: _Client) -> None:
        while True:
            try:
                chunk = client.sock.recv(MAX_REQUEST - len(client.received))
            except (BlockingIOError, ssl.SSLWantReadError):
                return
            if not chunk:
                raise ConnectionError("the client closed the connection")
            client.received += chunk
            if b"\r\n\r\n" in client.received:
                client.state = _UNJUDGED
                self._unwatch(client)      # what it sends now is read by no one until judged
                if self.qm.users is None or len(self._failing) < MAX_FAILING:
                    self._judge(client)
                return
            if len(client.received) >= MAX_REQUEST:
                self._refuse(client, _Refusal("431 Request Header Fields Too Large"))
                return

    def _judge(self, client: _Client) -> None:
        """A whole request: refused by the loop, sent to wait out FAILDLAY, or served."""
        head = client.received.split(b"\r\n\r\n", 1)[0]
        try:
            method, path, headers = _parse(head)
            if method not in ("GET", "HEAD"):
                raise _Refusal("405 Method Not Allowed", ("Allow: GET, HEAD",))
            if path not in PATHS:
                raise _Refusal("404 Not Found")
            user = self._authenticate(headers.get("authorization", ""), client.peer)
        except _Refusal as refusal:
            self._refuse(client, refusal)
            return
        except _WrongPassword:
            self._make_wait(client)
            return
        self._hand_over(client, method, user)

    def _make_wait(self, client: _Client) -> None:
        delay = min(self._fail_delay(), MAX_FAIL_DELAY)
        if delay <= 0:
            self._refuse(client, _Refusal("401 Unauthorized", self._challenge()))
            return
        self._pending.pop(client, None)
        client.state = _FAILING
        self._failing[client] = time.monotonic() + delay

    def _refuse(self, client: _Client, refusal: _Refusal) -> None:
        """Written by the loop: a few hundred bytes, then the client's leftovers are drained."""
        client.out = memoryview(_answer(refusal.status, refusal.headers, b""))
        client.state = _ANSWER
        client.deadline = time.monotonic() + WRITE_SECONDS
        if client in self._pending:
            self._watch(client, selectors.EVENT_WRITE)
        else:
            self._admit(client)
            self._watch(client, selectors.EVENT_WRITE)

    def _send(self, client: _Client) -> None:
        while client.out:
            try:
                client.out = client.out[client.sock.send(client.out):]
            except (BlockingIOError, ssl.SSLWantWriteError):
                return
            except ssl.SSLWantReadError:
                self._watch(client, selectors.EVENT_READ)
                return
        client.sock.shutdown(socket.SHUT_WR)
        client.state = _DRAIN
        client.deadline = time.monotonic() + LINGER_SECONDS
        self._watch(client, selectors.EVENT_READ)

    def _drain(self, client: _Client) -> None:
        while client.drained < _LINGER_BYTES:
            try:
                chunk = client.sock.recv(65536)
            except (BlockingIOError, ssl.SSLWantReadError):
                return
            if not chunk:
                break
            client.drained += len(chunk)
        self._drop(client)

    def _hand_over(self, client: _Client, method: str, user: str | None) -> None:
        if not self._busy.acquire(blocking=False):
            self._refuse(client, _Refusal("503 Service Unavailable"))
            return
        self._pending.pop(client, None)
        self._unwatch(client)
        try:
            threading.Thread(target=self._serve, args=(client.sock, client.peer, method, user),
                             daemon=True, name="metrics-client").start()
        except RuntimeError:      # no thread to be had: this one client goes unanswered
            self._busy.release()
            client.sock.close()

    def _watch(self, client: _Client, events: int) -> None:
        try:
            self._selector.modify(client.sock, events, client)
        except KeyError:
            self._selector.register(client.sock, events, client)

    def _unwatch(self, client: _Client) -> None:
        try:
            self._selector.unregister(client.sock)
        except (KeyError, ValueError):
            pass

    def _drop(self, client: _Client) -> None:
        self._unwatch(client)
        self._pending.pop(client, None)
        self._failing.pop(client, None)
        try:
            client.sock.close()
        except OSError:
            pass

    # --- a worker: one served request -----------------------------------------------------
    def _serve(self, sock: socket.socket, peer: str, method: str, user: str | None) -> None:
        try:
            try:
                status, headers, body = self._respond(method, user, peer)
            except _Refusal as refusal:
                status, headers, body = refusal.status, refusal.headers, b""
            _write(sock, status, headers, body)
            _linger(sock)
        except (OSError, ValueError):
            pass             # the client went away, or missed its deadline: nothing to answer
        finally:
            try:
                sock.close()
            finally:
                self._busy.release()

    def _respond(self, method: str, user: str | None,
                 peer: str) -> tuple[str, tuple[str, ...], bytes]:
        if user is not None:
            self._authorize(user, peer)
        families = collect(self.qm, self.started, self._display_filter(user))
        body = generate_latest(families)    # type: ignore[arg-type]
        return "200 OK", (f"Content-Type: {CONTENT_TYPE}",), b"" if method == "HEAD" else body

    # --- who asks -------------------------------------------------------------------------
    def _challenge(self) -> tuple[str, ...]:
        return (f'WWW-Authenticate: Basic realm="{self.qm.name}", charset="UTF-8"',)

    def _authenticate(self, authorization: str, peer: str) -> str | None:
        """The user a request runs as (None: the queue manager has no users); no lock taken."""
        users = self.qm.users
        if users is None:
            return None
        user, password = _basic_credentials(authorization)
        if user is None or password is None:
            raise _Refusal("401 Unauthorized", self._challenge())
        known = users.get(user)
        if known is None or not hmac.compare_digest(known.encode(), password.encode()):
            log.warning("metrics: wrong user or password for %r from %s", user, peer)
            raise _WrongPassword()
        return user

    def _authorize(self, user: str, peer: str) -> None:
        with self.qm.lock:
            try:
                check(self.qm, user, CMQC.MQOT_Q_MGR, self.qm.name,
                      {CMQCFC.MQAUTH_CONNECT, CMQCFC.MQAUTH_DISPLAY})
            except MQError:
                log.warning("metrics: %s from %s lacks CONNECT and DISPLAY on the queue manager",
                            user, peer)
                raise _Refusal("403 Forbidden") from None

    def _fail_delay(self) -> float:
        with self.qm.lock:
            connauth = security_of(self.qm).connauth
        return float((connauth or {}).get("FAILDLAY", 0) or 0)

    def _display_filter(self, user: str | None):
        if user is None:
            return lambda name: True

        def may_display(name: str) -> bool:   # called under the queue manager's lock
            try:
                check(self.qm, user, CMQC.MQOT_Q, name, {CMQCFC.MQAUTH_DISPLAY})
            except MQError:
                return False
            return True
        return may_display


class _WrongPassword(Exception):
    """A known scheme with an unknown user or a wrong password: answered after FAILDLAY."""


def _parse(head: bytes) -> tuple[str, str, dict[str, str]]:
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise _Refusal("400 Bad Request")
    headers = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep:
            raise _Refusal("400 Bad Request")
        headers[name.strip().lower()] = value.strip()
    return parts[0], parts[1].split("?", 1)[0], headers


def _basic_credentials(authorization: str) -> tuple[str | None, str | None]:
    scheme, _, encoded = authorization.partition(" ")
    if scheme.lower() != "basic":
        return None, None
    try:
        text = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None, None
    user, sep, password = text.partition(":")
    return (user, password) if sep else (None, None)


def _answer(status: str, headers: tuple[str, ...], body: bytes) -> bytes:
    head = "".join(f"{line}\r\n" for line in (f"HTTP/1.1 {status}", *headers,
                                                f"Content-Length: {len(body)}", "Connection: close"))
    return head.encode("latin-1") + b"\r\n" + body


def _write(sock: socket.socket, status: str, headers: tuple[str, ...], body: bytes) -> None:
    """The answer, taken whole by the client within WRITE_SECONDS (else TimeoutError)."""
    data = memoryview(_answer(status, headers, body))
    deadline = time.monotonic() + WRITE_SECONDS
    while data:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the client did not take the answer in time")
        sock.settimeout(left)
        data = data[sock.send(data):]


def _linger(sock: socket.socket) -> None:
    """Close gently: what the client sent beyond what was read (a body, the rest of an
    oversized request) would make the close a reset that can beat the answer to it, so it
    is read and dropped first, a little of it, briefly."""
    try:
        sock.shutdown(socket.SHUT_WR)
    except (OSError, ValueError):    # ValueError: an SSLSocket after an unwrap
        return
    sock.settimeout(LINGER_SECONDS)
    for _ in range(16):
        if not sock.recv(65536):
            return
