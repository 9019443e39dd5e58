"""Which message a get returns: match options, browse cursors, logical order, selectors, expiry.

Runs in the queue-manager process, under the queue manager's lock (see qmgr.py). `find`
looks at the queue in delivery order (narrowed by an id index when the get matches on an
id), skips what does not match, discards what has expired, and returns the message or the
complete set of segments the get is to deliver; it takes nothing off the queue (get.py does).
The expired messages it comes across are kept in `EXPIRED`, still on their queue, until
get.py discards them: one store write deletes them and adds their expiration reports
(verbs/reports.py: the floor that can put a message), so a kill cannot part the two.
"""
from __future__ import annotations

import struct
import time
from collections.abc import Callable

from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.queue_objects import (
    GROUP_FLAGS,
    I_CORRELID,
    I_FLAGS,
    I_GROUPID,
    I_MSGID,
    I_OFFSET,
    I_SEQ,
    NONE_ID,
    SEGMENT_FLAGS,
    LocalQueue,
    Message,
)
from spark_mq.embedded.server.core.state import FeatureState, Handle, QueueManagerState
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import GMO, MD, text

_MDI, _GI = MD.index, GMO.index
#: the gets that take nothing off the queue
BROWSE_GETS = (CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_BROWSE_NEXT
               | CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR)
MSG_TOKEN = struct.Struct("<q8x")  # a message's MsgToken: its arrival sequence number
#: expired messages a get came across, to be discarded (taken by `expired_discards`)
EXPIRED: FeatureState[list[Message]] = FeatureState("expired messages to discard", lambda qm: [])


