"""What DISPLAY CHSTATUS shows: one status per running (or retrying, or stopped) channel
instance, kept while the queue manager runs. A restart starts with none but the STOPPED
ones (and RETRYING senders, which start again): message_channels/saved_status.py keeps
those, and the saved status (DISPLAY CHSTATUS SAVED), as IBM MQ does.

`display` gives IBM's fields (DISPLAY CHSTATUS, "current-only status" and "common status"):
the instance's traffic (BYTSSENT, BYTSRCVD, BUFSSENT, BUFSRCVD: frames on the link), its
SUBSTATE, STOPREQ, MCAUSER, and the values it runs with: BATCHSZ and MAXMSGL as agreed with
the partner at start, HBINT, NPMSPEED and SSLCIPH as this end's definition has them (our
channel hello does not carry them). SUBSTATE is what the agent is doing as far as its status
tells (MQGET: waiting on its transmission queue, SEND: sending a batch, RECEIVE: waiting for
the partner, MQPUT: a receiver putting a batch, NETCONNECT: binding), not IBM's every step.
`DEFAULT_FIELDS` are what runmqsc shows when no field is asked for."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from spark_mq.embedded.server.core.state import FeatureState, QueueManagerState

INACTIVE, BINDING, STARTING, RUNNING = "INACTIVE", "BINDING", "STARTING", "RUNNING"
STOPPING, RETRYING, STOPPED, PAUSED = "STOPPING", "RETRYING", "STOPPED", "PAUSED"
REQUESTING = "REQUESTING"             # a requester asking its partner (requester.py)


class Traffic:
    """What a channel instance moved: DISPLAY CHSTATUS's BYTSSENT, BYTSRCVD, BUFSSENT and
    BUFSRCVD (a buffer is one frame)."""

    def __init__(self) -> None:
        self.bytes_sent = self.bytes_received = self.buffers_sent = self.buffers_received = 0

    def sent(self, size: int) -> None:
        self.bytes_sent += size
        self.buffers_sent += 1

    def received(self, size: int) -> None:
        self.bytes_received += size
        self.buffers_received += 1

    def add(self, other: Traffic) -> None:
        if other is not self:
            self.bytes_sent += other.bytes_sent
            self.bytes_received += other.bytes_received
            self.buffers_sent += other.buffers_sent
            self.buffers_received += other.buffers_received



class _Carrier(Protocol):
    traffic: Traffic


#: what DISPLAY CHSTATUS shows without ALL or a list of fields (IBM docs, DISPLAY CHSTATUS:
#: CHANNEL, CHLTYPE, CONNAME, CURRENT, RQMNAME, STATUS, SUBSTATE and XMITQ are always shown)
DEFAULT_FIELDS = ("CONNAME", "CURRENT", "SAVED", "RQMNAME", "STATUS", "SUBSTATE", "XMITQ")


@dataclass
class ChannelStatus:
    name: str
    chltype: str                      # SDR, SVR, RCVR or RQSTR
    conname: str = ""
    xmitq: str = ""
    rqmname: str = ""                 # the partner queue manager, once known
    status: str = STARTING
    msgs: int = 0                     # messages moved since the channel started
    batches: int = 0
    current_msgs: int = 0             # in the batch not yet committed
    current_seq: int = 0              # last sequence number sent or received
    last_seq: int = 0                 # last committed
    last_batch: str = ""              # LSTLUWID
    current_batch: str = ""           # CURLUWID
    indoubt: bool = False
    batch_size: int = 0               # BATCHSZ agreed with the partner
    max_msg_length: int = 0           # MAXMSGL agreed with the partner
    last_msg_time: float | None = None
    started: float = field(default_factory=time.time)
    stop_requested: str | None = None   # STOPPED or INACTIVE: what STOP CHANNEL asked for
    error: str = ""                   # why the last attempt failed (for the log and DISPLAY)
    traffic: Traffic = field(default_factory=Traffic, repr=False)
    mcauser: str = ""                 # the user the agent's puts and gets run as
    definition: dict = field(default_factory=dict, repr=False)  # the channel as it started
    wake: threading.Event = field(default_factory=threading.Event, repr=False)
    closer: Callable[[], None] | None = field(default=None, repr=False)  # ends the agent's wait

    def committed(self, count: int, seq: int, batch: str) -> None:
        self.msgs += count
        self.batches += 1
        self.current_msgs = 0
        self.current_seq = self.last_seq = seq
        self.last_batch, self.current_batch = batch, ""
        self.indoubt = False
        if count:
            self.last_msg_time = time.time()

    def begin(self, link: _Carrier, definition: dict, mcauser: str) -> None:
        """A session starts on `link`: its frames (the hello's too) count as this
        instance's traffic."""
        self.traffic.add(link.traffic)
        link.traffic = self.traffic
        self.definition, self.mcauser = dict(definition), mcauser

    def substate(self) -> str:
        if self.status == BINDING:
            return "NETCONNECT"
        if self.status != RUNNING:
            return ""
        if self.chltype in ("RCVR", "RQSTR"):
            return "MQPUT" if self.current_msgs else "RECEIVE"
        if self.indoubt:
            return "RECEIVE"
        return "SEND" if self.current_batch else "MQGET"

    def display(self, xmitq_depth: int | None) -> dict[str, object]:
        """DISPLAY CHSTATUS's attributes, in MQSC words."""
        own = self.definition
        shown: dict[str, object] = {
            "CURRENT": True, "SUBSTATE": self.substate(),
            "STOPREQ": "YES" if self.stop_requested is not None else "NO",
            "BYTSSENT": self.traffic.bytes_sent, "BYTSRCVD": self.traffic.bytes_received,
            "BUFSSENT": self.traffic.buffers_sent, "BUFSRCVD": self.traffic.buffers_received,
            "MCAUSER": self.mcauser, "HBINT": own.get("HBINT", ""),
            "NPMSPEED": own.get("NPMSPEED", ""), "SSLCIPH": own.get("SSLCIPH", ""),
            "CHLTYPE": self.chltype, "STATUS": self.status, "CONNAME": self.conname,
            "RQMNAME": self.rqmname, "MSGS": self.msgs, "BATCHES": self.batches,
            "CURMSGS": self.current_msgs, "CURSEQNO": self.current_seq,
            "LSTSEQNO": self.last_seq, "CURLUWID": self.current_batch or "0" * 16,
            "LSTLUWID": self.last_batch or "0" * 16, "INDOUBT": "YES" if self.indoubt else "NO",
            "CHSTADA": time.strftime("%Y-%m-%d", time.localtime(self.started)),
            "CHSTATI": time.strftime("%H.%M.%S", time.localtime(self.started)),
            "LSTMSGDA": _date(self.last_msg_time), "LSTMSGTI": _time(self.last_msg_time),
            # the values agreed at start (IBM shows MAXMSGL on z/OS only; it is the one
            # that says why a message was dead-lettered with 2218)
            "BATCHSZ": self.batch_size, "MAXMSGL": self.max_msg_length,
        }
        if self.chltype in ("SDR", "SVR"):
            shown["XMITQ"] = self.xmitq
            shown["XQMSGSA"] = xmitq_depth if xmitq_depth is not None else 0
        return shown


def _date(stamp: float | None) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(stamp)) if stamp else ""


