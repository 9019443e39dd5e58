"""The quickstart pipeline (jobs/quickstart.py): orders put on SPARK.MQ.IN with plain ibmmq,
streamed with the "mq" source, parsed and enriched with Spark SQL, written to Parquet files,
to SPARK.MQ.OUT, or to both (queue, then files: two streaming queries at once), and a
summary that checks each order arrived exactly once."""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from spark_mq.jobs import ctrl_c
from spark_mq.jobs.cli import key_values
from spark_mq.jobs.job_errors import JobError
from spark_mq.jobs.job_progress import ProgressMonitor
from spark_mq.jobs.job_session import spark_session
from spark_mq.jobs.job_text import text_read_options
from spark_mq.jobs.plain_mq import PlainMQ
from spark_mq.jobs.queue_manager import queue_manager
from spark_mq.jobs.streaming import wait_for_pipeline

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

SINKS = ("files", "queue", "both")
DELIVERIES = ("exactlyOnce", "atLeastOnce", "atMostOnce")
ORDER_SCHEMA = "order_id LONG, customer STRING, amount DOUBLE, currency STRING, note STRING"
EUR_PER_USD = 0.92


def order_messages(count: int, size: int) -> Iterator[bytes]:
    """Deterministic orders, so the summary can check that each arrived exactly once."""
    for order_id in range(count):
        order = {"order_id": order_id, "customer": f"C{order_id % 1000:04d}",
                 "amount": (order_id * 7919 % 100_000) / 100, "currency": "USD", "note": ""}
        padding = size - len(json.dumps(order))
        if padding > 0:
            order["note"] = "x" * padding
        yield json.dumps(order).encode()


def enriched_orders(stream: DataFrame) -> DataFrame:
    """The transformation: parse the JSON payload, convert the amount, flag large orders."""
    from pyspark.sql import functions as F
    # `text`: the payload decoded by its own CCSID (see text_read_options)
    orders = stream.select(F.from_json(F.col("text"), ORDER_SCHEMA).alias("o"),
                           F.col("message_id"), F.col("put_timestamp"))
    return (orders.select("o.order_id", "o.customer", "o.amount", "message_id", "put_timestamp")
            .withColumn("amount_eur", F.round(F.col("amount") * EUR_PER_USD, 2))
            .withColumn("large", F.col("amount") >= 500))


def as_messages(orders: DataFrame) -> DataFrame:
    """Rows for the MQ writer: a JSON payload, the input's MsgId as CorrelId, two properties."""
    from pyspark.sql import functions as F
    body = F.to_json(F.struct("order_id", "customer", "amount_eur", "large"))
    return orders.select(body.alias("payload"), F.col("message_id").alias("correlation_id"),
                         "order_id", "large")


def from_messages(stream: DataFrame) -> DataFrame:
    """Second stage: the transformed messages back into rows, with the originating MsgId."""
    from pyspark.sql import functions as F
    parsed = F.from_json(F.col("text"),
                         "order_id LONG, customer STRING, amount_eur DOUBLE, large BOOLEAN")
    return stream.select(parsed.alias("o"), F.hex("correlation_id").alias("source_message_id"),
                         "put_timestamp").select("o.*", "source_message_id", "put_timestamp")


#: what a run put, in its --output: what a run after Ctrl-C (--resume) checks against
RUN_FILE = "quickstart-run.json"
#: the arguments the command that goes on sets itself (resume_arguments)
_RESUME_SET = ("--output", "--checkpoint", "--data-dir", "--resume")


def main(args: argparse.Namespace) -> int:
    """Run the quickstart; 0 when every order came out exactly once, else 1."""
    output = os.path.abspath(args.output or tempfile.mkdtemp(prefix="spark-mq-quickstart-"))
    files_path = os.path.join(output, "orders")
    checkpoint = os.path.abspath(args.checkpoint or os.path.join(output, "checkpoints"))
    run = read_run(output) if args.resume else None
    if run is None and os.path.isdir(files_path) and os.listdir(files_path):
        # The summary counts every order in the files: a previous run's would show as duplicates.
        raise JobError(f"--output: {output} already holds a previous run's files; give a new or "
                       "empty directory, or add --resume to go on with the run that Ctrl-C stopped")
    if run is None and os.path.isdir(checkpoint) and os.listdir(checkpoint):
        # Spark would go on from it into files that are not there: a Java FileNotFoundException
        raise JobError(f"--checkpoint: {checkpoint} holds the progress of an earlier run; go on "
                       "with that run (add --resume and its --output, as its Ctrl-C said), or "
                       "give a new or empty directory")
    ctrl_c.on_resume(lambda: resume_arguments(args, output, checkpoint))
    with queue_manager(args) as connection, PlainMQ(connection) as mq:
        return run_pipeline(args, connection, mq, files_path, checkpoint, run)


