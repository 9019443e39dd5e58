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
