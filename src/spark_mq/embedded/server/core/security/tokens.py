"""Authentication tokens (JWT, MQCSP_AUTH_ID_TOKEN) checked as IBM MQ checks them (runs in
the queue-manager process, under its lock).

IBM's requirements for a token (IBM MQ 9.3.4, "Requirements for authentication tokens"),
in the order they are checked here, each refusal carrying IBM's error code (the codes of
AMQ5783E and AMQ5784E):

- at most 8192 characters, refused before anything is parsed (104);
- a JWS in compact form: three base64url parts (header, payload, signature) joined by dots,
  no padding; a JWE (five parts) or anything else is not one (104); header and payload are
  JSON objects (105), a name given twice in one of them too, since two readers of the same
  token could then see different claims;
- header: `alg` (101 when missing, 102 when not a string), `typ` equal to "JWT" (101, 103);
  a `crit` header names extensions this queue manager does not implement (104);
- `alg` one IBM supports: HS256/384/512, RS256/384/512, PS256/384/512, ES256/384/512 (109):
  `none` is not one, so an unsigned token never passes;
- the signature made by a key of one of the configured CertLabels (106): HMAC algorithms
  only with symmetric keys and the others only with public keys of their own type and curve,
  so a public key can never be used as an HMAC secret; a certificate only while valid;
- `exp` a number (101, 102) later than now; `nbf`, if there, not later than now (both with
  the configured ClockSkew); with Audience configured, `aud` (a string or a list of them)
  naming one of its values (101, 102, and a refusal of its own);
- with UserClaim configured, the claim (107) a user ID of 1 to 12 characters (MQ's
  MQ_USER_ID_LENGTH) of letters, digits and . _ - @ % (108): what CHLAUTH's USERMAP and
  BLOCKUSER and the authority records will match, so no blanks, no `*`, no commas.

The token itself is never logged; a refusal's log line names the code, the claim or header
parameter and the connection's channel and address.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import math
import re
import time
from dataclasses import dataclass
from typing import Any

from spark_mq.embedded.server.core.security.token_config import IssuerKey, TokenSettings
from spark_mq.mqi.structs import MAX_TOKEN_LENGTH

#: MQ_USER_ID_LENGTH: the longest user ID a token's user claim may name
MAX_USER_ID_LENGTH = 12
_PART = re.compile(r"[A-Za-z0-9_-]*")
_USER_ID = re.compile(r"[A-Za-z0-9._@%-]{1," + str(MAX_USER_ID_LENGTH) + "}")
_HASHES = {"256": hashlib.sha256, "384": hashlib.sha384, "512": hashlib.sha512}
_CURVES = {"256": "secp256r1", "384": "secp384r1", "512": "secp521r1"}
SUPPORTED_ALGORITHMS = tuple(f"{family}{bits}" for family in ("HS", "RS", "PS", "ES")
                             for bits in ("256", "384", "512"))

# IBM's error codes (Token authentication error codes)
MISSING, WRONG_TYPE, NOT_JWT, NOT_JWS, NOT_JSON, BAD_SIGNATURE = 101, 102, 103, 104, 105, 106
NO_USER_CLAIM, BAD_USER_ID, UNSUPPORTED_ALGORITHM = 107, 108, 109


class TokenRefused(Exception):
    """A token that is not valid: IBM's error code (None for a time or audience refusal,
    which IBM's table has no code for) and what was wrong, never the token's text."""

    def __init__(self, code: int | None, detail: str) -> None:
        super().__init__(detail)
        self.code, self.detail = code, detail

    @property
    def names_user(self) -> bool:
        """A refusal of the user claim (IBM's AMQ5784E) rather than of the token (AMQ5783E)."""
        return self.code in (NO_USER_CLAIM, BAD_USER_ID)


@dataclass(frozen=True)
class Verified:
    """A token that passed: its claims and the user its UserClaim names (None: no UserClaim)."""
    claims: dict[str, Any]
    user: str | None


def verify(token: str, settings: TokenSettings, now: float | None = None) -> Verified:
    """The token's claims and user, or TokenRefused (see the module docstring)."""
    if len(token) > MAX_TOKEN_LENGTH:
        raise TokenRefused(NOT_JWS, f"it is longer than the maximum of {MAX_TOKEN_LENGTH} "
                                    "characters")
    parts = token.split(".")
    if len(parts) != 3 or not all(_PART.fullmatch(part) for part in parts):
        raise TokenRefused(NOT_JWS, "it is not a JWS in compact form (three base64url parts "
                                    "joined by dots)")
    header, claims = _json_object(parts[0], "header"), _json_object(parts[1], "payload")
    algorithm = _header_algorithm(header)
    signing_input = f"{parts[0]}.{parts[1]}".encode("ascii")
    signature = _decode(parts[2], "signature")
    if not any(_signed_by(key, algorithm, signing_input, signature, now) for key in settings.keys):
        raise TokenRefused(BAD_SIGNATURE, f"its {algorithm} signature was not made by the key "
                                          "of any configured CertLabel")
    _check_times(claims, settings.clock_skew, time.time() if now is None else now)
    _check_audience(claims, settings.audience)
    return Verified(claims, _user(claims, settings.user_claim))


def _decode(part: str, what: str) -> bytes:
    if len(part) % 4 == 1:
        raise TokenRefused(NOT_JWS, f"its {what} is not base64url")
    try:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
    except (binascii.Error, ValueError):
        raise TokenRefused(NOT_JWS, f"its {what} is not base64url") from None


def _json_object(part: str, what: str) -> dict[str, Any]:
    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        names = [name for name, _ in pairs]
        if len(set(names)) != len(names):
            raise ValueError("a name given twice")
        return dict(pairs)
    try:
        value = json.loads(_decode(part, what), object_pairs_hook=no_duplicates)
    except (ValueError, RecursionError):   # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise TokenRefused(NOT_JSON, f"its {what} is not a JSON object (or names a member "
                                     "twice)") from None
    if not isinstance(value, dict):
        raise TokenRefused(NOT_JSON, f"its {what} is not a JSON object")
    return value