def read_run(output: str) -> dict[str, int]:
    """What the run that --resume goes on with put (its RUN_FILE)."""
    try:
        with open(os.path.join(output, RUN_FILE), encoding="utf-8") as handle:
            run = json.load(handle)
        return {key: int(run[key]) for key in ("messages", "expected", "before_out")}
    except (OSError, ValueError, KeyError, TypeError):
        raise JobError(f"--resume: {output} holds no quickstart run to go on with (no readable "
                       f"{RUN_FILE}); give the --output of the run that Ctrl-C stopped") from None


def resume_arguments(args: argparse.Namespace, output: str, checkpoint: str) -> list[str]:
    """This run's arguments, with its directories named and --resume: the arguments that go
    on where Ctrl-C stopped it (the orders it put are not put again)."""
    kept, skip = [], False
    for argument in sys.argv[1:]:
        name = argument.split("=", 1)[0]
        if skip:
            skip = False
        elif name in _RESUME_SET:
            skip = "=" not in argument and name != "--resume"
        else:
            kept.append(argument)
    named = ["--output", output, "--checkpoint", checkpoint]
    if args.data_dir:
        named += ["--data-dir", os.path.abspath(args.data_dir)]
    return [*kept, *named, "--resume"]


def run_pipeline(args: argparse.Namespace, connection: dict[str, str], mq: PlainMQ, files_path: str,
                 checkpoint: str, run: dict[str, int] | None = None) -> int:
    """Put the orders (unless `run` says an earlier run put them), stream them through to the
    --sink, print the summary."""
    if run is None:
        run = put_orders(args, mq, os.path.dirname(files_path))
    else:
        args.messages = run["messages"]
        print(f"going on with the run that put {run['messages']:,} orders; "
              f"{mq.depth(args.input_queue):,} messages wait on {args.input_queue}", flush=True)
    expected, before_out = run["expected"], run["before_out"]
    spark = spark_session("spark-mq-quickstart", verbose=args.verbose)
    # What this run moves: a run that goes on counts only the rest, or it would wait for
    # rows that came out before Ctrl-C and end only after wait_for_pipeline's settle time.
    to_move = expected - (already_out(spark, args, files_path, mq, before_out) if args.resume else 0)
    read_options = {**connection, "delivery": args.delivery,
                    "maxMessagesPerTrigger": str(args.max_messages_per_trigger),
                    **ctrl_c.read_options(), **text_read_options(args.delivery),
                    **key_values(args.read_options, "--read-option")}
    write_options = {**connection, "queue": args.output_queue,
                     **key_values(args.write_options, "--write-option")}

    def depths() -> str:
        return (f"depth {args.input_queue}={mq.depth(args.input_queue):,} "
                f"{args.output_queue}={mq.depth(args.output_queue):,}")

    monitor = ProgressMonitor(expected=to_move, depth=depths)
    source = spark.readStream.format("mq").options(**read_options).option("queue", args.input_queue).load()
    orders = enriched_orders(source)
    queries = []
    print(f"streaming with delivery={args.delivery}, sink={args.sink}, "
          f"maxMessagesPerTrigger={args.max_messages_per_trigger:,}{batch_note(args, mq)} ...",
          flush=True)
    started = monitor.started = time.monotonic()
    if args.sink in ("queue", "both"):
        to_queue = (as_messages(orders).writeStream.format("mq").options(**write_options)
                    .option("checkpointLocation", os.path.join(checkpoint, "to-queue"))
                    .queryName("in_to_out_queue").trigger(availableNow=True).start())
        monitor.track("in -> queue", to_queue)
        queries.append(to_queue)
    if args.sink in ("files", "both"):
        rows = orders
        if args.sink == "both":
            second = (spark.readStream.format("mq").options(**read_options)
                      .option("queue", args.output_queue).load())
            rows = from_messages(second)
        else:
            from pyspark.sql import functions as F
            rows = orders.withColumn("message_id", F.hex("message_id"))
        # After the queue stage the files stage keeps running (its input is still filling).
        # (a batch as soon as the last one ends: no fixed interval for it to fall behind)
        trigger = {"processingTime": "0 seconds"} if args.sink == "both" else {"availableNow": True}
        to_files = (rows.writeStream.format("parquet").option("path", files_path)
                    .option("checkpointLocation", os.path.join(checkpoint, "to-files"))
                    .queryName("to_parquet").trigger(**trigger).start())
        monitor.track("queue -> files" if args.sink == "both" else "in -> files", to_files)
        queries.append(to_files)

    last = monitor.tracked[-1].label
    drained = [args.input_queue] + ([args.output_queue] if args.sink == "both" else [])
    finished = wait_for_pipeline(queries, monitor, last, to_move, mq.depth, drained, args.timeout)
    elapsed = finished - started

    rows_out, distinct, missing = count_output(spark, args, files_path, mq, expected, before_out)
    print_summary(args, expected, rows_out, distinct, missing, elapsed, monitor, mq, files_path)
    spark.stop()
    return 0 if rows_out == expected and distinct == expected else 1


