"""Putting one event message (runs in the queue-manager process; takes the queue manager's
lock, which the put and get paths already hold: it is re-entrant).

The message is what IBM documents ("Event message MQMD", "Event message MQCFH"): MsgType
MQMT_DATAGRAM, Format MQFMT_EVENT, no expiry, native encoding, the queue manager's CCSID,
the event queue's default priority and persistence, PutApplType MQAT_QMGR and PutApplName
the queue manager's name; its data an MQCFH (Type MQCFT_EVENT, MsgSeqNumber 1, Control
MQCFC_LAST, CompCode MQCC_WARNING, the event's reason) and the event's parameters.

It is placed on the event queue directly, outside any unit of work (an event reports what
happened even when the unit of work that caused it is backed out, as on IBM MQ), and
without going through put.py: an event is never itself the cause of another event. An event
queue that is missing, not a local queue (or an alias of one), full or put-inhibited loses
the event: IBM MQ does not dead-letter event messages either. An event queue with a STREAMQ
gets its copy with the event (core/stream_copies.py, as verbs/streaming.py makes a put's).
"""
from __future__ import annotations

import logging
import struct
import time

from spark_mq.embedded.server.core import stream_copies
from spark_mq.embedded.server.core.md_context import put_stamp
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.queue_objects import AliasQueue, LocalQueue, Message
from spark_mq.embedded.server.core.state import QMGR_CCSID, QueueManagerState, blank
from spark_mq.embedded.server.core.store import StoreError
from spark_mq.mqi.constants import CMQC, CMQCFC
from spark_mq.mqi.structs import default_md

log = logging.getLogger("spark_mq.embedded")

PERFORMANCE_QUEUE = "SYSTEM.ADMIN.PERFM.EVENT"
CHANNEL_QUEUE = "SYSTEM.ADMIN.CHANNEL.EVENT"
QMGR_QUEUE = "SYSTEM.ADMIN.QMGR.EVENT"
CONFIG_QUEUE = "SYSTEM.ADMIN.CONFIG.EVENT"
COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.EVENT"
_HEADER = struct.Struct("=9i")
_GROUP = struct.Struct("=4i")
NO_CORREL_ID = b"\0" * 24


def header(command: int, reason: int, count: int, sequence: int = 1, last: bool = True) -> bytes:
    """The MQCFH of an event message."""
    return _HEADER.pack(CMQCFC.MQCFT_EVENT, CMQCFC.MQCFH_STRUC_LENGTH, CMQCFC.MQCFH_VERSION_1,
                        command, sequence, CMQCFC.MQCFC_LAST if last else CMQCFC.MQCFC_NOT_LAST,
                        CMQC.MQCC_WARNING, reason, count)


def cfgr(parameter: int, members: list[bytes]) -> bytes:
    """An MQCFGR group of `members` (already encoded), as one parameter of the message."""
    return _GROUP.pack(CMQCFC.MQCFT_GROUP, CMQCFC.MQCFGR_STRUC_LENGTH, parameter,
                       len(members)) + b"".join(members)


def put_event(qm: QueueManagerState, queue_name: str, command: int, reason: int,
              parameters: list[bytes], sequence: int = 1, last: bool = True,
              correl_id: bytes = NO_CORREL_ID) -> bool:
    """Put one event message on `queue_name`; False (logged) when the event is lost. An event
    of more than one message (Change object: before and after) numbers them by `sequence`,
    `last` on the last, and gives them one `correl_id`, as IBM's do."""
    with qm.lock:
        queue = _event_queue(qm, queue_name)
        why = _unavailable(queue, queue_name)
        if why:
            log.warning("event %d lost: %s", reason, why)
            return False
        assert queue is not None    # _unavailable says why a missing queue cannot take it
        data = header(command, reason, len(parameters), sequence, last) + b"".join(parameters)
        message = Message(next(qm.seq), _md(qm, queue, correl_id), data, None, None, queue)
        try:
            copies = stream_copies.made(qm, queue, [message])
        except MQError as exc:
            log.warning("event %d lost: its STREAMQ copy cannot be put (STRMQOS(MUSTDUP), "
                        "reason %d)", reason, exc.reason)
            return False
        rows = [m for m in [message, *(copies.messages if copies else [])] if m.persistent]
        if rows:
            try:
                qm.store.apply(inserts=rows)
            except StoreError as exc:
                log.warning("event %d lost: the store cannot write it (reason %d)", reason,
                            exc.reason)
                return False
        queue.insert(message)
        if copies is not None:
            copies.place(qm)
        qm.arrived.notify_all()
        return True


def _event_queue(qm: QueueManagerState, name: str) -> LocalQueue | None:
    """The local queue that holds `name`'s messages: itself, or an alias's target."""
    queue = qm.queues.get(name)
    if isinstance(queue, AliasQueue):
        queue = qm.queues.get(str(queue.attrs.get("TARGET", "")))
    return queue if isinstance(queue, LocalQueue) else None


def _unavailable(queue: LocalQueue | None, name: str) -> str:
    if queue is None:
        return f"the event queue {name} is not defined as a local queue (or an alias of one)"
    if queue.attrs.get("PUT") == "DISABLED":
        return f"the event queue {name} is put-inhibited"
    if queue.depth >= int(queue.attrs.get("MAXDEPTH", 0)):
        return f"the event queue {name} is full (MAXDEPTH {queue.attrs.get('MAXDEPTH')})"
    return ""


def _md(qm: QueueManagerState, queue: LocalQueue, correl_id: bytes) -> list:
    date, hms = put_stamp(int(time.time()))
    persistent = queue.attrs.get("DEFPSIST") == "YES"
    return default_md(
        MsgType=CMQC.MQMT_DATAGRAM, Expiry=CMQC.MQEI_UNLIMITED, Encoding=CMQC.MQENC_NATIVE,
        CodedCharSetId=QMGR_CCSID, Format=CMQC.MQFMT_EVENT,
        Priority=int(queue.attrs.get("DEFPRTY", 0)),
        Persistence=CMQC.MQPER_PERSISTENT if persistent else CMQC.MQPER_NOT_PERSISTENT,
        MsgId=qm.new_msgid(), CorrelId=correl_id, ReplyToQ=blank("", 48),
        ReplyToQMgr=blank(qm.name, 48), UserIdentifier=blank("", 12),
        AccountingToken=b"\0" * 32, ApplIdentityData=blank("", 32),
        PutApplType=CMQC.MQAT_QMGR, PutApplName=blank(qm.name, 28), PutDate=date,
        PutTime=hms + b"00", ApplOriginData=blank("", 4), GroupId=b"\0" * 24)
