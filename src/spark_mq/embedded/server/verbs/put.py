"""MQPUT and MQPUT1: checking a put, filling its MD, segmenting it, and placing it.

Runs in the queue-manager process, under the queue manager's lock (see qmgr.py). A put
gets the queue's defaults (persistence, priority), its context fields (identity and origin
as the put options say: md_context.py) and its ids as a publication does (prepare_put.py),
then its group and segment fields (logical order is tracked on the handle), and is split
into segments when the queue cannot hold it whole and the putter allows that (a segment too,
into smaller ones, as IBM allows). A put to a remote queue is segmented before it is wrapped
for the transmission queue, the limit being that queue's MAXMSGL less the MQXQH (and MQMDE):
each segment travels as a transmission message of its own (resolution/transmission.py), and
a cluster queue's segments are all marked not to be reallocated, so they reach one instance. Outside
syncpoint it lands on the queue at once, its COA reports stored in the same store
transaction (reports.py; fail point "put-stored" between that write and the queue); under
syncpoint it waits on the connection's unit of work (units_of_work.py). A queue with a STREAMQ
gets its copy placed with the original, in the same unit of work or store transaction
(streaming.py); the copy asks for no COA, so only the original's are sent.

A handle to a cluster queue bound MQOO_BIND_NOT_FIXED (or MQOO_BIND_ON_GROUP, at a new
group) takes the instance the workload algorithm chooses before each put
(handles.rebind); MQPUT1 keeps the one its open chose.
"""
from __future__ import annotations

import time

from spark_mq.embedded.server.core.faults import fail_point
from spark_mq.embedded.server.core.md_context import put_stamp
from spark_mq.embedded.server.core.outcomes import MQError, WarnedPut
from spark_mq.embedded.server.core.property_rules import check_properties
from spark_mq.embedded.server.core.queue_objects import (
    GROUP_FLAGS,
    I_CORRELID,
    I_EXPIRY,
    I_FLAGS,
    I_GROUPID,
    I_OFFSET,
    I_ORIGLEN,
    I_PERSISTENCE,
    I_SEQ,
    NONE_ID,
    SEGMENT_FLAGS,
    TEMPORARY_DYNAMIC,
    LocalQueue,
    Message,
    QueueDefinition,
)
from spark_mq.embedded.server.core.state import (
    Connection,
    Handle,
    QueueManagerState,
    blank,
)
from spark_mq.embedded.server.events import DepthChange, depth_changed
from spark_mq.embedded.server.events import queue_manager as qmgr_events
from spark_mq.embedded.server.resolution import transmission
from spark_mq.embedded.server.resolution.names import BIND_NOT_FIXED, BIND_ON_GROUP
from spark_mq.embedded.server.triggering import hook as triggering
from spark_mq.embedded.server.verbs import reports, streaming
from spark_mq.embedded.server.verbs.handles import (
    follow_transmission_queue,
    handle_of,
    open_handle,
    rebind,
    release,
)
from spark_mq.embedded.server.verbs.prepare_put import Destination, prepare_md
from spark_mq.embedded.server.verbs.pubsub.publish import publish
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import MD

_I_MSGTYPE = MD.index["MsgType"]
_I_ACCOUNTING = MD.index["AccountingToken"]
#: a cluster transmission message's own AccountingToken: all zeros, it may not go to another
#: instance when its channel fails (IBM's mark); anything else, it may
#: (message_channels/reallocation.py)
_FIXED, _NOT_FIXED = b"\0" * 32, b"\1".ljust(32, b"\0")


def _reallocation_mark(handle: Handle, options: int) -> bytes:
    """MQOO_BIND_NOT_FIXED, or MQOO_BIND_ON_GROUP outside logical order: every put chose,
    so a message may choose again when its channel fails."""
    if handle.bind == BIND_NOT_FIXED or (handle.bind == BIND_ON_GROUP
                                         and not options & CMQC.MQPMO_LOGICAL_ORDER):
        return _NOT_FIXED
    return _FIXED


def put(qm: QueueManagerState, conn: Connection, hobj: int, md_bytes: bytes, pmo_options: int,
        context_hobj: int, props: list | None, body: bytes) -> bytes:
    """MQPUT on an open handle; returns the MD as put (raises WarnedPut with it on a warning)."""
    handle = handle_of(conn, hobj)
    if not handle.options & CMQC.MQOO_OUTPUT:
        raise MQError(CMQC.MQRC_NOT_OPEN_FOR_OUTPUT)
    if handle.topic is not None:
        return publish(qm, conn, handle, md_bytes, pmo_options, context_hobj, props, body, put1)
    return _put(qm, conn, handle, md_bytes, pmo_options, context_hobj, props, body)


