"""Asynchronous put status: counting the outcome of unanswered puts, and MQSTAT.

Runs in the queue-manager process. Each connection's counters are touched only by that
connection's own server thread, so these need not take the queue manager's lock.
"""
from __future__ import annotations

from spark_mq.embedded.server.core.outcomes import FAILED, NONE, OK, WARNING, MQError
from spark_mq.embedded.server.core.state import Connection, QueueManagerState, blank
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import STS


def record_async(conn: Connection, comp_code: int, reason: int, name: str) -> None:
    """Count one asynchronous put; the first error (a failure over a warning) is kept."""
    if comp_code == OK:
        conn.put_success += 1
        return
    if comp_code == WARNING:
        conn.put_warning += 1
    else:
        conn.put_failure += 1
    if conn.first_error is None or (comp_code == FAILED and conn.first_error[0] == WARNING):
        conn.first_error = (comp_code, reason, name)


def stat(qm: QueueManagerState, conn: Connection, stat_type: int, sts_bytes: bytes) -> bytes:
    """MQSTAT(MQSTAT_TYPE_ASYNC_ERROR): the counts since the last MQSTAT, then reset them."""
    if stat_type != CMQC.MQSTAT_TYPE_ASYNC_ERROR:
        raise MQError(CMQC.MQRC_STAT_TYPE_ERROR)
    if len(sts_bytes) != STS.size:
        raise MQError(CMQC.MQRC_STS_ERROR)
    sts = STS.unpack(sts_bytes)
    comp_code, reason, name = conn.first_error or (OK, NONE, "")
    values = {"CompCode": comp_code, "Reason": reason, "PutSuccessCount": conn.put_success,
              "PutWarningCount": conn.put_warning, "PutFailureCount": conn.put_failure,
              "ObjectType": CMQC.MQOT_Q, "ObjectName": blank(name, 48),
              "ObjectQMgrName": blank(qm.name, 48), "ResolvedObjectName": blank(name, 48),
              "ResolvedQMgrName": blank(qm.name, 48)}
    for key, value in values.items():
        sts[STS.index[key]] = value
    conn.put_success = conn.put_warning = conn.put_failure = 0
    conn.first_error = None
    return STS.pack(sts)
