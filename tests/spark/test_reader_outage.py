"""A queue manager away under a running query with reconnectTimeoutMs never: the triggers end
without a batch, each after one reconnect attempt, and the query's progress shows the outage
while it lasts (since, attempts, the last reason, the connection it tries); once the queue
manager is back the query goes on exactly once and `lastOutage` keeps what it rode out
(spark_mq/reader/outages.py).

Each test runs its own embedded queue manager process, stopped or SIGKILLed and started again
on the same port and store."""
from __future__ import annotations

import datetime as dt
import json
import pickle
import time
from collections.abc import Callable

import pytest
from ibmmq import CMQC
from pyspark.sql.streaming.datasource import ReadMaxRows
from pyspark.sql.types import BinaryType, StringType, StructField, StructType

import spark_mq.embedded as embedded
from spark_mq.options import ReadOptions
from spark_mq.reader import MQStreamReader
from spark_mq.reader.commit_notes import await_settled
from support import committed_parquet_rows, depth, put_messages, reader_options

SCHEMA = StructType([StructField("payload", BinaryType()), StructField("queue", StringType())])
NO_DATA_INTERVAL = "spark.sql.streaming.noDataProgressEventInterval"
#: what a reconnect attempt meets: nothing listening at connName (as IBM's client says it),
#: no queue manager there, or the connection broken under a call
AWAY = ("MQRC_HOST_NOT_AVAILABLE", "MQRC_Q_MGR_NOT_AVAILABLE", "MQRC_CONNECTION_BROKEN")


def _put(manager, ibmmq, payloads: list[bytes]) -> None:
    conn = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
    try:
        put_messages(conn, "O.Q", payloads)
    finally:
        conn.disconnect()


def _depth(manager, ibmmq) -> int:
    conn = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
    try:
        return depth(conn, "O.Q")
    finally:
        conn.disconnect()


def _offset(offset: dict) -> dict:
    return json.loads(json.dumps(offset))  # what Spark's offset log gives back


def _payloads(reader: MQStreamReader, start: dict, end: dict) -> list[bytes]:
    """What the executors would produce for this batch (partitions pickled, like Spark)."""
    executor_copy = pickle.loads(pickle.dumps(reader))
    out = []
    for partition in reader.partitions(start, end):
        for batch in executor_copy.read(pickle.loads(pickle.dumps(partition))):
            out.extend(batch.column("payload").to_pylist())
    return out


def _check_outage(outage: dict, manager, before: dt.datetime) -> None:
    since = dt.datetime.fromisoformat(outage["since"])
    assert before <= since <= dt.datetime.now(dt.timezone.utc)
    assert outage["reasonName"] in AWAY
    assert getattr(CMQC, outage["reasonName"]) == outage["reason"]   # number and name agree
    assert outage["connection"] == {"queueManager": manager.name, "connName": manager.conn_name,
                                    "channel": manager.channel}
    assert outage["givesUpAt"] is None                                # reconnectTimeoutMs never


def test_a_trigger_in_an_outage_ends_without_a_batch_and_the_held_batch_is_not_delivered_twice(
        tmp_path, ibmmq):
    """Driven call by call as Spark drives a processing-time query (ReadMaxRows). The queue
    manager dies while the reader holds a batch Spark finished: its MQCMIT breaks, the
    outcome unknown. Each latestOffset makes one attempt and returns the same offset; once
    the queue manager is back the batch is removed by id, not committed on the new
    connection (which would commit nothing and deliver it again)."""
    with embedded.EmbeddedQueueManager(str(tmp_path / "qm"), name="QMP") as own:
        own.run_mqsc("DEFINE QLOCAL(O.Q) REPLACE")
        _put(own, ibmmq, [b"m%d" % i for i in range(4)])
        reader = MQStreamReader(ReadOptions.parse(reader_options(
            own, "O.Q", waitIntervalMs=0, maxMessagesPerTrigger=2, reconnectTimeoutMs="never")),
            SCHEMA)
        limit = ReadMaxRows(2)
        start = _offset(reader.initialOffset())
        first = _offset(reader.latestOffset(start, limit))
        delivered = _payloads(reader, start, first)
        reader._prefetch.future.result(timeout=30)      # m2, m3 gotten before the kill
        before = dt.datetime.now(dt.timezone.utc)
        own.kill()          # Spark has the batch in its commit log; MQ has it in a unit of work
        attempts = []
        for _ in range(3):
            assert _offset(reader.latestOffset(first, limit)) == first   # no batch, no wait
            report = reader.reportLatestOffset()
            assert "queueDepth" not in report                  # nothing asked of MQ meanwhile
            attempts.append(report["outage"]["attempts"])
        # the first call tries once more at once (a restart may be over), then one a call
        assert attempts == [2, 3, 4]
        _check_outage(report["outage"], own, before)
        assert report["outage"]["reasonName"] == "MQRC_HOST_NOT_AVAILABLE"    # nothing listens
        assert report["lastOutage"]["ended"] is None and report["seq"] == 1

        # the kill backed out both units of work: m0-m3 are on the queue again. The batch
        # Spark finished must go by id; committing on the new connection would commit
        # nothing, and the prefetched m2, m3 (the next batch) would push m0, m1 out of
        # sight of the reader's one-batch memory of what it delivered
        own.start()
        second = _offset(reader.latestOffset(first, limit))
        assert second != first
        delivered += _payloads(reader, first, second)
        assert _offset(reader.latestOffset(second, limit)) == second   # settles m2, m3; no more
        report = reader.reportLatestOffset()
        assert report["outage"] is None and report["committedMessages"] == 4
        assert report["lastOutage"]["attempts"] == 4 and report["lastOutage"]["ended"]
        reader.stop()
        assert delivered == [b"m%d" % i for i in range(4)]
        assert _depth(own, ibmmq) == 0


