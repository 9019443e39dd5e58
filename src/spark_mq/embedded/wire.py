"""The embedded transport's wire format: length-prefixed frames holding a small, safe value codec.

Shared by both processes: client/ (in the application's process) sends requests and reads
answers, server/network/mqi_session.py (in the queue-manager process) does the opposite.

A frame is a 4-byte little-endian length followed by one encoded value (normally a tuple
whose first item is the verb). The codec knows None, bool, int (64-bit), float, str, bytes
and lists/tuples: nothing that can run code or build arbitrary objects, so a hostile peer
can at worst get its own connection closed (`ProtocolError`).

Bounds: a frame's length is checked before its body is read (`MAX_FRAME` by default; the
queue manager passes far smaller limits before a connection has authenticated, see
server/network/mqi_session.py), and its decode is bounded in nesting (`MAX_DEPTH`) and in the number of
values it holds (`max_elements`): a value costs the decoder some 60 bytes of Python objects
for as little as one byte on the wire, so bytes alone do not bound memory.

The verbs that carry messages (MQPUT, MQGET and their answers) also have fixed binary
layouts, told apart from the general codec by their first byte. They decode to exactly the
lists the general codec would give, so only the cost differs: a struct and two slices
instead of a walk over seven tagged values, on the path every message takes.
"""
from __future__ import annotations

import socket
import struct
import time

MAX_FRAME = 256 * 1024 * 1024  # larger than any message MQ allows (100 MiB) plus headers
MAX_DEPTH = 16
#: values one frame may hold (list items, nested ones included). Some 64 MiB of Python objects
#: at worst; a read-ahead batch of 500 messages with hundreds of properties each stays below.
MAX_ELEMENTS = 1 << 20

_LEN = struct.Struct("<I")
_I64 = struct.Struct("<q")
_F64 = struct.Struct("<d")

_NONE, _TRUE, _FALSE, _INT, _FLOAT, _STR, _BYTES, _LIST = b"NTFidsbl"

# --- fixed layouts of the hot frames (MQMD 364 bytes, MQGMO 112 bytes) ---------------------
MD_SIZE, GMO_SIZE = 364, 112
_PUT_REQ = struct.Struct("<cqiiB")      # b"P", hobj, options, context, asynchronous
_GET_REQ = struct.Struct("<cqiB")       # b"G", hobj, max_length, has_handle
_CC_RC = struct.Struct("<cii")          # b"r" / b"p" / b"g", CompCode, Reason
_GET_REPLY = struct.Struct("<ciiq")     # b"g", CompCode, Reason, total length
_BATCH = struct.Struct("<ciiI")         # b"n", CompCode, Reason, count
_ITEM = struct.Struct("<iiqI")          # CompCode, Reason, total length, data length
_P, _G, _R, _PR, _GR, _NR = b"PGrpgn"


def put_request(hobj: int, md: bytes, options: int, context: int, body: bytes,
                asynchronous: bool) -> bytes:
    """A framed PUT/PUTA without properties (decodes to [verb, hobj, md, options, context, None, body])."""
    head = _PUT_REQ.pack(b"P", hobj, options, context, asynchronous)
    return _LEN.pack(len(head) + len(md) + len(body)) + head + md + body


def get_request(hobj: int, md: bytes, gmo: bytes, max_length: int, has_handle: bool) -> bytes:
    """A framed GET (decodes to ["GET", hobj, md, gmo, max_length, has_handle])."""
    head = _GET_REQ.pack(b"G", hobj, max_length, has_handle)
    return _LEN.pack(len(head) + len(md) + len(gmo)) + head + md + gmo


