"""Id records: how the reader finds one delivered message again (to redeliver or remove it).

A record is 53 bytes: a tag, a 24-byte id, a 24-byte group id and a 4-byte sequence number.

    b"m" MsgId                        a plain message: get by MsgId
    b"g" (unused) GroupId MsgSeqNumber a message in a group or a segmented message: get the
                                      complete logical message by GroupId + MsgSeqNumber
    b"r" MsgId GroupId                a reference message (by MsgId) and its data message
                                      (by GroupId), see spark_mq.mq.message

A microbatch's records are stored in its Spark offset as base64(zlib(concatenation)):
MQ message ids share long prefixes, so they compress well.
"""
from __future__ import annotations

import base64
import struct
import zlib

from spark_mq.mq.message import NO_ID

RECORD_SIZE = 53
PLAIN, GROUPED, REFERENCE = b"m", b"g", b"r"
_SEQ = struct.Struct(">i")


def plain(msg_id: bytes) -> bytes:
    return PLAIN + msg_id + NO_ID + _SEQ.pack(0)


def grouped(group_id: bytes, seq: int) -> bytes:
    return GROUPED + NO_ID + group_id + _SEQ.pack(seq)


def reference(msg_id: bytes, data_group_id: bytes) -> bytes:
    return REFERENCE + msg_id + data_group_id + _SEQ.pack(1)


def parse(record: bytes) -> tuple[bytes, bytes, bytes, int]:
    """(tag, msg_id, group_id, seq) of one record."""
    return record[:1], record[1:25], record[25:49], _SEQ.unpack(record[49:53])[0]


def encode(records: list[bytes]) -> str:
    if not records:
        return ""
    return base64.b64encode(zlib.compress(b"".join(records), 6)).decode("ascii")


def decode(text: str) -> list[bytes]:
    if not text:
        return []
    raw = zlib.decompress(base64.b64decode(text))
    if len(raw) % RECORD_SIZE:
        raise ValueError(f"corrupt id records in the offset: {len(raw)} bytes is not a multiple "
                         f"of {RECORD_SIZE}")
    return [raw[i:i + RECORD_SIZE] for i in range(0, len(raw), RECORD_SIZE)]
