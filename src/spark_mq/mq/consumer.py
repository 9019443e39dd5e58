"""Getting batches of messages from one queue, under syncpoint or with read-ahead.

A Consumer owns one connection, so one unit of work: `get_batch` gets messages under
syncpoint and leaves the unit of work open; the caller commits it (`commit`) once the
batch is safe elsewhere, or backs it out. `close()` always backs out first, because MQDISC
(and ibmmq's QueueManager.__del__) would otherwise COMMIT open work on the caller's behalf.

What a batch contains:
* segmented messages come out whole (MQGMO_COMPLETE_MSG);
* messages in groups come out only when the whole group is on the queue, in logical order
  (MQGMO_ALL_MSGS_AVAILABLE + MQGMO_LOGICAL_ORDER); a batch never ends inside a group;
* a reference message (spark_mq.mq.message) comes out as one message with its data;
* poison messages (BackoutCount >= threshold) go to the backout queue in the same unit of
  work and are not returned.
Read-ahead (atMostOnce) gets are plain gets: MQ's read-ahead excludes COMPLETE_MSG,
LOGICAL_ORDER and ALL_MSGS_AVAILABLE, so in that mode segments and groups are not
reassembled.

With `conversion` (CCSID, Encoding) every get, the gets by id of a replay included, asks
the queue manager for MQGMO_CONVERT to that code page; a message it cannot convert arrives
unconverted, its reason in Message.reason (the MD then describes the data as stored). A
poison message is moved to the backout queue as it was gotten, converted or not.

With `require_text` a message that is not text (what the `text` column decodes: Format
MQSTR, a CCSID this process has a table for, bytes valid in it; `text_refusal`) is moved to
the backout queue in the same unit of work, behind an MQDLH naming the reason, and not
returned: a reader that writes text never writes replacement characters. `not_text_moved`
counts the moves of committed units of work only (a backed-out move is back on the queue).
"""
from __future__ import annotations

import logging
import time
from typing import Any

from spark_mq.mq import records
from spark_mq.mq.connecting import disconnect_quietly, hand_over, quietly
from spark_mq.mq.exceptions import MQConnectorError, describe
from spark_mq.mq.message import (
    DATA_GROUP_PROPERTY,
    DATA_LENGTH_PROPERTY,
    MD_INDEX,
    NO_ID,
    REFERENCE_FORMAT,
    Message,
    md_values,
)
from spark_mq.mq.mqget import RawGetter, get_converted
from spark_mq.mq.poison import PoisonMover
from spark_mq.mq.properties import TypedReader, read_all
from spark_mq.mq.queues import open_queue
from spark_mq.mq.refusals import open_refused
from spark_mq.mqi.codepages import QMGR_CCSID, code_page, decode_text
from spark_mq.mqi.constants import CMQC

log = logging.getLogger(__name__)

_BACKOUT, _FORMAT = MD_INDEX["BackoutCount"], MD_INDEX["Format"]
_CCSID, _ENCODING = MD_INDEX["CodedCharSetId"], MD_INDEX["Encoding"]
_GROUP, _SEQ, _MSGID = MD_INDEX["GroupId"], MD_INDEX["MsgSeqNumber"], MD_INDEX["MsgId"]
_UOW_MARGIN = 8            # room kept below MAXUMSGS for the last message's extra operations
_FIRST_BUFFER = 64 << 10   # MQGET buffer; grows to the largest message seen


def messages_per_unit_of_work(max_uncommitted: int) -> int:
    """The most messages one syncpoint batch takes, given the queue manager's MAXUMSGS."""
    return max(1, max_uncommitted - _UOW_MARGIN)


def text_refusal(payload: bytes, fmt: bytes, ccsid: int, encoding: int) -> tuple[int, str] | None:
    """(MQ reason, what is wrong) when this data is not text the `text` column can decode
    faithfully; None when it is."""
    if isinstance(fmt, str):
        fmt = fmt.encode("ascii", "replace")
    if fmt != CMQC.MQFMT_STRING:
        name = fmt.decode("ascii", "replace").strip("\0 ") or "MQFMT_NONE (blank)"
        return CMQC.MQRC_FORMAT_ERROR, f"is not text: its Format is {name}, not MQSTR"
    ccsid = ccsid or QMGR_CCSID
    if code_page(ccsid, encoding) is None:
        return CMQC.MQRC_SOURCE_CCSID_ERROR, f"is in CCSID {ccsid}, which has no code page here"
    if decode_text(payload, ccsid, encoding) is None:
        return CMQC.MQRC_NOT_CONVERTED, f"has bytes that are not valid in its CCSID {ccsid}"
    return None


