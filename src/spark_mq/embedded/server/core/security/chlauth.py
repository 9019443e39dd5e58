"""Channel authentication (CHLAUTH) rules: which client connections a channel admits, and
as whom (runs in the queue-manager process, under its lock).

A rule belongs to a channel profile (a name, or a generic one where `*` matches any
characters) and has a TYPE:

* BLOCKADDR (profile `*` only): the addresses in ADDRLIST may not connect at all;
* BLOCKUSER: the users in USERLIST may not run the channel (`*MQADMIN`: any administrator,
  `*`: anyone); only the rule of the most specific profile that has one counts, which is
  how the developer container's BLOCKUSER('nobody') on DEV.ADMIN.SVRCONN lifts the default
  BLOCKUSER('*MQADMIN') of profile `*` for that one channel;
* USERMAP (CLNTUSER, optionally ADDRESS) and ADDRESSMAP (ADDRESS): USERSRC(NOACCESS)
  refuses the connection, USERSRC(MAP) runs it as the rule's MCAUSER, USERSRC(CHANNEL) as
  the channel would run it anyway. Of the mapping rules a connection meets, the one of the
  most specific channel profile applies; between equally specific profiles a USERMAP before
  an ADDRESSMAP, then the most specific address. A rule's CHCKCLNT(REQUIRED|REQDADM) makes
  connection authentication stricter for the connections it applies to.
* SSLPEERMAP applies to a client connection over TLS too, matched on the certificate the
  handshake proved (SSLPEER, optionally SSLCERTI and ADDRESS): between equally specific
  profiles it comes before a USERMAP (a user the client only asserts) and an ADDRESSMAP.
  With USERSRC(MAP) it is certificate-only client authentication: the connection runs as
  the rule's MCAUSER with no MQCSP password, where CHCKCLNT lets it (OPTIONAL, or REQDADM
  for a user who is not an administrator).
* for a message channel (a receiver, core/security/admission.py), QMGRMAP (QMNAME: the partner
  queue manager's name from its hello, a generic `*` pattern allowed, optionally ADDRESS)
  and SSLPEERMAP (SSLPEER: a pattern of the partner certificate's DN as IBM writes SSLPEER,
  optionally SSLCERTI, the issuer's DN, and ADDRESS) take the place of USERMAP: USERMAP is
  for client connections only, as in IBM MQ. Of the rules a partner meets, again the most
  specific channel profile first; between equally specific profiles the one naming the
  partner by its certificate (SSLPEERMAP), then by its queue-manager name (QMGRMAP), then by
  its address (ADDRESSMAP), then the most specific address. IBM documents "the most
  specific record" without a table of the types; this order is the client's (a rule naming
  who the partner is before one naming only where it comes from) and what IBM's usual
  configuration needs: a back-stop ADDRESSMAP('*') NOACCESS with a QMGRMAP or SSLPEERMAP
  that lets one partner in on the same profile.

Rules are kept by (profile, TYPE, ADDRESS, who), as MQ identifies them, `who` being the
CLNTUSER of a USERMAP, the QMNAME of a QMGRMAP or the SSLPEER of an SSLPEERMAP, and stored
with the other definitions. ALTER QMGR CHLAUTH(DISABLED) turns all of them off.
"""
from __future__ import annotations

import fnmatch
import re
from typing import Any

from spark_mq.embedded.server.core.security.security_state import RuleKey, privileged, rule_name, security_of
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.embedded.tls import distinguished_names

MAPPING_TYPES = ("USERMAP", "ADDRESSMAP", "QMGRMAP", "SSLPEERMAP")
BLOCKING_TYPES = ("BLOCKUSER", "BLOCKADDR")
TYPES = (*BLOCKING_TYPES, *MAPPING_TYPES)
#: the attribute that names who a mapping rule is about (the 4th part of its key)
WHO = {"USERMAP": "CLNTUSER", "QMGRMAP": "QMNAME", "SSLPEERMAP": "SSLPEER"}
#: what a client connection meets, and what a message channel's partner meets
#: a client's certificate as the TLS handshake gave it: (subject DN, issuer DN)
Certificate = tuple[list[tuple[str, str]], list[tuple[str, str]]]
#: a client connection's mapping rules, the one that names the client most surely first: its
#: certificate (proved by the handshake), its asserted user, then only its address
_CLIENT_RANK = {"SSLPEERMAP": 3, "USERMAP": 2, "ADDRESSMAP": 1}
_PARTNER_RANK = {"SSLPEERMAP": 3, "QMGRMAP": 2, "ADDRESSMAP": 1}
#: rule attributes and what a new rule has when SET CHLAUTH does not say
DEFAULTS: dict[str, Any] = {"USERSRC": "MAP", "MCAUSER": "", "USERLIST": [], "ADDRLIST": [],
                            "CHCKCLNT": "ASQMGR", "DESCR": "", "WARN": "NO"}


