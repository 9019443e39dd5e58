"""How the shell tools print a message: MQMD fields and properties above the payload (text,
or a hex dump as IBM's amqsbcg prints one), a JSON object per line with --json, or the
payload alone with --payload-only.

The tools browse and get without MQGMO_CONVERT, so a message comes with the bytes its
sender wrote: an MQSTR payload is decoded here with the message's own CodedCharSetId and
Encoding (EBCDIC from a mainframe included), and its CCSID is named next to the text unless
it is UTF-8, which is what a payload without a Format is shown as anyway."""
from __future__ import annotations

import base64
import json
from typing import Any

from spark_mq.mq.message import MD_FIELDS, NO_ID, Message
from spark_mq.mqi import codepages
from spark_mq.mqi.constants import CMQC

#: names for the MQMD values a person reads as words
_PERSISTENCE = {0: "not persistent", 1: "persistent", 2: "as queue default"}
_MSG_TYPES = {1: "request", 2: "reply", 4: "report", 8: "datagram"}
_HEX_WIDTH = 16
_UTF8 = 1208


def human(message: Message, number: int) -> str:
    """A message as a block of lines: its MQMD fields that carry something, its
    properties, then its payload."""
    lines = [f"message {number}:"]
    for name, value in md_items(message):
        lines.append(f"  {name:<16} {value}")
    if message.properties:
        lines.append("  properties:")
        for name, value in message.properties.items():
            lines.append(f"    {name} = {_property_text(value)}")
    text, ccsid_note = message_text(message)
    head = f"  payload ({len(message.payload)} bytes{', ' + ccsid_note if ccsid_note else ''})"
    if text is not None:
        lines.append(f"{head}: {text}")
    else:
        lines.append(f"{head}:")
        lines.extend(f"    {line}" for line in hex_dump(message.payload))
    return "\n".join(lines)


def message_text(message: Message) -> tuple[str | None, str]:
    """(the payload as text or None, what to say about its CCSID). An MQSTR payload is
    decoded with the message's CCSID and Encoding; any other payload is text only when it
    is UTF-8 (`payload_text`)."""
    if not _is_string(message.field("Format")):
        return payload_text(message.payload), ""
    ccsid = int(message.field("CodedCharSetId"))
    decoded = codepages.decode_text(message.payload, ccsid, int(message.field("Encoding")))
    if decoded is None:
        return None, f"ccsid {ccsid} not convertible"
    note = "" if ccsid == _UTF8 else ccsid_label(ccsid)
    return (decoded if _printable(decoded) else None), note


def ccsid_label(ccsid: int) -> str:
    return f"ccsid {ccsid} (EBCDIC)" if codepages.is_ebcdic(ccsid) else f"ccsid {ccsid}"


def _is_string(fmt: Any) -> bool:
    raw = fmt.encode("ascii", "replace") if isinstance(fmt, str) else bytes(fmt)
    return raw.rstrip(b"\0 ") == CMQC.MQFMT_STRING.rstrip(b" ")


def md_items(message: Message) -> list[tuple[str, str]]:
    """(field, readable value) for the MQMD fields that are not empty or zero ids."""
    items = []
    for name, value in zip(MD_FIELDS, message.md, strict=True):
        if name in ("PutDate", "PutTime"):
            continue
        text = _md_text(name, value)
        if text:
            items.append((name, text))
    stamp = _put_stamp(message.field("PutDate"), message.field("PutTime"))
    if stamp:
        items.insert(3, ("Put", stamp))
    return items


def json_line(message: Message) -> str:
    """One JSON object: md (every field), properties, payload (text, else base64)."""
    md = {name: _json_md(name, value) for name, value in zip(MD_FIELDS, message.md, strict=True)}
    properties = {name: bytes(value).hex().upper() if isinstance(value, (bytes, bytearray)) else value
                  for name, value in message.properties.items()}
    record: dict[str, Any] = {"md": md, "properties": properties}
    text, _ = message_text(message)
    if text is not None:
        record["payload"] = text
    else:
        record["payload_base64"] = base64.b64encode(message.payload).decode("ascii")
    return json.dumps(record, ensure_ascii=False)


def payload_text(payload: bytes) -> str | None:
    """The payload as text when it is UTF-8 without control characters (other than
    tab and line ends), else None."""
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if _printable(text) else None


def _printable(text: str) -> bool:
    return not any(ord(c) < 32 and c not in "\t\r\n" for c in text)


def hex_dump(data: bytes) -> list[str]:
    """Offset, hex in groups of two bytes, and the printable characters, 16 bytes a line."""
    lines = []
    for offset in range(0, len(data), _HEX_WIDTH):
        chunk = data[offset:offset + _HEX_WIDTH]
        pairs = " ".join(chunk[i:i + 2].hex().upper() for i in range(0, len(chunk), 2))
        printable = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        lines.append(f"{offset:08X}:  {pairs:<40} '{printable}'")
    return lines


def _md_text(name: str, value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        raw = bytes(value)
        if raw in (NO_ID, b"\0" * len(raw)) or not raw.strip(b"\0 "):
            return ""
        if _is_binary(name):
            return raw.hex().upper()
        return raw.decode("utf-8", "replace").rstrip("\0 ").strip()
    if isinstance(value, str):
        return value.rstrip("\0 ").strip()
    if name == "Persistence":
        return f"{value} ({_PERSISTENCE.get(value, '?')})"
    if name == "MsgType":
        return f"{value} ({_MSG_TYPES.get(value, 'application')})"
    if name == "Expiry" and value == -1:
        return "unlimited"
    if name in ("MsgSeqNumber",) and value == 1:
        return ""
    if name in ("MsgFlags", "Feedback", "BackoutCount", "Report") and value == 0:
        return ""
    return str(value)


def _put_stamp(date: Any, time: Any) -> str:
    date = _md_text("PutDate", date)
    time = _md_text("PutTime", time)
    if len(date) != 8 or len(time) < 6:
        return ""
    return f"{date[:4]}-{date[4:6]}-{date[6:]} {time[:2]}:{time[2:4]}:{time[4:6]}.{time[6:8]} GMT"


def _property_text(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        return f"0x{bytes(value).hex().upper()} (bytes)"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return f"{value} ({type(value).__name__})"


def _json_md(name: str, value: Any) -> Any:
    """Ids as hex, character fields as trimmed text, numbers as they are."""
    if isinstance(value, (bytes, bytearray)):
        if _is_binary(name):
            return bytes(value).hex().upper()
        return bytes(value).decode("utf-8", "replace").rstrip("\0 ")
    if isinstance(value, str):
        return value.rstrip("\0 ")
    return value


def _is_binary(name: str) -> bool:
    return name.endswith("Id") or name == "AccountingToken"
