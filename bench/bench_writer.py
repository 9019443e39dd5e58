"""Rows/s of the spark-mq writer against a bare ibmmq asynchronous-put loop, same embedded
queue manager, same run.

    .venv/bin/python bench/bench_writer.py [--quick] [--rows 100000] [--commit-every 2000]
                                           [--repeat 2]

Each measure puts `rows` 1 KiB persistent messages under syncpoint, `commit-every` per
MQCMIT, on an embedded queue manager started for the run (the queue is cleared between
measures):
  * bare loop: one process, `queue.put(body, md, pmo)` with MQPMO_ASYNC_RESPONSE, MD/PMO
    reused, MQSTAT + MQCMIT every `commit-every` puts: what a tuned ibmmq program does;
  * bare packed loop (a ceiling, for reference): the same with the MQMD and MQPMO packed
    once and ibmmq's MQPUT verb called directly, as the writer's packed path does;
  * writer: df.write.format("mq") of a DataFrame (payload binary) in 1 and in 2 partitions
    (local[2]), asyncPut=true, atLeastOnce and exactlyOnce (marker per unit of work);
  * the stream writer: df.writeStream.format("mq"), exactlyOnce, one microbatch of `rows`
    rows from rate-micro-batch (2 partitions) with Trigger.AvailableNow, timed by Spark's
    addBatch duration (the query's start-up, planning and checkpoint writes left out);
  * with three properties per message (string, long, double): a bare loop setting them on
    one reused message handle, and the writer with three property columns;
  * writer with asyncPut=false (one round trip per put).
Figures are printed, never asserted (see bench/README.md).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BODY = b"x" * 1024
QUEUES = iter(f"BENCH.WRITER.{n}" for n in range(1, 1000))


def bare_async_put_loop(ibmmq, qm, queue_name: str, rows: int, commit_every: int,
                        with_properties: bool = False) -> float:
    """A plain ibmmq program: async puts under syncpoint, MQSTAT before each MQCMIT; with
    properties, three per message (string, int, double) on one reused message handle."""
    C = ibmmq.CMQC
    conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    queue = ibmmq.Queue(conn, queue_name, C.MQOO_OUTPUT)
    md = ibmmq.MD(Persistence=C.MQPER_PERSISTENT)
    pmo = ibmmq.PMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_NEW_MSG_ID | C.MQPMO_ASYNC_RESPONSE)
    handle = None
    if with_properties:
        handle = ibmmq.MessageHandle(conn)
        pmo.OriginalMsgHandle = handle.msg_handle
    started = time.perf_counter()
    for i in range(1, rows + 1):
        if handle is not None:
            handle.properties.set("region", "emea")
            handle.properties.set("seq", i, property_type=C.MQTYPE_INT64, value_length=8)
            handle.properties.set("price", 1.5 * i, property_type=C.MQTYPE_FLOAT64, value_length=8)
        queue.put(BODY, md, pmo)
        if i % commit_every == 0 or i == rows:
            sts = conn.stat(C.MQSTAT_TYPE_ASYNC_ERROR)
            if sts.PutFailureCount:
                raise RuntimeError(f"async put failed: {sts.Reason}")
            conn.commit()
    elapsed = time.perf_counter() - started
    queue.close()
    conn.disconnect()
    return rows / elapsed


def bare_packed_put_loop(ibmmq, qm, queue_name: str, rows: int, commit_every: int) -> float:
    """The ceiling: MQMD and MQPMO packed once, ibmmq's MQPUT verb called directly (what
    the writer's packed path does, without Spark and without per-row fields)."""
    C = ibmmq.CMQC
    conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    queue = ibmmq.Queue(conn, queue_name, C.MQOO_OUTPUT)
    md = ibmmq.MD(Persistence=C.MQPER_PERSISTENT, Format=C.MQFMT_NONE).pack()
    pmo = ibmmq.PMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_NEW_MSG_ID
                    | C.MQPMO_ASYNC_RESPONSE).pack()
    hconn, hobj, verbs = conn.get_handle(), queue.get_handle(), ibmmq.ibmmqc
    started = time.perf_counter()
    for i in range(1, rows + 1):
        result = verbs.MQPUT(hconn, hobj, md, pmo, BODY)
        if result[-2]:
            raise RuntimeError(f"put failed: {result[-1]}")
        if i % commit_every == 0 or i == rows:
            sts = conn.stat(C.MQSTAT_TYPE_ASYNC_ERROR)
            if sts.PutFailureCount:
                raise RuntimeError(f"async put failed: {sts.Reason}")
            conn.commit()
    elapsed = time.perf_counter() - started
    queue.close()
    conn.disconnect()
    return rows / elapsed


