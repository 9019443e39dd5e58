"""W3C trace context (issue 35 item 6): the `traceparent` and `tracestate` message properties,
as IBM's ibmmq (mqotel) names them, are columns a read fills and a write sets, so a
queue -> Spark -> queue copy keeps a message's trace."""
from __future__ import annotations

from ibmmq import CMQC

from support import drain, mq_options, put_messages, reader_options

PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
STATE = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"
TRACE_SCHEMA = "payload binary, traceparent string, tracestate string"


def _string(value: str) -> tuple:
    return (value, CMQC.MQTYPE_STRING, CMQC.MQVL_NULL_TERMINATED)


def test_a_read_fills_the_trace_columns_from_the_properties_ibmmq_sets(spark, qm, conn,
                                                                       make_queue):
    queue = make_queue()
    put_messages(conn, queue, [b"traced", b"untraced"],
                 properties=[{"traceparent": _string(PARENT), "tracestate": _string(STATE)},
                             {"TraceParent": _string("not trace context")}])
    rows = (spark.read.format("mq").schema(TRACE_SCHEMA)
            .options(**reader_options(qm, queue)).load().collect())
    by_payload = {bytes(r.payload): r for r in rows}
    assert (by_payload[b"traced"].traceparent, by_payload[b"traced"].tracestate) == (PARENT, STATE)
    # exact names only, as ibmmq's mqotel matches them; absent is null
    assert (by_payload[b"untraced"].traceparent, by_payload[b"untraced"].tracestate) == (None, None)


def test_a_write_sets_the_properties_and_a_null_sets_none(spark, qm, conn, make_queue):
    queue = make_queue()
    df = spark.createDataFrame([(b"traced", PARENT, STATE), (b"untraced", None, None)],
                               TRACE_SCHEMA).coalesce(1)
    df.write.format("mq").options(**mq_options(qm, queue=queue)).mode("append").save()
    found = {body: props for _md, body, props in drain(conn, queue)}
    assert found == {b"traced": {"traceparent": PARENT, "tracestate": STATE}, b"untraced": {}}


def test_a_copy_job_keeps_the_trace_context(spark, qm, conn, make_queue):
    source, target = make_queue(), make_queue()
    put_messages(conn, source, [b"hop"], properties=[{"traceparent": _string(PARENT)}])
    read = (spark.read.format("mq").schema(TRACE_SCHEMA)
            .options(**reader_options(qm, source)).load())
    read.write.format("mq").options(**mq_options(qm, queue=target)).mode("append").save()
    [(_md, body, props)] = drain(conn, target)
    assert body == b"hop" and props == {"traceparent": PARENT}
