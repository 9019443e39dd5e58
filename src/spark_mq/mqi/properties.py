"""Message-property semantics of IBM MQ, as pure functions for the embedded queue manager.

The server keeps a message's properties as a list of `Property(name, type, value)`: `name` is the
canonical name (see `validate_name`), `type` a CMQC.MQTYPE_* value and `value` a Python value
(bool, int, float, str, bytes, or None for MQTYPE_NULL). This module holds the rules that do not
depend on any server state: name validation, MQSETMP value coercion, MQINQMP type conversion and
wildcard matching, the MAXPROPL size, and the MQRFH2 form used when properties travel in the
message body (`encode_rfh2` / `decode_rfh2`). Failures raise `PropertyError` with the MQRC.

Sources: IBM MQ docs "Property names", "Property name restrictions", "MQSETMP", "MQINQMP",
"Message properties and message length", "Mapping property data types to MQRFH2 data types",
"MQRFH2" / "NameValueData", and the reason codes MQRC_PROPERTY_NAME_ERROR,
MQRC_PROP_CONV_NOT_SUPPORTED, MQRC_PROP_NUMBER_FORMAT_ERROR, MQRC_PROPERTY_TYPE_ERROR and
MQRC_PROPERTY_NAME_LENGTH_ERR.

Choices where the docs leave room (each one is marked where it is made):
  * Canonical names follow what MQINQMP returns: "usr." is dropped, "jms.*"/"mcd.Type" become the
    JMS header names (jms.Exp -> JMSExpiration) and "mqps.*"/"mqpse.*" the MQ names
    (mqps.Top -> MQTopicString). Other folder-qualified names ("mcd.Msd", "jms.Foo") stay as given.
  * Names starting "mq" (any case) are MQ's: allowed only for the MQ-defined names above, for
    "<mqps|mqpse|mqext>.<one component>", and for names starting "mq_usr" (exempt in IBM's rules).
  * Each dot-separated component must be a Java identifier, because components become XML
    element names in the MQRFH2. Control and format characters (including NUL) are refused for
    the same reason.
  * MQSETMP with a ValueLength that does not fit the value (or MQVL_NULL_TERMINATED for a byte
    string) fails with MQRC_BUFFER_LENGTH_ERROR; an MQINQMP string that holds a number too big
    for the requested type fails with MQRC_PROP_NUMBER_FORMAT_ERROR.
  * RFH2 folders written and read: mcd, jms, mqps, mqpse, mqext and usr. Other folders (psc, ...)
    are skipped on decode; JMS names that live only in the MQMD (JMSMessageID, JMSRedelivered,
    JMSXAppID, JMSXDeliveryCount, JMSXUserID) and Root.MQMD.* names are not written to an RFH2.
"""
from __future__ import annotations

import math
import re
import struct
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeAlias, cast

from spark_mq.mqi.constants import CMQC, reason_name

RFH2_STRUC_ID: bytes = CMQC.MQRFH_STRUC_ID  # b"RFH "
MQFMT_RF_HEADER_2: bytes = CMQC.MQFMT_RF_HEADER_2  # b"MQHRF2  "
NAME_VALUE_CCSID = 1208  # UTF-8: the CCSID this module writes NameValueData in

_T = CMQC  # short alias for the MQTYPE_* names below
_KNOWN_TYPES: frozenset[int] = frozenset({
    _T.MQTYPE_NULL, _T.MQTYPE_BOOLEAN, _T.MQTYPE_BYTE_STRING, _T.MQTYPE_INT8, _T.MQTYPE_INT16,
    _T.MQTYPE_INT32, _T.MQTYPE_INT64, _T.MQTYPE_FLOAT32, _T.MQTYPE_FLOAT64, _T.MQTYPE_STRING})
_INT_BITS: dict[int, int] = {_T.MQTYPE_INT8: 8, _T.MQTYPE_INT16: 16, _T.MQTYPE_INT32: 32,
                             _T.MQTYPE_INT64: 64}
# Value sizes "as passed into MQSETMP" (its ValueLength rules), used for MAXPROPL.
_FIXED_SIZE: dict[int, int] = {
    _T.MQTYPE_NULL: 0, _T.MQTYPE_BOOLEAN: 4, _T.MQTYPE_INT8: 1, _T.MQTYPE_INT16: 2,
    _T.MQTYPE_INT32: 4, _T.MQTYPE_INT64: 8, _T.MQTYPE_FLOAT32: 4, _T.MQTYPE_FLOAT64: 8}


#: A property value as stored: bool, int, float, str, bytes, or None for MQTYPE_NULL.
PropertyValue: TypeAlias = bool | int | float | str | bytes | None


