"""TLS on client connections, set up from what IBM's MQ client reads.

Runs in the application's process, for connection.py. A channel with a CipherSpec (the
MQCD's SSLCipherSpec, or a CCDT's cipherSpecification) is reached over TLS:

- the key repository is MQSCO.KeyRepository, else the MQSSLKEYR environment variable, as
  PEM files (spark_mq/embedded/tls/key_repository.py): the queue manager's certificate must
  chain to `<stem>.ca.pem` (or `<stem>.pem`, or the files in `<stem>.ca/`);
- the client's own certificate, for mutual TLS, is `<stem>.<label>.crt/.key` for the label
  in MQCD.CertificateLabel (an MQCD of version 11 or later), else MQSCO.CertificateLabel
  (an MQSCO of version 5 or later), else the MQCERTLABL environment variable; without a
  label, `<stem>.crt/.key` when they exist, else none is sent;
- the CipherSpec fixes the protocol versions and suites offered (tls/cipher_specs.py);
- MQCD.SSLPeerName (version 7 or later), when set, must match the queue manager
  certificate's DN (IBM's rules, tls/distinguished_names.py);
- MQCD.QuantumSafeAlgorithm and QuantumSafeRequired (version 13, MQ 10) choose the key
  exchange (tls/quantum_safe.py).

A CCDT entry is the channel definition when there is no MQCD: its cipherSpecification,
certificateLabel and certificatePeerName (client/ccdt.py) stand for the MQCD's SSLCipherSpec,
CertificateLabel and SSLPeerName, with the same precedence (`for_channel`).

Host names are not checked against the certificate: IBM MQ identifies a queue manager by
its certificate's issuer and DN (SSLPeerName), not by the address it was reached at.

Reasons, as IBM's client gives them: MQRC_KEY_REPOSITORY_ERROR for a repository that is not
named or not there, MQRC_SSL_PEER_NAME_ERROR for a peer name that breaks IBM's rules,
MQRC_SSL_PEER_NAME_MISMATCH when the queue manager's DN does not match it, and
MQRC_SSL_INITIALIZATION_ERROR for an unknown CipherSpec, for a quantum-safe key exchange
that is required and cannot be offered, and for every handshake that fails (no common
protocol, suite or key-exchange group, an untrusted certificate on either side, the queue
manager refusing the session for its channel).
"""
from __future__ import annotations

import dataclasses
import os
import struct
from collections.abc import Callable

from spark_mq.embedded.tls.outbound import ClientTls, TlsRefused, context, handshake
from spark_mq.mqi.constants import CMQC, CMQXC
from spark_mq.mqi.structs import CD, SCO, Layout, text

__all__ = ["ClientTls", "TlsRefused", "context", "for_channel", "from_structures", "handshake"]


def from_structures(cd: bytes | None, sco: bytes | None,
                    read_pointer: Callable[[int, int], bytes]) -> ClientTls:
    """The TLS options of one MQCONNX; the CipherSpec itself comes with each channel. Each
    field counts only in the structure version that has it, as IBM's client reads them."""
    repository = label = peer_name = ""
    algorithm, required = CMQXC.MQQS_UNPROTECTED, False
    if sco and len(sco) >= SCO.size:
        repository = _text(sco, SCO, "KeyRepository")
        if _version(sco, SCO) >= CMQC.MQSCO_VERSION_5:
            label = _text(sco, SCO, "CertificateLabel")
    whole = CD.offsets["CertificateLabel"] + CD.lengths["CertificateLabel"]   # an MQCD up to v11
    version = _version(cd, CD) if cd and len(cd) >= whole else 0
    if cd and version >= CMQXC.MQCD_VERSION_7:
        address = struct.unpack_from("P", cd, CD.offsets["SSLPeerNamePtr"])[0]
        length = struct.unpack_from("i", cd, CD.offsets["SSLPeerNameLength"])[0]
        peer_name = read_pointer(address, length).decode(errors="replace").strip("\0 ")
    if cd and version >= CMQXC.MQCD_VERSION_11:
        label = _text(cd, CD, "CertificateLabel") or label
    if cd and version >= CMQXC.MQCD_VERSION_13 and len(cd) >= CD.size:
        algorithm = CD.get(cd, "QuantumSafeAlgorithm")
        required = CD.get(cd, "QuantumSafeRequired") == CMQXC.MQQSR_REQUIRED
    repository = repository or os.environ.get("MQSSLKEYR", "").strip()
    label = label or os.environ.get("MQCERTLABL", "").strip()
    return ClientTls(repository, label, peer_name, algorithm, required)


def for_channel(options: ClientTls, certificate_label: str = "", peer_name: str = "") -> ClientTls:
    """The options for one channel definition that carries its own TLS attributes (a CCDT
    entry's CERTLABL and SSLPEER): its label wins over MQSCO's and MQCERTLABL, as an MQCD's
    CertificateLabel does, and its peer name is the one checked."""
    return dataclasses.replace(options, label=certificate_label.strip() or options.label,
                               peer_name=peer_name.strip() or options.peer_name)


def _version(data: bytes, layout: Layout) -> int:
    return int(struct.unpack_from("i", data, layout.offsets["Version"])[0])


def _text(data: bytes, layout: Layout, name: str) -> str:
    start = layout.offsets[name]
    return text(data[start:start + layout.lengths[name]])


