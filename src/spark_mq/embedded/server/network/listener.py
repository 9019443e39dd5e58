"""The embedded queue manager's network side: one thread per client connection.

Runs in the queue-manager process; the other end is client/transport.py in the
application's process, and both speak wire.py's frames.

The listener accepts and gives each client a thread; mqi_session.py serves the client's frames
(one `Session` a connection; bindings.py serves the bindings socket's with the same class).

What one client can make the queue manager hold is bounded (a hostile one included): its
frames, their sizes and their time are mqi_session.py's; the connections at once are the
listener's: MaxChannels (IBM's qm.ini CHANNELS stanza; here the Server's `max_channels`,
default `DEFAULT_MAX_CHANNELS`, sockets before CONN included) and per SVRCONN channel
MAXINST and, per client address, MAXINSTC (counted by the session at CONN). Over any of
them a client is answered MQRC_CHANNEL_NOT_AVAILABLE (2537), as IBM MQ answers (a TLS
client over MaxChannels sees its handshake fail instead: the refusal is sent before any
handshake).

The listener itself never stops while the queue manager runs: running out of file
descriptors (EMFILE, ENFILE), buffers or memory on accept, or of threads when starting a
connection's worker, is logged once per burst, backed off and retried; connections waiting
meanwhile are served once resources return. One thread per connection is the design: see
bench/bench_connections.py for what an idle connection costs.
"""
from __future__ import annotations

import errno
import logging
import socket
import threading
import time

from spark_mq.embedded.server.core.outcomes import FAILED
from spark_mq.embedded.server.network import tls
from spark_mq.embedded.server.network.mqi_session import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_HEARTBEAT_INTERVAL,
    NOT_AVAILABLE,
    Instances,
    Late,
    Session,
    peer,
)
from spark_mq.embedded.server.verbs.qmgr import QueueManager
from spark_mq.embedded.wire import ProtocolError, reply_frame

log = logging.getLogger("spark_mq.embedded")


#: connections served at once, as qm.ini's MaxChannels (IBM's default is 100: an embedded
#: queue manager serves test suites and Spark executors that open many at once; the figure
#: stays well inside what one process holds, see bench/bench_connections.py)
DEFAULT_MAX_CHANNELS = 1000
#: accept() errors that concern only the client being accepted (it reset, it went away)
_PEER_GONE = frozenset({errno.ECONNABORTED, errno.ECONNRESET, errno.EPROTO, errno.EPERM,
                        errno.EINTR, errno.EAGAIN, errno.ETIMEDOUT, errno.EHOSTUNREACH,
                        errno.ENETUNREACH, errno.ENETDOWN, errno.EOPNOTSUPP})



