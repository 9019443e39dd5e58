"""MQSC's DISPLAY QSTATUS TYPE(QUEUE) (runs in the queue-manager process, under its lock):
the status of local queues (queue_status.py), laid out as runmqsc lays it out.

As runmqsc: without attribute names only CURDEPTH is shown; ALL shows every attribute;
MONITOR the monitoring ones (LGETDATE, LGETTIME, LPUTDATE, LPUTTIME, MONQ, MSGAGE, QTIME),
blank while queue monitoring is off for the queue. The status of open handles
(TYPE(HANDLE)) is PCF's Inquire Queue Status only here.
"""
from __future__ import annotations

import fnmatch

from spark_mq.embedded.server.admin import queue_status
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand
from spark_mq.embedded.server.core.queue_objects import LocalQueue
from spark_mq.embedded.server.core.runmqsc_layout import render
from spark_mq.embedded.server.core.state import QueueManagerState

HEADER = "AMQ8450I: Display queue status details."
_MONITOR = ("LGETDATE", "LGETTIME", "LPUTDATE", "LPUTTIME", "MONQ", "MSGAGE", "QTIME")
_ALL = ("CURDEPTH", "IPPROCS", "LGETDATE", "LGETTIME", "LPUTDATE", "LPUTTIME", "MEDIALOG",
        "MONQ", "MSGAGE", "OPPROCS", "QTIME", "UNCOM")


def display(qm: QueueManagerState, command: MQSCCommand) -> str:
    """DISPLAY QSTATUS(generic name) [TYPE(QUEUE)] [ALL | MONITOR | attribute ...]."""
    kind = str(command.attributes.get("TYPE", "QUEUE")).upper()
    if kind != "QUEUE":
        raise ValueError(f"TYPE({kind}) is not supported by DISPLAY QSTATUS here (valid: "
                         "QUEUE; the handles' status: PCF Inquire Queue Status, MQIACF_Q_HANDLE)")
    unknown = sorted(set(command.attributes) - {"TYPE"})
    if unknown:
        raise ValueError(f"{unknown[0]}(...) is not supported by DISPLAY QSTATUS here (valid: "
                         "TYPE(QUEUE), ALL, MONITOR or attribute names)")
    wanted = _wanted(command.flags)
    found = []
    for name in sorted(qm.queues):
        queue = qm.queues[name]
        if isinstance(queue, LocalQueue) and fnmatch.fnmatchcase(name, command.name):
            shown = _attributes(qm, queue)
            found.append(render(HEADER, [f"QUEUE({name})", "TYPE(QUEUE)"]
                                + [f"{key}({shown[key]})" for key in _ALL if key in wanted]))
    if not found:
        raise ValueError(f"no local queue matches {command.name} (AMQ8147E: IBM MQ object not found)")
    return "\n".join(found)


def _wanted(flags: frozenset[str]) -> set[str]:
    if "ALL" in flags:
        return set(_ALL)
    wanted = set(flags) & set(_ALL)
    if "MONITOR" in flags:
        wanted.update(_MONITOR)
    return wanted or {"CURDEPTH"}


def _attributes(qm: QueueManagerState, queue: LocalQueue) -> dict[str, str]:
    found = queue_status.status(qm, queue)
    return {
        "CURDEPTH": str(found.depth), "IPPROCS": str(found.input_handles),
        "OPPROCS": str(found.output_handles),
        "UNCOM": str(found.uncommitted) if found.uncommitted else "NO",
        "LGETDATE": _blank(queue_status.local_date(found.last_get)),
        "LGETTIME": _blank(queue_status.local_time(found.last_get)),
        "LPUTDATE": _blank(queue_status.local_date(found.last_put)),
        "LPUTTIME": _blank(queue_status.local_time(found.last_put)),
        "MEDIALOG": " ", "MONQ": found.monitoring,
        "MSGAGE": _blank("" if found.oldest_age is None else str(found.oldest_age)),
        "QTIME": " , " if found.qtime is None else f"{found.qtime[0]}, {found.qtime[1]}",
    }


def _blank(text: str) -> str:
    return text or " "     # runmqsc shows a value it has not as ( )
