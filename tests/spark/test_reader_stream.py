"""The "mq" source in real Spark (local[2]) against the real embedded queue manager."""
from __future__ import annotations

import pytest
from ibmmq import CMQC

from support import (
    depth,
    drain_payloads,
    put_group,
    put_messages,
    put_reference_pair,
    reader_options,
    run_available_now,
)


def test_available_now_drains_the_queue_in_limited_batches(qm, conn, make_queue, spark, tmp_path):
    queue = make_queue()
    payloads = [b"m%03d" % i for i in range(25)]
    put_messages(conn, queue, payloads)
    rows, query = run_available_now(
        spark, reader_options(qm, queue, maxMessagesPerTrigger=10), tmp_path,
        select=("payload", "queue", "persistent", "backout_count"))
    assert sorted(r.payload for r in rows) == payloads
    assert {r.queue for r in rows} == {queue} and all(r.persistent for r in rows)
    batches = [p for p in query.recentProgress if p["numInputRows"]]
    assert [p["numInputRows"] for p in batches] == [10, 10, 5]
    # the backlog shows in the progress (reportLatestOffset)
    assert '"queueDepth": 15' in str(batches[0]["sources"][0]["latestOffset"])
    assert depth(conn, queue) == 0   # the last batch was committed before the run ended


def test_max_bytes_per_trigger(qm, conn, make_queue, spark, tmp_path):
    queue = make_queue()
    put_messages(conn, queue, [b"x" * 100] * 7)
    rows, query = run_available_now(spark, reader_options(qm, queue, maxBytesPerTrigger=250),
                                    tmp_path, select=("payload",))
    assert len(rows) == 7
    assert [p["numInputRows"] for p in query.recentProgress if p["numInputRows"]] == [3, 3, 1]


def test_typed_property_columns(qm, conn, make_queue, spark, tmp_path):
    queue = make_queue()
    put_messages(conn, queue, [b"a", b"b"], properties=[
        {"amount": (12345678901, CMQC.MQTYPE_INT64, 8), "colour": ("red", CMQC.MQTYPE_STRING, 3),
         "ok": (1, CMQC.MQTYPE_BOOLEAN, 4), "ratio": (0.5, CMQC.MQTYPE_FLOAT64, 8),
         "count": ("42", CMQC.MQTYPE_STRING, 2)},
        None])
    schema = ("payload binary, properties map<string,string>, amount bigint, colour string, "
              "ok boolean, ratio double, count int, absent string")
    rows, _ = run_available_now(spark, reader_options(qm, queue), tmp_path, schema=schema)
    first, second = sorted(rows, key=lambda r: r.payload)
    assert (first.amount, first.colour, first.ok, first.ratio, first["count"]) == (
        12345678901, "red", True, 0.5, 42)
    assert first.properties["colour"] == "red" and first.absent is None
    assert (second.amount, second.colour, second.ok, second["count"]) == (None, None, None, None)


def test_batch_read_browses_without_consuming(qm, conn, make_queue, spark):
    queue = make_queue()
    put_messages(conn, queue, [b"one", b"two", b"three"],
                 properties=[{"n": (i, CMQC.MQTYPE_INT32, 4)} for i in range(3)])
    df = spark.read.format("mq").options(**reader_options(qm, queue)).load()
    rows = df.select("payload", "message_id", "put_timestamp", "properties").collect()
    assert [r.payload for r in rows] == [b"one", b"two", b"three"]
    assert all(len(r.message_id) == 24 and r.put_timestamp is not None for r in rows)
    typed = (spark.read.format("mq").schema("payload binary, n int")
             .options(**reader_options(qm, queue)).load().collect())
    assert [r.n for r in typed] == [0, 1, 2]
    assert depth(conn, queue) == 3


def test_at_most_once_with_read_ahead(qm, conn, make_queue, spark, tmp_path):
    queue = make_queue()
    payloads = [b"n%04d" % i for i in range(300)]
    put_messages(conn, queue, payloads, persistent=False)
    rows, _ = run_available_now(
        spark, reader_options(qm, queue, delivery="atMostOnce", readAhead="true",
                              maxMessagesPerTrigger=100),
        tmp_path, select=("payload", "persistent"))
    assert sorted(r.payload for r in rows) == payloads
    assert not any(r.persistent for r in rows)
    assert depth(conn, queue) == 0


