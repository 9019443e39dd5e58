"""The metrics endpoint: `GET /metrics` answers families.py's figures in Prometheus's text
format (runs in the queue-manager process, `--metrics-port`).

A door into the queue manager, kept as narrow as the listener's:

- who may reach it: without users (a queue manager open to anyone who reaches it) it
  listens on loopback only; with users, every request carries HTTP basic credentials of
  one of them, compared as connection authentication compares a password (a wrong one is
  answered after the CONNAUTH's FAILDLAY, as MQCONN is), and that user needs CONNECT and
  DISPLAY on the queue manager (and sees the queues it may display). When the key
  repository holds the queue manager's certificate (server/tls.py) the endpoint speaks
  HTTPS only; a password would otherwise cross the network in clear, so beyond loopback
  without TLS it does not start unless told --insecure.
- what one client can make it hold: a request (its line and headers, no body: GET and
  HEAD only) of at most `MAX_REQUEST` bytes, arriving whole, TLS handshake included,
  within `REQUEST_SECONDS`; the answer written within `WRITE_SECONDS`; `MAX_CLIENTS` at
  once (more are answered 503 at once); then the connection is closed (no keep-alive). A
  client that sends nothing, trickles or stops reading is dropped at its deadline, and the
  figures are read under the queue manager's lock before any byte is written, so a slow
  client never holds the lock.
- the accept loop itself never stops while the queue manager runs: a failed accept (out
  of file descriptors, ...) is logged and retried after a pause.
"""
from __future__ import annotations

import base64
import binascii
import errno
import hmac
import logging
import socket
import ssl
import threading
import time

from prometheus_client.exposition import generate_latest

from spark_mq.embedded.server import tls
from spark_mq.embedded.server.addresses import is_loopback
from spark_mq.embedded.server.errors import MQError
from spark_mq.embedded.server.metrics.families import collect
from spark_mq.embedded.server.security.checks import check
from spark_mq.embedded.server.security.state import security_of
from spark_mq.embedded.server.state import QueueManagerState
from spark_mq.mqi.constants import CMQC, CMQCFC

log = logging.getLogger("spark_mq.embedded")

MAX_REQUEST = 8192          # bytes of request line and headers
REQUEST_SECONDS = 10.0      # to send the whole request (TLS handshake included)
WRITE_SECONDS = 10.0        # to take the whole answer
MAX_CLIENTS = 8             # requests served at once
MAX_FAIL_DELAY = 30.0       # the most a wrong password waits (FAILDLAY, in seconds)
LINGER_SECONDS = 1.0        # reading what a client sent beyond its request, before closing
PATHS = ("/metrics", "/")
#: the classic text format, which every Prometheus (and IBM's own collector) writes and reads;
#: prometheus_client's newer default label (version=1.0.0) older scrapers may not take
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_ACCEPT_PAUSE = 0.2


class MetricsError(Exception):
    """Why the endpoint cannot start, as one line a person can act on."""


