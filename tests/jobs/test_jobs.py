"""The jobs/ pipelines, run as a user runs them: spark-submit (and python) against a real
embedded queue manager process, checked by what ends up on queues and in files."""
from __future__ import annotations

import glob
import json
import os
import re
import subprocess
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from support import (
    committed_parquet_rows,
    connection_args,
    depth,
    drain,
    explain,
    kill_tree,
    put_texts,
    python_job,
    spark_submit,
    spark_submit_command,
)

JOBS = ("quickstart.py", "queue_to_files.py", "files_to_queue.py", "request_reply_bridge.py")

pytestmark = pytest.mark.spark  # every test runs a job through spark-submit


def summary_value(output: str, label: str) -> str:
    match = re.search(rf"^{re.escape(label)}\s+(\S+)", output, re.MULTILINE)
    assert match, f"no '{label}' line in the summary:\n{output}"
    return match.group(1)


def error_line(process) -> str:
    """The job's one-line error (Spark may log more lines around it; spark-submit merges the
    Python driver's stderr into its stdout)."""
    lines = [line for line in (process.stdout + process.stderr).splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, explain(process)
    return lines[0]


def parquet_rows(path: str) -> list[dict]:
    # pyarrow skips _spark_metadata and other '_'-prefixed entries, as Spark's readers do.
    return pq.read_table(path).to_pylist()


@pytest.mark.parametrize("job", JOBS)
def test_every_job_explains_itself_with_help(job):
    process = python_job(job, "--help", timeout=60)
    assert process.returncode == 0, explain(process)
    assert process.stdout.startswith("usage:")
    assert "--conn-name" in process.stdout and "SPARK_MQ_PASSWORD" in process.stdout


def test_quickstart_under_spark_submit_streams_queue_to_queue_to_files_exactly_once(tmp_path):
    messages = 1200    # three micro-batches per stage (each order costs CPU twice: no more than that)
    process = spark_submit("quickstart.py", "--messages", str(messages), "--max-messages-per-trigger", "400",
                           "--output", str(tmp_path / "out"), "--data-dir", str(tmp_path / "qm"), timeout=480)
    assert process.returncode == 0, explain(process)
    out = process.stdout
    assert "started embedded queue manager QM1" in out
    assert re.search(r"\[in -> queue\] t\+\s*[\d.]+s batch \d+: [\d,]+ rows at [\d,]+ rows/s", out), out
    assert re.search(r"\[queue -> files\] t\+\s*[\d.]+s batch \d+: [\d,]+ rows", out), out
    assert summary_value(out, "messages in") == f"{messages:,}"
    assert summary_value(out, "rows out") == f"{messages:,}"
    assert summary_value(out, "duplicates") == "0"
    assert summary_value(out, "missing") == "0"
    assert re.search(r"^throughput\s+[\d,]+ messages/s", out, re.MULTILINE)
    assert "SPARK.MQ.IN=0 SPARK.MQ.OUT=0" in out
    # The files themselves: each order once, each traced back to its input message.
    rows = parquet_rows(str(tmp_path / "out" / "orders"))
    assert sorted(row["order_id"] for row in rows) == list(range(messages))
    assert all(len(row["source_message_id"]) == 48 for row in rows)  # 24-byte MsgId in hex


def test_quickstart_runs_with_plain_python_into_files(tmp_path):
    process = python_job("quickstart.py", "--messages", "1200", "--sink", "files",
                         "--max-messages-per-trigger", "500", "--output", str(tmp_path / "out"), timeout=480)
    assert process.returncode == 0, explain(process)
    assert summary_value(process.stdout, "rows out") == "1,200"
    assert summary_value(process.stdout, "duplicates") == "0"
    rows = parquet_rows(str(tmp_path / "out" / "orders"))
    assert sorted(row["order_id"] for row in rows) == list(range(1200))
    large = {row["order_id"]: row["large"] for row in rows}
    assert large[0] is False and large[7] is True    # amount = id*7919 % 100000 / 100
    assert {len(row["message_id"]) for row in rows} == {48}


def test_queue_to_files_writes_every_message_once_as_json(qm, ibmmq, conn, make_queue, tmp_path):
    queue = make_queue()
    texts = [json.dumps({"n": n, "text": f"message {n}"}) for n in range(250)]
    ids = put_texts(conn, queue, texts)
    out = tmp_path / "export"
    process = spark_submit("queue_to_files.py", *connection_args(qm), "--queue", queue, "--format", "json",
                           "--path", str(out), "--max-messages-per-trigger", "100", timeout=300)
    assert process.returncode == 0, explain(process)
    assert "done: 250 messages" in process.stdout
    rows = [json.loads(line) for name in glob.glob(str(out / "part-*.json")) for line in open(name)]
    assert sorted(row["payload"] for row in rows) == sorted(texts)
    assert sorted(row["message_id"] for row in rows) == sorted(i.hex().upper() for i in ids)
    assert depth(conn, queue) == 0


def put_with_region(ibmmq, conn, queue: str, count: int) -> None:
    """Messages 'm<n>' with the string property region = EU (even n) or US (odd n)."""
    from spark_mq.mq.properties import set_property
    CMQC = ibmmq.CMQC
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
    try:
        for n in range(count):
            properties = ibmmq.MessageHandle(conn)
            set_property(properties, "region", ("EU", "US")[n % 2], "string")
            handle.put(f"m{n}".encode(), ibmmq.MD(Format=CMQC.MQFMT_STRING),
                       ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT, Version=CMQC.MQPMO_VERSION_3,
                                 OriginalMsgHandle=properties.msg_handle))
        conn.commit()
    finally:
        handle.close()


