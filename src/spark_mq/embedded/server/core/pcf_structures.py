"""PCF parameter structures as a queue manager writes them (runs in the queue-manager
process): MQCFIN, MQCFIN64, MQCFST, MQCFIL, MQCFSL and MQCFBS, in the machine's byte order
(MQENC_NATIVE), strings padded to a multiple of four bytes.

The command server's responses (admin/command_server/pcf.py, which also reads requests) and the
event messages (events/) are both made of them; this module imports nothing of the server,
so that the events, which the put and get paths call, need nothing of the command server.
"""
from __future__ import annotations

import struct
from collections.abc import Sequence

from spark_mq.mqi.constants import CMQC, CMQCFC


def _padded(value: bytes) -> bytes:
    return value + b"\0" * (-len(value) % 4)


def cfin(parameter: int, value: int) -> bytes:
    return struct.pack("=4i", CMQCFC.MQCFT_INTEGER, CMQCFC.MQCFIN_STRUC_LENGTH, parameter, value)


def cfst(parameter: int, value: str | bytes, length: int = 0) -> bytes:
    """An MQCFST; `length`: the fixed length MQ blank-pads this attribute to (0: as it is)."""
    raw = value.encode() if isinstance(value, str) else value
    if length:
        raw = raw[:length].ljust(length, b" ")
    data = _padded(raw)
    return struct.pack("=5i", CMQCFC.MQCFT_STRING, CMQCFC.MQCFST_STRUC_LENGTH_FIXED + len(data),
                       parameter, CMQC.MQCCSI_DEFAULT, len(raw)) + data


def cfil(parameter: int, values: Sequence[int]) -> bytes:
    return struct.pack(f"=4i{len(values)}i", CMQCFC.MQCFT_INTEGER_LIST,
                       CMQCFC.MQCFIL_STRUC_LENGTH_FIXED + 4 * len(values), parameter,
                       len(values), *values)


def cfsl(parameter: int, values: Sequence[str | bytes], length: int) -> bytes:
    """An MQCFSL: every string blank-padded to `length`, as MQ returns lists of names."""
    raws = [(v.encode() if isinstance(v, str) else v)[:length].ljust(length, b" ") for v in values]
    data = _padded(b"".join(raws))
    return struct.pack("=6i", CMQCFC.MQCFT_STRING_LIST,
                       CMQCFC.MQCFSL_STRUC_LENGTH_FIXED + len(data), parameter,
                       CMQC.MQCCSI_DEFAULT, len(raws), length) + data


def cfbs(parameter: int, value: bytes) -> bytes:
    data = _padded(value)
    return struct.pack("=4i", CMQCFC.MQCFT_BYTE_STRING,
                       CMQCFC.MQCFBS_STRUC_LENGTH_FIXED + len(data), parameter, len(value)) + data


def cfin64(parameter: int, value: int) -> bytes:
    return struct.pack("=3i4xq", CMQCFC.MQCFT_INTEGER64, CMQCFC.MQCFIN64_STRUC_LENGTH,
                       parameter, value)
