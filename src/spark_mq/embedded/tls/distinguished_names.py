"""Certificate distinguished names, and IBM MQ's peer-name patterns (SSLPEER, SSLPeerName).

IBM's rules for a pattern such as `CN=QMGR.*, OU=IBM, OU=WEBSPHERE`:
- attributes are separated by commas or semicolons, spaces around separators are ignored,
  attribute types are upper case and come from IBM's list (others make the pattern invalid:
  MQRC_SSL_PEER_NAME_ERROR on a client);
- a value matches whatever its case; it may be double-quoted, and may start or end with
  `*` (any characters);
- only the attribute types in the pattern are checked. Repeated types are matched in order:
  the example needs at least two OUs, the first IBM and the second WEBSPHERE.

A DN is read in the order IBM displays it, most specific first (CN=...,OU=...,O=...,C=...),
the reverse of the order of the certificate's subject.
"""
from __future__ import annotations

import re
from collections.abc import Iterable

#: the ssl module's names of subject attributes -> IBM's attribute types
_SUBJECT_TYPES = {
    "commonName": "CN", "organizationalUnitName": "OU", "organizationName": "O",
    "countryName": "C", "localityName": "L", "stateOrProvinceName": "ST",
    "emailAddress": "E", "domainComponent": "DC", "serialNumber": "SERIALNUMBER",
    "streetAddress": "STREET", "title": "T", "postalCode": "PC", "userId": "UID",
    "unstructuredName": "UNSTRUCTUREDNAME", "unstructuredAddress": "UNSTRUCTUREDADDRESS",
    "dnQualifier": "DNQ",
}
#: the types a pattern may use; synonyms name the same attribute
_SYNONYMS = {"MAIL": "E", "USERID": "UID", "SP": "ST", "S": "ST"}
_TYPES = frozenset(_SUBJECT_TYPES.values()) | frozenset(_SYNONYMS)
_ELEMENT = re.compile(r'\s*([A-Za-z]+)=(?:"([^"]*)"|([^,;"]*?))\s*(?:[,;]|$)')


class PeerNameError(ValueError):
    """A pattern that breaks IBM's rules."""


def from_certificate(peer_certificate: dict | None, part: str = "subject") -> list[tuple[str, str]]:
    """The subject (or, with part="issuer", the issuer) of a certificate as
    `ssl.getpeercert()` gives it, as (type, value) pairs in IBM's order."""
    if not peer_certificate:
        return []
    pairs = []
    for rdn in peer_certificate.get(part, ()):
        for name, value in rdn:
            pairs.append((_SUBJECT_TYPES.get(name, name), str(value)))
    return list(reversed(pairs))


def to_text(dn: Iterable[tuple[str, str]]) -> str:
    return ",".join(f"{kind}={value}" for kind, value in dn)


def parse(pattern: str) -> list[tuple[str, str]]:
    """A peer-name pattern as (type, value) pairs; PeerNameError when it is not valid."""
    text = pattern.strip()
    if not text:
        raise PeerNameError("the peer name is empty")
    elements, position = [], 0
    while position < len(text):
        match = _ELEMENT.match(text, position)
        if match is None or match.end() == position:
            raise PeerNameError(f"cannot read the peer name from {text[position:]!r}")
        kind = match.group(1)
        value = match.group(2) if match.group(2) is not None else match.group(3).strip()
        if kind not in _TYPES:
            raise PeerNameError(f"{kind} is not an attribute type of a distinguished name "
                                f"(valid, in upper case: {', '.join(sorted(_TYPES))})")
        if "*" in value.strip("*"):
            raise PeerNameError(f"{kind}={value}: '*' may only start or end a value")
        elements.append((_SYNONYMS.get(kind, kind), value))
        position = match.end()
    return elements


def matches(pattern: str, dn: list[tuple[str, str]]) -> bool:
    """Whether a DN satisfies a pattern (which must be valid: see `parse`)."""
    elements = parse(pattern)
    for kind in {kind for kind, _ in elements}:
        wanted = [value for k, value in elements if k == kind]
        present = [value for k, value in dn if k == kind]
        if len(present) < len(wanted):
            return False
        if not all(_value_matches(w, p) for w, p in zip(wanted, present)):
            return False
    return True


def _value_matches(wanted: str, present: str) -> bool:
    wanted, present = wanted.strip().lower(), present.strip().lower()
    if wanted == "*":
        return True
    if wanted.startswith("*") and wanted.endswith("*"):
        return wanted[1:-1] in present
    if wanted.startswith("*"):
        return present.endswith(wanted[1:])
    if wanted.endswith("*"):
        return present.startswith(wanted[:-1])
    return wanted == present
