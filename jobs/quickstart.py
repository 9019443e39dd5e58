"""spark-mq quickstart: a real streaming pipeline from an IBM MQ queue, end to end.

    python jobs/quickstart.py                 # starts an embedded queue manager itself
    spark-submit jobs/quickstart.py --messages 20000
    spark-submit jobs/quickstart.py --conn-name 'localhost(1414)' --user app   # a real IBM MQ

What it does:
 1. puts N order messages (JSON) on SPARK.MQ.IN with plain ibmmq, as any MQ application would;
 2. streams them with spark.readStream.format("mq") (exactly-once: each micro-batch is a
    unit of work committed only once Spark has made the batch durable);
 3. parses and enriches them with Spark SQL;
 4. writes them, depending on --sink:
      files  SPARK.MQ.IN -> Parquet files (Spark's exactly-once file sink)
      queue  SPARK.MQ.IN -> SPARK.MQ.OUT (the connector's exactly-once writer)
      both   SPARK.MQ.IN -> SPARK.MQ.OUT -> Parquet files: two streaming queries at once
 5. prints progress per micro-batch and a summary: messages in, rows out, duplicates and
    missing orders (both 0 when exactly-once holds), elapsed time, messages/s, queue depths.

Ctrl-C stops the queries between micro-batches and prints the command that goes on from
there (the same run's --output, --checkpoint and --data-dir, and --resume); Ctrl-C again
quits at once, and the same command still goes on, exactly once.
"""
from __future__ import annotations

import argparse
import os

from spark_mq.jobs import cli, quickstart

# The queue definitions the embedded queue manager starts with: mqsc/ next to jobs/.
MQSC = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "mqsc", "spark-mq.mqsc")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = cli.new_parser(
        "quickstart.py", __doc__,
        epilog="Without --conn-name an embedded queue manager is started with mqsc/spark-mq.mqsc "
               "and stopped at the end.")
    parser.add_argument("--messages", type=cli.positive, default=100_000,
                        help="messages to put on the input queue first (default: 100000)")
    parser.add_argument("--payload-bytes", type=int, default=200,
                        help="approximate size of each message (default: 200)")
    parser.add_argument("--sink", choices=quickstart.SINKS, default="both",
                        help="where the transformed rows go (default: both = queue, then files)")
    parser.add_argument("--input-queue", default="SPARK.MQ.IN")
    parser.add_argument("--output-queue", default="SPARK.MQ.OUT")
    parser.add_argument("--output", help="directory for the Parquet files (default: a new temp dir)")
    parser.add_argument("--checkpoint", help="checkpoint directory (default: under --output)")
    parser.add_argument("--resume", action="store_true",
                        help="go on with a run that Ctrl-C stopped, from its --output, --checkpoint "
                             "and --data-dir (the command it printed says them); puts no new orders")
    parser.add_argument("--max-messages-per-trigger", type=cli.positive, default=10_000,
                        help="messages per micro-batch (default: 10000; below the queue manager's MAXUMSGS)")
    parser.add_argument("--delivery", default="exactlyOnce", choices=quickstart.DELIVERIES)
    parser.add_argument("--timeout", type=float, default=900.0,
                        help="give up after this many seconds (default: 900)")
    cli.add_connection_arguments(parser)
    cli.add_embedded_arguments(parser, default_mqsc=MQSC)
    cli.add_extra_option_arguments(parser, "read", "write")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    return quickstart.main(parse_args(argv))


if __name__ == "__main__":
    cli.run(main)
