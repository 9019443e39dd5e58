"""Reallocation: the messages waiting on SYSTEM.CLUSTER.TRANSMIT.QUEUE for a cluster-sender
that cannot reach its partner are given to another instance of their queue, when their
putter let every put choose (in the queue-manager process, in the channel's thread).

IBM's queue manager does this when a cluster-sender stops or retries (IBM: "Understanding
re-allocation of messages in IBM MQ clusters"): it runs the workload algorithm again for
each message waiting for that channel, and moves those for which another destination is
now the better one. Only messages put MQOO_BIND_NOT_FIXED (or MQOO_BIND_ON_GROUP outside
a group in logical order) may move; IBM marks the others with an all-zero AccountingToken
in the transmission message's own MQMD, and so does verbs/put.py here (the message's own
MQMD, inside the MQXQH, keeps its token). A message whose best destination is still the
channel that failed (rank before status, or the only instance) stays and waits for it.

A message moves in one unit of work: got from the transmission queue and put back with
the new host in its MQXQH and the new channel's name in its CorrelId, the queue manager's
own context kept (MQPMO_SET_ALL_CONTEXT); the new cluster-sender starts as for any message
that arrives for it. MQPUT1's messages do not move (its one put chose once).
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from spark_mq.embedded.server.clusters.definitions import CLUSTER_XMITQ
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.state import blank
from spark_mq.embedded.server.resolution import names
from spark_mq.embedded.server.resolution.transmission import unwrap
from spark_mq.embedded.server.verbs.local_connection import LocalConnection
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import MD

if TYPE_CHECKING:
    from spark_mq.embedded.server.verbs.qmgr import QueueManager

log = logging.getLogger("spark_mq.embedded.channels")
_I_ACCOUNTING, _I_CORRELID, _I_MSGID = (MD.index["AccountingToken"], MD.index["CorrelId"],
                                        MD.index["MsgId"])
#: where the MQXQH's RemoteQMgrName lies in a transmission message's data
_QMGR_FIELD = slice(56, 104)
_NOT_ELIGIBLE = b"\0" * 32


def correl_id(channel: str) -> bytes:
    return channel.encode().ljust(24, b"\0")


def reallocate(qmgr: QueueManager, channel: str) -> int:
    """Move the eligible messages waiting for cluster-sender `channel`; how many moved."""
    local = LocalConnection(qmgr, "mqm", "amqrrmfa")
    moved = 0
    try:
        browse = local.open(CLUSTER_XMITQ, CMQC.MQOO_BROWSE | CMQC.MQOO_FAIL_IF_QUIESCING)
        hobj = local.open(CLUSTER_XMITQ, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT
                          | CMQC.MQOO_SET_ALL_CONTEXT | CMQC.MQOO_FAIL_IF_QUIESCING)
        for msg_id in _eligible(local, browse, channel):
            moved += _move(qmgr, local, hobj, msg_id, channel)
    except MQError as exc:   # the queue manager ending, or the queue gone: nothing moves
        log.warning("cluster-sender %s: reallocation stopped: MQ reason %d", channel,
                    exc.reason)
    finally:
        local.close()
    if moved:
        log.info("cluster-sender %s: %d waiting messages reallocated to other instances",
                 channel, moved)
    return moved


def _eligible(local: LocalConnection, browse: int, channel: str) -> list[bytes]:
    found, option = [], CMQC.MQGMO_BROWSE_FIRST
    while (got := local.get(browse, option | CMQC.MQGMO_NO_WAIT,
                            correl_id=correl_id(channel))) is not None:
        if got.md[_I_ACCOUNTING] != _NOT_ELIGIBLE:
            found.append(got.md[_I_MSGID])
        option = CMQC.MQGMO_BROWSE_NEXT
    return found


def _move(qmgr: QueueManager, local: LocalConnection, hobj: int, msg_id: bytes,
          channel: str) -> int:
    """Give one message another destination, if the algorithm now prefers one."""
    with qmgr.lock:
        got = local.get(hobj, CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT, msg_id=msg_id)
        if got is None or got.md[_I_CORRELID] != correl_id(channel):
            local.backout()
            return 0   # the channel took it after all
        unwrapped = unwrap(got.data)
        chosen = names.cluster_choice(qmgr, unwrapped[0], CMQC.MQOO_OUTPUT) \
            if unwrapped is not None else None
        if chosen is None or chosen.remote is None or chosen.remote.channel in ("", channel):
            local.backout()
            return 0
        md = list(got.md)
        md[_I_CORRELID] = correl_id(chosen.remote.channel)
        data = (got.data[:_QMGR_FIELD.start] + blank(chosen.remote.qmgr_name, 48)
                + got.data[_QMGR_FIELD.stop:])
        local.put(hobj, md, CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_SET_ALL_CONTEXT, got.props, data)
        local.commit()
        return 1
