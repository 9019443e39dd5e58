"""The reader's `selector` option through real Spark: only matching messages are consumed
from a shared queue, and a bad selector fails the query at start with MQ's reason code and
the position of the error."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC

pytestmark = pytest.mark.timeout(300)


def put_coloured(conn, queue: str, colours: list[str]) -> None:
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
    for index, colour in enumerate(colours):
        props = ibmmq.MessageHandle(conn)
        props.properties.set("colour", colour)
        handle.put(b"%s-%d" % (colour.encode(), index), ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT),
                   ibmmq.PMO(OriginalMsgHandle=props.msg_handle))
    handle.close()


def options(qm, queue: str, **extra) -> dict:
    return {"connName": qm.conn_name, "queueManager": qm.name, "queue": queue, **extra}


def test_stream_with_selector_leaves_other_messages_untouched(spark, qm, conn, make_queue, tmp_path):
    queue = make_queue()
    put_coloured(conn, queue, ["red", "blue", "red", "green", "blue", "red"])
    stream = (spark.readStream.format("mq").options(**options(qm, queue, selector="colour = 'red'"))
              .load().selectExpr("cast(payload as string) as body"))
    query = (stream.writeStream.format("parquet").option("path", str(tmp_path / "out"))
             .option("checkpointLocation", str(tmp_path / "ckpt")).trigger(availableNow=True).start())
    query.awaitTermination(240)
    assert query.exception() is None
    bodies = sorted(r.body for r in spark.read.parquet(str(tmp_path / "out")).collect())
    assert bodies == ["red-0", "red-2", "red-5"]
    left = spark.read.format("mq").options(**options(qm, queue)).load() \
        .selectExpr("properties['colour'] as colour").collect()
    assert sorted(r.colour for r in left) == ["blue", "blue", "green"]


def test_bad_selector_fails_at_start_with_reason_and_position(spark, qm, make_queue):
    reader = spark.readStream.format("mq").options(**options(qm, make_queue(), selector="colour = = 'red'"))
    with pytest.raises(Exception) as failure:
        reader.load().writeStream.format("noop").start().awaitTermination(60)
    message = str(failure.value)
    assert "selector" in message
    assert "2459" in message and "MQRC_SELECTOR_SYNTAX_ERROR" in message
    assert "position 9" in message
