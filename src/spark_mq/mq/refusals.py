"""What an MQRC_NOT_AUTHORIZED (2035) means, as far as the client can tell, and what to do.

IBM MQ answers 2035 without saying why; its error log and authority events say it. What the
client itself knows is which call was refused:

* MQCONNX: the connection as a whole. Either the user or password is wrong (or missing where
  CONNAUTH's CHCKCLNT requires them), or the token was refused (AMQ5783E, AMQ5784E), or a
  CHLAUTH rule blocks the address or the user, or the user lacks connect authority on the
  queue manager. The client cannot tell these apart, so the hint names each with what shows
  it: the error log's message (AMQ5534E, AMQ5540E, AMQ9776E/AMQ9777E/AMQ9782E, AMQ8077W),
  DISPLAY CHLAUTH ... MATCH(RUNCHECK) and dspmqaut.
* MQOPEN (and MQSUB): the connection was admitted, so credentials and CHLAUTH passed; what
  is missing is authority on that object, and the open options say which authorities the
  call needed. The hint names the object, those authorities and the commands that grant them
  (setmqaut, and SET AUTHREC for runmqsc).

The embedded queue manager writes the same AMQ messages to its log (qmgr.log in its data
directory), naming the cause it found, as IBM MQ does in AMQERR01.LOG.
"""
from __future__ import annotations

import getpass
import re
import socket
from typing import Any

from spark_mq.mq.connecting import ConnectionOptions, options_of
from spark_mq.mq.exceptions import MQConnectorError, describe
from spark_mq.mqi.constants import CMQC

#: open option -> (setmqaut's name, SET AUTHREC's name) of the authority it needs
_QUEUE_AUTHORITIES = (
    (CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INPUT_EXCLUSIVE, "get", "GET"),
    (CMQC.MQOO_BROWSE, "browse", "BROWSE"),
    (CMQC.MQOO_OUTPUT, "put", "PUT"),
    (CMQC.MQOO_INQUIRE, "inq", "INQ"),
    (CMQC.MQOO_SET, "set", "SET"),
    (CMQC.MQOO_SET_IDENTITY_CONTEXT, "setid", "SETID"),
    (CMQC.MQOO_SET_ALL_CONTEXT, "setall", "SETALL"),
    (CMQC.MQOO_PASS_IDENTITY_CONTEXT, "passid", "PASSID"),
    (CMQC.MQOO_PASS_ALL_CONTEXT, "passall", "PASSALL"),
)
#: the object types of setmqaut (-t) and SET AUTHREC (OBJTYPE)
_OBJECT_TYPES = {"queue": ("queue", "QUEUE"), "topic": ("topic", "TOPIC")}
_LOGS = ("the queue manager's error log (IBM MQ: /var/mqm/qmgrs/{qm}/errors/AMQERR01.LOG; "
         "the embedded queue manager: qmgr.log in its data directory)")


def authorities(open_options: int, object_type: str = "queue") -> list[tuple[str, str]]:
    """(setmqaut, SET AUTHREC) names of the authorities an open with these options needs."""
    if object_type == "topic":   # an open of a topic publishes; MQSUB subscribes
        return [("pub", "PUB")] if open_options & CMQC.MQOO_OUTPUT else [("sub", "SUB")]
    return [(short, mqsc) for option, short, mqsc in _QUEUE_AUTHORITIES if open_options & option]


def principal(connection: ConnectionOptions | None) -> tuple[str, str]:
    """(the user to grant to, how the queue manager comes to run the connection as that user)."""
    if connection is not None and connection.user:
        return connection.user, "the 'user' option, adopted as with IBM's ADOPTCTX(YES)"
    if connection is not None and connection.token:
        return ("<the user the token's user claim names>",
                "the token's user claim (the AuthToken stanza's UserClaim), adopted as with "
                "IBM's ADOPTCTX(YES)")
    if connection is not None and connection.credentials_provider:
        # the provider is not called again for a hint: its user is named by where it comes from
        return (f"<the user {connection.credentials_provider} returns>",
                "the credentialsProvider's user, adopted as with IBM's ADOPTCTX(YES)")
    if connection is not None and connection.certificate_label:
        # only the queue manager knows which SSLPEERMAP rule the certificate met
        return (f"<the MCAUSER an SSLPEERMAP rule maps certificate "
                f"{connection.certificate_label!r} to>",
                "certificate-only: the CHLAUTH SSLPEERMAP rule's MCAUSER")
    try:
        own = getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name for this process
        own = "<user>"
    return own, "no 'user' option: the channel's MCAUSER, else this process's user"


