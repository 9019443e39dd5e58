"""The writer's code pages (no Spark): a string payload is encoded in the row's CCSID, byte
for byte as the code page says, and put with that CCSID and Format MQSTR through the real
writer path into a real embedded queue manager; text a code page cannot hold fails the row,
naming it; the options `ccsid`, `encoding`, `format` are validated."""
from __future__ import annotations

import pytest
from ibmmq import CMQC

from spark_mq.mq.exceptions import MQOptionError
from spark_mq.mq.outgoing import Column, MessageDefaults, MessagePlan, RowValueError
from spark_mq.mq.producer import ProducerSettings
from spark_mq.mq.sink import write_rows
from spark_mq.mqi import codepages
from spark_mq.mqi.codepages import EURO_VARIANTS, encode_text
from spark_mq.options import WriteOptions, parse_connection
from support import drain, mq_options

BASE = {"connName": "localhost(1414)", "queue": "Q1"}
TEXT = "Order 42: [OK] ^ ~ | ! \u00e4\u00f6\u00fc \u00df \u00e9"   # the EBCDIC pitfalls
#: CCSID -> Python's own codec, where the standard library has IBM's table unchanged
PYTHON_CODEC = {37: "cp037", 500: "cp500"}


def plan(*columns: Column, **defaults) -> MessagePlan:
    return MessagePlan([Column("payload", "string"), *columns], defaults=MessageDefaults(**defaults))


@pytest.mark.parametrize("ccsid", [37, 500, 1047, 273, 939])
def test_a_string_payload_is_encoded_in_the_rows_ccsid(ccsid):
    if ccsid == 939 and not codepages.icu_available():
        pytest.skip("CCSID 939 needs ICU (pyicu-wheels)")
    text = TEXT if ccsid != 939 else "\u6ce8\u6587 42 \uff71\uff72 abc"   # kanji, katakana, latin
    out = plan(Column("ccsid", "integer")).message((text, ccsid))
    assert out.payload == codepages.encode_text(text, ccsid)
    if ccsid in PYTHON_CODEC:
        assert out.payload == text.encode(PYTHON_CODEC[ccsid])
    assert out.payload != text.encode("utf-8")
    assert (out.ccsid, out.format) == (ccsid, b"MQSTR   ")
    assert codepages.decode_text(out.payload, ccsid) == text


def test_ebcdic_pitfalls_are_the_code_pages_own_bytes():
    brackets = plan(Column("ccsid", "integer"))
    assert brackets.message(("[]", 37)).payload == b"\xba\xbb"
    assert brackets.message(("[]", 1047)).payload == b"\xad\xbd"
    assert brackets.message(("[]", 500)).payload == b"\x4a\x5a"
    assert brackets.message(("\u00af", 273)).payload == b"\xbc"   # IBM's 273, not cp273's


def test_the_column_wins_over_the_option_and_the_option_is_the_default():
    p = plan(Column("ccsid", "integer"), ccsid=500)
    assert p.message(("!", None)).payload == b"\x4f" and p.message(("!", None)).ccsid == 500
    assert p.message(("!", 37)).payload == b"\x5a" and p.message(("!", 37)).ccsid == 37
    assert plan().message(("\u00e9",)).payload == "\u00e9".encode() and \
        plan().message(("x",)).ccsid == 1208


def test_utf16_follows_the_byte_order_of_the_encoding():
    p = plan(Column("ccsid", "integer"), Column("encoding", "integer"))
    assert p.message(("A\u00e9", 1200, 546)).payload == "A\u00e9".encode("utf-16-le")
    assert p.message(("A\u00e9", 1200, 273)).payload == "A\u00e9".encode("utf-16-be")
    assert plan(Column("ccsid", "integer"), encoding=273).message(
        ("A", 1200)).payload == b"\x00A"


def test_a_binary_payload_is_left_as_it_is_and_labelled():
    p = MessagePlan([Column("payload", "binary"), Column("ccsid", "integer")],
                    defaults=MessageDefaults(format="MQSTR"))
    out = p.message((b"\xc1\xc2\xff", 37))
    assert (out.payload, out.ccsid, out.format) == (b"\xc1\xc2\xff", 37, b"MQSTR   ")
    out = MessagePlan([Column("payload", "binary")]).message((b"abc",))
    assert (out.ccsid, out.format) == (None, None)     # as before: MQ's defaults


def test_format_column_and_option():
    assert plan(format="MYFMT").message(("x",)).format == b"MYFMT   "
    assert plan(Column("format", "string"), format="MYFMT").message(("x", "OTHER")).format == \
        b"OTHER   "
    assert plan(format="").message(("x",)).format == b"        "


