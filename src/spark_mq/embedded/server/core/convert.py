"""MQGMO_CONVERT: the queue manager's conversion of a message's data on MQGET.

IBM MQ's "Conversion processing" (q104070_), for the built-in formats a Python or JMS
application meets: MQFMT_STRING text, and the header chain MQRFH2, MQRFH, MQDLH, MQXQH (with
its MQMD version 1) and MQMDE. A header's integers follow the requested Encoding (its integer
part picks the byte order), its MQCHAR fields the requested CCSID; the part after it is
converted per the header's own Format, CodedCharSetId and Encoding, which then name the
requested values. MQRFH2 NameValueData stays in its NameValueCCSID (q099320_).

A part that cannot be converted is left as it is, with the reason; the parts before it are
converted and every header's CodedCharSetId/Encoding still describe the part after it, as
MQ does for a multi-part message (2119 MQRC_NOT_CONVERTED, q041800_). The MD then names the
message's own CCSID/Encoding only when the first part failed.

Truncation, segments and the message leaving the queue are get.py's: this module only turns
bytes into bytes.
"""
from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

from spark_mq.embedded.server.core.state import QMGR_CCSID
from spark_mq.mqi import codepages
from spark_mq.mqi.codepages import CodePage, ConversionError
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import DLH, MD1, MDE, RFH1, RFH2, XQH, Layout

NONE = CMQC.MQRC_NONE
_ORDERS = {CMQC.MQENC_INTEGER_NORMAL: ">", CMQC.MQENC_INTEGER_REVERSED: "<"}
# the Unicode CCSIDs whose byte order follows the Encoding (see codepages.py): the same CCSID
# in another Encoding is still a conversion for them
_BYTE_ORDER_CCSIDS = frozenset({1200, 13488, 17584})
_MD1_CHARS = ("StrucId", "Format", "ReplyToQ", "ReplyToQMgr", "UserIdentifier",
              "ApplIdentityData", "PutApplName", "PutDate", "PutTime", "ApplOriginData")


@dataclass(frozen=True)
class Converted:
    """What MQGET returns for the data: the bytes, the reason (MQRC_NONE or the conversion's
    warning), and the CodedCharSetId and Encoding the MD reports for them."""

    data: bytes
    reason: int
    ccsid: int
    encoding: int


def convert_message(data: bytes, fmt: bytes, ccsid: int, encoding: int,
                    wanted_ccsid: int, wanted_encoding: int) -> Converted:
    """The message's data (Format `fmt`, in `ccsid`/`encoding`) in the CCSID and Encoding the
    getter's MD asks for (MQCCSI_Q_MGR: the queue manager's)."""
    if wanted_ccsid == CMQC.MQCCSI_Q_MGR:
        wanted_ccsid = QMGR_CCSID
    if not data or (ccsid == wanted_ccsid and encoding == wanted_encoding):
        return Converted(data, NONE, ccsid, encoding)
    out, reason = _part(fmt, data, ccsid, encoding, wanted_ccsid, wanted_encoding)
    if out is data and reason:
        return Converted(data, reason, ccsid, encoding)
    return Converted(out, reason, wanted_ccsid, wanted_encoding)


#: headers in one chain MQGMO_CONVERT follows; a hostile chain of thousands would otherwise
#: exhaust the stack (each header converts what follows it), so past this it is not converted
MAX_HEADERS = 100


def _part(fmt: bytes, data: bytes, ccsid: int, encoding: int, wanted_ccsid: int,
          wanted_encoding: int, depth: int = 0) -> tuple[bytes, int]:
    """One part of the message and what follows it: (converted bytes, reason). On failure the
    bytes returned are `data` itself, unconverted."""
    if ccsid == CMQC.MQCCSI_Q_MGR:  # a header's "as the queue manager"
        ccsid = QMGR_CCSID
    header = _HEADERS.get(fmt)
    if header is not None and depth >= MAX_HEADERS:
        return data, CMQC.MQRC_NOT_CONVERTED
    if not data or (header is None and ccsid == wanted_ccsid and encoding == wanted_encoding):
        return data, NONE
    if header is None and fmt != CMQC.MQFMT_STRING:
        return data, CMQC.MQRC_FORMAT_ERROR  # MQFMT_NONE, or a format only an exit knows
    try:
        if header is None:
            return _string(data, ccsid, encoding, wanted_ccsid, wanted_encoding), NONE
        return header.convert(data, ccsid, encoding, wanted_ccsid, wanted_encoding, depth)
    except ConversionError as exc:
        return data, exc.reason


