"""Request/reply bridge: answer each request message on the queue its sender named.

    spark-submit jobs/request_reply_bridge.py --conn-name 'localhost(1414)' \\
        --request-queue SPARK.MQ.REQUEST --transform upper --checkpoint /data/bridge-ckpt

The classic MQ server pattern, as a streaming query: every request read from
--request-queue (exactly once) is transformed and answered with a reply message
  - put on the request's ReplyToQ (requests without one go to --no-reply-queue),
  - with CorrelId = the request's MsgId, so the requester can MQGET by CorrelId,
  - MsgType MQMT_REPLY, the request's priority and persistence,
  - and the request's context passed on (--context, default appl_identity_data: the
    MessageQ-MQSeries bridge pattern, where ApplIdentityData carries the correlation the
    requester needs).

Reply-to queue managers other than the one connected to are not routed; define a remote
queue definition for them on the bridge's queue manager.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402

TRANSFORMS = ("upper", "lower", "reverse", "echo")
# Context columns that the reader gives and the writer sets (issue 6); others stay as MQ fills them.
CONTEXT_COLUMNS = ("appl_identity_data", "user_id", "put_appl_name")
MQMT_REPLY = 2


def parse_args(argv=None):
    parser = _common.new_parser("request_reply_bridge.py", __doc__)
    parser.add_argument("--request-queue", default="SPARK.MQ.REQUEST", help="(default: SPARK.MQ.REQUEST)")
    parser.add_argument("--no-reply-queue", default="SPARK.MQ.BRIDGE.NOREPLY",
                        help="where replies to requests without ReplyToQ go (default: SPARK.MQ.BRIDGE.NOREPLY)")
    parser.add_argument("--transform", choices=TRANSFORMS, default="upper",
                        help="what the reply's payload is: the request's text upper-cased (default), "
                             "lower-cased, reversed, or the request unchanged (echo)")
    parser.add_argument("--context", default="appl_identity_data",
                        help="comma-separated context fields copied from request to reply, from "
                             f"{', '.join(CONTEXT_COLUMNS)}; 'none' for none (default: appl_identity_data)")
    parser.add_argument("--checkpoint", required=True, help="checkpoint directory of the streaming query")
    parser.add_argument("--max-messages-per-trigger", type=_common.positive, default=1000,
                        help="requests per micro-batch (default: 1000)")
    _common.add_trigger_arguments(parser, default="processing-time")
    _common.add_connection_arguments(parser)
    _common.add_extra_option_arguments(parser, "read", "write")
    return parser.parse_args(argv)


def context_columns(text: str) -> list[str]:
    if text.strip().lower() == "none":
        return []
    chosen = _common.csv_list(text)
    bad = [name for name in chosen if name not in CONTEXT_COLUMNS]
    if bad:
        raise _common.JobError(f"--context: unknown field(s) {', '.join(bad)}; valid: "
                               f"{', '.join(CONTEXT_COLUMNS)} or none")
    return chosen


def replies(requests, transform: str, no_reply_queue: str, context: list[str]):
    """One reply row per request, by the writer's column names."""
    from pyspark.sql import functions as F
    text = F.col("payload").cast("string")
    body = {"upper": F.upper(text), "lower": F.lower(text), "reverse": F.reverse(text),
            "echo": F.col("payload")}[transform]
    reply_to = F.trim(F.col("reply_to_queue"))
    target = F.when(reply_to.isNull() | (reply_to == ""), F.lit(no_reply_queue)).otherwise(reply_to)
    return requests.select(
        body.alias("payload"),
        target.alias("queue"),
        F.col("message_id").alias("correlation_id"),
        F.lit(MQMT_REPLY).alias("msg_type"),
        F.col("priority"),
        F.col("persistent"),
        *[F.col(name) for name in context],
    )


def main(argv=None) -> int:
    args = parse_args(argv)
    connection = _common.require_connection(args)
    context = context_columns(args.context)
    spark = _common.spark_session(f"spark-mq request/reply bridge {args.request_queue}")
    read_options = {**connection, "queue": args.request_queue,
                    "maxMessagesPerTrigger": str(args.max_messages_per_trigger),
                    **_common.key_values(args.read_options, "--read-option")}
    # No `queue` option: it would win over the per-row `queue` column (as Spark's Kafka
    # sink's `topic` option does), and each reply must go to its own request's ReplyToQ.
    write_options = {**connection, **_common.key_values(args.write_options, "--write-option")}
    requests = spark.readStream.format("mq").options(**read_options).load()
    writer = replies(requests, args.transform, args.no_reply_queue, context).writeStream.format("mq") \
        .options(**write_options).option("checkpointLocation", args.checkpoint).queryName("request_reply_bridge")
    query = _common.apply_trigger(writer, args).start()
    print(f"bridge running: {args.request_queue} -> each request's ReplyToQ "
          f"(transform={args.transform}, context={','.join(context) or 'none'}, trigger={args.trigger})",
          flush=True)
    monitor = _common.ProgressMonitor()
    monitor.track("requests -> replies", query)
    _common.await_query(query, args, monitor)
    print(f"done: answered {monitor.rows('requests -> replies'):,} requests", flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    _common.run(main)
