"""Sending MQSC to a running embedded queue manager (the embedded `runmqsc`).

Runs in the application's process; server/admin.py applies the script in the queue manager.
"""
from __future__ import annotations

import socket

from spark_mq.embedded.wire import FrameReader, frame
from spark_mq.mqi.constants import CMQC, reason_name


class MQSCRefused(Exception):
    """The queue manager refused the MQSC request itself (e.g. 2035 for a wrong password)."""

    def __init__(self, reason: int) -> None:
        super().__init__(f"MQSC refused: {reason} {reason_name(reason)}")
        self.reason = reason


def first_address(conn_name: str) -> tuple[str, int]:
    """(host, port) of the first entry of an MQ connection name 'host(port)[,host(port)]'."""
    first = conn_name.split(",")[0].strip()
    host, _, port = first.partition("(")
    return host, int(port.rstrip(")"))


def send_mqsc(host: str, port: int, text: str, user: str | None = None,
              password: str | None = None, timeout: float = 30.0) -> tuple[bool, str]:
    """(whether every command succeeded, runmqsc-style output); MQSCRefused when the queue
    manager refuses the request (when it has users, user/password must be one of them)."""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(frame(("MQSC", text, user or "", password or "")))
        reply = FrameReader(sock).read_reply()
    if reply[0] != CMQC.MQCC_OK:
        raise MQSCRefused(reply[1])
    return bool(reply[2]), reply[3]


def run_mqsc(host: str, port: int, text: str, user: str | None = None,
             password: str | None = None) -> tuple[bool, str]:
    """send_mqsc, with a refusal as (False, "MQSC refused: 2035 MQRC_NOT_AUTHORIZED")."""
    try:
        return send_mqsc(host, port, text, user, password)
    except MQSCRefused as exc:
        return False, str(exc)
