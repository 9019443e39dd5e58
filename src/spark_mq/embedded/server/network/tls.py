"""TLS on the queue manager's listener, as IBM MQ runs it on a channel.

Runs in the queue-manager process, called by listener.py. One port serves both: the first
bytes of a new connection tell a TLS ClientHello (a handshake record, 0x16 0x03 0x0n) from
the embedded transport's first frame, so TLS needs no listener of its own. (A plain first
frame could only begin with those bytes if it were some 66 KB long; CONN, PING and MQSC
frames are not.)

The queue manager's certificate comes from its key repository (ALTER QMGR SSLKEYR, blank
meaning `<data-dir>/ssl/key`; `--tls-key-repository` sets it at start-up), read as PEM
files (tls/key_repository.py), under its CERTLABL, or the channel's CERTLABL when the
client names that channel in the TLS server name (as IBM's clients do, tls/channel_names.py).
The handshake negotiates the strongest suite both ends allow; the channel's rules are
applied when the client's CONN names its channel, in IBM's order, each refusal logged with
the AMQ message IBM MQ writes and answered MQRC_SSL_INITIALIZATION_ERROR:

- SSLCIPH set and the client came in plain: AMQ9639 (the remote end gave no CipherSpec);
  SSLCIPH blank and the client came over TLS: refused too, as a channel without SSLCIPH
  runs in the clear only;
- SSLCIPH names no CipherSpec: AMQ9635; the negotiated suite does not satisfy it: AMQ9631;
- SSLCAUTH(REQUIRED), the default, and the client sent no certificate: AMQ9637;
- SSLPEER set and the client certificate's DN does not match it: AMQ9636.

A client certificate is always asked for and, when sent, must chain to the repository's
trusted certificates (else the handshake fails). A handshake that fails ends that one
connection, logged; the listener carries on.
"""
from __future__ import annotations

import logging
import os
import socket
import ssl
from dataclasses import dataclass, field

from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core.state import FeatureState, QueueManagerState
from spark_mq.embedded.tls import channel_names, cipher_specs, distinguished_names, key_repository, tls13
from spark_mq.mqi.constants import CMQC

log = logging.getLogger("spark_mq.embedded")

HANDSHAKE_TIMEOUT = 30.0   # seconds a client may take over its TLS handshake
_HANDSHAKE_RECORD = 0x16
_REFUSED = CMQC.MQRC_SSL_INITIALIZATION_ERROR

# The key repository a blank SSLKEYR stands for, per queue manager (set by server_process.py).
_DEFAULT_REPOSITORY: FeatureState[str] = FeatureState("default key repository",
                                                   lambda qm: os.path.join("ssl", "key"))


@dataclass
class TlsSession:
    """What the handshake settled: the protocol, the suite, the client's certificate DN and
    its issuer's (empty without one) and the channel the client named in its server name, if
    any."""
    version: str | None
    suite: str | None
    peer_dn: list[tuple[str, str]] = field(default_factory=list)
    has_certificate: bool = False
    channel: str | None = None
    issuer_dn: list[tuple[str, str]] = field(default_factory=list)


def set_default_repository(qmgr: QueueManagerState, stem: str) -> None:
    _DEFAULT_REPOSITORY.set(qmgr, stem)


def repository(qmgr: QueueManagerState) -> str:
    stem = str(qmgr.attrs.get("SSLKEYR") or "").strip()
    return stem or _DEFAULT_REPOSITORY.of(qmgr)


def starts_with_tls(sock: socket.socket) -> bool:
    """Whether the peer's first bytes are a TLS handshake record (waits for three bytes)."""
    try:
        head = sock.recv(3, socket.MSG_PEEK | socket.MSG_WAITALL)
    except OSError:
        return False
    return len(head) == 3 and head[0] == _HANDSHAKE_RECORD and head[1] == 3 and head[2] <= 4


def accept(qmgr: QueueManagerState, sock: socket.socket,
           peer: str) -> tuple[socket.socket | None, TlsSession | None]:
    """The connection to serve and its TLS session: the socket itself and None for a plain
    client, the TLS socket after the handshake for a TLS client, None when that failed."""
    if not starts_with_tls(sock):
        return sock, None
    chosen: dict[str, str] = {}
    try:
        context = _context(qmgr, str(qmgr.attrs.get("CERTLABL") or ""))
    except key_repository.KeyRepositoryError as exc:
        log.error("AMQ9657E: the key repository of queue manager %s cannot be used, so the TLS "
                  "connection from %s is ended: %s", qmgr.name, peer, exc)
        return None, None
    context.sni_callback = lambda tls_object, server_name, _: _choose_certificate(
        qmgr, tls_object, server_name, chosen)
    sock.settimeout(HANDSHAKE_TIMEOUT)
    try:
        tls_sock = context.wrap_socket(sock, server_side=True)
    except (ssl.SSLError, OSError) as exc:
        log.warning("the TLS handshake with %s failed: %s", peer, exc)
        return None, None
    tls_sock.settimeout(None)
    suite = tls_sock.cipher()
    certificate = tls_sock.getpeercert()
    session = TlsSession(
        version=tls_sock.version(), suite=suite[0] if suite else None,
        peer_dn=distinguished_names.from_certificate(certificate),
        has_certificate=bool(certificate), channel=chosen.get("channel"),
        issuer_dn=distinguished_names.from_certificate(certificate, "issuer"))
    # what shows, before any channel rule is applied, that a client got through TLS itself
    log.info("TLS handshake with %s completed for channel '%s': %s, %s, client certificate %s",
             peer, session.channel or "(not named)", session.version,
             cipher_specs.ibm_name(session.suite),
             distinguished_names.to_text(session.peer_dn) or "none")
    return tls_sock, session


