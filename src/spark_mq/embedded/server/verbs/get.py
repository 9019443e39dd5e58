"""MQGET and read-ahead batches: checking a get, waiting for a message, and delivering it.

Runs in the queue-manager process, under the queue manager's lock (see qmgr.py); a get
that waits sleeps on the queue manager's `arrived` condition, which lets the lock go.
core/message_matching.py picks the message; this module checks the get options against the handle,
takes the message off its queue (into the connection's unit of work under syncpoint) or
moves the browse cursor, and builds the outputs: MD, GMO, data (converted when asked),
and properties (core/property_rules.py). `get_batch` serves a client's read-ahead buffer.
A destructive get outside syncpoint stores the messages' COD reports in the store transaction
that deletes them (fail point "get-stored" after it); the expired messages any get comes
across are discarded the same way, their expiration reports stored in the transaction that
deletes them (fail point "expiry-stored" after it).
"""
from __future__ import annotations

import time

from spark_mq.embedded.server.core import message_matching
from spark_mq.embedded.server.core.convert import convert_message
from spark_mq.embedded.server.core.faults import fail_point
from spark_mq.embedded.server.core.message_matching import BROWSE_GETS, MSG_TOKEN
from spark_mq.embedded.server.core.outcomes import NONE, OK, WARNING, MQError
from spark_mq.embedded.server.core.property_rules import properties_for_getter
from spark_mq.embedded.server.core.queue_objects import (
    I_CCSID,
    I_ENCODING,
    I_EXPIRY,
    I_FLAGS,
    I_FORMAT,
    I_GROUPID,
    I_OFFSET,
    I_ORIGLEN,
    I_SEQ,
    SEGMENT_FLAGS,
    LocalQueue,
    Message,
)
from spark_mq.embedded.server.core.state import Connection, Handle, QueueManagerState, blank, check_md_header
from spark_mq.embedded.server.core.store import StoreError
from spark_mq.embedded.server.events import DepthChange, depth_changed
from spark_mq.embedded.server.events import queue_manager as qmgr_events
from spark_mq.embedded.server.verbs import reports
from spark_mq.embedded.server.verbs.handles import INPUT_OPTIONS, handle_of
from spark_mq.embedded.server.verbs.put import put1
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import GMO, MD, default_md

_GI = GMO.index
_GI_VERSION, _GI_MATCH = _GI["Version"], _GI["MatchOptions"]
# LOCK/UNLOCK need a browse lock, SET_SIGNAL is z/OS only, MARK_SKIP_BACKOUT is z/OS only
_UNSUPPORTED_GETS = (CMQC.MQGMO_LOCK | CMQC.MQGMO_UNLOCK | CMQC.MQGMO_SET_SIGNAL
                     | CMQC.MQGMO_MARK_SKIP_BACKOUT
                     | CMQC.MQGMO_MARK_BROWSE_HANDLE | CMQC.MQGMO_MARK_BROWSE_CO_OP
                     | CMQC.MQGMO_UNMARK_BROWSE_CO_OP | CMQC.MQGMO_UNMARK_BROWSE_HANDLE
                     | CMQC.MQGMO_UNMARKED_BROWSE_MSG)
_PROPERTY_GETS = (CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2 | CMQC.MQGMO_NO_PROPERTIES
                  | CMQC.MQGMO_PROPERTIES_IN_HANDLE | CMQC.MQGMO_PROPERTIES_COMPATIBILITY)
_ANY_LENGTH = 0x7FFFFFFF
_BATCH_OVERHEAD = 400  # bytes counted per message besides its data (MD, GMO, framing)
# the MD of a read-ahead get: matches any message
_EMPTY_MD = MD.pack(default_md())


class _PersistentNext(Exception):
    """The next message a read-ahead batch would take is persistent."""


