"""JMS messages from the writer (no Spark): the MQRFH2 of a TextMessage / BytesMessage, field
by field against IBM's documented layout (byte-exact against the worked example of
shared/reference/code-pages-and-jms.md section 3), and messages put by the real writer path
into a real embedded queue manager and got back as IBM MQ hands them out: to a getter with a
message handle as properties and the body after the MQRFH2, to an MQGMO_PROPERTIES_FORCE_MQRFH2
getter as an MQRFH2."""
from __future__ import annotations

import datetime as dt
import struct
import time

import pytest
from ibmmq import CMQC

from spark_mq.mq import jms
from spark_mq.mq.outgoing import Column, ColumnError, MessageDefaults, MessagePlan, RowValueError
from spark_mq.mq.producer import ProducerSettings
from spark_mq.mq.sink import write_rows
from spark_mq.mqi.properties import decode_rfh2
from spark_mq.options import parse_connection
from support import drain, mq_options

#: the worked example: TextMessage "Hello" from a Java client (Encoding 273), 161 bytes
WORKED_EXAMPLE = bytes.fromhex(
    "52464820 00000002 0000009c 00000111 000004b8 4d515354 52202020 00000000"
    "000004b8 00000020") + b"<mcd><Msd>jms_text</Msd></mcd>  " + bytes.fromhex("00000050") + (
    b"<jms><Dst>queue:///DEV.QUEUE.1</Dst><Tms>1700000000000</Tms><Dlv>2</Dlv></jms>  ") + b"Hello"


def text_plan(*columns: Column, kind: str = "text", **defaults) -> MessagePlan:
    return MessagePlan([Column("payload", "string"), *columns],
                       defaults=MessageDefaults(jms_message_type=kind, **defaults))


def rfh2_of(out, destination: str = "queue:///DEV.QUEUE.1", now_ms: int = 0) -> bytes:
    return jms.jms_rfh2(out.jms, destination, out.encoding, out.ccsid, out.format, now_ms)


def fields(data: bytes) -> dict:
    """The MQRFH2 at the start of data, big-endian, field by field; folders as text."""
    (struc_id, version, length, encoding, ccsid, fmt, flags, nv_ccsid) = struct.unpack(
        ">4s4i8s2i", data[:36])
    folders, pos = [], 36
    while pos < length:
        (size,) = struct.unpack(">i", data[pos:pos + 4])
        folders.append((size, data[pos + 4:pos + 4 + size].decode()))
        pos += 4 + size
    return {"StrucId": struc_id, "Version": version, "StrucLength": length, "Encoding": encoding,
            "CodedCharSetId": ccsid, "Format": fmt, "Flags": flags, "NameValueCCSID": nv_ccsid,
            "folders": folders, "rest": data[length:]}


# --- the MQRFH2 as IBM lays it out ----------------------------------------------------------------
def test_text_message_is_byte_exact_with_ibms_worked_example():
    plan = text_plan(Column("jms_timestamp", "long"), Column("jms_delivery_mode", "integer"))
    out = plan.message(("Hello", 1_700_000_000_000, 2))
    data = rfh2_of(out) + out.payload
    assert data == WORKED_EXAMPLE
    parsed = fields(data)
    assert parsed == {
        "StrucId": b"RFH ", "Version": 2, "StrucLength": 156, "Encoding": 273,
        "CodedCharSetId": 1208, "Format": b"MQSTR   ", "Flags": 0, "NameValueCCSID": 1208,
        "folders": [(32, "<mcd><Msd>jms_text</Msd></mcd>  "),
                    (80, "<jms><Dst>queue:///DEV.QUEUE.1</Dst><Tms>1700000000000</Tms>"
                         "<Dlv>2</Dlv></jms>  ")],
        "rest": b"Hello"}


