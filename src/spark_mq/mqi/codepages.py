"""Code pages by IBM MQ's CCSID numbers: decoding, encoding and MQ's conversion of text.

Both sides use this module: the embedded queue manager converts MQFMT_STRING data on
MQGET with MQGMO_CONVERT, the reader decodes the `text` column, the writer encodes string
payloads in the CCSID a row asks for, and the shell tools print messages as text.

Which tables, and why:

* **Single-byte code pages** (EBCDIC 37, 273, 277-297, 420, 500, 871, 1026, 1047,
  1140-1149 ..., the PC, ISO and Windows code pages) are charmap tables: Python's own codec
  for the code page (the standard library has 37, 273, 500, 1026, 1140, 437, 850, the ISO
  and Windows pages; the pure-Python `ebcdic` package the EBCDIC pages the standard library
  lacks), corrected byte by byte where it differs from IBM's table (`_SBCS`: the EBCDIC newline 0x15 is
  U+0085 in IBM's tables and '\\n' in `ebcdic`; 1047 swaps 0x15/0x25; 273 has U+00AF at
  0xBC). tests/mqi/test_codepages.py checks every table against ICU's copy of IBM's
  (`ibm-NNN`), so the corrections are measured, not remembered. Decoding and encoding are
  C-speed (codecs.charmap_decode / charmap_encode). The EBCDIC pages neither has (the euro
  pages 1153-1158, 1160, 1164, 4971, 5123, 8482; 918, 1130, 1132, 1137, 12712, 16804) are
  charmaps read once from ICU's IBM table, so they are known only where ICU is.
* **Windows code pages 1250-1258** use the euro tables IBM numbers 5346-5354 (Microsoft's
  tables, with IBM's C1 controls where Microsoft leaves a byte undefined): what Windows
  senders really write. IBM's older 1250-1258 tables lack the euro sign.
* **Double-byte code pages** (EBCDIC Japanese 930/939/1390/1399/5026/5035, Simplified Chinese
  935/1388, Korean 933/1364, Traditional Chinese 937, and the PC/EUC ones) come from ICU,
  whose `ibm-NNN` converters are IBM's own tables (SO/SI shifts included), through
  `pyicu-wheels` (a binary wheel of PyICU; a dependency where it has wheels). Where ICU is
  not importable the PC/EUC code pages fall back to the standard library's nearest codec
  and the EBCDIC double-byte ones are unknown: MQ's answer for an unknown CCSID (2111 /
  2115) then, never a guess.
* **Unicode**: 1208 UTF-8; 1200/13488/17584 UTF-16 in the byte order of the Encoding's
  integer part (as IBM MQ classes for JMS read it); 1202 UTF-16LE; 1232/1234 UTF-32BE/LE.

MQ's ConvEBCDICNewline=NL_TO_LF (its default) turns the EBCDIC newline 0x15 into LF when
EBCDIC text is converted to a non-EBCDIC code page; `convert` and `decode_text` do the same.
Characters a target code page cannot hold, and bytes a source code page does not define,
are errors (MQRC_NOT_CONVERTED), never substitutes.
"""
from __future__ import annotations

import codecs
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from spark_mq.mqi.constants import CMQC

_NL, _LF = 0x15, "\n"
#: IBM's CCSID of UTF-8
UTF8 = 1208
#: the CCSID that text labelled MQCCSI_Q_MGR (0) is taken to be in where this process reads
#: or writes it itself: the embedded queue manager's CCSID
QMGR_CCSID = UTF8

