"""Property types and values: MQSETMP coercion, MQINQMP conversion and the MAXPROPL size.

`coerce_value` is the value MQSETMP stores for a value of a given MQTYPE_*,
`convert_for_inquiry` the (Type, Value) MQINQMP returns when asked for another type (IBM's
"supported conversions" table), and `properties_length` the size counted against MAXPROPL.
`float_text`, `INT_BITS` and `INT_TEXT` are shared with the MQRFH2 codec.
"""
from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable
from typing import Any, cast

from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.properties._base import Property, PropertyError, PropertyValue, show

_T = CMQC  # short alias for the MQTYPE_* names below
_KNOWN_TYPES: frozenset[int] = frozenset({
    _T.MQTYPE_NULL, _T.MQTYPE_BOOLEAN, _T.MQTYPE_BYTE_STRING, _T.MQTYPE_INT8, _T.MQTYPE_INT16,
    _T.MQTYPE_INT32, _T.MQTYPE_INT64, _T.MQTYPE_FLOAT32, _T.MQTYPE_FLOAT64, _T.MQTYPE_STRING})
INT_BITS: dict[int, int] = {_T.MQTYPE_INT8: 8, _T.MQTYPE_INT16: 16, _T.MQTYPE_INT32: 32,
                            _T.MQTYPE_INT64: 64}
# Value sizes "as passed into MQSETMP" (its ValueLength rules), used for MAXPROPL.
_FIXED_SIZE: dict[int, int] = {
    _T.MQTYPE_NULL: 0, _T.MQTYPE_BOOLEAN: 4, _T.MQTYPE_INT8: 1, _T.MQTYPE_INT16: 2,
    _T.MQTYPE_INT32: 4, _T.MQTYPE_INT64: 8, _T.MQTYPE_FLOAT32: 4, _T.MQTYPE_FLOAT64: 8}


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
    what = f"{label}value {show(value)} for type {type_}"
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
    if type_ in INT_BITS:
        bits = INT_BITS[type_]
        if isinstance(value, float) or not -(1 << bits - 1) <= value < (1 << bits - 1):
            raise _type_error(f"{what}: not an integer that fits in {bits} bits")
        return int(value)
    try:
        number = float(value)
        return _to_float32(number) if type_ == CMQC.MQTYPE_FLOAT32 else number
    except OverflowError:
        raise _type_error(f"{what}: out of range") from None


def float_text(value: float, type_: int) -> str:
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
INT_TEXT = re.compile(r" *([+-]?[0-9]+)")
_FLOAT_TEXT = re.compile(r" *([+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)")


def _from_string(prop: Property, target: int) -> PropertyValue:
    text = cast(str, prop.value)  # the caller checked that prop.type is MQTYPE_STRING

    def bad() -> PropertyError:
        return PropertyError(CMQC.MQRC_PROP_NUMBER_FORMAT_ERROR,
                             f"property {prop.name!r} value {show(text)} cannot be read as type {target}")

    if target == CMQC.MQTYPE_BOOLEAN:
        word = text.upper()
        if word in ("TRUE", "1", "FALSE", "0"):
            return word in ("TRUE", "1")
        raise bad()
    match = (INT_TEXT if target in INT_BITS else _FLOAT_TEXT).match(text)
    if not match:
        raise bad()
    number = (int if target in INT_BITS else float)(match.group(1))
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
    (_T.MQTYPE_FLOAT32, _T.MQTYPE_STRING): lambda v: float_text(v, _T.MQTYPE_FLOAT32),
    (_T.MQTYPE_FLOAT64, _T.MQTYPE_STRING): lambda v: float_text(v, _T.MQTYPE_FLOAT64),
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
                            f"property {prop.name!r} value {show(prop.value)}: type {prop.type} "
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
