"""Applying the security commands (checked by mqsc_commands.py) and runmqsc's DISPLAY output
for them (runs in the queue-manager process; admin.run_mqsc holds the lock).

DISPLAY AUTHREC takes PROFILE (a name, or a generic profile shown as itself), OBJTYPE,
PRINCIPAL or GROUP and MATCH(PROFILE|MEMBERSHIP|EXACT); MATCH(MEMBERSHIP) with PRINCIPAL also
shows the records of the principal's groups. DISPLAY CHLAUTH(name) shows the rules of that
profile (`*`: every rule; MATCH(RUNCHECK) with ADDRESS and CLNTUSER: the rule a client
connection would meet; with ADDRESS and QMNAME or SSLPEER (and SSLCERTI): the rule a message
channel's partner would meet).
"""
from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from typing import Any

from spark_mq.embedded.server.admin.security import security_events
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand
from spark_mq.embedded.server.core.runmqsc_layout import render
from spark_mq.embedded.server.core.security import authinfo, chlauth
from spark_mq.embedded.server.core.security.authority import (
    AUTH_KEYWORDS,
    AUTH_NAMES,
    ENTITY_GROUP,
    ENTITY_PRINCIPAL,
    OBJECT_TYPE_KEYWORDS,
    OBJECT_TYPES,
    Key,
    profile_covers,
)
from spark_mq.embedded.server.core.security.security_state import groups_of, refresh_connauth, security_of
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.embedded.tls import distinguished_names

#: the attributes DISPLAY CHLAUTH shows for each type of rule
_SHOWN = {"BLOCKUSER": {"USERLIST", "DESCR", "WARN"}, "BLOCKADDR": {"ADDRLIST", "DESCR", "WARN"},
          "USERMAP": {"USERSRC", "MCAUSER", "CHCKCLNT", "DESCR", "WARN"},
          "ADDRESSMAP": {"USERSRC", "MCAUSER", "CHCKCLNT", "DESCR", "WARN"},
          "QMGRMAP": {"USERSRC", "MCAUSER", "DESCR", "WARN"},
          "SSLPEERMAP": {"USERSRC", "MCAUSER", "SSLCERTI", "DESCR", "WARN"}}


def apply(qm: QueueManagerState, command: MQSCCommand) -> str:
    """One security command; returns runmqsc's output. Failures are ValueErrors."""
    kind, verb, attrs = command.object_type, command.verb, dict(command.attributes)
    if kind == "AUTHINFO":
        if verb == "DISPLAY":
            return _display_authinfo(qm, command)
        return authinfo.apply(qm, verb, command.name, attrs, "REPLACE" in command.flags)
    if kind == "CHLAUTH":
        if verb == "DISPLAY":
            return _display_chlauth(qm, command)
        action = str(attrs.pop("ACTION", "ADD"))
        rule_type = str(attrs.pop("TYPE"))
        return security_events.set_chlauth(
            qm, command.name, rule_type,
            lambda: chlauth.set_rule(qm, command.name, rule_type, action, attrs))
    if kind == "AUTHREC":
        if verb == "DISPLAY":
            return _display_authrec(qm, command)
        return _change_authrec(qm, verb, attrs)
    # REFRESH SECURITY: CONNAUTH (and ALL) take up the AUTHINFO CONNAUTH names; the others
    # have nothing cached here (authority records and groups count as soon as they change)
    if attrs.get("TYPE", "ALL") in ("ALL", "CONNAUTH"):
        refresh_connauth(qm)
    return "AMQ8560I: IBM MQ security cache refreshed."


# --- AUTHREC ---------------------------------------------------------------------------------
def _entity(attrs: dict[str, Any]) -> tuple[str, int] | None:
    if attrs.get("PRINCIPAL"):
        return str(attrs["PRINCIPAL"]), ENTITY_PRINCIPAL
    if attrs.get("GROUP"):
        return str(attrs["GROUP"]), ENTITY_GROUP
    return None


def _profile(qm: QueueManagerState, attrs: dict[str, Any]) -> str:
    """PROFILE; the queue manager's own name for OBJTYPE(QMGR), as MQ keeps it."""
    if attrs.get("OBJTYPE") == "QMGR":
        return qm.name
    return str(attrs.get("PROFILE", ""))


def _change_authrec(qm: QueueManagerState, verb: str, attrs: dict[str, Any]) -> str:
    entity = _entity(attrs)
    assert entity is not None  # mqsc_commands checked that one is given
    key: Key = (_profile(qm, attrs), OBJECT_TYPES[str(attrs["OBJTYPE"])], *entity)
    records = security_of(qm).authority
    if verb == "DELETE":
        if key not in records.records:
            raise ValueError("AMQ8459E: Not found: no authority record matches.")
        security_events.delete_authrec(qm, key)
        return "AMQ8863I: IBM MQ authority record deleted."
    security_events.set_authrec(qm, key, lambda: records.change(
        key, [AUTH_NAMES[name] for name in attrs.get("AUTHADD", [])],
        [AUTH_NAMES[name] for name in attrs.get("AUTHRMV", [])]))
    return "AMQ8862I: IBM MQ authority record set."