def get(qm: QueueManagerState, conn: Connection, hobj: int, md_bytes: bytes, gmo_bytes: bytes,
        max_length: int, has_handle: bool, non_persistent_only: bool = False) -> tuple:
    """One MQGET. Returns (comp_code, reason, md, gmo, data, total_length, props).
    non_persistent_only: raise _PersistentNext rather than return a persistent message."""
    if len(md_bytes) != MD.size:
        raise MQError(CMQC.MQRC_MD_ERROR)
    if len(gmo_bytes) != GMO.size:
        raise MQError(CMQC.MQRC_GMO_ERROR)
    gmo = GMO.unpack(gmo_bytes)
    md_in = MD.unpack(md_bytes)
    check_md_header(md_in)
    if gmo[0] != b"GMO " or not 1 <= gmo[_GI_VERSION] <= 4:
        raise MQError(CMQC.MQRC_GMO_ERROR)
    if gmo[_GI_VERSION] < 2:  # no MatchOptions field before version 2: MQ's default applies
        gmo[_GI_MATCH] = CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID
    options = gmo[_GI["Options"]]
    wait = gmo[_GI["WaitInterval"]]
    handle = handle_of(conn, hobj)
    _check_get(qm, handle, options, wait, max_length, conn)
    deadline = None
    if options & CMQC.MQGMO_WAIT and wait != CMQC.MQWI_UNLIMITED:
        deadline = time.monotonic() + wait / 1000.0
    while True:
        found = _find(qm, handle, options, gmo, md_in)
        if found is not None:
            if non_persistent_only and found[0].persistent:
                raise _PersistentNext()
            return _deliver(qm, conn, handle, found, options, gmo, max_length, has_handle, md_in)
        if not options & CMQC.MQGMO_WAIT or (options & BROWSE_GETS
                                              and options & CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR):
            raise MQError(CMQC.MQRC_NO_MSG_AVAILABLE)
        remaining = None if deadline is None else deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            raise MQError(CMQC.MQRC_NO_MSG_AVAILABLE)
        # short waits: a quiescing queue manager or a vanished client must be noticed soon
        qm.arrived.wait(0.25 if remaining is None else min(remaining, 0.25))
        if qm.quiescing:  # a waiting get is told why, before the process ends
            raise MQError(CMQC.MQRC_Q_MGR_QUIESCING if options & CMQC.MQGMO_FAIL_IF_QUIESCING
                          else CMQC.MQRC_Q_MGR_STOPPING)
        if not conn.alive():
            raise MQError(CMQC.MQRC_CONNECTION_BROKEN)
        if conn.handles.get(hobj) is not handle:
            raise MQError(CMQC.MQRC_HOBJ_ERROR)
        _check_get(qm, handle, options, wait, max_length, conn)


def get_batch(qm: QueueManagerState, conn: Connection, hobj: int, gmo_bytes: bytes,
              has_handle: bool, max_count: int, max_bytes: int) -> list:
    """Read-ahead: up to max_count non-persistent messages gotten outside syncpoint.

    The first message may be waited for; the rest are only what is there already.
    Stops before a persistent message, which is left for a synchronous get: a persistent
    message must never sit in a client's buffer, where a crash would lose it.

    A batch carries no MD, so it cannot know the CCSID and Encoding a getter wants: the
    embedded clients leave read-ahead off for an MQGMO_CONVERT get (client/get.py,
    async_consume.py; MQ lets a client enable read-ahead "only if conditions are met"), and
    a batch that asks for conversion anyway is refused rather than converted to a guess."""
    if GMO.unpack(gmo_bytes)[_GI["Options"]] & CMQC.MQGMO_CONVERT:
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)
    empty_md = _EMPTY_MD
    try:
        first = get(qm, conn, hobj, empty_md, gmo_bytes, _ANY_LENGTH, has_handle,
                    non_persistent_only=True)
    except _PersistentNext:
        return []
    results = [first]
    total = len(first[4]) + _BATCH_OVERHEAD
    # the checks of the first get hold for the rest: the lock has not been let go since
    handle = handle_of(conn, hobj)
    gmo = GMO.unpack(gmo_bytes)
    if gmo[_GI_VERSION] < 2:
        gmo[_GI_MATCH] = CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID
    options = gmo[_GI["Options"]] & ~CMQC.MQGMO_WAIT
    md_in = MD.unpack(empty_md)
    while len(results) < max_count and total < max_bytes:
        found = _find(qm, handle, options, gmo, md_in)
        if found is None or found[0].persistent:
            break
        result = _deliver(qm, conn, handle, found, options, gmo, _ANY_LENGTH, has_handle, md_in)
        results.append(result)
        total += len(result[4]) + _BATCH_OVERHEAD
    return results


