"""Load files or a table onto an IBM MQ queue: one message per row.

    spark-submit jobs/files_to_queue.py --conn-name 'localhost(1414)' \\
        --format parquet --path /data/orders --queue SPARK.MQ.IMPORT

    spark-submit jobs/files_to_queue.py --table sales.orders --payload-column body \\
        --columns order_id,region --queue SPARK.MQ.IMPORT

The payload is --payload-column (binary or string), or, by default, the column named
"payload" when there is one, else the whole row as JSON. --columns are passed on as they
are: the writer's MQMD names (correlation_id, priority, persistent, expiry, reply_to_queue,
queue, ...) set those fields, any other name becomes a message property typed from the
column's type.

Batch by default (a one-off load). With --stream the directory is watched and new files
are loaded as they arrive, exactly once (the writer's markers make a replayed micro-batch
put nothing twice).
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

FORMATS = ("parquet", "json", "csv", "orc", "text")


def parse_args(argv=None):
    parser = _common.new_parser("files_to_queue.py", __doc__)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--path", help="input files or directory")
    source.add_argument("--table", help="a table known to the Spark catalog")
    parser.add_argument("--format", choices=FORMATS, default="parquet", help="format of --path (default: parquet)")
    parser.add_argument("--queue", default="SPARK.MQ.IMPORT", help="target queue (default: SPARK.MQ.IMPORT)")
    parser.add_argument("--payload-column", help="column holding the message body (default: payload, else the row as JSON)")
    parser.add_argument("--columns", help="comma-separated columns passed to the writer as MQMD fields or properties")
    parser.add_argument("--stream", action="store_true", help="watch --path and load new files as they arrive")
    parser.add_argument("--checkpoint", help="checkpoint directory (required with --stream)")
    parser.add_argument("--persistence", choices=("persistent", "nonPersistent", "asQueueDef"),
                        default="persistent", help="(default: persistent)")
    _common.add_trigger_arguments(parser)
    _common.add_connection_arguments(parser)
    _common.add_extra_option_arguments(parser, "write")
    return parser.parse_args(argv)


def load(spark, args):
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


def as_messages(frame, payload_column: str | None, columns: list[str]):
    from pyspark.sql import functions as F
    missing = [name for name in ([payload_column] if payload_column else []) + columns
               if name not in frame.columns]
    if missing:
        raise _common.JobError(f"unknown column(s) {', '.join(missing)}; the input has: {', '.join(frame.columns)}")
    if payload_column:
        payload = F.col(payload_column)
    elif "payload" in frame.columns:
        payload = F.col("payload")
    else:
        payload = F.to_json(F.struct(*[F.col(name) for name in frame.columns]))
    if dict(frame.dtypes).get(payload_column or "payload") not in (None, "binary", "string"):
        payload = payload.cast("string")
    return frame.select(payload.alias("payload"), *[F.col(name) for name in columns if name != "payload"])


def main(argv=None) -> int:
    args = parse_args(argv)
    connection = _common.require_connection(args)
    if args.stream and not args.checkpoint:
        raise _common.JobError("--stream needs --checkpoint (where Spark records what it has loaded)")
    spark = _common.spark_session(f"spark-mq files_to_queue {args.queue}")
    options = {**connection, "queue": args.queue, "persistence": args.persistence,
               **_common.key_values(args.write_options, "--write-option")}
    messages = as_messages(load(spark, args), args.payload_column, _common.csv_list(args.columns))
    source = args.table or args.path
    if not args.stream:
        count = messages.count()
        messages.write.format("mq").options(**options).mode("append").save()
        print(f"done: put {count:,} rows from {source} on {args.queue}", flush=True)
    else:
        writer = messages.writeStream.format("mq").options(**options) \
            .option("checkpointLocation", args.checkpoint).queryName("files_to_queue")
        query = _common.apply_trigger(writer, args).start()
        print(f"streaming {source} -> {args.queue} (trigger={args.trigger})", flush=True)
        monitor = _common.ProgressMonitor()
        monitor.track("files -> queue", query)
        _common.await_query(query, args, monitor)
        print(f"done: put {monitor.rows('files -> queue'):,} rows from {source} on {args.queue}", flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    _common.run(main)