def enabled(qm: QueueManagerState) -> bool:
    return str(qm.attrs.get("CHLAUTH", "ENABLED")) != "DISABLED"


# --- SET CHLAUTH ---------------------------------------------------------------------------
def set_rule(qm: QueueManagerState, profile: str, rule_type: str, action: str,
             attrs: dict[str, Any]) -> str:
    """SET CHLAUTH with typed attributes (mqsc_commands.py checked which ones the type and
    action take); returns runmqsc's message, failures are ValueErrors."""
    rules = security_of(qm).chlauth
    address = str(attrs.get("ADDRESS", "")) if rule_type in MAPPING_TYPES else ""
    user = str(attrs.get(WHO[rule_type], "")) if rule_type in WHO else ""
    key: RuleKey = (profile, rule_type, address, user)
    listed = "USERLIST" if rule_type == "BLOCKUSER" else "ADDRLIST"
    if action == "REMOVEALL":
        doomed = [k for k in rules if k[0] == profile and k[1] == rule_type]
        for k in doomed:
            _delete(qm, k)
        return "AMQ8877I: IBM MQ channel authentication record set."
    existing = rules.get(key)
    if action == "REMOVE":
        if existing is None:
            raise ValueError("AMQ8884E: Channel authentication record not found.")
        if rule_type in BLOCKING_TYPES and attrs.get(listed):
            remaining = [item for item in existing[listed] if item not in attrs[listed]]
            if remaining:
                existing[listed] = remaining
                _save(qm, key, existing)
                return "AMQ8877I: IBM MQ channel authentication record set."
        _delete(qm, key)
        return "AMQ8877I: IBM MQ channel authentication record set."
    fields = {k: v for k, v in attrs.items() if k not in ("ADDRESS", *WHO.values())}
    if action == "ADD" and existing is not None:
        if rule_type not in BLOCKING_TYPES:
            raise ValueError("AMQ8883E: Channel authentication record already exists.")
        added = [item for item in fields.pop(listed, []) if item not in existing[listed]]
        values = {**existing, **fields, listed: [*existing[listed], *added]}
    else:
        values = {**DEFAULTS, **fields}
    rules[key] = values
    _save(qm, key, values)
    return "AMQ8877I: IBM MQ channel authentication record set."


def _save(qm: QueueManagerState, key: RuleKey, values: dict[str, Any]) -> None:
    qm.store.save_object("CHLAUTH", rule_name(key), values)


def _delete(qm: QueueManagerState, key: RuleKey) -> None:
    security_of(qm).chlauth.pop(key, None)
    qm.store.delete_object("CHLAUTH", rule_name(key))


# --- matching ------------------------------------------------------------------------------
def profile_covers(profile: str, channel: str) -> bool:
    return fnmatch.fnmatchcase(channel, profile) if "*" in profile else profile == channel


def _profile_rank(profile: str) -> tuple[int, int]:
    return (0 if "*" in profile else 1, len(profile.replace("*", "")))


def address_matches(pattern: str, address: str) -> bool:
    """An ADDRESS pattern: `*`, IPv4 parts that are numbers, ranges (`1-20`) or `*` (a final
    `*` covers the remaining parts), or a host name with `*` wildcards."""
    if pattern == "*":
        return True
    parts, actual = pattern.split("."), address.split(".")
    if not all(re.fullmatch(r"\d+|\d+-\d+|\*", part) for part in parts):
        return fnmatch.fnmatch(address.lower(), pattern.lower())
    if parts[-1] == "*" and len(actual) >= len(parts):
        actual = actual[:len(parts)]
    if len(parts) != len(actual):
        return False
    for part, value in zip(parts, actual):
        if part == "*":
            continue
        if not value.isdigit():
            return False
        low, _, high = part.partition("-")
        if not int(low) <= int(value) <= int(high or low):
            return False
    return True