def check_channel(qmgr: QueueManagerState, channel: str, session: TlsSession | None,
                  peer: str) -> int | None:
    """The reason a CONN through `channel` is refused for TLS, or None (see the docstring)."""
    attrs = channels.table(qmgr).channels.get(channel, {})
    cipher_name = str(attrs.get("SSLCIPH") or "").strip()
    if not cipher_name:
        if session is None:
            return None
        log.error("the client at %s used TLS on channel '%s', which has no SSLCIPH "
                  "and so runs without TLS", peer, channel)
        return _REFUSED
    if session is None:
        log.error("AMQ9639E: remote channel '%s' at %s did not specify a CipherSpec; the "
                  "channel requires %s", channel, peer, cipher_name)
        return _REFUSED
    if session.channel is not None and session.channel != channel:
        log.error("the client at %s named channel '%s' in its TLS handshake and '%s' on "
                  "connecting", peer, session.channel, channel)
        return _REFUSED
    spec = cipher_specs.lookup(cipher_name)
    if spec is None:
        log.error("AMQ9635E: channel '%s' did not specify a valid CipherSpec: SSLCIPH(%s)",
                  channel, cipher_name)
        return _REFUSED
    if not spec.allows(session.version, session.suite):
        log.error("AMQ9631E: the CipherSpec negotiated during the TLS handshake (%s, %s) does "
                  "not match the required CipherSpec %s for channel '%s'",
                  cipher_specs.ibm_name(session.suite), session.version, cipher_name, channel)
        return _REFUSED
    if str(attrs.get("SSLCAUTH") or "REQUIRED") == "REQUIRED" and not session.has_certificate:
        log.error("AMQ9637E: channel '%s' is lacking a certificate: the client at %s sent none "
                  "and the channel has SSLCAUTH(REQUIRED)", channel, peer)
        return _REFUSED
    return _check_peer(channel, str(attrs.get("SSLPEER") or ""), session, peer)


def _check_peer(channel: str, pattern: str, session: TlsSession, peer: str) -> int | None:
    if not pattern.strip():
        return None
    dn = distinguished_names.to_text(session.peer_dn) or "(no certificate)"
    try:
        if distinguished_names.matches(pattern, session.peer_dn):
            return None
    except distinguished_names.PeerNameError as exc:
        log.error("channel '%s' has an SSLPEER that is not valid (%s): %s", channel, pattern, exc)
        return _REFUSED
    log.error("AMQ9636E: the TLS distinguished name of the client at %s, '%s', does not match "
              "the peer name '%s' of channel '%s'", peer, dn, pattern, channel)
    return _REFUSED


def server_context(qmgr: QueueManagerState) -> ssl.SSLContext | None:
    """A server context with the queue manager's own certificate (its CERTLABL), for a door
    other than the listener (the metrics endpoint); None when the key repository has none."""
    try:
        return _context(qmgr, str(qmgr.attrs.get("CERTLABL") or ""))
    except key_repository.KeyRepositoryError:
        return None


def _context(qmgr: QueueManagerState, label: str) -> ssl.SSLContext:
    """A server context with the certificate `label` selects; KeyRepositoryError when the
    repository lacks it."""
    stem = repository(qmgr)
    pair = key_repository.key_pair(stem, label)
    if pair is None:
        named = f"{stem}.{label}" if label else stem
        raise key_repository.KeyRepositoryError(
            f"no certificate{f' labelled {label!r}' if label else ''} in {stem}: expected "
            f"{named}.crt and {named}.key (PEM)")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = cipher_specs.TLS12
    context.set_ciphers(":".join(cipher_specs.TLS12_SUITES.values()))
    tls13.set_suites(context, list(cipher_specs.TLS13_SUITES))   # IBM's CCM suites as well
    key_repository.load_certificate(context, pair)
    if key_repository.load_trust(context, stem):
        context.verify_mode = ssl.CERT_OPTIONAL   # SSLCAUTH is checked per channel on CONN
    return context


def _choose_certificate(qmgr: QueueManagerState, tls_object: ssl.SSLObject | ssl.SSLSocket,
                        server_name: str | None, chosen: dict[str, str]) -> int | None:
    """SNI callback: note the channel, and present its own certificate if it has a CERTLABL."""
    channel = channel_names.from_server_name(server_name)
    if channel is None:
        return None
    chosen["channel"] = channel
    label = str(channels.table(qmgr).channels.get(channel, {}).get("CERTLABL") or "")
    if not label or label == str(qmgr.attrs.get("CERTLABL") or ""):
        return None
    try:
        tls_object.context = _context(qmgr, label)
    except key_repository.KeyRepositoryError as exc:
        log.error("AMQ9657E: channel '%s' has CERTLABL(%s), which the key repository lacks: %s",
                  channel, label, exc)
        return ssl.ALERT_DESCRIPTION_INTERNAL_ERROR
    return None