class Server:
    def __init__(self, qmgr: QueueManager, host: str = "127.0.0.1", port: int = 0,
                 heartbeat_interval: float = DEFAULT_HEARTBEAT_INTERVAL,
                 connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
                 max_channels: int = DEFAULT_MAX_CHANNELS):
        self.qmgr = qmgr
        self.heartbeat_interval = heartbeat_interval
        self.connect_timeout = connect_timeout
        self.max_channels = max_channels
        self.sock = socket.create_server((host, port), backlog=128)
        self.port = self.sock.getsockname()[1]
        self._stopping = threading.Event()
        self._threads: set[threading.Thread] = set()
        self.instances = Instances()
        self._short = _Burst("the listener cannot accept or serve a new connection: %s; backing "
                             "off and retrying while it lasts",
                             "the listener serves new connections again, after %d failures in "
                             "%.1f s", self._stopping)
        self._full = _Burst(f"the maximum number of channels (MaxChannels {max_channels}) is "
                            f"reached: new clients are refused with {NOT_AVAILABLE} "
                            "MQRC_CHANNEL_NOT_AVAILABLE%s",
                            "below the maximum number of channels again, after refusing %d "
                            "clients in %.1f s", None)

    def serve_forever(self) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = self.sock.accept()
            except OSError as exc:
                if self._stopping.is_set():
                    break
                if exc.errno not in _PEER_GONE:
                    self._short.failed(exc)   # out of descriptors, buffers, memory: wait and retry
                continue
            except MemoryError as exc:
                self._short.failed(exc)
                continue
            self._start(client)

    def _start(self, client: socket.socket) -> None:
        if len(self._threads) >= self.max_channels:
            self._full.failed(None)
            _refuse(client)
            return
        self._full.recovered()
        thread = threading.Thread(target=self._serve_client, args=(client,), daemon=True)
        # in the set before it runs: the thread takes itself out when it ends
        self._threads.add(thread)
        try:
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            thread.start()
        except OSError as exc:   # the client reset before it could be served: its own loss
            self._threads.discard(thread)
            client.close()
            if exc.errno not in _PEER_GONE and exc.errno != errno.EINVAL:
                self._short.failed(exc)
            return
        except (RuntimeError, MemoryError) as exc:
            # "can't start new thread": a thread limit, or no memory for its stack
            self._threads.discard(thread)
            client.close()
            self._short.failed(exc)
            return
        self._short.recovered()

    def stop(self) -> None:
        self._stopping.set()
        try:
            self.sock.close()
        except OSError:
            pass

    # --- one client ------------------------------------------------------------------------
    def _serve_client(self, client: socket.socket) -> None:
        session: Session | None = None
        served: socket.socket | None = None
        try:
            # before MQCONN a client gets connect_timeout for each frame, its first bytes (and
            # so the TLS ClientHello) included: a socket that says nothing is not held
            first_deadline = time.monotonic() + self.connect_timeout
            client.settimeout(self.connect_timeout)
            # a TLS client is served over its TLS socket, once the handshake is done (server/network/tls.py)
            served, tls_session = tls.accept(self.qmgr, client, peer(client))
            if served is None:
                return
            session = Session(self.qmgr, served, self.heartbeat_interval, tls_session,
                               instances=self.instances, connect_timeout=self.connect_timeout,
                               first_deadline=first_deadline)
            session.run()
        except Late as late:
            log.info("closing the connection from %s: %s", late.peer, late)
        except TimeoutError:
            log.warning("no heartbeat from %s for %.0f s (heartbeat interval): ending the "
                        "connection and backing out its unit of work", session and session.peer,
                        self.heartbeat_interval)
        except (ConnectionError, OSError):
            pass
        except ProtocolError as exc:
            log.warning("closing a connection that sent a bad frame: %s", exc)
        except Exception:  # a bug must cost one connection, never the server
            log.exception("closing a connection after an unexpected error")
        finally:
            try:
                if session is not None:
                    session.close()
            finally:
                (served or client).close()
                client.close()
                self._threads.discard(threading.current_thread())


class _Burst:
    """Resource errors come in bursts (a flood of sockets exhausting the descriptors): the
    first of a burst is logged (`first`, with the error), the others counted and summed up
    once it is over (`over`, with the count and the seconds), so that a flood cannot flood
    the log too. With `stopping`, each failure also backs off (doubling up to a second), so
    that a listener short of resources neither spins nor gives up."""

    _FIRST_DELAY, _MAX_DELAY = 0.01, 1.0

    def __init__(self, first: str, over: str, stopping: threading.Event | None):
        self.first = first
        self.over = over
        self.stopping = stopping
        self.count = 0
        self.since = 0.0
        self.delay = self._FIRST_DELAY

    def failed(self, exc: BaseException | None) -> None:
        if not self.count:
            self.since = time.monotonic()
            log.error(self.first, "" if exc is None else _describe(exc))
        self.count += 1
        if self.stopping is not None:
            self.stopping.wait(self.delay)
            self.delay = min(self.delay * 2, self._MAX_DELAY)

    def recovered(self) -> None:
        if self.count:
            log.warning(self.over, self.count, time.monotonic() - self.since)
            self.count = 0
            self.delay = self._FIRST_DELAY


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno is not None:
        return f"{errno.errorcode.get(exc.errno, exc.errno)} ({exc.strerror})"
    return f"{type(exc).__name__}: {exc}"


def _refuse(client: socket.socket) -> None:
    """MQRC_CHANNEL_NOT_AVAILABLE without a thread: the client reads it as its CONN answer.
    Sent before the CONN is read, so that the refusal costs no buffer for it."""
    try:
        client.setblocking(False)
        client.send(reply_frame([FAILED, NOT_AVAILABLE]))
        client.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    client.close()