class _Refusal(Exception):
    def __init__(self, status: str, headers: tuple[str, ...] = ()):
        super().__init__(status)
        self.status, self.headers = status, headers


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
            self._socket = socket.create_server((host, port), family=family)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise MetricsError(f"--metrics-port {port} on {host} is already in use; choose "
                                   "another, or 0 for a free one") from None
            raise MetricsError(f"--metrics-port: cannot listen on {host}({port}): "
                               f"{exc.strerror or exc}") from None
        self._socket.settimeout(_ACCEPT_PAUSE)
        self._stop = threading.Event()
        self._busy = threading.BoundedSemaphore(MAX_CLIENTS)
        self._thread: threading.Thread | None = None

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
        self._thread = threading.Thread(target=self._accept_loop, name="metrics", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        self._socket.close()

    # --- connections ----------------------------------------------------------------------
    def _accept_loop(self) -> None:
        failing = False
        while not self._stop.is_set():
            try:
                sock, address = self._socket.accept()
            except TimeoutError:
                continue
            except OSError as exc:
                if self._stop.is_set():
                    return
                if not failing:
                    log.warning("the metrics endpoint cannot accept a connection (%s); retrying",
                                exc.strerror or exc)
                failing = True
                self._stop.wait(_ACCEPT_PAUSE)
                continue
            failing = False
            if not self._busy.acquire(blocking=False):
                _answer_at_once(sock, "503 Service Unavailable")
                continue
            try:
                threading.Thread(target=self._serve, args=(sock, address[0]), daemon=True,
                                 name="metrics-client").start()
            except RuntimeError:      # no thread to be had: this one client goes unanswered
                self._busy.release()
                sock.close()

    def _serve(self, sock: socket.socket, peer: str) -> None:
        try:
            deadline = time.monotonic() + REQUEST_SECONDS
            conn = self._secure(sock, deadline)
            if conn is None:
                return
            sock = conn
            try:
                head = _read_request(sock, deadline)
                status, headers, body = self._respond(head, peer)
            except _Refusal as refusal:
                status, headers, body = refusal.status, refusal.headers, b""
            _write(sock, status, headers, body)
            _linger(sock)
        except (OSError, ssl.SSLError):
            pass             # the client went away, or missed its deadline: nothing to answer
        finally:
            try:
                sock.close()
            finally:
                self._busy.release()

    def _secure(self, sock: socket.socket, deadline: float) -> socket.socket | None:
        if self._tls is None:
            return sock
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            return self._tls.wrap_socket(sock, server_side=True)
        except (ssl.SSLError, OSError):
            sock.close()
            return None

    # --- requests -------------------------------------------------------------------------
    def _respond(self, head: bytes, peer: str) -> tuple[str, tuple[str, ...], bytes]:
        method, path, headers = _parse(head)
        if method not in ("GET", "HEAD"):
            raise _Refusal("405 Method Not Allowed", ("Allow: GET, HEAD",))
        if path not in PATHS:
            raise _Refusal("404 Not Found")
        user = self._authenticate(headers.get("authorization", ""), peer)
        families = collect(self.qm, self.started, self._display_filter(user))
        body = generate_latest(families)    # type: ignore[arg-type]
        return "200 OK", (f"Content-Type: {CONTENT_TYPE}",), b"" if method == "HEAD" else body

    def _authenticate(self, authorization: str, peer: str) -> str | None:
        """The user a request runs as (None: the queue manager has no users)."""
        users = self.qm.users
        if users is None:
            return None
        challenge = (f'WWW-Authenticate: Basic realm="{self.qm.name}", charset="UTF-8"',)
        user, password = _basic_credentials(authorization)
        if user is None or password is None:
            raise _Refusal("401 Unauthorized", challenge)
        known = users.get(user)
        if known is None or not hmac.compare_digest(known.encode(), password.encode()):
            log.warning("metrics: wrong user or password for %r from %s", user, peer)
            time.sleep(min(self._fail_delay(), MAX_FAIL_DELAY))
            raise _Refusal("401 Unauthorized", challenge)
        with self.qm.lock:
            try:
                check(self.qm, user, CMQC.MQOT_Q_MGR, self.qm.name,
                      {CMQCFC.MQAUTH_CONNECT, CMQCFC.MQAUTH_DISPLAY})
            except MQError:
                log.warning("metrics: %s from %s lacks CONNECT and DISPLAY on the queue manager",
                            user, peer)
                raise _Refusal("403 Forbidden") from None
        return user

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


def _read_request(sock: socket.socket, deadline: float) -> bytes:
    """The request line and headers, whole, by the deadline and within MAX_REQUEST."""
    received = b""
    while b"\r\n\r\n" not in received:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request did not arrive in time")
        if len(received) >= MAX_REQUEST:
            raise _Refusal("431 Request Header Fields Too Large")
        sock.settimeout(left)
        chunk = sock.recv(MAX_REQUEST - len(received))
        if not chunk:
            raise ConnectionError("the client closed the connection")
        received += chunk
    return received.split(b"\r\n\r\n", 1)[0]


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


def _write(sock: socket.socket, status: str, headers: tuple[str, ...], body: bytes) -> None:
    """The answer, taken whole by the client within WRITE_SECONDS (else TimeoutError)."""
    head = "".join(f"{line}\r\n" for line in (f"HTTP/1.1 {status}", *headers,
                                                f"Content-Length: {len(body)}", "Connection: close"))
    data = memoryview(head.encode("latin-1") + b"\r\n" + body)
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


def _answer_at_once(sock: socket.socket, status: str) -> None:
    try:
        sock.settimeout(1.0)
        sock.sendall(f"HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode())
    except OSError:
        pass
    finally:
        sock.close()


