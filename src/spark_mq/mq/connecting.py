"""Connection settings, choosing the MQ transport, and opening connections.

`transport`: `ibmmq` uses IBM's client library (libmqm_r.so must load), `embedded` uses
spark_mq.embedded's transport, `auto` takes IBM's client when its library loads, else the
embedded one. The choice is made once per process, before `ibmmq` is imported, because the
package binds its C extension at import time.

Credentials: the MQCSP carries the `user` and `password` options, or what the callable named
by `credentialsProvider` returns, resolved and called at every connect in the process that
connects (`credentials_of`, spark_mq.mq.credentials), so a secret never sits in the options
Spark ships; `password` is left out of the options' repr. With `certificateLabel` (MQSCO
CertificateLabel) and no user, a TLS channel can admit the connection by its certificate
alone (a CHLAUTH SSLPEERMAP rule names the user). A `token` (or a provider's {"token": ...})
goes in the MQCSP as IBM MQ 9.3.4 clients send one: AuthenticationType MQCSP_AUTH_ID_TOKEN,
in place of the user and password, left out of every repr as the password is. IBM refuses a
token with automatic client reconnection (2547 MQRC_RECONNECT_INCOMPATIBLE), so `reconnect`
with a token is an option error before anything is sent.

`retry_while_lost` is how the reader and the writer ride out a queue-manager restart: the
work that failed with a lost connection is done again on a new one, with back-off, for up to
`reconnectTimeoutMs`; after that the query fails with one error that says so. A timeout of
NEVER (-1, spelt `-1` or `never` in the option) never gives up: the outage goes on until the
queue manager is back, and `outages()` tells since when and after how many attempts.

A caller that must not wait out an outage (the stream reader's latestOffset: while it waits
Spark makes no progress report, so nothing would show the outage) runs under `giving_back()`:
each call then makes the attempt that is due (after the back-off; the call that finds the
loss also the first reconnect, so a quick restart costs nothing) and, still lost, raises
`OutageGoesOn`; the outage stays open, `outage_now` reports it (since, attempts, the last
reason, the connection it tries, when it gives up), and the next call for the same work
carries it on with the same start, count and deadline. `last_outage` keeps the last one
ridden out.

Ending a connection is done one way: `connected` (a connection for the length of a `with`)
and `hand_over` (a connection given to an object that owns it from then on, a Consumer or a
Browser, and disconnected at once when that object cannot be made, as when its queue does not
open) both disconnect with `disconnect_quietly`. An MQ error while cleaning up (MQBACK,
MQCLOSE, MQDISC, through `quietly`) is logged at debug with its reason's name and otherwise
ignored: the error worth seeing is the one that made the clean-up necessary, and on a
connection that is already gone every clean-up call fails (2009 MQRC_CONNECTION_BROKEN).
"""
from __future__ import annotations

import ctypes
import datetime as dt
import logging
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from spark_mq.mq.credentials import Credentials, resolve
from spark_mq.mq.exceptions import MQConnectorError, MQOptionError, connection_lost, describe
from spark_mq.mqi.constants import reason_name

log = logging.getLogger(__name__)
T = TypeVar("T")

TRANSPORTS = ("auto", "ibmmq", "embedded")


@dataclass(frozen=True)
class ConnectionOptions:
    """Where and how to connect (parsed from Spark's options by spark_mq.options)."""
    queue_manager: str = "QM1"
    conn_name: str | None = None       # MQ syntax host(port)[,host(port)]
    channel: str = "DEV.APP.SVRCONN"
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    #: "module:function" returning the credentials at each connect (spark_mq.mq.credentials)
    credentials_provider: str | None = None
    #: an authentication token (a JWT), sent as MQCSP_AUTH_ID_TOKEN instead of user/password
    token: str | None = field(default=None, repr=False)
    transport: str = "auto"
    cipher_spec: str | None = None
    key_repository: str | None = None
    certificate_label: str | None = None   # MQSCO CertificateLabel: the client's certificate
    ccdt_url: str | None = None
    reconnect: bool = False
    reconnect_timeout_ms: int = 60_000      # NEVER (-1): reconnect until it works