#: single-byte code pages: CCSID -> (Python codec to start from, IBM's bytes where it differs;
#: None = a byte IBM's table leaves undefined)
_SBCS: dict[int, tuple[str, dict[int, str | None]]] = {
    # EBCDIC
    37: ("cp037", {}), 273: ("cp273", {0xBC: "\u00af"}), 277: ("ebcdic:cp277", {0x15: "\x85"}),
    278: ("ebcdic:cp278", {0x15: "\x85"}), 280: ("ebcdic:cp280", {0x15: "\x85"}),
    284: ("ebcdic:cp284", {0x15: "\x85"}), 285: ("ebcdic:cp285", {0x15: "\x85"}),
    297: ("ebcdic:cp297", {0x15: "\x85"}), 424: ("ebcdic:cp424", {0xB3: "\u2022", 0xBC: "\u203e"}),
    500: ("cp500", {}), 838: ("ebcdic:cp838", {0x15: "\x85"}), 870: ("ebcdic:cp870", {0x15: "\x85"}),
    871: ("ebcdic:cp871", {0x15: "\x85"}),
    875: ("cp875", {0xDC: None, 0xE1: None, 0xEC: None, 0xED: None, 0xFC: None, 0xFD: None}),
    1025: ("ebcdic:cp1025", {0x15: "\x85"}), 1047: ("ebcdic:cp1047", {0x15: "\x85", 0x25: "\n"}),
    1097: ("ebcdic:cp1097", {}), 1112: ("ebcdic:cp1112", {0x15: "\x85"}),
    1122: ("ebcdic:cp1122", {0x15: "\x85", 0xBC: "\u00af"}), 1123: ("ebcdic:cp1123", {0x15: "\x85"}),
    1140: ("cp1140", {}),
    **{ccsid: (f"ebcdic:cp{ccsid}", {0x15: "\x85"}) for ccsid in range(1141, 1150)},
    290: ("ebcdic:cp290", {0x15: "\x85", **dict.fromkeys(
        (0x57, 0x59, 0x6A, 0x9C, *range(0xCA, 0xD0), *range(0xDA, 0xE0), 0xE1,
         *range(0xEA, 0xF0), *range(0xFA, 0xFF)))}),
    420: ("ebcdic:cp420", {0x15: "\x85", **dict.fromkeys(
        (0x53, 0x54, 0xB6, 0xB7, 0xCC, 0xCE, 0xE1, 0xEC, 0xFA))}),
    1026: ("cp1026", {0x9A: "\u20ba"}),   # IBM's table has the Turkish lira sign since 2012
    # no Python codec: IBM's table from ICU (known only where ICU is, like the DBCS pages)
    **{ccsid: (f"icu:ibm-{ccsid}", {}) for ccsid in (
        918, 1130, 1132, 1137, *range(1153, 1159), 1160, 1164, 4971, 5123, 8482, 12712,
        16804)},
    # PC
    437: ("cp437", {0x1A: "\x1c", 0x1C: "\x7f", 0x7F: "\x1a", 0xE6: "\u03bc"}),
    850: ("cp850", {0x1A: "\x1c", 0x1C: "\x7f", 0x7F: "\x1a"}),
    852: ("cp852", {0x1A: "\x1c", 0x1C: "\x7f", 0x7F: "\x1a", 0xAA: None}),
    855: ("cp855", {0x1A: "\x1c", 0x1C: "\x7f", 0x7F: "\x1a"}),
    857: ("cp857", {0x1A: "\x1c", 0x1C: "\x7f", 0x7F: "\x1a"}),
    858: ("cp858", {0x1A: "\x1c", 0x1C: "\x7f", 0x7F: "\x1a"}),
    862: ("cp862", {0x1A: "\x1c", 0x1C: "\x7f", 0x7F: "\x1a", 0xE6: "\u03bc"}),
    866: ("cp866", {0x1A: "\x1c", 0x1C: "\x7f", 0x7F: "\x1a"}),
    869: ("cp869", {0x1A: "\x1c", 0x1C: "\x7f", 0x7F: "\x1a", 0x88: "\u0387", 0xEF: "\u00b4"}),
    # ASCII and ISO 8859
    367: ("ascii", {}), 819: ("latin_1", {}), 912: ("iso8859_2", {}), 915: ("iso8859_5", {}),
    813: ("iso8859_7", {0xA4: None, 0xA5: None, 0xAA: None, 0xB4: "\u00b4", 0xB7: "\u0387"}),
    916: ("iso8859_8", {0xAF: "\u203e", 0xB7: "\u2022", 0xFD: None, 0xFE: None}),
    920: ("iso8859_9", {}), 923: ("iso8859_15", {}), 1089: ("iso8859_6", {}),
    # Windows, with the euro (IBM's 5346-5354)
    5346: ("cp1250", {0x81: "\x81", 0x83: "\x83", 0x88: "\x88", 0x90: "\x90", 0x98: "\x98"}),
    5347: ("cp1251", {0x98: "\x98"}),
    5348: ("cp1252", {0x81: "\x81", 0x8D: "\x8d", 0x8F: "\x8f", 0x90: "\x90", 0x9D: "\x9d"}),
    5349: ("cp1253", {0x81: "\x81", 0x88: "\x88", 0x8A: "\x8a", 0x8C: "\x8c", 0x8D: "\x8d",
                      0x8E: "\x8e", 0x8F: "\x8f", 0x90: "\x90", 0x98: "\x98", 0x9A: "\x9a",
                      0x9C: "\x9c", 0x9D: "\x9d", 0x9E: "\x9e", 0x9F: "\x9f", 0xAA: "\u00aa"}),
    5350: ("cp1254", {0x81: "\x81", 0x8D: "\x8d", 0x8E: "\x8e", 0x8F: "\x8f", 0x90: "\x90",
                      0x9D: "\x9d", 0x9E: "\x9e"}),
    5351: ("cp1255", {0x81: "\x81", 0x8A: "\x8a", 0x8C: "\x8c", 0x8D: "\x8d", 0x8E: "\x8e",
                      0x8F: "\x8f", 0x90: "\x90", 0x9A: "\x9a", 0x9C: "\x9c", 0x9D: "\x9d",
                      0x9E: "\x9e", 0x9F: "\x9f", 0xA1: None, 0xAA: None, 0xB8: None, 0xBA: None,
                      0xBF: None, 0xD7: None, 0xD8: None}),
    5352: ("cp1256", {0x8A: "\x8a", 0x8F: "\x8f", 0x98: "\x98", 0x9A: "\x9a", 0x9F: "\x9f",
                      0xAA: None, 0xC0: None, 0xFF: None}),
    5353: ("cp1257", {0x81: "\x81", 0x83: "\x83", 0x88: "\x88", 0x8A: "\x8a", 0x8C: "\x8c",
                      0x8D: "\x8d", 0x8E: "\x8e", 0x8F: "\x8f", 0x90: "\x90", 0x98: "\x98",
                      0x9A: "\x9a", 0x9C: "\x9c", 0x9D: "\x9d", 0x9E: "\x9e", 0x9F: "\x9f",
                      0xB4: None, 0xFF: None}),
    5354: ("cp1258", {0x81: "\x81", 0x8A: "\x8a", 0x8D: "\x8d", 0x8E: "\x8e", 0x8F: "\x8f",
                      0x90: "\x90", 0x9A: "\x9a", 0x9D: "\x9d", 0x9E: "\x9e"}),
}
#: the Windows CCSIDs senders label their data with -> the euro table IBM numbers 4096 higher
_WINDOWS = {ccsid: ccsid + 4096 for ccsid in range(1250, 1259)}
#: a country code page -> IBM's same page with the euro sign (EBCDIC 1140-1149, PC 858,
#: ISO 8859-15): text with a '€' that the first cannot hold, the second can
EURO_VARIANTS: dict[int, int] = {37: 1140, 273: 1141, 277: 1142, 278: 1143, 280: 1144,
                                 284: 1145, 285: 1146, 297: 1147, 500: 1148, 871: 1149,
                                 850: 858, 819: 923}
