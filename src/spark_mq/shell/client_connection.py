"""Which queue manager the client tools talk to, and connecting to it the way the connector
does (same options, same transport choice, same errors with reason codes), the hints in the
shell's words: --conn-name where the connector says 'connName' (FLAGS, passed to
spark_mq.mq.exceptions as `words`).

Which queue manager: the address of --conn-name (or the table of --ccdt-url) where given;
else a local one from the registry (registry.py): the one of --data-dir, else the running one
named --queue-manager; else the one `spark-mq-qmgr start` runs by default, localhost(1414),
transport embedded. So with QMA on 1414 and QMB on 1415, both started by the tool,
`put --queue-manager QMB` reaches QMB.

A queue manager that is not running gets IBM MQ's reason (2059 MQRC_Q_MGR_NOT_AVAILABLE, or
the client's 2538 MQRC_HOST_NOT_AVAILABLE for an address where nothing listens) with the
command that starts it; a local one the registry knows as stopped, before anything connects.
A name that no local queue manager has and that the address answers with 2058
MQRC_Q_MGR_NAME_ERROR gets the list of the running ones.
"""
from __future__ import annotations

import argparse
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from spark_mq.jobs.cli import CONNECTION_ARGUMENTS, connection_options
from spark_mq.jobs.job_errors import JobError
from spark_mq.mq.exceptions import MQConnectorError
from spark_mq.mqi.constants import CMQC, reason_name
from spark_mq.shell import registry
from spark_mq.shell.registry import LocalQueueManager

#: where `spark-mq-qmgr start` listens by default
DEFAULT_CONN_NAME = "localhost(1414)"
DEFAULT_PORT = 1414
#: the connector's option names as the shell's flags say them (the hints' vocabulary)
FLAGS: dict[str, str] = {
    **{option: flag for flag, option, _env, _text in CONNECTION_ARGUMENTS},
    "password": "its password (SPARK_MQ_PASSWORD, --password-file or the prompt)",
}
#: what a client gets from an address where no queue manager runs
_LOCAL_ADDRESS = re.compile(r"\s*(?:localhost|127\.0\.0\.1)\((\d+)\)\s*")
NOT_RUNNING = frozenset({CMQC.MQRC_Q_MGR_NOT_AVAILABLE, CMQC.MQRC_HOST_NOT_AVAILABLE})


def add_local_arguments(parser: argparse.ArgumentParser) -> None:
    """--data-dir, which names a local queue manager as `start` and `stop` do."""
    group = parser.add_argument_group("local queue manager (instead of --conn-name)")
    group.add_argument("--data-dir", metavar="DIR",
                       help="the data directory of a queue manager `spark-mq-qmgr start` runs here; "
                            "without it and --conn-name, --queue-manager NAME is looked up among "
                            "the local ones (`spark-mq-qmgr status`), else localhost(1414)")


def client_options(args: argparse.Namespace) -> dict[str, str]:
    """The connector's connection options from the arguments, the address found as the module
    docstring says."""
    options = connection_options(args)
    data_dir = getattr(args, "data_dir", None)
    if "connName" in options or "ccdtUrl" in options:
        if data_dir:
            raise JobError("give --conn-name (or --ccdt-url) or --data-dir, not both "
                           "(SPARK_MQ_CONN_NAME and SPARK_MQ_CCDT_URL count as given)")
        return options
    local = local_queue_manager(options.get("queueManager"), data_dir)
    options.setdefault("transport", "embedded")
    if local is None:
        options["connName"] = DEFAULT_CONN_NAME
    else:
        options["connName"] = local.conn_name
        options.setdefault("queueManager", local.name)
    return options


def local_queue_manager(name: str | None, data_dir: str | None) -> LocalQueueManager | None:
    """The running local queue manager of `data_dir`, else the one named `name`; None when
    the registry knows no queue manager of that name (or no name is given)."""
    if data_dir:
        return _of_data_dir(name, os.path.abspath(os.path.expanduser(data_dir)))
    if not name:
        return None
    named = [qm for qm in registry.queue_managers() if qm.name == name]
    running = [qm for qm in named if qm.running]
    if len(running) > 1:
        raise JobError(f"{len(running)} queue managers named {name} run here (data directories "
                       f"{', '.join(qm.data_dir for qm in running)}); give --data-dir")
    if running:
        return running[0]
    if named:
        raise stopped(named[0])
    return None


