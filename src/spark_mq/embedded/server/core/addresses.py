"""Whether a listener's host is reachable only from this machine: the test every door of the
queue manager (its listener, its metrics endpoint) makes before it opens without users."""
from __future__ import annotations

import ipaddress
import socket


def is_loopback(host: str) -> bool:
    """True when every address `host` resolves to is a loopback address."""
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None)} if host else set()
    except OSError:
        return False
    return bool(addresses) and all(
        ipaddress.ip_address(str(address).split("%")[0]).is_loopback for address in addresses)