#: EBCDIC single-byte CCSIDs (NL_TO_LF applies when they are converted to non-EBCDIC)
_EBCDIC_SBCS = frozenset({37, 273, 277, 278, 280, 284, 285, 290, 297, 420, 424, 500, 838, 870,
                          871, 875, 918, 1025, 1026, 1047, 1097, 1112, 1122, 1123, 1130, 1132,
                          1137, *range(1140, 1150), *range(1153, 1159), 1160, 1164, 4971,
                          5123, 8482, 12712, 16804})
#: double-byte EBCDIC CCSIDs: ICU only. 5026 and 5035 are z/OS's Japanese 930 and 939 with
#: IBM's extended character set (what z/OS systems label Japanese data with)
_EBCDIC_DBCS = frozenset({930, 933, 935, 937, 939, 1364, 1371, 1388, 1390, 1399, 5026, 5035})
#: PC / EUC multi-byte CCSIDs: ICU's IBM table, else the standard library's nearest codec
_MBCS_FALLBACK: dict[int, str] = {
    932: "cp932", 943: "cp932", 954: "euc_jp", 33722: "euc_jp", 5050: "euc_jp",
    1386: "gbk", 1383: "gb2312", 5488: "gb18030", 949: "euc_kr", 970: "euc_kr", 1363: "cp949",
    950: "cp950", 1370: "cp950"}