def reply_frame(reply: list) -> bytes:
    """A framed answer [CompCode, Reason, outputs...], in a fixed layout when it has one."""
    count = len(reply)
    if count == 2 and type(reply[0]) is int and type(reply[1]) is int:
        return _LEN.pack(_CC_RC.size) + _CC_RC.pack(b"r", reply[0], reply[1])
    if count == 3 and type(reply[2]) is bytes and len(reply[2]) == MD_SIZE:  # PUT: the MD
        return _LEN.pack(_CC_RC.size + MD_SIZE) + _CC_RC.pack(b"p", reply[0], reply[1]) + reply[2]
    if (count == 7 and reply[6] is None and type(reply[2]) is bytes and len(reply[2]) == MD_SIZE
            and type(reply[3]) is bytes and len(reply[3]) == GMO_SIZE):  # GET without properties
        data = reply[4]
        head = _GET_REPLY.pack(b"g", reply[0], reply[1], reply[5])
        return _LEN.pack(len(head) + MD_SIZE + GMO_SIZE + len(data)) + head + reply[2] + reply[3] + data
    if count == 3 and type(reply[2]) is list and reply[2] and all(
            len(item) == 7 and item[6] is None and type(item[2]) is bytes and len(item[2]) == MD_SIZE
            and type(item[3]) is bytes and len(item[3]) == GMO_SIZE for item in reply[2]):
        return _batch_frame(reply)  # read-ahead batch without properties
    return frame(reply)


def _batch_frame(reply: list) -> bytes:
    items = reply[2]
    parts = [_BATCH.pack(b"n", reply[0], reply[1], len(items))]
    for cc, rc, md, gmo, data, total, _ in items:
        parts += (_ITEM.pack(cc, rc, total, len(data)), md, gmo, data)
    body = b"".join(parts)
    return _LEN.pack(len(body)) + body


def _decode_batch(buf: memoryview) -> list:
    _, cc, rc, count = _BATCH.unpack_from(buf)
    at = _BATCH.size
    items = []
    if count * (_ITEM.size + MD_SIZE + GMO_SIZE) > len(buf) - at:
        raise ProtocolError("batch count runs past the end of the frame")
    for _ in range(count):
        item_cc, item_rc, total, size = _ITEM.unpack_from(buf, at)
        at += _ITEM.size
        md_end = at + MD_SIZE
        gmo_end = md_end + GMO_SIZE
        data_end = gmo_end + size
        if data_end > len(buf):
            raise ProtocolError("batch item runs past the end of the frame")
        items.append([item_cc, item_rc, bytes(buf[at:md_end]), bytes(buf[md_end:gmo_end]),
                      bytes(buf[gmo_end:data_end]), total, None])
        at = data_end
    if at != len(buf):
        raise ProtocolError("trailing bytes after a batch")
    return [cc, rc, items]


def _decode_fixed(buf: memoryview, tag: int) -> list:
    size = len(buf)
    if tag == _R and size == _CC_RC.size:
        _, cc, rc = _CC_RC.unpack_from(buf)
        return [cc, rc]
    if tag == _PR and size == _CC_RC.size + MD_SIZE:
        _, cc, rc = _CC_RC.unpack_from(buf)
        return [cc, rc, bytes(buf[_CC_RC.size:])]
    if tag == _GR and size >= _GET_REPLY.size + MD_SIZE + GMO_SIZE:
        _, cc, rc, total = _GET_REPLY.unpack_from(buf)
        at = _GET_REPLY.size
        return [cc, rc, bytes(buf[at:at + MD_SIZE]), bytes(buf[at + MD_SIZE:at + MD_SIZE + GMO_SIZE]),
                bytes(buf[at + MD_SIZE + GMO_SIZE:]), total, None]
    if tag == _NR and size >= _BATCH.size:
        return _decode_batch(buf)
    if tag == _P and size >= _PUT_REQ.size + MD_SIZE:
        _, hobj, options, context, asynchronous = _PUT_REQ.unpack_from(buf)
        at = _PUT_REQ.size
        return ["PUTA" if asynchronous else "PUT", hobj, bytes(buf[at:at + MD_SIZE]), options,
                context, None, bytes(buf[at + MD_SIZE:])]
    if tag == _G and size == _GET_REQ.size + MD_SIZE + GMO_SIZE:
        _, hobj, max_length, has_handle = _GET_REQ.unpack_from(buf)
        at = _GET_REQ.size
        return ["GET", hobj, bytes(buf[at:at + MD_SIZE]), bytes(buf[at + MD_SIZE:]), max_length,
                bool(has_handle)]
    raise ProtocolError(f"fixed frame {chr(tag)!r} of {size} bytes has the wrong length")


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


