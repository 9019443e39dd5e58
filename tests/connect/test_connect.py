"""The connector through Spark Connect: a client session on a local Connect server (the
`connect` fixture), the data source running in the server's Python workers. Batch write and
read, a Trigger.AvailableNow stream, and a processing-time stream stopped and resumed on its
checkpoint; every message counted on the queues afterwards."""
from __future__ import annotations

from collections import Counter

import pytest

from support import depth, drain_payloads, put_texts, reader_options, wait_for

pytestmark = pytest.mark.spark

STREAM_SECONDS = 240


def committed_on(conn, queue: str) -> int:
    """How many messages a browse sees: committed ones only (CURDEPTH also counts puts and
    gets still inside a unit of work)."""
    import ibmmq
    from ibmmq import CMQC
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_BROWSE)
    seen, options = 0, CMQC.MQGMO_BROWSE_FIRST
    try:
        while True:
            gmo = ibmmq.GMO(Options=options | CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG)
            try:
                handle.get(0, ibmmq.MD(), gmo)
            except ibmmq.MQMIError as exc:
                if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return seen
                if exc.reason != CMQC.MQRC_TRUNCATED_MSG_ACCEPTED:
                    raise
            seen, options = seen + 1, CMQC.MQGMO_BROWSE_NEXT
    finally:
        handle.close()


def payloads_on(conn, queue: str) -> Counter:
    """Every message on the queue, got destructively, as a multiset of texts."""
    return Counter(body.decode() for body, _ in drain_payloads(conn, queue))


def queue_to_queue(connect, qm, source: str, target: str, checkpoint: str, **read_options):
    """IN -> upper case -> OUT, exactly once on both sides (the defaults), not yet started."""
    return (connect.readStream.format("mq").options(**reader_options(qm, source, **read_options)).load()
            .selectExpr("upper(cast(payload as string)) as payload")
            .writeStream.format("mq").options(**reader_options(qm, target))
            .option("checkpointLocation", checkpoint))


def test_register_on_a_connect_session_goes_through_spark_datasource(connect):
    # the classic check (the JVM's data source manager) is not reachable through Connect:
    # register() must fall back to spark.dataSource.register, and may be called again
    import spark_mq
    spark_mq.register(connect)
    assert type(connect).__module__ == "pyspark.sql.connect.session"


def test_batch_write_then_batch_read(connect, qm, conn, make_queue):
    queue = make_queue()
    texts = [f"batch-{n}" for n in range(200)]
    (connect.createDataFrame([(text,) for text in texts], "payload string")
            .write.format("mq").options(**reader_options(qm, queue)).mode("append").save())
    assert depth(conn, queue) == 200

    rows = (connect.read.format("mq").options(**reader_options(qm, queue)).load()
            .selectExpr("cast(payload as string) as text", "queue").collect())
    assert Counter(row.text for row in rows) == Counter(texts)
    assert {row.queue for row in rows} == {queue}
    # a batch read browses: every message is still there, once
    assert payloads_on(conn, queue) == Counter(texts)


def test_available_now_stream_moves_every_message_once(connect, qm, conn, make_queue, tmp_path):
    source, target = make_queue(), make_queue()
    texts = [f"now-{n}" for n in range(200)]
    put_texts(conn, source, texts)
    query = (queue_to_queue(connect, qm, source, target, str(tmp_path / "ck"), maxMessagesPerTrigger=80)
             .trigger(availableNow=True).start())
    assert query.awaitTermination(STREAM_SECONDS), "the AvailableNow query did not end"
    assert query.exception() is None
    assert depth(conn, source) == 0
    assert payloads_on(conn, target) == Counter(text.upper() for text in texts)


def test_processing_time_stream_stopped_and_resumed_exactly_once(connect, qm, conn, make_queue, tmp_path):
    source, target = make_queue(), make_queue()
    checkpoint = str(tmp_path / "ck")
    first, second = [f"first-{n}" for n in range(100)], [f"second-{n}" for n in range(100)]
    put_texts(conn, source, first)

    def start(trigger: dict):
        return (queue_to_queue(connect, qm, source, target, checkpoint, maxMessagesPerTrigger=25)
                .trigger(**trigger).start())

    query = start({"processingTime": "1 second"})
    wait_for(lambda: committed_on(conn, target) >= 25, STREAM_SECONDS)   # a batch or more written
    query.stop()                                                         # stopped wherever it is
    assert query.exception() is None

    put_texts(conn, source, second)
    query = start({"processingTime": "1 second"})
    wait_for(lambda: committed_on(conn, target) >= 200, STREAM_SECONDS)
    query.stop()
    assert query.exception() is None

    # The source commits a batch's gets at the next trigger, so the stop may have backed the
    # last batch out onto the source: one more run on the checkpoint must not deliver it again.
    query = start({"availableNow": True})
    assert query.awaitTermination(STREAM_SECONDS), "the AvailableNow run did not end"
    assert query.exception() is None
    assert depth(conn, source) == 0
    assert payloads_on(conn, target) == Counter(text.upper() for text in first + second)