_lock = threading.Lock()
_chosen: str | None = None
#: the options each open connection was made with: an error on it can name its queue
#: manager and user (spark_mq.mq.refusals)
_connections: weakref.WeakKeyDictionary[Any, ConnectionOptions] = weakref.WeakKeyDictionary()


def options_of(qmgr: Any) -> ConnectionOptions | None:
    """The options `connect` made this connection with (None for one made elsewhere)."""
    try:
        return _connections.get(qmgr)
    except TypeError:   # not weakly referable: not one of ours
        return None


def ibm_client_available() -> bool:
    for library in ("libmqm_r.so", "libmqm_r.dylib", "mqm.dll"):
        try:
            ctypes.CDLL(library)
            return True
        except OSError:
            continue
    return False


def load_ibmmq(transport: str = "auto") -> Any:
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


def connect_options(ibmmq: Any, options: ConnectionOptions) -> Any:
    """The MQCNO of a connection. Never reconnectable to another queue manager: the
    exactly-once state (a unit of work, the stateQueue's claims and markers) lives on the one
    it connected to, so without `reconnect` it says MQCNO_RECONNECT_DISABLED rather than
    nothing, which would let a client default (mqclient.ini DefRecon=YES, a CCDT channel's
    DEFRECON(YES)) move it to any member of a uniform cluster."""
    cno = ibmmq.CNO()
    cno.Options = ibmmq.CMQC.MQCNO_CLIENT_BINDING | (
        ibmmq.CMQC.MQCNO_RECONNECT_Q_MGR if options.reconnect
        else ibmmq.CMQC.MQCNO_RECONNECT_DISABLED)
    if options.ccdt_url:
        # MQ reads CCDTUrl only from an MQCNO of version 6 on
        cno.CCDTUrl = options.ccdt_url.encode()
        cno.Version = max(cno.Version, ibmmq.CMQC.MQCNO_VERSION_6)
    return cno


def connect(options: ConnectionOptions, action: str | None = None,
            words: Mapping[str, str] | None = None) -> Any:
    """A connected `ibmmq.QueueManager` for these options; a failure's hint names the
    options as `words` says (spark_mq.mq.exceptions.in_words: a shell tool's flags)."""
    ibmmq = load_ibmmq(options.transport)
    cd = ibmmq.CD()
    cd.ChannelName = options.channel.encode()
    cd.ConnectionName = (options.conn_name or "").encode()
    cd.ChannelType = ibmmq.CMQXC.MQCHT_CLNTCONN
    cd.TransportType = ibmmq.CMQXC.MQXPT_TCP
    if options.cipher_spec:
        cd.SSLCipherSpec = options.cipher_spec.encode()
    sco = _sco(ibmmq, options)
    cno = connect_options(ibmmq, options)
    if options.ccdt_url:
        cd = None   # the channel comes from the table
    kwargs: dict[str, Any] = {"cd": cd, "cno": cno}
    if sco is not None:
        kwargs["sco"] = sco
    csp = _csp(ibmmq, options, credentials_of(options))
    if csp is not None:
        kwargs["csp"] = csp
    qmgr = ibmmq.QueueManager(None)
    try:
        qmgr.connect_with_options(options.queue_manager, **kwargs)
    except ibmmq.MQMIError as exc:
        where = options.conn_name or f"the CCDT {options.ccdt_url}"
        hint = None
        if exc.reason == ibmmq.CMQC.MQRC_NOT_AUTHORIZED:
            from spark_mq.mq.refusals import connect_refused_hint  # it imports this module
            hint = connect_refused_hint(options)
        raise describe(exc, action or f"connecting to queue manager {options.queue_manager} "
                                      f"at {where}", hint, words) from exc
    _connections[qmgr] = options
    return qmgr


def _sco(ibmmq: Any, options: ConnectionOptions) -> Any:
    """The MQSCO for TLS, or None. Built whenever a TLS option is given, not only with
    cipherSpec: with a CCDT the CipherSpec comes from the table, the repository and the
    client's certificate from here."""
    if not (options.cipher_spec or options.key_repository or options.certificate_label):
        return None
    sco = ibmmq.SCO()
    if options.key_repository:
        sco.KeyRepository = options.key_repository.encode()
    if options.certificate_label:
        # the label counts from MQSCO version 5 on, as IBM's client reads it
        sco.CertificateLabel = options.certificate_label.encode()
        sco.Version = max(sco.Version, ibmmq.CMQC.MQSCO_VERSION_5)
    return sco