def test_queue_to_files_csv_with_a_selector_takes_only_matching_messages(qm, ibmmq, conn, make_queue,
                                                                          tmp_path):
    queue = make_queue()
    put_with_region(ibmmq, conn, queue, 60)
    out = tmp_path / "eu"
    process = spark_submit("queue_to_files.py", *connection_args(qm), "--queue", queue, "--format", "csv",
                           "--selector", "region = 'EU'", "--partition-by-date", "--path", str(out),
                           timeout=300)
    assert process.returncode == 0, explain(process)
    import csv
    rows = [row for name in glob.glob(str(out / "put_date=*" / "part-*.csv"))
            for row in csv.DictReader(open(name))]
    assert sorted(row["payload"] for row in rows) == sorted(f"m{n}" for n in range(0, 60, 2))
    assert {json.loads(row["properties"])["region"] for row in rows} == {"EU"}
    left = drain(conn, queue)                      # the other consumers' messages stay
    assert sorted(payload.decode() for _, payload, _ in left) == sorted(f"m{n}" for n in range(1, 60, 2))


def test_queue_to_files_killed_mid_stream_and_restarted_writes_each_message_once(
        qm, ibmmq, conn, make_queue, tmp_path):
    queue, out, checkpoint = make_queue(), tmp_path / "archive", tmp_path / "ckpt"
    # six batches: three committed before the kill, the rest (and any batch it cut) after
    texts = [f"order {n}" for n in range(600)]
    put_texts(conn, queue, texts)
    common = [*connection_args(qm), "--queue", queue, "--path", str(out), "--checkpoint", str(checkpoint),
              "--max-messages-per-trigger", "100"]
    command, env = spark_submit_command("queue_to_files.py", *common, "--trigger", "processing-time",
                                        "--interval", "1 second")
    running = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                               start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while len(glob.glob(str(checkpoint / "commits" / "[0-9]*"))) < 3:
            assert running.poll() is None, "the job ended before it could be killed"
            assert time.monotonic() < deadline, "no micro-batch committed within 240 s"
            time.sleep(0.2)
    finally:
        kill_tree(running.pid)     # the driver and all its processes die mid-stream, as in a crash
        running.wait()
    assert 0 < len(committed_parquet_rows(out)) < len(texts)
    process = spark_submit("queue_to_files.py", *common, "--trigger", "available-now", timeout=300)
    assert process.returncode == 0, explain(process)
    payloads = [row["payload"] for row in committed_parquet_rows(out)]
    assert sorted(payloads) == sorted(texts)          # every message, none twice
    assert depth(conn, queue) == 0


