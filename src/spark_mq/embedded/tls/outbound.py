"""TLS from this side of a connection: the client context a channel's CipherSpec asks for and
the handshake that checks the negotiated suite and the partner's DN. Shared by IBM's client
in the application's process (client/tls.py) and by a queue manager's sender channels
(server/message_channels/sender.py), which are TLS clients of their partners.

Reasons, as IBM MQ gives them: MQRC_KEY_REPOSITORY_ERROR for a repository that is not named
or not there, MQRC_SSL_PEER_NAME_ERROR for a peer name that breaks IBM's rules,
MQRC_SSL_PEER_NAME_MISMATCH when the partner's DN does not match it, and
MQRC_SSL_INITIALIZATION_ERROR for an unknown CipherSpec and every handshake that fails.
"""
from __future__ import annotations

import socket
import ssl
from dataclasses import dataclass

from spark_mq.embedded.tls import (
    channel_names,
    cipher_specs,
    distinguished_names,
    key_repository,
    quantum_safe,
    tls13,
)
from spark_mq.mqi.constants import CMQC, CMQXC

_KEY_REPOSITORY_ERROR = CMQC.MQRC_KEY_REPOSITORY_ERROR
_INITIALIZATION_ERROR = CMQC.MQRC_SSL_INITIALIZATION_ERROR


class TlsRefused(Exception):
    """TLS could not be set up or was refused; `reason` is the MQRC to answer."""

    def __init__(self, reason: int, detail: str = ""):
        super().__init__(detail or str(reason))
        self.reason = reason


@dataclass(frozen=True)
class ClientTls:
    """What MQCONNX's structures and the environment say about TLS (see the docstring)."""
    repository: str
    label: str
    peer_name: str
    quantum_safe: int = CMQXC.MQQS_UNPROTECTED   # MQCD.QuantumSafeAlgorithm (tls/quantum_safe.py)
    quantum_safe_required: bool = False          # MQCD.QuantumSafeRequired is MQQSR_REQUIRED


def context(options: ClientTls, cipher_spec: str) -> ssl.SSLContext:
    """The client context for a channel's CipherSpec; TlsRefused when it cannot be made."""
    spec = cipher_specs.lookup(cipher_spec)
    if spec is None:
        raise TlsRefused(_INITIALIZATION_ERROR, f"{cipher_spec!r} is not a CipherSpec")
    if options.peer_name:
        try:
            distinguished_names.parse(options.peer_name)
        except distinguished_names.PeerNameError as exc:
            raise TlsRefused(CMQC.MQRC_SSL_PEER_NAME_ERROR, str(exc)) from None
    if not options.repository or not key_repository.exists(options.repository):
        raise TlsRefused(_KEY_REPOSITORY_ERROR, f"no key repository at {options.repository!r}")
    result = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    result.check_hostname = False   # see the docstring: MQ checks the DN, not the host name
    result.minimum_version, result.maximum_version = spec.minimum, spec.maximum
    try:
        if spec.tls12_suites:
            result.set_ciphers(":".join(spec.tls12_suites))
        tls13.set_suites(result, spec.tls13_suites)
        quantum_safe.apply(result, options.quantum_safe, options.quantum_safe_required)
        if not key_repository.load_trust(result, options.repository):
            raise TlsRefused(_KEY_REPOSITORY_ERROR,
                             f"the key repository {options.repository} trusts no certificate")
        pair = key_repository.key_pair(options.repository, options.label)
        if pair is None and options.label:
            raise TlsRefused(_KEY_REPOSITORY_ERROR,
                             f"no certificate labelled {options.label!r} in {options.repository}")
        if pair is not None:
            key_repository.load_certificate(result, pair)
    except key_repository.KeyRepositoryError as exc:
        raise TlsRefused(_KEY_REPOSITORY_ERROR, str(exc)) from None
    except (ssl.SSLError, quantum_safe.QuantumSafeUnavailable) as exc:
        raise TlsRefused(_INITIALIZATION_ERROR, str(exc)) from None
    return result


def handshake(sock: socket.socket, client_context: ssl.SSLContext, cipher_spec: str,
              channel: str, peer_name: str) -> ssl.SSLSocket:
    """The connection after a TLS handshake for `channel` (named in the server name, as IBM's
    client does) that satisfies the CipherSpec and the peer name; TlsRefused otherwise, with
    the socket closed."""
    try:
        tls_sock = client_context.wrap_socket(sock, server_hostname=channel_names.to_server_name(channel))
    except (ssl.SSLError, OSError) as exc:
        sock.close()
        raise TlsRefused(_INITIALIZATION_ERROR, str(exc)) from None
    spec = cipher_specs.lookup(cipher_spec)
    suite = tls_sock.cipher()
    if spec is None or not spec.allows(tls_sock.version(), suite[0] if suite else None):
        tls_sock.close()
        raise TlsRefused(_INITIALIZATION_ERROR, "the negotiated suite does not satisfy the CipherSpec")
    if peer_name:
        dn = distinguished_names.from_certificate(tls_sock.getpeercert())
        if not distinguished_names.matches(peer_name, dn):
            tls_sock.close()
            raise TlsRefused(CMQC.MQRC_SSL_PEER_NAME_MISMATCH,
                             f"{distinguished_names.to_text(dn)} does not match {peer_name}")
    return tls_sock
