"""The configuration events of security records (events/configuration.py sends them; IBM docs
"Channel authentication attributes", "Authority Record attributes", "Change Authority
Record", "Delete Authority Record"): how a channel authentication rule or an authority
record is described, and the wrappers the MQSC and PCF doors apply their changes through,
so that both are events alike. Runs in the queue-manager process, under its lock.

A rule is described with the attributes IBM's page lists for its type: ChannelProfile,
ChannelAuthType and Warning always; ConnectionNameList for BLOCKADDR, MCAUserIdList for
BLOCKUSER; MCAUser, ConnectionName and UserSource for the mapping types.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spark_mq.embedded.server.core.pcf_structures import cfil, cfin, cfsl, cfst
from spark_mq.embedded.server.core.security.authority import Key
from spark_mq.embedded.server.core.security.security_state import RuleKey, security_of
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.embedded.server.events import configuration
from spark_mq.mqi.constants import CMQC, CMQCFC

_AUTH_TYPES = {"BLOCKUSER": CMQCFC.MQCAUT_BLOCKUSER, "BLOCKADDR": CMQCFC.MQCAUT_BLOCKADDR,
               "SSLPEERMAP": CMQCFC.MQCAUT_SSLPEERMAP, "ADDRESSMAP": CMQCFC.MQCAUT_ADDRESSMAP,
               "USERMAP": CMQCFC.MQCAUT_USERMAP, "QMGRMAP": CMQCFC.MQCAUT_QMGRMAP}
_USER_SOURCES = {"MAP": CMQC.MQUSRC_MAP, "NOACCESS": CMQC.MQUSRC_NOACCESS,
                 "CHANNEL": CMQC.MQUSRC_CHANNEL}


# --- SET CHLAUTH ---------------------------------------------------------------------------
def set_chlauth(qm: QueueManagerState, profile: str, rule_type: str,
                apply: Callable[[], str]) -> str:
    """Apply a SET CHLAUTH of `profile`'s rules of `rule_type` (`apply`), then the events of
    the rules it made, changed or removed; returns what `apply` returned."""
    if not configuration.enabled(qm):
        return apply()
    before = _rules(qm, profile, rule_type)
    output = apply()
    after = _rules(qm, profile, rule_type)
    configuration.records_changed(qm, [
        (_rule(key, before.get(key)), _rule(key, after.get(key)))
        for key in sorted(before.keys() | after.keys()) if before.get(key) != after.get(key)])
    return output


def _rules(qm: QueueManagerState, profile: str, rule_type: str) -> dict[RuleKey, dict[str, Any]]:
    return {key: dict(values) for key, values in security_of(qm).chlauth.items()
            if key[0] == profile and key[1] == rule_type}


def _rule(key: RuleKey, values: dict[str, Any] | None) -> configuration.Described:
    if values is None:
        return None
    profile, rule_type, address, _ = key
    found = [cfst(CMQCFC.MQCACH_CHANNEL_NAME, profile, CMQC.MQ_CHANNEL_NAME_LENGTH),
             cfin(CMQCFC.MQIACF_CHLAUTH_TYPE, _AUTH_TYPES[rule_type]),
             cfin(CMQCFC.MQIACH_WARNING,
                  CMQC.MQWARN_YES if values.get("WARN") == "YES" else CMQC.MQWARN_NO)]
    if rule_type == "BLOCKADDR":
        found.append(cfsl(CMQCFC.MQCACH_CONNECTION_NAME_LIST, values.get("ADDRLIST", []),
                          CMQC.MQ_CONN_NAME_LENGTH))
    elif rule_type == "BLOCKUSER":
        found.append(cfsl(CMQCFC.MQCACH_MCA_USER_ID_LIST, values.get("USERLIST", []),
                          CMQC.MQ_MCA_USER_ID_LENGTH))
    else:
        found += [cfst(CMQCFC.MQCACH_MCA_USER_ID, str(values.get("MCAUSER", "")),
                       CMQC.MQ_MCA_USER_ID_LENGTH),
                  cfst(CMQCFC.MQCACH_CONNECTION_NAME, address, CMQC.MQ_CONN_NAME_LENGTH),
                  cfin(CMQCFC.MQIACH_USER_SOURCE,
                       _USER_SOURCES.get(str(values.get("USERSRC", "MAP")), CMQC.MQUSRC_MAP))]
    return CMQC.MQOT_CHLAUTH, found


# --- SET and DELETE AUTHREC ----------------------------------------------------------------
def set_authrec(qm: QueueManagerState, key: Key, apply: Callable[[], None]) -> None:
    """Apply a change of the authority record `key` (`apply`), then its Change Authority
    Record event. A change `apply` refuses (ValueError) is no event."""
    records = security_of(qm).authority.records
    if not configuration.enabled(qm):
        apply()
        return
    before = set(records.get(key, ()))
    apply()
    configuration.authority_set(qm, authority_record(key, before),
                                authority_record(key, records.get(key, set())))


def delete_authrec(qm: QueueManagerState, key: Key) -> None:
    """Delete the authority record `key`, with its Delete Authority Record event."""
    authority = security_of(qm).authority
    held = set(authority.records.get(key, ()))
    authority.delete(key)
    if configuration.enabled(qm):
        configuration.authority_deleted(qm, authority_record(key, held))


def authority_record(key: Key, held: set[int]) -> tuple[int, list[bytes]]:
    """IBM's "Authority Record attributes" of a record, after its ProfileName."""
    profile, object_type, entity, entity_type = key
    return CMQC.MQOT_AUTH_REC, [
        cfst(CMQCFC.MQCACF_AUTH_PROFILE_NAME, profile, CMQCFC.MQ_AUTH_PROFILE_NAME_LENGTH),
        cfin(CMQCFC.MQIACF_AUTH_REC_TYPE, object_type),
        cfil(CMQCFC.MQIACF_AUTHORIZATION_LIST, sorted(held)),
        cfst(CMQCFC.MQCACF_ENTITY_NAME, entity),
        cfin(CMQCFC.MQIACF_ENTITY_TYPE, entity_type)]
