"""Mainframe and JMS senders through the reader: the `text` column decodes each message by
its own CCSID, `convert` has the queue manager convert (MQGMO_CONVERT) with MQ's warnings
per message, and the JMS columns show what a JMS receiver would see.

Fixtures are made here with Python's own codecs (cp037, cp500, cp273) and the project's
code-page tables (1047, 939), then read back through a real Spark session from a real
embedded queue manager: byte-exact."""
from __future__ import annotations

import struct

import ibmmq
import pytest
from ibmmq import CMQC

from spark_mq.mqi.codepages import encode_text
from support import ibm_otel_hooks_off, reader_options

TEXT = "Grüße aus Köln: 42 Äpfel & 7 Birnen."
#: the same text in the CCSIDs a mainframe and its neighbours send (DBCS: Japanese)
SENDERS = {1208: TEXT, 37: TEXT, 500: TEXT, 1047: TEXT, 273: TEXT, 1141: TEXT,
           939: "東京の注文 42 件 ABC", 1399: "大阪 7 件", 1200: TEXT}
UNKNOWN_CCSID = 4711


def _put(conn, queue: str, body: bytes, ccsid: int, fmt: bytes = CMQC.MQFMT_STRING,
         encoding: int = CMQC.MQENC_NATIVE, handle=None, **md_fields) -> bytes:
    md = ibmmq.MD(Format=fmt, CodedCharSetId=ccsid, Encoding=encoding, **md_fields)
    pmo = ibmmq.PMO(OriginalMsgHandle=handle.msg_handle) if handle is not None else ibmmq.PMO()
    q = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
    try:
        hooks = ("put_trace_before",) if fmt == CMQC.MQFMT_RF_HEADER_2 else ()
        with ibm_otel_hooks_off(*hooks):   # IBM's hook fails on an MQHRF2 put (support.py)
            q.put(body, md, pmo)
    finally:
        q.close()
    return md.MsgId


def _fill(conn, queue: str) -> dict[bytes, tuple[int, str]]:
    """Every sender's text, one message each, plus a binary and an unknown-CCSID message."""
    sent = {}
    for ccsid, text in SENDERS.items():
        sent[_put(conn, queue, encode_text(text, ccsid), ccsid)] = (ccsid, text)
    sent[_put(conn, queue, b"\x00\x01binary", 1208, fmt=CMQC.MQFMT_NONE)] = (1208, None)
    sent[_put(conn, queue, b"\xc1\xc2\xc3", UNKNOWN_CCSID)] = (UNKNOWN_CCSID, None)
    return sent


def _stream(spark, options: dict, tmp_path, schema: str | None = None) -> list:
    reader = spark.readStream.format("mq").options(**options)
    if schema:
        reader = reader.schema(schema)
    query = (reader.load().writeStream.format("memory").queryName(f"q{abs(hash(str(tmp_path)))}")
             .option("checkpointLocation", str(tmp_path / "ckpt")).trigger(availableNow=True).start())
    query.awaitTermination(180)
    assert query.exception() is None, query.exception()
    return spark.sql(f"select * from q{abs(hash(str(tmp_path)))}").collect()


def test_text_column_decodes_every_sender_by_its_own_ccsid(spark, qm, conn, make_queue, tmp_path):
    queue = make_queue()
    sent = _fill(conn, queue)
    for rows in (spark.read.format("mq").options(**reader_options(qm, queue)).load().collect(),
                 _stream(spark, reader_options(qm, queue), tmp_path)):
        by_id = {bytes(r.message_id): r for r in rows}
        assert set(by_id) == set(sent)
        for msg_id, (ccsid, text) in sent.items():
            row = by_id[msg_id]
            assert row.ccsid == ccsid
            assert row.text == text, (ccsid, row.text)
            if text is not None:   # the payload is what was put, untouched
                assert bytes(row.payload) == encode_text(text, ccsid)


def test_a_string_payload_is_decoded_by_each_message_ccsid(spark, qm, conn, make_queue, tmp_path):
    """A user schema's `payload string` (what the writer accepts) reads every sender's text
    by its own CCSID, whatever its Format, and null where the bytes are not text in it."""
    queue = make_queue()
    sent = _fill(conn, queue)
    schema = "payload string, message_id binary"
    for rows in (spark.read.format("mq").options(**reader_options(qm, queue)).schema(schema)
                 .load().collect(),
                 _stream(spark, reader_options(qm, queue), tmp_path, schema)):
        by_id = {bytes(r.message_id): r.payload for r in rows}
        expected = {msg_id: text for msg_id, (_, text) in sent.items()}
        binary = next(i for i, (ccsid, text) in sent.items() if text is None and ccsid == 1208)
        expected[binary] = "\x00\x01binary"    # MQFMT_NONE, but UTF-8 text all the same
        assert by_id == expected