def test_read_mode_executors_plans_no_batch_during_an_outage_and_goes_on(tmp_path, ibmmq):
    """readMode executors: the driver's planning gives back the same way, and its report shows
    the outage while it lasts and lastOutage after."""
    from spark_mq.reader import task_connections
    from spark_mq.reader.executors import MQExecutorStreamReader
    with embedded.EmbeddedQueueManager(str(tmp_path / "qm"), name="QME") as own:
        own.run_mqsc("DEFINE QLOCAL(O.Q) REPLACE\nDEFINE QLOCAL(O.STATE) REPLACE")
        _put(own, ibmmq, [b"e0", b"e1"])
        reader = MQExecutorStreamReader(ReadOptions.parse(reader_options(
            own, "O.Q", readMode="executors", stateQueue="O.STATE", numPartitions=1,
            waitIntervalMs=0, reconnectTimeoutMs="never")), SCHEMA)
        limit = reader.getDefaultReadLimit()
        start = _offset(reader.initialOffset())
        before = dt.datetime.now(dt.timezone.utc)
        own.kill()
        attempts = []
        for _ in range(2):
            assert _offset(reader.latestOffset(start, limit)) == start   # no batch, no wait
            report = reader.reportLatestOffset()
            attempts.append(report["outage"]["attempts"])
        assert attempts == [2, 3]
        _check_outage(report["outage"], own, before)
        assert report["queueDepth"] is None and report["lastOutage"]["ended"] is None

        own.start()
        end = _offset(reader.latestOffset(start, limit))
        assert end["batch"] == start["batch"] + 1
        [partition] = reader.partitions(start, end)
        rows = [p for b in reader.read(partition) for p in b.column("payload").to_pylist()]
        assert rows == [b"e0", b"e1"]
        reader.commit(end)
        report = reader.reportLatestOffset()
        assert report["outage"] is None and report["lastOutage"]["attempts"] == 3
        assert report["lastOutage"]["ended"]
        reader.stop()
        task_connections.close_idle(0)      # this process's kept task connection to QME
        assert _depth(own, ibmmq) == 0


def _reports(query) -> list[dict]:
    found = []
    for progress in query.recentProgress:
        latest = progress["sources"][0]["latestOffset"] if progress["sources"] else None
        if latest:
            found.append(json.loads(latest) if isinstance(latest, str) else dict(latest))
    return found


def _report_where(query, condition: Callable[[dict], bool], what: str,
                  timeout: float = 120.0) -> dict:
    """The first of the query's progress reports that meets `condition`, waited for."""
    deadline = time.monotonic() + timeout
    while True:
        assert query.exception() is None, query.exception()
        found = [r for r in _reports(query) if condition(r)]
        if found:
            return found[0]
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.05)


@pytest.mark.spark
def test_a_running_query_shows_the_outage_while_it_lasts_and_goes_on_exactly_once(
        spark, tmp_path, ibmmq):
    own = embedded.EmbeddedQueueManager(str(tmp_path / "qm"), name="QMO").start()
    spark.conf.set(NO_DATA_INTERVAL, "100ms")   # a progress of a trigger without a batch
    try:
        own.run_mqsc("DEFINE QLOCAL(O.Q) REPLACE")
        _put(own, ibmmq, [b"m0", b"m1", b"m2"])
        options = reader_options(own, "O.Q", maxMessagesPerTrigger=2, waitIntervalMs=100,
                                 reconnectTimeoutMs="never")
        query = (spark.readStream.format("mq").options(**options).load().select("payload")
                 .writeStream.format("parquet").option("path", str(tmp_path / "out"))
                 .option("checkpointLocation", str(tmp_path / "checkpoint"))
                 .trigger(processingTime="200 milliseconds").start())
        try:
            _report_where(query, lambda r: r.get("committedMessages") == 3,
                          "m0-m2 are committed off the queue")
            before = dt.datetime.now(dt.timezone.utc)
            own.stop()
            # while the queue manager stops, an attempt may find it quiescing (2161): wait for
            # one that finds it gone
            seen = _report_where(query, lambda r: (r.get("outage") or {}).get("attempts", 0) >= 2
                                 and r["outage"]["reasonName"] in AWAY,
                                 "the progress shows two failed attempts, the last finding it gone")
            assert query.isActive and query.status["isDataAvailable"] is False
            _check_outage(seen["outage"], own, before)
            assert seen["queue"] == "O.Q" and seen["committedMessages"] == 3

            own.start()
            _put(own, ibmmq, [b"m3", b"m4"])
            after = _report_where(query, lambda r: r.get("committedMessages") == 5,
                                  "m3 and m4 are committed off the queue")
            assert after["outage"] is None
            last = after["lastOutage"]
            assert last["since"] == seen["outage"]["since"]
            assert last["attempts"] >= seen["outage"]["attempts"]
            assert last["since"] < last["ended"]
        finally:
            query.stop()
        assert await_settled(query)
        assert sorted(r["payload"] for r in committed_parquet_rows(tmp_path / "out")) == [
            b"m0", b"m1", b"m2", b"m3", b"m4"]
        assert _depth(own, ibmmq) == 0
    finally:
        spark.conf.unset(NO_DATA_INTERVAL)
        own.stop()
