"""Connection options shared by the reader and the writer, parsed once from Spark's options."""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from spark_mq.errors import MQOptionError

TRANSPORTS = ("auto", "ibmmq", "embedded")
_CONN_NAME = re.compile(r"^\s*[^\s(),]+\(\d{1,5}\)\s*(,\s*[^\s(),]+\(\d{1,5}\)\s*)*$")


@dataclass(frozen=True)
class ConnectionOptions:
    queue_manager: str = "QM1"
    conn_name: str | None = None       # MQ syntax host(port)[,host(port)]
    channel: str = "DEV.APP.SVRCONN"
    user: str | None = None
    password: str | None = None
    transport: str = "auto"
    cipher_spec: str | None = None
    key_repository: str | None = None
    ccdt_url: str | None = None
    reconnect: bool = False

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> ConnectionOptions:
        """Spark passes options with lower-cased keys; read them case-insensitively."""
        opts = {k.lower(): v for k, v in options.items()}
        transport = opts.get("transport", "auto").lower()
        if transport not in TRANSPORTS:
            raise MQOptionError("transport", opts.get("transport"), " | ".join(TRANSPORTS))
        conn_name = opts.get("connname")
        if conn_name is not None and not _CONN_NAME.match(conn_name):
            raise MQOptionError("connName", conn_name,
                                "host(port), comma-separated for multi-instance, e.g. localhost(1414)")
        if conn_name is None and opts.get("ccdturl") is None:
            raise MQOptionError("connName", None,
                                "host(port) of the queue manager's listener, e.g. localhost(1414), "
                                "or a ccdtUrl")
        queue_manager = parse_name(opts, "queuemanager", "QM1", "queueManager")
        return cls(
            queue_manager=queue_manager,
            conn_name=conn_name.replace(" ", "") if conn_name else None,
            channel=opts.get("channel", "DEV.APP.SVRCONN"),
            user=opts.get("user"),
            password=opts.get("password"),
            transport=transport,
            cipher_spec=opts.get("cipherspec"),
            key_repository=opts.get("keyrepository"),
            ccdt_url=opts.get("ccdturl"),
            reconnect=parse_bool(opts, "reconnect", False),
        )


MQ_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")
MQ_NAME_RULE = "1 to 48 characters of A-Z a-z 0-9 . / _ %"


def parse_name(opts: Mapping[str, str], key: str, default: str | None, label: str,
               what: str = "") -> str | None:
    """An MQ object name (queue or queue manager), blanks around it ignored."""
    value = opts.get(key)
    if value is None:
        return default
    if not MQ_NAME.fullmatch(value.strip()):
        raise MQOptionError(label, value, f"{what}{MQ_NAME_RULE}")
    return value.strip()


def parse_bool(opts: Mapping[str, str], key: str, default: bool, label: str | None = None) -> bool:
    value = opts.get(key)
    if value is None:
        return default
    lowered = str(value).strip().lower()
    if lowered in ("true", "yes", "1"):
        return True
    if lowered in ("false", "no", "0"):
        return False
    raise MQOptionError(label or key, value, "true | false")


def parse_int(opts: Mapping[str, str], key: str, default: int | None, low: int, high: int,
              label: str | None = None) -> int | None:
    value = opts.get(key)
    if value is None:
        return default
    try:
        number = int(str(value).strip())
    except ValueError:
        number = None
    if number is None or not low <= number <= high:
        raise MQOptionError(label or key, value, f"an integer from {low} to {high}")
    return number


def parse_choice(opts: Mapping[str, str], key: str, default: str, choices: tuple[str, ...],
                 label: str | None = None) -> str:
    """Case-insensitive choice; returns the canonical spelling from `choices`."""
    value = opts.get(key)
    if value is None:
        return default
    for choice in choices:
        if str(value).strip().lower() == choice.lower():
            return choice
    raise MQOptionError(label or key, value, " | ".join(choices))
