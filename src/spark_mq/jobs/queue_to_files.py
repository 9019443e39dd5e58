"""The queue_to_files pipeline (jobs/queue_to_files.py): a queue archived as files, exactly
once, one MQ unit of work per micro-batch committed after Spark's file sink committed the
batch's files.

The payload written as text (--payload-encoding utf8, the default, and --format text) is
the reader's `text` column, decoded by each message's own CCSID, read with requireText: a
message that is not text goes to the backout queue with its reason (spark_mq.jobs.job_text),
never into the files as replacement characters. base64 and binary write the bytes as they
are, so every message is written."""
from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from spark_mq.jobs import ctrl_c
from spark_mq.jobs.cli import csv_list, key_values
from spark_mq.jobs.job_errors import JobError
from spark_mq.jobs.job_progress import ProgressMonitor
from spark_mq.jobs.job_session import spark_session
from spark_mq.jobs.job_text import not_text_line, text_read_options
from spark_mq.jobs.queue_manager import require_connection, unknown_queue
from spark_mq.jobs.streaming import apply_trigger, await_query

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

FORMATS = ("parquet", "json", "csv", "orc", "text")
DELIVERIES = ("exactlyOnce", "atLeastOnce", "atMostOnce")
PAYLOAD_ENCODINGS = ("utf8", "base64", "binary")
DEFAULT_COLUMNS = ("message_id", "correlation_id", "put_timestamp", "priority", "persistent",
                   "format", "reply_to_queue", "properties", "payload")
BINARY_IDS = ("message_id", "correlation_id", "group_id")


def file_columns(frame: DataFrame, columns: list[str], file_format: str, payload_encoding: str) -> DataFrame:
    """The reader's columns made fit for the file format (ids as hex, text payloads)."""
    from pyspark.sql import functions as F
    if file_format == "text":
        columns = ["payload"]
    if payload_encoding == "binary" and file_format in ("csv", "json", "text"):
        raise JobError(f"--payload-encoding binary: {file_format} cannot hold binary payloads; "
                       "use utf8 or base64, or --format parquet/orc")
    selected = []
    for name in columns:
        column = F.col(name)
        if name in BINARY_IDS:
            column = F.hex(column)
        elif name == "payload":
            # utf8: the text by the message's own CCSID (a cast would read EBCDIC as UTF-8)
            column = {"utf8": F.col("text"), "base64": F.base64(column),
                      "binary": column}[payload_encoding]
        elif name == "properties" and file_format == "csv":
            column = F.to_json(column)
        selected.append(column.alias(name))
    return frame.select(*selected)


def writes_text(columns: list[str], file_format: str, payload_encoding: str) -> bool:
    """Whether the files get message data as text (then only text may be written)."""
    return payload_encoding == "utf8" and ("payload" in columns or file_format == "text")


def text_options(args: argparse.Namespace, columns: list[str]) -> dict[str, str]:
    """requireText when the files get text; atMostOnce cannot move what is not text."""
    if not writes_text(columns, args.format, args.payload_encoding):
        return {}
    if args.delivery == "atMostOnce":
        raise JobError("--delivery atMostOnce with text payloads: a message that is not text "
                       "in its CCSID is moved to the backout queue in the batch's unit of work, "
                       "which atMostOnce does not have; use --delivery exactlyOnce or "
                       "atLeastOnce, or --payload-encoding base64 to write every payload's bytes")
    return text_read_options(args.delivery)


def main(args: argparse.Namespace) -> int:
    """Stream --queue into files until the trigger says stop."""
    connection = require_connection(args)
    columns = csv_list(args.columns) or list(DEFAULT_COLUMNS)
    checkpoint = args.checkpoint or os.path.join(args.path, "_checkpoint")
    text = text_options(args, columns)
    spark = spark_session(f"spark-mq queue_to_files {args.queue}", verbose=args.verbose)
    options = {**connection, "queue": args.queue, "delivery": args.delivery,
               "maxMessagesPerTrigger": str(args.max_messages_per_trigger),
               **ctrl_c.read_options(), **text, **key_values(args.read_options, "--read-option")}
    if args.selector:
        options["selector"] = args.selector
    try:
        return archive(spark, args, options, columns, checkpoint)
    except Exception as exc:
        hint = unknown_queue(exc, args.queue, "--queue", connection)
        if hint is None:
            raise
        raise hint from exc


def archive(spark: SparkSession, args: argparse.Namespace, options: dict[str, str], columns: list[str],
            checkpoint: str) -> int:
    """The streaming query from the queue to the files, run to its end, and the summary."""
    messages = spark.readStream.format("mq").options(**options).load()
    wanted = list(columns)
    if args.partition_by_date and "put_timestamp" not in wanted:
        wanted.append("put_timestamp")
    unknown = [name for name in wanted if name not in messages.columns]
    if unknown:
        raise JobError(f"--columns: unknown column(s) {', '.join(unknown)}; "
                       f"valid: {', '.join(messages.columns)}")
    rows = file_columns(messages, wanted, args.format, args.payload_encoding)
    writer = rows.writeStream
    if args.partition_by_date:
        from pyspark.sql import functions as F
        writer = rows.withColumn("put_date", F.to_date("put_timestamp")).writeStream.partitionBy("put_date")
    writer = writer.format(args.format).option("path", args.path) \
        .option("checkpointLocation", checkpoint).queryName("queue_to_files")
    if args.format == "csv":
        # RFC 4180 quoting (a quote inside a field is doubled), which other tools read;
        # Spark's default backslash escaping is its own.
        writer = writer.option("header", "true").option("escape", '"')
    query = apply_trigger(writer, args).start()
    print(f"streaming {args.queue} -> {args.format} files in {args.path} "
          f"(delivery={args.delivery}, trigger={args.trigger}, checkpoint {checkpoint})", flush=True)
    monitor = ProgressMonitor()
    monitor.track("queue -> files", query)
    try:
        await_query(query, args, monitor)
    except ctrl_c.Interrupted:   # what was moved is said before the command that goes on
        moved = not_text_line(monitor.report("queue -> files"), args.queue)
        if moved:
            print(moved, flush=True)
        raise
    moved = not_text_line(monitor.report("queue -> files"), args.queue)
    print(f"done: {monitor.rows('queue -> files'):,} messages from {args.queue} written as {args.format} "
          f"to {args.path} in {monitor.batches('queue -> files')} micro-batches", flush=True)
    if moved:
        print(moved, flush=True)
    spark.stop()
    return 0
