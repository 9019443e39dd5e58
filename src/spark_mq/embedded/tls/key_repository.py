"""Key repositories as PEM files: what a stem and a certificate label name on disk.

IBM MQ keeps keys in a CMS key database (`key.kdb` with its `key.sth`), named by a stem: the
queue manager's SSLKEYR, a client's MQSCO.KeyRepository or MQSSLKEYR environment variable.
Those databases cannot be read here, so the same stem names PEM files instead:

    <stem>.crt + <stem>.key                the certificate (and its chain) and private key
                                           used when no certificate label is set
    <stem>.<label>.crt + <stem>.<label>.key  the ones a label selects (CERTLABL on the queue
                                           manager or channel, MQSCO / MQCD CertificateLabel)
    <stem>.ca.pem, else <stem>.pem         the trusted CA certificates (IBM's signer certificates)
    <stem>.ca/                             ... or a directory of them (*.pem, *.crt)

A stem given with IBM's file extension (`/var/mqm/ssl/key.kdb`, as MQ 9.2 and later accept)
names the same files.
"""
from __future__ import annotations

import glob
import os
import ssl
from dataclasses import dataclass

_IBM_EXTENSIONS = (".kdb", ".p12", ".sth", ".jks")


class KeyRepositoryError(Exception):
    """A key repository that is missing or unreadable, in words a person can act on."""


@dataclass(frozen=True)
class KeyPair:
    certificate: str
    private_key: str


def stem(path: str) -> str:
    path = os.path.expanduser(path.strip())
    root, extension = os.path.splitext(path)
    return root if extension.lower() in _IBM_EXTENSIONS else path


def key_pair(repository: str, label: str = "") -> KeyPair | None:
    """The certificate and key a label selects; None when the files are not there."""
    base = stem(repository) + (f".{label.strip()}" if label.strip() else "")
    pair = KeyPair(base + ".crt", base + ".key")
    if os.path.isfile(pair.certificate) and os.path.isfile(pair.private_key):
        return pair
    return None


def trust_files(repository: str) -> list[str]:
    """The files of trusted CA certificates; empty when the repository has none."""
    base = stem(repository)
    for candidate in (base + ".ca.pem", base + ".pem"):
        if os.path.isfile(candidate):
            return [candidate]
    folder = base + ".ca"
    if os.path.isdir(folder):
        return sorted(glob.glob(os.path.join(folder, "*.pem")) + glob.glob(os.path.join(folder, "*.crt")))
    return []


def exists(repository: str) -> bool:
    """Whether anything of the repository is there (a key pair or a trust store)."""
    base = stem(repository)
    return bool(trust_files(repository)) or bool(glob.glob(glob.escape(base) + ".*crt"))


def load_certificate(context: ssl.SSLContext, pair: KeyPair) -> None:
    try:
        context.load_cert_chain(pair.certificate, pair.private_key)
    except (OSError, ssl.SSLError) as exc:
        raise KeyRepositoryError(f"cannot load {pair.certificate} with {pair.private_key}: {exc}") from None


def load_trust(context: ssl.SSLContext, repository: str) -> bool:
    """Trust the repository's CA certificates; False when it has none."""
    files = trust_files(repository)
    for path in files:
        try:
            context.load_verify_locations(cafile=path)
        except (OSError, ssl.SSLError) as exc:
            raise KeyRepositoryError(f"cannot load the trusted certificates in {path}: {exc}") from None
    return bool(files)
