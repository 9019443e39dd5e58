"""The packaged jobs on mainframe text, run as a user runs them: EBCDIC (CCSID 500 and 37)
MQSTR messages and messages that are not text, put with IBM's API on a real embedded queue
manager, then spark-submit of the job. Every message must end up either in the files once,
as the Unicode text its sender meant, or on the backout queue with its reason: never as
replacement characters."""
from __future__ import annotations

import glob
import json

import ibmmq
import pytest
from ibmmq import CMQC

from support import connection_args, depth, drain, explain, put_messages, spark_submit

pytestmark = pytest.mark.spark

#: characters whose bytes differ between CCSID 37 and 500 ([ ] ! | ¬ ^), and some that
#: UTF-8 read as EBCDIC would turn into U+FFFD
TEXTS = {500: ["Grüße aus Zürich [500] ! | ¬ ^", "Kontonummer: 4711; Betrag: 12,50 ¢"],
         37: ["Order [37] ! | ¬ ^ from CICS", "Société Générale, Ærø, Ñandú"],
         1208: ["plain UTF-8: 東京 €"]}


def put_in(conn, queue: str, data: bytes, ccsid: int, fmt: bytes = CMQC.MQFMT_STRING) -> bytes:
    [msg_id] = put_messages(conn, queue, [data], md_fields={"CodedCharSetId": ccsid, "Format": fmt})
    return msg_id


def test_queue_to_files_writes_ebcdic_as_its_text_and_moves_what_is_not_text(qm, conn, make_queue, tmp_path):
    backout = make_queue()
    queue = make_queue(f"BOTHRESH(3) BOQNAME('{backout}')")
    codecs = {500: "cp500", 37: "cp037", 1208: "utf-8"}
    good = {put_in(conn, queue, text.encode(codecs[ccsid]), ccsid): text
            for ccsid, texts in TEXTS.items() for text in texts}
    not_text = {put_in(conn, queue, b"caf\xe9 \xff\xfe", 1208): CMQC.MQRC_NOT_CONVERTED,
                put_in(conn, queue, "Zürich".encode("cp500"), 4242): CMQC.MQRC_SOURCE_CCSID_ERROR,
                put_in(conn, queue, b"\x00\x0c\x9f\x1f", 1208, CMQC.MQFMT_NONE): CMQC.MQRC_FORMAT_ERROR}
    good[put_in(conn, queue, "last one [37]".encode("cp037"), 37)] = "last one [37]"
    out = tmp_path / "archive"
    process = spark_submit("queue_to_files.py", *connection_args(qm), "--queue", queue, "--format", "json",
                           "--path", str(out), "--max-messages-per-trigger", "4", timeout=300)
    assert process.returncode == 0, explain(process)
    assert f"done: {len(good)} messages from {queue}" in process.stdout, explain(process)
    assert (f"not text: 3 messages of {queue} could not be written as text" in process.stdout
            and f"moved to {backout}" in process.stdout), explain(process)

    rows = [json.loads(line) for name in glob.glob(str(out / "part-*.json")) for line in open(name)]
    written = {bytes.fromhex(row["message_id"]): row["payload"] for row in rows}
    assert len(rows) == len(written)                         # none twice
    assert written == good                                   # each its sender's text, none garbled
    assert not any("\ufffd" in row["payload"] for row in rows)

    assert depth(conn, queue) == 0
    moved = drain(conn, backout)
    assert {md.MsgId for md, _, _ in moved} == set(not_text)  # the rest: on the backout queue
    for md, body, _ in moved:
        assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER
        assert ibmmq.DLH().get_header(body).Reason == not_text[md.MsgId]


def test_the_archive_job_help_says_how_code_pages_are_handled():
    from support import python_job
    process = python_job("queue_to_files.py", "--help", timeout=60)
    assert process.returncode == 0, explain(process)
    text = " ".join(process.stdout.split())
    assert "decoded by its own CCSID" in text and "never written as replacement characters" in text
    assert "backout queue" in text and "--queue DEV.QUEUE.1" in text and "mqsc/spark-mq.mqsc" in text


def test_the_bridge_answers_ebcdic_requests_in_their_text_and_moves_what_is_not_text(
        qm, conn, make_queue, tmp_path):
    backout, replies = make_queue(), make_queue()
    requests = make_queue(f"BOTHRESH(3) BOQNAME('{backout}')")
    md_fields = {"MsgType": CMQC.MQMT_REQUEST, "ReplyToQ": replies.encode(), "Format": CMQC.MQFMT_STRING}
    sent = {}
    for ccsid, codec, text in ((500, "cp500", "grüße [500] ! ¬"), (37, "cp037", "société [37] ! ¬")):
        [msg_id] = put_messages(conn, requests, [text.encode(codec)],
                                md_fields={**md_fields, "CodedCharSetId": ccsid})
        sent[msg_id] = text
    [bad] = put_messages(conn, requests, [b"\xff\xfe not UTF-8"],
                         md_fields={**md_fields, "CodedCharSetId": 1208})
    process = spark_submit("request_reply_bridge.py", *connection_args(qm), "--request-queue", requests,
                           "--transform", "upper", "--checkpoint", str(tmp_path / "ckpt"),
                           "--trigger", "available-now", timeout=300)
    assert process.returncode == 0, explain(process)
    assert "done: answered 2 requests" in process.stdout, explain(process)
    assert f"not text: 1 message of {requests}" in process.stdout, explain(process)
    answered = drain(conn, replies)
    # each request's text, upper-cased, in UTF-8 MQSTR: nothing read as the wrong code page
    assert {md.CorrelId: (payload.decode("utf-8"), md.CodedCharSetId) for md, payload, _ in answered} == {
        msg_id: (text.upper(), 1208) for msg_id, text in sent.items()}
    [(md, body, _)] = drain(conn, backout)
    assert md.MsgId == bad and ibmmq.DLH().get_header(body).Reason == CMQC.MQRC_NOT_CONVERTED
    assert depth(conn, requests) == 0
