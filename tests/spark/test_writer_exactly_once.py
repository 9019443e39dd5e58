"""Exactly-once writing: a batch Spark runs again puts nothing twice.

Real Spark (local[2], and local[2,3] in a child process for task retries) against a real
embedded queue manager; messages are counted on the queue afterwards."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from spark_mq.mq.markers import marker_id
from support import (
    depth,
    drain,
    hold_udf,
    lose_commit,
    mq_options,
    numbers_on,
    poison_udf,
    wait_for,
    write_json,
)

pytestmark = pytest.mark.timeout(400)


# --- Spark: a batch replayed after its commit-log entry is lost -------------------------
def test_stream_batch_replayed_after_lost_commit_puts_nothing_twice(spark, qm, conn, make_queue,
                                                                   tmp_path):
    queue = make_queue()
    source, checkpoint = tmp_path / "in", tmp_path / "chk"
    source.mkdir()
    write_json(source / "a.json", range(200))

    def run():
        query = (spark.readStream.schema("payload string, n int").json(str(source))
                 .writeStream.format("mq").options(**mq_options(qm, queue=queue, commitEvery=30))
                 .option("checkpointLocation", str(checkpoint))
                 .trigger(availableNow=True).start())
        query.awaitTermination(120)
        assert query.exception() is None

    run()
    assert depth(conn, queue) == 200
    lose_commit(checkpoint, 0)                    # Spark lost the commit: batch 0 runs again
    run()
    assert (checkpoint / "commits" / "0").exists()
    assert depth(conn, queue) == 200
    write_json(source / "b.json", range(200, 260))
    run()                                         # a new batch is written as usual
    assert numbers_on(conn, queue) == list(range(260))


def test_at_least_once_delivery_writes_a_replayed_batch_again(spark, qm, conn, make_queue,
                                                              tmp_path):
    """The control for the test above: without markers the replay duplicates."""
    queue = make_queue()
    source, checkpoint = tmp_path / "in", tmp_path / "chk"
    source.mkdir()
    write_json(source / "a.json", range(50))

    def run():
        query = (spark.readStream.schema("payload string, n int").json(str(source))
                 .writeStream.format("mq")
                 .options(**mq_options(qm, queue=queue, delivery="atLeastOnce"))
                 .option("checkpointLocation", str(checkpoint))
                 .trigger(availableNow=True).start())
        query.awaitTermination(120)
        assert query.exception() is None

    run()
    lose_commit(checkpoint, 0)
    run()
    assert depth(conn, queue) == 100


# --- Spark: a task that fails mid-way, then the query runs the batch again ---------------
def test_task_failing_mid_way_then_restarted_puts_nothing_twice(spark, qm, conn, make_queue,
                                                                tmp_path):
    queue = make_queue()
    source, checkpoint, flag = tmp_path / "in", tmp_path / "chk", tmp_path / "poisoned.json"
    source.mkdir()
    write_json(source / "a.json", range(300))
    poison = poison_udf(str(flag), 250, mq_options(qm), queue, first_attempt_only=False)
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "10")
    try:
        def run():
            query = (spark.readStream.schema("payload string, n int").json(str(source))
                     .select(poison("n").alias("payload"), "n")
                     .writeStream.format("mq").options(**mq_options(qm, queue=queue, commitEvery=20))
                     .option("checkpointLocation", str(checkpoint))
                     .trigger(availableNow=True).start())
            try:
                query.awaitTermination(120)
            except Exception:     # noqa: BLE001 - the failure is looked at below
                pass
            return query.exception()

        failure = run()
        assert failure is not None and "poison row" in str(failure)
        committed_at_failure = json.loads(flag.read_text())["depth"]
        assert 0 < committed_at_failure < 300     # it really failed mid-way
        assert run() is None                      # the replay of batch 0 succeeds
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    assert numbers_on(conn, queue) == list(range(300))


# --- Spark: a task retried by Spark inside the same batch -------------------------------
RETRY_JOB = textwrap.dedent("""
    import json, os, sys
    os.environ["PYSPARK_PYTHON"] = sys.executable
    sys.path.insert(0, {tests!r})
    import spark_mq.embedded
    spark_mq.embedded.install()      # this process talks to the embedded queue manager
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2,3]").appName("writer-retry")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
             .getOrCreate())
    import spark_mq
    spark_mq.register(spark)
    from support import poison_udf
    options, queue, source, checkpoint, flag, commit_every, streaming = json.loads(sys.argv[1])
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "10")
    poison = poison_udf(flag, 250, options, queue, first_attempt_only=True)
    exception = None
    if streaming:
        query = (spark.readStream.schema("payload string, n int").json(source)
                 .select(poison("n").alias("payload"), "n")
                 .writeStream.format("mq").options(**options).option("queue", queue)
                 .option("commitEvery", commit_every).option("checkpointLocation", checkpoint)
                 .trigger(availableNow=True).start())
        query.awaitTermination(180)
        exception = query.exception()
    else:
        try:
            (spark.read.schema("payload string, n int").json(source).coalesce(1)
             .select(poison("n").alias("payload"), "n")
             .write.format("mq").options(**options).option("queue", queue)
             .option("commitEvery", commit_every).option("delivery", "exactlyOnce")
             .mode("append").save())
        except Exception as exc:
            exception = exc
    print("RESULT " + json.dumps({{"exception": None if exception is None
                                   else str(exception)}}))
    spark.stop()