def _csp(ibmmq: Any, options: ConnectionOptions, credentials: Credentials) -> Any:
    """The MQCSP for these credentials, or None: a token (ibmmq sets AuthenticationType
    MQCSP_AUTH_ID_TOKEN and MQCSP version 3 for it), else a user and password."""
    if credentials.token:
        if options.reconnect:
            # a provider's token: the options could not know of it before this connect
            raise MQOptionError("reconnect", True, RECONNECT_WITH_TOKEN)
        csp = ibmmq.CSP()
        csp.Token = credentials.token.encode()
        return csp
    if credentials.user:
        csp = ibmmq.CSP()
        csp.CSPUserId = credentials.user.encode()
        csp.CSPPassword = (credentials.password or "").encode()
        return csp
    return None


#: why `reconnect` and a token do not go together (IBM's 2547 MQRC_RECONNECT_INCOMPATIBLE)
RECONNECT_WITH_TOKEN = ("false with a token: IBM MQ refuses automatic client reconnection when "
                        "the connection authenticates with a token (2547 "
                        "MQRC_RECONNECT_INCOMPATIBLE); the reader and the writer reconnect by "
                        "themselves (reconnectTimeoutMs), calling a credentialsProvider again "
                        "each time")


def credentials_of(options: ConnectionOptions) -> Credentials:
    """The MQCSP's credentials: the provider's, called now, else the options' (a token, or
    a user and password)."""
    if options.credentials_provider:
        return resolve(options.credentials_provider)
    return Credentials(options.user, options.password, options.token)


@contextmanager
def connected(options: ConnectionOptions, action: str | None = None,
              words: Mapping[str, str] | None = None) -> Iterator[Any]:
    """A connection made by `connect` for the length of the `with`, then disconnected
    quietly. MQDISC commits open work: a body that can leave a unit of work open backs it out
    itself."""
    ibmmq = load_ibmmq(options.transport)
    qmgr = connect(options, action, words)
    try:
        yield qmgr
    finally:
        disconnect_quietly(ibmmq, qmgr)


def hand_over(ibmmq: Any, qmgr: Any, build: Callable[[Any], T]) -> T:
    """build(qmgr): an object that owns the connection from then on (its close() disconnects).
    When it cannot be built (its queue does not open: 2085, 2035, a bad selector), nothing
    owns the connection, so it is disconnected here before the error goes on."""
    try:
        return build(qmgr)
    except BaseException:
        disconnect_quietly(ibmmq, qmgr)
        raise


def disconnect_quietly(ibmmq: Any, qmgr: Any) -> None:
    """MQDISC, an MQ error ignored (`quietly`)."""
    options = options_of(qmgr)
    where = f" {options.queue_manager}" if options is not None else ""
    quietly(ibmmq, f"disconnecting from queue manager{where}", qmgr.disconnect)


def quietly(ibmmq: Any, doing: str, call: Callable[[], object]) -> None:
    """call(), for a clean-up (MQBACK, MQCLOSE, MQDISC): an MQ error is logged at debug with
    its reason's name and otherwise ignored (see the module docstring)."""
    try:
        call()
    except ibmmq.MQMIError as exc:
        log.debug("%s: MQ reason %s %s, ignored", doing, exc.reason, reason_name(exc.reason))


FIRST_DELAY, LONGEST_DELAY = 0.1, 5.0     # seconds between attempts: doubling, capped
NEVER = -1                                # reconnectTimeoutMs: reconnect until it works


