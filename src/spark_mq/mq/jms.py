"""JMS over MQ: what a JMS sender's message means, and what a JMS receiver expects.

IBM MQ classes for JMS carry a JMS message's class and headers in the MQRFH2 folders `mcd`
and `jms` (IBM's "The MQRFH2 header and JMS", "Mapping JMS header fields"), which the
queue manager hands a getter with a message handle as properties:

    mcd.Msd          the body's class: jms_text, jms_bytes, jms_map, jms_stream, jms_object,
                     jms_none (no mcd: MQSTR is a TextMessage, anything else a BytesMessage)
    JMSType          mcd.Type (with mcd.Set and mcd.Fmt)
    JMSDestination   jms.Dst, "queue:///Q", "queue://QM/Q" or "topic://T"
    JMSReplyTo       jms.Rto (else the MQMD's ReplyToQ/ReplyToQMgr)
    JMSTimestamp     jms.Tms, ms since the epoch (else the MQMD's PutDate/PutTime)
    JMSExpiration    jms.Exp, absolute ms since the epoch (0 or absent: never)
    JMSDeliveryMode  jms.Dlv (1 non-persistent, 2 persistent; else MQMD Persistence)
    JMSPriority      jms.Pri (else MQMD Priority)
    JMSCorrelationID jms.Cid (else "ID:" + the MQMD CorrelId in hex, unless it is all zeros)

A MapMessage or StreamMessage body is MQSTR text in the MQRFH2's CCSID:
`<map><elt name="n" dt='i4'>5</elt>...</map>`, `<stream><elt dt='r8'>1.5</elt></stream>`.

The column names and types are in the column table (spark_mq.mq.column_table, role "jms").
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.properties import Property, encode_rfh2

#: mcd.Msd values -> the reader's `jms_type` (and the writer's jmsMessageType) names
MSD_CLASSES = {"jms_text": "text", "jms_bytes": "bytes", "jms_map": "map",
               "jms_stream": "stream", "jms_object": "object", "jms_none": "none"}
CLASS_MSD = {kind: msd for msd, kind in MSD_CLASSES.items()}
MSD_PROPERTY = "mcd.Msd"
MQFMT_STRING = b"MQSTR   "
PERSISTENT, NON_PERSISTENT = 2, 1   # javax.jms.DeliveryMode
_NO_ID = b"\0" * 24


def _text(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("utf-8", "replace")
    return str(value).rstrip("\0 ").strip()


def message_class(properties: dict[str, Any], fmt: bytes | str) -> str:
    """The JMS class a JMS receiver would see: text, bytes, map, stream, object or none."""
    msd = properties.get(MSD_PROPERTY)
    if msd is not None:
        return MSD_CLASSES.get(_text(msd), _text(msd))
    fmt_bytes = fmt.encode("ascii") if isinstance(fmt, str) else bytes(fmt)
    return "text" if fmt_bytes.ljust(8, b" ") == MQFMT_STRING else "bytes"


def _millis_to_micros(value: Any) -> int | None:
    try:
        millis = int(value)
    except (TypeError, ValueError):
        return None
    return millis * 1000 if millis > 0 else None


def reply_to(properties: dict[str, Any], reply_q: str, reply_qmgr: str) -> str | None:
    rto = properties.get("JMSReplyTo")
    if rto is not None:
        return _text(rto)
    queue = _text(reply_q)
    if not queue:
        return None
    return f"queue://{_text(reply_qmgr)}/{queue}"


def correlation_id(properties: dict[str, Any], correl_id: bytes) -> str | None:
    cid = properties.get("JMSCorrelationID")
    if cid is not None:
        return _text(cid)
    if not correl_id or bytes(correl_id) == _NO_ID:
        return None
    return "ID:" + bytes(correl_id).hex()


def delivery_mode(properties: dict[str, Any], persistence: int) -> int:
    dlv = properties.get("JMSDeliveryMode")
    if dlv is not None:
        try:
            return int(dlv)
        except (TypeError, ValueError):
            pass
    return PERSISTENT if persistence == 1 else NON_PERSISTENT


def priority(properties: dict[str, Any], md_priority: int) -> int:
    pri = properties.get("JMSPriority")
    try:
        return int(pri) if pri is not None else int(md_priority)
    except (TypeError, ValueError):
        return int(md_priority)


def timestamp_micros(properties: dict[str, Any], put_micros: int | None) -> int | None:
    tms = _millis_to_micros(properties.get("JMSTimestamp"))
    return tms if tms is not None else put_micros


def expiration_micros(properties: dict[str, Any]) -> int | None:
    return _millis_to_micros(properties.get("JMSExpiration"))


def text_or_none(properties: dict[str, Any], name: str) -> str | None:
    value = properties.get(name)
    return None if value is None else _text(value)


# --- MapMessage / StreamMessage bodies ---------------------------------------------------------
_ELT = re.compile(r"<elt(?P<attrs>(?:\s+[A-Za-z:]+\s*=\s*(?:'[^']*'|\"[^\"]*\"))*)\s*"
                  r"(?:/>|>(?P<body>.*?)</elt>)", re.S)
_ATTR = re.compile(r"([A-Za-z:]+)\s*=\s*(?:'([^']*)'|\"([^\"]*)\")")
_ENTITIES = {"&lt;": "<", "&gt;": ">", "&amp;": "&", "&quot;": '"', "&apos;": "'"}
_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);")


def _unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        ref = match.group(0)
        if ref in _ENTITIES:
            return _ENTITIES[ref]
        number = ref[2:-1]
        return chr(int(number[1:], 16) if number.startswith("x") else int(number))
    return _ENTITY.sub(one, text)


def _elements(text: str) -> list[tuple[dict[str, str], str | None]]:
    found = []
    for match in _ELT.finditer(text):
        attrs = {m.group(1): m.group(2) if m.group(2) is not None else m.group(3)
                 for m in _ATTR.finditer(match.group("attrs") or "")}
        nil = attrs.get("xsi:nil") == "true"
        body = match.group("body")
        found.append((attrs, None if nil else _unescape(body or "")))
    return found


def _element_text(attrs: dict[str, str], body: str | None) -> str | None:
    """An element's value as text: booleans as true/false, bin.hex as its hex digits."""
    if body is None:
        return None
    if attrs.get("dt") == "boolean":
        return "true" if body.strip() in ("1", "true") else "false"
    return body