def _find(qm: QueueManagerState, handle: Handle, options: int, gmo: list,
          md_in: list) -> list[Message] | None:
    """message_matching.find, and the discard of the expired messages it came across."""
    try:
        return message_matching.find(qm, handle, options, gmo, md_in)
    finally:
        expired = message_matching.expired_discards(qm)
        if expired:
            _discard_expired(qm, expired)


def _discard_expired(qm: QueueManagerState, expired: list[Message]) -> None:
    """Expired messages deleted from the store and their expiration reports added, in one
    transaction, before they leave their queues: a kill after it has both, one before it
    neither. A failed write leaves them there for the next get to come across."""
    carrier = reports.expired(qm, put1, expired)
    try:
        written = reports.store_with(qm, carrier, [], [m.seq for m in expired if m.persistent])
    except StoreError:     # logged by the store
        return
    if written:
        fail_point("expiry-stored")   # stored, still on the queue: a restart has them gone
    for message in expired:
        message.queue.remove(message, settled=True)
    reports.released(qm, carrier)


def _check_get(qm: QueueManagerState, handle: Handle, options: int, wait: int,
               max_length: int, conn: Connection) -> None:
    queue = handle.local_queue(CMQC.MQRC_NOT_OPEN_FOR_INPUT)
    browse = options & BROWSE_GETS
    if browse & (browse - 1):
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)
    if browse:
        if not handle.options & CMQC.MQOO_BROWSE:
            raise MQError(CMQC.MQRC_NOT_OPEN_FOR_BROWSE)
    elif not handle.options & INPUT_OPTIONS:
        raise MQError(CMQC.MQRC_NOT_OPEN_FOR_INPUT)
    if options & CMQC.MQGMO_MSG_UNDER_CURSOR and (browse or not handle.options & CMQC.MQOO_BROWSE):
        raise MQError(CMQC.MQRC_OPTIONS_ERROR if browse else CMQC.MQRC_NOT_OPEN_FOR_BROWSE)
    sync = options & (CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT)
    if browse and sync & (CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT):
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)  # a browse takes nothing into a unit of work
    if sync & (sync - 1):
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)
    properties = options & _PROPERTY_GETS
    if properties & (properties - 1):
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)
    if options & _UNSUPPORTED_GETS:
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)
    if options & CMQC.MQGMO_WAIT and wait < CMQC.MQWI_UNLIMITED:
        raise MQError(CMQC.MQRC_WAIT_INTERVAL_ERROR)
    if max_length < 0:
        raise MQError(CMQC.MQRC_BUFFER_LENGTH_ERROR)
    definition = qm.queues.get(handle.name, queue)
    if not browse and (definition.attrs["GET"] == "DISABLED" or queue.attrs["GET"] == "DISABLED"):
        qmgr_events.inhibited(qm, conn, CMQC.MQRC_GET_INHIBITED, handle.name)
        raise MQError(CMQC.MQRC_GET_INHIBITED)


