"""The one mapping between MQ message properties and Python values, both ways.

Reading: every property of a message handle as {name: python value}, typed as MQ typed it.
Writing: a Python value with a Spark-style type name becomes (MQTYPE, value, length).
"""
from __future__ import annotations

import struct
from typing import Any

from spark_mq.mqi.constants import CMQC

# MQTYPE_* values (fixed by the MQI; kept here so this module needs no ibmmq import)
MQTYPE_NULL, MQTYPE_BOOLEAN, MQTYPE_BYTE_STRING = 0x2, 0x4, 0x8
MQTYPE_INT8, MQTYPE_INT16, MQTYPE_INT32, MQTYPE_INT64 = 0x10, 0x20, 0x40, 0x80
MQTYPE_FLOAT32, MQTYPE_FLOAT64, MQTYPE_STRING = 0x100, 0x200, 0x400
_INQ_NEXT = 0x8

#: Spark type name (DataType.typeName()) -> MQ property type
SPARK_TO_MQTYPE = {
    "string": MQTYPE_STRING, "boolean": MQTYPE_BOOLEAN, "byte": MQTYPE_INT8,
    "short": MQTYPE_INT16, "integer": MQTYPE_INT32, "long": MQTYPE_INT64,
    "float": MQTYPE_FLOAT32, "double": MQTYPE_FLOAT64, "binary": MQTYPE_BYTE_STRING,
}
_INT_LENGTHS = {MQTYPE_INT8: 1, MQTYPE_INT16: 2, MQTYPE_INT32: 4, MQTYPE_INT64: 8}
_INT_RANGES = {t: (-(1 << (8 * n - 1)), (1 << (8 * n - 1)) - 1) for t, n in _INT_LENGTHS.items()}


class PropertyValueError(ValueError):
    pass


def to_mq(name: str, value: Any, spark_type: str) -> tuple[int, Any, int]:
    """(MQTYPE, value as ibmmq's MQSETMP takes it, value length) for one column value."""
    if value is None:
        return MQTYPE_NULL, None, 0
    mq_type = SPARK_TO_MQTYPE.get(spark_type)
    if mq_type is None:
        raise PropertyValueError(
            f"column '{name}' of type {spark_type} cannot become a message property; "
            f"valid types: {', '.join(SPARK_TO_MQTYPE)}")
    if mq_type == MQTYPE_STRING:
        # IBM's C extension takes a str and encodes it as UTF-8 itself; the length is in bytes
        text = str(value)
        return mq_type, text, len(text.encode("utf-8"))
    if mq_type == MQTYPE_BYTE_STRING:
        data = bytes(value)
        return mq_type, data, len(data)
    if mq_type == MQTYPE_BOOLEAN:
        return mq_type, 1 if value else 0, 4
    if mq_type in _INT_LENGTHS:
        low, high = _INT_RANGES[mq_type]
        if not low <= int(value) <= high:
            raise PropertyValueError(f"column '{name}': {value} does not fit {spark_type}")
        return mq_type, int(value), _INT_LENGTHS[mq_type]
    if mq_type == MQTYPE_FLOAT32:
        return mq_type, struct.unpack("f", struct.pack("f", float(value)))[0], 4
    return mq_type, float(value), 8


def set_property(handle: Any, name: str, value: Any, spark_type: str) -> None:
    """Set one property on an ibmmq MessageHandle."""
    mq_type, raw, length = to_mq(name, value, spark_type)
    handle.properties.set(name, raw, property_type=mq_type, value_length=length)


def read_all(handle: Any, ibmmq: Any) -> dict[str, Any]:
    """Every property of a message handle, in the order MQ lists them."""
    result: dict[str, Any] = {}
    options = 0  # MQIMPO_INQ_FIRST
    max_length = 1024
    while True:
        try:
            value, name = handle.properties.get("%", impo_options=options,
                                                max_value_length=max_length)
        except ibmmq.MQMIError as exc:
            if exc.reason == CMQC.MQRC_PROPERTY_NOT_AVAILABLE:
                return result
            if exc.reason == CMQC.MQRC_PROPERTY_VALUE_TOO_BIG:
                # the same property again, with room for its value
                max_length = max(getattr(exc, "data_length", 0) or 0, max_length * 4)
                options = 0x10 if options else 0  # MQIMPO_INQ_PROP_UNDER_CURSOR after the first
                continue
            raise
        result[_text(name)] = _python(value)
        options = _INQ_NEXT
        max_length = 1024


