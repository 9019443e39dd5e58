"""The code-page tables against IBM's own (ICU's `ibm-NNN` converters are IBM's tables), and
MQ's conversion rules: NL_TO_LF, strict errors with MQ's reasons, UTF-16 byte order."""
from __future__ import annotations

import icu
import pytest
from ibmmq import CMQC

from spark_mq.mqi import codepages
from spark_mq.mqi.codepages import ConversionError, code_page, convert, decode_text, encode_text

SINGLE_BYTE = sorted(c for c in codepages._SBCS)


def _ibm_table(ccsid: int) -> list[str | None]:
    table: list[str | None] = []
    for byte in range(256):
        try:
            table.append(str(icu.UnicodeString(bytes([byte]), f"ibm-{ccsid}", "strict")))
        except ValueError:
            table.append(None)
    return table


def _our_table(ccsid: int) -> list[str | None]:
    page = code_page(ccsid)
    assert page is not None
    table: list[str | None] = []
    for byte in range(256):
        try:
            table.append(page.decode(bytes([byte])))
        except UnicodeDecodeError:
            table.append(None)
    return table


@pytest.mark.parametrize("ccsid", SINGLE_BYTE)
def test_every_single_byte_table_is_ibms(ccsid):
    assert _our_table(ccsid) == _ibm_table(ccsid)


@pytest.mark.parametrize("ccsid", SINGLE_BYTE)
def test_every_single_byte_table_encodes_back(ccsid):
    page = code_page(ccsid)
    for byte, char in enumerate(_our_table(ccsid)):
        if char is not None:
            assert page.encode(char) == bytes([byte]) or page.decode(page.encode(char)) == char


@pytest.mark.parametrize("ccsid", [1250, 1251, 1252, 1253, 1254, 1255, 1256, 1257, 1258])
def test_windows_ccsids_use_the_euro_tables(ccsid):
    assert _our_table(ccsid) == _ibm_table(ccsid + 4096)


def test_ibms_common_ebcdic_ccsids_are_all_there():
    """The EBCDIC CCSIDs IBM MQ's national-language tables name as z/OS and IBM i native
    (IBM docs: "Code page conversion", the per-language tables, and "Unicode conversion
    support"): single-byte pages with and without the euro, and the mixed DBCS ones."""
    wanted = {37, 273, 277, 278, 280, 284, 285, 290, 297, 420, 424, 500, 838, 870, 871, 875,
              918, 1025, 1026, 1047, 1097, 1112, 1122, 1123, 1130, 1132, 1137,
              *range(1140, 1150), *range(1153, 1159), 1160, 1164, 4971, 5123, 8482, 12712,
              16804, 930, 933, 935, 937, 939, 1364, 1371, 1388, 1390, 1399, 5026, 5035}
    assert wanted <= set(codepages.known_ccsids())
    assert all(codepages.is_ebcdic(ccsid) for ccsid in wanted)


def test_the_users_code_pages_are_all_there():
    wanted = {37, 273, 277, 278, 280, 284, 285, 297, 500, 871, 1047, *range(1140, 1150),
              930, 939, 1390, 1399, 935, 1388, 933, 1364, 819, 1252, 1208, 1200, 1202, 1232, 1234}
    assert wanted <= set(codepages.known_ccsids())


@pytest.mark.parametrize("ccsid,sample", [
    (930, "ｶﾀｶﾅ 東京"), (939, "東京 Tokyo"), (1390, "東京 ｶﾅ"), (1399, "東京 Tokyo 2024"),
    (935, "中国 ABC"), (1388, "北京 abc"), (933, "서울 ABC"), (1364, "서울 abc")])
def test_double_byte_ebcdic_round_trips_with_shifts(ccsid, sample):
    data = encode_text(sample, ccsid)
    assert b"\x0e" in data and b"\x0f" in data   # SO/SI around the double-byte part
    assert decode_text(data, ccsid) == sample
    assert data == bytes(icu.UnicodeString(sample).encode(f"ibm-{ccsid}"))


def test_ebcdic_newline_becomes_line_feed_outside_ebcdic_only():
    data = "A".encode("cp037") + b"\x15" + "B".encode("cp037")
    assert convert(data, 37, 273, 1208, 546) == b"A\nB"
    assert convert(data, 37, 273, 500, 273) == data            # EBCDIC to EBCDIC: the table
    assert decode_text(data, 37) == "A\nB"
    assert convert(b"A\nB", 1208, 546, 37, 273) == b"\xc1\x25\xc2"   # LF is 0x25 in IBM's table


def test_1047_keeps_ibms_newline_not_the_z_os_unix_swap():
    assert code_page(1047).decode(b"\x25") == "\n" and code_page(1047).decode(b"\x15") == "\x85"


def test_utf16_byte_order_follows_the_integer_encoding():
    assert convert("Aü".encode(), 1208, 546, 1200, 546) == "Aü".encode("utf-16-le")
    assert convert("Aü".encode(), 1208, 546, 1200, 273) == "Aü".encode("utf-16-be")
    assert decode_text("Aü".encode("utf-16-be"), 1200, 273) == "Aü"


def test_errors_carry_mqs_reasons():
    with pytest.raises(ConversionError) as unknown_source:
        convert(b"x", 4711, 546, 1208, 546)
    assert unknown_source.value.reason == CMQC.MQRC_SOURCE_CCSID_ERROR
    with pytest.raises(ConversionError) as unknown_target:
        convert(b"x", 1208, 546, 4711, 546)
    assert unknown_target.value.reason == CMQC.MQRC_TARGET_CCSID_ERROR
    with pytest.raises(ConversionError) as unmappable:
        convert("€ and 東".encode(), 1208, 546, 37, 273)
    assert unmappable.value.reason == CMQC.MQRC_NOT_CONVERTED and "position 0" in str(unmappable.value)
    with pytest.raises(ConversionError) as undefined:
        convert(b"\xdc", 875, 273, 1208, 546)   # a byte IBM's Greek table leaves undefined
    assert undefined.value.reason == CMQC.MQRC_NOT_CONVERTED
    with pytest.raises(ConversionError) as bad_utf8:
        convert(b"\xff\xfe", 1208, 546, 37, 273)
    assert bad_utf8.value.reason == CMQC.MQRC_NOT_CONVERTED
    assert decode_text(b"\xff", 1208) is None and decode_text(b"x", 4711) is None


def test_pitfalls_between_037_500_and_1047():
    # brackets, caret and not-sign sit at different bytes: the classic mainframe garbling
    pitfalls = ((37, b"\xba\xbb\xb0\x5f"), (1047, b"\xad\xbd\x5f\xb0"), (500, b"\x4a\x5a\x5f\xba"))
    for ccsid, expected in pitfalls:
        assert encode_text("[]^¬", ccsid) == expected