def _text(value: str | bytes) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return value.rstrip("\0 ").strip()


def open_consumer(ibmmq: Any, qmgr: Any, queue: str, **settings: Any) -> Consumer:
    """A Consumer of `queue` (`settings`: Consumer's keyword arguments) that owns the
    connection `qmgr` from then on; when it cannot be made (the queue does not open: 2085,
    2035, a bad selector) the connection is disconnected before the error goes on."""
    return hand_over(ibmmq, qmgr, lambda qmgr: Consumer(ibmmq, qmgr, queue, **settings))


class Consumer:
    """One connection to one queue; see the module docstring. Made by `open_consumer`."""

    def __init__(self, ibmmq: Any, qmgr: Any, queue: str, *, selector: str | None = None,
                 syncpoint: bool = True, read_ahead: bool = False,
                 backout_threshold: int | None = None, backout_queue: str | None = None,
                 dead_letter_queue: str | None = None, conversion: tuple[int, int] | None = None,
                 typed_properties: bool = False, require_text: bool = False) -> None:
        self.ibmmq, self.qmgr, self.queue_name = ibmmq, qmgr, queue
        self.conversion = conversion
        self.syncpoint = syncpoint
        self.read_ahead = read_ahead and not syncpoint
        CMQC = ibmmq.CMQC
        self._convert = CMQC.MQGMO_CONVERT if conversion is not None else 0
        self._queue = self._open(selector, read_ahead=self.read_ahead)
        self._by_id: Any | None = None  # a second handle: gets by id and reference data, same unit of work
        self._handle = ibmmq.MessageHandle(qmgr)
        self._typed = TypedReader(ibmmq, qmgr, self._handle) if typed_properties else None
        self._reason = 0   # the last get's conversion warning
        self._buffer = _FIRST_BUFFER
        self.max_uow = self._inquire_max_uow()
        threshold, boq = self._inquire_backout()
        self.backout_threshold = threshold if backout_threshold is None else backout_threshold
        self._poison: PoisonMover | None = None
        if self.syncpoint and self.backout_threshold > 0:
            self._poison = PoisonMover(ibmmq, qmgr, queue, backout_queue or boq or None,
                                       dead_letter_queue)
        self.poison_moved = 0
        self._not_text: PoisonMover | None = None
        if require_text and self.syncpoint:
            self._not_text = self._poison or PoisonMover(ibmmq, qmgr, queue, backout_queue or boq or None,
                                                         dead_letter_queue)
        self.not_text_moved = 0          # committed
        self._not_text_open = 0          # moved in the open unit of work
        self.open_operations = 0   # MQ operations in the open unit of work
        options = CMQC.MQGMO_FAIL_IF_QUIESCING | CMQC.MQGMO_PROPERTIES_IN_HANDLE | self._convert
        options |= CMQC.MQGMO_SYNCPOINT if syncpoint else CMQC.MQGMO_NO_SYNCPOINT
        if not self.read_ahead:
            options |= (CMQC.MQGMO_COMPLETE_MSG | CMQC.MQGMO_ALL_MSGS_AVAILABLE
                        | CMQC.MQGMO_LOGICAL_ORDER)
        self._batch_options = options
        self._md = ibmmq.MD()
        self._gmo = ibmmq.GMO()
        self._gmo.MatchOptions = CMQC.MQMO_NONE
        self._gmo.MsgHandle = self._handle.msg_handle
        self._get_action = f"getting a message from {queue}"
        raw = RawGetter(ibmmq, qmgr, self._queue, options, self._handle.msg_handle, conversion)
        self._raw: RawGetter | None = raw if raw.available else None
        self._inqmp: Any = getattr(getattr(ibmmq, "ibmmqc", None), "MQINQMP", None)
        impo = ibmmq.IMPO()
        impo.Options = CMQC.MQIMPO_INQ_FIRST | CMQC.MQIMPO_CONVERT_VALUE
        self._impo_first, self._pd = impo.pack(), ibmmq.PD().pack()

    # --- setup --------------------------------------------------------------------------
    def _open(self, selector: str | None, read_ahead: bool) -> Any:
        CMQC = self.ibmmq.CMQC
        options = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE | CMQC.MQOO_FAIL_IF_QUIESCING
        if read_ahead:
            options |= CMQC.MQOO_READ_AHEAD
        return open_queue(self.ibmmq, self.qmgr, self.queue_name, options, selector)

    def _inquire_max_uow(self) -> int:
        try:
            return int(self.qmgr.inquire(self.ibmmq.CMQC.MQIA_MAX_UNCOMMITTED_MSGS))
        except self.ibmmq.MQMIError:
            return 10000  # MQ's default MAXUMSGS

    def _inquire_backout(self) -> tuple[int, str]:
        CMQC = self.ibmmq.CMQC
        try:
            threshold = int(self._queue.inquire(CMQC.MQIA_BACKOUT_THRESHOLD))
            boq = _text(self._queue.inquire(CMQC.MQCA_BACKOUT_REQ_Q_NAME))
        except self.ibmmq.MQMIError as exc:
            raise describe(exc, f"inquiring BOTHRESH/BOQNAME of {self.queue_name}") from exc
        return threshold, boq

    def _id_handle(self) -> Any:
        if self._by_id is None:
            ibmmq, CMQC = self.ibmmq, self.ibmmq.CMQC
            try:
                self._by_id = ibmmq.Queue(self.qmgr, self.queue_name,
                                          CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_FAIL_IF_QUIESCING)
            except ibmmq.MQMIError as exc:
                raise open_refused(exc, self.qmgr, self.queue_name, CMQC.MQOO_INPUT_SHARED,
                                   f"opening queue {self.queue_name!r} for input") from exc
        return self._by_id

    # --- queries ------------------------------------------------------------------------
    def depth(self) -> int:
        """CURDEPTH: messages on the queue, excluding ones gotten in open units of work."""
        try:
            return int(self._queue.inquire(self.ibmmq.CMQC.MQIA_CURRENT_Q_DEPTH))
        except self.ibmmq.MQMIError as exc:
            raise describe(exc, f"inquiring the depth of {self.queue_name}") from exc

    # --- batches ------------------------------------------------------------------------
    def get_batch(self, max_messages: int, max_bytes: int, wait_ms: int = 0) -> list[Message]:
        """Up to max_messages / max_bytes (at least one message if any arrives in wait_ms).

        Under syncpoint the unit of work is left open. A group is never split across
        batches, so a batch may pass the limits by the rest of one group."""
        batch: list[Message] = []
        size = 0
        in_group = False
        wait = wait_ms
        max_ops = messages_per_unit_of_work(self.max_uow) if self.syncpoint else None
        while in_group or (len(batch) < max_messages and size < max_bytes
                           and (max_ops is None or self.open_operations < max_ops)):
            got = self._get_next(wait)
            wait = 0
            if got is None:
                break
            message, group_status = got
            in_group = group_status == self.ibmmq.CMQC.MQGS_MSG_IN_GROUP
            if message is not None:
                batch.append(message)
                size += len(message.payload)
        return batch

    def _get_next(self, wait_ms: int) -> tuple[Message | None, int] | None:
        """(message or None when it was poison, group status) or None when the queue is empty."""
        if self._raw is not None:
            return self._get_next_raw(self._raw, wait_ms)
        CMQC = self.ibmmq.CMQC
        # one MD and GMO for every batch get: with MQMO_NONE none of their input fields
        # select the message, and building them per call costs more than the get itself
        md, gmo = self._md, self._gmo
        gmo.Options = self._batch_options | (CMQC.MQGMO_WAIT if wait_ms > 0 else CMQC.MQGMO_NO_WAIT)
        gmo.WaitInterval = wait_ms
        payload = self._get(self._queue, md, gmo, self._get_action)
        if payload is None:
            return None
        self.open_operations += 1
        group_status = gmo.GroupStatus
        if self._poison is not None and md.BackoutCount >= self.backout_threshold:
            self._move_poison(self._poison, payload, md)
            return None, group_status
        if self._not_text is not None and self._refused(payload, md.Format, md.CodedCharSetId,
                                                        md.Encoding, md):
            return None, group_status
        properties, types = self._read_properties()
        if md.Format == REFERENCE_FORMAT:
            return self._with_data(md, properties, types), group_status
        return Message(payload, md_values(md), properties, self._record(md), self._reason,
                       types), group_status

    def _get_next_raw(self, raw: RawGetter, wait_ms: int) -> tuple[Message | None, int] | None:
        """_get_next over RawGetter: the same steps, without building ibmmq structures for
        the common message (poison and reference messages still get a full MD)."""
        while True:
            payload, md, md_bytes, extra, reason = raw.get(self._buffer, wait_ms)
            if payload is not None:
                assert md is not None   # RawGetter.get: a payload comes with its MD
                break
            if reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                return None
            if reason == CMQC.MQRC_TRUNCATED_MSG_FAILED and extra:
                self._buffer = max(self._buffer * 2, int(extra) + 1024)  # it stayed: again
                continue
            raise describe(self.ibmmq.MQMIError(CMQC.MQCC_FAILED, reason), self._get_action)
        self.open_operations += 1
        group_status = extra
        if self._poison is not None and md[_BACKOUT] >= self.backout_threshold:
            self._move_poison(self._poison, payload, self.ibmmq.MD().unpack(md_bytes))
            return None, group_status
        if self._not_text is not None and self._refused(payload, md[_FORMAT], md[_CCSID], md[_ENCODING],
                                                        md_bytes):
            return None, group_status
        self._reason = reason
        properties, types = self._properties()
        if md[_FORMAT] == REFERENCE_FORMAT:
            return self._with_data(self.ibmmq.MD().unpack(md_bytes), properties, types), group_status
        if md[_GROUP] != NO_ID:
            record = records.grouped(md[_GROUP], md[_SEQ])
        else:
            record = records.plain(md[_MSGID])
        return Message(payload, md, properties, record, reason, types), group_status

    def _read_properties(self) -> tuple[dict[str, Any], dict[str, str] | None]:
        """The handle's properties, and their MQ types when this consumer reads them typed."""
        if self._typed is not None:
            return self._typed.read()
        return read_all(self._handle, self.ibmmq), None

    def _properties(self) -> tuple[dict[str, Any], dict[str, str] | None]:
        """The message handle's properties; one MQINQMP when there are none."""
        if self._inqmp is not None:
            reply = self._inqmp(self.qmgr.get_handle(), self._handle.msg_handle, self._impo_first,
                                b"%", self._pd, self.ibmmq.CMQC.MQTYPE_AS_SET, 1024)
            if reply[-1] == CMQC.MQRC_PROPERTY_NOT_AVAILABLE:
                return {}, ({} if self._typed is not None else None)
        return self._read_properties()

    def _get(self, queue: Any, md: Any, gmo: Any, action: str, convert: bool = True) -> bytes | None:
        """Payload, or None on 2033; grows the buffer and retries on a truncated message.
        Converts when this consumer does (the reason of a warning in self._reason), except
        with convert=False: a reference message's data message is binary (SPKMQDAT)."""
        if self.conversion is not None and convert:
            md.CodedCharSetId, md.Encoding = self.conversion
            gmo.Options |= CMQC.MQGMO_CONVERT
        payload, self._buffer, self._reason = get_converted(self.ibmmq, queue, self._buffer, md,
                                                            gmo, action)
        return payload

    def _record(self, md: Any) -> bytes:
        if md.GroupId != NO_ID:
            return records.grouped(md.GroupId, md.MsgSeqNumber)
        return records.plain(md.MsgId)

    def _with_data(self, md: Any, properties: dict[str, Any],
                   types: dict[str, str] | None = None) -> Message:
        """The reference message `md` and its data message, as one message."""
        group_id = properties.pop(DATA_GROUP_PROPERTY, None)
        properties.pop(DATA_LENGTH_PROPERTY, None)
        for name in (DATA_GROUP_PROPERTY, DATA_LENGTH_PROPERTY):
            (types or {}).pop(name, None)
        if not isinstance(group_id, (bytes, bytearray)) or len(group_id) != 24:
            log.warning("reference message %r on %s has no valid %s property; delivered as is",
                        md.MsgId, self.queue_name, DATA_GROUP_PROPERTY)
            return Message(b"", md_values(md), properties, self._record(md), 0, types)
        reason = self._reason
        payload = self._get_data(bytes(group_id))
        if payload is None:
            raise self._missing_data(md, group_id)
        return Message(payload, md_values(md), properties, records.reference(md.MsgId, bytes(group_id)),
                       reason, types)

    def _get_data(self, group_id: bytes) -> bytes | None:
        ibmmq, CMQC = self.ibmmq, self.ibmmq.CMQC
        md = ibmmq.MD()
        md.GroupId = group_id
        md.MsgSeqNumber = 1
        gmo = ibmmq.GMO()
        gmo.Options = (CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_COMPLETE_MSG | CMQC.MQGMO_FAIL_IF_QUIESCING
                       | CMQC.MQGMO_NO_PROPERTIES
                       | (CMQC.MQGMO_SYNCPOINT if self.syncpoint else CMQC.MQGMO_NO_SYNCPOINT))
        gmo.MatchOptions = CMQC.MQMO_MATCH_GROUP_ID | CMQC.MQMO_MATCH_MSG_SEQ_NUMBER
        payload = self._get(self._id_handle(), md, gmo, f"getting the data message of a reference "
                                                        f"message from {self.queue_name}", convert=False)
        if payload is not None:
            self.open_operations += 2
        return payload

    def _missing_data(self, md: Any, group_id: bytes | bytearray) -> MQConnectorError:
        return MQConnectorError(
            f"reference message {md.MsgId.hex()} on {self.queue_name} names data group "
            f"{bytes(group_id).hex()}, but no complete data message with that GroupId is on the "
            "queue (the writer puts both in one unit of work)")

    def _refused(self, payload: bytes, fmt: bytes, ccsid: int, encoding: int, md: Any) -> bool:
        """requireText: move the message just gotten when it is not text; True when moved.
        `md`: its MD, or the packed MD bytes of the raw path (unpacked only for a move)."""
        refusal = text_refusal(payload, fmt, ccsid, encoding)
        if refusal is None:
            return False
        assert self._not_text is not None
        if isinstance(md, bytes):
            md = self.ibmmq.MD().unpack(md)
        reason, why = refusal
        self._move_poison(self._not_text, payload, md, reason, why)
        self._not_text_open += 1
        return True

    @property
    def not_text_open(self) -> int:
        """requireText: moves in the open unit of work (committed with it, or backed out)."""
        return self._not_text_open

    @property
    def not_text_destination(self) -> str | None:
        """Where requireText moves a message that is not text (None: nowhere, or not asked)."""
        return self._not_text.destination if self._not_text is not None else None

    def _move_poison(self, poison: PoisonMover, payload: bytes, md: Any, reason: int = 0,
                     why: str = "") -> None:
        is_reference = md.Format == REFERENCE_FORMAT
        msg_id, backout_count = md.MsgId, md.BackoutCount
        where = poison.move(payload, md, self._handle, reason, why)   # may rewrite md.Format (MQDLH)
        self.open_operations += 1
        if is_reference:
            # its data message goes with it, so that the pair stays together
            group_id = read_all(self._handle, self.ibmmq).get(DATA_GROUP_PROPERTY)
            if isinstance(group_id, (bytes, bytearray)):
                data_md = self.ibmmq.MD()
                data = self._get_data_md(bytes(group_id), data_md)
                if data is not None:
                    poison.move(data, data_md, None, reason, why)
        if reason:
            # the progress counts them (notTextMessagesMoved): one line each would flood a log
            log.info("message %s on %s %s (MQ reason %d): moved to %s with an MQDLH naming it",
                        msg_id.hex(), self.queue_name, why, reason, where)
            return
        self.poison_moved += 1
        log.warning("poison message %s (BackoutCount %d >= %d) moved from %s to %s",
                    msg_id.hex(), backout_count, self.backout_threshold, self.queue_name, where)

    def _get_data_md(self, group_id: bytes, md: Any) -> bytes | None:
        ibmmq, CMQC = self.ibmmq, self.ibmmq.CMQC
        md.GroupId = group_id
        md.MsgSeqNumber = 1
        gmo = ibmmq.GMO()
        gmo.Options = (CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_COMPLETE_MSG | CMQC.MQGMO_SYNCPOINT
                       | CMQC.MQGMO_NO_PROPERTIES | CMQC.MQGMO_FAIL_IF_QUIESCING)
        gmo.MatchOptions = CMQC.MQMO_MATCH_GROUP_ID | CMQC.MQMO_MATCH_MSG_SEQ_NUMBER
        return self._get(self._id_handle(), md, gmo, "getting the data message of a poison message",
                         convert=False)

    # --- by id: replay and removal ------------------------------------------------------
    def get_records(self, wanted: list[bytes], wait_s: float = 5.0) -> tuple[list[Message], int]:
        """The messages these records name, gotten under syncpoint (Spark replays a batch).

        Returns (messages in record order, how many could not be found). A message of a batch
        being replayed is normally back on the queue (its unit of work was backed out when
        the old driver died); the broken connection may take a moment to be noticed, so
        missing ones are asked for again until wait_s has passed."""
        found: dict[bytes, Message] = {}
        deadline = time.monotonic() + wait_s
        while True:
            for record in wanted:
                if record not in found:
                    message = self._get_record(record)
                    if message is not None:
                        found[record] = message
            if len(found) == len(set(wanted)) or time.monotonic() >= deadline:
                break
            time.sleep(0.2)
        messages = [found[r] for r in wanted if r in found]
        return messages, len(set(wanted)) - len(found)

    def remove_records(self, wanted: list[bytes]) -> int:
        """Get (under syncpoint) whichever of these messages are still on the queue."""
        removed = 0
        for record in wanted:
            if self._get_record(record) is not None:
                removed += 1
        return removed

    def _get_record(self, record: bytes) -> Message | None:
        ibmmq, CMQC = self.ibmmq, self.ibmmq.CMQC
        tag, msg_id, group_id, seq = records.parse(record)
        md = ibmmq.MD()
        gmo = ibmmq.GMO()
        gmo.Options = (CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING
                       | CMQC.MQGMO_PROPERTIES_IN_HANDLE
                       | (CMQC.MQGMO_SYNCPOINT if self.syncpoint else CMQC.MQGMO_NO_SYNCPOINT))
        gmo.MsgHandle = self._handle.msg_handle
        if tag == records.GROUPED:
            md.GroupId, md.MsgSeqNumber = group_id, seq
            gmo.Options |= CMQC.MQGMO_COMPLETE_MSG
            gmo.MatchOptions = CMQC.MQMO_MATCH_GROUP_ID | CMQC.MQMO_MATCH_MSG_SEQ_NUMBER
        else:
            md.MsgId = msg_id
            gmo.MatchOptions = CMQC.MQMO_MATCH_MSG_ID
        payload = self._get(self._id_handle(), md, gmo, f"getting message {record.hex()} again "
                                                        f"from {self.queue_name}")
        if payload is None:
            return None
        self.open_operations += 1
        reason = self._reason
        properties, types = self._read_properties()
        if tag == records.REFERENCE:
            for name in (DATA_GROUP_PROPERTY, DATA_LENGTH_PROPERTY):
                properties.pop(name, None)
                (types or {}).pop(name, None)
            data = self._get_data(group_id)
            payload = data if data is not None else b""
        return Message(payload, md_values(md), properties, record, reason, types)

    # --- units of work ------------------------------------------------------------------
    def commit(self) -> None:
        try:
            self.qmgr.commit()
        except self.ibmmq.MQMIError as exc:
            raise describe(exc, f"committing the gets from {self.queue_name}") from exc
        self.open_operations = 0
        self.not_text_moved += self._not_text_open
        self._not_text_open = 0

    def backout(self) -> None:
        try:
            self.qmgr.backout()
        except self.ibmmq.MQMIError as exc:
            raise describe(exc, f"backing out the gets from {self.queue_name}") from exc
        self.open_operations = 0
        self._not_text_open = 0

    def close(self) -> None:
        """Back out whatever is open, then disconnect (MQDISC alone would commit it)."""
        ibmmq = self.ibmmq
        quietly(ibmmq, f"backing out the gets from {self.queue_name}", self.qmgr.backout)
        for queue in (self._queue, self._by_id):
            if queue is not None:
                quietly(ibmmq, f"closing {self.queue_name}", queue.close)
        self._not_text_open = 0
        for mover in (self._poison, self._not_text):
            if mover is not None:
                mover.close()
        disconnect_quietly(ibmmq, self.qmgr)