def _address_rank(pattern: str) -> int:
    return sum(1 for part in pattern.split(".") if part and "*" not in part)


def blocked_address(qm: QueueManagerState, address: str) -> bool:
    return any(rule_type == "BLOCKADDR" and any(address_matches(p, address) for p in values["ADDRLIST"])
               for (_, rule_type, _, _), values in security_of(qm).chlauth.items())


def mapping_rule(qm: QueueManagerState, channel: str, address: str, client_user: str,
                 certificate: Certificate | None = None) -> dict[str, Any] | None:
    """The SSLPEERMAP, USERMAP or ADDRESSMAP rule that applies to a client connection (see
    the module docstring); `certificate`: the client's (subject, issuer) over TLS."""
    peer_dn, issuer_dn = certificate or ([], [])
    best: tuple[tuple, dict[str, Any]] | None = None
    for (profile, rule_type, pattern, who), values in security_of(qm).chlauth.items():
        if rule_type not in _CLIENT_RANK or not profile_covers(profile, channel):
            continue
        if rule_type == "USERMAP" and who != client_user:
            continue
        if rule_type == "SSLPEERMAP" and not _certificate_matches(
                who, str(values.get("SSLCERTI", "") or ""), peer_dn, issuer_dn):
            continue
        if pattern and not address_matches(pattern, address):
            continue
        rank = (_profile_rank(profile), _CLIENT_RANK[rule_type],
                _address_rank(pattern) if pattern else 0)
        if best is None or rank > best[0]:
            best = (rank, values)
    return None if best is None else best[1]


def partner_rule(qm: QueueManagerState, channel: str, address: str, partner: str,
                 peer_dn: list[tuple[str, str]], issuer_dn: list[tuple[str, str]]
                 ) -> tuple[RuleKey, dict[str, Any]] | None:
    """The QMGRMAP, SSLPEERMAP or ADDRESSMAP rule (and its key) that applies to a message
    channel's partner: `partner` the queue-manager name its hello gave, `peer_dn` and
    `issuer_dn` its certificate's subject and issuer (empty without TLS), see the module
    docstring for which rule wins."""
    best: tuple[tuple, RuleKey, dict[str, Any]] | None = None
    for key, values in security_of(qm).chlauth.items():
        profile, rule_type, pattern, who = key
        if rule_type not in _PARTNER_RANK or not profile_covers(profile, channel):
            continue
        if pattern and not address_matches(pattern, address):
            continue
        if rule_type == "QMGRMAP" and not fnmatch.fnmatchcase(partner, who):
            continue
        if rule_type == "SSLPEERMAP" and not _certificate_matches(
                who, str(values.get("SSLCERTI", "") or ""), peer_dn, issuer_dn):
            continue
        rank = (_profile_rank(profile), _PARTNER_RANK[rule_type],
                _address_rank(pattern) if pattern else 0)
        if best is None or rank > best[0]:
            best = (rank, key, values)
    return None if best is None else (best[1], best[2])


def _certificate_matches(peer: str, issuer: str, peer_dn: list[tuple[str, str]],
                         issuer_dn: list[tuple[str, str]]) -> bool:
    """SSLPEER (and SSLCERTI, when the rule has one) against a certificate; no certificate,
    or a pattern that is not valid, matches nothing."""
    if not peer_dn:
        return False
    try:
        return distinguished_names.matches(peer, peer_dn) and (
            not issuer.strip() or distinguished_names.matches(issuer, issuer_dn))
    except distinguished_names.PeerNameError:
        return False


def blocked_user(qm: QueueManagerState, channel: str, user: str) -> bool:
    """Whether the BLOCKUSER rule of the most specific profile covering `channel` lists `user`."""
    best: tuple[tuple[int, int], list[str]] | None = None
    for (profile, rule_type, _, _), values in security_of(qm).chlauth.items():
        if rule_type == "BLOCKUSER" and profile_covers(profile, channel):
            rank = _profile_rank(profile)
            if best is None or rank > best[0]:
                best = (rank, values["USERLIST"])
    if best is None:
        return False
    listed = best[1]
    return "*" in listed or user in listed or ("*MQADMIN" in listed and privileged(qm, user))


def rules(qm: QueueManagerState) -> list[tuple[RuleKey, dict[str, Any]]]:
    return sorted(security_of(qm).chlauth.items())
