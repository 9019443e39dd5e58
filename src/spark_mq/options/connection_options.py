"""The connection options, which the reader, the writer and the jobs share.

A reader or a writer with queueManagers (several queue managers,
spark_mq/reader/queue_managers.py, spark_mq/writer.py) has no connName/queueManager: its
connection is the first queue manager listed, with the other connection options;
ReadOptions.queue_managers and WriteOptions.queue_managers hold one per queue manager."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from spark_mq.mq.connecting import RECONNECT_WITH_TOKEN, ConnectionOptions
from spark_mq.mq.exceptions import MQOptionError
from spark_mq.options import values
from spark_mq.options.spec import CONNECTION, lower_keys, of


def parse_connection(options: Mapping[str, Any]) -> ConnectionOptions:
    opts = lower_keys(options)
    found = {option.name: option.value(opts) for option in of(CONNECTION)}
    members = queue_managers(opts, found["ccdtUrl"])
    if members:
        found["queueManager"], found["connName"] = members[0]
    _check_reachable(found)
    _check_one_source_of_credentials(found)
    return ConnectionOptions(
        queue_manager=found["queueManager"], conn_name=found["connName"],
        channel=found["channel"], user=found["user"], password=found["password"],
        credentials_provider=found["credentialsProvider"], token=found["token"],
        transport=found["transport"], cipher_spec=found["cipherSpec"],
        key_repository=found["keyRepository"], certificate_label=found["certificateLabel"],
        ccdt_url=found["ccdtUrl"],
        reconnect=found["reconnect"], reconnect_timeout_ms=found["reconnectTimeoutMs"])


def queue_managers(opts: Mapping[str, Any], ccdt_url: str | None) -> tuple[tuple[str, str | None], ...]:
    """queueManagers (reader or writer) as (name, connName or None: from the CCDT), () without
    it."""
    if "queuemanagers" not in opts:
        return ()
    given = opts["queuemanagers"]
    beside = [name for name in ("connName", "queueManager") if name.lower() in opts]
    if beside:
        both = " and ".join(repr(name) for name in beside)
        raise MQOptionError("queueManagers", given,
                            f"no value beside {both}: queueManagers names every queue manager "
                            f"and its address; drop {both}, or drop 'queueManagers'")
    members = values.queue_managers("queueManagers", given)
    for name, address in members:
        if address is None and ccdt_url is None:
            raise MQOptionError("queueManagers", name,
                                f"{name}@host(port): no ccdtUrl gives {name} an address "
                                f"({values.QUEUE_MANAGERS_RULE})")
    return members


def _check_reachable(found: Mapping[str, Any]) -> None:
    """A queue manager to connect to: its listener, or a CCDT that names one."""
    if found["connName"] is None and found["ccdtUrl"] is None:
        raise MQOptionError("connName", None,
                            "host(port) of the queue manager's listener, e.g. localhost(1414), "
                            "or a ccdtUrl")


def _check_one_source_of_credentials(found: Mapping[str, Any]) -> None:
    """A provider returns the user and the password both: one given beside it would be
    silently ignored or silently win, so neither may be. A token takes the place of the user
    and password in the MQCSP (IBM's client ignores them beside one), so it goes with
    neither, nor with a provider; nor with `reconnect`, which IBM refuses with a token."""
    _check_token(found)
    if found["credentialsProvider"] is None:
        return
    given = [name for name in ("user", "password") if found[name] is not None]
    if given:
        raise MQOptionError("credentialsProvider", found["credentialsProvider"],
                            f"a provider or {' and '.join(repr(name) for name in given)}, not "
                            "both: the provider returns the user and the password; drop "
                            "'user' and 'password', or 'credentialsProvider'")


def _check_token(found: Mapping[str, Any]) -> None:
    if found["token"] is None:
        return
    hidden = "<not shown>"
    given = [name for name in ("user", "password", "credentialsProvider")
             if found[name] is not None]
    if given:
        raise MQOptionError("token", hidden,
                            f"a token or {' and '.join(repr(name) for name in given)}, not both: "
                            "the token takes the place of the user and password in the MQCSP; "
                            f"drop {' and '.join(repr(name) for name in given)}, or 'token'")
    if found["reconnect"]:
        raise MQOptionError("reconnect", True, RECONNECT_WITH_TOKEN)