def _time(stamp: float | None) -> str:
    return time.strftime("%H.%M.%S", time.localtime(stamp)) if stamp else ""


class StatusTable:
    """One queue manager's channel statuses: (name, SDR|RCVR|..., instance) -> ChannelStatus.
    A channel has one instance here, except a cluster-receiver: every member of the cluster
    sends to the same CLUSRCVR, so it runs once for each sending queue manager (its
    instance: that queue manager's name), as on IBM MQ."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.statuses: dict[tuple[str, str, str], ChannelStatus] = {}

    @staticmethod
    def _key(status: ChannelStatus) -> tuple[str, str, str]:
        instance = status.rqmname if status.chltype == "CLUSRCVR" else ""
        return status.name, status.chltype, instance

    def get(self, name: str, chltype: str, instance: str = "") -> ChannelStatus | None:
        with self.lock:
            return self.statuses.get((name, chltype, instance))

    def put(self, status: ChannelStatus) -> None:
        with self.lock:
            self.statuses[self._key(status)] = status

    def remove(self, status: ChannelStatus) -> None:
        with self.lock:
            if self.statuses.get(self._key(status)) is status:
                del self.statuses[self._key(status)]

    def all(self) -> list[ChannelStatus]:
        with self.lock:
            return sorted(self.statuses.values(), key=lambda s: (s.name, s.chltype))


_STATUSES: FeatureState[StatusTable] = FeatureState("channel status", lambda qm: StatusTable())


def table(qm: QueueManagerState) -> StatusTable:
    return _STATUSES.of(qm)