def _of_data_dir(name: str | None, data_dir: str) -> LocalQueueManager:
    local = registry.read(data_dir)
    if local is None:
        raise JobError(f"--data-dir {data_dir}: no queue manager has run there; "
                       f"`spark-mq-qmgr start --background --data-dir {data_dir}` starts one")
    if name and local.name != name:
        raise JobError(f"--data-dir {data_dir} holds queue manager {local.name}, not {name}: "
                       f"give --queue-manager {local.name}, or the data directory of {name}")
    if not local.running:
        raise stopped(local)
    return local


def stopped(local: LocalQueueManager) -> MQConnectorError:
    """A local queue manager that is not running, as IBM MQ reports one (2059)."""
    command = (f"spark-mq-qmgr start --background --name {local.name} --data-dir {local.data_dir}"
               + (f" --port {local.port}" if local.port and local.port != DEFAULT_PORT else ""))
    return _failure(f"connecting to queue manager {local.name} (data directory {local.data_dir})",
                    CMQC.MQRC_Q_MGR_NOT_AVAILABLE, f"it is not running; `{command}` starts it")


def refused(name: str | None, conn_name: str | None, reason: int | None) -> MQConnectorError | None:
    """The shell's error for a connection that found no queue manager (NOT_RUNNING) or another
    one (2058) at `conn_name`; None for any other reason (the connector's hint serves)."""
    if conn_name is None or reason is None:
        return None
    action = f"connecting to queue manager {name} at {conn_name}" if name else \
        f"connecting to the queue manager at {conn_name}"
    if reason in NOT_RUNNING:
        start = _start_command(name, conn_name)
        hint = (f"no queue manager is running there; `{start}` starts one, or give --conn-name "
                "host(port) of a running one") if start else \
            "check --conn-name (host(port)) and that the queue manager is running there"
    elif reason == CMQC.MQRC_Q_MGR_NAME_ERROR and name:
        hint = (f"the queue manager listening there is not {name}; give --queue-manager its "
                f"name, or --conn-name host(port) or --data-dir of {name}")
    else:
        return None
    return _failure(action, reason, hint + _running_here())


def _start_command(name: str | None, conn_name: str) -> str | None:
    """The command that starts a queue manager at `conn_name`: None where it is not on this
    machine."""
    match = _LOCAL_ADDRESS.fullmatch(conn_name)
    if match is None:
        return None
    port = int(match.group(1))
    return ("spark-mq-qmgr start --background" + (f" --name {name}" if name else "")
            + (f" --port {port}" if port != DEFAULT_PORT else ""))


def _running_here() -> str:
    running = [qm for qm in registry.queue_managers() if qm.running]
    if not running:
        return ""
    return "; running here: " + ", ".join(f"{qm.name} at {qm.conn_name}" for qm in running)


def _failure(action: str, reason: int, hint: str) -> MQConnectorError:
    name = reason_name(reason)
    return MQConnectorError(f"{action} failed: MQ reason {reason} {name}: {hint}", reason, name)


def connect(args: argparse.Namespace) -> tuple[Any, Any]:
    """(the ibmmq module, a connected QueueManager)."""
    from spark_mq.mq.connecting import connect as connect_options
    from spark_mq.mq.connecting import load_ibmmq
    from spark_mq.options import parse_connection
    options = parse_connection(client_options(args))
    ibmmq = load_ibmmq(options.transport)
    try:
        return ibmmq, connect_options(options, words=FLAGS)
    except MQConnectorError as exc:
        better = refused(options.queue_manager, options.conn_name, exc.reason)
        if better is None:
            raise
        raise better from exc


@contextmanager
def connected(args: argparse.Namespace) -> Iterator[tuple[Any, Any]]:
    """(the ibmmq module, a connected QueueManager) for the length of the `with`, then
    disconnected quietly (spark_mq.mq.connecting.connected)."""
    from spark_mq.mq.connecting import disconnect_quietly
    ibmmq, qmgr = connect(args)
    try:
        yield ibmmq, qmgr
    finally:
        disconnect_quietly(ibmmq, qmgr)
