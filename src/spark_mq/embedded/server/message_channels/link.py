"""The frames a sender and a receiver channel exchange, on the receiver's listener port
(wire.py's encoding; the sender's first frame takes the place of a client's CONN).

    sender                                           receiver
    ["CHL", channel, sender qmgr, BATCHSZ, PING?,
            reset seq (0: none), MAXMSGL]        -> [OK, 0, receiver qmgr, BATCHSZ agreed,
                                                      [LUWID, seq]: its sync record,
                                                      MAXMSGL agreed]
                                                    | [FAILED, reason, why]
    ["MSG", seq, xmit MsgId, data (MQXQH...),
            properties, in batch?]               -> (nothing: a batch's messages stream)
    ["END", batch id (LUWID), last seq]          -> ["DONE", batch id] | [FAILED, reason, why]
    ["HB"]                                       -> ["HB"]              (idle channel alive?)
    ["BYE"]                                      -> (closes)            (DISCINT, STOP)

The sender does not wait between a batch's messages: it writes their frames back to back
(several to a write, Link.stream) and waits only for the answer to the batch's END; the
receiver answers nothing before the END, and puts the batch under one unit of work that
it commits, with its sync record, once, at the END. Every frame is written before the
sender waits for anything (a get from an empty transmission queue, an answer), so a
NPMSPEED(FAST) message is never held back behind an idle queue.

A requester (requester.py) opens with ["CHLR", channel, its qmgr] instead and is answered
[OK, 0, qmgr, SERVE | CALLBACK] | [FAILED, reason, why]; after SERVE the server sends the
hello above on the same connection and the requester answers as a receiver.

A hello's reset seq is a RESET CHANNEL SEQNUM(n) on the sender, not yet told: the receiver
resets its record to n - 1 (the next message is number n) before it answers. Sequence
numbers run 1..SEQWRAP and wrap to 1; the receiver checks each against its record
(receiver.py). A frame that does not have its shape ends the channel (ProtocolError):
nothing of an unfinished batch is committed.

BATCHSZ and MAXMSGL are negotiated in the hello, as IBM MQ's channels do at start (IBM docs:
"Maximum message length (MAXMSGL)": "When a channel starts, the lower of the two numbers at
each end of the channel is taken"): each end offers its own limit (`own_max_msg_length`: the
channel's MAXMSGL, 0 meaning the queue manager's, and never more than the queue manager's)
and the receiver answers the lower. The limit is on the transmission message as it crosses
(MQXQH and data); the sender never sends a larger one (it dead-letters it with
MQRC_MSG_TOO_BIG_FOR_CHANNEL), and the receiver takes one as a broken rule.
"""
from __future__ import annotations

import socket
import time

from spark_mq.embedded.server.core.channel_status import Traffic
from spark_mq.embedded.server.core.trace import Trace
from spark_mq.embedded.server.message_channels.sync import valid_luwid
from spark_mq.embedded.wire import FrameReader, ProtocolError, frame
from spark_mq.embedded.wire_verbs import CHL, CHLR

# the hello is a verb of the listener's table (it arrives where a client's CONN would); the
# frames after it are the channel's own
HELLO = CHL.name
MESSAGE, END, DONE, HEARTBEAT, BYE = "MSG", "END", "DONE", "HB", "BYE"
REQUEST = CHLR.name            # a requester's first frame (requester.py)
MAX_BATCH_SIZE = 9999          # BATCHSZ's largest value
MAX_MSG_LENGTH = 104_857_600   # MAXMSGL's largest value (100 MB)
#: a batch's MSG frames go out in writes of about this size (Link.stream): one send per
#: message cost the sender a system call and the receiver a wake-up each
_STREAM_BYTES = 65_536


class ChannelRefused(Exception):
    """The partner answered the hello or a batch with a failure: (reason, why)."""

    def __init__(self, reason: int, why: str) -> None:
        super().__init__(f"MQ reason {reason}: {why}")
        self.reason = reason
        self.why = why