def decode(data: bytes | bytearray | memoryview, max_elements: int = MAX_ELEMENTS) -> object:
    """The value a frame's body holds; ProtocolError for anything malformed or over the bounds."""
    buf = memoryview(data)
    if not len(buf):
        raise ProtocolError("empty frame")
    tag = buf[0]
    if tag in _FIXED_TAGS:
        try:
            return _decode_fixed(buf, tag)
        except struct.error as exc:
            raise ProtocolError(f"malformed frame: {exc}") from None
    try:
        value, pos = _decode_at(buf, 0, 0, [max_elements])
    except (struct.error, IndexError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"malformed frame: {exc}") from None
    if pos != len(data):
        raise ProtocolError("trailing bytes after the frame's value")
    return value


def _decode_at(buf: memoryview, pos: int, depth: int, budget: list[int]) -> tuple[object, int]:
    # budget: [values still allowed], shared by the whole walk (a list: one cell, no globals)
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
        budget[0] -= count
        if budget[0] < 0:
            raise ProtocolError("frame holds more values than allowed")
        items = []
        for _ in range(count):
            item, pos = _decode_at(buf, pos, depth + 1, budget)
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


_FIXED_TAGS = frozenset((_P, _G, _R, _PR, _GR, _NR))


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


class FrameReader:
    """Reads frames from a socket through one buffer: a small frame costs one recv, not two,
    and frames that arrive together (pipelined puts) cost one recv between them.

    `max_frame` and `max_elements` bound every frame read (the queue manager tightens them
    while a connection has not authenticated); a frame over `max_frame` is refused from its
    length alone, before any of its body is read."""

    _CHUNK = 64 * 1024  # below malloc's mmap threshold: a recv must not map and unmap memory
    _MAX_CHUNK = 4 * 1024 * 1024

    def __init__(self, sock: socket.socket, max_frame: int = MAX_FRAME,
                 max_elements: int = MAX_ELEMENTS):
        self.sock = sock
        self.buf = b""
        self.max_frame = max_frame
        self.max_elements = max_elements
        self.last_size = 0

    def buffered(self) -> bool:
        return bool(self.buf)

    def read(self, deadline: float | None = None) -> object:
        """The next frame's value. `deadline` (time.monotonic()): the whole frame must have
        arrived by then, else TimeoutError, however slowly its bytes trickle in."""
        buf = self.buf
        if len(buf) < 4:
            buf = self._fill(buf, 4, deadline)
        (size,) = _LEN.unpack_from(buf)
        if size > self.max_frame:
            raise ProtocolError(f"frame of {size} bytes exceeds the limit of {self.max_frame}")
        end = 4 + size
        if len(buf) < end:
            buf = self._fill(buf, end, deadline)
        self.buf = buf[end:]
        self.last_size = end   # what the frame took on the wire (a channel's BYTSRCVD)
        return decode(memoryview(buf)[4:end], self.max_elements)

    def read_reply(self) -> list:
        """The next frame as an answer, [CompCode, Reason, outputs...]: always a list."""
        reply = self.read()
        if not isinstance(reply, list):
            raise ProtocolError(f"an answer must be a list, not {type(reply).__name__}")
        return reply

    def _fill(self, buf: bytes, needed: int, deadline: float | None = None) -> bytes:
        chunks = [buf]
        have = len(buf)
        while have < needed:
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError("the frame did not arrive in time")
                self.sock.settimeout(remaining)
            chunk = self.sock.recv(min(max(needed - have, self._CHUNK), self._MAX_CHUNK))
            if not chunk:
                raise ConnectionError("connection closed by peer")
            chunks.append(chunk)
            have += len(chunk)
        return b"".join(chunks)