def put1(qm: QueueManagerState, conn: Connection, name: str, md_bytes: bytes, pmo_options: int,
         context_hobj: int, props: list | None, body: bytes, alternate_user: str = "",
         qmgr_name: str = "") -> bytes:
    """MQPUT1: open, put, close; the handle opens with the context authority the put needs,
    and with MQPMO_ALTERNATE_USER_AUTHORITY for the MQOD's AlternateUserId (`alternate_user`).

    Returns the MD as put followed by the names of the queue and queue manager the message
    went to (2 x 48 blank padded bytes, what MQ returns in the MQPMO's ResolvedQName and
    ResolvedQMgrName): an MQPUT1 client has no open handle that would tell it an alias's base
    queue or a remote queue's name. A warning carries the same bytes."""
    open_options = CMQC.MQOO_OUTPUT
    if pmo_options & CMQC.MQPMO_SET_ALL_CONTEXT:
        open_options |= CMQC.MQOO_SET_ALL_CONTEXT
    elif pmo_options & CMQC.MQPMO_SET_IDENTITY_CONTEXT:
        open_options |= CMQC.MQOO_SET_IDENTITY_CONTEXT
    if pmo_options & CMQC.MQPMO_PASS_ALL_CONTEXT:
        open_options |= CMQC.MQOO_PASS_ALL_CONTEXT
    elif pmo_options & CMQC.MQPMO_PASS_IDENTITY_CONTEXT:
        open_options |= CMQC.MQOO_PASS_IDENTITY_CONTEXT
    if pmo_options & CMQC.MQPMO_ALTERNATE_USER_AUTHORITY:
        open_options |= CMQC.MQOO_ALTERNATE_USER_AUTHORITY
    try:
        handle = open_handle(qm, conn, CMQC.MQOT_Q, name, open_options, None, dynamic_name=None,
                             alternate_user=alternate_user, qmgr_name=qmgr_name)
    except MQError as exc:
        qmgr_events.open_refused(qm, conn, CMQC.MQOT_Q, name, qmgr_name, open_options, exc.reason)
        raise
    resolved = b""
    handle.bind = ""   # the open's choice of a cluster queue's instance is this one put's
    try:
        queue = handle.local_queue(CMQC.MQRC_NOT_OPEN_FOR_OUTPUT)
        where = ((handle.remote.queue_name, handle.remote.qmgr_name) if handle.remote
                 else (queue.name, qm.name))
        resolved = blank(where[0], 48) + blank(where[1], 48)
        return _put(qm, conn, handle, md_bytes, pmo_options & ~CMQC.MQPMO_LOGICAL_ORDER,
                    context_hobj, props, body) + resolved
    except WarnedPut as warned:
        raise WarnedPut(warned.md + resolved, warned.reason) from None
    finally:
        del conn.handles[handle.hobj]
        release(qm, handle)