def open_refused(exc: Any, qmgr: Any, name: str, open_options: int, action: str,
                 object_type: str = "queue") -> MQConnectorError:
    """describe(exc, action); for a 2035, with the authority the open lacked as its hint."""
    if getattr(exc, "reason", None) != CMQC.MQRC_NOT_AUTHORIZED:
        return describe(exc, action)
    connection = options_of(qmgr)
    return describe(exc, action, missing_authority_hint(connection, name, open_options,
                                                        object_type))


def missing_authority_hint(connection: ConnectionOptions | None, name: str, open_options: int,
                           object_type: str = "queue") -> str:
    qm = connection.queue_manager if connection is not None else "<queue manager>"
    user, how = principal(connection)
    needed = authorities(open_options, object_type) or [("connect", "CONNECT")]
    short = " ".join(f"+{s}" for s, _ in needed)
    mqsc = ",".join(m for _, m in needed)
    kind, objtype = _OBJECT_TYPES.get(object_type, ("queue", "QUEUE"))
    target, profile = f"{kind} {name!r}", name
    if object_type == "topic":   # authority is held on the topic object above the string
        target = f"the topic object that covers topic {name!r}"
        profile = "SYSTEM.BASE.TOPIC"
    return (f"the connection was admitted, so user {user!r} ({how}) lacks authority on "
            f"{target}: this call needs {short}; grant it with setmqaut -m {qm} -n '{profile}' "
            f"-t {kind} -p {user} {short} (runmqsc: SET AUTHREC PROFILE('{profile}') "
            f"OBJTYPE({objtype}) PRINCIPAL('{user}') AUTHADD({mqsc})); {_LOGS.format(qm=qm)} "
            f"names what was missing (AMQ8077W)")


def connect_refused_hint(connection: ConnectionOptions) -> str:
    """The causes of a 2035 at MQCONNX, each with how to check it."""
    qm, channel = connection.queue_manager, connection.channel
    user, _ = principal(connection)
    if connection.user:
        credentials = (f"(1) a wrong 'user' and 'password' (the error log shows AMQ5534E for "
                       f"user {user!r})")
    elif connection.token:
        credentials = ("(1) a token the queue manager refused: expired or not yet valid, not "
                       "signed by a key of its AuthToken stanza, for another audience, or "
                       "without the user claim it adopts (the error log shows AMQ5783E or "
                       "AMQ5784E with IBM's error code)")
    elif connection.certificate_label:
        credentials = (f"(1) no CHLAUTH TYPE(SSLPEERMAP) rule on channel '{channel}' that maps "
                       f"the DN of certificate {connection.certificate_label!r} to a user (runmqsc: "
                       f"DISPLAY CHLAUTH('{channel}') TYPE(SSLPEERMAP)), or CHCKCLNT(REQUIRED), "
                       "which wants a 'user' and 'password' besides the certificate")
    elif connection.credentials_provider:
        credentials = (f"(1) a wrong user or password from credentialsProvider "
                       f"{connection.credentials_provider!r} (the error log shows AMQ5534E "
                       "naming the user)")
    else:
        credentials = ("(1) no 'user' and 'password' where the queue manager requires them "
                       "(CONNAUTH CHCKCLNT(REQUIRED); the error log shows AMQ5540E): set them")
    address = _local_address(connection.conn_name)
    return (f"the queue manager refused the connection; the cause is one of: {credentials}; "
            f"(2) a CHLAUTH rule blocking this address or user (AMQ9776E, AMQ9777E or "
            f"AMQ9782E; runmqsc: DISPLAY CHLAUTH('{channel}') MATCH(RUNCHECK) "
            f"ADDRESS('{address}') CLNTUSER('{user}') shows the mapping rule that applies, "
            f"DISPLAY CHLAUTH('{channel}') TYPE(BLOCKUSER) the users blocked); (3) no "
            f"connect authority (AMQ8077W; dspmqaut -m {qm} -t qmgr -p {user}, granted by "
            f"setmqaut -m {qm} -t qmgr -p {user} +connect); {_LOGS.format(qm=qm)} says which")


def _local_address(conn_name: str | None) -> str:
    """The address this machine reaches the queue manager from, as CHLAUTH sees it (a UDP
    socket's connect sends nothing); a placeholder when it cannot be told."""
    match = re.match(r"\s*([^(,\s]+)\((\d+)\)", conn_name or "")
    if not match:
        return "<this machine's address>"
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect((match.group(1), int(match.group(2))))
            return str(probe.getsockname()[0])
    except OSError:
        return "<this machine's address>"