def test_unencodable_text_fails_the_row_naming_column_ccsid_character_and_position():
    p = plan(Column("ccsid", "integer"))
    with pytest.raises(RowValueError) as failure:
        p.message(("price: 5\u20ac", 37))      # no euro sign in 37 (1140 has it)
    message = str(failure.value)
    for part in ("column 'payload'", "CCSID 37", "'\u20ac'", "position 8", "column 'ccsid'"):
        assert part in message, message


@pytest.mark.parametrize("ccsid, variant", sorted(EURO_VARIANTS.items()))
def test_a_euro_the_row_s_ccsid_lacks_is_pointed_at_that_page_with_the_euro(ccsid, variant):
    with pytest.raises(RowValueError) as failure:
        plan(Column("ccsid", "integer")).message(("5 \u20ac", ccsid))
    message = str(failure.value)
    assert "(MQ reason 2119 MQRC_NOT_CONVERTED)" in message, message
    assert f"valid: CCSID {variant} ({ccsid} with the euro sign) or 1208 (UTF-8), which hold it" \
        in message, message
    assert encode_text("5 \u20ac", variant, 273)     # the suggestion holds the text


def test_text_no_euro_page_holds_gets_utf_8_only():
    with pytest.raises(RowValueError) as failure:
        plan(Column("ccsid", "integer")).message(("\u4e2d", 37))    # no 37 page has CJK
    assert "valid: a CCSID that holds it (e.g. 1208, UTF-8)" in str(failure.value)


def test_an_unknown_ccsid_in_a_column_names_the_column_and_valid_values():
    with pytest.raises(RowValueError) as failure:
        plan(Column("ccsid", "integer")).message(("x", 4242))
    message = str(failure.value)
    assert "column 'ccsid'" in message and "4242" in message and "1208" in message


@pytest.mark.parametrize("key,value,valid", [
    ("ccsid", "4242", "a CCSID this process has a code page for"),
    ("ccsid", "ebcdic", "1208 (UTF-8), 37"),
    ("encoding", "7", "546 (native, little-endian)"),
    ("format", "TOOLONGFMT", "up to 8 ASCII characters"),
    ("jmsMessageType", "map", "none | text | bytes"),
    ("context", "pass", "auto | none | all"),
])
def test_bad_options_name_the_option_value_and_what_is_valid(key, value, valid):
    with pytest.raises(MQOptionError) as failure:
        WriteOptions.parse({**BASE, key: value}, streaming=True)
    assert failure.value.option == key and failure.value.value == value
    assert valid in str(failure.value)
    if key == "ccsid":
        assert "docs/mainframe-and-jms.md" in str(failure.value)


def test_options_parse():
    options = WriteOptions.parse({**BASE, "ccsid": "37", "encoding": "273", "format": "MQSTR",
                                  "jmsMessageType": "TEXT", "context": "all"}, True)
    assert (options.ccsid, options.encoding, options.format, options.jms_message_type,
            options.context) == (37, 273, "MQSTR", "text", "all")
    default = WriteOptions.parse(BASE, True)
    assert (default.ccsid, default.encoding, default.format, default.jms_message_type) == (
        None, None, None, "none")


# --- through the real writer path -------------------------------------------------------------
def test_ebcdic_rows_arrive_as_ebcdic_bytes(qm, conn, make_queue):
    queue = make_queue()
    p = plan(Column("ccsid", "integer"), ccsid=500)
    rows = [(TEXT, 37), (TEXT, None), (TEXT, 1208)]
    write_rows(rows, p, parse_connection(mq_options(qm)), ProducerSettings(), queue, 10)
    got = drain(conn, queue)
    assert [body for _, body, _ in got] == [TEXT.encode("cp037"), TEXT.encode("cp500"),
                                            TEXT.encode("utf-8")]
    assert [md.CodedCharSetId for md, _, _ in got] == [37, 500, 1208]
    assert {md.Format for md, _, _ in got} == {CMQC.MQFMT_STRING}


def test_a_row_that_cannot_be_encoded_fails_the_task_naming_the_row(qm, conn, make_queue):
    queue = make_queue()
    p = plan(Column("ccsid", "integer"))
    rows = [("fine", 37), ("also fine", 37), ("\u00a4 and \u20ac", 37)]
    with pytest.raises(RowValueError) as failure:
        write_rows(rows, p, parse_connection(mq_options(qm)), ProducerSettings(), queue, 10)
    assert "row 3 " in str(failure.value) and "'\u20ac'" in str(failure.value)
    assert drain(conn, queue) == []      # the unit of work was backed out