@dataclass(frozen=True)
class Property:
    """One message property: canonical name, CMQC.MQTYPE_* type and the value of that type."""

    name: str
    type: int
    # The Python type follows `type` (str for MQTYPE_STRING, ...), so code that has checked
    # `type` casts the value instead of testing it again.
    value: PropertyValue


def _show(value: Any) -> str:
    """repr() for error messages, cut short: values can be megabytes long."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


class PropertyError(Exception):
    """A property call failed with MQ reason code `reason`."""

    def __init__(self, reason: int, message: str) -> None:
        super().__init__(f"{reason_name(reason)} ({reason}): {message}")
        self.reason = reason


# --------------------------------------------------------------------------- names

# Properties MQ keeps in RFH2 folders other than usr, by the name MQINQMP returns for them.
_FOLDER_SYNONYMS: dict[str, tuple[str, str]] = {
    "JMSDestination": ("jms", "Dst"), "JMSExpiration": ("jms", "Exp"),
    "JMSPriority": ("jms", "Pri"), "JMSDeliveryMode": ("jms", "Dlv"),
    "JMSCorrelationID": ("jms", "Cid"), "JMSReplyTo": ("jms", "Rto"),
    "JMSTimestamp": ("jms", "Tms"), "JMSXGroupID": ("jms", "Gid"), "JMSXGroupSeq": ("jms", "Seq"),
    "JMSType": ("mcd", "Type"),
    "MQTopicString": ("mqps", "Top"), "MQSubUserData": ("mqps", "Sud"),
    "MQIsRetained": ("mqps", "Ret"), "MQPubOptions": ("mqps", "Pub"), "MQPubLevel": ("mqps", "Pbl"),
    "MQPubTime": ("mqpse", "Pts"), "MQPubSeqNum": ("mqpse", "Seq"),
    "MQPubStrIntData": ("mqpse", "Sid"), "MQPubFormat": ("mqpse", "Pfmt"),
}
_CANONICAL = {f"{folder}.{elem}": name for name, (folder, elem) in _FOLDER_SYNONYMS.items()}
# JMS names that are synonyms only for MQMD fields (IBM's table); valid, but never in an RFH2.
_JMS_MQMD_ONLY = frozenset({"JMSMessageID", "JMSRedelivered", "JMSXAppID", "JMSXDeliveryCount",
                            "JMSXUserID"})
_JMS_NAMES = frozenset(n for n in _FOLDER_SYNONYMS if n.startswith("JMS")) | _JMS_MQMD_ONLY
_MQ_NAMES = frozenset(n for n in _FOLDER_SYNONYMS if n.startswith("MQ"))
_MQ_FOLDERS = ("mqps", "mqpse", "mqext")
_FOLDERS = ("mcd", "jms", "mqps", "mqpse", "mqext", "usr")  # also the order encode_rfh2 writes
_SQL_KEYWORDS = frozenset({"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN",
                           "IS", "ESCAPE"})
# Java's isJavaIdentifierStart / isJavaIdentifierPart by Unicode category ($ is Sc, _ is Pc).
_ID_START = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Sc", "Pc"})
_ID_PART = _ID_START | {"Nd", "Mn", "Mc"}


def _name_error(name: str, why: str) -> PropertyError:
    return PropertyError(CMQC.MQRC_PROPERTY_NAME_ERROR, f"property name {_show(name)}: {why}")


def _length_error(name: str) -> PropertyError:
    return PropertyError(CMQC.MQRC_PROPERTY_NAME_LENGTH_ERR,
                         f"property name {_show(name)}: length {len(name)} is not "
                         f"1..{CMQC.MQ_MAX_PROPERTY_NAME_LENGTH}")


def _check_syntax(name: str) -> None:
    for part in name.split("."):
        if not part:
            raise _name_error(name, "a '.' may not start or end the name or follow another '.'")
        for i, ch in enumerate(part):
            if ord(ch) > 0xFFFF:
                raise _name_error(name, "characters beyond the Basic Multilingual Plane are not allowed")
            if unicodedata.category(ch) not in (_ID_PART if i else _ID_START):
                raise _name_error(name, f"character {ch!r} is not allowed there (Java identifier rules)")


def _check_reserved(name: str, shown: str) -> None:
    if name.upper() in _SQL_KEYWORDS:
        raise _name_error(shown, "SQL keywords of selection strings are reserved")
    if name.split(".")[0] in ("Root", "Body") and not name.startswith("Root.MQMD."):
        raise _name_error(shown, "names beginning Root or Body are reserved (except Root.MQMD.*)")
    if name.startswith("JMS") and name not in _JMS_NAMES:
        raise _name_error(shown, "the JMS prefix is reserved for the defined JMS properties")
    if name[:2].lower() == "mq" and not (
            name in _MQ_NAMES or name[:6].lower() == "mq_usr"
            or (name.split(".")[0] in _MQ_FOLDERS and name.count(".") == 1)):
        raise _name_error(shown, "the mq prefix is reserved for MQ-defined properties")


def validate_name(name: str | bytes) -> str:
    """Check a property name against MQ's rules and return its canonical form."""
    if isinstance(name, (bytes, bytearray)):  # ibmmq passes names as UTF-8 bytes
        raw = bytes(name)
        try:
            name = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise _name_error(raw.decode("utf-8", "replace"), "not valid UTF-8") from None
    if not name or len(name) > CMQC.MQ_MAX_PROPERTY_NAME_LENGTH:
        raise _length_error(name)
    _check_syntax(name)
    if name.startswith("usr."):
        rest = name[4:]
        if rest.startswith("JMS"):
            raise _name_error(name, "usr.JMS* is not valid")
        if rest.split(".")[0] in _FOLDERS:
            raise _name_error(name, "a folder name after usr. is ambiguous")
        _check_reserved(rest, name)
        return rest
    _check_reserved(name, name)
    return _CANONICAL.get(name, name)