def _header_algorithm(header: dict[str, Any]) -> str:
    for name in ("alg", "typ"):
        if name not in header:
            raise TokenRefused(MISSING, f"header parameter {name!r} is missing")
        if not isinstance(header[name], str):
            raise TokenRefused(WRONG_TYPE, f"header parameter {name!r} is not a string")
    if header["typ"].upper() != "JWT":
        raise TokenRefused(NOT_JWT, f"header parameter 'typ' is {header['typ'][:20]!r}, not "
                                    "'JWT'")
    if "crit" in header:
        raise TokenRefused(NOT_JWS, "header parameter 'crit' names extensions this queue "
                                    "manager does not implement")
    if header["alg"] not in SUPPORTED_ALGORITHMS:
        raise TokenRefused(UNSUPPORTED_ALGORITHM, f"algorithm {header['alg'][:20]!r} is not "
                                                  f"supported; valid: "
                                                  f"{', '.join(SUPPORTED_ALGORITHMS)}")
    return str(header["alg"])


def _signed_by(key: IssuerKey, algorithm: str, signing_input: bytes, signature: bytes,
               now: float | None) -> bool:
    family, bits = algorithm[:2], algorithm[2:]
    if family == "HS":
        if key.kind != "HMAC":   # a public key is public: never an HMAC secret
            return False
        expected = hmac.new(key.key, signing_input, _HASHES[bits]).digest()
        return hmac.compare_digest(expected, signature)
    if key.kind == "HMAC" or (family == "ES") != (key.kind == "EC"):
        return False
    if key.certificate is not None and not _certificate_valid(key.certificate, now):
        return False
    verifier = _ec_verifier if family == "ES" else _rsa_verifier
    return verifier(key, family, bits, signing_input, signature)