def _deliver(qm: QueueManagerState, conn: Connection, handle: Handle, found: list[Message],
             options: int, gmo: list, max_length: int, has_handle: bool,
             md_in: list | None = None) -> tuple:
    queue = handle.local_queue(CMQC.MQRC_NOT_OPEN_FOR_INPUT)  # _check_get has said so already
    found, warning = _consistent_segments(found)
    first = found[0]
    md = list(first.md)
    body = first.body if len(found) == 1 else b"".join(m.body for m in found)
    whole = found[-1].flags & CMQC.MQMF_LAST_SEGMENT or not first.flags & SEGMENT_FLAGS
    if whole and (len(found) > 1 or options & CMQC.MQGMO_COMPLETE_MSG and first.flags & SEGMENT_FLAGS):
        md[I_FLAGS] &= ~SEGMENT_FLAGS
        md[I_ORIGLEN] = CMQC.MQOL_UNDEFINED
        md[I_OFFSET] = 0
    if first.expires_at is not None:
        md[I_EXPIRY] = max(1, int((first.expires_at - time.time()) * 10))
    props_out, body = properties_for_getter(qm, queue, handle, first.props, md, body,
                                            options, has_handle)
    total = len(body)
    if total > max_length and not options & CMQC.MQGMO_ACCEPT_TRUNCATED_MSG:
        # MQ checks the length before converting: the message stays where it is, unconverted,
        # and the caller learns its length (ibmmq's Queue.get retries with it, doubled when
        # converting) and its MD
        returned = body[:max_length]
        return (WARNING, CMQC.MQRC_TRUNCATED_MSG_FAILED, MD.pack(md),
                _gmo_out(gmo, queue, first, md, len(returned)), returned, total, None)
    if total > max_length:
        warning = CMQC.MQRC_TRUNCATED_MSG_ACCEPTED
    if options & CMQC.MQGMO_CONVERT and md_in is not None and max_length > 0:
        unconverted = total
        body, reason = _convert(md, body, md_in, max_length, options)
        if len(body) > max_length:
            # truncated, before or (grown past the buffer) during conversion, as
            # MQGMO_ACCEPT_TRUNCATED_MSG allowed: 2079, and DataLength is the unconverted
            # message's length (IBM docs: "Processing conventions", 1 and 4)
            warning = warning or CMQC.MQRC_TRUNCATED_MSG_ACCEPTED
            total = unconverted
        else:
            total = len(body)
        # one reason fits in MQGET's answer: the conversion's, which says the data is not in
        # the CCSID asked for, before 2079/2243/2244, which the lengths and MD show as well
        warning = reason or warning
    if options & BROWSE_GETS:
        handle.cursor = first.key
        handle.cursor_msg = first
    else:
        _take(qm, conn, found, options)
        if handle.cursor_msg is not None and handle.cursor_msg in found:
            handle.cursor_msg = None
        if handle.options & CMQC.MQOO_SAVE_ALL_CONTEXT:
            handle.saved_context = md
    if options & CMQC.MQGMO_LOGICAL_ORDER:
        _advance_group(handle, found)
    returned = body[:max_length]
    return (WARNING if warning else OK, warning or NONE, MD.pack(md),
            _gmo_out(gmo, queue, first, md, len(returned)), returned, total, props_out)


def _convert(md: list, body: bytes, md_in: list, max_length: int, options: int) -> tuple[bytes, int]:
    """MQGMO_CONVERT of the data the get returns (convert.py); md's CodedCharSetId and
    Encoding are set to what the data is in. Returns (data, warning reason or 0)."""
    converted = convert_message(body, md[I_FORMAT], md[I_CCSID], md[I_ENCODING],
                                md_in[I_CCSID], md_in[I_ENCODING])
    if (len(converted.data) > max_length and len(body) <= max_length
            and not options & CMQC.MQGMO_ACCEPT_TRUNCATED_MSG):
        # it fitted before converting, so MQ has taken it off the queue already
        return body, CMQC.MQRC_CONVERTED_MSG_TOO_BIG
    md[I_CCSID], md[I_ENCODING] = converted.ccsid, converted.encoding
    return converted.data, converted.reason


def _consistent_segments(found: list[Message]) -> tuple[list[Message], int]:
    """MQGMO_COMPLETE_MSG over segments in different CCSIDs or Encodings returns only the
    leading segments that agree, with MQ's warning (2243/2244)."""
    first = found[0].md
    for position, message in enumerate(found[1:], 1):
        if message.md[I_CCSID] != first[I_CCSID]:
            return found[:position], CMQC.MQRC_INCONSISTENT_CCSIDS
        if message.md[I_ENCODING] != first[I_ENCODING]:
            return found[:position], CMQC.MQRC_INCONSISTENT_ENCODINGS
    return found, NONE