def test_poison_messages_never_reach_spark(qm, conn, make_queue, spark, tmp_path):
    import ibmmq
    boq = make_queue()
    queue = make_queue(f"BOTHRESH(1) BOQNAME('{boq}')")
    put_messages(conn, queue, [b"poison"])
    q = ibmmq.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED)   # one failed delivery
    gmo = ibmmq.GMO()
    gmo.Options = CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT
    q.get(None, ibmmq.MD(), gmo)
    conn.backout()
    q.close()
    put_messages(conn, queue, [b"fine"])
    rows, _ = run_available_now(spark, reader_options(qm, queue), tmp_path, select=("payload",))
    assert [r.payload for r in rows] == [b"fine"]
    assert [p for p, _ in drain_payloads(conn, boq)] == [b"poison"]
    assert depth(conn, queue) == 0


def test_groups_and_reference_messages(qm, conn, make_queue, spark, tmp_path):
    queue = make_queue("MAXMSGL(4096)")
    put_group(conn, queue, [b"held-1"], complete=False)
    put_group(conn, queue, [b"g-1", b"g-2"])
    big = bytes(range(256)) * 64   # 16 KiB through a 4 KiB MAXMSGL: segmented data message
    put_reference_pair(conn, queue, big, {"colour": ("green", CMQC.MQTYPE_STRING, 5)})
    rows, _ = run_available_now(
        spark, reader_options(qm, queue), tmp_path,
        select=("payload", "msg_seq_number", "group_id", "properties"))
    by_payload = {r.payload: r for r in rows}
    assert set(by_payload) == {b"g-1", b"g-2", big}
    assert by_payload[b"g-2"].msg_seq_number == 2
    assert by_payload[b"g-1"].group_id == by_payload[b"g-2"].group_id
    assert by_payload[big].properties == {"colour": "green"}
    assert depth(conn, queue) == 1   # the incomplete group waits


@pytest.mark.parametrize("change,expected", [
    ({"queue": None}, "option 'queue': invalid value (missing)"),
    ({"delivery": "sometimes"}, "option 'delivery': invalid value 'sometimes'"),
    ({"queue": "NO.SUCH.QUEUE"}, "2085 MQRC_UNKNOWN_OBJECT_NAME"),
    ({"connName": "127.0.0.1(1)"}, "2538"),
])
def test_errors_fail_the_query_at_start(qm, spark, tmp_path, change, expected):
    options = reader_options(qm, "SOME.QUEUE")
    for key, value in change.items():
        if value is None:
            options.pop(key)
        else:
            options[key] = value
    with pytest.raises(Exception) as info:
        query = (spark.readStream.format("mq").options(**options).load().writeStream
                 .format("noop").option("checkpointLocation", str(tmp_path / "ck")).start())
        try:
            query.awaitTermination(60)
        finally:
            query.stop()
    assert expected in str(info.value)


@pytest.mark.parametrize("read_mode", ["driver", "executors"])
def test_while_the_stop_file_exists_no_batch_is_planned(qm, conn, make_queue, spark, tmp_path,
                                                        read_mode):
    """stopFile, the graceful stop the jobs' Ctrl-C uses: no micro-batch while it exists, and
    the messages stay on the queue for the next run."""
    queue = make_queue()
    put_messages(conn, queue, [b"a", b"b", b"c"])
    stop_file = tmp_path / "stop"
    stop_file.touch()
    options = reader_options(qm, queue, stopFile=str(stop_file), readMode=read_mode)
    rows, query = run_available_now(spark, options, tmp_path / "first", select=("payload",))
    assert rows == [] and all(p["numInputRows"] == 0 for p in query.recentProgress)
    assert depth(conn, queue) == 3
    stop_file.unlink()
    rows, _ = run_available_now(spark, options, tmp_path / "second", select=("payload",))
    assert sorted(r.payload for r in rows) == [b"a", b"b", b"c"]
    assert depth(conn, queue) == 0
