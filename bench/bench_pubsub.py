"""Publish -> subscriber delivery: a Spark topic stream (durable subscription, managed queue,
exactlyOnce) into a noop sink, against a bare ibmmq loop (a durable managed subscription,
syncpoint gets, MQCMIT every --batch) on the same embedded queue manager in the same run.

    .venv/bin/python bench/bench_pubsub.py [--quick] [--messages 100000] [--batch 10000]

Each side: publish --messages persistent 1 KiB publications (asynchronous puts, 1000 per
unit of work), then deliver them all; the end-to-end rate is messages / (publish + deliver
time). The Spark run uses Trigger.AvailableNow after one warm-up query (which also makes
its subscription); the bare loop runs before and after it and the ratio uses the mean,
because a shared machine's load drifts. Figures are printed, never asserted.
"""
from __future__ import annotations

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_reader import message_arguments, report, spark_bench, spark_run  # noqa: E402

BODY = b"x" * 1024
TOPIC = "bench/orders/eu"
BARE_TOPIC = "bench/orders/bare"      # the bare loop's own: the Spark subscription must not see it


def publish(ibmmq, conn, count: int, topic_string: str = TOPIC) -> float:
    """Seconds to publish `count` persistent publications on `topic_string`."""
    CMQC = ibmmq.CMQC
    od = ibmmq.OD(ObjectType=CMQC.MQOT_TOPIC, Version=CMQC.MQOD_VERSION_4)
    od.set_vs("ObjectString", topic_string)
    topic = ibmmq.Queue(conn, od, CMQC.MQOO_OUTPUT)
    md = ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT)
    pmo = ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE
                    | CMQC.MQPMO_NEW_MSG_ID)
    started = time.perf_counter()
    for i in range(count):
        topic.put(BODY, md, pmo)
        if i % 1000 == 999:
            conn.commit()
    conn.commit()
    elapsed = time.perf_counter() - started
    status = conn.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)   # asynchronous puts report failures here
    assert status.PutFailureCount == 0, f"{status.PutFailureCount} publications failed"
    topic.close()
    return elapsed


def bare_subscriber(ibmmq, conn, count: int, batch: int) -> tuple[float, float]:
    """(publish seconds, deliver seconds) through a durable managed subscription."""
    CMQC = ibmmq.CMQC
    sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_RESUME | CMQC.MQSO_DURABLE
                  | CMQC.MQSO_MANAGED)
    sd.set_vs("ObjectString", BARE_TOPIC)
    sd.set_vs("SubName", "BENCH.BARE")
    sub = ibmmq.Subscription(conn)
    sub.sub(sub_desc=sd)
    published = publish(ibmmq, conn, count, BARE_TOPIC)
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT
                    | CMQC.MQGMO_NO_PROPERTIES)
    got = in_batch = 0
    started = time.perf_counter()
    while True:
        try:
            sub.get(4096, ibmmq.MD(), gmo)
        except ibmmq.MQMIError as exc:
            if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                break
            raise
        got += 1
        in_batch += 1
        if in_batch == batch:
            conn.commit()
            in_batch = 0
    conn.commit()
    delivered = time.perf_counter() - started
    sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
    assert got == count, f"bare subscriber got {got} of {count}"
    return published, delivered


def main() -> int:
    args, count = message_arguments(__doc__, 100_000, 20_000)
    with spark_bench("pubsub", args.batch) as bench:
        ibmmq, conn, spark, work = bench.ibmmq, bench.conn, bench.spark, bench.work
        # a durable subscription's managed queue takes the model's MAXDEPTH (5000): make room
        # for the whole run, or persistent publications past it fail (2053, PMSGDLV ALLDUR)
        bench.qm.run_mqsc("ALTER QMODEL(SYSTEM.DURABLE.MODEL.QUEUE) MAXDEPTH(999999999)")
        options = bench.options(topic=TOPIC, subscription="BENCH.SPARK",
                                maxMessagesPerTrigger=str(args.batch), waitIntervalMs="0")
        # warm-up: makes the durable subscription; Spark starts its Python workers
        spark_run(spark, dict(options), os.path.join(work, "ck-warm"))
        publish(ibmmq, conn, 2000)
        spark_run(spark, dict(options), os.path.join(work, "ck-warm"))

        before = bare_subscriber(ibmmq, conn, count, args.batch)
        published = publish(ibmmq, conn, count)
        rows, delivered, _memory = spark_run(spark, dict(options), os.path.join(work, "ck"))
        assert rows == count, f"the topic stream delivered {rows} of {count}"
        after = bare_subscriber(ibmmq, conn, count, args.batch)

        bare_deliver = count / ((before[1] + after[1]) / 2)
        bare_end = count / ((sum(before) + sum(after)) / 2)
        figures: dict[str, float] = {
            "messages": count, "batch": args.batch,
            "publish msg/s": round(count / published),
            "spark topic stream deliver msg/s": round(count / delivered),
            "spark publish -> delivered msg/s": round(count / (published + delivered)),
            "bare subscriber get msg/s": round(bare_deliver),
            "bare publish -> got msg/s": round(bare_end),
        }
        ratios = {
            "spark deliver / bare get": round(figures["spark topic stream deliver msg/s"]
                                              / bare_deliver, 2),
            "spark end-to-end / bare end-to-end": round(
                figures["spark publish -> delivered msg/s"] / bare_end, 2),
        }
        report("pubsub", figures, ratios,
               f"1 KiB persistent publications, {count} per run, one durable managed subscription, "
               f"maxMessagesPerTrigger {args.batch}, noop sink, Trigger.AvailableNow, local[2]; "
               "Spark times include query start-up")
        return 0


if __name__ == "__main__":
    sys.exit(main())