def _location(name: str) -> tuple[str, list[str]] | None:
    """(RFH2 folder, element path) holding a canonical name, or None if it lives in the MQMD."""
    if name in _FOLDER_SYNONYMS:
        folder, elem = _FOLDER_SYNONYMS[name]
        return folder, [elem]
    if name in _JMS_MQMD_ONLY or name.startswith("Root."):
        return None
    first, _, rest = name.partition(".")
    if rest and first in _FOLDERS:
        return first, rest.split(".")
    return "usr", name.split(".")


def _name_at(folder: str, path: list[str]) -> str:
    joined = ".".join(path)
    if folder == "usr":
        return joined
    return _CANONICAL.get(f"{folder}.{joined}", f"{folder}.{joined}")


class WildcardMatcher:
    """MQINQMP name matching: a trailing '%' matches any rest of the name, dots included.

    Names are compared in canonical form. A pattern that begins with a folder ("usr.%", "jms.E%")
    is compared with the folder-qualified name, so "usr.%" selects exactly the user properties.
    """

    def __init__(self, pattern: str) -> None:
        if not pattern or len(pattern) > CMQC.MQ_MAX_PROPERTY_NAME_LENGTH:
            raise _length_error(pattern)
        self.pattern = pattern
        self.wildcard = pattern.endswith("%")
        if "%" in pattern[:-1]:
            raise _name_error(pattern, "'%' is only allowed as the last character")
        if self.wildcard:
            self.prefix = pattern[:-1]
            self.by_folder = self.prefix.split(".")[0] in _FOLDERS and "." in self.prefix
        else:
            self.prefix = validate_name(pattern)
            self.by_folder = False

    def matches(self, name: str) -> bool:
        if not self.wildcard:
            return name == self.prefix
        if not self.by_folder:
            return name.startswith(self.prefix)
        loc = _location(name)
        return loc is not None and f"{loc[0]}.{'.'.join(loc[1])}".startswith(self.prefix)


# --------------------------------------------------------------------------- values

def _type_error(what: str) -> PropertyError:
    return PropertyError(CMQC.MQRC_PROPERTY_TYPE_ERROR, what)


def _to_float32(value: float) -> float:
    single: float = struct.unpack("=f", struct.pack("=f", value))[0]  # OverflowError if out of range
    return single