def test_headers_and_typed_properties_go_where_ibm_puts_them():
    columns = [Column(name, kind) for name, kind in [
        ("jms_type_name", "string"), ("jms_reply_to", "string"), ("jms_timestamp", "timestamp"),
        ("jms_expiration", "long"), ("jms_correlation_id", "string"),
        ("jms_delivery_mode", "integer"), ("jms_priority", "integer"), ("colour", "string"),
        ("count", "integer"), ("big", "long"), ("tiny", "byte"), ("small", "short"),
        ("ratio", "double"), ("single", "float"), ("ok", "boolean"), ("blob", "binary"),
        ("gone", "string"), ("properties", "map<string,string>")]]
    expires = int(time.time() * 1000) + 3_600_000
    row = ("<b>caf\u00e9</b>", "Order", "queue://QM2/REPLY.Q?targetClient=0",
           dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=dt.timezone.utc), expires, "order-7",
           1, 7, "red & blue", 42, 2**40, -3, 300, 1.5, 0.25, True, b"\x00\xab", None,
           [("from.map", "m")])
    out = text_plan(*columns).message(row)
    # the MQMD fields behind the headers
    assert (out.reply_to_queue, out.reply_to_qmgr) == ("REPLY.Q", "QM2")
    assert out.correl_id == b"order-7".ljust(24, b"\0")
    assert (out.persistent, out.priority) == (False, 7)
    assert 35_990 <= out.expiry <= 36_000
    assert out.properties == []           # they travel in the MQRFH2, not on a handle
    parsed = fields(rfh2_of(out, "queue:///ORDERS") + out.payload)
    assert parsed["StrucLength"] % 4 == 0 and parsed["Encoding"] == 273
    assert [size % 4 for size, _ in parsed["folders"]] == [0, 0, 0]
    mcd, jms_folder, usr = (text.rstrip(" ") for _, text in parsed["folders"])
    assert mcd == "<mcd><Msd>jms_text</Msd><Type>Order</Type></mcd>"
    assert jms_folder == (
        "<jms><Dst>queue:///ORDERS</Dst><Rto>queue://QM2/REPLY.Q?targetClient=0</Rto>"
        f"<Tms>1700000000000</Tms><Exp>{expires}</Exp><Cid>order-7</Cid><Dlv>1</Dlv>"
        "<Pri>7</Pri></jms>")
    assert usr == (
        "<usr><from><map>m</map></from><colour>red &amp; blue</colour><count dt='i4'>42</count>"
        f"<big dt='i8'>{2**40}</big><tiny dt='i1'>-3</tiny><small dt='i2'>300</small>"
        "<ratio dt='r8'>1.5</ratio><single dt='r4'>0.25</single><ok dt='boolean'>1</ok>"
        "<blob dt='bin.hex'>00AB</blob><gone xsi:nil='true'></gone></usr>")
    assert parsed["rest"] == "<b>caf\u00e9</b>".encode()


def test_an_id_correlation_id_is_the_correlid_bytes_and_no_cid():
    out = text_plan(Column("jms_correlation_id", "string")).message(("x", "ID:" + "0a" * 24))
    assert out.correl_id == b"\x0a" * 24
    assert "<Cid>" not in rfh2_of(out).decode("latin-1")


def test_bytes_message_and_ccsid_of_a_text_message():
    out = MessagePlan([Column("payload", "binary")],
                      defaults=MessageDefaults(jms_message_type="bytes")).message((b"\x00\xff",))
    parsed = fields(rfh2_of(out) + out.payload)
    assert (parsed["Format"], parsed["CodedCharSetId"]) == (b"        ", 1208)
    assert parsed["folders"][0][1].startswith("<mcd><Msd>jms_bytes</Msd></mcd>")
    assert parsed["rest"] == b"\x00\xff"
    out = text_plan(ccsid=37).message(("Hello",))
    parsed = fields(rfh2_of(out) + out.payload)
    assert (parsed["CodedCharSetId"], parsed["rest"]) == (37, "Hello".encode("cp037"))


def test_encoding_546_writes_the_header_little_endian():
    out = text_plan(encoding=546).message(("Hello",))
    data = rfh2_of(out)
    assert data[4:8] == b"\x02\0\0\0" and struct.unpack("<i", data[12:16]) == (546,)
    assert decode_rfh2(data + b"x").encoding == 546


def test_jms_columns_without_jms_message_type_name_the_column_and_option():
    with pytest.raises(ColumnError) as failure:
        MessagePlan([Column("payload", "string"), Column("jms_destination", "string")])
    assert "jms_destination" in str(failure.value) and "jmsMessageType" in str(failure.value)


