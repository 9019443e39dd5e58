"""Opening queues, with MQ's reason code and a hint when it fails.

`check_input_queue` is the reader's start check: it opens the queue for input with the
selector on the queue manager the query will read from, so an unknown queue or a selector
that queue manager refuses fails the query when it starts, with MQ's own verdict (IBM MQ's
selector grammar is the reference, not ours). When the refusal is a syntax error, our
grammar (spark_mq.mqi.selector) adds the position of the error if it finds one.
"""
from __future__ import annotations

from typing import Any

from spark_mq.mq.connecting import ConnectionOptions, connected, load_ibmmq
from spark_mq.mq.exceptions import MQOptionError
from spark_mq.mq.refusals import open_refused
from spark_mq.mqi.constants import CMQC, reason_name


def open_queue(ibmmq: Any, qmgr: Any, name: str, options: int, selector: str | None = None,
               purpose: str = "input") -> Any:
    """An ibmmq.Queue opened with `options` (and the selector, if any)."""
    od = ibmmq.OD()
    od.ObjectName = name.encode()
    if selector:
        od.set_vs("SelectionString", selector)
    try:
        return ibmmq.Queue(qmgr, od, options)
    except ibmmq.MQMIError as exc:
        if exc.reason == CMQC.MQRC_SELECTOR_SYNTAX_ERROR and selector:
            raise selector_error(selector, exc.reason) from None
        raise open_refused(exc, qmgr, name, options,
                           f"opening queue {name!r} for {purpose}") from exc


def selector_error(selector: str, reason: int) -> MQOptionError:
    from spark_mq.mqi.selector import SelectorError, compile_selector
    where = ""
    try:
        compile_selector(selector)
    except SelectorError as exc:
        where = f" at position {exc.position}: {exc}"
    return MQOptionError(
        "selector", selector,
        f"an MQ message selector (SQL92 subset); the queue manager refuses this one with MQ "
        f"reason {reason} {reason_name(reason)}{where}")


def check_input_queue(connection: ConnectionOptions, queue: str, selector: str | None,
                      browse: bool = False) -> None:
    """Open and close the queue (with the selector) once, at query start: for input, or, for a
    read that only browses (spark.read), as the browse opens it, so that the check asks for
    no more authority (+get) than the read itself uses (+browse, +inq)."""
    ibmmq = load_ibmmq(connection.transport)
    options = (CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE if browse else CMQC.MQOO_INPUT_SHARED)
    with connected(connection, f"connecting to queue manager {connection.queue_manager} at "
                               f"{connection.conn_name} to read") as qmgr:
        open_queue(ibmmq, qmgr, queue, options | CMQC.MQOO_FAIL_IF_QUIESCING, selector,
                   "browse" if browse else "input").close()