def writer_run(spark, qm, queue_name: str, rows: int, partitions: int,
               properties: bool = False, **options) -> float:
    columns = ["CAST(repeat('x', 1024) AS BINARY) AS payload"]
    if properties:
        columns += ["'emea' AS region", "id AS seq", "CAST(id AS DOUBLE) * 1.5 AS price"]
    df = spark.range(rows, numPartitions=partitions).selectExpr(*columns)
    writer = (df.write.format("mq").option("connName", qm.conn_name)
              .option("queueManager", qm.name).option("queue", queue_name).mode("append"))
    for key, value in options.items():
        writer = writer.option(key, str(value))
    started = time.perf_counter()
    writer.save()
    return rows / (time.perf_counter() - started)


def stream_run(spark, qm, queue_name: str, rows: int, checkpoint: str, **options) -> float:
    """One microbatch of `rows` rows (rate-micro-batch, Trigger.AvailableNow) to the queue."""
    df = (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", rows)
          .option("numPartitions", 2).load()
          .selectExpr("CAST(repeat('x', 1024) AS BINARY) AS payload"))
    writer = (df.writeStream.format("mq").option("connName", qm.conn_name)
              .option("queueManager", qm.name).option("queue", queue_name)
              .option("checkpointLocation", checkpoint).trigger(availableNow=True))
    for key, value in options.items():
        writer = writer.option(key, str(value))
    query = writer.start()
    query.awaitTermination()
    if query.exception() is not None:
        raise RuntimeError(str(query.exception()))
    # the batch's own write time (Spark's addBatch), not the query's start-up
    progress = [p for p in query.recentProgress if p["numInputRows"]]
    return rows / (progress[-1]["durationMs"]["addBatch"] / 1000.0)


