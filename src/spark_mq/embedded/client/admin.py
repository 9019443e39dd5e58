"""Sending MQSC to a running embedded queue manager (the embedded `runmqsc`).

Runs in the application's process; server/admin.py applies the script in the queue manager.
"""
from __future__ import annotations

import socket

from spark_mq.embedded.wire import FrameReader, frame
from spark_mq.mqi.constants import CMQC, reason_name


def run_mqsc(host: str, port: int, text: str, user: str | None = None,
             password: str | None = None) -> tuple[bool, str]:
    """Run MQSC text; when the queue manager has users, user/password must be one of them
    (otherwise the answer is (False, "... 2035 MQRC_NOT_AUTHORIZED ..."))."""
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(frame(("MQSC", text, user or "", password or "")))
        reply = FrameReader(sock).read_reply()
    if reply[0] != CMQC.MQCC_OK:
        return False, f"MQSC refused: {reply[1]} {reason_name(reply[1])}"
    return bool(reply[2]), reply[3]
