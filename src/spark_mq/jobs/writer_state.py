"""spark-mq-writer-state: see and remove the writer's exactly-once markers.

    spark-mq-writer-state --conn-name 'localhost(1414)' list
    spark-mq-writer-state --conn-name 'localhost(1414)' remove --writer-id <query id> [--idle 60]

A streaming query that writes with delivery exactlyOnce keeps one small marker message per
(writer id, partition) on the state queue (default SPARK.MQ.WRITER.STATE); the writer id is
the query id (new with each checkpoint) unless the `writerId` option names one. Markers of
queries that will never run again stay until removed. `list` shows every marker with the
time a task last committed it; `remove` deletes the markers of one writer id that no task
updated for --idle minutes (default 60), and keeps - and names - the others: a query that
wrote that recently may still be running and need them. Stop the query first (a marker a
task holds at that moment is inside its unit of work and is never touched). Removing the
markers of a query that does run again makes its next replayed batch write again.
"""
from __future__ import annotations

import argparse
import datetime as dt

from spark_mq.jobs import cli


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = cli.new_parser("spark-mq-writer-state", __doc__)
    parser.add_argument("--state-queue", default="SPARK.MQ.WRITER.STATE",
                        help="the writer's stateQueue option (default: SPARK.MQ.WRITER.STATE)")
    cli.add_connection_arguments(parser)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="every marker: writer id, partition, batch, rows, updated")
    remove = commands.add_parser("remove", help="remove the idle markers of one writer id")
    remove.add_argument("--writer-id", required=True, help="the query id, or the writerId option")
    remove.add_argument("--idle", type=float, default=60.0,
                        help="minutes without an update before a marker counts as unused "
                             "(default: 60)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from spark_mq.mq.connecting import connected, load_ibmmq
    from spark_mq.mq.markers import MarkerInfo, list_markers, remove_idle_markers
    from spark_mq.options import parse_connection
    connection = parse_connection(cli.connection_options(args))
    ibmmq = load_ibmmq(connection.transport)

    def show(markers: list[MarkerInfo]) -> None:
        for m in sorted(markers, key=lambda m: (m.writer_id, m.partition)):
            rows = "?" if m.rows is None else str(m.rows)
            print(f"  {m.writer_id}  partition {m.partition}  batch {m.batch}  rows {rows}  "
                  f"updated {m.updated:%Y-%m-%d %H:%M:%S} UTC")

    with connected(connection, f"connecting to queue manager {connection.queue_manager}") as qmgr:
        if args.command == "list":
            markers = list_markers(qmgr, ibmmq, args.state_queue)
            writers = {m.writer_id for m in markers}
            print(f"{len(markers)} markers of {len(writers)} writer ids on {args.state_queue}")
            show(markers)
            return 0
        removed, kept = remove_idle_markers(qmgr, ibmmq, args.state_queue, args.writer_id,
                                            dt.timedelta(minutes=args.idle))
        print(f"removed {len(removed)} markers of {args.writer_id} from {args.state_queue}")
        show(removed)
        if kept:
            print(f"kept {len(kept)} markers updated in the last {args.idle:g} minutes (the "
                  "query may still be running; stop it, or lower --idle):")
            show(kept)
        return 0


def run() -> None:
    cli.run(main)


if __name__ == "__main__":
    run()
