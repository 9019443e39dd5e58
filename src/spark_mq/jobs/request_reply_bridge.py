"""The request/reply bridge (jobs/request_reply_bridge.py): every request answered on the
queue its sender named (ReplyToQ) at the queue manager it named (ReplyToQMgr: another queue
manager is reached through this one's channels), with CorrelId = the request's MsgId,
MsgType reply and the request's context passed on.

The text transforms (upper, lower, reverse) work on the request's `text` column, decoded by
its own CCSID, read with requireText: a request that is not text goes to the backout queue
with its reason (spark_mq.jobs.job_text), never answered with replacement characters. The
reply is MQSTR in UTF-8 (the writer's default CCSID 1208), which a requester in another code
page gets converted with MQGMO_CONVERT, as MQ's own servers answer. echo answers with the
request's bytes and the request's CCSID and Format, and takes every request."""
from __future__ import annotations

import argparse
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
    from pyspark.sql import DataFrame

TRANSFORMS = ("upper", "lower", "reverse", "echo")
# Context columns that the reader gives and the writer sets (issue 6); others stay as MQ fills them.
CONTEXT_COLUMNS = ("appl_identity_data", "user_id", "put_appl_name")
MQMT_REPLY = 2


def context_columns(text: str) -> list[str]:
    """--context: the context columns to copy, or none."""
    if text.strip().lower() == "none":
        return []
    chosen = csv_list(text)
    bad = [name for name in chosen if name not in CONTEXT_COLUMNS]
    if bad:
        raise JobError(f"--context: unknown field(s) {', '.join(bad)}; valid: "
                       f"{', '.join(CONTEXT_COLUMNS)} or none")
    return chosen


def replies(requests: DataFrame, transform: str, no_reply_queue: str, context: list[str]) -> DataFrame:
    """One reply row per request, by the writer's column names."""
    from pyspark.sql import functions as F
    text = F.col("text")   # by the request's own CCSID: a cast would read EBCDIC as UTF-8
    body = {"upper": F.upper(text), "lower": F.lower(text), "reverse": F.reverse(text),
            "echo": F.col("payload")}[transform]
    echoed = [F.col("ccsid"), F.col("encoding"), F.col("format")] if transform == "echo" else []
    reply_to = F.trim(F.col("reply_to_queue"))
    no_reply = reply_to.isNull() | (reply_to == "")
    target = F.when(no_reply, F.lit(no_reply_queue)).otherwise(reply_to)
    # ReplyToQMgr: the queue manager the requester waits on (the queue manager fills it with
    # its own name when the requester leaves it blank, so a local requester is answered here)
    reply_qmgr = F.trim(F.col("reply_to_qmgr"))
    target_qmgr = F.when(no_reply | reply_qmgr.isNull() | (reply_qmgr == ""),
                         F.lit(None).cast("string")).otherwise(reply_qmgr)
    return requests.select(
        body.alias("payload"),
        target.alias("queue"),
        target_qmgr.alias("queue_manager"),
        F.col("message_id").alias("correlation_id"),
        F.lit(MQMT_REPLY).alias("msg_type"),
        F.col("priority"),
        F.col("persistent"),
        *[F.col(name) for name in context],
        *echoed,
    )


def main(args: argparse.Namespace) -> int:
    """Answer requests from --request-queue until the trigger says stop."""
    connection = require_connection(args)
    context = context_columns(args.context)
    spark = spark_session(f"spark-mq request/reply bridge {args.request_queue}", verbose=args.verbose)
    read_options = {**connection, "queue": args.request_queue,
                    "maxMessagesPerTrigger": str(args.max_messages_per_trigger),
                    **ctrl_c.read_options(),
                    **(text_read_options("exactlyOnce") if args.transform != "echo" else {}),
                    **key_values(args.read_options, "--read-option")}
    # No `queue` option: it would win over the per-row `queue` column (as Spark's Kafka
    # sink's `topic` option does), and each reply must go to its own request's ReplyToQ.
    write_options = {**connection, **key_values(args.write_options, "--write-option")}
    try:
        requests = spark.readStream.format("mq").options(**read_options).load()
        writer = (replies(requests, args.transform, args.no_reply_queue, context).writeStream.format("mq")
                  .options(**write_options).option("checkpointLocation", args.checkpoint)
                  .queryName("request_reply_bridge"))
        query = apply_trigger(writer, args).start()
        print(f"bridge running: {args.request_queue} -> each request's ReplyToQ "
              f"(transform={args.transform}, context={','.join(context) or 'none'}, trigger={args.trigger})",
              flush=True)
        monitor = ProgressMonitor()
        monitor.track("requests -> replies", query)
        await_query(query, args, monitor)
    except Exception as exc:
        hint = unknown_queue(exc, args.request_queue, "--request-queue", connection)
        if hint is None:
            raise
        raise hint from exc
    print(f"done: answered {monitor.rows('requests -> replies'):,} requests", flush=True)
    moved = not_text_line(monitor.report("requests -> replies"), args.request_queue)
    if moved:
        print(moved, flush=True)
    spark.stop()
    return 0
