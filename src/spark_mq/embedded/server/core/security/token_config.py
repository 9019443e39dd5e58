"""The AuthToken stanza of the queue manager's qm.ini: which token issuers it trusts, and how
a token's claims are read (runs in the queue-manager process).

IBM MQ (9.3.4 and later, on AIX and Linux) reads token authentication from the AuthToken
stanza of qm.ini in the queue manager's data directory, takes it at start and on REFRESH
SECURITY TYPE(CONNAUTH), and answers a client that sends a token while that configuration is
missing or broken with MQRC_SECURITY_ERROR (2063) and AMQ5786E in its error log. The
embedded queue manager reads DATA_DIR/qm.ini the same way and at the same moments:

    AuthToken:
       KeyStore=/path/to/issuer        the issuer's keys (below); relative: to DATA_DIR
       CertLabel=issuer                a key's label; repeat for up to 32 (key rotation)
       UserClaim=sub                   the claim that names the user (needed for ADOPTCTX(YES))
       Audience=spark-mq               the embedded queue manager's own: `aud` must name it
       ClockSkew=30                    the embedded queue manager's own: seconds of leeway on
                                       exp and nbf (default 0, IBM's strict comparison)

IBM's KeyStore is a CMS (.kdb) or PKCS#12 (.p12) keystore that CertLabel selects from; those
cannot be read here, so, as for the TLS key repository (tls/key_repository.py), the KeyStore
is a stem and a label names files: STEM.LABEL.crt (the issuer's public key certificate, PEM;
used only while it is valid, as IBM requires), STEM.LABEL.pem (a bare public key, PEM) or
STEM.LABEL.hmac (a symmetric key for HS256/384/512, in a file only its owner may read).
KeyStorePwdFile is accepted and not used (PEM files have no password). AllowOSGroups: a
token's user has the groups of its user entry, as a password user (IBM's AllowOSGroups=YES);
a user no entry names has none, so only records naming it apply. NO is refused, so that
nobody believes groups are ignored when they are not.

Any other attribute, a second AuthToken stanza, a missing KeyStore or CertLabel, a label
without its file, an RSA key under 2048 bits: the configuration is broken, which is logged
once when it is read (AMQ7076E) and then on every token connection (AMQ5786E, 2063).
Reading public keys needs the `cryptography` package (`pip install 'spark-mq[token]'`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from spark_mq.mqi.private_files import PrivateFileError, read_private

QM_INI = "qm.ini"
STANZA = "AuthToken"
MAX_LABELS = 32                   # IBM: up to 32 CertLabel attributes
MAX_CLOCK_SKEW = 3600
_MIN_RSA_BITS = 2048
_ATTRIBUTES = ("KeyStore", "KeyStorePwdFile", "CertLabel", "UserClaim", "AllowOSGroups",
               "Audience", "ClockSkew")
_REPEATABLE = frozenset({"certlabel", "audience"})
_KEY_FILES = (".crt", ".pem", ".hmac")


class TokenConfigError(Exception):
    """Why the AuthToken configuration cannot be used, in words an administrator can act on."""


@dataclass(frozen=True)
class IssuerKey:
    """One CertLabel's key: `kind` RSA, EC or HMAC; `key` a cryptography public key, or the
    symmetric key's bytes; `certificate` the certificate it came from (its validity counts)."""
    label: str
    kind: str
    key: Any
    certificate: Any = None


@dataclass(frozen=True)
class TokenSettings:
    keys: tuple[IssuerKey, ...]
    user_claim: str | None
    audience: tuple[str, ...]
    clock_skew: int


def load(data_dir: str) -> TokenSettings | None:
    """The AuthToken configuration of DATA_DIR/qm.ini; None when there is no such stanza (or no
    qm.ini); TokenConfigError when it is there but cannot be used."""
    path = os.path.join(data_dir, QM_INI)
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise TokenConfigError(f"{path}: {exc.strerror or exc}") from None
    stanza = auth_token_stanza(text, path)
    if stanza is None:
        return None
    return settings_of(stanza, data_dir, path)


def auth_token_stanza(text: str, path: str) -> dict[str, list[str]] | None:
    """The AuthToken stanza's attributes (lower-cased name -> values, in order), or None; a
    stanza given twice, or an attribute outside a stanza, is an error."""
    found: dict[str, list[str]] | None = None
    current: str | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):   # qm.ini's comments take a whole line
            continue
        if line.endswith(":") and "=" not in line:
            current = line[:-1].strip()
            if current.lower() == STANZA.lower():
                if found is not None:
                    raise TokenConfigError(f"{path} line {number}: a second {STANZA} stanza; "
                                           "give one")
                found = {}
            continue
        name, equals, value = line.partition("=")
        if not equals or current is None:
            raise TokenConfigError(f"{path} line {number}: not a stanza name ('{STANZA}:') "
                                   "nor an attribute (Name=value) of one")
        if found is not None and current.lower() == STANZA.lower():
            found.setdefault(name.strip().lower(), []).append(value.strip())
    return found


