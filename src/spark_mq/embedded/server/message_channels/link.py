"""The frames a sender and a receiver channel exchange, on the receiver's listener port
(wire.py's encoding; the sender's first frame takes the place of a client's CONN).

    sender                                           receiver
    ["CHL", channel, sender qmgr, BATCHSZ, PING?] -> [OK, 0, receiver qmgr, BATCHSZ agreed,
                                                      its sync record]  | [FAILED, reason, why]
    ["MSG", seq, xmit MsgId, data (MQXQH...),
            properties, in batch?]               -> (nothing)
    ["END", batch id, last seq]                  -> ["DONE", batch id] | [FAILED, reason, why]
    ["HB"]                                       -> ["HB"]              (idle channel alive?)
    ["BYE"]                                      -> (closes)            (DISCINT, STOP)

A frame that does not have this shape ends the channel (ProtocolError): nothing of an
unfinished batch is committed.
"""
from __future__ import annotations

import socket
import time

from spark_mq.embedded.wire import FrameReader, ProtocolError, frame

HELLO, MESSAGE, END, DONE, HEARTBEAT, BYE = "CHL", "MSG", "END", "DONE", "HB", "BYE"
#: a hello, like a client's first frame, is small and bounded before it is trusted
HELLO_SIGNATURE = (str, str, int, bool)


class ChannelRefused(Exception):
    """The partner answered the hello or a batch with a failure: (reason, why)."""

    def __init__(self, reason: int, why: str) -> None:
        super().__init__(f"MQ reason {reason}: {why}")
        self.reason = reason
        self.why = why


class Link:
    """One channel's socket: frames out, frames in with a deadline."""

    def __init__(self, sock: socket.socket, reader: FrameReader | None = None) -> None:
        self.sock = sock
        self.reader = reader or FrameReader(sock)

    def send(self, *values: object) -> None:
        self.sock.sendall(frame(list(values)))

    def receive(self, timeout: float | None) -> list:
        deadline = None if timeout is None else time.monotonic() + timeout
        value = self.reader.read(deadline)
        if not isinstance(value, list) or not value:
            raise ProtocolError("a channel frame must be a non-empty list")
        return value

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


def check_hello(args: list) -> tuple[str, str, int, bool]:
    if len(args) != len(HELLO_SIGNATURE) or not all(
            isinstance(value, kind) and not (kind is int and isinstance(value, bool))
            for value, kind in zip(args, HELLO_SIGNATURE)):
        raise ProtocolError("a channel hello is [CHL, channel, queue manager, BATCHSZ, ping]")
    return args[0], args[1], args[2], args[3]


def check_message(value: list) -> tuple[int, bytes, bytes, list | None, bool]:
    """["MSG", seq, MsgId, data, properties, in batch]."""
    if not (len(value) == 6 and type(value[1]) is int and isinstance(value[2], bytes)
            and len(value[2]) == 24 and isinstance(value[3], bytes)
            and (value[4] is None or isinstance(value[4], list)) and isinstance(value[5], bool)):
        raise ProtocolError("a channel message is [MSG, seq, MsgId, data, properties, in batch]")
    return value[1], value[2], value[3], value[4], value[5]