def test_a_jms_type_column_chooses_per_row():
    plan = MessagePlan([Column("payload", "string"), Column("jms_type", "string"),
                        Column("jms_priority", "integer")])
    assert plan.message(("a", "TEXT", 3)).jms.kind == "text"
    assert plan.message(("a", "bytes", 3)).jms.kind == "bytes"
    plain = plan.message(("a", "none", 3))
    assert plain.jms is None and plain.priority is None
    assert plan.message(("a", None, 3)).jms is None       # the option's none
    with pytest.raises(RowValueError, match="column 'jms_type': 'map'; valid: text | bytes"):
        plan.message(("a", "map", 3))


@pytest.mark.parametrize("column,kind,value,expected", [
    ("jms_delivery_mode", "integer", 3, "column 'jms_delivery_mode': 3, valid: 2"),
    ("jms_priority", "integer", 10, "column 'jms_priority': 10, valid: 0 to 9"),
    ("jms_reply_to", "string", "REPLY.Q", "column 'jms_reply_to': 'REPLY.Q' is not a JMS"),
])
def test_bad_header_values_name_the_column(column, kind, value, expected):
    with pytest.raises(RowValueError, match=expected):
        text_plan(Column(column, kind)).message(("x", value))


# --- through the queue manager ------------------------------------------------------------------
def _write(qm, queue, rows, plan) -> None:
    write_rows(rows, plan, parse_connection(mq_options(qm)), ProducerSettings(), queue, 10)


HEADER_COLUMNS = [Column("jms_reply_to", "string"), Column("jms_correlation_id", "string"),
                  Column("jms_priority", "integer"), Column("colour", "string"),
                  Column("count", "integer")]
HEADER_ROW = ("Hello", "queue:///REPLY.Q", "order-7", 6, "red", 42)


def test_a_handle_getter_gets_the_jms_headers_as_properties_and_the_plain_body(qm, conn,
                                                                              make_queue):
    queue = make_queue()
    _write(qm, queue, [HEADER_ROW], text_plan(*HEADER_COLUMNS))
    [(md, body, props)] = drain(conn, queue)
    assert body == b"Hello"
    assert (md.Format, md.CodedCharSetId) == (CMQC.MQFMT_STRING, 1208)
    assert props["mcd.Msd"] == "jms_text"
    assert props["JMSDestination"] == f"queue:///{queue}"
    assert props["JMSReplyTo"] == "queue:///REPLY.Q"
    assert props["JMSCorrelationID"] == "order-7"
    assert str(props["JMSDeliveryMode"]) == "2" and str(props["JMSPriority"]) == "6"
    assert props["colour"] == "red" and props["count"] == 42
    assert md.ReplyToQ.rstrip(b"\0 ") == b"REPLY.Q" and md.Priority == 6
    assert md.CorrelId == b"order-7".ljust(24, b"\0")
    assert md.Persistence == CMQC.MQPER_PERSISTENT


def test_a_force_rfh2_getter_gets_the_mqrfh2(qm, conn, make_queue):
    queue = make_queue()
    _write(qm, queue, [HEADER_ROW], text_plan(*HEADER_COLUMNS))
    [(md, body, _)] = drain(conn, queue, force_rfh2=True)
    assert md.Format == CMQC.MQFMT_RF_HEADER_2 and body[:4] == b"RFH "
    decoded = decode_rfh2(body)
    props = {p.name: p.value for p in decoded.properties}
    assert (decoded.rest, decoded.format, decoded.ccsid) == (b"Hello", b"MQSTR   ", 1208)
    assert props["mcd.Msd"] == "jms_text" and props["JMSDestination"] == f"queue:///{queue}"
    assert props["colour"] == "red" and props["count"] == 42
    assert str(props["JMSPriority"]) == "6"


def test_a_jms_message_too_large_for_the_queue_names_the_row_and_limit(qm, conn, make_queue):
    queue = make_queue("MAXMSGL(2000)")
    rows = [("small",), ("x" * 1900,)]
    with pytest.raises(RowValueError) as failure:
        _write(qm, queue, rows, text_plan())
    message = str(failure.value)
    assert "row 2 " in message and "2000" in message and "MAXMSGL" in message
    assert drain(conn, queue) == []
