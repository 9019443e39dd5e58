"""What a selector reads: the lookup protocol, the selectable MQMD fields and the JMS names.

MQMD fields are normalised here as MQ compares them (MQCHARn text without its padding, MQBYTEn
as bytes), and each JMS header name a selector may use is mapped onto the MQMD fields or
mcd/jms folder properties it stands for, with the value mapping IBM MQ classes for JMS apply.
"""
from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any, NamedTuple, TypeAlias

from spark_mq.mqi.constants import CMQC

#: How a selector reads one message: canonical name -> value, or None when it has none.
Lookup: TypeAlias = Callable[[str], Any]
#: A value of one message (None for NULL/UNKNOWN), as the compiled selector reads it.
Getter: TypeAlias = Callable[[Lookup], Any]
#: A condition on one message: True, False, or None for UNKNOWN.
Predicate: TypeAlias = Callable[[Lookup], bool | None]

#: MQMD fields a selector can name as Root.MQMD.<Field>: every field except StrucId and
#: Version ("Message descriptor fields as properties"), spelt as in the C declaration.
MQMD_FIELDS: tuple[str, ...] = (
    "Report", "MsgType", "Expiry", "Feedback", "Encoding", "CodedCharSetId", "Format",
    "Priority", "Persistence", "MsgId", "CorrelId", "BackoutCount", "ReplyToQ", "ReplyToQMgr",
    "UserIdentifier", "AccountingToken", "ApplIdentityData", "PutApplType", "PutApplName",
    "PutDate", "PutTime", "ApplOriginData", "GroupId", "MsgSeqNumber", "Offset", "MsgFlags",
    "OriginalLength",
)
MQMD_PREFIX = "Root.MQMD."

# MQCHARn fields arrive blank padded (often as bytes); MQBYTEn fields are compared as bytes.
MQMD_CHAR_FIELDS: frozenset[str] = frozenset({
    "Format", "ReplyToQ", "ReplyToQMgr", "UserIdentifier", "ApplIdentityData", "PutApplName",
    "PutDate", "PutTime", "ApplOriginData"})
MQMD_BYTE_FIELDS: frozenset[str] = frozenset({"MsgId", "CorrelId", "AccountingToken", "GroupId"})


def char_field(raw: Any) -> Any:
    """An MQCHARn field as MQ compares it: text up to a NUL, trailing blanks dropped.

    Queue managers hand these fields back blank padded; without trimming no literal such as
    'MQSTR' could ever equal Format. Bytes are decoded (UTF-8, else Latin-1, which never fails).
    """
    if isinstance(raw, (bytes, bytearray, memoryview)):
        raw = bytes(raw)
        end = raw.find(b"\0")
        if end >= 0:
            raw = raw[:end]
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raw = raw.decode("latin-1")
        return raw.rstrip(" ")
    if isinstance(raw, str):
        end = raw.find("\0")
        return (raw[:end] if end >= 0 else raw).rstrip(" ")
    return raw


def byte_field(raw: Any) -> Any:
    if isinstance(raw, (bytearray, memoryview)):
        return bytes(raw)
    return raw


def _mqlong(raw: Any) -> int | None:
    # the JMS mappings below do arithmetic on MQLONG fields; anything else is NULL to them
    return raw if isinstance(raw, int) and not isinstance(raw, bool) else None


def _jms_id(raw: Any) -> str | None:
    """MsgId/CorrelId/GroupId as JMS shows them: 'ID:' + lowercase hex; all zeros is NULL."""
    if isinstance(raw, str):
        return raw                  # the caller already holds the JMS form
    if not isinstance(raw, (bytes, bytearray, memoryview)):
        return None
    data = bytes(raw)
    if not data.strip(b"\0"):
        return None
    return "ID:" + data.hex()


def normalise_id_literal(text: str) -> str:
    # JMS applications copy IDs from logs in either case; the mapped value is lowercase hex.
    body = text[3:]
    if text.startswith("ID:") and body and all(c in "0123456789abcdefABCDEF" for c in body):
        return "ID:" + body.lower()
    return text


def _put_millis(lookup: Lookup) -> int | None:
    """JMSTimestamp: PutDate (YYYYMMDD) + PutTime (HHMMSSTH), GMT, as ms since the epoch."""
    date = char_field(lookup(MQMD_PREFIX + "PutDate"))
    clock = char_field(lookup(MQMD_PREFIX + "PutTime"))
    if not (isinstance(date, str) and isinstance(clock, str)):
        return None
    if len(date) != 8 or len(clock) < 6 or not (date + clock).isdigit():
        return None
    try:
        stamp = datetime.datetime(int(date[:4]), int(date[4:6]), int(date[6:8]),
                                  int(clock[:2]), int(clock[2:4]), int(clock[4:6]),
                                  tzinfo=datetime.timezone.utc)
    except ValueError:
        return None
    hundredths = int(clock[6:8]) if len(clock) >= 8 else 0
    return int(stamp.timestamp()) * 1000 + hundredths * 10


