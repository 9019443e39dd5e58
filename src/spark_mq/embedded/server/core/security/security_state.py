"""One queue manager's security state: AUTHINFO objects, the CONNAUTH in force, qm.ini's
AuthToken configuration in force (token_config.py), CHLAUTH rules, authority records and the
users' groups (runs in the queue-manager process).

Found through the queue manager object, as core/channel_definitions.py finds its table, so that the verbs'
shared state (state.py) does not need to know about security. Definitions are stored with
the queues' (kinds AUTHINFO, CHLAUTH and AUTHREC) and come back through `restore`.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from spark_mq.embedded.server.core.security import token_config
from spark_mq.embedded.server.core.security.authority import AuthorityRecords
from spark_mq.embedded.server.core.security.refusal_log import token_configuration_unusable
from spark_mq.embedded.server.core.state import FeatureState, QueueManagerState

#: the store kinds this package owns (definitions.recover hands them to `restore`)
KINDS = frozenset({"AUTHINFO", "CHLAUTH", "AUTHREC"})
#: the group whose members administer the queue manager (MQ's `mqm`)
ADMIN_GROUP = "mqm"
#: the group IBM's developer container puts its application user `app` in
CLIENT_GROUP = "mqclient"
_ADMIN_USERS = frozenset({"admin", "mqm"})

#: a CHLAUTH rule's identity: (channel profile, TYPE, ADDRESS, CLNTUSER)
RuleKey = tuple[str, str, str, str]


@dataclass
class SecurityState:
    authinfos: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the AUTHINFO attributes CONNAUTH named at the last start or REFRESH SECURITY; None:
    #: no CONNAUTH (no password checks); {} : CONNAUTH names no AUTHINFO (refuse clients)
    connauth: dict[str, Any] | None = None
    chlauth: dict[RuleKey, dict[str, Any]] = field(default_factory=dict)
    authority: AuthorityRecords = field(default_factory=AuthorityRecords)
    groups: dict[str, tuple[str, ...]] = field(default_factory=dict)  # USER:PW:GROUPS entries
    #: dynamic queue -> the user whose MQOPEN created it (it holds every authority on it)
    dynamic_owners: dict[str, str] = field(default_factory=dict)
    #: qm.ini's AuthToken stanza as taken at the last start or REFRESH SECURITY (None: none);
    #: `token_error` says why it cannot be used, when it cannot (token_config.py)
    tokens: token_config.TokenSettings | None = None
    token_error: str | None = None


def _new_security(qm: QueueManagerState) -> SecurityState:
    made = SecurityState()
    made.authority.store = qm.store
    return made


_SECURITY: FeatureState[SecurityState] = FeatureState("security", _new_security)


def security_of(qm: QueueManagerState) -> SecurityState:
    return _SECURITY.of(qm)


def enforced(qm: QueueManagerState) -> bool:
    """Whether connections are checked: only on a queue manager started with users."""
    return qm.users is not None


def set_groups(qm: QueueManagerState, groups: dict[str, tuple[str, ...]]) -> None:
    """The groups named in the user entries (users not named here get the defaults)."""
    security_of(qm).groups.update(groups)


def groups_of(qm: QueueManagerState, user: str) -> tuple[str, ...]:
    """A user's groups: as given in its entry, else the developer container's: `admin` and
    `mqm` in mqm, any other user the queue manager knows (and `app`) in mqclient."""
    given = security_of(qm).groups.get(user)
    if given:
        return given
    if user in _ADMIN_USERS:
        return (ADMIN_GROUP,)
    if user == "app" or (qm.users is not None and user in qm.users):
        return (CLIENT_GROUP,)
    return ()


def privileged(qm: QueueManagerState, user: str) -> bool:
    """An administrator: `mqm` itself or a member of its group (MQ's *MQADMIN)."""
    return user == ADMIN_GROUP or ADMIN_GROUP in groups_of(qm, user)


# --- store -------------------------------------------------------------------------------
def rule_name(key: RuleKey) -> str:
    return json.dumps(list(key))


def restore(qm: QueueManagerState, kind: str, name: str, attrs: dict[str, Any]) -> None:
    """A stored definition, at recovery."""
    state = security_of(qm)
    if kind == "AUTHINFO":
        state.authinfos[name] = dict(attrs)
    elif kind == "CHLAUTH":
        profile, rule_type, address, user = json.loads(name)
        state.chlauth[(profile, rule_type, address, user)] = dict(attrs)
    else:
        state.authority.restore(attrs)


def refresh_connauth(qm: QueueManagerState) -> None:
    """Take up the AUTHINFO that the queue manager's CONNAUTH names, and qm.ini's AuthToken
    stanza, as MQ does at start and on REFRESH SECURITY TYPE(CONNAUTH): changes in between do
    not count until then."""
    state = security_of(qm)
    refresh_tokens(qm)
    name = str(qm.attrs.get("CONNAUTH", "") or "").strip()
    if not name:
        state.connauth = None
    else:
        state.connauth = dict(state.authinfos.get(name, {}))


def refresh_tokens(qm: QueueManagerState) -> None:
    """Read the AuthToken stanza again (token_config.py); a broken one is logged now and makes
    every token connection fail until it is mended and refreshed."""
    state = security_of(qm)
    try:
        state.tokens, state.token_error = token_config.load(qm.data_dir), None
    except token_config.TokenConfigError as exc:
        state.tokens, state.token_error = None, str(exc)
        token_configuration_unusable(state.token_error)
