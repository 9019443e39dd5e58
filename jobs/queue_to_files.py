"""Archive an IBM MQ queue as files: queue -> Parquet / JSON / CSV / ORC / text, exactly once.

    spark-submit jobs/queue_to_files.py --conn-name 'localhost(1414)' \\
        --queue DEV.QUEUE.1 --format parquet --path /data/export

DEV.QUEUE.1 to 3 are on every embedded queue manager (python -m spark_mq.embedded
--data-dir DIR). The default --queue, SPARK.MQ.EXPORT, is one of the jobs' queues in
mqsc/spark-mq.mqsc (with BOQNAME SPARK.MQ.BACKOUT): start the queue manager with --mqsc
mqsc/spark-mq.mqsc, or load it: spark-mq-qmgr mqsc --conn-name 'localhost(1414)' -f
mqsc/spark-mq.mqsc.

Each micro-batch is one MQ unit of work, committed only after Spark's file sink has
committed the batch's files (delivery exactlyOnce, the default), so a crash at any moment
and a restart on the same --checkpoint neither loses a message nor writes one twice.

Columns written: message_id and correlation_id (hex), put_timestamp, priority, persistent,
format, reply_to_queue, properties (a map; a JSON string in CSV) and payload (text, or
see --payload-encoding). --columns chooses others from the reader's column list.
"""
from __future__ import annotations

import argparse

from spark_mq.jobs import cli, job_text, queue_to_files


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = cli.new_parser("queue_to_files.py", __doc__, job_text.HELP)
    parser.add_argument("--queue", default="SPARK.MQ.EXPORT", help="queue to read (default: SPARK.MQ.EXPORT)")
    parser.add_argument("--format", choices=queue_to_files.FORMATS, default="parquet",
                        help="file format (default: parquet)")
    parser.add_argument("--path", required=True, help="output directory (any Hadoop file system URI)")
    parser.add_argument("--checkpoint", help="checkpoint directory (default: <path>/_checkpoint)")
    parser.add_argument("--columns", help="comma-separated reader columns "
                                          f"(default: {','.join(queue_to_files.DEFAULT_COLUMNS)})")
    parser.add_argument("--payload-encoding", choices=queue_to_files.PAYLOAD_ENCODINGS, default="utf8",
                        help="how the payload is written: utf8 (default), the text decoded by "
                             "each message's CCSID (see Code pages below); base64 or binary, its "
                             "bytes as they are (binary is not for csv/json/text)")
    parser.add_argument("--partition-by-date", action="store_true",
                        help="partition the output by put_date (the message's put date)")
    parser.add_argument("--selector", help="MQ message selector, e.g. \"region = 'EU'\"")
    parser.add_argument("--delivery", choices=queue_to_files.DELIVERIES,
                        default="exactlyOnce", help="(default: exactlyOnce)")
    parser.add_argument("--max-messages-per-trigger", type=cli.positive, default=5000,
                        help="messages per micro-batch (default: 5000)")
    cli.add_trigger_arguments(parser)
    cli.add_connection_arguments(parser)
    cli.add_extra_option_arguments(parser, "read")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    return queue_to_files.main(parse_args(argv))


if __name__ == "__main__":
    cli.run(main)