def _jms_expiration(lookup: Lookup) -> int | None:
    """JMSExpiration: 0 for unlimited, else put time + Expiry (tenths of a second) in ms."""
    expiry = _mqlong(lookup(MQMD_PREFIX + "Expiry"))
    if expiry is None:
        return None
    if expiry == CMQC.MQEI_UNLIMITED:
        return 0
    put = _put_millis(lookup)
    return None if put is None else put + expiry * 100


def _jms_delivery_mode(lookup: Lookup) -> str | None:
    persistence = _mqlong(lookup(MQMD_PREFIX + "Persistence"))
    if persistence == CMQC.MQPER_PERSISTENT:
        return "PERSISTENT"
    if persistence == CMQC.MQPER_NOT_PERSISTENT:
        return "NON_PERSISTENT"
    return None


def _jms_reply_to(lookup: Lookup) -> str | None:
    queue = char_field(lookup(MQMD_PREFIX + "ReplyToQ"))
    if not queue:
        return None
    qmgr = char_field(lookup(MQMD_PREFIX + "ReplyToQMgr")) or ""
    return f"queue://{qmgr}/{queue}"


def _jms_redelivered(lookup: Lookup) -> bool | None:
    count = _mqlong(lookup(MQMD_PREFIX + "BackoutCount"))
    return None if count is None else count > 0


def _jms_delivery_count(lookup: Lookup) -> int | None:
    count = _mqlong(lookup(MQMD_PREFIX + "BackoutCount"))
    return None if count is None else count + 1


def mqmd_field(name: str, convert: Callable[[Any], Any] | None = None) -> Getter:
    key = MQMD_PREFIX + name
    if convert is None:
        return lambda lookup: lookup(key)
    return lambda lookup: convert(lookup(key))


class _Synonym(NamedTuple):
    names: tuple[str, ...]          # canonical names the value is read from
    get: Getter
    id_like: bool = False           # value is a JMS 'ID:<hex>' string


# The synonyms IBM MQ lists under "Property name restrictions": the only names beginning with
# "JMS" an MQI application (and so a selector) may use.
JMS_SYNONYMS: dict[str, _Synonym] = {
    "JMSCorrelationID": _Synonym(("Root.MQMD.CorrelId",), mqmd_field("CorrelId", _jms_id), True),
    "JMSMessageID": _Synonym(("Root.MQMD.MsgId",), mqmd_field("MsgId", _jms_id), True),
    "JMSDeliveryMode": _Synonym(("Root.MQMD.Persistence",), _jms_delivery_mode),
    "JMSPriority": _Synonym(("Root.MQMD.Priority",), mqmd_field("Priority")),
    "JMSTimestamp": _Synonym(("Root.MQMD.PutDate", "Root.MQMD.PutTime"), _put_millis),
    "JMSExpiration": _Synonym(("Root.MQMD.Expiry", "Root.MQMD.PutDate", "Root.MQMD.PutTime"),
                              _jms_expiration),
    "JMSRedelivered": _Synonym(("Root.MQMD.BackoutCount",), _jms_redelivered),
    "JMSReplyTo": _Synonym(("Root.MQMD.ReplyToQ", "Root.MQMD.ReplyToQMgr"), _jms_reply_to),
    "JMSType": _Synonym(("mcd.Type",), lambda lookup: lookup("mcd.Type")),
    "JMSDestination": _Synonym(("jms.Dst",), lambda lookup: lookup("jms.Dst")),
    "JMSXAppID": _Synonym(("Root.MQMD.PutApplName",), mqmd_field("PutApplName", char_field)),
    "JMSXDeliveryCount": _Synonym(("Root.MQMD.BackoutCount",), _jms_delivery_count),
    "JMSXGroupID": _Synonym(("Root.MQMD.GroupId",), mqmd_field("GroupId", _jms_id), True),
    "JMSXGroupSeq": _Synonym(("Root.MQMD.MsgSeqNumber",), mqmd_field("MsgSeqNumber")),
    "JMSXUserID": _Synonym(("Root.MQMD.UserIdentifier",), mqmd_field("UserIdentifier", char_field)),
}
#: JMS names a selector may use (each maps onto MQMD fields or an mcd/jms folder property)
JMS_NAMES: tuple[str, ...] = tuple(JMS_SYNONYMS)