def _put(qm: QueueManagerState, conn: Connection, handle: Handle, md_bytes: bytes, options: int,
         context_hobj: int, props: list | None, body: bytes) -> bytes:
    if len(md_bytes) != MD.size:  # before the queue's own refusals, which a publication checks first
        raise MQError(CMQC.MQRC_MD_ERROR)
    rebind(qm, handle, options)   # a cluster queue's instance, chosen again as its bind says
    follow_transmission_queue(qm, handle)   # the way elsewhere may have swung since MQOPEN
    queue = handle.local_queue(CMQC.MQRC_NOT_OPEN_FOR_OUTPUT)  # a queue-manager handle has no OUTPUT
    if handle.remote is not None:   # the QREMOTE or queue-manager alias, else the xmitq
        definition: QueueDefinition = handle.remote.definition or queue
    else:
        definition = qm.queues.get(handle.name, queue)
    if definition.attrs["PUT"] == "DISABLED" or queue.attrs["PUT"] == "DISABLED":
        qmgr_events.inhibited(qm, conn, CMQC.MQRC_PUT_INHIBITED, handle.name)
        raise MQError(CMQC.MQRC_PUT_INHIBITED)
    destination = Destination(definition.attrs["DEFPSIST"] == "YES", definition.attrs["DEFPRTY"],
                              keeps_persistent=queue.definition_type != TEMPORARY_DYNAMIC)
    md, warning = prepare_md(qm, conn, handle, md_bytes, options, context_hobj, destination)
    syncpoint = bool(options & CMQC.MQPMO_SYNCPOINT)
    next_group = _assign_group(qm, handle, md, options, len(body), syncpoint)
    if props:
        check_properties(qm, props)
    if not body and md[I_FLAGS] & CMQC.MQMF_SEGMENT and not md[I_FLAGS] & CMQC.MQMF_LAST_SEGMENT \
            and not _segment_report(conn, md):
        raise MQError(CMQC.MQRC_SEGMENT_LENGTH_ZERO)  # only a last segment may be empty
    # the transmission queue must hold the whole transmission message, header and all
    reserve = transmission.header_length(md) if handle.remote is not None else 0
    pieces = _segment(qm, queue, md, props, body, reserve)
    if handle.remote is not None:   # each piece behind its own MQXQH on the transmission queue
        pieces = [_transmitted(qm, handle, options, len(pieces) > 1, piece) for piece in pieces]
    if len(pieces) > 1 and not syncpoint and md[I_PERSISTENCE] == CMQC.MQPER_PERSISTENT \
            and (conn.uow_puts or conn.uow_gets):
        # segmenting a persistent message needs the queue manager's own unit of work
        raise MQError(CMQC.MQRC_UOW_NOT_AVAILABLE)
    if queue.depth + len(pieces) > queue.attrs["MAXDEPTH"]:
        depth_changed(qm, queue, DepthChange.FULL)
        raise MQError(CMQC.MQRC_Q_FULL)
    if syncpoint and conn.uow_count() + len(pieces) > qm.attrs["MAXUMSGS"]:
        raise MQError(CMQC.MQRC_SYNCPOINT_LIMIT_REACHED)
    # after the original's own refusals: a copy is only made of a message that is put
    copies = streaming.copies(qm, queue, pieces) if handle.remote is None else None
    expires_at = None
    if md[I_EXPIRY] > 0:
        expires_at = time.time() + md[I_EXPIRY] / 10.0
    messages = [Message(next(qm.seq), piece_md, piece_body, piece_props, expires_at, queue)
                for piece_md, piece_body, piece_props in pieces]
    placed = [(queue, messages)] + ([(copies.queue, copies.messages)] if copies else [])
    if syncpoint:
        for target, arrived in placed:
            conn.uow_puts.extend(arrived)
            target.pending_puts += len(arrived)
        conn.uow_stream_copies += len(copies.messages) if copies else 0
    else:
        _place(qm, conn, placed, messages)
    for target, arrived in placed:
        triggering.put(qm, conn, target, arrived, syncpoint)
        depth_changed(qm, target, DepthChange.PUT, arrived)
    if options & CMQC.MQPMO_LOGICAL_ORDER:
        handle.put_group = next_group  # only a put that succeeded moves the group on
    if warning:
        raise WarnedPut(MD.pack(md), warning)
    return MD.pack(md)


def _transmitted(qm: QueueManagerState, handle: Handle, options: int, segmented: bool,
                 piece: tuple[list, bytes, list | None]) -> tuple[list, bytes, list | None]:
    """A message (or one of its segments) for a remote queue as it lies on the transmission
    queue: behind an MQXQH, with the transmission MQMD of its own."""
    md, body, props = piece
    assert handle.remote is not None
    date, hms = put_stamp(int(time.time()))
    put_md, put_body = transmission.wrap(
        qm.name, handle.remote.queue_name, handle.remote.qmgr_name, md, body,
        qm.new_msgid(), date, hms + b"00")
    if handle.remote.channel:   # the cluster-sender that is to carry it (IBM's rule)
        put_md[I_CORRELID] = handle.remote.channel.encode().ljust(24, b"\0")
        # a message's segments go to one instance: none of them may be reallocated alone
        put_md[_I_ACCOUNTING] = _FIXED if segmented else _reallocation_mark(handle, options)
    return put_md, put_body, props


def _place(qm: QueueManagerState, conn: Connection,
           placed: list[tuple[LocalQueue, list[Message]]], messages: list[Message]) -> None:
    """A put outside syncpoint: the message (its segments), its streamed copy and its COA
    reports in one store transaction, stored all or none, then on their queues."""
    carrier = reports.of_unit_of_work(qm, put1, conn, messages, [])
    rows = [m for _, arrived in placed for m in arrived if m.persistent]
    if reports.store_with(qm, carrier, rows):
        fail_point("put-stored")   # stored, nothing on a queue yet: a restart has it all
    for target, arrived in placed:
        for message in arrived:
            target.insert(message)
    qm.arrived.notify_all()
    reports.released(qm, carrier)


def _segment_report(conn: Connection, md: list) -> bool:
    """The queue manager's report on a segment: it carries no data unless asked to, its
    OriginalLength saying how much it reports on (IBM docs, "Reports and segmented
    messages"), so it is not an application's empty segment."""
    return conn.agent and md[_I_MSGTYPE] == CMQC.MQMT_REPORT


