"""Request/reply bridge: answer each request message on the queue its sender named.

    spark-submit jobs/request_reply_bridge.py --conn-name 'localhost(1414)' \\
        --request-queue SPARK.MQ.REQUEST --transform upper --checkpoint /data/bridge-ckpt

SPARK.MQ.REQUEST (with BOQNAME SPARK.MQ.BACKOUT) and the jobs' other queues are defined by
mqsc/spark-mq.mqsc: start the queue manager with --mqsc mqsc/spark-mq.mqsc, or load it:
spark-mq-qmgr mqsc --conn-name 'localhost(1414)' -f mqsc/spark-mq.mqsc.

The classic MQ server pattern, as a streaming query: every request read from
--request-queue (exactly once) is transformed and answered with a reply message
  - put on the request's ReplyToQ (requests without one go to --no-reply-queue),
  - with CorrelId = the request's MsgId, so the requester can MQGET by CorrelId,
  - MsgType MQMT_REPLY, the request's priority and persistence,
  - and the request's context passed on (--context, default appl_identity_data: the
    MessageQ-MQSeries bridge pattern, where ApplIdentityData carries the correlation the
    requester needs).

A request whose ReplyToQMgr is another queue manager is answered there, through the bridge's
queue manager's channels (a transmission queue named after it, a queue-manager alias or
DEFXMITQ): see docs/embedded/networks.md ("A network of queue managers on one laptop").
"""
from __future__ import annotations

import argparse

from spark_mq.jobs import cli, job_text, request_reply_bridge


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = cli.new_parser("request_reply_bridge.py", __doc__, job_text.HELP)
    parser.add_argument("--request-queue", default="SPARK.MQ.REQUEST", help="(default: SPARK.MQ.REQUEST)")
    parser.add_argument("--no-reply-queue", default="SPARK.MQ.BRIDGE.NOREPLY",
                        help="where replies to requests without ReplyToQ go "
                             "(default: SPARK.MQ.BRIDGE.NOREPLY)")
    parser.add_argument("--transform", choices=request_reply_bridge.TRANSFORMS, default="upper",
                        help="what the reply's payload is: the request's text (by its CCSID) "
                             "upper-cased (default), lower-cased, reversed, or the request's bytes "
                             "unchanged, in its CCSID and Format (echo)")
    parser.add_argument("--context", default="appl_identity_data",
                        help="comma-separated context fields copied from request to reply, from "
                             f"{', '.join(request_reply_bridge.CONTEXT_COLUMNS)}; 'none' for none "
                             "(default: appl_identity_data)")
    parser.add_argument("--checkpoint", required=True, help="checkpoint directory of the streaming query")
    parser.add_argument("--max-messages-per-trigger", type=cli.positive, default=1000,
                        help="requests per micro-batch (default: 1000)")
    cli.add_trigger_arguments(parser, default="processing-time")
    cli.add_connection_arguments(parser)
    cli.add_extra_option_arguments(parser, "read", "write")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    return request_reply_bridge.main(parse_args(argv))


if __name__ == "__main__":
    cli.run(main)