@dataclass
class Outage:
    """A lost connection being made again: since when (epoch seconds), the attempts that
    failed so far (the one that found it lost included), the last one's reason, where it
    connects, and (time.monotonic()) when the next attempt is due and when it gives up
    (None: never)."""
    what: str
    since: float
    attempts: int = 0
    reason: int | None = None
    reason_name: str | None = None
    connection: dict[str, str] = field(default_factory=dict)
    due: float = 0.0
    delay: float = FIRST_DELAY
    deadline: float | None = None
    gives_up_at: float | None = None      # the deadline in epoch seconds, for reports

    def failed(self, exc: MQConnectorError, now: float) -> None:
        """One more attempt failed with a lost connection at `now` (time.monotonic())."""
        self.attempts += 1
        self.reason, self.reason_name = exc.reason, exc.reason_name
        due = now + self.delay
        self.due = due if self.deadline is None else min(due, self.deadline)
        self.delay = min(self.delay * 2, LONGEST_DELAY)


class OutageGoesOn(RuntimeError):
    """`retry_while_lost` under `giving_back()`: the attempt found the connection still lost.
    The outage stays open (`outage_now` shows it) and the next `retry_while_lost` for the
    same work carries it on, from the attempt due next. Not an MQConnectorError: a caller
    that treats a lost connection as its own to handle must not take this for one."""


_outages: dict[int, Outage] = {}
_paused: dict[str, Outage] = {}                 # by `what`: outages that gave back, still open
_ended: dict[str, tuple[Outage, float]] = {}    # by `what`: the last outage ridden out, its end
_outages_lock = threading.Lock()
_giving_back: ContextVar[bool] = ContextVar("spark_mq_giving_back", default=False)


@contextmanager
def giving_back() -> Iterator[None]:
    """In this `with`, `retry_while_lost` raises `OutageGoesOn` instead of waiting for the
    next attempt: after the first reconnect attempt that fails (the one right after the loss
    itself, which a restart that is over by then does not outlast), and then after each
    attempt: for a caller that must return between attempts (the stream reader's
    latestOffset, so that each trigger's progress can show the outage while it lasts)."""
    token = _giving_back.set(True)
    try:
        yield
    finally:
        _giving_back.reset(token)


def outages() -> list[Outage]:
    """The outages this process is riding out now (retry_while_lost calls under way, or
    given back and not over)."""
    with _outages_lock:
        return [replace(o) for o in _outages.values()]


def _iso(at: float) -> str:
    return dt.datetime.fromtimestamp(at, dt.timezone.utc).isoformat(timespec="milliseconds")


def _reported(outage: Outage) -> dict[str, object]:
    return {"since": _iso(outage.since), "attempts": outage.attempts, "reason": outage.reason,
            "reasonName": outage.reason_name, "connection": dict(outage.connection)}


def outage_now(what: str) -> dict[str, object] | None:
    """The outage `what` is riding out now, for a progress report: since (ISO 8601 UTC),
    attempts, reason and reasonName of the last failure, the connection it tries, and
    givesUpAt (null: reconnectTimeoutMs never); None when its connection is fine."""
    with _outages_lock:
        going_on = [o for o in _outages.values() if o.what == what]
        if not going_on:
            return None
        outage = going_on[0]
        gives_up = None if outage.gives_up_at is None else _iso(outage.gives_up_at)
        return {**_reported(outage), "givesUpAt": gives_up}


def last_outage(what: str) -> dict[str, object] | None:
    """The last outage `what` rode out (or is riding out), for a progress report: as
    `outage_now`, with ended (null while it goes on) instead of givesUpAt."""
    with _outages_lock:
        going_on = [o for o in _outages.values() if o.what == what]
        if going_on:
            return {**_reported(going_on[0]), "ended": None}
        if what not in _ended:
            return None
        outage, ended = _ended[what]
        return {**_reported(outage), "ended": _iso(ended)}


def where(options: ConnectionOptions) -> dict[str, str]:
    """The connection `options` make, as a report names it."""
    if options.ccdt_url and not options.conn_name:
        return {"queueManager": options.queue_manager, "ccdtUrl": options.ccdt_url}
    return {"queueManager": options.queue_manager, "connName": options.conn_name or "",
            "channel": options.channel}


