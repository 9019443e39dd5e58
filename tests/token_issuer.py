"""A token issuer for the token tests, made in the test with `cryptography`: fresh keys each
run (nothing secret in the repository, no network), the files an AuthToken stanza names, and
JWTs signed as an issuer signs them (or signed wrongly, as an attacker would).

    issuer = TokenIssuer(folder)           keys under folder/: rsa, ec (a certificate), shared
    issuer.qm_ini(user_claim="sub", audience="spark-mq")   the AuthToken stanza naming them
    issuer.token(sub="app")                 RS256, exp in an hour, aud spark-mq, typ JWT
    issuer.token(alg="ES256", ...), issuer.token(key=issuer.rogue) ...
"""
from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import json
import os
import secrets
import time
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import NameOID

AUDIENCE = "spark-mq"
_HASHES = {"256": hashes.SHA256, "384": hashes.SHA384, "512": hashes.SHA512}


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def compact(header: dict[str, Any], claims: dict[str, Any], signature: bytes = b"") -> str:
    """header.payload.signature, unsigned parts as given (an attacker's hand-made token)."""
    return ".".join((b64(json.dumps(header).encode()), b64(json.dumps(claims).encode()),
                     b64(signature)))


class TokenIssuer:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.stem = folder / "issuer"
        self.rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.ec = ec.generate_private_key(ec.SECP256R1())
        self.shared = secrets.token_bytes(32).hex().encode()   # the .hmac file's text
        self.rogue = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._write_public_key("rsa", self.rsa)
        self._write_certificate("ec", self.ec)
        hmac_file = Path(f"{self.stem}.shared.hmac")
        hmac_file.write_bytes(self.shared)
        os.chmod(hmac_file, 0o600)

    def _write_public_key(self, label: str, key: Any) -> None:
        Path(f"{self.stem}.{label}.pem").write_bytes(key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))

    def _write_certificate(self, label: str, key: Any) -> None:
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "token issuer")])
        now = dt.datetime.now(dt.timezone.utc)
        certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                       .public_key(key.public_key()).serial_number(x509.random_serial_number())
                       .not_valid_before(now - dt.timedelta(hours=1))
                       .not_valid_after(now + dt.timedelta(days=2))
                       .sign(key, hashes.SHA256()))
        Path(f"{self.stem}.{label}.crt").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))

    def qm_ini(self, user_claim: str | None = "sub", audience: str | None = AUDIENCE,
               labels: tuple[str, ...] = ("rsa", "ec", "shared"), extra: str = "") -> str:
        lines = ["AuthToken:", f"   KeyStore={self.stem}"]
        lines += [f"   CertLabel={label}" for label in labels]
        if user_claim:
            lines.append(f"   UserClaim={user_claim}")
        if audience:
            lines.append(f"   Audience={audience}")
        return "\n".join(lines) + "\n" + extra

    def claims(self, **claims: Any) -> dict[str, Any]:
        now = int(time.time())
        made: dict[str, Any] = {"iat": now, "exp": now + 3600, "aud": AUDIENCE}
        made.update(claims)
        return {name: value for name, value in made.items() if value is not None}

    def token(self, alg: str = "RS256", key: Any = None, header: dict[str, Any] | None = None,
              **claims: Any) -> str:
        """A token signed with `alg` by the issuer's key for it (or `key`); a claim given as
        None is left out (exp=None: no expiry claim)."""
        head = {"alg": alg, "typ": "JWT", **(header or {})}
        signing_input = (b64(json.dumps(head).encode()) + "." +
                         b64(json.dumps(self.claims(**claims)).encode()))
        return signing_input + "." + b64(self.sign(alg, signing_input.encode(), key))

    def sign(self, alg: str, data: bytes, key: Any = None) -> bytes:
        family, bits = alg[:2], alg[2:]
        if family == "HS":
            secret = key if isinstance(key, bytes) else self.shared
            return hmac.new(secret, data, getattr(hashlib, f"sha{bits}")).digest()
        if family == "ES":
            signer = key or self.ec
            r, s = decode_dss_signature(signer.sign(data, ec.ECDSA(_HASHES[bits]())))
            size = (signer.curve.key_size + 7) // 8
            return r.to_bytes(size, "big") + s.to_bytes(size, "big")
        signer = key or self.rsa
        scheme = (padding.PKCS1v15() if family == "RS" else
                  padding.PSS(mgf=padding.MGF1(_HASHES[bits]()), salt_length=_HASHES[bits]().digest_size))
        return signer.sign(data, scheme, _HASHES[bits]())

    def rogue_ec(self) -> Any:
        """A P-256 key of nobody the queue manager trusts."""
        return ec.generate_private_key(ec.SECP256R1())

    def public_pem(self) -> bytes:
        return Path(f"{self.stem}.rsa.pem").read_bytes()
