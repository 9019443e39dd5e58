"""The MQRFH2 codec: message properties carried in the message body.

`encode_rfh2` writes properties as an MQRFH2 version 2 (one NameValueData folder per RFH2
folder: mcd, jms, mqps, mqpse, mqext, usr), `decode_rfh2` reads one back, with the body's
Encoding, CodedCharSetId and Format. XML is handled by a small parser of exactly the
subset MQ writes in NameValueData; anything else fails with MQRC_RFH_ERROR.
"""
from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field
from typing import NamedTuple, cast

from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.properties._base import Property, PropertyError, PropertyValue, show
from spark_mq.mqi.properties._names import FOLDERS, location, name_at
from spark_mq.mqi.properties._values import INT_BITS, INT_TEXT, coerce_value, float_text

RFH2_STRUC_ID: bytes = CMQC.MQRFH_STRUC_ID  # b"RFH "
MQFMT_RF_HEADER_2: bytes = CMQC.MQFMT_RF_HEADER_2  # b"MQHRF2  "
NAME_VALUE_CCSID = 1208  # UTF-8: the CCSID this module writes NameValueData in

_T = CMQC  # short alias for the MQTYPE_* names below

_DT: dict[int, str] = {  # MQTYPE_STRING: no dt attribute
    _T.MQTYPE_BOOLEAN: "boolean", _T.MQTYPE_BYTE_STRING: "bin.hex", _T.MQTYPE_INT8: "i1",
    _T.MQTYPE_INT16: "i2", _T.MQTYPE_INT32: "i4", _T.MQTYPE_INT64: "i8",
    _T.MQTYPE_FLOAT32: "r4", _T.MQTYPE_FLOAT64: "r8"}
_TYPE_OF_DT: dict[str, int] = ({dt: t for t, dt in _DT.items()}
                               | {"string": _T.MQTYPE_STRING, "int": _T.MQTYPE_INT64})
# MQRFH2 fixed part: StrucId, Version, StrucLength, Encoding, CodedCharSetId, Format, Flags,
# NameValueCCSID (36 bytes); the byte-order character is added when packing.
_HEADER_FMT = "4s4i8s2i"
_HEADER_SIZE = struct.calcsize("<" + _HEADER_FMT)
_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&apos;", '"': "&quot;"}


def _escape(text: str) -> str:
    # Control characters become character references: raw ones are not XML and a NUL would
    # end the folder for readers (ibmmq's RFH2 stops at the first NUL).
    return "".join(_ESCAPES.get(ch) or (f"&#{ord(ch)};" if ord(ch) < 0x20 or ord(ch) == 0x7F else ch)
                   for ch in text)


def _element_text(prop: Property) -> str:
    """One property as `<a><b dt='i4'>5</b></a>`: each name component is an XML group."""
    folder_and_path = location(prop.name)
    assert folder_and_path is not None
    *groups, leaf = folder_and_path[1]
    if prop.type == CMQC.MQTYPE_NULL:
        attrs, body = " xsi:nil='true'", ""
    else:
        dt = _DT.get(prop.type)
        attrs = f" dt='{dt}'" if dt else ""
        if prop.type == CMQC.MQTYPE_STRING:
            body = _escape(cast(str, prop.value))
        elif prop.type == CMQC.MQTYPE_BYTE_STRING:
            body = cast(bytes, prop.value).hex().upper()
        elif prop.type == CMQC.MQTYPE_BOOLEAN:
            body = "1" if prop.value else "0"
        elif prop.type in INT_BITS:
            body = str(prop.value)
        else:
            body = float_text(cast(float, prop.value), prop.type)
    return ("".join(f"<{g}>" for g in groups) + f"<{leaf}{attrs}>{body}</{leaf}>"
            + "".join(f"</{g}>" for g in reversed(groups)))


