"""The `spark-mq-qmgr` command line: one subcommand per tool, the connection arguments the
jobs use (each also read from its SPARK_MQ_* environment variable), and errors as one line.

Without --conn-name (or --ccdt-url) the client tools talk to a local embedded queue manager:
the one of --data-dir, else the one named --queue-manager that `spark-mq-qmgr start` runs
(the local registry, shell/registry.py; `status` lists them), else the one it runs by
default, localhost(1414), transport embedded (shell/client_connection.py).

Exit status: 0 done, 1 an MQ or connection failure (its reason code and name in the line
printed), 2 a usage error or a queue manager that cannot start, 10 an MQSC script in which
some command failed (as runmqsc), 130 Ctrl-C.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from spark_mq.jobs.cli import add_connection_arguments
from spark_mq.jobs.job_errors import JobError, explain
from spark_mq.shell import admin_commands, channels, lifecycle, messages, trace, trigger_monitor
from spark_mq.shell.client_connection import add_local_arguments

PROG = "spark-mq-qmgr"

Command = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Run an embedded IBM MQ-compatible queue manager, and work with "
                               "queues from the shell (runmqsc, amqsput, amqsget, amqsbcg).",
        epilog=f"Run '{PROG} COMMAND --help' for a command's arguments.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    lifecycle.add_commands(commands)
    clients = [admin_commands.add_mqsc(commands), admin_commands.add_depth(commands),
               messages.add_put(commands), messages.add_get(commands), messages.add_browse(commands),
               admin_commands.add_unsubscribe(commands), channels.add_channels(commands),
               channels.add_move_xmitq(commands), trigger_monitor.add_trigger_monitor(commands),
               *trace.add_trace(commands)]
    for sub in clients:
        add_connection_arguments(sub)
        add_local_arguments(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0].startswith("--") and argv[0] not in ("--help", "-h"):
        argv.insert(0, "start")     # `spark-mq-qmgr --data-dir DIR`, as before the subcommands
    args = build_parser().parse_args(argv)
    command: Command = args.run
    try:
        return command(args)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        sys.stderr.close()          # `... | head`: the reader left; nothing more to say
        return 0
    except Exception as exc:  # noqa: BLE001 - the tool's last line of defence: say what failed
        print(f"{PROG} {args.command}: {explain(exc)}", file=sys.stderr)
        return 2 if isinstance(exc, (JobError, ValueError)) else 1