def coerce_value(type_: int, value: Any, length: int, *, name: str = "") -> PropertyValue:
    """The value MQSETMP stores for `value` of MQTYPE `type_` with ValueLength `length`.

    For the fixed-size types ibmmq's C layer supplies the length itself, so `length` is only
    used for MQTYPE_STRING (bytes of UTF-8, or MQVL_NULL_TERMINATED) and MQTYPE_BYTE_STRING.
    """
    label = f"property {name!r} " if name else ""
    what = f"{label}value {_show(value)} for type {type_}"
    if type_ not in _KNOWN_TYPES:
        raise _type_error(f"{label}type {type_} is not an MQTYPE_* data type")
    if type_ == CMQC.MQTYPE_NULL:
        return None
    if type_ in (CMQC.MQTYPE_STRING, CMQC.MQTYPE_BYTE_STRING):
        if type_ == CMQC.MQTYPE_STRING and isinstance(value, str):
            data = value.encode("utf-8", "ignore")  # as ibmmq's C layer encodes it
        elif isinstance(value, (bytes, bytearray, memoryview)):
            data = bytes(value)
        else:
            raise _type_error(f"{what}: expected {'str or ' if type_ == CMQC.MQTYPE_STRING else ''}bytes")
        if length == CMQC.MQVL_NULL_TERMINATED and type_ == CMQC.MQTYPE_STRING:
            data = data.split(b"\0", 1)[0]
        elif 0 <= length <= len(data):
            data = data[:length]
        else:  # MQSETMP: "ValueLength parameter not valid"
            raise PropertyError(CMQC.MQRC_BUFFER_LENGTH_ERROR, f"{what}: value length {length} not valid")
        if type_ == CMQC.MQTYPE_BYTE_STRING:
            return data
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise _type_error(f"{what}: not valid UTF-8 (check the value length)") from None
    if not isinstance(value, (int, float)):
        raise _type_error(f"{what}: expected a number")
    if type_ == CMQC.MQTYPE_BOOLEAN:
        return bool(value)  # MQBOOL: zero is false, anything else true
    if type_ in _INT_BITS:
        bits = _INT_BITS[type_]
        if isinstance(value, float) or not -(1 << bits - 1) <= value < (1 << bits - 1):
            raise _type_error(f"{what}: not an integer that fits in {bits} bits")
        return int(value)
    try:
        number = float(value)
        return _to_float32(number) if type_ == CMQC.MQTYPE_FLOAT32 else number
    except OverflowError:
        raise _type_error(f"{what}: out of range") from None


