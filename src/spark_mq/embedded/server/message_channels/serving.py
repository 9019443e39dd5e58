"""The serving end of a requester's request (requester.py has the forms and the frames),
run on the listener's port (receiver.serve_request hands the request here): a SVR runs its
sending agent over the requester's connection, a SDR calls back its own CONNAME.

The request is admitted as any inbound channel: the channel must be a SVR or SDR here, TLS
as its SSLCIPH/SSLPEER ask (network/tls.py), not STOPPED (MQRC_CHANNEL_STOPPED_BY_USER) nor
in use (MQRC_CHANNEL_NOT_AVAILABLE), and CHLAUTH's BLOCKADDR, ADDRESSMAP/QMGRMAP and
BLOCKUSER (admission.admit_channel, on the requester's address and queue-manager name and
this end's definition).
"""
from __future__ import annotations

import logging
import re
import socket
from typing import TYPE_CHECKING

from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core import channel_status as statuses
from spark_mq.embedded.server.core.outcomes import FAILED, NONE, OK, MQError
from spark_mq.embedded.server.core.security import admission
from spark_mq.embedded.server.message_channels import link as frames
from spark_mq.embedded.server.message_channels.sender import SenderAgent
from spark_mq.embedded.server.network import tls
from spark_mq.embedded.wire import FrameReader
from spark_mq.mqi.constants import CMQC

if TYPE_CHECKING:
    from spark_mq.embedded.server.verbs.qmgr import QueueManager

log = logging.getLogger("spark_mq.embedded")

SERVE, CALLBACK = "SERVE", "CALLBACK"
_QMGR_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")
_ACTIVE = frozenset({statuses.STARTING, statuses.BINDING, statuses.RUNNING, statuses.RETRYING,
                     statuses.PAUSED, statuses.STOPPING, statuses.REQUESTING})


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
        _call_back(qmgr, channel, attrs)
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


def _call_back(qmgr: QueueManager, channel: str, attrs: dict) -> None:
    """The sender starts to its own CONNAME, as START CHANNEL would start it."""
    status = statuses.ChannelStatus(channel, channels.SENDER, conname=str(attrs["CONNAME"]),
                                    xmitq=str(attrs.get("XMITQ", "")))
    statuses.table(qmgr).put(status)
    SenderAgent(qmgr, channel, status).start()
