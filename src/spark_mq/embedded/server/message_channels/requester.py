"""Server (SVR) and requester (RQSTR) channels in the forms IBM MQ describes (IBM docs,
"Channel combinations" / "Starting a channel": server-requester, requester-server,
requester-sender callback), reusing the sending and receiving agents (sender.py,
receiver.py) for everything once the messages flow: batches, sequence numbers, the books
and in-doubt resolution, dead letters, MCAUSER.

* Server-initiated: a SVR with CONNAME starts as a sender does (START CHANNEL, a trigger) and
  its partner, a RCVR or a RQSTR of the same name, receives it as a receiver does.
* Requester-initiated: START CHANNEL on a RQSTR connects to its CONNAME and asks
  [CHLR, channel, its queue manager] (the listener hands it to `serve_request`). The
  partner's channel of that name answers [OK, 0, its queue manager, SERVE | CALLBACK]:
  - a SVR (with or without CONNAME: one without can only be started this way) answers
    SERVE and runs its sending agent over this same connection: the sender's hello, then
    batches; the requester runs the receiving agent on it (receiver.serve), with every
    door a receiver has: CHLAUTH on the partner's name and address, MCAUSER, BLOCKUSER, a
    STOPPED or running channel refused. The server does not retry: the requester starts
    it again.
  - a SDR answers CALLBACK, closes, and starts as a sender to its own CONNAME; the
    requester receives that as a receiver does.
  The serving end admits the request as it would admit a sender (admission.admit_channel on
  its own definition: BLOCKADDR, ADDRESSMAP/QMGRMAP, BLOCKUSER) and checks TLS with its
  SSLCIPH/SSLPEER as for any inbound channel; it refuses a STOPPED channel
  (MQRC_CHANNEL_STOPPED_BY_USER) and one in use (MQRC_CHANNEL_NOT_AVAILABLE). A requester
  that cannot reach or is refused by its partner is STOPPED (kept across a restart).
  A requester with SSLCIPH is refused at START (not modelled: its receiving agent would need
  the outbound TLS session's identity).
"""
from __future__ import annotations

import logging
import re
import socket
import threading
from typing import TYPE_CHECKING

from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core import channel_status as statuses
from spark_mq.embedded.server.core.outcomes import FAILED, NONE, OK, MQError
from spark_mq.embedded.server.core.security import admission
from spark_mq.embedded.server.message_channels import link as frames
from spark_mq.embedded.server.message_channels import receiver, saved_status
from spark_mq.embedded.server.message_channels.sender import SenderAgent, connect
from spark_mq.embedded.server.network import tls
from spark_mq.embedded.wire import MAX_ELEMENTS, MAX_FRAME, FrameReader, ProtocolError
from spark_mq.mqi.constants import CMQC

if TYPE_CHECKING:
    from spark_mq.embedded.server.verbs.qmgr import QueueManager

log = logging.getLogger("spark_mq.embedded")

SERVE, CALLBACK = "SERVE", "CALLBACK"
_ANSWER_SECONDS = 30
_QMGR_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")
_ACTIVE = frozenset({statuses.STARTING, statuses.BINDING, statuses.RUNNING, statuses.RETRYING,
                     statuses.PAUSED, statuses.STOPPING, statuses.REQUESTING})


# --- the requester's end ---------------------------------------------------------------------
def start_requester(qmgr: QueueManager, name: str, attrs: dict) -> None:
    """START CHANNEL on a RQSTR: ask the partner at CONNAME, in a thread of its own."""
    if not str(attrs.get("CONNAME", "")).strip():
        raise ValueError(f"START CHANNEL({name}): requester channel {name} has no CONNAME "
                         "(valid: the address of its server or sender)")
    if str(attrs.get("SSLCIPH", "")).strip():
        raise ValueError(f"START CHANNEL({name}): a requester with SSLCIPH is not supported "
                         "here (valid: a RQSTR without SSLCIPH)")
    table = statuses.table(qmgr)
    existing = table.get(name, channels.REQUESTER)
    if existing is not None and existing.status in _ACTIVE:
        raise ValueError(f"AMQ9514E: Channel {name} is in use.")
    status = statuses.ChannelStatus(name, channels.REQUESTER, conname=str(attrs["CONNAME"]),
                                    status=statuses.REQUESTING)
    table.put(status)
    threading.Thread(target=_request, args=(qmgr, name, str(attrs["CONNAME"]), status),
                     name=f"requester-{name}", daemon=True).start()