def _float_text(value: float, type_: int) -> str:
    """Shortest decimal text that reads back as the same FLOAT32/FLOAT64 (Java spelling for
    the special values, as JMS writes them in an RFH2)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if type_ == CMQC.MQTYPE_FLOAT32:
        for digits in range(1, 10):
            text = f"{value:.{digits}g}"
            if _to_float32(float(text)) == value:
                return text
    return repr(value)


# MQINQMP string formats: "[blanks][sign]digits" and "[blanks][sign]digits[.digits][e[sign]digits]";
# anything after the number is ignored.
_INT_TEXT = re.compile(r" *([+-]?[0-9]+)")
_FLOAT_TEXT = re.compile(r" *([+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)")


def _from_string(prop: Property, target: int) -> PropertyValue:
    text = cast(str, prop.value)  # the caller checked that prop.type is MQTYPE_STRING

    def bad() -> PropertyError:
        return PropertyError(CMQC.MQRC_PROP_NUMBER_FORMAT_ERROR,
                             f"property {prop.name!r} value {_show(text)} cannot be read as type {target}")

    if target == CMQC.MQTYPE_BOOLEAN:
        word = text.upper()
        if word in ("TRUE", "1", "FALSE", "0"):
            return word in ("TRUE", "1")
        raise bad()
    match = (_INT_TEXT if target in _INT_BITS else _FLOAT_TEXT).match(text)
    if not match:
        raise bad()
    number = (int if target in _INT_BITS else float)(match.group(1))
    if isinstance(number, float) and math.isinf(number):
        raise bad()  # beyond even FLOAT64
    try:  # a number that does not fit the requested type cannot be read as it either
        return coerce_value(target, number, 0)
    except PropertyError:
        raise bad() from None


# (stored type, requested type) -> converter, from MQINQMP's "supported conversions" table.
_INTS: tuple[int, ...] = (_T.MQTYPE_INT8, _T.MQTYPE_INT16, _T.MQTYPE_INT32, _T.MQTYPE_INT64)
_CONVERSIONS: dict[tuple[int, int], Callable[[Any], PropertyValue]] = {
    (_T.MQTYPE_BOOLEAN, _T.MQTYPE_STRING): lambda v: "TRUE" if v else "FALSE",
    (_T.MQTYPE_BYTE_STRING, _T.MQTYPE_STRING): lambda v: v.hex().upper(),
    (_T.MQTYPE_FLOAT32, _T.MQTYPE_STRING): lambda v: _float_text(v, _T.MQTYPE_FLOAT32),
    (_T.MQTYPE_FLOAT64, _T.MQTYPE_STRING): lambda v: _float_text(v, _T.MQTYPE_FLOAT64),
    (_T.MQTYPE_FLOAT32, _T.MQTYPE_FLOAT64): float,
}
for _i, _src in enumerate(_INTS):
    _CONVERSIONS[(_T.MQTYPE_BOOLEAN, _src)] = int  # TRUE -> 1, FALSE -> 0
    _CONVERSIONS[(_src, _T.MQTYPE_STRING)] = str
    for _dst in _INTS[_i + 1:]:  # only to wider integers: no data may be lost
        _CONVERSIONS[(_src, _dst)] = int
del _i, _src, _dst


def convert_for_inquiry(prop: Property, requested_type: int,
                        convert: bool) -> tuple[int, PropertyValue]:
    """MQINQMP's (Type, Value) for `prop` when the caller asks for `requested_type`;
    `convert` is whether MQIMPO_CONVERT_TYPE was given."""
    if requested_type in (CMQC.MQTYPE_AS_SET, prop.type):
        return prop.type, prop.value
    if requested_type not in _KNOWN_TYPES or not convert:
        raise _type_error(f"property {prop.name!r} has type {prop.type}, not {requested_type}")
    if prop.type == CMQC.MQTYPE_STRING and requested_type not in (CMQC.MQTYPE_NULL, CMQC.MQTYPE_BYTE_STRING):
        return requested_type, _from_string(prop, requested_type)
    converter = _CONVERSIONS.get((prop.type, requested_type))
    if converter is None:
        raise PropertyError(CMQC.MQRC_PROP_CONV_NOT_SUPPORTED,
                            f"property {prop.name!r} value {_show(prop.value)}: type {prop.type} "
                            f"cannot be converted to {requested_type}")
    return requested_type, converter(prop.value)


def properties_length(props: list[Property]) -> int:
    """Size counted against MAXPROPL: name bytes plus value bytes as passed into MQSETMP."""
    total = 0
    for prop in props:
        total += len(prop.name.encode("utf-8"))
        if prop.type == CMQC.MQTYPE_STRING:
            total += len(cast(str, prop.value).encode("utf-8"))
        elif prop.type == CMQC.MQTYPE_BYTE_STRING:
            total += len(cast(bytes, prop.value))
        else:
            total += _FIXED_SIZE[prop.type]
    return total


# --------------------------------------------------------------------------- MQRFH2

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
    folder_and_path = _location(prop.name)
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
        elif prop.type in _INT_BITS:
            body = str(prop.value)
        else:
            body = _float_text(cast(float, prop.value), prop.type)
    return ("".join(f"<{g}>" for g in groups) + f"<{leaf}{attrs}>{body}</{leaf}>"
            + "".join(f"</{g}>" for g in reversed(groups)))


def encode_rfh2(props: list[Property], encoding: int, ccsid: int, fmt: bytes | str) -> bytes:
    """An MQRFH2 (version 2) carrying `props`; Encoding/CodedCharSetId/Format describe the body
    that the caller appends after it (`fmt` as bytes, or as ASCII text)."""
    if isinstance(fmt, str):
        fmt = fmt.encode("ascii")
    if len(fmt) > 8:
        raise ValueError(f"format {fmt!r} is longer than 8 bytes")
    folders: dict[str, list[str]] = {f: [] for f in _FOLDERS}
    for prop in props:
        loc = _location(prop.name)
        if loc is not None:  # MQMD-only properties travel in the MQMD, not the RFH2
            folders[loc[0]].append(_element_text(prop))
    parts: list[bytes] = []
    for folder, elements in folders.items():
        if elements:
            data = f"<{folder}>{''.join(elements)}</{folder}>".encode()
            data += b" " * (-len(data) % 4)  # NameValueLength must be a multiple of 4
            parts.append(struct.pack("=i", len(data)) + data)
    body = b"".join(parts)
    header = struct.pack("=" + _HEADER_FMT, RFH2_STRUC_ID, CMQC.MQRFH_VERSION_2,
                         _HEADER_SIZE + len(body), encoding, ccsid, fmt.ljust(8, b" "),
                         CMQC.MQRFH_NO_FLAGS, NAME_VALUE_CCSID)
    return header + body


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
        if type_ in _INT_BITS:
            if not _INT_TEXT.fullmatch(value.strip()):
                raise ValueError(value)
            return type_, coerce_value(type_, int(value), 0)
        return type_, coerce_value(type_, float(value), 0)
    except (ValueError, PropertyError):
        raise _rfh_error(f"{'.'.join(path)}: {_show(value)} is not a valid {attrs.get('dt')}") from None


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
        if folder not in _FOLDERS:
            continue  # e.g. psc/pscr command folders: not message properties
        for path, attrs, body in leaves:
            name = _name_at(folder, path)
            found.pop(name, None)  # a repeated name: the later element wins
            found[name] = Property(name, *_typed_value(path, attrs, body))
    return DecodedRFH2(list(found.values()), data[struc_length:], encoding, ccsid, fmt)