@pytest.mark.parametrize("target", [1208, 37, 939])
def test_convert_asks_the_queue_manager_for_the_ccsid_and_reports_what_it_could_not(
        spark, qm, conn, make_queue, tmp_path, target):
    queue = make_queue()
    sent = _fill(conn, queue)
    rows = _stream(spark, reader_options(qm, queue, convert="true", ccsid=target), tmp_path)
    assert "conversion_reason" in rows[0].asDict()
    by_id = {bytes(r.message_id): r for r in rows}
    assert set(by_id) == set(sent)
    for msg_id, (ccsid, text) in sent.items():
        row = by_id[msg_id]
        if text is None:
            # MQ's warnings: the message is delivered as it was stored, with its reason;
            # binary data already in the wanted CCSID needs no conversion (MQ's first rule)
            if ccsid == target:
                assert row.conversion_reason is None
            else:
                expected = CMQC.MQRC_FORMAT_ERROR if ccsid == 1208 else CMQC.MQRC_SOURCE_CCSID_ERROR
                assert row.conversion_reason == expected and row.ccsid == ccsid
            continue
        try:
            wanted = encode_text(text, target)
        except ValueError:   # the text has no code in the target: MQ says so
            assert row.conversion_reason == CMQC.MQRC_NOT_CONVERTED
            assert bytes(row.payload) == encode_text(text, ccsid) and row.ccsid == ccsid
            continue
        assert row.conversion_reason is None, (ccsid, row.conversion_reason)
        assert row.ccsid == target and bytes(row.payload) == wanted
        assert row.text == text


