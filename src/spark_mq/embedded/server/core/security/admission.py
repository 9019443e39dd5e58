"""MQCONN on a queue manager with users: who the connection runs as, or MQRC_NOT_AUTHORIZED
(runs in the queue-manager process, under its lock).

In the order MQ checks a client connection:

1. a BLOCKADDR rule that lists the client's address refuses it;
2. connection authentication (the CONNAUTH in force, authinfo.py): a user and password
   given in the MQCSP must be valid, whatever CHCKCLNT says (unless NONE); with
   ADOPTCTX(YES) that user is the one the connection runs as. An authentication token
   (MQCSP_AUTH_ID_TOKEN, client connections only) takes their place: it must be valid by
   qm.ini's AuthToken stanza (tokens.py, token_config.py), and its UserClaim's user is the
   one adopted;
3. the mapping rule (chlauth.py) the channel, address, client user and TLS certificate
   meet (SSLPEERMAP on the certificate first, then USERMAP, then ADDRESSMAP): NOACCESS
   refuses, MAP names the user, CHANNEL keeps the channel's MCAUSER; no rule at all (or
   CHLAUTH(DISABLED)) is CHANNEL. A certificate the handshake proved, mapped by SSLPEERMAP,
   is how a client authenticates without a password (CHCKCLNT OPTIONAL, or REQDADM for a
   user who is not an administrator);
4. the user it runs as: the adopted MQCSP user, else the MCAUSER (the rule's, then the
   channel's), else the user the client asserts (the queue manager's operating-system
   user: clients and the embedded queue manager share a machine, and the client does not
   send its own);
5. CHCKCLNT (stricter by the rule's): REQUIRED without a valid MQCSP refuses, and so does
   REQDADM for an administrator;
6. the channel's BLOCKUSER rule;
7. CONNECT authority on the queue manager (administrators hold every authority).

A bindings connection (no channel: only the bindings socket in the data directory takes
one, server/network/bindings.py) skips the CHLAUTH steps and is checked by CHCKLOCL instead of
CHCKCLNT, as in IBM MQ; the user it asserts is the one the OS gives for the process at the
other end of the socket (SO_PEERCRED), not one the client could choose.

A wrong user or password (or a token that is not valid) in step 2 is refused with
`FailedAuthentication`, which carries the AUTHINFO's FAILDLAY: MQ answers such a failure only
after that many seconds. The wait is the caller's to make (qmgr.QueueManager.connect), after
the queue manager's lock is let go, so that one failing client holds up nobody else. Other
refusals are answered at once, as in MQ.
"""
from __future__ import annotations

from typing import Any

from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.security import chlauth, tokens
from spark_mq.embedded.server.core.security import refusal_log as refusals
from spark_mq.embedded.server.core.security.checks import check
from spark_mq.embedded.server.core.security.security_state import RuleKey, privileged, security_of
from spark_mq.embedded.server.core.state import Connection, FeatureState, QueueManagerState, os_user
from spark_mq.mqi.constants import CMQC, CMQCFC

_STRICTER = ("REQUIRED", "REQDADM")