_MBCS_ICU = frozenset(_MBCS_FALLBACK) | {964}   # 964 (EUC-TW): no standard-library codec
#: CCSID -> how its name is shown
_UNICODE_NAMES = {1208: "UTF-8", 1200: "UTF-16", 13488: "UTF-16 (UCS-2)", 17584: "UTF-16",
                  1202: "UTF-16LE", 1232: "UTF-32BE", 1234: "UTF-32LE"}
_UTF16 = frozenset({1200, 13488, 17584})


class ConversionError(ValueError):
    """Text that cannot be converted: `reason` is MQ's reason code for it."""

    def __init__(self, reason: int, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class CodePage:
    """One CCSID's codec: strict `decode(bytes) -> str` and `encode(str) -> bytes`."""

    ccsid: int
    ebcdic: bool
    decode: Callable[[bytes], str]
    encode: Callable[[str], bytes]


def _base_table(codec: str) -> list[str | None]:
    if codec.startswith("icu:"):
        return _icu_table(codec[len("icu:"):])
    if codec.startswith("ebcdic:"):
        importlib.import_module("ebcdic")   # registers the cpNNN codecs the stdlib lacks
        codec = codec[len("ebcdic:"):]
    table: list[str | None] = []
    for byte in range(256):
        try:
            table.append(bytes([byte]).decode(codec))
        except UnicodeDecodeError:
            table.append(None)
    return table


def _icu_table(name: str) -> list[str | None]:
    """A single-byte table read once from ICU's converter, then used as a charmap."""
    icu = _icu()
    if icu is None:
        raise LookupError(f"{name}: ICU (PyICU) is not importable here")
    table: list[str | None] = []
    for byte in range(256):
        try:
            table.append(str(icu.UnicodeString(bytes([byte]), name, "strict")))
        except ValueError:
            table.append(None)
    return table


def _needs_missing_icu(ccsid: int) -> bool:
    return _SBCS[ccsid][0].startswith("icu:") and _icu() is None


@cache
def _sbcs(ccsid: int, nl_to_lf: bool) -> CodePage:
    codec, fixes = _SBCS[ccsid]
    table = _base_table(codec)
    for byte, char in fixes.items():
        table[byte] = char
    if nl_to_lf:
        table[_NL] = _LF
    decoding = "".join("\ufffe" if c is None else c for c in table)   # U+FFFE: undefined
    encoding_map = codecs.charmap_build(
        "".join("\ufffe" if c is None else c for c in _sbcs_encode_table(ccsid, table, nl_to_lf)))

    def decode(data: bytes) -> str:
        return codecs.charmap_decode(data, "strict", decoding)[0]

    def encode(text: str) -> bytes:
        return codecs.charmap_encode(text, "strict", encoding_map)[0]
    return CodePage(ccsid, ccsid in _EBCDIC_SBCS, decode, encode)


def _sbcs_encode_table(ccsid: int, table: list[str | None], nl_to_lf: bool) -> list[str | None]:
    """The table encoding follows: with NL_TO_LF decoding, '\\n' still encodes to IBM's LF
    byte (0x25 in EBCDIC), not to NL, so text round-trips as MQ converts it."""
    if not nl_to_lf:
        return table
    codec, fixes = _SBCS[ccsid]
    ibm = _base_table(codec)
    for byte, char in fixes.items():
        ibm[byte] = char
    return ibm


@cache   # the reader's `text` asks for a message's code page once per message
def _unicode(ccsid: int, encoding: int) -> CodePage:
    if ccsid in _UTF16:
        name = "utf-16-le" if encoding & CMQC.MQENC_INTEGER_MASK == CMQC.MQENC_INTEGER_REVERSED \
            else "utf-16-be"
    else:
        name = {1208: "utf-8", 1202: "utf-16-le", 1232: "utf-32-be", 1234: "utf-32-le"}[ccsid]
    return CodePage(ccsid, False, lambda data: data.decode(name), lambda text: text.encode(name))


@lru_cache(maxsize=1)
def _icu() -> Any | None:
    try:
        return importlib.import_module("icu")
    except ImportError:
        return None


def icu_available() -> bool:
    """Whether ICU (PyICU) is importable here: the double-byte EBCDIC code pages need it."""
    return _icu() is not None


@cache
def _from_icu(ccsid: int) -> CodePage | None:
    icu = _icu()
    if icu is None:
        return None
    name = f"ibm-{ccsid}"
    try:
        icu.UnicodeString(b"", name, "strict")
    except Exception:  # noqa: BLE001 - ICU without this table
        return None

    def decode(data: bytes) -> str:
        try:
            return str(icu.UnicodeString(data, name, "strict"))
        except ValueError as exc:
            raise UnicodeDecodeError(name, data, 0, len(data), str(exc)) from None

    def encode(text: str) -> bytes:
        data = bytes(icu.UnicodeString(text).encode(name))
        # ICU substitutes what the target lacks; a strict round trip tells
        try:
            if decode(data) == text:
                return data
        except UnicodeDecodeError:
            pass
        bad = next((i for i, char in enumerate(text) if not _round_trips(char)), 0)
        raise UnicodeEncodeError(name, text, bad, bad + 1, "not in the code page")

    def _round_trips(char: str) -> bool:
        try:
            return decode(bytes(icu.UnicodeString(char).encode(name))) == char
        except UnicodeDecodeError:
            return False
    return CodePage(ccsid, ccsid in _EBCDIC_DBCS, decode, encode)


def _from_stdlib(ccsid: int) -> CodePage | None:
    name = _MBCS_FALLBACK.get(ccsid)
    if name is None:
        return None
    return CodePage(ccsid, False, lambda data: data.decode(name), lambda text: text.encode(name))


def code_page(ccsid: int, encoding: int = CMQC.MQENC_NATIVE, *, nl_to_lf: bool = False) -> CodePage | None:
    """The codec of a CCSID, or None when this process cannot convert it. `encoding` (an
    MQENC value) picks the byte order of UTF-16; `nl_to_lf` decodes the EBCDIC newline as
    '\\n' (MQ's ConvEBCDICNewline=NL_TO_LF)."""
    ccsid = _WINDOWS.get(ccsid, ccsid)
    if ccsid in _SBCS:
        if _needs_missing_icu(ccsid):
            return None
        return _sbcs(ccsid, nl_to_lf and ccsid in _EBCDIC_SBCS)
    if ccsid in _UNICODE_NAMES:
        return _unicode(ccsid, encoding)
    if ccsid in _EBCDIC_DBCS or ccsid in _MBCS_ICU:
        page = _from_icu(ccsid) or _from_stdlib(ccsid)
        if page is not None and nl_to_lf and page.ebcdic:
            return _with_nl_to_lf(page)
        return page
    return None


@cache
def _with_nl_to_lf(page: CodePage) -> CodePage:
    """A double-byte EBCDIC page decoding NL as '\n': its single-byte 0x15 is the only
    byte IBM's tables map to U+0085."""
    decode = page.decode
    return CodePage(page.ccsid, True, lambda data: decode(data).replace("\x85", _LF), page.encode)


def is_ebcdic(ccsid: int) -> bool:
    return ccsid in _EBCDIC_SBCS or ccsid in _EBCDIC_DBCS


def known_ccsids() -> list[int]:
    """Every CCSID `code_page` knows a table for here (the ICU ones only when ICU is there)."""
    found = {c for c in _SBCS if not _needs_missing_icu(c)} | set(_WINDOWS) | set(_UNICODE_NAMES)
    found |= {c for c in _EBCDIC_DBCS | _MBCS_ICU if code_page(c) is not None}
    return sorted(found)


def convert(data: bytes, source_ccsid: int, source_encoding: int,
            target_ccsid: int, target_encoding: int) -> bytes:
    """Text in one CCSID as text in another, as MQGMO_CONVERT converts MQFMT_STRING data.

    Raises ConversionError with MQRC_SOURCE_CCSID_ERROR / MQRC_TARGET_CCSID_ERROR for a
    CCSID this process has no table for, MQRC_NOT_CONVERTED for bytes the source does not
    define or characters the target cannot hold."""
    nl_to_lf = is_ebcdic(source_ccsid) and not is_ebcdic(target_ccsid)
    source = code_page(source_ccsid, source_encoding, nl_to_lf=nl_to_lf)
    if source is None:
        raise ConversionError(CMQC.MQRC_SOURCE_CCSID_ERROR,
                              f"no conversion table for the message's CCSID {source_ccsid}")
    if code_page(target_ccsid, target_encoding) is None:   # before decoding: MQ's order of checks
        raise ConversionError(CMQC.MQRC_TARGET_CCSID_ERROR,
                              f"no conversion table for the requested CCSID {target_ccsid}")
    try:
        text = source.decode(data)
    except UnicodeDecodeError as exc:
        raise ConversionError(CMQC.MQRC_NOT_CONVERTED,
                              f"byte {exc.start} is not valid in CCSID {source_ccsid}") from None
    return encode_text(text, target_ccsid, target_encoding)


def decode_text(data: bytes, ccsid: int, encoding: int = CMQC.MQENC_NATIVE) -> str | None:
    """Text in a CCSID as a str (EBCDIC newlines as '\\n', as MQ's conversion to UTF-8
    gives them), or None when the CCSID is unknown here or the bytes are not valid in it."""
    page = code_page(ccsid, encoding, nl_to_lf=True)
    if page is None:
        return None
    try:
        return page.decode(data)
    except UnicodeDecodeError:
        return None


def encode_text(text: str, ccsid: int, encoding: int = CMQC.MQENC_NATIVE) -> bytes:
    """A str as bytes in a CCSID. Raises ConversionError (MQRC_TARGET_CCSID_ERROR for an
    unknown CCSID, MQRC_NOT_CONVERTED for a character the code page cannot hold)."""
    page = code_page(ccsid, encoding)
    if page is None:
        raise ConversionError(CMQC.MQRC_TARGET_CCSID_ERROR, f"no conversion table for CCSID {ccsid}")
    try:
        return page.encode(text)
    except UnicodeEncodeError as exc:
        raise ConversionError(CMQC.MQRC_NOT_CONVERTED,
                              f"character {text[exc.start:exc.start + 1]!r} (position {exc.start}) "
                              f"has no code in CCSID {ccsid}") from None