def test_segmented_and_grouped_ebcdic_text_is_converted_whole(spark, qm, conn, make_queue, tmp_path):
    queue = make_queue("MAXMSGL(1000)")
    long_text = ("注文番号 12345 東京 " * 200)   # double-byte, well past MAXMSGL
    body = encode_text(long_text, 939)
    q = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
    md = ibmmq.MD(Version=CMQC.MQMD_VERSION_2, Format=CMQC.MQFMT_STRING, CodedCharSetId=939,
                  MsgFlags=CMQC.MQMF_SEGMENTATION_ALLOWED)
    q.put(body, md, ibmmq.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
    segmented_id = md.MsgId
    parts = ["Teil eins; ", "Teil zwei; ", "Teil drei."]
    pmo = ibmmq.PMO(Options=CMQC.MQPMO_LOGICAL_ORDER | CMQC.MQPMO_SYNCPOINT)
    for i, part in enumerate(parts):
        flags = CMQC.MQMF_LAST_MSG_IN_GROUP if i == len(parts) - 1 else CMQC.MQMF_MSG_IN_GROUP
        q.put(encode_text(part, 273), ibmmq.MD(Version=CMQC.MQMD_VERSION_2, Format=CMQC.MQFMT_STRING,
                                               CodedCharSetId=273, MsgFlags=flags), pmo)
    conn.commit()
    q.close()
    rows = _stream(spark, reader_options(qm, queue, convert="true"), tmp_path)
    whole = [r for r in rows if bytes(r.message_id) == bytes(segmented_id)]
    assert len(whole) == 1 and whole[0].conversion_reason is None
    assert bytes(whole[0].payload) == long_text.encode("utf-8") and whole[0].text == long_text
    grouped = sorted((r for r in rows if r.msg_seq_number and r.group_id != bytes(24)
                      and bytes(r.message_id) != bytes(segmented_id)), key=lambda r: r.msg_seq_number)
    assert [r.text for r in grouped] == parts
    assert all(bytes(r.payload) == p.encode("utf-8") for r, p in zip(grouped, parts))


def test_ebcdic_newline_is_a_line_feed_in_text_and_after_conversion(spark, qm, conn, make_queue,
                                                                     tmp_path):
    queue = make_queue()
    _put(conn, queue, "ZEILE 1".encode("cp037") + b"\x15" + "ZEILE 2".encode("cp037"), 37)
    rows = _stream(spark, reader_options(qm, queue, convert="true"), tmp_path)
    assert rows[0].text == "ZEILE 1\nZEILE 2"
    assert bytes(rows[0].payload) == b"ZEILE 1\nZEILE 2"


def test_conversion_options_are_checked(spark, qm, make_queue):
    from spark_mq.errors import MQOptionError
    from spark_mq.options import ReadOptions
    with pytest.raises(MQOptionError, match="option 'ccsid'.*'37'.*convert=true"):
        ReadOptions.parse(reader_options(qm, "Q", ccsid=37))
    with pytest.raises(MQOptionError, match="option 'ccsid'.*integer from 1 to 65535"):
        ReadOptions.parse(reader_options(qm, "Q", convert="true", ccsid="ebcdic"))
    with pytest.raises(MQOptionError, match="option 'convert'.*true | false"):
        ReadOptions.parse(reader_options(qm, "Q", convert="maybe"))


# --- JMS ------------------------------------------------------------------------------------
def _rfh2_text_message(text: str, folders: list[str]) -> bytes:
    """A TextMessage as IBM MQ classes for JMS put it (big-endian, Encoding 273)."""
    data = b""
    for folder in folders:
        raw = folder.encode("utf-8")
        raw += b" " * (-len(raw) % 4)
        data += struct.pack(">i", len(raw)) + raw
    header = struct.pack(">4s4i8s2i", b"RFH ", 2, 36 + len(data), 273, 1208, b"MQSTR   ", 0, 1208)
    return header + data + text.encode("utf-8")


JMS_SCHEMA = ("payload binary, text string, jms_type string, jms_type_name string, "
              "jms_destination string, jms_reply_to string, jms_expiration timestamp, "
              "jms_delivery_mode int, jms_priority int, jms_timestamp timestamp, "
              "jms_correlation_id string, jms_map map<string,string>, region string")


def test_jms_messages_fill_the_jms_columns(spark, qm, conn, make_queue, tmp_path):
    queue = make_queue()
    body = _rfh2_text_message("Hallo JMS", [
        "<mcd><Msd>jms_text</Msd><Type>order</Type></mcd>",
        f"<jms><Dst>queue:///{queue}</Dst><Rto>queue://QM2/REPLIES</Rto><Tms>1700000000000</Tms>"
        "<Exp>1900000000000</Exp><Cid>order-7</Cid><Dlv>2</Dlv><Pri>7</Pri></jms>",
        "<usr><region>eu</region></usr>"])
    _put(conn, queue, body, 1208, fmt=CMQC.MQFMT_RF_HEADER_2, encoding=273)
    map_body = _rfh2_text_message(
        "<map><elt name=\"count\" dt='i4'>5</elt><elt name=\"name\">Widget &amp; Co</elt>"
        "<elt name=\"ok\" dt='boolean'>1</elt></map>", ["<mcd><Msd>jms_map</Msd></mcd>"])
    _put(conn, queue, map_body, 1208, fmt=CMQC.MQFMT_RF_HEADER_2, encoding=273)
    _put(conn, queue, b"plain", 1208)   # no RFH2: a JMS receiver sees a TextMessage
    _put(conn, queue, b"\x01\x02", 1208, fmt=CMQC.MQFMT_NONE)   # ... and a BytesMessage
    rows = _stream(spark, reader_options(qm, queue), tmp_path, JMS_SCHEMA)
    by_type = {}
    for row in rows:
        by_type.setdefault(row.jms_type, []).append(row)
    text = by_type["text"][0] if bytes(by_type["text"][0].payload) == b"Hallo JMS" else by_type["text"][1]
    assert text.text == "Hallo JMS" and text.jms_type_name == "order"
    assert text.jms_destination == f"queue:///{queue}" and text.jms_reply_to == "queue://QM2/REPLIES"
    assert text.jms_timestamp.timestamp() == 1_700_000_000
    assert text.jms_expiration.timestamp() == 1_900_000_000
    assert text.jms_correlation_id == "order-7" and text.jms_delivery_mode == 2 and text.jms_priority == 7
    assert text.region == "eu" and text.jms_map is None
    mapped = by_type["map"][0]
    assert mapped.jms_map == {"count": "5", "name": "Widget & Co", "ok": "true"}
    assert len(by_type["text"]) == 2 and len(by_type["bytes"]) == 1


def test_convert_and_text_on_the_executors(spark, qm, conn, make_queue, tmp_path):
    queue = make_queue()
    texts = [f"AUFTRAG {i}: GRUESSE" for i in range(40)]   # in every one of the four
    for i, text in enumerate(texts):
        _put(conn, queue, encode_text(text, (37, 1141, 1047, 939)[i % 4]), (37, 1141, 1047, 939)[i % 4])
    rows = _stream(spark, reader_options(qm, queue, convert="true", readMode="executors",
                                         numPartitions=2), tmp_path)
    assert sorted(r.text for r in rows) == sorted(texts)
    assert all(bytes(r.payload) == r.text.encode("utf-8") and r.ccsid == 1208 for r in rows)


def test_require_text_leaves_no_row_without_text(spark, qm, conn, make_queue, tmp_path):
    from support import drain
    backout = make_queue()
    for read_mode in ("driver", "executors"):
        queue = make_queue(f"BOQNAME('{backout}')")
        sent = _fill(conn, queue)
        texts = {msg_id: text for msg_id, (_ccsid, text) in sent.items() if text is not None}
        options = reader_options(qm, queue, requireText="true", readMode=read_mode)
        if read_mode == "driver":    # a browse moves nothing: it leaves them out
            browsed = spark.read.format("mq").options(**options).load().collect()
            assert {bytes(r.message_id): r.text for r in browsed} == texts
        rows = _stream(spark, options, tmp_path / read_mode)
        assert {bytes(r.message_id): r.text for r in rows} == texts
        moved = {md.MsgId: ibmmq.DLH().get_header(body).Reason for md, body, _ in drain(conn, backout)}
        assert moved == {msg_id: reason for msg_id, reason in zip(
            [m for m, (_c, text) in sent.items() if text is None],
            (CMQC.MQRC_FORMAT_ERROR, CMQC.MQRC_SOURCE_CCSID_ERROR))}
