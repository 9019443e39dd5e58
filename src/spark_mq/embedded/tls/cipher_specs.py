"""IBM MQ CipherSpec names and what each allows of a TLS session.

A channel's SSLCIPH and a client's MQCD.SSLCipherSpec name either one cipher suite
(ECDHE_RSA_AES_128_GCM_SHA256, TLS_AES_128_GCM_SHA256, ...), or an alias: ANY_TLS12 and
ANY_TLS13 fix the protocol version, ANY_TLS12_OR_HIGHER, ANY_TLS13_OR_HIGHER and ANY set only
its minimum (IBM's "fixed protocol" and "minimum protocol" CipherSpecs).

How the two ends meet, as IBM documents it ("Relationship between alias CipherSpec
settings"): the client proposes what its CipherSpec allows, the queue manager negotiates
the strongest suite both support, and then checks that the negotiated suite satisfies the
channel's SSLCIPH (AMQ9631 when not). So a client with ANY_TLS12 reaches a channel with
ECDHE_RSA_AES_128_GCM_SHA256 only if that is the strongest TLS 1.2 suite both ends share,
and a client with ANY_TLS12_OR_HIGHER is refused by a channel fixed at ANY_TLS12 when both
ends speak TLS 1.3. Protocols below TLS 1.2, and the suites IBM has deprecated, are not
offered: IBM MQ disables them by default too.

A name IBM MQ does not know at all is refused where it is set: DEFINE/ALTER CHANNEL answer
AMQ8242E (MQSC) or MQRCCF_SSL_CIPHER_SPEC_ERROR (PCF) (`is_known`). A deprecated name is
known, so a channel may be defined with it, but, not being enabled, it lets no session
through (AMQ9635 when a client comes, as IBM MQ logs for a deprecated CipherSpec).
"""
from __future__ import annotations

import ssl
from dataclasses import dataclass

TLS12, TLS13 = ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3
_VERSION_NAMES = {"TLSv1.2": TLS12, "TLSv1.3": TLS13}

#: IBM's TLS 1.2 CipherSpec names -> OpenSSL's names, strongest first (the queue manager's
#: order of preference when it negotiates)
TLS12_SUITES: dict[str, str] = {
    "ECDHE_ECDSA_AES_256_GCM_SHA384": "ECDHE-ECDSA-AES256-GCM-SHA384",
    "ECDHE_RSA_AES_256_GCM_SHA384": "ECDHE-RSA-AES256-GCM-SHA384",
    "ECDHE_ECDSA_CHACHA20_POLY1305_SHA256": "ECDHE-ECDSA-CHACHA20-POLY1305",
    "ECDHE_RSA_CHACHA20_POLY1305_SHA256": "ECDHE-RSA-CHACHA20-POLY1305",
    "ECDHE_ECDSA_AES_128_GCM_SHA256": "ECDHE-ECDSA-AES128-GCM-SHA256",
    "ECDHE_RSA_AES_128_GCM_SHA256": "ECDHE-RSA-AES128-GCM-SHA256",
    "ECDHE_ECDSA_AES_256_CBC_SHA384": "ECDHE-ECDSA-AES256-SHA384",
    "ECDHE_RSA_AES_256_CBC_SHA384": "ECDHE-RSA-AES256-SHA384",
    "ECDHE_ECDSA_AES_128_CBC_SHA256": "ECDHE-ECDSA-AES128-SHA256",
    "ECDHE_RSA_AES_128_CBC_SHA256": "ECDHE-RSA-AES128-SHA256",
    "TLS_RSA_WITH_AES_256_GCM_SHA384": "AES256-GCM-SHA384",
    "TLS_RSA_WITH_AES_128_GCM_SHA256": "AES128-GCM-SHA256",
    "TLS_RSA_WITH_AES_256_CBC_SHA256": "AES256-SHA256",
    "TLS_RSA_WITH_AES_128_CBC_SHA256": "AES128-SHA256",
}
#: IBM's TLS 1.3 CipherSpecs, strongest first; OpenSSL uses the same names
TLS13_SUITES: tuple[str, ...] = (
    "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256", "TLS_AES_128_GCM_SHA256",
    "TLS_AES_128_CCM_SHA256", "TLS_AES_128_CCM_8_SHA256",
)
#: IBM's deprecated CipherSpecs (SSL 3.0, TLS 1.0, and the TLS 1.2 NULL, RC4 and 3DES ones: IBM
#: MQ 9.4's "Deprecated CipherSpecs" table): known names that are not enabled here
DEPRECATED: frozenset[str] = frozenset({
    "AES_SHA_US", "DES_SHA_EXPORT", "DES_SHA_EXPORT1024", "FIPS_WITH_DES_CBC_SHA",
    "FIPS_WITH_3DES_EDE_CBC_SHA", "NULL_MD5", "NULL_SHA", "RC2_MD5_EXPORT", "RC4_MD5_EXPORT",
    "RC4_MD5_US", "RC4_SHA_US", "RC4_56_SHA_EXPORT1024", "TRIPLE_DES_SHA_US",
    "TLS_RSA_EXPORT_WITH_RC2_40_MD5", "TLS_RSA_EXPORT_WITH_RC4_40_MD5", "TLS_RSA_WITH_DES_CBC_SHA",
    "TLS_RSA_WITH_NULL_MD5", "TLS_RSA_WITH_NULL_SHA", "TLS_RSA_WITH_RC4_128_MD5",
    "TLS_RSA_WITH_RC4_128_SHA", "TLS_RSA_WITH_AES_128_CBC_SHA", "TLS_RSA_WITH_AES_256_CBC_SHA",
    "TLS_RSA_WITH_3DES_EDE_CBC_SHA", "ECDHE_ECDSA_NULL_SHA256", "ECDHE_ECDSA_RC4_128_SHA256",
    "ECDHE_ECDSA_3DES_EDE_CBC_SHA256", "ECDHE_RSA_NULL_SHA256", "ECDHE_RSA_RC4_128_SHA256",
    "ECDHE_RSA_3DES_EDE_CBC_SHA256", "TLS_RSA_WITH_NULL_SHA256", "TLS_RSA_WITH_RC4_128_SHA256",
})
#: OpenSSL's name of a negotiated suite -> IBM's, for messages such as AMQ9631
_IBM_NAMES = {openssl: ibm for ibm, openssl in TLS12_SUITES.items()} | {s: s for s in TLS13_SUITES}


