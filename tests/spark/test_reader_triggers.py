"""minMessagesPerTrigger/maxTriggerDelay (Kafka's minOffsetsPerTrigger) through Spark as a
user runs it: a trickle below the minimum makes no batch until the minimum is there or the
delay has passed; Trigger.AvailableNow ignores the minimum."""
from __future__ import annotations

from support import put_messages, reader_options, run_available_now, wait_for


def _start(spark, options: dict, name: str):
    query = (spark.readStream.format("mq").options(**options).load().selectExpr("payload")
             .writeStream.format("memory").queryName(name).start())
    return query


def _batches(query) -> list[int]:
    return [p["numInputRows"] for p in query.recentProgress if p["numInputRows"]]


def test_no_batch_below_the_minimum_until_it_is_there(qm, conn, make_queue, spark):
    queue = make_queue()
    put_messages(conn, queue, [b"a", b"b", b"c"])
    options = reader_options(qm, queue, minMessagesPerTrigger=5, maxTriggerDelay="1h")
    query = _start(spark, options, "min_wait")
    try:
        query.processAllAvailable()   # returns once a trigger found no new offset
        assert spark.table("min_wait").count() == 0 and _batches(query) == []
        put_messages(conn, queue, [b"d", b"e"])
        query.processAllAvailable()
        rows = sorted(r.payload for r in spark.table("min_wait").collect())
        assert rows == [b"a", b"b", b"c", b"d", b"e"]
        assert _batches(query) == [5]   # one batch, made when the minimum was there
    finally:
        query.stop()


def test_the_delay_lets_a_short_batch_go(qm, conn, make_queue, spark):
    queue = make_queue()
    put_messages(conn, queue, [b"a", b"b"])
    options = reader_options(qm, queue, minMessagesPerTrigger=5, maxTriggerDelay="200ms")
    query = _start(spark, options, "min_delay")
    try:
        wait_for(lambda: _batches(query), 60)
        assert _batches(query) == [2]
        assert sorted(r.payload for r in spark.table("min_delay").collect()) == [b"a", b"b"]
    finally:
        query.stop()


def test_available_now_ignores_the_minimum(qm, conn, make_queue, spark, tmp_path):
    queue = make_queue()
    put_messages(conn, queue, [b"a", b"b", b"c"])
    options = reader_options(qm, queue, minMessagesPerTrigger=5, maxTriggerDelay="1h")
    rows, query = run_available_now(spark, options, tmp_path, select=("payload",))
    assert sorted(r.payload for r in rows) == [b"a", b"b", b"c"]
    assert _batches(query) == [3]


EVOLUTION = "spark.sql.streaming.queryEvolution.enableSourceEvolution"


def _run_named(spark, options: dict, out: str, checkpoint: str):
    query = (spark.readStream.format("mq").options(**options).name("orders").load()
             .selectExpr("payload").writeStream.format("parquet").option("path", out)
             .option("checkpointLocation", checkpoint).trigger(availableNow=True).start())
    query.awaitTermination(180)
    if query.exception():
        raise query.exception()
    return query


def test_a_named_source_changes_its_options_across_a_restart(qm, conn, make_queue, spark,
                                                             tmp_path):
    """DataStreamReader.name(): the restarted query keeps its checkpoint with other options
    (a smaller maxMessagesPerTrigger, a minimum): nothing lost, nothing twice."""
    queue = make_queue()
    out, checkpoint = str(tmp_path / "out"), str(tmp_path / "ck")
    spark.conf.set(EVOLUTION, "true")
    try:
        put_messages(conn, queue, [b"a", b"b", b"c", b"d"])
        first = _run_named(spark, reader_options(qm, queue, maxMessagesPerTrigger=3),
                           out, checkpoint)
        assert _batches(first) == [3, 1]
        put_messages(conn, queue, [b"e", b"f", b"g"])
        changed = reader_options(qm, queue, maxMessagesPerTrigger=2, minMessagesPerTrigger=2)
        second = _run_named(spark, changed, out, checkpoint)
        assert _batches(second) == [2, 1]
        assert first.lastProgress["batchId"] < second.recentProgress[0]["batchId"]
    finally:
        spark.conf.unset(EVOLUTION)
    rows = sorted(r.payload for r in spark.read.parquet(out).collect())
    assert rows == [b"a", b"b", b"c", b"d", b"e", b"f", b"g"]
