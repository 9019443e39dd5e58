"""Why a refusal was a refusal, in the queue manager's log (runs in the queue-manager process).

MQ answers every refusal with the same MQRC_NOT_AUTHORIZED (2035) and says why only in its
error log, with a message per cause. The embedded queue manager writes the same messages,
by IBM's message numbers, to its log (qmgr.log in the data directory), so that a 2035 is
diagnosed here as on IBM MQ (the connector's hint points at them, spark_mq/mq/refusals.py):

    AMQ5534E  a user ID and password that do not match
    AMQ5540E  no user ID and password where CONNAUTH's CHCKCLNT (CHCKLOCL) requires them
    AMQ9782E  the address is in a BLOCKADDR rule
    AMQ9777E  a CHLAUTH mapping rule with USERSRC(NOACCESS) matched; or, for a message
              channel, the user its agent would run as is in the BLOCKUSER rule
    AMQ9776E  the user is in a BLOCKUSER rule of the channel
    AMQ8077W  an entity lacks an authority on an object (with the setmqaut that grants it)
    AMQ5783E  an authentication token that is not valid (with IBM's error code, tokens.py)
    AMQ5784E  a token whose user claim is missing or is not a user ID (107, 108)
    AMQ5786E  a token sent while the AuthToken configuration is missing or broken (2063)
    AMQ7076E  the AuthToken stanza of qm.ini cannot be used (when it is read)

The texts are this project's own, after IBM's numbers. Passwords and tokens are never logged.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable

from spark_mq.embedded.server.core.security.authority import AUTH_KEYWORDS, OBJECT_TYPE_KEYWORDS

log = logging.getLogger("spark_mq.embedded.security")


def _on(channel: str | None, address: str) -> str:
    return f"channel '{channel}' from {address}" if channel else f"a bindings connection ({address})"


def wrong_password(user: str, channel: str | None, address: str) -> None:
    log.warning("AMQ5534E: User ID '%s' authentication failed: the password does not match "
                "(%s)", user, _on(channel, address))


def no_credentials(check: str, channel: str | None, address: str) -> None:
    log.warning("AMQ5540E: the application on %s did not supply a user ID and password, which "
                "CONNAUTH %s requires", _on(channel, address), check)


def blocked_address(address: str) -> None:
    log.warning("AMQ9782E: Remote connection blocked: address %s is in the ADDRLIST of a CHLAUTH "
                "BLOCKADDR rule", address)


def no_access(channel: str, address: str, user: str) -> None:
    log.warning("AMQ9777E: Channel '%s' was blocked: a CHLAUTH USERMAP or ADDRESSMAP rule with "
                "USERSRC(NOACCESS) matches address %s and client user '%s'", channel, address, user)


def partner_no_access(channel: str, address: str, rule: str) -> None:
    log.warning("AMQ9777E: Channel was blocked: the inbound channel '%s' was blocked from "
                "address %s because the active values of the channel matched a record "
                "configured with USERSRC(NOACCESS): %s", channel, address, rule)


def blocked_mca_user(channel: str, address: str, user: str) -> None:
    log.warning("AMQ9777E: Channel was blocked: the inbound channel '%s' was blocked from "
                "address %s because the active values of the channel were mapped to a user "
                "ID which should be blocked; the active values of the channel were "
                "'MCAUSER(%s)'", channel, address, user)


def blocked_user(channel: str, address: str, user: str) -> None:
    log.warning("AMQ9776E: Channel '%s' (from %s) was blocked by user ID '%s': a CHLAUTH "
                "BLOCKUSER rule of the channel lists it", channel, address, user)


def missing_authority(qmgr: str, user: str, object_type: int, name: str,
                      missing: Iterable[int]) -> None:
    kind = OBJECT_TYPE_KEYWORDS.get(object_type, str(object_type))
    keywords = sorted(AUTH_KEYWORDS.get(a, str(a)) for a in missing)
    grant = " ".join(f"+{k.lower()}" for k in keywords)
    target = "" if kind == "QMGR" else f" -n '{name}'"
    log.warning("AMQ8077W: Entity '%s' has insufficient authority to access %s '%s': it lacks "
                "%s; to grant it: setmqaut -m %s%s -t %s -p %s %s", user, kind.lower(), name,
                ",".join(keywords), qmgr, target, kind.lower(), user or "<user>", grant)


def token_refused(code: int | None, detail: str, names_user: bool, channel: str | None,
                  address: str) -> None:
    number = "AMQ5784E" if names_user else "AMQ5783E"
    what = ("an authentication token whose user ID could not be adopted" if names_user
            else "an authentication token that is not valid")
    log.warning("%s: the application on %s supplied %s%s: %s", number, _on(channel, address),
                what, f" (error code {code})" if code is not None else "", detail)


def token_configuration_missing(reason: str, channel: str | None, address: str) -> None:
    log.warning("AMQ5786E: Authentication token configuration error: the application on %s "
                "supplied an authentication token, which the queue manager cannot check "
                "(error code 201): %s", _on(channel, address), reason)


def token_configuration_unusable(reason: str) -> None:
    log.error("AMQ7076E: Invalid value in the AuthToken stanza of qm.ini: %s; connections with "
              "an authentication token fail (2063) until it is mended and REFRESH SECURITY "
              "TYPE(CONNAUTH) is run", reason)
