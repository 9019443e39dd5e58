"""Choosing the MQ transport and opening connections.

`transport`: `ibmmq` uses IBM's client library (libmqm_r.so must load), `embedded` uses
spark_mq.embedded's transport, `auto` takes IBM's client when its library loads, else the
embedded one. The choice is made once per process, before `ibmmq` is imported, because the
package binds its C extension at import time.
"""
from __future__ import annotations

import ctypes
import sys
import threading

from spark_mq.connection_options import ConnectionOptions
from spark_mq.errors import MQConnectorError

_lock = threading.Lock()
_chosen: str | None = None

HINTS = {
    2035: "the user or password was refused, or the user lacks authority: check 'user' and 'password'",
    2085: "no such queue on this queue manager: check the queue name (MQ names are case-sensitive)",
    2059: "the queue manager is not reachable: check 'connName' (host(port)) and that it is running",
    2058: "the queue manager name does not match the one listening at 'connName': check 'queueManager'",
    2538: "the host could not be reached: check 'connName'",
    2540: "the channel is not known to the queue manager: check 'channel'",
    2393: "TLS could not be set up: check 'cipherSpec' and 'keyRepository'",
    2030: "the message is larger than the queue's MAXMSGL",
    2053: "the queue is full (MAXDEPTH)",
    2009: "the connection to the queue manager broke",
    2024: "too many messages in one unit of work (MAXUMSGS): lower the batch size",
}


def ibm_client_available() -> bool:
    for library in ("libmqm_r.so", "libmqm_r.dylib", "mqm.dll"):
        try:
            ctypes.CDLL(library)
            return True
        except OSError:
            continue
    return False


def load_ibmmq(transport: str = "auto"):
    """The `ibmmq` module (or `pymqi`), wired to the requested transport."""
    global _chosen
    with _lock:
        wanted = transport
        if wanted == "auto":
            wanted = _chosen or ("ibmmq" if ibm_client_available() else "embedded")
        if _chosen is None:
            if wanted == "embedded":
                from spark_mq.embedded import install, installed
                if "ibmmq" in sys.modules and not installed():
                    raise MQConnectorError(
                        "transport 'embedded' requested, but ibmmq was already imported with "
                        "IBM's client in this process; use transport 'ibmmq' or a new process")
                install()
            _chosen = wanted
        elif wanted != _chosen:
            raise MQConnectorError(
                f"transport {wanted!r} requested, but this process already uses {_chosen!r}; "
                "one process can use only one MQ transport")
    try:
        import ibmmq
        return ibmmq
    except ImportError as exc:
        try:
            import pymqi
            return pymqi
        except ImportError:
            raise MQConnectorError(
                f"IBM's MQ client could not be loaded ({exc}); install IBM MQ's client "
                "(libmqm_r.so) or use transport 'embedded'") from exc


def describe(exc: Exception, action: str) -> MQConnectorError:
    """An MQ failure as a connector error: reason code number, name and a hint."""
    reason = getattr(exc, "reason", None)
    comp = getattr(exc, "comp", None)
    if reason is None:
        return MQConnectorError(f"{action} failed: {exc}")
    from spark_mq.mqi.constants import reason_name
    name = reason_name(reason)
    hint = HINTS.get(reason)
    message = f"{action} failed: MQ reason {reason} {name} (completion code {comp})"
    if hint:
        message += f": {hint}"
    return MQConnectorError(message, reason, name)


def connect(options: ConnectionOptions, action: str | None = None):
    """A connected `ibmmq.QueueManager` for these options."""
    ibmmq = load_ibmmq(options.transport)
    cd = ibmmq.CD()
    cd.ChannelName = options.channel.encode()
    cd.ConnectionName = (options.conn_name or "").encode()
    cd.ChannelType = ibmmq.CMQXC.MQCHT_CLNTCONN
    cd.TransportType = ibmmq.CMQXC.MQXPT_TCP
    sco = None
    if options.cipher_spec:
        cd.SSLCipherSpec = options.cipher_spec.encode()
        sco = ibmmq.SCO()
        if options.key_repository:
            sco.KeyRepository = options.key_repository.encode()
    cno = ibmmq.CNO()
    cno.Options = ibmmq.CMQC.MQCNO_CLIENT_BINDING
    if options.reconnect:
        cno.Options |= ibmmq.CMQC.MQCNO_RECONNECT_Q_MGR
    if options.ccdt_url:
        cno.CCDTUrl = options.ccdt_url.encode()
        cd = None
    kwargs = {"cd": cd, "cno": cno}
    if sco is not None:
        kwargs["sco"] = sco
    if options.user:
        csp = ibmmq.CSP()
        csp.CSPUserId = options.user.encode()
        csp.CSPPassword = (options.password or "").encode()
        kwargs["csp"] = csp
    qmgr = ibmmq.QueueManager(None)
    try:
        qmgr.connect_with_options(options.queue_manager, **kwargs)
    except ibmmq.MQMIError as exc:
        raise describe(exc, action or f"connecting to queue manager {options.queue_manager} "
                                      f"at {options.conn_name}") from exc
    return qmgr


NO_MSG_AVAILABLE, TRUNCATED_MSG_FAILED = 2033, 2080


def get_message(ibmmq, queue, buffer_size: int, md, gmo, action: str) -> tuple[bytes | None, int]:
    """One MQGET (or browse): (payload or None when no message matches, buffer size to use
    next). A message larger than the buffer stays where it is (2080; a browse cursor does
    not move), so it is asked for again with room for it; the match fields in `md` still
    name it."""
    while True:
        try:
            return queue.get(buffer_size, md, gmo), buffer_size
        except ibmmq.MQMIError as exc:
            if exc.reason == NO_MSG_AVAILABLE:
                return None, buffer_size
            if exc.reason == TRUNCATED_MSG_FAILED and getattr(exc, "original_length", 0):
                buffer_size = max(buffer_size * 2, int(exc.original_length) + 1024)
                continue
            raise describe(exc, action) from exc