class Link:
    """One channel's socket: frames out, frames in with a deadline. `stream` queues a frame
    that needs no answer (a batch's messages) and sends the queue once it holds
    _STREAM_BYTES; `send` and `flush` send what is queued first, so frames always leave in
    order and nothing waits for an answer with its question still queued. Every flow passes
    `send`, `stream` or `receive`, so the communications trace (core/trace.py) sees each
    one, once `trace_as` names the channel."""

    trace: Trace | None = None
    channel = ""

    def __init__(self, sock: socket.socket, reader: FrameReader | None = None) -> None:
        self.sock = sock
        self.reader = reader or FrameReader(sock)
        self.queued: list[bytes] = []
        self.queued_bytes = 0
        self.traffic = Traffic()   # an agent hands it its status's, for DISPLAY CHSTATUS

    def trace_as(self, trace: Trace, channel: str, received: list | None = None) -> None:
        """Trace this link's flows as `channel`'s; `received`: a frame read before (the hello
        the listener took)."""
        self.trace, self.channel = trace, channel
        if received is not None and trace.on:
            trace.comms(channel, "in", received, len(frame(received)))

    def send(self, *values: object) -> None:
        self.queued.append(self._framed(values))
        self.flush()

    def stream(self, *values: object) -> None:
        data = self._framed(values)
        self.queued.append(data)
        self.queued_bytes += len(data)
        if self.queued_bytes >= _STREAM_BYTES:
            self.flush()

    def _framed(self, values: tuple[object, ...]) -> bytes:
        data = frame(list(values))
        if self.trace is not None and self.trace.on:
            self.trace.comms(self.channel, "out", list(values), len(data))
        self.traffic.sent(len(data))
        return data

    def flush(self) -> None:
        if self.queued:
            data = b"".join(self.queued)
            self.queued.clear()
            self.queued_bytes = 0
            self.sock.sendall(data)

    def receive(self, timeout: float | None) -> list:
        deadline = None if timeout is None else time.monotonic() + timeout
        value = self.reader.read(deadline)
        self.traffic.received(self.reader.last_size)
        if not isinstance(value, list) or not value:
            raise ProtocolError("a channel frame must be a non-empty list")
        if self.trace is not None and self.trace.on:   # its size again, only when tracing
            self.trace.comms(self.channel, "in", value, len(frame(value)))
        return value

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def cut(self) -> None:
        """End the link from another thread (STOP CHANNEL): a close alone neither wakes the
        agent's thread waiting in recv on it nor tells the partner anything (the waiting
        recv keeps the socket open), so a partner waiting for a batch's confirmation waited
        out its whole timeout; a shutdown does both at once."""
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:   # not connected any more
            pass
        self.close()


def check_hello(args: list) -> tuple[str, str, int, bool, int]:
    """(channel, sender queue manager, BATCHSZ, ping?, MAXMSGL) of a hello's arguments; its
    reset sequence number is `hello_reset`'s."""
    try:
        CHL.check(args)
    except ProtocolError:
        raise ProtocolError("a channel hello is [CHL, channel, queue manager, BATCHSZ, ping, "
                            "reset sequence number, MAXMSGL]") from None
    if not 1 <= args[2] <= MAX_BATCH_SIZE:
        raise ProtocolError(f"a channel hello's BATCHSZ is 1..{MAX_BATCH_SIZE}, not {args[2]}")
    if not 1 <= args[5] <= MAX_MSG_LENGTH:
        raise ProtocolError(f"a channel hello's MAXMSGL is 1..{MAX_MSG_LENGTH}, not {args[5]}")
    return args[0], args[1], args[2], args[3], args[5]


def own_max_msg_length(channel_limit: int, qmgr_limit: int) -> int:
    """The MAXMSGL this end offers: the channel's (0: the queue manager's), never more than
    the queue manager's MAXMSGL (which may have been lowered since the channel was
    defined)."""
    return min(channel_limit, qmgr_limit) if channel_limit else qmgr_limit


def hello_reset(args: list, seq_wrap: int) -> int:
    """The sequence number a checked hello asks the receiver to reset to (0: none)."""
    check_hello(args)
    reset = int(args[4])
    if reset and not 1 <= reset <= seq_wrap:
        raise ProtocolError(f"a channel hello's reset sequence number is 1..{seq_wrap} "
                            f"(SEQWRAP) or 0, not {reset}")
    return reset


def check_end(value: list) -> tuple[str, int]:
    """["END", batch id (LUWID: 16 hex digits, not all zero), last seq (>= 1)]."""
    if not (len(value) == 3 and valid_luwid(value[1]) and type(value[2]) is int
            and value[2] >= 1):
        raise ProtocolError("a batch end is [END, batch id (16 hex digits), last sequence "
                            "number]")
    return value[1], value[2]


def check_message(value: list) -> tuple[int, bytes, bytes, list | None, bool]:
    """["MSG", seq, MsgId, data, properties, in batch]."""
    if not (len(value) == 6 and type(value[1]) is int and isinstance(value[2], bytes)
            and len(value[2]) == 24 and isinstance(value[3], bytes)
            and (value[4] is None or isinstance(value[4], list)) and isinstance(value[5], bool)):
        raise ProtocolError("a channel message is [MSG, seq, MsgId, data, properties, in batch]")
    return value[1], value[2], value[3], value[4], value[5]
