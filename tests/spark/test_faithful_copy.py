"""A faithful copy through a crash: 1,000 messages with typed properties, a set context (put by
this test with MQPMO_SET_ALL_CONTEXT), CorrelIds, EBCDIC (CCSID 37) MQSTR bodies and
big-endian (273) encodings are copied from queue A to queue B by a real streaming query
(reader includeContext=true -> writer context=all), whose driver's whole process tree is
SIGKILLed mid-stream and restarted on its checkpoint. Then every message is counted: each
MsgId exactly once on B, every MQMD field the copy promises, the body bytes and every
property (name, MQ type, value) identical; A empty."""
from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ibmmq import CMQC

from spark_mq.mqi.properties import decode_rfh2
from support import depth, drain, kill_tree, mq_options

pytestmark = [pytest.mark.timeout(900), pytest.mark.spark]

TOTAL = 1000

DRIVER = r'''
import json, os, sys, time
args = json.loads(sys.argv[1])
os.environ["PYSPARK_PYTHON"] = sys.executable
import spark_mq.embedded
spark_mq.embedded.install()
from pyspark.sql import SparkSession
from pyspark.sql.functions import udf
spark = (SparkSession.builder.master("local[2]").appName("faithful-copy")
         .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
         # not UTC: a put_timestamp taken as local time would move PutDate/PutTime
         .config("spark.sql.session.timeZone", "America/New_York")
         .config("spark.driver.memory", "1g").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
row_sleep = args["row_sleep"]

@udf("binary")
def slow(payload):
    time.sleep(row_sleep)          # keeps a batch in flight long enough to be killed in
    return payload

source = (spark.readStream.format("mq").options(**args["reader"])
          .option("includeContext", "true").load())
query = (source.withColumn("payload", slow("payload"))
         .writeStream.format("mq").options(**args["writer"]).option("context", "all")
         .option("checkpointLocation", args["checkpoint"])
         .trigger(availableNow=True).start())
query.awaitTermination()
print("RESULT " + json.dumps({"exception": None if query.exception() is None
                              else str(query.exception())}), flush=True)
'''


def _message(i: int) -> tuple[dict, bytes, dict]:
    """MQMD fields, body and {name: (value, MQTYPE, length)} of message i."""
    if i % 3 == 0:
        body, ccsid, fmt = f"EBCDIC {i}: [\u00e4\u00f6\u00fc] ^!|".encode("cp037"), 37, CMQC.MQFMT_STRING
    elif i % 3 == 1:
        body, ccsid, fmt = f"UTF-8 {i} \u00e9\u20ac".encode(), 1208, CMQC.MQFMT_STRING
    else:
        body, ccsid, fmt = bytes((i + k) % 256 for k in range(i % 50 + 1)), 819, CMQC.MQFMT_NONE
    hundredths = i % 100
    md = {"CorrelId": f"corr-{i}".encode().ljust(24, b"\0"),
          "UserIdentifier": f"user{i % 7}".encode(), "ApplIdentityData": f"id-{i}".encode(),
          "PutApplName": f"legacy.app.{i % 5}".encode(), "PutApplType": 28 if i % 2 else 6,
          "AccountingToken": bytes([i % 256]) * 32, "ApplOriginData": f"o{i % 10}".encode(),
          "PutDate": f"202402{10 + i % 19:02d}".encode(),
          "PutTime": f"{i % 24:02d}{i % 60:02d}{(i * 7) % 60:02d}{hundredths:02d}".encode(),
          "CodedCharSetId": ccsid, "Encoding": 273 if i % 2 == 0 else 546, "Format": fmt,
          "Persistence": CMQC.MQPER_PERSISTENT, "Priority": i % 10}
    props = {"orderId": (f"order-{i}", CMQC.MQTYPE_STRING, len(f"order-{i}")),
             "qty": (i - 500, CMQC.MQTYPE_INT32, 4),
             "total": (i * 1_000_000_007, CMQC.MQTYPE_INT64, 8),
             "price": (i / 7, CMQC.MQTYPE_FLOAT64, 8),
             "urgent": (i % 4 == 0, CMQC.MQTYPE_BOOLEAN, 4),
             "sig": (bytes([i % 256, 0, 255]), CMQC.MQTYPE_BYTE_STRING, 3)}
    return md, body, props


def _put_with_context(conn, queue: str) -> None:
    import ibmmq
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)
    try:
        for i in range(TOTAL):
            fields, body, props = _message(i)
            message = ibmmq.MessageHandle(conn)
            for name, (value, mq_type, length) in props.items():
                if mq_type == CMQC.MQTYPE_BOOLEAN:
                    value = int(value)
                message.properties.set(name, value, property_type=mq_type, value_length=length)
            pmo = ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_SET_ALL_CONTEXT
                            | CMQC.MQPMO_NEW_MSG_ID)
            pmo.OriginalMsgHandle = message.msg_handle
            handle.put(body, ibmmq.MD(**fields), pmo)
            if i % 100 == 99:
                conn.commit()
        conn.commit()
    finally:
        handle.close()


