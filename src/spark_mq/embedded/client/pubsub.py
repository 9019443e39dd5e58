"""Publish/subscribe verbs on the client side: MQSUB, MQSUBRQ, and MQOPEN/MQPUT1 of a topic
(runs in the application's process; verbs.py hands these calls here).

MQSUB's MQSD and MQOPEN's MQOD name topics by MQCHARV strings (ObjectString, SubName,
SubUserData, SelectionString): `ibmmq` passes them as addresses of its own buffers, read
during the call. What MQ returns by MQCHARV (ResObjectString) is written into the caller's
buffer when it gave one (VSBufSize), as MQ fills it.
"""
from __future__ import annotations

import ctypes

from spark_mq.embedded.client.connection import (
    FAILED,
    Connection,
    ObjectHandle,
    connection_of,
    read_pointer,
)
from spark_mq.embedded.client.packed import error
from spark_mq.embedded.wire_verbs import SUB, SUBRQ, TOPEN
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import OD, Layout, text

SD = Layout(
    "StrucId:4s Version:i Options:i ObjectName:48s AlternateUserId:12s AlternateSecurityId:40s "
    "SubExpiry:i ObjectStringVSPtr:P ObjectStringVSOffset:i ObjectStringVSBufSize:i "
    "ObjectStringVSLength:i ObjectStringVSCCSID:i SubNameVSPtr:P SubNameVSOffset:i "
    "SubNameVSBufSize:i SubNameVSLength:i SubNameVSCCSID:i SubUserDataVSPtr:P "
    "SubUserDataVSOffset:i SubUserDataVSBufSize:i SubUserDataVSLength:i SubUserDataVSCCSID:i "
    "SubCorrelId:24s PubPriority:i PubAccountingToken:32s PubApplIdentityData:32s "
    "SelectionStringVSPtr:P SelectionStringVSOffset:i SelectionStringVSBufSize:i "
    "SelectionStringVSLength:i SelectionStringVSCCSID:i SubLevel:i ResObjectStringVSPtr:P "
    "ResObjectStringVSOffset:i ResObjectStringVSBufSize:i ResObjectStringVSLength:i "
    "ResObjectStringVSCCSID:i")
SRO = Layout("StrucId:4s Version:i Options:i NumPubs:i")
assert SD.size == 344 and SRO.size == 16  # the sizes ibmmq's C layer checks
_SDI, _ODI = SD.index, OD.index
_UTF8 = 1208


def _charv(fields: list, layout: Layout, name: str) -> str:
    """An MQCHARV input string (ibmmq's buffers hold UTF-8 or plain ASCII)."""
    index = layout.index
    raw = read_pointer(fields[index[name + "VSPtr"]], fields[index[name + "VSLength"]])
    return raw.decode("utf-8", "replace")


def _set_charv_out(fields: list, layout: Layout, name: str, value: str) -> None:
    """An MQCHARV output: copied into the caller's buffer as far as it holds; the length
    says how long the whole value is, as MQ reports it."""
    index = layout.index
    data = value.encode("utf-8")
    fields[index[name + "VSLength"]] = len(data)
    fields[index[name + "VSCCSID"]] = _UTF8
    address, size = fields[index[name + "VSPtr"]], fields[index[name + "VSBufSize"]]
    if address and size > 0:
        ctypes.memmove(address, data, min(len(data), size))


# === MQOPEN / MQPUT1 of a topic ============================================================
def open_topic(conn: Connection, fields: list, options: int) -> tuple[int, bytes, int, int]:
    """MQOPEN with MQOT_TOPIC: ObjectName and (MQOD version 4) ObjectString name it."""
    name = text(fields[_ODI["ObjectName"]])
    string = _charv(fields, OD, "ObjectString") if fields[_ODI["Version"]] >= 4 else ""
    reply = conn.call(TOPEN, name, string, options, text(fields[_ODI["AlternateUserId"]]))
    if reply[0] == FAILED or len(reply) < 4:
        return (0, OD.pack(fields), reply[0], reply[1])
    hobj, topic = reply[2], reply[3]
    conn.handles[hobj] = ObjectHandle(name or topic, False, False)
    if fields[_ODI["Version"]] >= 4:
        _set_charv_out(fields, OD, "ResObjectString", topic)
        fields[_ODI["ResolvedType"]] = CMQC.MQOT_TOPIC
    return (hobj, OD.pack(fields), reply[0], reply[1])


# === MQSUB / MQSUBRQ =======================================================================
def MQSUB(hconn: int, sd: bytes, hobj: int) -> tuple[bytes, int, int, int, int]:
    conn = connection_of(hconn)
    if conn is None:
        return (sd, hobj, 0, FAILED, CMQC.MQRC_HCONN_ERROR)
    if len(sd) != SD.size:
        raise error("wrong size for MQSD")
    fields = SD.unpack(sd)
    if fields[_SDI["StrucId"]] != b"SD  " or fields[_SDI["Version"]] != CMQC.MQSD_VERSION_1:
        return (sd, hobj, 0, FAILED, CMQC.MQRC_SD_ERROR)
    reply = conn.call(
        SUB, fields[_SDI["Options"]], text(fields[_SDI["ObjectName"]]),
        _charv(fields, SD, "ObjectString"), _charv(fields, SD, "SubName"),
        _charv(fields, SD, "SubUserData"), fields[_SDI["SubCorrelId"]],
        fields[_SDI["PubPriority"]], fields[_SDI["PubAccountingToken"]],
        fields[_SDI["PubApplIdentityData"]], fields[_SDI["SubExpiry"]],
        _charv(fields, SD, "SelectionString"), fields[_SDI["SubLevel"]], hobj,
        text(fields[_SDI["AlternateUserId"]]))
    if reply[0] == FAILED or len(reply) < 14:
        return (sd, hobj, 0, reply[0], reply[1])
    (queue_hobj, hsub, correl_id, priority, token, identity, expiry, _user_data, topic,
     queue_name, read_ahead, options) = reply[2:14]
    fields[_SDI["Options"]] |= options  # on a resume: durable, managed... as the subscription is
    if queue_hobj not in conn.handles and queue_hobj != CMQC.MQHO_NONE:
        conn.handles[queue_hobj] = ObjectHandle(queue_name, read_ahead, False)  # a managed queue
    conn.handles[hsub] = ObjectHandle(topic, False, False)
    fields[_SDI["SubCorrelId"]] = correl_id
    fields[_SDI["PubPriority"]] = priority
    fields[_SDI["PubAccountingToken"]] = token
    fields[_SDI["PubApplIdentityData"]] = identity
    fields[_SDI["SubExpiry"]] = expiry
    _set_charv_out(fields, SD, "ResObjectString", topic)
    return (SD.pack(fields), queue_hobj, hsub, reply[0], reply[1])


def MQSUBRQ(hconn: int, hsub: int, action: int, sro: bytes) -> tuple[bytes, int, int]:
    conn = connection_of(hconn)
    if conn is None:
        return (sro, FAILED, CMQC.MQRC_HCONN_ERROR)
    if len(sro) != SRO.size:
        raise error("wrong size for MQSRO")
    fields = SRO.unpack(sro)
    if fields[SRO.index["StrucId"]] != b"SRO ":
        return (sro, FAILED, CMQC.MQRC_SRO_ERROR)
    reply = conn.call(SUBRQ, hsub, action)
    if len(reply) > 2:
        fields[SRO.index["NumPubs"]] = reply[2]
    return (SRO.pack(fields), reply[0], reply[1])
