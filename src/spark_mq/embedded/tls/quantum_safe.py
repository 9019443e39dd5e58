"""Quantum-safe key exchange, as a client asks for it in an MQCD of version 13 (MQ 10):
QuantumSafeAlgorithm and QuantumSafeRequired.

MQQS_HYBMLKEM asks for the hybrid X25519 + ML-KEM-768 key exchange, MQQS_MLKEM for ML-KEM
alone. Both are TLS 1.3 key-exchange groups, which OpenSSL has from 3.5:

- MQQSR_OPTIONAL: the group is offered first and the classical ones after it, so a queue
  manager without it still negotiates a classical key exchange; where this Python's OpenSSL
  lacks the group, only the classical ones are offered (what "optional" allows);
- MQQSR_REQUIRED: only that group is offered, and only TLS 1.3, so the handshake fails
  (MQRC_SSL_INITIALIZATION_ERROR) unless the queue manager agrees to it; where this
  OpenSSL lacks the group, or the CipherSpec allows no TLS 1.3, the connection is refused
  with that reason before any handshake, never made without the protection asked for.

MQQS_UNPROTECTED (0), the default, leaves the key exchange as it was.
"""
from __future__ import annotations

import ssl

from spark_mq.embedded.tls import tls13
from spark_mq.mqi.constants import CMQXC

#: MQCD.QuantumSafeAlgorithm -> OpenSSL's key-exchange groups for it, preferred first
GROUPS: dict[int, tuple[str, ...]] = {
    CMQXC.MQQS_HYBMLKEM: ("X25519MLKEM768", "SecP256r1MLKEM768"),
    CMQXC.MQQS_MLKEM: ("MLKEM768", "MLKEM1024"),
}
#: OpenSSL's default classical groups, offered after the quantum-safe ones when optional
CLASSICAL = ("X25519", "secp256r1", "X448", "secp521r1", "secp384r1",
             "ffdhe2048", "ffdhe3072", "ffdhe4096", "ffdhe6144", "ffdhe8192")


class QuantumSafeUnavailable(Exception):
    """The quantum-safe key exchange a client requires cannot be offered."""


def apply(context: ssl.SSLContext, algorithm: int, required: bool) -> None:
    """Set up `context`'s key exchange for MQCD's QuantumSafeAlgorithm and
    QuantumSafeRequired; QuantumSafeUnavailable when it is required and cannot be had."""
    groups = GROUPS.get(algorithm)
    if groups is None:
        if required:
            raise QuantumSafeUnavailable(f"QuantumSafeRequired without a quantum-safe "
                                         f"QuantumSafeAlgorithm ({algorithm})")
        return
    if not required:
        tls13.set_groups(context, [*groups, *CLASSICAL])  # classical only where it cannot
        return
    if context.maximum_version not in (ssl.TLSVersion.TLSv1_3, ssl.TLSVersion.MAXIMUM_SUPPORTED):
        raise QuantumSafeUnavailable("the CipherSpec allows no TLS 1.3, which quantum-safe "
                                     "key exchange needs")
    if not tls13.set_groups(context, list(groups)):
        raise QuantumSafeUnavailable(f"this Python's OpenSSL ({ssl.OPENSSL_VERSION}) has none of "
                                     f"the key-exchange groups {', '.join(groups)}")
    context.minimum_version = ssl.TLSVersion.TLSv1_3