_STRIPPED = ("UserIdentifier", "ApplIdentityData", "PutApplName", "ApplOriginData", "PutDate",
             "PutTime")


def _snapshot(md, body: bytes) -> tuple[bytes, dict, bytes, dict]:
    """(MsgId, the fields the copy keeps, body, {name: (MQTYPE, value)}) of a message got with
    MQGMO_PROPERTIES_FORCE_MQRFH2: the MQRFH2 holds the properties with their MQ types, and
    the Encoding, CCSID and Format of the body behind it."""
    assert md.Format == CMQC.MQFMT_RF_HEADER_2
    decoded = decode_rfh2(body)
    fields = {name: getattr(md, name).rstrip(b"\0 ") for name in _STRIPPED}
    fields.update(CorrelId=md.CorrelId, AccountingToken=md.AccountingToken,
                  PutApplType=md.PutApplType, Priority=md.Priority,
                  Persistence=md.Persistence, CodedCharSetId=decoded.ccsid,
                  Encoding=decoded.encoding, Format=decoded.format)
    props = {p.name: (p.type, p.value) for p in decoded.properties}
    return md.MsgId, fields, decoded.rest, props


class Driver:
    def __init__(self, tmp_path: Path, args: dict):
        self.script = tmp_path / "driver.py"
        self.script.write_text(DRIVER)
        self.args = args
        self.log_path = tmp_path / "driver.log"
        self.process: subprocess.Popen | None = None

    def start(self, row_sleep: float) -> None:
        env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, str(self.script), json.dumps({**self.args, "row_sleep": row_sleep})],
                stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True,
                cwd=str(self.script.parent))

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]


def test_a_copy_through_a_crash_keeps_every_message_as_it_was(qm, conn, make_queue, tmp_path):
    source, target = make_queue(), make_queue()
    _put_with_context(conn, source)
    assert depth(conn, source) == TOTAL
    expected = {}
    for md, body, _ in _browse_force_rfh2(conn, source):
        msg_id, fields, rest, props = _snapshot(md, body)
        expected[msg_id] = (fields, rest, props)
    assert len(expected) == TOTAL
    i = 0
    fields, body, props = _message(i)
    first = next(v for v in expected.values() if v[0]["CorrelId"] == fields["CorrelId"])
    assert first[1] == body and first[2]["qty"] == (CMQC.MQTYPE_INT32, -500)   # set as meant

    base = dict(mq_options(qm), transport="embedded")
    driver = Driver(tmp_path, {
        "reader": {**base, "queue": source, "maxMessagesPerTrigger": "100"},
        "writer": {**base, "queue": target, "commitEvery": "40"},
        "checkpoint": str(tmp_path / "checkpoint")})
    driver.start(row_sleep=0.01)
    deadline = time.monotonic() + 240
    while depth(conn, target) < 250:
        assert driver.process.poll() is None, driver.log()
        assert time.monotonic() < deadline, driver.log()
        time.sleep(0.05)
    killed = kill_tree(driver.process.pid)
    driver.process.wait(30)
    assert len(killed) >= 3
    at_crash = depth(conn, target)
    assert 250 <= at_crash < TOTAL, driver.log()

    driver.start(row_sleep=0)
    assert driver.process.wait(420) == 0, driver.log()
    results = [line for line in driver.log().splitlines() if line.startswith("RESULT ")]
    assert results and json.loads(results[-1][7:]) == {"exception": None}, driver.log()

    assert depth(conn, source) == 0
    copied = [_snapshot(md, body) for md, body, _ in drain(conn, target, force_rfh2=True)]
    counts = collections.Counter(msg_id for msg_id, *_ in copied)
    assert len(copied) == TOTAL and set(counts) == set(expected), (
        f"{len(copied)} on B, duplicates {sum(c > 1 for c in counts.values())}, "
        f"missing {len(set(expected) - set(counts))}")
    for msg_id, fields, rest, props in copied:
        want_fields, want_rest, want_props = expected[msg_id]
        assert fields == want_fields, msg_id
        assert rest == want_rest, msg_id
        assert props == want_props, msg_id


def _browse_force_rfh2(conn, queue: str) -> list[tuple]:
    import ibmmq
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_BROWSE)
    found, options = [], CMQC.MQGMO_BROWSE_FIRST
    try:
        while True:
            md = ibmmq.MD()
            gmo = ibmmq.GMO(Options=options | CMQC.MQGMO_NO_WAIT
                            | CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2, Version=CMQC.MQGMO_VERSION_4)
            try:
                body = handle.get(None, md, gmo)
            except ibmmq.MQMIError as exc:
                if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return found
                raise
            found.append((md, body, None))
            options = CMQC.MQGMO_BROWSE_NEXT
    finally:
        handle.close()