def _string(data: bytes, ccsid: int, encoding: int, wanted_ccsid: int, wanted_encoding: int) -> bytes:
    if ccsid == wanted_ccsid and (ccsid not in _BYTE_ORDER_CCSIDS
                                  or _order(encoding, 0) == _order(wanted_encoding, 0)):
        return data
    return codepages.convert(data, ccsid, encoding, wanted_ccsid, wanted_encoding)


def _order(encoding: int, reason: int) -> str:
    order = _ORDERS.get(encoding & CMQC.MQENC_INTEGER_MASK)
    if order is None:
        if not reason:
            return "?"
        raise ConversionError(reason, f"Encoding {encoding} has no known integer byte order")
    return order


def _header_page(ccsid: int, reason: int) -> CodePage:
    """A code page a header's MQCHAR fields can be in: one byte per blank, as MQ requires of
    the CCSIDs its headers are converted to (UTF-16 is refused)."""
    page = codepages.code_page(ccsid)
    if page is None or len(page.encode(" ")) != 1:
        raise ConversionError(reason, f"no single-byte conversion table for CCSID {ccsid}")
    return page


def _chars(raw: bytes, source: CodePage, target: CodePage) -> bytes:
    """An MQCHAR field in the target code page, blank padded to its length again."""
    try:
        out = target.encode(source.decode(raw).rstrip(" "))
    except (UnicodeDecodeError, UnicodeEncodeError):
        raise ConversionError(CMQC.MQRC_NOT_CONVERTED, f"MQCHAR field {raw!r} not convertible") from None
    if len(out) > len(raw):  # no trailing blanks left to absorb the growth
        raise ConversionError(CMQC.MQRC_CONVERTED_STRING_TOO_BIG, f"MQCHAR field {raw!r} grew")
    return out + target.encode(" ") * (len(raw) - len(out))


def _format_name(raw: bytes, source: CodePage) -> bytes:
    """A header's Format as the MQFMT_* constants spell it (ASCII)."""
    try:
        return source.decode(raw).encode("ascii")
    except (UnicodeDecodeError, UnicodeEncodeError):
        return b""


def _malformed(what: str) -> ConversionError:
    # MQ: "the message contains data that is not consistent with the format definition"
    return ConversionError(CMQC.MQRC_FORMAT_ERROR, what)


#: converts the bytes between a header's fixed part and its StrucLength:
#: (bytes, source order, target order, source page, target page, header fields) -> bytes
VariablePart = Callable[[bytes, str, str, CodePage, CodePage, dict], bytes]


@dataclass(frozen=True)
class _Header:
    """One built-in header format: its layout and which of its fields are what."""

    struc_id: str
    layout: Layout
    chars: tuple[str, ...]                     # MQCHAR fields, converted to the target CCSID
    next_fields: tuple[str, str, str]          # Encoding, CodedCharSetId, Format of what follows
    length_field: str | None = None            # StrucLength, when the header has a variable part
    variable: VariablePart | None = None

    def convert(self, data: bytes, ccsid: int, encoding: int, wanted_ccsid: int,
                wanted_encoding: int, depth: int = 0) -> tuple[bytes, int]:
        source_order = _order(encoding, CMQC.MQRC_SOURCE_INTEGER_ENC_ERROR)
        target_order = _order(wanted_encoding, CMQC.MQRC_TARGET_INTEGER_ENC_ERROR)
        source = _header_page(ccsid, CMQC.MQRC_SOURCE_CCSID_ERROR)
        target = _header_page(wanted_ccsid, CMQC.MQRC_TARGET_CCSID_ERROR)
        fixed = self.layout.size
        if len(data) < fixed:
            raise _malformed(f"{len(data)} bytes cannot hold a {self.struc_id.strip()} header")
        fmt = self.layout.struct.format
        fields = dict(zip(self.layout.names, struct.unpack_from(source_order + fmt, data)))
        if _format_name(fields["StrucId"], source) != self.struc_id.encode():
            raise _malformed(f"no {self.struc_id!r} at the start of the data")
        length = fixed
        if self.length_field is not None:
            length = fields[self.length_field]
            if not fixed <= length <= len(data):
                raise _malformed(f"{self.length_field} {length} outside {fixed}..{len(data)}")
        variable = data[fixed:length]
        if self.variable is not None:
            variable = self.variable(variable, source_order, target_order, source, target, fields)
            if self.length_field is not None:
                fields[self.length_field] = fixed + len(variable)
        rest, reason = self._rest(data[length:], fields, source, ccsid, wanted_ccsid, wanted_encoding,
                                  depth)
        for name in self.chars:
            fields[name] = _chars(fields[name], source, target)
        header = struct.pack(target_order + fmt, *fields.values())
        return header + variable + rest, reason

    def _rest(self, rest: bytes, fields: dict, source: CodePage, ccsid: int, wanted_ccsid: int,
              wanted_encoding: int, depth: int) -> tuple[bytes, int]:
        """What follows the header, converted per the header's fields, which are updated to
        describe it as it is returned."""
        enc_name, ccsid_name, fmt_name = self.next_fields
        next_ccsid = fields[ccsid_name]
        inherited = next_ccsid == CMQC.MQCCSI_INHERIT
        out, reason = _part(_format_name(fields[fmt_name], source), rest,
                            ccsid if inherited else next_ccsid, fields[enc_name],
                            wanted_ccsid, wanted_encoding, depth + 1)
        if reason:
            if inherited:  # the rest is still in this header's old CCSID: say so
                fields[ccsid_name] = ccsid
            return out, reason
        fields[enc_name] = wanted_encoding
        if not inherited:
            fields[ccsid_name] = wanted_ccsid
        return out, NONE


