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

import argparse

from spark_mq.jobs import cli, files_to_queue


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = cli.new_parser("files_to_queue.py", __doc__)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--path", help="input files or directory")
    source.add_argument("--table", help="a table known to the Spark catalog")
    parser.add_argument("--format", choices=files_to_queue.FORMATS, default="parquet",
                        help="format of --path (default: parquet)")
    parser.add_argument("--queue", default="SPARK.MQ.IMPORT", help="target queue (default: SPARK.MQ.IMPORT)")
    parser.add_argument("--payload-column",
                        help="column holding the message body (default: payload, else the row as JSON)")
    parser.add_argument("--columns",
                        help="comma-separated columns passed to the writer as MQMD fields or properties")
    parser.add_argument("--stream", action="store_true",
                        help="watch --path and load new files as they arrive")
    parser.add_argument("--checkpoint", help="checkpoint directory (required with --stream)")
    parser.add_argument("--persistence", choices=files_to_queue.PERSISTENCES,
                        default="persistent", help="(default: persistent)")
    cli.add_trigger_arguments(parser)
    cli.add_connection_arguments(parser)
    cli.add_extra_option_arguments(parser, "write")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    return files_to_queue.main(parse_args(argv))


if __name__ == "__main__":
    cli.run(main)
