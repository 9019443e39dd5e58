"""The files_to_queue pipeline (jobs/files_to_queue.py): files or a table put on a queue, one
message per row; a batch load, or a streaming one that loads new files as they arrive."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from spark_mq.jobs.cli import csv_list, key_values
from spark_mq.jobs.job_errors import JobError
from spark_mq.jobs.job_progress import ProgressMonitor
from spark_mq.jobs.job_session import spark_session
from spark_mq.jobs.queue_manager import require_connection
from spark_mq.jobs.streaming import apply_trigger, await_query

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

FORMATS = ("parquet", "json", "csv", "orc", "text")
PERSISTENCES = ("persistent", "nonPersistent", "asQueueDef")


def load(spark: SparkSession, args: argparse.Namespace) -> DataFrame:
    """The input: --table, or the files at --path; a stream with --stream."""
    if args.table:
        if args.stream:
            return spark.readStream.table(args.table)
        return spark.read.table(args.table)
    reader = spark.read.format(args.format)
    if args.format == "csv":
        reader = reader.option("header", "true").option("inferSchema", "true")
    if not args.stream:
        return reader.load(args.path)
    # A streaming file source needs its schema up front: take it from the files present now.
    schema = reader.load(args.path).schema
    stream = spark.readStream.format(args.format).schema(schema)
    if args.format == "csv":
        stream = stream.option("header", "true")
    return stream.load(args.path)


def as_messages(frame: DataFrame, payload_column: str | None, columns: list[str]) -> DataFrame:
    """Rows for the MQ writer: the payload and the --columns (MQMD fields or properties)."""
    from pyspark.sql import functions as F
    missing = [name for name in ([payload_column] if payload_column else []) + columns
               if name not in frame.columns]
    if missing:
        raise JobError(f"unknown column(s) {', '.join(missing)}; the input has: {', '.join(frame.columns)}")
    if payload_column:
        payload = F.col(payload_column)
    elif "payload" in frame.columns:
        payload = F.col("payload")
    else:
        payload = F.to_json(F.struct(*[F.col(name) for name in frame.columns]))
    if dict(frame.dtypes).get(payload_column or "payload") not in (None, "binary", "string"):
        payload = payload.cast("string")
    return frame.select(payload.alias("payload"), *[F.col(name) for name in columns if name != "payload"])


def main(args: argparse.Namespace) -> int:
    """Put the input's rows on --queue."""
    connection = require_connection(args)
    if args.stream and not args.checkpoint:
        raise JobError("--stream needs --checkpoint (where Spark records what it has loaded)")
    spark = spark_session(f"spark-mq files_to_queue {args.queue}", verbose=args.verbose)
    options = {**connection, "queue": args.queue, "persistence": args.persistence,
               **key_values(args.write_options, "--write-option")}
    messages = as_messages(load(spark, args), args.payload_column, csv_list(args.columns))
    source = args.table or args.path
    if not args.stream:
        count = messages.count()
        messages.write.format("mq").options(**options).mode("append").save()
        print(f"done: put {count:,} rows from {source} on {args.queue}", flush=True)
    else:
        writer = messages.writeStream.format("mq").options(**options) \
            .option("checkpointLocation", args.checkpoint).queryName("files_to_queue")
        query = apply_trigger(writer, args).start()
        print(f"streaming {source} -> {args.queue} (trigger={args.trigger})", flush=True)
        monitor = ProgressMonitor()
        monitor.track("files -> queue", query)
        await_query(query, args, monitor)
        print(f"done: put {monitor.rows('files -> queue'):,} rows from {source} on {args.queue}", flush=True)
    spark.stop()
    return 0