def _began(options: ConnectionOptions, what: str, exc: MQConnectorError) -> Outage:
    now, wall = time.monotonic(), time.time()
    outage = Outage(what, wall, connection=where(options))
    if options.reconnect_timeout_ms != NEVER:
        outage.deadline = now + options.reconnect_timeout_ms / 1000
        outage.gives_up_at = wall + options.reconnect_timeout_ms / 1000
    with _outages_lock:
        _outages[id(outage)] = outage
    log.warning("%s: connection to queue manager %s lost (%s); reconnecting %s",
                what, options.queue_manager, exc.reason_name,
                "until it is back (reconnectTimeoutMs never)"
                if outage.deadline is None else
                f"for up to {options.reconnect_timeout_ms} ms")
    return outage


def _resumed(what: str) -> Outage | None:
    with _outages_lock:
        return _paused.pop(what, None)


def _paused_at(outage: Outage) -> OutageGoesOn:
    with _outages_lock:
        _paused[outage.what] = outage
    return OutageGoesOn(
        f"{outage.what}: the connection to queue manager {outage.connection.get('queueManager')} "
        f"is still lost after {outage.attempts} attempts (last: {outage.reason} "
        f"{outage.reason_name}); the next attempt is due in "
        f"{max(0.0, outage.due - time.monotonic()):.1f} s")


def forget_outage(what: str) -> None:
    """The work that gave back is given up (its reader stopped): the outage it left open is
    no longer anybody's, so it is dropped, not reported as ridden out."""
    with _outages_lock:
        outage = _paused.pop(what, None)
        if outage is not None:
            _outages.pop(id(outage), None)


def connected_again(what: str) -> None:
    """A connection for `what` was made outside `retry_while_lost` (a plain call after a
    call that gave back): the outage that call left open is over."""
    with _outages_lock:
        outage = _paused.pop(what, None)
    if outage is not None:
        _over(outage)


def _over(outage: Outage) -> None:
    with _outages_lock:
        _outages.pop(id(outage), None)
        _ended[outage.what] = (outage, time.time())
    log.info("%s: the outage since %s is over after %d failed attempts", outage.what,
             _iso(outage.since), outage.attempts)


def retry_while_lost(options: ConnectionOptions, work: Callable[[], T], what: str,
                     sleep: Callable[[float], None] = time.sleep,
                     outage_of: str | None = None) -> T:
    """work(), done again while it fails with a lost connection (the queue manager restarted
    or the network dropped), for up to `options.reconnect_timeout_ms` from the first loss.
    Under `giving_back()` one attempt per call: see `OutageGoesOn`; an outage given back is
    carried on by the next call for the same `outage_of` (the name the outage is kept and
    reported by: `what` unless given, for work whose `what` differs from call to call).

    `work` must be safe to repeat: it connects afresh and relies on MQ having backed out
    the unit of work that broke. Any other failure propagates at once."""
    outage = _resumed(outage_of or what)
    paused = False
    try:
        while True:
            wait = outage.due - time.monotonic() if outage is not None else 0.0
            if wait > 0:
                sleep(wait)     # the back-off, also for an outage carried on from a call before
            try:
                return work()
            except MQConnectorError as exc:
                if not connection_lost(exc):
                    raise
                outage = outage or _began(options, outage_of or what, exc)
                outage.failed(exc, time.monotonic())
                if outage.deadline is not None and time.monotonic() >= outage.deadline:
                    raise _gave_up(options, what, exc) from exc
                log.info("%s: queue manager %s still unreachable (%s %s) after %d attempts; "
                         "next in %.1f s", what, options.queue_manager, exc.reason,
                         exc.reason_name, outage.attempts, outage.due - time.monotonic())
                if _giving_back.get() and outage.attempts > 1:
                    # not at the loss itself: a new connection at once may find the queue
                    # manager back (a restart), and then no trigger goes without its batch
                    paused = True
                    raise _paused_at(outage) from exc
    finally:
        if outage is not None and not paused:
            _over(outage)


def _gave_up(options: ConnectionOptions, what: str, exc: MQConnectorError) -> MQConnectorError:
    return MQConnectorError(
        f"{what}: the connection to queue manager {options.queue_manager} at "
        f"{options.conn_name} was lost and could not be made again within "
        f"{options.reconnect_timeout_ms} ms (option 'reconnectTimeoutMs'; 'never' waits "
        f"until it is back); last failure: {exc}. Nothing committed is lost: once the queue "
        "manager is back, restart the query on the same checkpoint", exc.reason,
        exc.reason_name)