def map_body(text: str | None) -> list[tuple[str, str | None]] | None:
    """A MapMessage body (`<map><elt name=..>`) as (name, value as text) pairs; None when the
    text is not a map body."""
    if text is None or not text.lstrip().startswith("<map"):
        return None
    return [(attrs.get("name", ""), _element_text(attrs, body)) for attrs, body in _elements(text)]


# --- writing: the MQRFH2 of a TextMessage / BytesMessage (the writer's jmsMessageType) ---------
#: the message classes the writer makes (jmsMessageType and the `jms_type` column)
WRITE_CLASSES = ("text", "bytes", "none")
#: the MQMD Encoding of a JMS message when neither the row nor the options name one: IBM MQ
#: classes for JMS write their MQRFH2 big-endian (273) on every platform, so receivers and
#: tools that were only ever tested against Java senders see the bytes they know
JAVA_ENCODING = 273
_ID_HEX = re.compile(r"ID:[0-9a-fA-F]{48}")
_CORREL_LENGTH = 24


@dataclass
class JmsHeaders:
    """What a row says about its JMS message; None leaves a header out (or to its default)."""
    kind: str                            # text | bytes
    type_name: str | None = None         # JMSType -> mcd.Type
    destination: str | None = None       # None: queue:/// + the target queue
    reply_to: str | None = None
    timestamp_ms: int | None = None      # None: the time of the put
    expiration_ms: int | None = None
    correlation_id: str | None = None    # jms.Cid (an ID:... id travels in the MQMD only)
    delivery_mode: int | None = None
    priority: int | None = None
    usr: list[Property] = field(default_factory=list)


def destination_uri(name: str, topic: bool) -> str:
    """JMSDestination of a message put to a queue (or published on a topic string)."""
    return f"topic://{name}" if topic else f"queue:///{name}"


def queue_of_uri(uri: str) -> tuple[str, str] | None:
    """(queue, queue manager) of `queue://QM/Q` or `queue:///Q` (URI options after `?` are
    for JMS clients); None for a `topic://` URI, which has no MQMD form."""
    if uri.startswith("topic://"):
        return None
    if not uri.startswith("queue://"):
        raise ValueError(f"{uri!r} is not a JMS destination URI; valid: queue:///Q, "
                         "queue://QM/Q or topic://T")
    qmgr, slash, queue = uri[len("queue://"):].partition("?")[0].partition("/")
    if not slash or not queue:
        raise ValueError(f"{uri!r} names no queue; valid: queue:///Q or queue://QM/Q")
    return queue, qmgr


def correl_id_for(cid: str) -> tuple[bytes, bool]:
    """The MQMD CorrelId a JMSCorrelationID gives, and whether jms.Cid carries it as well: an
    `ID:` + 48 hex digits id is those 24 bytes (and no Cid, as IBM's JMS client does), any
    other string goes in jms.Cid and its first 24 UTF-8 bytes in the CorrelId."""
    if _ID_HEX.fullmatch(cid):
        return bytes.fromhex(cid[3:]), False
    return cid.encode("utf-8")[:_CORREL_LENGTH].ljust(_CORREL_LENGTH, b"\0"), True


def jms_rfh2(headers: JmsHeaders, destination: str, body_encoding: int, body_ccsid: int,
             body_format: bytes, now_ms: int) -> bytes:
    """The MQRFH2 a JMS client puts in front of the body: mcd, jms and usr folders. The jms
    fields carry no dt attribute, as IBM writes them; the header's integers are in
    `body_encoding`'s byte order, the Encoding the MQMD in front of it carries too."""
    props = [Property(MSD_PROPERTY, CMQC.MQTYPE_STRING, CLASS_MSD[headers.kind])]
    if headers.type_name is not None:
        props.append(Property("JMSType", CMQC.MQTYPE_STRING, headers.type_name))
    jms: list[tuple[str, object]] = [
        ("JMSDestination", destination), ("JMSReplyTo", headers.reply_to),
        ("JMSTimestamp", now_ms if headers.timestamp_ms is None else headers.timestamp_ms),
        ("JMSExpiration", headers.expiration_ms), ("JMSCorrelationID", headers.correlation_id),
        ("JMSDeliveryMode", headers.delivery_mode), ("JMSPriority", headers.priority)]
    props += [Property(name, CMQC.MQTYPE_STRING, str(value)) for name, value in jms
              if value is not None]
    return encode_rfh2(props + headers.usr, body_encoding, body_ccsid, body_format,
                       header_encoding=body_encoding)