def already_out(spark: SparkSession, args: argparse.Namespace, files_path: str, mq: PlainMQ,
                before_out: int) -> int:
    """Rows the run that --resume goes on with delivered to its sink before it stopped: on
    the output queue, or in the files Spark's file sink committed (listed in its
    _spark_metadata, which Spark's reader follows: not the files of a batch cut short)."""
    if args.sink == "queue":
        return max(mq.depth(args.output_queue) - before_out, 0)
    if not os.path.isdir(os.path.join(files_path, "_spark_metadata")):
        return 0
    # a schema given: a log of batches without files has none to infer
    return spark.read.schema("order_id LONG").parquet(files_path).count()


def put_orders(args: argparse.Namespace, mq: PlainMQ, output: str) -> dict[str, int]:
    """Put --messages orders on the input queue and note the run in `output` (RUN_FILE)."""
    before_in, before_out = mq.depth(args.input_queue), mq.depth(args.output_queue)
    if before_in or before_out:
        print(f"note: {args.input_queue} already holds {before_in:,} and {args.output_queue} "
              f"{before_out:,} messages; they flow through too", flush=True)
    started = time.monotonic()
    mq.put_many(args.input_queue, order_messages(args.messages, args.payload_bytes),
                on_progress=lambda n: n % 20_000 == 0 and print(f"  put {n:,} messages", flush=True))
    load_seconds = time.monotonic() - started
    print(f"put {args.messages:,} messages on {args.input_queue} in {load_seconds:.1f} s "
          f"({args.messages / load_seconds:,.0f} msg/s, plain ibmmq)", flush=True)
    run = {"messages": args.messages, "before_out": before_out,
           "expected": args.messages + before_in + (before_out if args.sink == "both" else 0)}
    os.makedirs(output, exist_ok=True)
    with open(os.path.join(output, RUN_FILE), "w", encoding="utf-8") as handle:
        json.dump(run, handle)
    return run


def batch_note(args: argparse.Namespace, mq: PlainMQ) -> str:
    """Why micro-batches are smaller than maxMessagesPerTrigger, when they will be."""
    if args.delivery == "atMostOnce":
        return ""
    from spark_mq.mq.consumer import messages_per_unit_of_work
    max_uncommitted = mq.max_uncommitted()
    limit = messages_per_unit_of_work(max_uncommitted)
    if args.max_messages_per_trigger <= limit:
        return ""
    return (f" (batches of at most {limit:,}: a micro-batch is one unit of work, and the "
            f"queue manager's MAXUMSGS is {max_uncommitted:,})")


def count_output(spark: SparkSession, args: argparse.Namespace, files_path: str, mq: PlainMQ, expected: int,
                 before_out: int) -> tuple[int, int, int]:
    """(rows out, distinct orders among them, orders we put that are missing)."""
    from pyspark.sql import functions as F
    if args.sink == "queue":
        rows_out = mq.depth(args.output_queue) - before_out
        return rows_out, rows_out, max(expected - rows_out, 0)
    # The queries have stopped: adaptive execution (off for them, job_session.py) applies to
    # this batch count and merges the shuffle's partitions (spark.sql.shuffle.partitions, 200
    # unless set: 200 tasks for a few thousand rows, most of the summary's time in a local run).
    spark.conf.set("spark.sql.adaptive.enabled", "true")
    ours = F.when(F.col("order_id") < args.messages, F.col("order_id"))   # others: null, not counted
    row = spark.read.parquet(files_path).agg(
        F.count("*").alias("rows"), F.countDistinct("order_id").alias("distinct"),
        F.countDistinct(ours).alias("ours")).first()
    assert row is not None  # an aggregate without grouping has one row
    return row["rows"], row["distinct"], args.messages - row["ours"]


def print_summary(args: argparse.Namespace, expected: int, rows_out: int, distinct: int, missing: int,
                  elapsed: float, monitor: ProgressMonitor, mq: PlainMQ, files_path: str) -> None:
    """Messages in, rows out, duplicates, missing, micro-batches, time, rates, final depths."""
    rate = expected / elapsed if elapsed > 0 else 0.0
    batches = ", ".join(f"{t.label}: {t.batches} batch{'' if t.batches == 1 else 'es'}"
                        for t in monitor.tracked)
    destination = f"Parquet in {files_path}" if args.sink != "queue" else args.output_queue
    print("\n=== spark-mq quickstart summary ===", flush=True)
    print(f"messages in        {expected:,} ({args.input_queue})")
    print(f"rows out           {rows_out:,} ({destination})")
    print(f"duplicates         {rows_out - distinct:,}")
    print(f"missing            {missing:,}")
    print(f"micro-batches      {batches}")
    print(f"elapsed            {elapsed:.1f} s")
    print(f"throughput         {rate:,.0f} messages/s end to end, start-up included "
          f"(delivery={args.delivery})")
    steady = monitor.steady_rate(monitor.tracked[-1].label)
    if steady:
        print(f"                   {steady:,.0f} messages/s after the first micro-batch")
    print(f"queue depths after {args.input_queue}={mq.depth(args.input_queue):,} "
          f"{args.output_queue}={mq.depth(args.output_queue):,}", flush=True)