def as_text(value: Any) -> str | None:
    """A property value as the string the `properties` map column shows."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    return str(value)


def _python(value: Any) -> Any:
    return value


def _text(name: Any) -> str:
    return name.decode("utf-8") if isinstance(name, bytes) else str(name)


# --- typed reading (faithful copies: the reader's `property_types` column) ---------------------
#: MQTYPE -> the type name the `property_types` column shows (and the writer takes back)
TYPE_NAMES = {MQTYPE_NULL: "null", MQTYPE_BOOLEAN: "boolean", MQTYPE_BYTE_STRING: "bytes",
              MQTYPE_INT8: "int8", MQTYPE_INT16: "int16", MQTYPE_INT32: "int32",
              MQTYPE_INT64: "int64", MQTYPE_FLOAT32: "float32", MQTYPE_FLOAT64: "float64",
              MQTYPE_STRING: "string"}
_INT_BY_LENGTH = {1: "int8", 2: "int16", 4: "int32", 8: "int64"}
_MQTYPE_AS_SET = CMQC.MQTYPE_AS_SET
_IMPO_CONVERT_VALUE, _IMPO_UNDER_CURSOR = CMQC.MQIMPO_CONVERT_VALUE, CMQC.MQIMPO_INQ_PROP_UNDER_CURSOR


class TypedReader:
    """Every property of a message handle with the MQ type it was set with.

    ibmmq's MessageHandle API returns values only, and MQINQMP's Python form gives ints for
    booleans and every integer size; the returned length tells the sizes apart, and for a
    4-byte integer one more MQINQMP, asking for MQTYPE_BOOLEAN without MQIMPO_CONVERT_TYPE,
    tells a boolean (it answers) from an INT32 (MQRC_PROPERTY_TYPE_ERROR)."""

    def __init__(self, ibmmq: Any, qmgr: Any, handle: Any) -> None:
        self._ibmmq, self._qmgr, self._handle = ibmmq, qmgr, handle
        self._inqmp: Any = getattr(getattr(ibmmq, "ibmmqc", None), "MQINQMP", None)
        self._pd = ibmmq.PD().pack()

    def _impo(self, options: int) -> bytes:
        impo = self._ibmmq.IMPO()
        impo.Options = options | _IMPO_CONVERT_VALUE
        return bytes(impo.pack())

    def read(self) -> tuple[dict[str, Any], dict[str, str]]:
        """({name: value}, {name: type name}); booleans come back as bool."""
        values: dict[str, Any] = {}
        if self._inqmp is None:   # no C boundary (pymqi): the Python types are all there is
            values = read_all(self._handle, self._ibmmq)
            return values, {name: type_name_of(value) for name, value in values.items()}
        types: dict[str, str] = {}
        hconn, hmsg = self._qmgr.get_handle(), self._handle.msg_handle
        options, max_length = 0, 1024
        four_byte: list[Any] = []   # asked again after the listing: a by-name MQINQMP resets its cursor
        while True:
            value, length, name, comp, reason = self._inqmp(
                hconn, hmsg, self._impo(options), b"%", self._pd, _MQTYPE_AS_SET, max_length)
            if reason == CMQC.MQRC_PROPERTY_NOT_AVAILABLE:
                break
            if reason == CMQC.MQRC_PROPERTY_VALUE_TOO_BIG:
                max_length = max(int(length), max_length * 4)
                options = _IMPO_UNDER_CURSOR if options else 0
                continue
            if comp != CMQC.MQCC_OK:
                raise self._ibmmq.MQMIError(comp, reason)
            text_name = _text(name)
            values[text_name], types[text_name] = value, type_name_of(value, int(length))
            if types[text_name] == "int32":
                four_byte.append(name)
            options, max_length = _INQ_NEXT, 1024
        for name in four_byte:
            if self._is_boolean(hconn, hmsg, name):
                values[_text(name)], types[_text(name)] = bool(values[_text(name)]), "boolean"
        return values, types

    def _is_boolean(self, hconn: int, hmsg: int, name: Any) -> bool:
        raw_name = name if isinstance(name, bytes) else str(name).encode("utf-8")
        reply = self._inqmp(hconn, hmsg, self._impo(0), raw_name, self._pd, MQTYPE_BOOLEAN, 4)
        return bool(reply[-2] == CMQC.MQCC_OK)


def type_name_of(value: Any, length: int | None = None) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (bytes, bytearray)):
        return "bytes"
    if isinstance(value, str):
        return "string"
    if isinstance(value, float):
        return "float32" if length == 4 else "float64"
    return _INT_BY_LENGTH.get(length or 8, "int64")


#: the `property_types` names (what the reader writes for each MQ type) -> Spark type names
SPARK_TYPE_OF = {"string": "string", "boolean": "boolean", "bytes": "binary", "int8": "byte",
              "int16": "short", "int32": "integer", "int64": "long", "float32": "float",
              "float64": "double", "null": "null"}


def from_text(name: str, text: str | None, type_name: str) -> tuple[Any, str]:
    """A `properties` entry (`as_text`'s form) and its `property_types` entry as (value, Spark
    type name) for `to_mq`: the inverse of as_text, so that a copy keeps each MQ type."""
    spark_type = SPARK_TYPE_OF.get(type_name)
    if spark_type is None:
        raise PropertyValueError(
            f"column 'property_types': property {name!r} has type {type_name!r}; valid types: "
            f"{', '.join(SPARK_TYPE_OF)}")
    if text is None or spark_type == "null":
        if text is not None:
            raise PropertyValueError(f"column 'properties': property {name!r} of type null has "
                                     f"the value {text!r:.80}; valid: null")
        return None, "string"
    try:
        value: Any
        if spark_type == "string":
            value = text
        elif spark_type == "boolean":
            if text not in ("true", "false"):
                raise ValueError(text)
            value = text == "true"
        elif spark_type == "binary":
            value = bytes.fromhex(text)
        elif spark_type in ("float", "double"):
            value = float(text)
        else:
            value = int(text)
    except ValueError:
        valid = {"boolean": "true or false", "binary": "hex digits, two per byte",
                 "float": "a number", "double": "a number"}.get(spark_type, "an integer")
        raise PropertyValueError(f"column 'properties': property {name!r} of type {type_name} "
                                 f"has the value {text!r:.80}; valid: {valid}") from None
    low, high = _INT_RANGES.get(SPARK_TO_MQTYPE.get(spark_type, 0), (value, value))
    if spark_type in ("byte", "short", "integer", "long") and not low <= value <= high:
        raise PropertyValueError(f"column 'properties': property {name!r} of type {type_name} "
                                 f"has the value {text}; valid: an integer from {low} to {high}")
    return value, spark_type