def _request(qmgr: QueueManager, name: str, conname: str, status: statuses.ChannelStatus) -> None:
    table = statuses.table(qmgr)
    try:
        link = connect(conname, name, None)
    except OSError as exc:
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
        receiver.serve(qmgr, link.sock, link.reader, hello[1:], conname, MAX_FRAME, MAX_ELEMENTS)
    finally:
        link.close()


def _failed(qmgr: QueueManager, name: str, status: statuses.ChannelStatus, why: str) -> None:
    log.error("requester channel %s STOPPED: %s", name, why)
    status.error, status.status = why, statuses.STOPPED
    saved_status.remember(qmgr, name, channels.REQUESTER, statuses.STOPPED)


# --- the serving end (on the listener's port) ------------------------------------------------
def serve_request(qmgr: QueueManager, sock: socket.socket, reader: FrameReader, args: list,
                  peer: str, tls_session: tls.TlsSession | None = None) -> None:
    """A requester asks for channel args[0]: serve it (SVR) or call it back (SDR)."""
    channel, partner = args
    link = frames.Link(sock, reader)
    attrs = channels.table(qmgr).channels.get(channel)
    refusal = _refusal(qmgr, channel, partner, attrs, peer, tls_session)
    if refusal is not None:
        log.warning("channel %s refused the requester from %s (queue manager %s): %s",
                    channel, peer, partner, refusal[1])
        link.send(FAILED, *refusal)
        return
    assert attrs is not None
    if attrs["CHLTYPE"] == channels.SENDER:
        link.send(OK, NONE, qmgr.name, CALLBACK)
        link.close()
        from spark_mq.embedded.server.message_channels.initiator import initiator_of
        with qmgr.lock:
            initiator_of(qmgr).start_channel(channel)
        log.info("sender channel %s calls back requester %s at its CONNAME", channel, partner)
        return
    link.send(OK, NONE, qmgr.name, SERVE)
    status = statuses.ChannelStatus(channel, channels.SERVER, conname=peer,
                                    xmitq=str(attrs.get("XMITQ", "")))
    statuses.table(qmgr).put(status)
    log.info("server channel %s started by requester %s at %s", channel, partner, peer)
    SenderAgent(qmgr, channel, status).serve(link)


def _refusal(qmgr: QueueManager, channel: str, partner: str, attrs: dict | None, peer: str,
             tls_session: tls.TlsSession | None) -> tuple[int, str] | None:
    """(reason, why) a request for `channel` is refused, or None."""
    if attrs is None or attrs.get("CHLTYPE") not in channels.SENDING:
        return (CMQC.MQRC_UNKNOWN_CHANNEL_NAME,
                f"no server or sender channel {channel} is defined on {qmgr.name}")
    if not _QMGR_NAME.fullmatch(partner):
        return (CMQC.MQRC_Q_MGR_NAME_ERROR, "the requester's queue-manager name is not valid "
                "(1 to 48 of A-Z a-z 0-9 . _ / %)")
    refused = tls.check_channel(qmgr, channel, tls_session, peer)
    if refused is not None:
        return refused, f"channel {channel} refused the requester's TLS session (see its log)"
    if attrs["CHLTYPE"] == channels.SENDER and not str(attrs.get("CONNAME", "")).strip():
        return (CMQC.MQRC_CHANNEL_CONFIG_ERROR,
                f"sender channel {channel} has no CONNAME to call back")
    existing = statuses.table(qmgr).get(channel, str(attrs["CHLTYPE"]))
    if existing is not None and existing.status == statuses.STOPPED:
        return (CMQC.MQRC_CHANNEL_STOPPED_BY_USER,
                f"channel {channel} on {qmgr.name} is STOPPED (START CHANNEL it)")
    if existing is not None and existing.status in _ACTIVE:
        return CMQC.MQRC_CHANNEL_NOT_AVAILABLE, f"channel {channel} is in use"
    try:
        with qmgr.lock:
            admission.admit_channel(qmgr, channel, peer.rpartition("(")[0], attrs, partner,
                                    tls_session.peer_dn if tls_session else None,
                                    tls_session.issuer_dn if tls_session else None)
    except MQError as exc:
        return exc.reason, f"channel {channel} refused this requester"
    return None