def test_files_to_queue_puts_one_message_per_row_with_properties(qm, ibmmq, conn, make_queue, tmp_path):
    queue = make_queue()
    table = pa.table({"order_id": pa.array(range(40), pa.int64()),
                      "region": [("EU", "US")[n % 2] for n in range(40)],
                      "body": [f"order {n}" for n in range(40)]})
    pq.write_table(table, str(tmp_path / "orders.parquet"))
    process = spark_submit("files_to_queue.py", *connection_args(qm),
                           "--path", str(tmp_path / "orders.parquet"), "--payload-column", "body",
                           "--columns", "order_id,region", "--queue", queue, timeout=300)
    assert process.returncode == 0, explain(process)
    assert "done: put 40 rows" in process.stdout
    messages = drain(conn, queue)
    assert sorted(payload.decode() for _, payload, _ in messages) == sorted(f"order {n}" for n in range(40))
    for _md, payload, properties in messages:
        n = int(payload.decode().split()[1])
        assert properties["order_id"] == n
        assert properties["region"] == ("EU", "US")[n % 2]


def test_files_to_queue_streams_new_files_once_across_restarts(qm, ibmmq, conn, make_queue, tmp_path):
    queue, incoming, checkpoint = make_queue(), tmp_path / "incoming", str(tmp_path / "ckpt")
    incoming.mkdir()

    def add_file(name: str, numbers: range) -> None:
        pq.write_table(pa.table({"n": pa.array(numbers, pa.int64())}), str(incoming / name))

    def run() -> None:
        process = spark_submit("files_to_queue.py", *connection_args(qm), "--path", str(incoming), "--stream",
                               "--checkpoint", checkpoint, "--trigger", "available-now", "--queue", queue,
                               timeout=300)
        assert process.returncode == 0, explain(process)

    add_file("a.parquet", range(0, 30))
    add_file("b.parquet", range(30, 50))
    run()
    assert depth(conn, queue) == 50
    add_file("c.parquet", range(50, 60))
    run()     # same checkpoint: only the new file is loaded
    payloads = [json.loads(payload) for _md, payload, _ in drain(conn, queue)]
    assert sorted(row["n"] for row in payloads) == list(range(60))   # whole rows as JSON, each once


def put_requests(ibmmq, conn, queue: str, requests: list[tuple[str, str, str]]) -> list[bytes]:
    """(text, reply-to queue, ApplIdentityData) requests; returns their MsgIds. One without a
    reply-to queue is a datagram: MQ refuses a request without one (2027 MQRC_MISSING_REPLY_TO_Q)."""
    CMQC = ibmmq.CMQC
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_IDENTITY_CONTEXT)
    ids = []
    try:
        for text, reply_to, identity in requests:
            kind = CMQC.MQMT_REQUEST if reply_to else CMQC.MQMT_DATAGRAM
            md = ibmmq.MD(MsgType=kind, ReplyToQ=reply_to.encode(), Format=CMQC.MQFMT_STRING,
                          Persistence=CMQC.MQPER_PERSISTENT, ApplIdentityData=identity.encode())
            pmo = ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_NEW_MSG_ID
                            | CMQC.MQPMO_SET_IDENTITY_CONTEXT)
            handle.put(text.encode(), md, pmo)
            ids.append(md.MsgId)
        conn.commit()
    finally:
        handle.close()
    return ids