def admit(qm: QueueManagerState, user: str, password: str, channel: str | None,
          address: str, peer_user: str | None = None,
          certificate: chlauth.Certificate | None = None, token: str | None = None) -> str:
    """The user a new connection runs as; raises MQError(MQRC_NOT_AUTHORIZED) when refused.
    `peer_user`: a bindings connection's process's user, as the OS gives it; `certificate`:
    a TLS client's (subject, issuer), which an SSLPEERMAP rule maps; `token`: the MQCSP's
    authentication token (MQCSP_AUTH_ID_TOKEN), which takes the place of user and password."""
    checking_rules = channel is not None and chlauth.enabled(qm)
    if checking_rules and chlauth.blocked_address(qm, address):
        refusals.blocked_address(address)
        raise _refused()
    connauth = security_of(qm).connauth
    if connauth == {}:  # CONNAUTH names an object that does not exist: nobody gets in
        refusals.log.warning("connection on %s refused: CONNAUTH names an AUTHINFO object "
                             "that does not exist", channel or "bindings")
        raise _refused()
    check_field = "CHCKCLNT" if channel is not None else "CHCKLOCL"
    required = str(connauth.get(check_field, "NONE")) if connauth is not None else "NONE"
    authenticated = False
    if token is not None and required != "NONE":
        user = _token_user(qm, token, connauth, channel, address) or ""
        authenticated = True
    elif user and required != "NONE":
        if qm.users is None or qm.users.get(user) != password:
            refusals.wrong_password(user, channel, address)
            raise FailedAuthentication(_fail_delay(connauth))
        authenticated = True
    adopted = authenticated and connauth is not None and connauth.get("ADOPTCTX") == "YES"
    asserted = peer_user if channel is None and peer_user else os_user()
    client_user = user if adopted else asserted
    mcauser = ""
    rule: dict[str, Any] | None = None
    if channel is not None:
        mcauser = str(channels.table(qm).channels.get(channel, {}).get("MCAUSER", "") or "")
        if checking_rules:
            rule = chlauth.mapping_rule(qm, channel, address, client_user, certificate)
    if rule is not None:
        if rule["USERSRC"] == "NOACCESS":
            refusals.no_access(channel or "", address, client_user)
            raise _refused()
        if rule["USERSRC"] == "MAP":
            mcauser = str(rule["MCAUSER"])
        if required != "NONE" and rule.get("CHCKCLNT") in _STRICTER:
            required = str(rule["CHCKCLNT"])
    runs_as = user if adopted else (mcauser or asserted)
    if not authenticated:
        if required == "REQUIRED" or (
                required == "REQDADM" and (privileged(qm, runs_as) or privileged(qm, client_user))):
            refusals.no_credentials(f"{check_field}({required})", channel, address)
            raise _refused()
    if checking_rules and channel is not None and chlauth.blocked_user(qm, channel, runs_as):
        refusals.blocked_user(channel, address, runs_as)
        raise _refused()
    check(qm, runs_as, CMQC.MQOT_Q_MGR, qm.name, {CMQCFC.MQAUTH_CONNECT})
    return runs_as


def admit_channel(qm: QueueManagerState, channel: str, address: str, attrs: dict[str, Any],
                  partner: str = "", peer_dn: list[tuple[str, str]] | None = None,
                  issuer_dn: list[tuple[str, str]] | None = None) -> str:
    """The user a receiving message channel agent runs as, or MQRC_NOT_AUTHORIZED, as IBM MQ
    decides it for an inbound message channel (AMQ9777 when refused):

    1. a BLOCKADDR rule listing the partner's address refuses it (AMQ9782E);
    2. the partner's mapping rule (chlauth.partner_rule: SSLPEERMAP on its certificate,
       QMGRMAP on the queue-manager name of its hello, ADDRESSMAP on its address, each with
       its ADDRESS filter): NOACCESS refuses, MAP names the user, CHANNEL keeps the channel's;
    3. the user: the rule's MCAUSER, else the channel's MCAUSER, else the user the agent's
       process runs as, the queue manager's own `mqm`;
    4. the BLOCKUSER rule of the channel's most specific profile, the default
       BLOCKUSER('*MQADMIN') of profile `*` included, refuses a channel that would run as a
       user it lists: a receiver with a blank MCAUSER would run as mqm, so it does not start
       until it is given a user (or a rule gives it one).

    The partner's queue-manager name is what it says it is, an input to QMGRMAP and never a
    credential: where the name must be proved, SSLPEER or SSLPEERMAP does it. A queue manager
    without users (security off) checks none of this and the agent runs as mqm, as before
    there were rules; so do queue managers with CHLAUTH(DISABLED) for the rules (the user is
    still the MCAUSER, else mqm)."""
    mcauser = str(attrs.get("MCAUSER", "") or "")
    if qm.users is None:
        return mcauser or "mqm"
    if chlauth.enabled(qm):
        if chlauth.blocked_address(qm, address):
            refusals.blocked_address(address)
            raise _refused()
        found = chlauth.partner_rule(qm, channel, address, partner, peer_dn or [], issuer_dn or [])
        if found is not None:
            key, rule = found
            if rule["USERSRC"] == "NOACCESS":
                refusals.partner_no_access(channel, address, _describe_rule(key))
                raise _refused()
            if rule["USERSRC"] == "MAP":
                mcauser = str(rule["MCAUSER"])
    runs_as = mcauser or "mqm"
    if chlauth.enabled(qm) and chlauth.blocked_user(qm, channel, runs_as):
        refusals.blocked_mca_user(channel, address, runs_as)
        raise _refused()
    return runs_as


