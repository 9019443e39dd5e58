"""A stopped query leaves MQ matching its sink: `query.stop()` between micro-batches, in both
read modes, with the listener `spark_mq.register` adds (the session fixture calls it).

Spark never tells the source that its last batch is in the commit log (it SIGTERMs the reader's
process at stop); the listener does (spark_mq.reader.commit_notes). Without it the reader's
process dies holding that batch in an open unit of work and MQ backs it out: the messages
come back on the queue although they are in the sink (readMode driver), or the batch's
records stay on the state queue (readMode executors)."""
from __future__ import annotations

import time

import pytest
from ibmmq import CMQC

from spark_mq.reader.commit_notes import await_settled
from support import committed_parquet_rows, depth, put_messages, reader_options

TOTAL, PER_BATCH = 40, 10


def _open_input_count(conn, queue: str) -> int:
    import ibmmq
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_INQUIRE)
    try:
        return handle.inquire(CMQC.MQIA_OPEN_INPUT_COUNT)
    finally:
        handle.close()


def _wait_until(condition, what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.05)


def _one_batch_then_stop(spark, options: dict, tmp_path) -> None:
    """Run the query until Spark has committed one micro-batch, then stop it while it waits
    for its next trigger (an hour away): the reader still holds that batch in MQ."""
    query = (spark.readStream.format("mq").options(**options).load().select("payload")
             .writeStream.format("parquet").option("path", str(tmp_path / "out"))
             .option("checkpointLocation", str(tmp_path / "checkpoint"))
             .trigger(processingTime="1 hour").start())
    try:
        _wait_until(lambda: (query.lastProgress or {}).get("numInputRows", 0) > 0
                    or query.exception() is not None, "Spark committed a micro-batch")
        assert query.exception() is None, query.exception()
    finally:
        query.stop()
    assert await_settled(query)


@pytest.mark.parametrize("read_mode", ["driver", "executors"])
def test_query_stop_commits_in_mq_every_batch_spark_committed(qm, conn, make_queue, spark,
                                                              tmp_path, read_mode):
    queue, state = make_queue(), make_queue()
    put_messages(conn, queue, [b"m%03d" % i for i in range(TOTAL)])
    options = reader_options(qm, queue, maxMessagesPerTrigger=PER_BATCH, readMode=read_mode,
                             stateQueue=state)
    for run in (1, 2):          # the second run resumes on the same checkpoint
        _one_batch_then_stop(spark, options, tmp_path)
        # the reader's connections are gone: whatever it held is committed or backed out now
        _wait_until(lambda: _open_input_count(conn, queue) == 0 or read_mode == "executors",
                    "the stopped reader's connections are closed")
        in_sink = len(committed_parquet_rows(tmp_path / "out"))
        assert in_sink == run * PER_BATCH
        assert depth(conn, queue) == TOTAL - in_sink
        if read_mode == "executors":
            # the claims and records of the batches Spark committed are gone with them
            assert depth(conn, state) == 0


def test_query_stop_of_a_topic_read_commits_every_batch_spark_committed(qm, conn, spark, tmp_path):
    """A topic read is the queue reader on its durable subscription's managed queue."""
    import ibmmq

    from spark_mq.mq.connecting import ConnectionOptions
    from spark_mq.mq.subscriptions import ensure_durable_subscription, remove_subscription
    from spark_mq.options import subscription_name

    topic = f"spark/stop/{tmp_path.name}"
    subscription = subscription_name(topic, None)
    managed = ensure_durable_subscription(
        ConnectionOptions(queue_manager=qm.name, conn_name=qm.conn_name, channel=qm.channel,
                          transport="embedded"), subscription, topic, None)
    od = ibmmq.OD(ObjectType=CMQC.MQOT_TOPIC, Version=CMQC.MQOD_VERSION_4)
    od.set_vs("ObjectString", topic)
    handle = ibmmq.Topic(conn, topic_desc=od)
    handle.open(topic_desc=od, open_opts=CMQC.MQOO_OUTPUT)
    try:
        for i in range(TOTAL):
            handle.pub(b"m%03d" % i, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
    finally:
        handle.close()
    options = reader_options(qm, "", maxMessagesPerTrigger=PER_BATCH)
    del options["queue"]
    options["topic"] = topic
    try:
        _one_batch_then_stop(spark, options, tmp_path)
        _wait_until(lambda: _open_input_count(conn, managed) == 0,
                    "the stopped reader's connections are closed")
        in_sink = len(committed_parquet_rows(tmp_path / "out"))
        assert in_sink == PER_BATCH
        assert depth(conn, managed) == TOTAL - in_sink
    finally:
        remove_subscription(ibmmq, conn, subscription)