def settings_of(stanza: dict[str, list[str]], data_dir: str, path: str) -> TokenSettings:
    """The stanza's attributes, checked, with the keys its labels name loaded."""
    _check_names(stanza, path)
    key_store = _one(stanza, "keystore")
    labels = stanza.get("certlabel", [])
    if not key_store:
        raise TokenConfigError(f"{path}: {STANZA} has no KeyStore; valid: the stem of the "
                               "issuer's key files (STEM.LABEL.crt, .pem or .hmac)")
    if not labels or not all(labels) or len(labels) > MAX_LABELS:
        raise TokenConfigError(f"{path}: {STANZA} needs 1 to {MAX_LABELS} non-empty CertLabel "
                               f"attributes, not {len(labels)}")
    groups = (_one(stanza, "allowosgroups") or "YES").upper()
    if groups not in ("YES", "Y"):
        raise TokenConfigError(f"{path}: AllowOSGroups={groups} is not supported: a token's "
                               "user has the groups of its user entry; valid: YES")
    stem = key_store if os.path.isabs(key_store) else os.path.join(data_dir, key_store)
    return TokenSettings(tuple(load_key(stem, label) for label in labels),
                         _one(stanza, "userclaim") or None,
                         tuple(a for a in stanza.get("audience", []) if a),
                         _clock_skew(_one(stanza, "clockskew"), path))


def _check_names(stanza: dict[str, list[str]], path: str) -> None:
    valid = {name.lower(): name for name in _ATTRIBUTES}
    for name, values in stanza.items():
        if name not in valid:
            raise TokenConfigError(f"{path}: {STANZA} attribute {name!r} is not known; valid: "
                                   f"{', '.join(_ATTRIBUTES)}")
        if len(values) > 1 and name not in _REPEATABLE:
            raise TokenConfigError(f"{path}: {STANZA} attribute {valid[name]} is given "
                                   f"{len(values)} times; give it once")


def _one(stanza: dict[str, list[str]], name: str) -> str:
    values = stanza.get(name, [])
    return values[0] if values else ""


def _clock_skew(text: str, path: str) -> int:
    if not text:
        return 0
    if not text.isdigit() or int(text) > MAX_CLOCK_SKEW:
        raise TokenConfigError(f"{path}: ClockSkew={text!r} is not valid; valid: 0 to "
                               f"{MAX_CLOCK_SKEW} seconds")
    return int(text)


def load_key(stem: str, label: str) -> IssuerKey:
    """The key a label names: the first of STEM.LABEL.crt, .pem and .hmac that exists."""
    for extension in _KEY_FILES:
        path = f"{stem}.{label}{extension}"
        if os.path.isfile(path):
            if extension == ".hmac":
                return _symmetric_key(path, label)
            return _public_key(path, label, extension == ".crt")
    raise TokenConfigError(f"CertLabel {label!r}: none of "
                           f"{', '.join(stem + '.' + label + e for e in _KEY_FILES)} exists")


def _symmetric_key(path: str, label: str) -> IssuerKey:
    try:
        secret = read_private(path).strip().encode()
    except PrivateFileError as exc:
        raise TokenConfigError(f"CertLabel {label!r}: {exc}") from None
    if len(secret) < 32:   # RFC 7518 3.2: a key as long as the hash output (HS256: 256 bits)
        raise TokenConfigError(f"CertLabel {label!r}: {path} holds {len(secret)} bytes; a "
                               "symmetric key needs at least 32")
    return IssuerKey(label, "HMAC", secret)


def _public_key(path: str, label: str, is_certificate: bool) -> IssuerKey:
    try:
        from cryptography import x509
        from cryptography.exceptions import UnsupportedAlgorithm
        from cryptography.hazmat.primitives.asymmetric import ec, rsa
        from cryptography.hazmat.primitives.serialization import load_pem_public_key
    except ImportError:
        raise TokenConfigError(f"CertLabel {label!r}: reading {path} needs the cryptography "
                               "package: pip install 'spark-mq[token]'") from None
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        certificate = x509.load_pem_x509_certificate(data) if is_certificate else None
        key = certificate.public_key() if certificate is not None else load_pem_public_key(data)
    except (OSError, ValueError, UnsupportedAlgorithm) as exc:
        raise TokenConfigError(f"CertLabel {label!r}: {path} is not a PEM "
                               f"{'certificate' if is_certificate else 'public key'} "
                               f"({type(exc).__name__})") from None
    if isinstance(key, rsa.RSAPublicKey):
        if key.key_size < _MIN_RSA_BITS:
            raise TokenConfigError(f"CertLabel {label!r}: {path} is a {key.key_size}-bit RSA "
                                   f"key; valid: at least {_MIN_RSA_BITS} bits")
        return IssuerKey(label, "RSA", key, certificate)
    if isinstance(key, ec.EllipticCurvePublicKey):
        return IssuerKey(label, "EC", key, certificate)
    raise TokenConfigError(f"CertLabel {label!r}: {path} holds a {type(key).__name__}; valid: "
                           "an RSA or elliptic-curve (P-256, P-384, P-521) public key")