def _rfh2_folders(data: bytes, source_order: str, target_order: str, source: CodePage,
                  target: CodePage, fields: dict) -> bytes:
    """NameValueLength/NameValueData pairs: the lengths in the target order, the data as it is
    (it is in NameValueCCSID, not the header's CCSID), except UTF-16 data, whose byte order
    is the header's integer order and so turns with it."""
    swap = source_order != target_order and fields["NameValueCCSID"] in _BYTE_ORDER_CCSIDS
    out, pos = [], 0
    while pos < len(data):
        if pos + 4 > len(data):
            raise _malformed("MQRFH2 NameValueLength runs past StrucLength")
        (length,) = struct.unpack_from(source_order + "i", data, pos)
        value = data[pos + 4:pos + 4 + length]
        if length < 0 or len(value) != length:
            raise _malformed(f"MQRFH2 NameValueLength {length} runs past StrucLength")
        if swap:
            value = b"".join(value[i + 1:i + 2] + value[i:i + 1] for i in range(0, length - 1, 2))
        out.append(struct.pack(target_order + "i", length) + value)
        pos += 4 + length
    return b"".join(out)


def _rfh1_string(data: bytes, source_order: str, target_order: str, source: CodePage,
                 target: CodePage, fields: dict) -> bytes:
    """MQRFH version 1's NameValueString is character data in the header's CCSID: it converts
    with it, blank padded so that StrucLength stays a multiple of 4."""
    try:
        out = target.encode(source.decode(data))
    except (UnicodeDecodeError, UnicodeEncodeError):
        raise ConversionError(CMQC.MQRC_NOT_CONVERTED, "MQRFH NameValueString not convertible") from None
    return out + target.encode(" ") * (-len(out) % 4)


_NEXT = ("Encoding", "CodedCharSetId", "Format")
_HEADERS: dict[bytes, _Header] = {
    CMQC.MQFMT_RF_HEADER_2: _Header("RFH ", RFH2, ("StrucId", "Format"), _NEXT, "StrucLength",
                                    _rfh2_folders),
    CMQC.MQFMT_RF_HEADER: _Header("RFH ", RFH1, ("StrucId", "Format"), _NEXT, "StrucLength",
                                  _rfh1_string),
    CMQC.MQFMT_DEAD_LETTER_HEADER: _Header(
        "DLH ", DLH, ("StrucId", "DestQName", "DestQMgrName", "Format", "PutApplName", "PutDate",
                      "PutTime"), _NEXT),
    CMQC.MQFMT_MD_EXTENSION: _Header("MDE ", MDE, ("StrucId", "Format"), _NEXT, "StrucLength"),
    CMQC.MQFMT_XMIT_Q_HEADER: _Header(
        "XQH ", XQH, ("StrucId", "RemoteQName", "RemoteQMgrName",
                      *(f"MsgDesc.{name}" for name in _MD1_CHARS)),
        ("MsgDesc.Encoding", "MsgDesc.CodedCharSetId", "MsgDesc.Format")),
}
# standard byte orders insert no padding: these layouts have none to lose
assert all(struct.calcsize(">" + h.layout.struct.format) == h.layout.size for h in _HEADERS.values())
assert MD1.size == XQH.size - 104
