"""Server (SVR) and requester (RQSTR) channels in the forms IBM MQ describes (IBM docs,
"Channel combinations" / "Starting a channel": server-requester, requester-server,
requester-sender callback), reusing the sending and receiving agents (sender.py,
receiver.py) for everything once the messages flow: batches, sequence numbers, the books
and in-doubt resolution, dead letters, MCAUSER.

* Server-initiated: a SVR with CONNAME starts as a sender does (START CHANNEL, a trigger) and
  its partner, a RCVR or a RQSTR of the same name, receives it as a receiver does.
* Requester-initiated: START CHANNEL on a RQSTR connects to its CONNAME and asks
  [CHLR, channel, its queue manager] (the listener hands it to serving.py). The
  partner's channel of that name answers [OK, 0, its queue manager, SERVE | CALLBACK]:
  - a SVR (with or without CONNAME: one without can only be started this way) answers
    SERVE and runs its sending agent over this same connection: the sender's hello, then
    batches; the requester runs the receiving agent on it (receiver.serve), with every
    door a receiver has: CHLAUTH on the partner's name and address, MCAUSER, BLOCKUSER, a
    STOPPED or running channel refused. The server does not retry: the requester starts
    it again.
  - a SDR answers CALLBACK, closes, and starts as a sender to its own CONNAME; the
    requester receives that as a receiver does.
  The serving end admits the request as any inbound channel (serving.py). A requester
  that cannot reach or is refused by its partner is STOPPED (kept across a restart).
  A requester with SSLCIPH reaches its partner over TLS as a sender does (its queue manager's
  certificate, SSLPEER checked in the handshake), and its receiving agent checks that
  session as it would an inbound one (SSLCIPH, SSLPEER, SSLPEERMAP).
"""
from __future__ import annotations

import logging
import ssl
import threading
from typing import TYPE_CHECKING

from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core import channel_status as statuses
from spark_mq.embedded.server.core.outcomes import OK
from spark_mq.embedded.server.message_channels import link as frames
from spark_mq.embedded.server.message_channels import receiver, saved_status
from spark_mq.embedded.server.message_channels.sender import channel_tls, connect
from spark_mq.embedded.server.message_channels.serving import CALLBACK, SERVE
from spark_mq.embedded.server.network import tls
from spark_mq.embedded.tls import distinguished_names
from spark_mq.embedded.tls.outbound import ClientTls, TlsRefused
from spark_mq.embedded.wire import MAX_ELEMENTS, MAX_FRAME, ProtocolError

if TYPE_CHECKING:
    from spark_mq.embedded.server.verbs.qmgr import QueueManager

log = logging.getLogger("spark_mq.embedded")

_ANSWER_SECONDS = 30
_ACTIVE = frozenset({statuses.STARTING, statuses.BINDING, statuses.RUNNING, statuses.RETRYING,
                     statuses.PAUSED, statuses.STOPPING, statuses.REQUESTING})


# --- the requester's end ---------------------------------------------------------------------
def start_requester(qmgr: QueueManager, name: str, attrs: dict) -> None:
    """START CHANNEL on a RQSTR: ask the partner at CONNAME, in a thread of its own."""
    if not str(attrs.get("CONNAME", "")).strip():
        raise ValueError(f"START CHANNEL({name}): requester channel {name} has no CONNAME "
                         "(valid: the address of its server or sender)")
    table = statuses.table(qmgr)
    existing = table.get(name, channels.REQUESTER)
    if existing is not None and existing.status in _ACTIVE:
        raise ValueError(f"AMQ9514E: Channel {name} is in use.")
    status = statuses.ChannelStatus(name, channels.REQUESTER, conname=str(attrs["CONNAME"]),
                                    status=statuses.REQUESTING)
    table.put(status)
    threading.Thread(target=_request, args=(qmgr, name, str(attrs["CONNAME"]), status,
                                            channel_tls(qmgr, attrs)),
                     name=f"requester-{name}", daemon=True).start()


def _request(qmgr: QueueManager, name: str, conname: str, status: statuses.ChannelStatus,
             outbound_tls: tuple[ClientTls, str] | None) -> None:
    table = statuses.table(qmgr)
    try:
        link = connect(conname, name, outbound_tls)
    except (OSError, TlsRefused) as exc:
        _failed(qmgr, name, status, f"cannot reach {conname}: {exc}")
        return
    try:
        link.send(frames.REQUEST, name, qmgr.name)
        answer = link.receive(_ANSWER_SECONDS)
        if answer[0] != OK:
            why = answer[2] if len(answer) > 2 and isinstance(answer[2], str) else ""
            raise frames.ChannelRefused(int(answer[1]) if len(answer) > 1 else 0, why)
        if len(answer) != 4 or answer[3] not in (SERVE, CALLBACK):
            raise ProtocolError("a request's answer is [OK, 0, qmgr, SERVE | CALLBACK]")
        if answer[3] == CALLBACK:
            log.info("requester channel %s: sender %s at %s calls back", name, answer[2],
                     conname)
            table.remove(status)
            link.close()
            return
        hello = link.receive(_ANSWER_SECONDS)
        if hello[0] != frames.HELLO:
            raise ProtocolError("a server's first frame is its hello")
    except (OSError, ProtocolError, frames.ChannelRefused) as exc:
        link.close()
        _failed(qmgr, name, status, str(exc))
        return
    table.remove(status)     # the receiving agent keeps its own status from here
    try:
        receiver.serve(qmgr, link.sock, link.reader, hello[1:], conname, MAX_FRAME, MAX_ELEMENTS,
                       _session(link.sock, name))
    finally:
        link.close()


def _session(sock: object, channel: str) -> tls.TlsSession | None:
    """The outbound TLS session as the receiving agent's checks read an inbound one (its
    SSLCIPH against the suite, SSLPEER and SSLPEERMAP against the server's certificate)."""
    if not isinstance(sock, ssl.SSLSocket):
        return None
    certificate = sock.getpeercert()
    suite = sock.cipher()
    return tls.TlsSession(sock.version(), suite[0] if suite else None,
                          distinguished_names.from_certificate(certificate),
                          bool(certificate), channel,
                          distinguished_names.from_certificate(certificate, "issuer"))


def _failed(qmgr: QueueManager, name: str, status: statuses.ChannelStatus, why: str) -> None:
    log.error("requester channel %s STOPPED: %s", name, why)
    status.error, status.status = why, statuses.STOPPED
    saved_status.remember(qmgr, name, channels.REQUESTER, statuses.STOPPED)