def _display_authrec(qm: QueueManagerState, command: MQSCCommand) -> str:
    attrs = command.attributes
    wanted_type = OBJECT_TYPES.get(str(attrs.get("OBJTYPE", "")))
    profile = str(attrs.get("PROFILE", "")) or None
    match = str(attrs.get("MATCH", "PROFILE")).upper()
    entity = _entity(dict(attrs))
    entities = {entity} if entity else None
    if entity and entity[1] == ENTITY_PRINCIPAL and match == "MEMBERSHIP":
        entities = {entity, *((group, ENTITY_GROUP) for group in groups_of(qm, entity[0]))}
    shown = []
    for (name, otype, who, who_type), held in sorted(security_of(qm).authority.records.items()):
        if wanted_type is not None and otype != wanted_type:
            continue
        if entities is not None and (who, who_type) not in entities:
            continue
        if profile is not None and not (name == profile or (
                match != "EXACT" and profile_covers(name, profile))):
            continue
        items = [f"PROFILE({name})", f"ENTITY({who})",
                 f"ENTTYPE({'PRINCIPAL' if who_type == ENTITY_PRINCIPAL else 'GROUP'})",
                 f"OBJTYPE({OBJECT_TYPE_KEYWORDS.get(otype, otype)})",
                 f"AUTHLIST({','.join(AUTH_KEYWORDS[a] for a in sorted(held))})"]
        shown.append(render("AMQ8864I: Display authority record details.", items))
    if not shown:
        raise ValueError("AMQ8459E: Not found: no authority record matches.")
    return "\n".join(shown)


# --- AUTHINFO and CHLAUTH --------------------------------------------------------------------
def _display_authinfo(qm: QueueManagerState, command: MQSCCommand) -> str:
    wanted = str(command.attributes.get("AUTHTYPE", "")) or None
    shown = []
    for name, values in sorted(security_of(qm).authinfos.items()):
        if not fnmatch.fnmatchcase(name, command.name) or wanted not in (None, values.get("AUTHTYPE")):
            continue
        items = [f"AUTHINFO({name})", f"AUTHTYPE({values.get('AUTHTYPE')})",
                 *_items(values, command.flags, skip={"AUTHTYPE"})]
        shown.append(render("AMQ8566I: Display authentication information details.", items))
    if not shown:
        raise ValueError(f"AMQ8147E: IBM MQ object {command.name} not found.")
    return "\n".join(shown)


def _display_chlauth(qm: QueueManagerState, command: MQSCCommand) -> str:
    attrs = command.attributes
    wanted = str(attrs.get("TYPE", "ALL"))
    if str(attrs.get("MATCH", "")).upper() == "RUNCHECK":
        rule = _runcheck(qm, command.name, attrs)
        found = [(key, values) for key, values in chlauth.rules(qm) if values is rule]
    else:
        found = [(key, values) for key, values in chlauth.rules(qm)
                 if command.name == "*" or key[0] == command.name
                 or (command.name.endswith("*") and fnmatch.fnmatchcase(key[0], command.name))]
    shown = []
    for (profile, rule_type, address, user), values in found:
        if wanted not in ("ALL", rule_type):
            continue
        items = [f"CHLAUTH({profile})", f"TYPE({rule_type})"]
        if address:
            items.append(f"ADDRESS({address})")
        if user:
            items.append(f"{chlauth.WHO.get(rule_type, 'CLNTUSER')}({user})")
        keys = _SHOWN.get(rule_type, _SHOWN["USERMAP"])
        shown_values = {k: v for k, v in values.items() if k in keys}
        items.extend(_items(shown_values, command.flags - {"ALL"}))
        shown.append(render("AMQ8878I: Display channel authentication record details.", items))
    if not shown:
        raise ValueError("AMQ8884E: Channel authentication record not found.")
    return "\n".join(shown)


def _runcheck(qm: QueueManagerState, channel: str, attrs: dict[str, Any]) -> dict[str, Any] | None:
    """The mapping rule a connection would meet: a client's (ADDRESS, CLNTUSER, and SSLPEER
    with SSLCERTI for one with a certificate), or with QMNAME, or SSLPEER without CLNTUSER, a
    message channel partner's."""
    address = str(attrs.get("ADDRESS", ""))
    if "QMNAME" not in attrs and "SSLPEER" not in attrs:
        return chlauth.mapping_rule(qm, channel, address, str(attrs.get("CLNTUSER", "")))
    try:
        peer = distinguished_names.parse(str(attrs["SSLPEER"])) if attrs.get("SSLPEER") else []
        issuer = distinguished_names.parse(str(attrs["SSLCERTI"])) if attrs.get("SSLCERTI") else []
    except distinguished_names.PeerNameError as err:
        raise ValueError(f"SSLPEER or SSLCERTI is not a valid distinguished name: {err}") from None
    if "CLNTUSER" in attrs and "QMNAME" not in attrs:
        return chlauth.mapping_rule(qm, channel, address, str(attrs["CLNTUSER"]), (peer, issuer))
    found = chlauth.partner_rule(qm, channel, address, str(attrs.get("QMNAME", "")), peer, issuer)
    return None if found is None else found[1]


def _items(values: dict[str, Any], flags: Iterable[str], skip: Iterable[str] = ()) -> list[str]:
    wanted = {flag for flag in flags if flag != "ALL"}
    items = []
    for key in sorted(values):
        if key in skip or (wanted and key not in wanted):
            continue
        value = values[key]
        if isinstance(value, list):
            value = ",".join(value)
        text = str(value)
        items.append(f"{key}({text if text else ' '})")
    return items
