"""The channel name in the TLS server name indication (SNI).

IBM MQ clients put the channel name in the SNI of their ClientHello, so that the queue
manager can present the channel's own certificate (CERTLABL on the channel) before any MQ
data flows. A channel name may hold characters a host name may not (`.`, `_`, `/`, `%`,
lower case, which host names fold), so each such character is written as two hex digits and
a `-`, and upper-case letters and digits as themselves in lower case; `.chl.mq.ibm.com`
follows, as in IBM's form. `-` never occurs in a channel name, so the encoding reads back.
"""
from __future__ import annotations

import re

SUFFIX = ".chl.mq.ibm.com"
_ESCAPE = re.compile(r"([0-9a-f]{2})-|(.)")


def to_server_name(channel: str) -> str:
    parts = [c.lower() if c.isascii() and (c.isupper() or c.isdigit()) else f"{ord(c):02x}-"
             for c in channel]
    return "".join(parts) + SUFFIX


def from_server_name(server_name: str | None) -> str | None:
    """The channel a server name carries; None when it carries none."""
    if not server_name or not server_name.endswith(SUFFIX):
        return None
    encoded = server_name[:-len(SUFFIX)]
    return "".join(chr(int(escaped, 16)) if escaped else plain.upper()
                   for escaped, plain in _ESCAPE.findall(encoded))
