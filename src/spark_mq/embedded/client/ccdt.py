"""Client channel definition tables (CCDT) in IBM's JSON format, and choosing among their channels.

Runs in the application's process, for MQCNO.CCDTUrl and the MQCCDTURL / MQCHLLIB+MQCHLTAB
environment variables (see connection.py for when each applies). The JSON format is IBM's:

    {"channel": [{"name": "DEV.APP.SVRCONN", "type": "clientConnection",
                  "clientConnection": {"connection": [{"host": "127.0.0.1", "port": 1414}],
                                       "queueManager": "QM1"},
                  "connectionManagement": {"clientWeight": 0, "affinity": "preferred"},
                  "transmissionSecurity": {"cipherSpecification": "ANY_TLS12_OR_HIGHER",
                                           "certificateLabel": "...",
                                           "certificatePeerName": "CN=QM1,O=..."}}]}

Only client-connection entries count. Their transmissionSecurity fields are the channel's
SSLCIPH, CERTLABL and SSLPEER (IBM's names in "Channel attributes supported by the JSON
CCDT"); client/tls.py applies them as it applies an MQCD's SSLCipherSpec, CertificateLabel
and SSLPeerName. The binary AMQCLCHL.TAB format that runmqsc writes is
not read: a table that is not JSON is refused like one that cannot be read.

Selection follows IBM's rules for MQCONN: the entries whose queue manager name (QMNAME) is the
name asked for, or the group after a leading `*`; a blank name or `*` alone asks for entries
with a blank QMNAME. Entries with weight 0 come first, in alphabetical channel-name order (file
order among equal names); the weighted ones follow in a random order biased by their weight.
Affinity (reusing the channel that worked last time in this process) is not modelled.
"""
from __future__ import annotations

import json
import os
import random
import urllib.parse
import urllib.request
from dataclasses import dataclass


class CCDTError(Exception):
    """The table cannot be read or is not a JSON CCDT (MQRC_CLIENT_CONN_ERROR)."""


@dataclass(frozen=True)
class ClientChannel:
    """One client-connection entry of a CCDT."""
    name: str
    queue_manager: str       # QMNAME: a queue manager's name or a group's
    conn_name: str           # host(port),host(port)...
    cipher_spec: str = ""         # SSLCIPH: the channel is reached over TLS when set
    weight: int = 0               # CLNTWGHT, 0 to 99
    certificate_label: str = ""   # CERTLABL: the client certificate this channel sends
    peer_name: str = ""           # SSLPEER: what the queue manager's certificate DN must match


def location_from_environment() -> str:
    """The CCDT the environment names: MQCCDTURL, else MQCHLLIB and MQCHLTAB (whose file
    name defaults to AMQCLCHL.TAB); "" when neither is set."""
    url = os.environ.get("MQCCDTURL", "").strip()
    if url:
        return url
    library = os.environ.get("MQCHLLIB", "").strip()
    table = os.environ.get("MQCHLTAB", "").strip()
    if not library and not table:
        return ""
    return os.path.join(library or ".", table or "AMQCLCHL.TAB")


def read(url: str, timeout: float = 10.0) -> list[ClientChannel]:
    """The client-connection channels of the CCDT at `url`: a file:// or http(s):// URL, or a
    plain path."""
    try:
        data = _fetch(url.strip(), timeout)
    except (OSError, ValueError) as exc:
        raise CCDTError(f"cannot read the CCDT {url}: {exc}") from None
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, ValueError):
        raise CCDTError(f"the CCDT {url} is not JSON (a binary CCDT cannot be read)") from None
    if not isinstance(document, dict) or not isinstance(document.get("channel"), list):
        raise CCDTError(f"the CCDT {url} has no \"channel\" array")
    return [channel for entry in document["channel"] if (channel := _channel(entry, url))]


def candidates(channels: list[ClientChannel], qm_name: str,
               rng: random.Random | None = None) -> list[ClientChannel]:
    """The entries an MQCONN for `qm_name` may use, in the order they are tried."""
    wanted = qm_name[1:] if qm_name.startswith("*") else qm_name
    matching = [channel for channel in channels if channel.queue_manager == wanted.strip()]
    first = sorted((c for c in matching if c.weight == 0), key=lambda c: c.name)  # stable
    weighted = [c for c in matching if c.weight > 0]
    rng = rng or random.Random()
    ordered = []
    while weighted:    # each pick is random in proportion to the weights left
        pick = rng.choices(range(len(weighted)), weights=[c.weight for c in weighted])[0]
        ordered.append(weighted.pop(pick))
    return first + ordered


def _fetch(url: str, timeout: float) -> bytes:
    parsed = urllib.parse.urlparse(url)
    if parsed.scheme in ("http", "https"):
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return bytes(response.read())
    if parsed.scheme == "file":
        path = urllib.request.url2pathname(parsed.path)
    elif parsed.scheme and len(parsed.scheme) > 1:   # a one-letter "scheme" is a Windows drive
        raise ValueError(f"unsupported URL scheme {parsed.scheme!r} (valid: file, http, https)")
    else:
        path = url
    with open(path, "rb") as handle:
        return handle.read()


def _channel(entry: object, url: str) -> ClientChannel | None:
    """One entry of the "channel" array; None for entries that are not client connections."""
    if not isinstance(entry, dict) or entry.get("type", "clientConnection") != "clientConnection":
        return None
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        raise CCDTError(f"the CCDT {url} has a channel without a name")
    client = entry.get("clientConnection") or {}
    connections = (client.get("connection") or []) if isinstance(client, dict) else None
    if not isinstance(client, dict) or not isinstance(connections, list):
        raise CCDTError(f"the CCDT {url}: channel {name} has a malformed \"clientConnection\"")
    endpoints = []
    for connection in connections:
        host = connection.get("host") if isinstance(connection, dict) else None
        port = connection.get("port", 1414) if isinstance(connection, dict) else None
        if not isinstance(host, str) or not isinstance(port, int):
            raise CCDTError(f"the CCDT {url}: channel {name} has a connection without host or "
                            "with a port that is not a number")
        endpoints.append(f"{host}({port})")
    management = entry.get("connectionManagement") or {}
    weight = management.get("clientWeight", 0) if isinstance(management, dict) else None
    if not isinstance(weight, int) or not 0 <= weight <= 99:
        raise CCDTError(f"the CCDT {url}: channel {name} has a clientWeight that is not 0 to 99")
    cipher, label, peer_name = _transmission_security(entry.get("transmissionSecurity"), name, url)
    return ClientChannel(name=name, queue_manager=str(client.get("queueManager") or "").strip(),
                         conn_name=",".join(endpoints), cipher_spec=cipher, weight=weight,
                         certificate_label=label, peer_name=peer_name)


#: the transmissionSecurity keys, in ClientChannel's order: SSLCIPH, CERTLABL, SSLPEER
_SECURITY_KEYS = ("cipherSpecification", "certificateLabel", "certificatePeerName")


def _transmission_security(security: object, name: str, url: str) -> tuple[str, str, str]:
    """A channel entry's transmissionSecurity: its CipherSpec, certificate label and peer
    name ("" for each that is absent)."""
    if security is None:
        security = {}
    values = [security.get(key, "") if isinstance(security, dict) else None for key in _SECURITY_KEYS]
    if not all(isinstance(value, str) for value in values):
        raise CCDTError(f"the CCDT {url}: channel {name} has a \"transmissionSecurity\" that is "
                        f"not an object of text values ({', '.join(_SECURITY_KEYS)})")
    cipher, label, peer_name = (str(value).strip() for value in values)
    return cipher, label, peer_name
