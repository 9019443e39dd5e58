"""The embedded transport's wire format: length-prefixed frames holding a small, safe value codec.

A frame is a 4-byte little-endian length followed by one encoded value (normally a tuple
whose first item is the verb). The codec knows None, bool, int (64-bit), float, str, bytes
and lists/tuples: nothing that can run code or build arbitrary objects, so a hostile peer
can at worst get its own connection closed (`ProtocolError`).
"""
from __future__ import annotations

import socket
import struct

MAX_FRAME = 256 * 1024 * 1024  # larger than any message MQ allows (100 MiB) plus headers
MAX_DEPTH = 16

_LEN = struct.Struct("<I")
_I64 = struct.Struct("<q")
_F64 = struct.Struct("<d")

_NONE, _TRUE, _FALSE, _INT, _FLOAT, _STR, _BYTES, _LIST = b"NTFidsbl"


class ProtocolError(Exception):
    """The peer sent something that is not a valid frame."""


def encode(value: object) -> bytes:
    out = bytearray()
    _encode_into(out, value, 0)
    return bytes(out)


def _encode_into(out: bytearray, value: object, depth: int) -> None:
    # bool before int: bool is a subclass of int
    if value is None:
        out.append(_NONE)
    elif value is True:
        out.append(_TRUE)
    elif value is False:
        out.append(_FALSE)
    elif isinstance(value, int):
        out.append(_INT)
        out += _I64.pack(value)
    elif isinstance(value, (bytes, bytearray, memoryview)):
        out.append(_BYTES)
        out += _LEN.pack(len(value))
        out += value
    elif isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")
        out.append(_STR)
        out += _LEN.pack(len(data))
        out += data
    elif isinstance(value, float):
        out.append(_FLOAT)
        out += _F64.pack(value)
    elif isinstance(value, (list, tuple)):
        if depth >= MAX_DEPTH:
            raise ProtocolError("value nested too deeply")
        out.append(_LIST)
        out += _LEN.pack(len(value))
        for item in value:
            _encode_into(out, item, depth + 1)
    else:
        raise TypeError(f"cannot encode {type(value).__name__}")


def decode(data: bytes) -> object:
    try:
        value, pos = _decode_at(memoryview(data), 0, 0)
    except (struct.error, IndexError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"malformed frame: {exc}") from None
    if pos != len(data):
        raise ProtocolError("trailing bytes after the frame's value")
    return value


def _decode_at(buf: memoryview, pos: int, depth: int) -> tuple[object, int]:
    tag = buf[pos]
    pos += 1
    if tag == _INT:
        return _I64.unpack_from(buf, pos)[0], pos + 8
    if tag == _BYTES or tag == _STR:
        (size,) = _LEN.unpack_from(buf, pos)
        pos += 4
        end = pos + size
        if end > len(buf):
            raise ProtocolError("length runs past the end of the frame")
        raw = bytes(buf[pos:end])
        return (raw if tag == _BYTES else raw.decode("utf-8", "surrogatepass")), end
    if tag == _LIST:
        if depth >= MAX_DEPTH:
            raise ProtocolError("value nested too deeply")
        (count,) = _LEN.unpack_from(buf, pos)
        pos += 4
        if count > len(buf) - pos:  # every item takes at least one byte
            raise ProtocolError("list count runs past the end of the frame")
        items = []
        for _ in range(count):
            item, pos = _decode_at(buf, pos, depth + 1)
            items.append(item)
        return items, pos
    if tag == _NONE:
        return None, pos
    if tag == _TRUE:
        return True, pos
    if tag == _FALSE:
        return False, pos
    if tag == _FLOAT:
        return _F64.unpack_from(buf, pos)[0], pos + 8
    raise ProtocolError(f"unknown value tag {tag!r}")


def frame(value: object) -> bytes:
    body = encode(value)
    return _LEN.pack(len(body)) + body


def recv_exact(sock: socket.socket, size: int) -> bytes:
    chunks = []
    remaining = size
    while remaining:
        chunk = sock.recv(min(remaining, 4 * 1024 * 1024))
        if not chunk:
            raise ConnectionError("connection closed by peer")
        chunks.append(chunk)
        remaining -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def recv_frame(sock: socket.socket) -> object:
    (size,) = _LEN.unpack(recv_exact(sock, 4))
    if size > MAX_FRAME:
        raise ProtocolError(f"frame of {size} bytes exceeds the limit of {MAX_FRAME}")
    return decode(recv_exact(sock, size))
