"""Message handles and their properties: MQCRTMH, MQDLTMH, MQSETMP, MQINQMP, MQDLTMP.

Runs in the application's process (part of the module installed as `ibmmq.ibmmqc`, see
transport.py). As in IBM's client, a message handle never goes to the queue manager: its
properties are kept here, sent along with a put (`properties_to_send`) and filled in from
what a get returns (`fill_handle`). Names, types and values are checked and converted by
spark_mq.mqi.properties, the codec both processes share.
"""
from __future__ import annotations

import itertools
import math

from spark_mq.embedded.client.connection import FAILED, NONE, OK, WARNING, connections
from spark_mq.mqi import properties as props_mod
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import IMPO

_message_handles: dict[int, dict[str, props_mod.Property]] = {}
_inquiry_cursors: dict[int, tuple[str, int]] = {}
_hmsgs = itertools.count(0x10000001)


def is_message_handle(hmsg: int) -> bool:
    return hmsg in _message_handles


def properties_to_send(hmsg: int) -> list | None:
    """The properties a put sends for its message handle (LookupError: no such handle)."""
    if not hmsg:
        return None
    handle = _message_handles.get(hmsg)
    if handle is None:
        raise LookupError(hmsg)
    return [[p.name, p.type, p.value] for p in handle.values()] or None


def fill_handle(hmsg: int, props: list | None) -> None:
    """Replace a handle's properties with those a get returned."""
    handle = _message_handles.get(hmsg)
    if handle is None:
        return
    handle.clear()
    _inquiry_cursors.pop(hmsg, None)
    for name, prop_type, value in props or ():
        handle[name] = props_mod.Property(name, prop_type, value)



def MQCRTMH(hconn: int, cmho: bytes) -> tuple[int, int, int]:
    if hconn not in connections and hconn != CMQC.MQHC_UNASSOCIATED_HCONN:
        return (0, FAILED, CMQC.MQRC_HCONN_ERROR)
    hmsg = next(_hmsgs)
    _message_handles[hmsg] = {}
    return (hmsg, OK, NONE)


def MQDLTMH(hconn: int, hmsg: int, dmho: bytes) -> tuple[int, int]:
    if _message_handles.pop(hmsg, None) is None:
        return (FAILED, CMQC.MQRC_HMSG_ERROR)
    _inquiry_cursors.pop(hmsg, None)
    return (OK, NONE)


def MQSETMP(hconn: int, hmsg: int, smpo: bytes, name: bytes | str, pd: bytes, prop_type: int,
            value: object, value_length: int) -> tuple[int, int]:
    handle = _message_handles.get(hmsg)
    if handle is None:
        return (FAILED, CMQC.MQRC_HMSG_ERROR)
    try:
        canonical = props_mod.validate_name(_as_text(name))
        stored = props_mod.coerce_value(prop_type, _as_ibmmqc_converts(prop_type, value),
                                        value_length)
    except props_mod.PropertyError as exc:
        return (FAILED, exc.reason)
    handle.pop(canonical, None)  # a property set again moves to the end, as MQ lists them
    handle[canonical] = props_mod.Property(canonical, prop_type, stored)
    return (OK, NONE)


#: MQTYPE_INT* -> bits: ibmmqc casts the Python int to the C type, keeping the low bits
_INT_BITS = {CMQC.MQTYPE_INT8: 8, CMQC.MQTYPE_INT16: 16, CMQC.MQTYPE_INT32: 32, CMQC.MQTYPE_INT64: 64}
_LONG_LONG = range(-(1 << 63), 1 << 63)   # beyond it ibmmqc's PyLong_AsLong* fails


def _as_ibmmqc_converts(prop_type: int, value: object) -> object:
    """The value IBM's ibmmqc hands to MQSETMP for a Python value: integers are cast to
    the property's C type (300 as MQTYPE_INT8 is 44), and a boolean goes through a C double
    cast to MQBOOL (0.5 is FALSE). Other values are as given."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if prop_type == CMQC.MQTYPE_BOOLEAN and math.isfinite(value):
        return int(value)
    bits = _INT_BITS.get(prop_type)
    if bits is not None and isinstance(value, int) and value in _LONG_LONG:
        value &= (1 << bits) - 1
        return value - (1 << bits) if value >> (bits - 1) else value
    return value


def MQINQMP(hconn: int, hmsg: int, impo: bytes, name: bytes | str, pd: bytes, prop_type: int,
            max_length: int) -> tuple[object, int, str | None, int, int]:
    handle = _message_handles.get(hmsg)
    if handle is None:
        return (None, 0, None, FAILED, CMQC.MQRC_HMSG_ERROR)
    options = IMPO.unpack(impo)[IMPO.index["Options"]]
    requested = _as_text(name)
    try:
        prop = _find_property(hmsg, handle, requested, options)
        if prop is None:
            return (None, 0, None, FAILED, CMQC.MQRC_PROPERTY_NOT_AVAILABLE)
        returned_type, value = props_mod.convert_for_inquiry(
            prop, prop_type, bool(options & CMQC.MQIMPO_CONVERT_TYPE))
    except props_mod.PropertyError as exc:
        return (None, 0, None, FAILED, exc.reason)
    length = _value_length(returned_type, value)
    if isinstance(value, (str, bytes)) and length > max_length:
        return (None, length, None, FAILED, CMQC.MQRC_PROPERTY_VALUE_TOO_BIG)
    if isinstance(value, bool):
        value = int(value)
    returned_name = prop.name if "%" in requested else None
    return (value, length, returned_name, OK, NONE)


def _find_property(hmsg: int, handle: dict, requested: str,
                   options: int) -> props_mod.Property | None:
    if "%" not in requested:
        _inquiry_cursors.pop(hmsg, None)
        return handle.get(props_mod.validate_name(requested))
    matcher = props_mod.WildcardMatcher(requested)
    names = [n for n in handle if matcher.matches(n)]
    position = 0
    cursor = _inquiry_cursors.get(hmsg)
    if cursor is not None and cursor[0] == requested:
        if options & CMQC.MQIMPO_INQ_NEXT:
            position = cursor[1] + 1
        elif options & CMQC.MQIMPO_INQ_PROP_UNDER_CURSOR:
            position = cursor[1]
    if position >= len(names):
        return None
    _inquiry_cursors[hmsg] = (requested, position)
    return handle[names[position]]


def _value_length(prop_type: int, value: object) -> int:
    if isinstance(value, str):
        return len(value.encode("utf-8"))
    if isinstance(value, bytes):
        return len(value)
    return {CMQC.MQTYPE_BOOLEAN: 4, CMQC.MQTYPE_INT8: 1, CMQC.MQTYPE_INT16: 2,
            CMQC.MQTYPE_INT32: 4, CMQC.MQTYPE_INT64: 8, CMQC.MQTYPE_FLOAT32: 4,
            CMQC.MQTYPE_FLOAT64: 8}.get(prop_type, 0)


def MQDLTMP(hconn: int, hmsg: int, dmpo: bytes, name: bytes | str) -> tuple[int, int]:
    handle = _message_handles.get(hmsg)
    if handle is None:
        return (FAILED, CMQC.MQRC_HMSG_ERROR)
    try:
        canonical = props_mod.validate_name(_as_text(name))
    except props_mod.PropertyError as exc:
        return (FAILED, exc.reason)
    if handle.pop(canonical, None) is None:
        return (WARNING, CMQC.MQRC_PROPERTY_NOT_AVAILABLE)
    return (OK, NONE)



def _as_text(name: bytes | str) -> str:
    return name.decode("utf-8") if isinstance(name, bytes) else str(name)
