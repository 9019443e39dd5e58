"""What reading mainframe text costs: MQGMO_CONVERT of EBCDIC (CCSID 37) 1 KiB MQSTR
messages to UTF-8, and the reader's `text` column, against the same reads without them and
a bare ibmmq loop, on the same embedded queue manager in the same run.

    .venv/bin/python bench/bench_convert.py [--quick] [--messages 100000] [--batch 10000]

* bare syncpoint get loop (MQCMIT per --batch) without and with MQGMO_CONVERT 37 -> 1208:
  the queue manager's conversion cost per message;
* the Spark reader (exactlyOnce, noop sink, Trigger.AvailableNow) with the default columns
  but `text`, with `text` (decoded on the executors by each message's CCSID), and with
  convert=true (the queue manager converts) plus `text`.
Figures are printed, never asserted.
"""
from __future__ import annotations

import os
import sys
import time

from bench_reader import message_arguments, report, spark_bench

TEXT = ("KUNDE 4711 BESTELLT 12 STUECK ARTIKEL 0815 ZU 9,99 EUR; " * 20)[:1024]
BODY = TEXT.encode("cp037")


def fill(ibmmq, conn, queue: str, count: int) -> None:
    CMQC = ibmmq.CMQC
    q = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
    md = ibmmq.MD(Format=CMQC.MQFMT_STRING, CodedCharSetId=37, Encoding=785,
                  Persistence=CMQC.MQPER_PERSISTENT)
    pmo = ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_NEW_MSG_ID)
    for i in range(count):
        q.put(BODY, md, pmo)
        if i % 1000 == 999:
            conn.commit()
    conn.commit()
    q.close()


def bare_get(ibmmq, conn, queue: str, batch: int, convert: bool) -> tuple[int, float]:
    CMQC = ibmmq.CMQC
    q = ibmmq.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED)
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT
                    | (CMQC.MQGMO_CONVERT if convert else 0), MatchOptions=CMQC.MQMO_NONE)
    count = 0
    started = time.perf_counter()
    while True:
        md = ibmmq.MD(CodedCharSetId=1208, Encoding=546)
        try:
            data = q.get(4096, md, gmo)
        except ibmmq.MQMIError as exc:
            if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                break
            raise
        if convert and count == 0:
            assert data == TEXT.encode("utf-8"), "the queue manager did not convert"
        count += 1
        if count % batch == 0:
            conn.commit()
    conn.commit()
    elapsed = time.perf_counter() - started
    q.close()
    return count, elapsed


def spark_read(spark, options: dict, schema: str, checkpoint: str) -> tuple[int, float]:
    started = time.perf_counter()
    query = (spark.readStream.format("mq").options(**options).schema(schema).load()
             .writeStream.format("noop").option("checkpointLocation", checkpoint)
             .trigger(availableNow=True).start())
    query.awaitTermination()
    elapsed = time.perf_counter() - started
    if query.exception():
        raise query.exception()
    return sum(p["numInputRows"] for p in query.recentProgress), elapsed


def main() -> int:
    args, count = message_arguments(__doc__, 100_000, 20_000)
    from spark_mq.columns import DEFAULT_COLUMNS
    without_text = ", ".join(f"{n} {t}" for n, t in DEFAULT_COLUMNS if n != "text")
    with_text = ", ".join(f"{n} {t}" for n, t in DEFAULT_COLUMNS)
    with spark_bench("convert", args.batch) as bench:
        ibmmq, conn, spark, work = bench.ibmmq, bench.conn, bench.spark, bench.work
        bench.qm.run_mqsc("DEFINE QLOCAL(BENCH.EBCDIC) MAXDEPTH(999999999) REPLACE")
        options = bench.options(queue="BENCH.EBCDIC", maxMessagesPerTrigger=str(args.batch),
                                waitIntervalMs="0")
        fill(ibmmq, conn, "BENCH.EBCDIC", 2000)   # warm-up: Spark starts its workers
        spark_read(spark, options, with_text, os.path.join(work, "ck-warm"))
        figures: dict[str, float] = {"messages": count, "batch": args.batch}
        for label, convert in (("bare get", False), ("bare get + CONVERT", True)):
            fill(ibmmq, conn, "BENCH.EBCDIC", count)
            n, secs = bare_get(ibmmq, conn, "BENCH.EBCDIC", args.batch, convert)
            assert n == count, f"{label}: {n} of {count}"
            figures[f"{label} msg/s"] = round(n / secs)
        runs = (("reader, no text column", options, without_text),
                ("reader + text column", options, with_text),
                ("reader + convert + text column", dict(options, convert="true"), with_text))
        for index, (label, opts, schema) in enumerate(runs):
            fill(ibmmq, conn, "BENCH.EBCDIC", count)
            rows, secs = spark_read(spark, opts, schema, os.path.join(work, f"ck-{index}"))
            assert rows == count, f"{label}: {rows} of {count}"
            figures[f"{label} msg/s"] = round(rows / secs)
        base = figures["reader, no text column msg/s"]
        ratios = {
            "bare get + CONVERT / bare get": round(figures["bare get + CONVERT msg/s"]
                                                   / figures["bare get msg/s"], 2),
            "reader + text / reader": round(figures["reader + text column msg/s"] / base, 2),
            "reader + convert + text / reader": round(
                figures["reader + convert + text column msg/s"] / base, 2),
            "reader + convert + text / bare get + CONVERT": round(
                figures["reader + convert + text column msg/s"]
                / figures["bare get + CONVERT msg/s"], 2),
        }
        report("convert", figures, ratios,
               f"EBCDIC CCSID 37 MQSTR 1 KiB persistent messages, {count} per run, "
               f"maxMessagesPerTrigger {args.batch}, noop sink, Trigger.AvailableNow, local[2], "
               "after one warm-up query")
    return 0


if __name__ == "__main__":
    sys.exit(main())