def _assign_group(qm: QueueManagerState, handle: Handle, md: list, options: int, length: int,
                  syncpoint: bool) -> tuple | None:
    """Group and segment fields of a put; returns the handle's next logical-order state."""
    flags = md[I_FLAGS]
    in_group = bool(flags & GROUP_FLAGS)
    segment = bool(flags & SEGMENT_FLAGS)
    if not options & CMQC.MQPMO_LOGICAL_ORDER:
        if md[I_OFFSET] < 0 or (md[I_OFFSET] and not segment):
            raise MQError(CMQC.MQRC_OFFSET_ERROR)
        if md[I_SEQ] < 1 or (in_group and md[I_GROUPID] == NONE_ID and md[I_SEQ] != 1):
            raise MQError(CMQC.MQRC_MSG_SEQ_NUMBER_ERROR)
        if (in_group or segment) and md[I_GROUPID] == NONE_ID:
            if segment and md[I_OFFSET]:
                raise MQError(CMQC.MQRC_OFFSET_ERROR)  # a later segment needs its GroupId
            md[I_GROUPID] = qm.new_msgid()
        return handle.put_group
    state = handle.put_group
    if state is None:
        if not (in_group or segment):
            return None
        state = (qm.new_msgid(), 1, 0, in_group, syncpoint, md[I_PERSISTENCE])
    else:
        groupid, seq, offset, was_in_group, was_syncpoint, persistence = state
        if not (in_group or segment) or (was_in_group and not in_group):
            raise MQError(CMQC.MQRC_INCOMPLETE_GROUP if was_in_group else CMQC.MQRC_INCOMPLETE_MSG)
        if syncpoint != was_syncpoint:
            raise MQError(CMQC.MQRC_INCONSISTENT_UOW)
        if md[I_PERSISTENCE] != persistence:
            raise MQError(CMQC.MQRC_INCONSISTENT_PERSISTENCE)
    groupid, seq, offset, _, was_syncpoint, persistence = state
    md[I_GROUPID], md[I_SEQ], md[I_OFFSET] = groupid, seq, offset
    if segment and not flags & CMQC.MQMF_LAST_SEGMENT:
        return (groupid, seq, offset + length, in_group, was_syncpoint, persistence)
    if in_group and not flags & CMQC.MQMF_LAST_MSG_IN_GROUP:
        return (groupid, seq + 1, 0, in_group, was_syncpoint, persistence)
    return None


def _segment(qm: QueueManagerState, queue: LocalQueue, md: list, props: list | None,
             body: bytes, reserve: int = 0) -> list[tuple[list, bytes, list | None]]:
    """Split a message the queue cannot hold whole, when the putter allows it; `reserve`:
    the bytes a transmission queue's message carries before the data (its MQXQH)."""
    queue_limit, qmgr_limit = queue.attrs["MAXMSGL"] - reserve, qm.attrs["MAXMSGL"] - reserve
    limit = min(queue_limit, qmgr_limit)
    if len(body) <= limit:
        return [(md, body, props)]
    too_big = (CMQC.MQRC_MSG_TOO_BIG_FOR_Q if queue_limit <= qmgr_limit
               else CMQC.MQRC_MSG_TOO_BIG_FOR_Q_MGR)
    # A message that carries properties cannot be segmented safely: the properties
    # travel in the first segment and push it past MAXMSGL (see DESIGN.md).
    if not md[I_FLAGS] & CMQC.MQMF_SEGMENTATION_ALLOWED or props or limit < 16:
        raise MQError(too_big)
    size = limit - limit % 16
    if md[I_GROUPID] == NONE_ID:
        md[I_GROUPID] = qm.new_msgid()
    # a segment allowed to be segmented again (IBM docs, MsgFlags: at the sending, an
    # intermediate or the destination queue manager) ends where it ended: its last piece is
    # the message's last segment only if it was
    is_segment = bool(md[I_FLAGS] & SEGMENT_FLAGS)
    ends = not is_segment or bool(md[I_FLAGS] & CMQC.MQMF_LAST_SEGMENT)
    flags = md[I_FLAGS] & ~SEGMENT_FLAGS
    original = md[I_ORIGLEN] if is_segment else len(body)
    pieces: list[tuple[list, bytes, list | None]] = []
    for offset in range(0, len(body), size):
        piece = list(md)
        last = ends and offset + size >= len(body)
        piece[I_OFFSET] = md[I_OFFSET] + offset
        piece[I_FLAGS] = flags | (CMQC.MQMF_LAST_SEGMENT if last else CMQC.MQMF_SEGMENT)
        piece[I_ORIGLEN] = original
        pieces.append((piece, body[offset:offset + size], None))
    return pieces