def depth(ibmmq, qm, queue_name: str) -> int:
    conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    queue = ibmmq.Queue(conn, queue_name, ibmmq.CMQC.MQOO_INQUIRE)
    value = queue.inquire(ibmmq.CMQC.MQIA_CURRENT_Q_DEPTH)
    queue.close()
    conn.disconnect()
    return value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20k rows instead of 100k")
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument("--commit-every", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=2, help="runs per measure (best kept)")
    args = parser.parse_args()
    rows = args.rows or (20_000 if args.quick else 100_000)
    commit_every = args.commit_every

    sys.path.insert(0, ROOT)
    import spark_mq.embedded as embedded
    embedded.install()
    import ibmmq
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    with tempfile.TemporaryDirectory() as data_dir, \
            embedded.EmbeddedQueueManager(data_dir, name="QM1") as qm:
        spark = (SparkSession.builder.master("local[2]").appName("bench-writer")
                 .config("spark.ui.enabled", "false").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        import spark_mq
        spark_mq.register(spark)

        def fresh_queue() -> str:
            # a new queue per measure: the writer's pooled connections keep theirs open,
            # so it cannot be cleared (as on IBM MQ)
            name = next(QUEUES)
            qm.run_mqsc(f"DEFINE QLOCAL({name}) MAXDEPTH(999999999) REPLACE")
            return name

        sync_rows = max(2000, rows // 5)      # one round trip per put: fewer rows
        # (figure, label, run(queue) -> rows/s, rows)
        measures = [
            ("bare async put msg/s", "bare ibmmq async put loop",
             lambda q: bare_async_put_loop(ibmmq, qm, q, rows, commit_every), rows),
            ("bare packed MQPUT msg/s", "bare packed MQPUT loop (ceiling)",
             lambda q: bare_packed_put_loop(ibmmq, qm, q, rows, commit_every), rows),
            ("writer 1 partition rows/s", "writer, 1 partition",
             lambda q: writer_run(spark, qm, q, rows, 1, commitEvery=commit_every), rows),
            ("writer 2 partitions rows/s", "writer, 2 partitions",
             lambda q: writer_run(spark, qm, q, rows, 2, commitEvery=commit_every), rows),
            ("writer exactlyOnce 2 partitions rows/s", "writer exactlyOnce, 2 partitions",
             lambda q: writer_run(spark, qm, q, rows, 2, commitEvery=commit_every,
                                  delivery="exactlyOnce"), rows),
            ("stream writer exactlyOnce 2 partitions rows/s",
             "stream writer exactlyOnce, 2 partitions (one microbatch, its addBatch time)",
             lambda q: stream_run(spark, qm, q, rows, os.path.join(data_dir, "chk-" + q),
                                  commitEvery=commit_every), rows),
            ("bare async put 3 properties msg/s", "bare ibmmq async put loop, 3 properties",
             lambda q: bare_async_put_loop(ibmmq, qm, q, rows, commit_every, with_properties=True), rows),
            ("writer 3 properties 2 partitions rows/s", "writer, 3 property columns, 2 partitions",
             lambda q: writer_run(spark, qm, q, rows, 2, properties=True,
                                  commitEvery=commit_every), rows),
            ("writer asyncPut=false 2 partitions rows/s", "writer asyncPut=false, 2 partitions",
             lambda q: writer_run(spark, qm, q, sync_rows, 2, commitEvery=commit_every,
                                  asyncPut="false"), sync_rows),
        ]
        # warm up Spark and its Python workers
        writer_run(spark, qm, fresh_queue(), 2000, 2, commitEvery=commit_every)
        # Every measure runs once per round, rounds one after the other, and the best run of
        # each is kept: the machine is shared, the best run is the least disturbed one, and
        # interleaving gives the bare loops and the writer the same conditions.
        runs: dict[str, list[float]] = {figure: [] for figure, *_ in measures}
        for _ in range(args.repeat):
            for figure, label, run, count in measures:
                queue_name = fresh_queue()
                runs[figure].append(run(queue_name))
                written = depth(ibmmq, qm, queue_name)
                if written != count:
                    raise RuntimeError(f"{label}: {written} messages on the queue, "
                                       f"expected {count}")
        figures: dict[str, float] = {}
        for figure, label, _, count in measures:
            figures[figure] = max(runs[figure])
            print(f"{label}: {figures[figure]:,.0f} rows/s ({count} rows; runs: "
                  f"{', '.join(f'{r:,.0f}' for r in runs[figure])})", flush=True)
        figures["rows"] = rows
        spark.stop()

    bare = figures["bare async put msg/s"]
    report = {
        "name": "writer",
        "figures": {k: round(v, 1) for k, v in figures.items()},
        "ratios": {
            "writer 1 partition / bare async put": round(figures["writer 1 partition rows/s"] / bare, 3),
            "writer 2 partitions / bare async put": round(figures["writer 2 partitions rows/s"] / bare, 3),
            "writer exactlyOnce / bare async put":
                round(figures["writer exactlyOnce 2 partitions rows/s"] / bare, 3),
            "stream writer exactlyOnce / bare async put":
                round(figures["stream writer exactlyOnce 2 partitions rows/s"] / bare, 3),
            "writer asyncPut=false / bare async put":
                round(figures["writer asyncPut=false 2 partitions rows/s"] / bare, 3),
            "writer 3 properties / bare async put 3 properties":
                round(figures["writer 3 properties 2 partitions rows/s"]
                      / figures["bare async put 3 properties msg/s"], 3),
            "writer 2 partitions / bare packed MQPUT":
                round(figures["writer 2 partitions rows/s"] / figures["bare packed MQPUT msg/s"], 3),
        },
        "notes": f"1 KiB persistent messages, syncpoint, {commit_every} per MQCMIT, local[2], "
                 f"embedded queue manager, best of {args.repeat} runs",
    }
    print("BENCH " + json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