def find(qm: QueueManagerState, handle: Handle, options: int, gmo: list,
         md_in: list) -> list[Message] | None:
    """The message (or the segments of a complete logical message) this get returns."""
    queue = handle.local_queue(CMQC.MQRC_NOT_OPEN_FOR_INPUT)  # get._check_get has said so already
    if options & (CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR | CMQC.MQGMO_MSG_UNDER_CURSOR):
        message = handle.cursor_msg and queue.current(handle.cursor_msg)
        if message is None or message.expired(time.time()):
            raise MQError(CMQC.MQRC_NO_MSG_UNDER_CURSOR)
        if options & CMQC.MQGMO_COMPLETE_MSG and message.flags & SEGMENT_FLAGS:
            if message.md[I_OFFSET]:
                raise MQError(CMQC.MQRC_INVALID_MSG_UNDER_CURSOR)
            segments = queue.logical_segments(message.md[I_GROUPID], message.md[I_SEQ])
            if segments is None:
                raise MQError(CMQC.MQRC_INCOMPLETE_MSG)
            return _held(queue, segments, options)
        return _held(queue, [message], options)

    match = gmo[_GI["MatchOptions"]]
    logical = options & CMQC.MQGMO_LOGICAL_ORDER
    msgid = md_in[I_MSGID] if match & CMQC.MQMO_MATCH_MSG_ID and md_in[I_MSGID] != NONE_ID else None
    correlid = (md_in[I_CORRELID] if match & CMQC.MQMO_MATCH_CORREL_ID and md_in[I_CORRELID] != NONE_ID
                else None)
    groupid = (md_in[I_GROUPID] if match & CMQC.MQMO_MATCH_GROUP_ID and md_in[I_GROUPID] != NONE_ID
               else None)
    seq = md_in[I_SEQ] if match & CMQC.MQMO_MATCH_MSG_SEQ_NUMBER else None
    offset = md_in[I_OFFSET] if match & CMQC.MQMO_MATCH_OFFSET else None
    token = None
    if match & CMQC.MQMO_MATCH_MSG_TOKEN:
        if gmo[_GI["Version"]] < 3:
            raise MQError(CMQC.MQRC_WRONG_GMO_VERSION)
        if options & CMQC.MQGMO_WAIT:
            raise MQError(CMQC.MQRC_MSG_TOKEN_ERROR)
        token = MSG_TOKEN.unpack(gmo[_GI["MsgToken"]])[0]
    in_progress = handle.get_group if logical else None
    if in_progress is not None:
        if groupid is not None and groupid != in_progress[0]:
            raise MQError(CMQC.MQRC_MATCH_OPTIONS_ERROR)
        groupid, seq, offset = in_progress
    cursor = handle.cursor if options & CMQC.MQGMO_BROWSE_NEXT else None
    # Messages the handle's selector rejected never match it later (the selection
    # string is fixed while the handle is open), so a scan resumes after the run of
    # rejected messages at the head of the queue instead of testing them again.
    mark = None
    if handle.selector is not None and handle.rejected_upto is not None \
            and handle.rejected_upto[1] == queue.reorders:
        mark = handle.rejected_upto[0]
    start = mark if cursor is None or (mark is not None and mark > cursor) else cursor
    whole_scan = (token is None and msgid is None and correlid is None and groupid is None
                  and seq is None and offset is None and not logical)
    if token is not None:
        messages = iter(queue.with_token(token, cursor))
    else:
        messages = queue.candidates(msgid, correlid, groupid, start)
    advancing = handle.selector is not None and whole_scan and start == mark
    advanced = mark
    now = time.time()
    expired = []
    found = None
    for message in messages:
        if message.expired(now):
            expired.append(message)
            continue
        md = message.md
        if (msgid is not None and md[I_MSGID] != msgid
                or correlid is not None and md[I_CORRELID] != correlid
                or groupid is not None and md[I_GROUPID] != groupid
                or seq is not None and md[I_SEQ] != seq
                or offset is not None and md[I_OFFSET] != offset):
            continue
        flags = md[I_FLAGS]
        if logical and in_progress is None and flags & (GROUP_FLAGS | SEGMENT_FLAGS) and (
                md[I_SEQ] != 1 or md[I_OFFSET] != 0):
            continue
        if handle.selector is not None and not handle.selector.matches(selector_values(message)):
            if advancing:
                advanced = message.key
            continue
        advancing = False
        if flags & GROUP_FLAGS and options & CMQC.MQGMO_ALL_MSGS_AVAILABLE and in_progress is None \
                and not queue.group_complete(md[I_GROUPID]):
            continue
        if flags & SEGMENT_FLAGS:
            complete = options & CMQC.MQGMO_COMPLETE_MSG
            if complete and md[I_OFFSET] != 0:
                continue
            if complete or options & CMQC.MQGMO_ALL_SEGMENTS_AVAILABLE and not (
                    logical and in_progress is not None):
                segments = queue.logical_segments(md[I_GROUPID], md[I_SEQ])
                if segments is None:
                    continue
                if complete:
                    found = segments
                    break
        found = [message]
        break
    EXPIRED.of(qm).extend(expired)
    if handle.selector is not None and whole_scan and advanced is not None:
        handle.rejected_upto = (advanced, queue.reorders)
    return None if found is None else _held(queue, found, options)


def _held(queue: LocalQueue, found: list[Message], options: int) -> list[Message]:
    """What a get takes off the queue must be in memory first (a browse leaves it where it
    is: a cursor names a message by its key)."""
    if options & BROWSE_GETS:
        return found
    return [queue.adopt(message) for message in found]


def expired_discards(qm: QueueManagerState) -> list[Message]:
    """The expired messages `find` came across since the last call, still on their queues:
    the caller discards them, with their expiration reports."""
    pending = EXPIRED.get(qm)
    if not pending:
        return []
    taken = list(pending)
    pending.clear()
    return taken


def selector_values(message: Message) -> Callable[[str], object]:
    """Values for a selector: message properties by name, MQMD fields as Root.MQMD.<Field>."""
    props = {p[0]: p[2] for p in message.props or ()}
    md = message.md

    def lookup(name: str) -> object:
        if name.startswith("Root.MQMD."):
            index = _MDI.get(name[10:])
            if index is None:
                return None
            value = md[index]
            if isinstance(value, bytes) and name[10:] not in (
                    "MsgId", "CorrelId", "GroupId", "AccountingToken"):
                return text(value)
            return value
        return props.get(name)
    return lookup
