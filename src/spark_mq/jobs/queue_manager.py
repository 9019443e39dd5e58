"""The queue manager a job works on: the one given by the connection arguments, or, for a
local run without one, an embedded queue manager started with the job's MQSC file."""
from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator

from spark_mq.jobs.cli import connection_options
from spark_mq.jobs.ctrl_c import Interrupted
from spark_mq.jobs.job_errors import JobError


def given(options: dict[str, str]) -> bool:
    """Whether the connection options name a queue manager (by address or CCDT)."""
    return "connName" in options or "ccdtUrl" in options


@contextlib.contextmanager
def queue_manager(args: argparse.Namespace, announce: bool = True) -> Iterator[dict[str, str]]:
    """Yields the connection options; starts an embedded queue manager when none is given
    (with --mqsc, its data in --data-dir or a temporary directory) and stops it at the end.

    A temporary data directory is removed at the end, unless Ctrl-C stopped the job: the
    messages still to go are in it, and `args.data_dir` names it from the start, for the
    command that goes on (ctrl_c.resume_command)."""
    options = connection_options(args)
    if given(options):
        yield options
        return
    if not os.path.exists(args.mqsc):
        raise JobError(f"--mqsc: no such file {args.mqsc!r} (it defines the queues the job uses)")
    from spark_mq.embedded import EmbeddedQueueManager
    temporary = not args.data_dir
    if temporary:
        args.data_dir = tempfile.mkdtemp(prefix="spark-mq-qmgr-")
    data_dir = args.data_dir
    manager = EmbeddedQueueManager(data_dir, name=options.get("queueManager", "QM1"), port=0, mqsc=args.mqsc)
    manager.start()
    if announce:
        print(f"started embedded queue manager {manager.name} at {manager.conn_name} (data in {data_dir})",
              flush=True)
    keep = not temporary
    try:
        yield {**options, "queueManager": manager.name, "connName": manager.conn_name,
               "channel": manager.channel, "transport": "embedded"}
    except Interrupted:
        keep = True
        raise
    finally:
        manager.stop()
        if not keep:
            shutil.rmtree(data_dir, ignore_errors=True)


def require_connection(args: argparse.Namespace) -> dict[str, str]:
    """The connection options of a job that works on an existing queue manager."""
    options = connection_options(args)
    if not given(options):
        raise JobError("no queue manager given: pass --conn-name host(port) (or --ccdt-url), or set "
                       "SPARK_MQ_CONN_NAME; `python -m spark_mq.embedded --data-dir DIR --mqsc "
                       "mqsc/spark-mq.mqsc` runs a local one")
    return options


#: the file that defines every queue the jobs use by default
JOBS_MQSC = "mqsc/spark-mq.mqsc"


def unknown_queue(exc: BaseException, queue: str, flag: str, connection: dict[str, str]) -> JobError | None:
    """A JobError for MQ's 2085 on `queue` (given with `flag`), saying how to see the queues
    that exist and how to define it, in spark-mq-qmgr's words; None for any other failure."""
    from spark_mq.jobs.job_errors import explain
    text = explain(exc)
    if "2085" not in text and "MQRC_UNKNOWN_OBJECT_NAME" not in text:
        return None
    if queue not in text:
        return None
    where = " ".join(f"{option} {_shell_quote(connection[key])}"
                     for option, key in (("--conn-name", "connName"), ("--queue-manager", "queueManager"))
                     if connection.get(key))
    where = f" {where}" if where else ""
    defining = (f"; the jobs' queues (SPARK.MQ.EXPORT, SPARK.MQ.REQUEST ...) are defined by "
                f"{JOBS_MQSC}: spark-mq-qmgr mqsc{where} -f {JOBS_MQSC}"
                if queue.startswith("SPARK.MQ.") else "")
    return JobError(f"{flag} {queue}: no such queue on queue manager "
                    f"{connection.get('queueManager', 'QM1')} (MQ reason 2085 "
                    f"MQRC_UNKNOWN_OBJECT_NAME; names are case-sensitive). The queues there: "
                    f"spark-mq-qmgr depth{where}; define it: spark-mq-qmgr mqsc{where} "
                    f"\"DEFINE QLOCAL('{queue}')\"{defining}")


def _shell_quote(value: str) -> str:
    import shlex
    return shlex.quote(value)
