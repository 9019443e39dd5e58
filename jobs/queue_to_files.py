"""Archive an IBM MQ queue as files: queue -> Parquet / JSON / CSV / ORC / text, exactly once.

    spark-submit jobs/queue_to_files.py --conn-name 'localhost(1414)' \\
        --queue SPARK.MQ.EXPORT --format parquet --path /data/export

Each micro-batch is one MQ unit of work, committed only after Spark's file sink has
committed the batch's files (delivery exactlyOnce, the default), so a crash at any moment
and a restart on the same --checkpoint neither loses a message nor writes one twice.

Columns written: message_id and correlation_id (hex), put_timestamp, priority, persistent,
format, reply_to_queue, properties (a map; a JSON string in CSV) and payload (UTF-8 text,
or see --payload-encoding). --columns chooses others from the reader's column list.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

FORMATS = ("parquet", "json", "csv", "orc", "text")
DEFAULT_COLUMNS = ("message_id", "correlation_id", "put_timestamp", "priority", "persistent",
                   "format", "reply_to_queue", "properties", "payload")
BINARY_IDS = ("message_id", "correlation_id", "group_id")


def parse_args(argv=None):
    parser = _common.new_parser("queue_to_files.py", __doc__)
    parser.add_argument("--queue", default="SPARK.MQ.EXPORT", help="queue to read (default: SPARK.MQ.EXPORT)")
    parser.add_argument("--format", choices=FORMATS, default="parquet", help="file format (default: parquet)")
    parser.add_argument("--path", required=True, help="output directory (any Hadoop file system URI)")
    parser.add_argument("--checkpoint", help="checkpoint directory (default: <path>/_checkpoint)")
    parser.add_argument("--columns", help=f"comma-separated reader columns (default: {','.join(DEFAULT_COLUMNS)})")
    parser.add_argument("--payload-encoding", choices=("utf8", "base64", "binary"), default="utf8",
                        help="how the payload is written (default: utf8 text; binary is not for csv/json/text)")
    parser.add_argument("--partition-by-date", action="store_true",
                        help="partition the output by put_date (the message's put date)")
    parser.add_argument("--selector", help="MQ message selector, e.g. \"region = 'EU'\"")
    parser.add_argument("--delivery", choices=("exactlyOnce", "atLeastOnce", "atMostOnce"),
                        default="exactlyOnce", help="(default: exactlyOnce)")
    parser.add_argument("--max-messages-per-trigger", type=_common.positive, default=5000,
                        help="messages per micro-batch (default: 5000)")
    _common.add_trigger_arguments(parser)
    _common.add_connection_arguments(parser)
    _common.add_extra_option_arguments(parser, "read")
    return parser.parse_args(argv)


def file_columns(frame, columns: list[str], file_format: str, payload_encoding: str):
    """The reader's columns made fit for the file format (ids as hex, text payloads)."""
    from pyspark.sql import functions as F
    if file_format == "text":
        columns = ["payload"]
    if payload_encoding == "binary" and file_format in ("csv", "json", "text"):
        raise _common.JobError(f"--payload-encoding binary: {file_format} cannot hold binary payloads; "
                               "use utf8 or base64, or --format parquet/orc")
    selected = []
    for name in columns:
        column = F.col(name)
        if name in BINARY_IDS:
            column = F.hex(column)
        elif name == "payload":
            column = {"utf8": column.cast("string"), "base64": F.base64(column),
                      "binary": column}[payload_encoding]
        elif name == "properties" and file_format == "csv":
            column = F.to_json(column)
        selected.append(column.alias(name))
    return frame.select(*selected)


def main(argv=None) -> int:
    args = parse_args(argv)
    connection = _common.require_connection(args)
    columns = _common.csv_list(args.columns) or list(DEFAULT_COLUMNS)
    checkpoint = args.checkpoint or os.path.join(args.path, "_checkpoint")
    spark = _common.spark_session(f"spark-mq queue_to_files {args.queue}")
    options = {**connection, "queue": args.queue, "delivery": args.delivery,
               "maxMessagesPerTrigger": str(args.max_messages_per_trigger),
               **_common.key_values(args.read_options, "--read-option")}
    if args.selector:
        options["selector"] = args.selector
    messages = spark.readStream.format("mq").options(**options).load()
    wanted = columns + (["put_timestamp"] if args.partition_by_date and "put_timestamp" not in columns else [])
    unknown = [name for name in wanted if name not in messages.columns]
    if unknown:
        raise _common.JobError(f"--columns: unknown column(s) {', '.join(unknown)}; "
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
    query = _common.apply_trigger(writer, args).start()
    print(f"streaming {args.queue} -> {args.format} files in {args.path} "
          f"(delivery={args.delivery}, trigger={args.trigger}, checkpoint {checkpoint})", flush=True)
    monitor = _common.ProgressMonitor()
    monitor.track("queue -> files", query)
    _common.await_query(query, args, monitor)
    print(f"done: {monitor.rows('queue -> files'):,} messages from {args.queue} written as {args.format} "
          f"to {args.path} in {monitor.batches('queue -> files')} micro-batches", flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    _common.run(main)
