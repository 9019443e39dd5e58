"""Sending MQSC to a running embedded queue manager (the embedded `runmqsc`)."""
from __future__ import annotations

import socket

from .wire import frame, recv_frame


def run_mqsc(host: str, port: int, text: str) -> tuple[bool, str]:
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(frame(("MQSC", text)))
        reply = recv_frame(sock)
    return bool(reply[2]), reply[3]