def _certificate_valid(certificate: Any, now: float | None) -> bool:
    at = time.time() if now is None else now
    return bool(certificate.not_valid_before_utc.timestamp() <= at
                <= certificate.not_valid_after_utc.timestamp())


def _hash_of(bits: str) -> Any:
    from cryptography.hazmat.primitives import hashes
    if bits == "256":
        return hashes.SHA256()
    return hashes.SHA384() if bits == "384" else hashes.SHA512()


def _rsa_verifier(key: IssuerKey, family: str, bits: str, signing_input: bytes,
                  signature: bytes) -> bool:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric import padding
    digest = _hash_of(bits)
    scheme = (padding.PKCS1v15() if family == "RS" else
              padding.PSS(mgf=padding.MGF1(digest), salt_length=padding.PSS.DIGEST_LENGTH))
    try:
        key.key.verify(signature, signing_input, scheme, digest)
    except InvalidSignature:
        return False
    return True


def _ec_verifier(key: IssuerKey, family: str, bits: str, signing_input: bytes,
                 signature: bytes) -> bool:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
    if key.key.curve.name != _CURVES[bits]:   # ES256 is P-256 only, and so on (RFC 7518 3.4)
        return False
    size = (key.key.curve.key_size + 7) // 8
    if len(signature) != 2 * size:            # JWS: r and s, each exactly `size` bytes
        return False
    r, s = int.from_bytes(signature[:size], "big"), int.from_bytes(signature[size:], "big")
    try:
        key.key.verify(encode_dss_signature(r, s), signing_input, ec.ECDSA(_hash_of(bits)))
    except InvalidSignature:
        return False
    return True


def _number(claims: dict[str, Any], name: str) -> float | None:
    value = claims.get(name)
    if value is None:
        return None
    seconds = float("nan")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            seconds = float(value)
        except OverflowError:   # an integer past any float: no time at all
            pass
    if not math.isfinite(seconds):   # NaN and Infinity would never expire
        raise TokenRefused(WRONG_TYPE, f"claim {name!r} is not a number (seconds since 1970)")
    return seconds


def _check_times(claims: dict[str, Any], skew: int, now: float) -> None:
    expires = _number(claims, "exp")
    if expires is None:
        raise TokenRefused(MISSING, "claim 'exp' is missing")
    if now >= expires + skew:
        raise TokenRefused(None, f"it expired at {_utc(expires)} (now {_utc(now)}, clock skew "
                                 f"{skew}s)")
    not_before = _number(claims, "nbf")
    if not_before is not None and now + skew < not_before:
        raise TokenRefused(None, f"it is not valid before {_utc(not_before)} (now {_utc(now)}, "
                                 f"clock skew {skew}s)")


def _utc(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _check_audience(claims: dict[str, Any], audience: tuple[str, ...]) -> None:
    if not audience:
        return
    if "aud" not in claims:
        raise TokenRefused(MISSING, "claim 'aud' is missing (the AuthToken stanza names an "
                                    "Audience)")
    named = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
    if not all(isinstance(item, str) for item in named):
        raise TokenRefused(WRONG_TYPE, "claim 'aud' is not a string or a list of strings")
    if not set(named) & set(audience):
        raise TokenRefused(None, f"its audience does not name this queue manager's "
                                 f"({', '.join(audience)})")


def _user(claims: dict[str, Any], user_claim: str | None) -> str | None:
    if user_claim is None:
        return None
    if user_claim not in claims:
        raise TokenRefused(NO_USER_CLAIM, f"the user claim {user_claim!r} is missing")
    user = claims[user_claim]
    if not isinstance(user, str) or not _USER_ID.fullmatch(user):
        raise TokenRefused(BAD_USER_ID, f"the user claim {user_claim!r} is not a user ID of 1 "
                                        f"to {MAX_USER_ID_LENGTH} letters, digits or . _ - @ %")
    return user
