"""What the stream reader reports in StreamingQueryProgress (sources[0].latestOffset, the one
place Spark gives a Python source): lag, oldest message age, committed counts and rates,
latency from put to commit, redelivered and poison messages (spark_mq/reader/progress.py)."""
from __future__ import annotations

import json
import time

import ibmmq
import pytest
from ibmmq import CMQC

from spark_mq.reader.progress import percentile
from support import depth, reader_options, run_available_now

pytestmark = pytest.mark.spark


def put_aged(conn, queue: str, count: int, seconds_ago: float) -> None:
    """Persistent messages whose MQMD put time is `seconds_ago` in the past (set-all-context)."""
    stamp = time.gmtime(time.time() - seconds_ago)
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)
    try:
        for i in range(count):
            md = ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT, Format=CMQC.MQFMT_STRING,
                          PutDate=time.strftime("%Y%m%d", stamp).encode(),
                          PutTime=time.strftime("%H%M%S00", stamp).encode())
            handle.put(b"m%03d" % i, md, ibmmq.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT))
    finally:
        handle.close()


def reports(query) -> list[dict]:
    """The reader's JSON of each progress that ran a batch."""
    found = []
    for progress in query.recentProgress:
        if progress["numInputRows"]:
            latest = progress["sources"][0]["latestOffset"]
            found.append(json.loads(latest) if isinstance(latest, str) else dict(latest))
    return found


def test_lag_age_latency_and_counts(qm, conn, make_queue, spark, tmp_path):
    queue = make_queue("MSGDLVSQ(FIFO)")
    put_aged(conn, queue, 30, seconds_ago=120)
    started = time.time()
    # without prefetch: a prefetch still getting when a report is made is counted only once
    # done (progress.py), so the lag would be exact or short depending on timing
    rows, query = run_available_now(spark, reader_options(qm, queue, maxMessagesPerTrigger=10,
                                                          prefetch="false"),
                                    tmp_path, select=("payload",))
    elapsed = time.time() - started
    assert len(rows) == 30 and depth(conn, queue) == 0
    found = reports(query)
    assert len(found) == 3
    assert [r["committedMessages"] for r in found] == [0, 10, 20]
    assert [r["committedBytes"] for r in found] == [0, 40, 80]
    for report in found:
        # messages not committed yet: on the queue, or held in the query's units of work
        assert report["lag"] == 30 - report["committedMessages"]
        assert report["queue"] == queue and report["queueDepth"] <= report["lag"]
        assert 120 <= report["oldestMessageAgeSeconds"] <= 120 + elapsed + 1
        assert report["redeliveredMessages"] == 0 and report["poisonMessagesMoved"] == 0
    assert found[0]["latencyP50Ms"] is None       # nothing committed before the first report
    for report in found[1:]:
        assert 120_000 <= report["latencyP50Ms"] <= report["latencyP99Ms"] <= (120 + elapsed + 1) * 1000
        assert report["messagesPerSecond"] > 0 and report["bytesPerSecond"] > 0


def test_redelivered_and_poison_messages(qm, conn, make_queue, spark, tmp_path):
    """BOTHRESH(2): a message backed out once is redelivered, one backed out twice is
    poison and goes to the backout queue."""
    backout_queue = make_queue()
    queue = make_queue(f"MSGDLVSQ(FIFO) BOTHRESH(2) BOQNAME({backout_queue})")
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    for payload in (b"twice", b"once", b"never"):
        handle.put(payload, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
    syncpoint = ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT)
    for count in (2, 1):                  # "twice" and "once", then "twice" again
        for _ in range(count):
            handle.get(None, ibmmq.MD(), syncpoint)
        conn.backout()
    handle.close()
    rows, query = run_available_now(spark, reader_options(qm, queue), tmp_path, select=("payload",))
    assert sorted(r.payload for r in rows) == [b"never", b"once"]
    last = reports(query)[-1]
    assert last["redeliveredMessages"] == 1 and last["poisonMessagesMoved"] == 1
    assert depth(conn, backout_queue) == 1


def test_percentiles_are_nearest_rank():
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0 and percentile(values, 99) == 99.0
    assert percentile([7.0], 99) == 7.0 and percentile([], 50) is None