def _describe_rule(key: RuleKey) -> str:
    profile, rule_type, address, who = key
    named = f" {chlauth.WHO[rule_type]}('{who}')" if rule_type in chlauth.WHO else ""
    return (f"CHLAUTH('{profile}') TYPE({rule_type}){named}"
            + (f" ADDRESS('{address}')" if address else ""))


def _refused() -> MQError:
    return MQError(CMQC.MQRC_NOT_AUTHORIZED)


def _token_user(qm: QueueManagerState, token: str, connauth: dict[str, Any] | None,
                channel: str | None, address: str) -> str | None:
    """The user a valid token's UserClaim names (None: no UserClaim, the token only
    authenticates); FailedAuthentication for a token that is not valid (tokens.py), and
    MQRC_SECURITY_ERROR (2063) while the AuthToken configuration is missing or broken, or
    when ADOPTCTX(YES) would adopt a user no UserClaim names, as IBM MQ answers both."""
    state = security_of(qm)
    adopting = connauth is not None and connauth.get("ADOPTCTX") == "YES"
    problem = state.token_error or (
        "qm.ini has no AuthToken stanza" if state.tokens is None else
        "ADOPTCTX(YES) adopts the token's user, and the AuthToken stanza names no UserClaim"
        if adopting and state.tokens.user_claim is None else None)
    if problem is not None or state.tokens is None:
        refusals.token_configuration_missing(problem or "", channel, address)
        raise MQError(CMQC.MQRC_SECURITY_ERROR)
    try:
        return tokens.verify(token, state.tokens).user
    except tokens.TokenRefused as refused:
        refusals.token_refused(refused.code, refused.detail, refused.names_user, channel, address)
        raise FailedAuthentication(_fail_delay(connauth)) from None


class FailedAuthentication(MQError):
    """MQRC_NOT_AUTHORIZED for a wrong user or password, to be answered `delay` seconds late
    (the AUTHINFO's FAILDLAY)."""

    def __init__(self, delay: float):
        super().__init__(CMQC.MQRC_NOT_AUTHORIZED)
        self.delay = delay


def _fail_delay(connauth: dict[str, Any] | None) -> float:
    if not connauth:
        return 0.0
    return float(connauth.get("FAILDLAY", 0) or 0)


# --- where each connection comes from, for the log of administrative changes ------------------
_ORIGINS: FeatureState[dict[int, str]] = FeatureState("connection origins", lambda qm: {})


def note_origin(qm: QueueManagerState, conn: Connection, channel: str | None, peer: str) -> None:
    """Remember where a new connection comes from (its channel and address, or the process
    on the bindings socket): the command server names it when the connection changes
    something (server/admin/mqsc_apply.py, log_command)."""
    with qm.lock:
        known = _ORIGINS.of(qm)
        for gone in [conn_id for conn_id in known if conn_id not in qm.connections]:
            del known[gone]
        known[conn.conn_id] = f"channel {channel} from {peer}" if channel else f"bindings, {peer}"


def origin_of(qm: QueueManagerState, conn_id: int) -> str:
    return (_ORIGINS.get(qm) or {}).get(conn_id, "")


# --- where a command that came over a message channel comes from --------------------------
#: how many delivered, not yet served commands are remembered per queue manager
_MESSAGE_ORIGINS = 1024
_MESSAGE_ORIGINS_OF: FeatureState[dict[tuple[bytes, bytes], str]] = FeatureState(
    "command message origins", lambda qm: {})


def note_message_origin(qm: QueueManagerState, msg_id: bytes, user: bytes, origin: str) -> None:
    """A receiving channel put a message for the command server: its channel, address and
    MCA user, found again by `message_origin` when the command is run. Kept in memory only,
    the oldest forgotten first: a command served after a restart is logged without it."""
    with qm.lock:
        known = _MESSAGE_ORIGINS_OF.of(qm)
        while len(known) >= _MESSAGE_ORIGINS:
            del known[next(iter(known))]
        known[(bytes(msg_id), bytes(user))] = origin


def message_origin(qm: QueueManagerState, msg_id: bytes, user: bytes) -> str:
    """Where a command message came from ("" when no channel delivered it), forgotten once
    asked: MsgId and UserIdentifier together, so a local request does not take the origin of
    a channel's even with the same MsgId unless it also names the same user."""
    with qm.lock:
        return (_MESSAGE_ORIGINS_OF.get(qm) or {}).pop((bytes(msg_id), bytes(user)), "")
