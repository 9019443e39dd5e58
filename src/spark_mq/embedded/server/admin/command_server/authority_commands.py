"""Authority records: Set, Inquire and Delete Authority Record (runs in the queue-manager
process, under the queue manager's lock).

The records are core/security/authority.py's, the ones MQSC's SET/DELETE/DISPLAY AUTHREC change
and MQCONN, MQOPEN and MQPUT1 check (on a queue manager started with users); they are
stored with the other definitions.
"""
from __future__ import annotations

from functools import partial

from spark_mq.embedded.server.admin.command_server import pcf
from spark_mq.embedded.server.admin.command_server.attributes import padded
from spark_mq.embedded.server.admin.command_server.pcf import PCFError
from spark_mq.embedded.server.admin.command_server.request import Reply, Request
from spark_mq.embedded.server.admin.security import security_events
from spark_mq.embedded.server.core.security.authority import ENTITY_GROUP, ENTITY_PRINCIPAL, generic_profile
from spark_mq.mqi.constants import CMQC, CMQCFC

#: the authorities a record may hold (MQAUTH_*, the ALL* groups included)
_AUTHORITIES = frozenset(value for name, value in vars(CMQCFC).items()
                         if name.startswith("MQAUTH_") and isinstance(value, int)
                         and value != CMQCFC.MQAUTH_NONE)
#: object types authority records are set for
_OBJECT_TYPES = frozenset({CMQC.MQOT_Q, CMQC.MQOT_Q_MGR, CMQC.MQOT_CHANNEL, CMQC.MQOT_TOPIC,
                           CMQC.MQOT_PROCESS, CMQC.MQOT_NAMELIST, CMQC.MQOT_AUTH_INFO,
                           CMQC.MQOT_LISTENER, CMQC.MQOT_SERVICE, CMQC.MQOT_COMM_INFO,
                           CMQC.MQOT_REMOTE_Q_MGR_NAME})


def _entities(request: Request) -> list[tuple[str, int]]:
    return ([(name, ENTITY_PRINCIPAL) for name in request.strings(CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES)]
            + [(name, ENTITY_GROUP) for name in request.strings(CMQCFC.MQCACF_GROUP_ENTITY_NAMES)])


def _profile_and_type(request: Request) -> tuple[str, int]:
    object_type = request.integer(CMQCFC.MQIACF_OBJECT_TYPE, CMQC.MQOT_NONE)
    if object_type not in _OBJECT_TYPES:
        raise PCFError(CMQCFC.MQRCCF_OBJECT_TYPE_MISSING, CMQCFC.MQIACF_OBJECT_TYPE)
    profile = request.string(CMQCFC.MQCACF_AUTH_PROFILE_NAME)
    if object_type == CMQC.MQOT_Q_MGR:
        profile = profile or request.qm.name  # the queue manager's profile is its name
    if not profile or len(profile) > CMQCFC.MQ_AUTH_PROFILE_NAME_LENGTH:
        raise PCFError(CMQCFC.MQRCCF_PROFILE_NAME_ERROR, CMQCFC.MQCACF_AUTH_PROFILE_NAME)
    return profile, object_type


def _authorities(request: Request, parameter: int) -> set[int]:
    values = set(request.integers(parameter) or [])
    if not values <= _AUTHORITIES:
        raise PCFError(CMQCFC.MQRCCF_AUTH_VALUE_ERROR, parameter)
    return values


def set_auth_rec(request: Request) -> list[Reply]:
    """MQCMD_SET_AUTH_REC: add and remove authorities for principals and groups."""
    profile, object_type = _profile_and_type(request)
    entities = _entities(request)
    if not entities:
        raise PCFError(CMQCFC.MQRCCF_ENTITY_NAME_MISSING)
    add = _authorities(request, CMQCFC.MQIACF_AUTH_ADD_AUTHS)
    remove = _authorities(request, CMQCFC.MQIACF_AUTH_REMOVE_AUTHS)
    if not add and not remove:
        raise PCFError(CMQCFC.MQRCCF_AUTH_VALUE_MISSING)
    for entity, entity_type in entities:
        try:
            key = (profile, object_type, entity, entity_type)
            security_events.set_authrec(request.qm, key,
                                        partial(request.authority.change, key, add, remove))
        except ValueError:  # an authority this object type does not have
            raise PCFError(CMQCFC.MQRCCF_AUTH_VALUE_ERROR,
                           CMQCFC.MQIACF_AUTH_ADD_AUTHS if add else CMQCFC.MQIACF_AUTH_REMOVE_AUTHS) from None
    return [Reply()]


def _profile_matches(profile: str, name: str, options: int) -> bool:
    """MQAUTHOPT_NAME_EXPLICIT: the profile itself; MQAUTHOPT_NAME_ALL_MATCHING: every
    generic profile that covers the name; MQAUTHOPT_NAME_AS_WILDCARD: the name is a pattern."""
    if not name:
        return True
    if options & CMQCFC.MQAUTHOPT_NAME_ALL_MATCHING:
        return generic_profile(profile).fullmatch(name) is not None
    if options & CMQCFC.MQAUTHOPT_NAME_AS_WILDCARD:
        return generic_profile(name).fullmatch(profile) is not None
    return profile == name


def inquire_auth_recs(request: Request) -> list[Reply]:
    """MQCMD_INQUIRE_AUTH_RECS: one reply per record that the profile name, object type and
    entity select."""
    options = request.integer(CMQCFC.MQIACF_AUTH_OPTIONS, CMQCFC.MQAUTHOPT_NAME_EXPLICIT)
    name = request.string(CMQCFC.MQCACF_AUTH_PROFILE_NAME)
    object_type = request.integer(CMQCFC.MQIACF_OBJECT_TYPE, CMQC.MQOT_ALL)
    entity = request.string(CMQCFC.MQCACF_ENTITY_NAME)
    entity_type = request.integer(CMQCFC.MQIACF_ENTITY_TYPE, 0)
    replies = []
    for (profile, otype, who, who_type), held in sorted(request.authority.records.items()):
        if object_type not in (CMQC.MQOT_ALL, otype) or not _profile_matches(profile, name, options):
            continue
        if entity and (who != entity or entity_type not in (0, who_type)):
            continue
        replies.append(Reply([
            pcf.cfst(CMQCFC.MQCACF_AUTH_PROFILE_NAME, padded(profile, CMQCFC.MQ_AUTH_PROFILE_NAME_LENGTH)),
            pcf.cfin(CMQCFC.MQIACF_OBJECT_TYPE, otype),
            pcf.cfst(CMQCFC.MQCACF_ENTITY_NAME, who.encode()),
            pcf.cfin(CMQCFC.MQIACF_ENTITY_TYPE, who_type),
            pcf.cfil(CMQCFC.MQIACF_AUTHORIZATION_LIST, sorted(held)),
        ]))
    if not replies:
        raise PCFError(CMQC.MQRC_UNKNOWN_ENTITY if entity else CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    return replies


def delete_auth_rec(request: Request) -> list[Reply]:
    """MQCMD_DELETE_AUTH_REC: the profile's records for the named entities (all its records
    when none is named)."""
    profile, object_type = _profile_and_type(request)
    entities = set(_entities(request))
    records = request.authority
    doomed = [key for key in records.records if key[0] == profile and key[1] == object_type
              and (not entities or (key[2], key[3]) in entities)]
    if not doomed:
        raise PCFError(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    for key in doomed:
        security_events.delete_authrec(request.qm, key)
    return [Reply()]
