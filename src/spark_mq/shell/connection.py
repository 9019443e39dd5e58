"""Which queue manager the client tools talk to, and connecting to it the way the connector
does (same options, same transport choice, same errors with reason codes)."""
from __future__ import annotations

import argparse
from typing import Any

from spark_mq.jobs.cli import connection_options

#: where `spark-mq-qmgr start` listens by default
DEFAULT_CONN_NAME = "localhost(1414)"


def client_options(args: argparse.Namespace) -> dict[str, str]:
    """The connector's connection options from the arguments; the local embedded queue
    manager when none is named (no --conn-name or --ccdt-url)."""
    options = connection_options(args)
    if "connName" not in options and "ccdtUrl" not in options:
        options["connName"] = DEFAULT_CONN_NAME
        options.setdefault("transport", "embedded")
    return options


def connect(args: argparse.Namespace) -> tuple[Any, Any]:
    """(the ibmmq module, a connected QueueManager)."""
    from spark_mq.mq.connection import connect as connect_options
    from spark_mq.mq.connection import load_ibmmq
    from spark_mq.options import parse_connection
    options = parse_connection(client_options(args))
    return load_ibmmq(options.transport), connect_options(options)