def encode_rfh2(props: list[Property], encoding: int, ccsid: int, fmt: bytes | str,
                header_encoding: int | None = None) -> bytes:
    """An MQRFH2 (version 2) carrying `props`; Encoding/CodedCharSetId/Format describe the body
    that the caller appends after it (`fmt` as bytes, or as ASCII text). The header's own
    integers are in the byte order of `header_encoding` (the MQMD Encoding in front of it),
    native when None."""
    order = _byte_order(header_encoding)
    if isinstance(fmt, str):
        fmt = fmt.encode("ascii")
    if len(fmt) > 8:
        raise ValueError(f"format {fmt!r} is longer than 8 bytes")
    folders: dict[str, list[str]] = {f: [] for f in FOLDERS}
    for prop in props:
        loc = location(prop.name)
        if loc is not None:  # MQMD-only properties travel in the MQMD, not the RFH2
            folders[loc[0]].append(_element_text(prop))
    parts: list[bytes] = []
    for folder, elements in folders.items():
        if elements:
            data = f"<{folder}>{''.join(elements)}</{folder}>".encode()
            data += b" " * (-len(data) % 4)  # NameValueLength must be a multiple of 4
            parts.append(struct.pack(order + "i", len(data)) + data)
    body = b"".join(parts)
    header = struct.pack(order + _HEADER_FMT, RFH2_STRUC_ID, CMQC.MQRFH_VERSION_2,
                         _HEADER_SIZE + len(body), encoding, ccsid, fmt.ljust(8, b" "),
                         CMQC.MQRFH_NO_FLAGS, NAME_VALUE_CCSID)
    return header + body


def _byte_order(encoding: int | None) -> str:
    if encoding is None:
        return "="
    integers = encoding & CMQC.MQENC_INTEGER_MASK
    if integers == CMQC.MQENC_INTEGER_NORMAL:
        return ">"
    return "<" if integers == CMQC.MQENC_INTEGER_REVERSED else "="


def _rfh_error(why: str) -> PropertyError:
    return PropertyError(CMQC.MQRC_RFH_ERROR, f"MQRFH2 not valid: {why}")


# NameValueCCSIDs read; 0 (queue manager's CCSID) is taken as UTF-8, the embedded QM's choice.
_NV_CODECS: dict[int, str] = {0: "utf-8", 1208: "utf-8", 819: "latin-1", 1200: "utf-16", 13488: "utf-16",
              17584: "utf-16"}
_TAG = re.compile(r"<(/?)([^\s<>/=&'\"]+)((?:\s+[^\s<>/=]+\s*=\s*(?:'[^']*'|\"[^\"]*\"))*)\s*(/?)>")
_ATTR = re.compile(r"([^\s<>/=]+)\s*=\s*(?:'([^']*)'|\"([^\"]*)\")")
_ENTITY = re.compile(r"&(#[0-9]+|#x[0-9a-fA-F]+|lt|gt|amp|quot|apos);")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}


def _unescape(text: str) -> str:
    def ref(match: re.Match[str]) -> str:
        key = match.group(1)
        if key in _NAMED:
            return _NAMED[key]
        try:
            return chr(int(key[2:], 16) if key[1] == "x" else int(key[1:]))
        except (ValueError, OverflowError):
            raise _rfh_error(f"bad character reference &{key};") from None
    return _ENTITY.sub(ref, text)


class _Leaf(NamedTuple):
    """An element of an RFH2 folder that holds a value rather than other elements."""

    path: list[str]         # element names below the folder element
    attrs: dict[str, str]
    text: str               # still escaped


@dataclass
class _OpenElement:
    tag: str
    attrs: dict[str, str]
    chunks: list[str] = field(default_factory=list)     # its text so far
    has_children: bool = False


def _parse_folder(text: str) -> tuple[str, list[_Leaf]]:
    """Folder name and its leaf elements."""
    stack: list[_OpenElement] = []
    leaves: list[_Leaf] = []
    folder, pos = None, 0
    while pos < len(text):
        if text[pos] != "<":
            end = text.find("<", pos)
            end = len(text) if end < 0 else end
            if stack:
                stack[-1].chunks.append(text[pos:end])
            elif text[pos:end].strip():
                raise _rfh_error(f"text outside the folder element: {text[pos:end]!r}")
            pos = end
            continue
        match = _TAG.match(text, pos)
        if not match:
            raise _rfh_error(f"malformed tag at {text[pos:pos + 40]!r}")
        closing, tag, raw_attrs, empty = match.groups()
        pos = match.end()
        if closing:
            if raw_attrs or empty or not stack or stack[-1].tag != tag:
                raise _rfh_error(f"unexpected </{tag}>")
            closed = stack.pop()
            if closed.has_children:
                if "".join(closed.chunks).strip():
                    raise _rfh_error(f"<{closed.tag}> mixes text and elements")
            elif stack:
                leaves.append(_Leaf([f.tag for f in stack[1:]] + [closed.tag], closed.attrs,
                                    "".join(closed.chunks)))
            continue
        if folder is not None and not stack:
            raise _rfh_error("more than one element at the top of a folder")
        attrs = {m.group(1): _unescape(m.group(2) if m.group(2) is not None else m.group(3))
                 for m in _ATTR.finditer(raw_attrs)}
        if stack:
            stack[-1].has_children = True
        if folder is None:
            folder = tag
        if empty:
            if stack:
                leaves.append(_Leaf([f.tag for f in stack[1:]] + [tag], attrs, ""))
        else:
            stack.append(_OpenElement(tag, attrs))
    if folder is None or stack:
        raise _rfh_error(f"folder is empty or not closed: {text[:60]!r}")
    return folder, leaves