@dataclass(frozen=True)
class CipherSpec:
    """One CipherSpec name: the protocol versions it allows and, when it names a single
    suite, that suite (OpenSSL's name)."""
    name: str
    minimum: ssl.TLSVersion
    maximum: ssl.TLSVersion
    suite: str | None = None

    def allows(self, version: str | None, suite: str | None) -> bool:
        """Whether a negotiated session (ssl's version() and cipher()[0]) satisfies this."""
        negotiated = _VERSION_NAMES.get(version or "")
        if negotiated is None or suite not in _IBM_NAMES:
            return False
        if not self.minimum <= negotiated <= self.maximum:
            return False
        return self.suite is None or self.suite == suite

    @property
    def tls12_suites(self) -> list[str]:
        """OpenSSL names of the TLS 1.2 suites to offer (all of IBM's for an alias)."""
        if self.suite is not None:
            return [self.suite] if self.maximum == TLS12 else []
        return list(TLS12_SUITES.values())

    @property
    def tls13_suites(self) -> list[str]:
        if self.suite is not None:
            return [self.suite] if self.minimum == TLS13 else []
        return list(TLS13_SUITES)


_ALIASES = {
    "ANY": CipherSpec("ANY", TLS12, TLS13),
    "ANY_TLS12": CipherSpec("ANY_TLS12", TLS12, TLS12),
    "ANY_TLS12_OR_HIGHER": CipherSpec("ANY_TLS12_OR_HIGHER", TLS12, TLS13),
    "ANY_TLS13": CipherSpec("ANY_TLS13", TLS13, TLS13),
    "ANY_TLS13_OR_HIGHER": CipherSpec("ANY_TLS13_OR_HIGHER", TLS13, TLS13),
}


def lookup(name: str) -> CipherSpec | None:
    """The CipherSpec an SSLCIPH / SSLCipherSpec value names; None when IBM MQ knows no such
    name (or it names a protocol below TLS 1.2, which is not offered)."""
    key = name.strip().upper()
    if key in _ALIASES:
        return _ALIASES[key]
    if key in TLS12_SUITES:
        return CipherSpec(key, TLS12, TLS12, TLS12_SUITES[key])
    if key in TLS13_SUITES:
        return CipherSpec(key, TLS13, TLS13, key)
    return None


def is_known(name: str) -> bool:
    """Whether IBM MQ knows `name` as a CipherSpec (enabled here or deprecated): what
    DEFINE/ALTER CHANNEL SSLCIPH accept besides blank."""
    return lookup(name) is not None or name.strip().upper() in DEPRECATED


def ibm_name(suite: str | None) -> str:
    """IBM's name of a negotiated suite, or OpenSSL's when IBM has none."""
    return _IBM_NAMES.get(suite or "", suite or "none")