@pytest.fixture(scope="module")
def bridge_run(qm, ibmmq, tmp_path_factory):
    """One run of the bridge over 13 messages: 6 + 6 requests to two reply queues, 1 datagram
    without ReplyToQ (answered on the no-reply queue)."""
    names = [f"BRIDGE.{os.getpid()}.{role}" for role in ("REQ", "A", "B", "NOREPLY")]
    qm.run_mqsc("\n".join(f"DEFINE QLOCAL({name}) REPLACE" for name in names))
    requests_q, replies_a, replies_b, no_reply = names
    requests = [(f"hello {n}", (replies_a, replies_b)[n % 2], f"ctx-{n}") for n in range(12)]
    requests.append(("nobody asked", "", "ctx-orphan"))
    conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    try:
        ids = put_requests(ibmmq, conn, requests_q, requests)
        process = spark_submit("request_reply_bridge.py", *connection_args(qm), "--request-queue", requests_q,
                               "--no-reply-queue", no_reply, "--transform", "upper",
                               "--checkpoint", str(tmp_path_factory.mktemp("bridge") / "ckpt"),
                               "--trigger", "available-now", timeout=300)
        assert process.returncode == 0, explain(process)
        replies = {queue: drain(conn, queue) for queue in (replies_a, replies_b, no_reply)}
        left = depth(conn, requests_q)
    finally:
        conn.disconnect()
    return {"process": process, "sent": dict(zip(ids, requests)), "replies": replies,
            "no_reply": no_reply, "order": (replies_a, replies_b, no_reply), "requests_left": left}


def test_request_reply_bridge_answers_on_reply_to_queue_with_correl_id(bridge_run, ibmmq):
    assert "done: answered 13 requests" in bridge_run["process"].stdout
    replies, sent = bridge_run["replies"], bridge_run["sent"]
    assert [len(replies[q]) for q in bridge_run["order"]] == [6, 6, 1]
    for queue, got in replies.items():
        for md, payload, _ in got:
            text, reply_to, _identity = sent[md.CorrelId]          # CorrelId = the request's MsgId
            assert payload.decode() == text.upper()
            assert (reply_to or bridge_run["no_reply"]) == queue
            assert md.MsgType == ibmmq.CMQC.MQMT_REPLY
            assert md.Persistence == ibmmq.CMQC.MQPER_PERSISTENT
    assert bridge_run["requests_left"] == 0


def test_request_reply_bridge_passes_the_request_context_to_the_reply(bridge_run):
    for got in bridge_run["replies"].values():
        for md, _payload, _ in got:
            _text, _reply_to, identity = bridge_run["sent"][md.CorrelId]
            assert md.ApplIdentityData.decode().rstrip(" \0") == identity


def test_job_reports_a_bad_option_clearly(qm, make_queue, tmp_path):
    process = spark_submit("queue_to_files.py", *connection_args(qm), "--queue", make_queue(),
                           "--path", str(tmp_path / "x"), "--read-option", "delivery=sometimes", timeout=300)
    assert process.returncode == 1
    error = error_line(process)
    assert "delivery" in error and "sometimes" in error and "exactlyOnce" in error, error


def test_job_reports_an_unknown_queue_with_its_reason_code(qm, tmp_path):
    process = spark_submit("queue_to_files.py", *connection_args(qm), "--queue", "NO.SUCH.QUEUE",
                           "--path", str(tmp_path / "x"), timeout=300)
    assert process.returncode == 1
    error = error_line(process)
    assert "2085" in error and "MQRC_UNKNOWN_OBJECT_NAME" in error, error
    # what exists and how to define it, in the shell tool's words
    assert f"spark-mq-qmgr depth --conn-name '{qm.conn_name}'" in error, error
    assert "spark-mq-qmgr mqsc" in error and "DEFINE QLOCAL('NO.SUCH.QUEUE')" in error, error


def test_jobs_without_a_queue_manager_say_how_to_give_one(tmp_path):
    process = python_job("queue_to_files.py", "--path", str(tmp_path / "x"), timeout=60)
    assert process.returncode == 1
    error = error_line(process)
    assert "--conn-name" in error and "SPARK_MQ_CONN_NAME" in error
