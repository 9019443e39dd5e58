"""Bindings connections: a Unix-domain socket in the queue manager's data directory, for the
processes of this machine that the operating system vouches for (runs in the
queue-manager process).

IBM MQ protects its bindings connections with the operating system's permissions: only local
processes reach them, and MQ takes the user from the process. The same here: the socket
(`BINDINGS_SOCKET` in the data directory, which is 0700) is reachable only by the data
directory's owner, and the user a connection asserts is the one SO_PEERCRED gives for the
process at the other end, never one it sends. CHLAUTH does not apply to these connections and
CHCKLOCL does (core/security/admission.py); over TCP a client must always name a channel
(mqi_session.py, v_conn).

The application's side is client/connection.py (`connect_bindings`): an application that
started the queue manager finds the socket through the data directory
(client/process.py registers it in `local_bindings`).
"""
from __future__ import annotations

import logging
import os
import socket
import struct
import threading

from spark_mq.embedded.data_directory import BINDINGS_SOCKET
from spark_mq.embedded.server.network.mqi_session import DEFAULT_HEARTBEAT_INTERVAL, Session
from spark_mq.embedded.server.verbs.qmgr import QueueManager
from spark_mq.embedded.wire import ProtocolError

log = logging.getLogger("spark_mq.embedded")

_PEERCRED = struct.Struct("3i")   # struct ucred: pid, uid, gid


class BindingsListener:
    """Accepts bindings connections on DATA_DIR/qmgr.sock until `stop`."""

    def __init__(self, qmgr: QueueManager, data_dir: str,
                 heartbeat_interval: float = DEFAULT_HEARTBEAT_INTERVAL) -> None:
        self.qmgr = qmgr
        self.heartbeat_interval = heartbeat_interval
        self.path = os.path.join(os.path.abspath(data_dir), BINDINGS_SOCKET)
        if os.path.lexists(self.path):   # left by a queue manager that was killed
            os.unlink(self.path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        _bind(self.sock, self.path)
        os.chmod(self.path, 0o600)
        self.sock.listen(128)
        self._stopping = threading.Event()

    def serve_forever(self) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = self.sock.accept()
            except OSError:
                if self._stopping.is_set():
                    return
                self._stopping.wait(0.1)   # out of descriptors: wait, never stop serving
                continue
            try:
                threading.Thread(target=self._serve, args=(client,), daemon=True).start()
            except RuntimeError:
                client.close()

    def stop(self) -> None:
        self._stopping.set()
        try:
            self.sock.close()
        finally:
            try:
                os.unlink(self.path)
            except OSError:
                pass

    def _serve(self, client: socket.socket) -> None:
        session = Session(self.qmgr, client, self.heartbeat_interval)
        try:
            pid, uid, _ = _PEERCRED.unpack(
                client.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size))
            session.bindings_user = user_name(uid)
            session.peer = f"process {pid} of user {session.bindings_user} (uid {uid})"
            session.run()
        except (ConnectionError, OSError, TimeoutError):
            pass
        except ProtocolError as exc:
            log.warning("closing a bindings connection that sent a bad frame: %s", exc)
        except Exception:  # a bug must cost one connection, never the server
            log.exception("closing a bindings connection after an unexpected error")
        finally:
            try:
                session.close()
            finally:
                client.close()


def user_name(uid: int) -> str:
    """The name of the user `uid`, as MQ takes a local application's user from the OS."""
    try:
        import pwd
        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return str(uid)


def _bind(sock: socket.socket, path: str) -> None:
    """Bind to `path`; one longer than a sockaddr_un holds is bound through its directory's
    descriptor in /proc (the client connects the same way)."""
    if len(os.fsencode(path)) < 100:
        sock.bind(path)
        return
    directory = os.open(os.path.dirname(path), os.O_PATH)
    try:
        sock.bind(f"/proc/self/fd/{directory}/{os.path.basename(path)}")
    finally:
        os.close(directory)