def _typed_value(path: list[str], attrs: dict[str, str], text: str) -> tuple[int, PropertyValue]:
    if attrs.get("xsi:nil") == "true":
        return CMQC.MQTYPE_NULL, None
    # Types MQ does not map (e.g. dt='date') are kept as their text, as MQINQMP returns them.
    type_ = _TYPE_OF_DT.get(attrs.get("dt", "string"), CMQC.MQTYPE_STRING)
    value = _unescape(text)
    if type_ == CMQC.MQTYPE_STRING:
        return type_, value
    try:
        if type_ == CMQC.MQTYPE_BYTE_STRING:
            return type_, bytes.fromhex(value)
        if type_ == CMQC.MQTYPE_BOOLEAN:
            word = value.strip().lower()
            if word not in ("1", "0", "true", "false"):
                raise ValueError(word)
            return type_, word in ("1", "true")
        if type_ in INT_BITS:
            if not INT_TEXT.fullmatch(value.strip()):
                raise ValueError(value)
            return type_, coerce_value(type_, int(value), 0)
        return type_, coerce_value(type_, float(value), 0)
    except (ValueError, PropertyError):
        raise _rfh_error(f"{'.'.join(path)}: {show(value)} is not a valid {attrs.get('dt')}") from None


class DecodedRFH2(NamedTuple):
    """What `decode_rfh2` returns: the properties, then the data after the MQRFH2 and the
    Encoding, CodedCharSetId and Format the MQRFH2 gives for that data."""

    properties: list[Property]
    rest: bytes
    encoding: int
    ccsid: int
    format: bytes


def decode_rfh2(data: bytes) -> DecodedRFH2:
    """Parse the MQRFH2 at the start of `data`: (properties, rest of the data, and the Encoding,
    CodedCharSetId and Format of that rest). Only the folders encode_rfh2 writes are read."""
    if len(data) < _HEADER_SIZE or data[:4] != RFH2_STRUC_ID:
        raise _rfh_error("no 'RFH ' structure at the start of the data")
    for order in "<>":  # the header is in the sender's byte order: the Version tells which
        fields = struct.unpack(order + _HEADER_FMT, data[:_HEADER_SIZE])
        if fields[1] == CMQC.MQRFH_VERSION_2:
            break
    else:
        raise _rfh_error("Version is not MQRFH_VERSION_2")
    _, _, struc_length, encoding, ccsid, fmt, _, nv_ccsid = fields
    if not _HEADER_SIZE <= struc_length <= len(data):
        raise _rfh_error(f"StrucLength {struc_length} outside {_HEADER_SIZE}..{len(data)}")
    codec = _NV_CODECS.get(nv_ccsid)
    if codec is None:
        raise _rfh_error(f"NameValueCCSID {nv_ccsid} not supported")
    if codec == "utf-16":
        codec += "-le" if order == "<" else "-be"
    found: dict[str, Property] = {}
    pos = _HEADER_SIZE
    while pos < struc_length:
        if pos + 4 > struc_length:
            raise _rfh_error("truncated NameValueLength")
        (length,) = struct.unpack(order + "i", data[pos:pos + 4])
        pos += 4
        if length < 0 or pos + length > struc_length:
            raise _rfh_error(f"NameValueLength {length} runs past StrucLength")
        try:
            text = data[pos:pos + length].decode(codec).rstrip(" \0")
        except UnicodeDecodeError:
            raise _rfh_error(f"NameValueData is not valid in CCSID {nv_ccsid}") from None
        pos += length
        if not text:
            continue
        folder, leaves = _parse_folder(text)
        if folder not in FOLDERS:
            continue  # e.g. psc/pscr command folders: not message properties
        for path, attrs, body in leaves:
            name = name_at(folder, path)
            found.pop(name, None)  # a repeated name: the later element wins
            found[name] = Property(name, *_typed_value(path, attrs, body))
    return DecodedRFH2(list(found.values()), data[struc_length:], encoding, ccsid, fmt)