""")


@pytest.mark.parametrize("commit_every, streaming", [(20, True), (30, True), (45, True),
                                                     (30, False)],
                         ids=["stream-20", "stream-30", "stream-45", "batch-30"])
def test_task_retried_by_spark_after_failing_mid_way_puts_nothing_twice(
        qm, conn, make_queue, tmp_path, commit_every, streaming):
    """Spark retries the failed task (local[2,3]); the query or job reports success. With a
    chunk size that does not divide the rows committed before the failure, the first attempt
    commits a partial chunk when its input is cut off: the retry must put exactly the rest
    (the chunk-numbered marker lost those rows silently, issue 14)."""
    queue = make_queue()
    source, checkpoint, flag = tmp_path / "in", tmp_path / "chk", tmp_path / "poisoned.json"
    source.mkdir()
    write_json(source / "a.json", range(300))
    script = tmp_path / "retry_job.py"
    script.write_text(RETRY_JOB.format(tests=os.path.dirname(os.path.dirname(__file__))))
    arguments = json.dumps([mq_options(qm), queue, str(source), str(checkpoint), str(flag),
                            str(commit_every), streaming])
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    done = subprocess.run([sys.executable, str(script), arguments], capture_output=True,
                          text=True, timeout=300, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, done.stderr[-3000:]
    assert json.loads(lines[-1][7:]) == {"exception": None}
    assert 0 < json.loads(flag.read_text())["depth"] < 300   # the first attempt failed mid-way
    assert numbers_on(conn, queue) == list(range(300))


# --- Spark: query.stop() in the middle of a chunk, then a restart ------------------------
def test_query_stopped_mid_chunk_then_restarted_puts_every_row_once(spark, qm, conn,
                                                                   make_queue, tmp_path):
    queue = make_queue()
    source, checkpoint, reached = tmp_path / "in", tmp_path / "chk", tmp_path / "reached"
    source.mkdir()
    write_json(source / "a.json", range(300))
    hold = hold_udf(str(reached), 265)
    # small batches everywhere, so that the rows before the held one reach the writer
    settings = {"spark.sql.execution.arrow.maxRecordsPerBatch": "10",
                "spark.sql.execution.python.udf.maxRecordsPerBatch": "1"}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        def start(udf):
            return (spark.readStream.schema("payload string, n int").json(str(source))
                    .coalesce(1).select(udf("n").alias("payload"), "n")
                    .writeStream.format("mq")
                    .options(**mq_options(qm, queue=queue, commitEvery=50))
                    .option("checkpointLocation", str(checkpoint))
                    .trigger(availableNow=True).start())

        query = start(hold)
        wait_for(lambda: reached.exists() and depth(conn, queue) >= 250, 120)
        query.stop()                               # cancels the task mid-chunk
        assert not (checkpoint / "commits" / "0").exists()
        at_stop = depth(conn, queue)
        assert 250 <= at_stop < 300
        query = start(hold)                        # the hold is passed: the flag file exists
        query.awaitTermination(120)
        assert query.exception() is None
    finally:
        for key in settings:
            spark.conf.unset(key)
    assert numbers_on(conn, queue) == list(range(300))


# --- batch jobs ----------------------------------------------------------------------------
def test_batch_job_with_exactly_once_removes_its_markers_when_it_commits(spark, qm, conn,
                                                                         make_queue):
    queue, state = make_queue(), make_queue(prefix="TEST.STATE")
    df = spark.createDataFrame([(f"m{i}", i) for i in range(40)], "payload string, n int")
    (df.repartition(2).write.format("mq")
     .options(**mq_options(qm, queue=queue, delivery="exactlyOnce", stateQueue=state,
                           commitEvery=7))
     .mode("append").save())
    assert numbers_on(conn, queue) == list(range(40))
    assert depth(conn, state) == 0


def test_stream_keeps_one_marker_per_partition(spark, qm, conn, make_queue, tmp_path):
    queue, state = make_queue(), make_queue(prefix="TEST.STATE")
    source, checkpoint = tmp_path / "in", tmp_path / "chk"
    source.mkdir()
    write_json(source / "a.json", range(20))
    write_json(source / "b.json", range(20, 40))
    query = (spark.readStream.schema("payload string, n int").json(str(source))
             .repartition(2).writeStream.format("mq")
             .options(**mq_options(qm, queue=queue, stateQueue=state, commitEvery=3))
             .option("checkpointLocation", str(checkpoint))
             .trigger(availableNow=True).start())
    query.awaitTermination(120)
    assert query.exception() is None
    markers = drain(conn, state)
    assert len(markers) == 2
    bodies = [json.loads(body) for _, body, _ in markers]
    assert {b["partition"] for b in bodies} == {0, 1}
    assert {md.CorrelId for md, _, _ in markers} == {marker_id(query.id, p) for p in (0, 1)}
    assert numbers_on(conn, queue) == list(range(40))