def _take(qm: QueueManagerState, conn: Connection, found: list[Message], options: int) -> None:
    queue = found[0].queue
    syncpoint = options & CMQC.MQGMO_SYNCPOINT or (
        options & CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT and found[0].persistent)
    if syncpoint and conn.uow_count() + len(found) > qm.attrs["MAXUMSGS"]:
        raise MQError(CMQC.MQRC_SYNCPOINT_LIMIT_REACHED)
    if not syncpoint and len(found) > 1 and found[0].persistent and (conn.uow_puts or conn.uow_gets):
        # reassembling persistent segments needs the queue manager's own unit of work
        raise MQError(CMQC.MQRC_UOW_NOT_AVAILABLE)
    # the segments of one message got whole: one COD report for it (reports.py)
    whole = [found] if (options & CMQC.MQGMO_COMPLETE_MSG and found[0].flags & SEGMENT_FLAGS
                        and found[-1].flags & CMQC.MQMF_LAST_SEGMENT) else []
    carrier = None if syncpoint else _store_get(qm, conn, found, whole)
    for message in found:
        queue.remove(message, settled=not syncpoint)
    depth_changed(qm, queue, DepthChange.GOT, found)
    if syncpoint:
        conn.uow_gets.extend(found)   # their COD reports come with the commit
        conn.uow_whole_gets.extend(whole)
    else:
        reports.released(qm, carrier)


def _store_get(qm: QueueManagerState, conn: Connection, found: list[Message],
               whole: list[list[Message]]) -> Connection | None:
    """A destructive get outside syncpoint: its persistent messages deleted from the store and
    their COD reports added, in one transaction, before anything leaves the queue (a failure
    leaves them there, reported on by nothing). Returns the reports' carrier."""
    carrier = reports.of_unit_of_work(qm, put1, conn, [], found, whole)
    try:
        written = reports.store_with(qm, carrier, [], [m.seq for m in found if m.persistent])
    except StoreError:
        raise MQError(CMQC.MQRC_RESOURCE_PROBLEM) from None
    if written:
        fail_point("get-stored")   # stored, the message still on its queue: a restart has it gone
    return carrier


def _advance_group(handle: Handle, found: list[Message]) -> None:
    """Where a logical-order get continues: the next segment, the next message, or nowhere."""
    last = found[-1]
    md = last.md
    flags = md[I_FLAGS]
    if flags & CMQC.MQMF_SEGMENT and not flags & CMQC.MQMF_LAST_SEGMENT:
        handle.get_group = (md[I_GROUPID], md[I_SEQ], md[I_OFFSET] + len(last.body))
    elif flags & CMQC.MQMF_MSG_IN_GROUP and not flags & CMQC.MQMF_LAST_MSG_IN_GROUP:
        handle.get_group = (md[I_GROUPID], md[I_SEQ] + 1, 0)
    else:
        handle.get_group = None


def _gmo_out(gmo: list, queue: LocalQueue, first: Message, md: list, returned_length: int) -> bytes:
    """The MQGMO as MQGET hands it back: its output fields set, as far as the caller's
    version has them (MQ leaves the fields of later versions alone)."""
    out = list(gmo)
    version = gmo[_GI_VERSION]
    out[_GI["ResolvedQName"]] = blank(queue.name, 48)
    if version < 2:
        return GMO.pack(out)
    flags = md[I_FLAGS]
    out[_GI["GroupStatus"]] = (CMQC.MQGS_LAST_MSG_IN_GROUP if flags & CMQC.MQMF_LAST_MSG_IN_GROUP
                               else CMQC.MQGS_MSG_IN_GROUP if flags & CMQC.MQMF_MSG_IN_GROUP
                               else CMQC.MQGS_NOT_IN_GROUP)
    out[_GI["SegmentStatus"]] = (CMQC.MQSS_LAST_SEGMENT if flags & CMQC.MQMF_LAST_SEGMENT
                                 else CMQC.MQSS_SEGMENT if flags & CMQC.MQMF_SEGMENT
                                 else CMQC.MQSS_NOT_A_SEGMENT)
    out[_GI["Segmentation"]] = (CMQC.MQSEG_ALLOWED if flags & CMQC.MQMF_SEGMENTATION_ALLOWED
                                else CMQC.MQSEG_INHIBITED)
    if version >= 3:
        out[_GI["MsgToken"]] = MSG_TOKEN.pack(first.seq)
        # Multiplatforms reports the data length (only z/OS answers MQRL_UNDEFINED)
        out[_GI["ReturnedLength"]] = returned_length
    return GMO.pack(out)
