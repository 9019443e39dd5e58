"""Authority records (MQ's object authority manager): who may do what to which objects.

Runs in the queue-manager process, under its lock. One store serves MQSC (SET, DELETE and
DISPLAY AUTHREC, see admin/security/security_mqsc.py) and PCF (Set, Inquire and Delete Authority Record, see
admin/command_server/authority_commands.py); every change is written to the queue manager's store.

A record grants authorities (MQAUTH_* values) on a profile of one object type to one
principal (user) or group. Profiles are object names or generic ones: `?` one character,
`*` any characters within one qualifier (between dots), `**` any number of qualifiers.
The ALL, ALLADM and ALLMQI groups are expanded, when set, into the authorities the object
type has, so that removing one authority from ALL leaves the rest, as in MQ.

A check (`holds`) takes the user's own records and those of each of its groups; for each of
these entities the most specific matching profile counts (an exact name before any generic
one, then the one with most fixed characters), and the authorities of all entities add up.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from spark_mq.mqi.constants import CMQC, CMQCFC

if TYPE_CHECKING:
    from spark_mq.embedded.server.core.store import Store

# MQZAET_* come from MQ's installable-services header (CMQZC), which ibmmq does not ship
ENTITY_PRINCIPAL = 1
ENTITY_GROUP = 2

#: MQSC's authority keywords -> MQAUTH_* values
AUTH_NAMES: dict[str, int] = {
    "ALTUSR": CMQCFC.MQAUTH_ALT_USER_AUTHORITY, "BROWSE": CMQCFC.MQAUTH_BROWSE,
    "CHG": CMQCFC.MQAUTH_CHANGE, "CLR": CMQCFC.MQAUTH_CLEAR, "CONNECT": CMQCFC.MQAUTH_CONNECT,
    "CRT": CMQCFC.MQAUTH_CREATE, "DLT": CMQCFC.MQAUTH_DELETE, "DSP": CMQCFC.MQAUTH_DISPLAY,
    "GET": CMQCFC.MQAUTH_INPUT, "INQ": CMQCFC.MQAUTH_INQUIRE, "PUT": CMQCFC.MQAUTH_OUTPUT,
    "PASSALL": CMQCFC.MQAUTH_PASS_ALL_CONTEXT, "PASSID": CMQCFC.MQAUTH_PASS_IDENTITY_CONTEXT,
    "SET": CMQCFC.MQAUTH_SET, "SETALL": CMQCFC.MQAUTH_SET_ALL_CONTEXT,
    "SETID": CMQCFC.MQAUTH_SET_IDENTITY_CONTEXT, "CTRL": CMQCFC.MQAUTH_CONTROL,
    "CTRLX": CMQCFC.MQAUTH_CONTROL_EXTENDED, "PUB": CMQCFC.MQAUTH_PUBLISH,
    "SUB": CMQCFC.MQAUTH_SUBSCRIBE, "RESUME": CMQCFC.MQAUTH_RESUME,
    "SYSTEM": CMQCFC.MQAUTH_SYSTEM, "ALL": CMQCFC.MQAUTH_ALL, "ALLADM": CMQCFC.MQAUTH_ALL_ADMIN,
    "ALLMQI": CMQCFC.MQAUTH_ALL_MQI, "NONE": CMQCFC.MQAUTH_NONE,
}
AUTH_KEYWORDS: dict[int, str] = {value: name for name, value in AUTH_NAMES.items()}

#: MQSC's OBJTYPE keywords -> MQOT_* values
OBJECT_TYPES: dict[str, int] = {
    "QMGR": CMQC.MQOT_Q_MGR, "QUEUE": CMQC.MQOT_Q, "TOPIC": CMQC.MQOT_TOPIC,
    "CHANNEL": CMQC.MQOT_CHANNEL, "CLNTCONN": CMQC.MQOT_CLNTCONN_CHANNEL,
    "PROCESS": CMQC.MQOT_PROCESS, "NAMELIST": CMQC.MQOT_NAMELIST,
    "AUTHINFO": CMQC.MQOT_AUTH_INFO, "LISTENER": CMQC.MQOT_LISTENER,
    "SERVICE": CMQC.MQOT_SERVICE, "COMMINFO": CMQC.MQOT_COMM_INFO,
    "RQMNAME": CMQC.MQOT_REMOTE_Q_MGR_NAME,
}
OBJECT_TYPE_KEYWORDS: dict[int, str] = {value: name for name, value in OBJECT_TYPES.items()}

_A = AUTH_NAMES
#: per object type: (the ALLMQI authorities, the ALLADM authorities); CRT completes ALL
_GROUPS: dict[int, tuple[frozenset[int], frozenset[int]]] = {
    CMQC.MQOT_Q_MGR: (frozenset(_A[k] for k in "ALTUSR CONNECT INQ SET SETALL SETID".split()),
                      frozenset(_A[k] for k in "CHG DLT DSP CTRL SYSTEM".split())),
    CMQC.MQOT_Q: (frozenset(_A[k] for k in "BROWSE GET INQ PUT PASSALL PASSID SET SETALL SETID".split()),
                  frozenset(_A[k] for k in "CHG CLR DLT DSP".split())),
    CMQC.MQOT_TOPIC: (frozenset(_A[k] for k in "PUB SUB RESUME PASSALL PASSID SETALL SETID".split()),
                      frozenset(_A[k] for k in "CHG CLR DLT DSP CTRL".split())),
    # a remote queue manager's name (setmqaut -t rqmname) is only put to, through name
    # resolution (security/checks.check_remote_qmgr)
    CMQC.MQOT_REMOTE_Q_MGR_NAME: (frozenset({_A["PUT"]}), frozenset()),
}
_OTHER_GROUPS = (frozenset({_A["INQ"]}), frozenset(_A[k] for k in "CHG DLT DSP CTRL CTRLX".split()))
_WILDCARDS = frozenset({CMQCFC.MQAUTH_ALL, CMQCFC.MQAUTH_ALL_ADMIN, CMQCFC.MQAUTH_ALL_MQI})

Key = tuple[str, int, str, int]  # (profile, object type, entity name, entity type)


def valid_authorities(object_type: int) -> frozenset[int]:
    """Every authority a record on this object type may hold (ALL expanded)."""
    mqi, admin = _GROUPS.get(object_type, _OTHER_GROUPS)
    return mqi | admin | {CMQCFC.MQAUTH_CREATE}


def expand(object_type: int, authorities: Iterable[int]) -> set[int]:
    """ALL, ALLADM and ALLMQI replaced by what they stand for on this object type; NONE dropped.
    Raises ValueError naming an authority the object type does not have."""
    mqi, admin = _GROUPS.get(object_type, _OTHER_GROUPS)
    result: set[int] = set()
    for value in authorities:
        if value == CMQCFC.MQAUTH_ALL:
            result |= valid_authorities(object_type)
        elif value == CMQCFC.MQAUTH_ALL_MQI:
            result |= mqi
        elif value == CMQCFC.MQAUTH_ALL_ADMIN:
            result |= admin
        elif value == CMQCFC.MQAUTH_NONE:
            continue
        elif value in valid_authorities(object_type):
            result.add(value)
        else:
            raise ValueError(f"authority {AUTH_KEYWORDS.get(value, value)} is not valid for "
                             f"OBJTYPE({OBJECT_TYPE_KEYWORDS.get(object_type, object_type)})")
    return result


@lru_cache(maxsize=512)
def generic_profile(profile: str) -> re.Pattern[str]:
    """A profile as a pattern: `?` one character, `*` within a qualifier, `**` any qualifiers
    (so `DEV.**` covers DEV.QUEUE.1 and DEV itself)."""
    pattern = re.escape(profile)
    pattern = pattern.replace(r"\.\*\*", r"(\..*)?").replace(r"\*\*\.", r"(.*\.)?")
    pattern = pattern.replace(r"\*\*", ".*").replace(r"\*", r"[^.]*").replace(r"\?", r"[^.]")
    return re.compile(pattern)


def is_generic(profile: str) -> bool:
    return "*" in profile or "?" in profile


def _specificity(profile: str) -> tuple[int, int]:
    return (0 if is_generic(profile) else 1, len(profile.replace("*", "").replace("?", "")))


def profile_covers(profile: str, name: str) -> bool:
    if not is_generic(profile):
        return profile == name
    return generic_profile(profile).fullmatch(name) is not None


@dataclass
class AuthorityRecords:
    """(profile, object type, entity, entity type) -> authorities; changes are stored."""
    records: dict[Key, set[int]] = field(default_factory=dict)
    store: Store | None = None

    # --- changes ---------------------------------------------------------------------------
    def change(self, key: Key, add: Iterable[int], remove: Iterable[int]) -> None:
        """Add and remove authorities (ALL and its kind expanded for the object type); a
        record left with none is deleted. Raises ValueError for an authority the object
        type does not have."""
        add_set, remove_set = expand(key[1], add), expand(key[1], remove)
        held = self.records.setdefault(key, set())
        held |= add_set
        held -= remove_set  # after adding: AUTHADD(ALLMQI) AUTHRMV(PUT) is all MQI but PUT
        if held:
            self._save(key, held)
        else:
            self.delete(key)

    def delete(self, key: Key) -> None:
        self.records.pop(key, None)
        if self.store is not None:
            self.store.delete_object("AUTHREC", _name(key))

    def forget_object(self, object_type: int, name: str) -> None:
        """Delete the records whose profile is exactly this object's name, as MQ does when
        the object is deleted with AUTHREC(YES); generic profiles stay."""
        for key in [k for k in self.records if k[0] == name and k[1] == object_type]:
            self.delete(key)

    def restore(self, attrs: dict[str, Any]) -> None:
        key = (str(attrs["profile"]), int(attrs["objtype"]), str(attrs["entity"]),
               int(attrs["enttype"]))
        self.records[key] = {int(value) for value in attrs["auths"]}

    def _save(self, key: Key, held: set[int]) -> None:
        if self.store is not None:
            profile, object_type, entity, entity_type = key
            self.store.save_object("AUTHREC", _name(key), {
                "profile": profile, "objtype": object_type, "entity": entity,
                "enttype": entity_type, "auths": sorted(held)})

    # --- checks ----------------------------------------------------------------------------
    def holds(self, object_type: int, name: str, user: str, groups: Iterable[str]) -> set[int]:
        """The authorities `user` (a member of `groups`) has on object `name`."""
        entities = [(user, ENTITY_PRINCIPAL), *((group, ENTITY_GROUP) for group in groups)]
        held: set[int] = set()
        for entity, entity_type in entities:
            best: tuple[tuple[int, int], set[int]] | None = None
            for (profile, otype, who, who_type), auths in self.records.items():
                if otype != object_type or who != entity or who_type != entity_type:
                    continue
                if not profile_covers(profile, name):
                    continue
                rank = _specificity(profile)
                if best is None or rank > best[0]:
                    best = (rank, auths)
            if best is not None:
                held |= best[1]
        return held


def _name(key: Key) -> str:
    """The store's name of a record: unique per key, readable in the database."""
    profile, object_type, entity, entity_type = key
    return f"{object_type}/{entity_type}/{entity}/{profile}"
