"""Report messages, as IBM MQ's queue manager and message channel agents generate them (IBM
docs: "Report (MQLONG)", "Types of report message", "Feedback (MQLONG)").

When: confirm on arrival (COA) when a message is placed on its destination queue (a put
outside syncpoint, the commit of one under syncpoint, a receiver MCA's batch commit; not a
transmission queue: a message for another queue manager arrives there); confirm on delivery
(COD) when an application gets it destructively (on commit in a unit of work). COA and COD
reports are stored in the same store transaction as the put, get or commit they report on
(`of_unit_of_work`, then `released`), inside syncpoint or not: a queue manager killed after
that write has them, once, after its restart, and one killed before it has neither. Expiration
when a get or browse comes across it expired and discards it (core/message_matching.py), stored
the same way in the write that deletes the expired message (`expired`, verbs/get.py);
exception when a receiving MCA cannot deliver it, or a sending MCA cannot send it (longer than
the channel's MAXMSGL): dead-lettered, or discarded when the message says MQRO_DISCARD_MSG
(message_channels/receiver.py, sender.py), the report put in the batch's unit of work. PAN
and NAN are the applications' to send: the queue manager never generates them.

What: a new message, MsgType MQMT_REPORT, Feedback MQFB_COA / MQFB_COD / MQFB_EXPIRATION or
the exception's reason code; MsgId new unless MQRO_PASS_MSG_ID; CorrelId the original's
MsgId unless MQRO_PASS_CORREL_ID (then its CorrelId); Report MQRO_NONE and no expiry, unless
MQRO_PASS_DISCARD_AND_EXPIRY passes MQRO_DISCARD_MSG and what is left of the expiry (none
is left of an expired message's: its expiration report does not expire); the original's
Priority, Persistence, Format, Encoding, CCSID, group and segment fields and
identity context; origin context of the queue manager (PutApplType MQAT_QMGR, PutApplName
the queue manager's name, or the MCA's); ReplyToQ blank, ReplyToQMgr this queue manager;
data none, the first 100 bytes (_WITH_DATA) or all of it (_WITH_FULL_DATA); OriginalLength
the length of the data the report is about. Segments are reported on one by one (COA always;
the report has the segment's GroupId, Offset, flags and data), except that a get with
MQGMO_COMPLETE_MSG sends one COD report for the whole message (IBM docs, "Reports and
segmented messages": "only one case in which you can expect to receive a single report for
the entire message").

Where: the original's ReplyToQ at its ReplyToQMgr, resolved as any put (a remote ReplyToQMgr
goes through its transmission queue), put by the queue manager (mqm, with
MQPMO_SET_ALL_CONTEXT) with MQPMO_ALTERNATE_USER_AUTHORITY for the original's UserIdentifier:
that user needs +put on the reply queue (or the remote queue manager's rqmname profile).
IBM documents this check of the user context for COD and expiration reports ("Message
context": "Where the user context has insufficient authority, the report message is placed
on the dead-letter queue"); here every report gets it, so that no report carries a user's
data where that user may not put (an initiation queue, the command queue). A report an MCA
causes for a message it delivered (COA, exception) is also checked for its MCA user (+put,
+setall, as PUTAUT(DEF) asks of its puts): a channel partner's UserIdentifier is only what
the partner sent. A blank
UserIdentifier (MQPMO_NO_CONTEXT) has no authority on a queue manager with users. A report
that cannot be put there goes to the dead-letter queue behind an MQDLH naming the reason
(MQRC_NOT_AUTHORIZED included), put with the queue manager's own authority; without one (or
when that put fails too) it is lost, logged. A report never asks for a report, so a report
that is itself undeliverable generates nothing more.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from spark_mq.embedded.server.core.dead_letter_header import dead_letter_header, dead_letter_md
from spark_mq.embedded.server.core.md_context import put_stamp
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.queue_objects import I_FLAGS, I_OFFSET, SEGMENT_FLAGS, Message
from spark_mq.embedded.server.core.state import Connection, QueueManagerState, blank
from spark_mq.embedded.server.core.store import StoreError
from spark_mq.embedded.server.resolution.transmission import unwrap
from spark_mq.embedded.server.triggering import hook as triggering
from spark_mq.embedded.server.verbs.handles import open_handle, release
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import MD

log = logging.getLogger("spark_mq.embedded")

_I = MD.index
#: how much of the original's data a report carries, per kind: (none, 100 bytes, all) bits
_COA = (CMQC.MQRO_COA, CMQC.MQRO_COA_WITH_DATA, CMQC.MQRO_COA_WITH_FULL_DATA)
_COD = (CMQC.MQRO_COD, CMQC.MQRO_COD_WITH_DATA, CMQC.MQRO_COD_WITH_FULL_DATA)
_EXPIRATION = (CMQC.MQRO_EXPIRATION, CMQC.MQRO_EXPIRATION_WITH_DATA,
               CMQC.MQRO_EXPIRATION_WITH_FULL_DATA)
_EXCEPTION = (CMQC.MQRO_EXCEPTION, CMQC.MQRO_EXCEPTION_WITH_DATA,
              CMQC.MQRO_EXCEPTION_WITH_FULL_DATA)
#: the data a _WITH_DATA report carries
WITH_DATA_LENGTH = 100
#: the user reports are put as: the queue manager's own
_QMGR_USER = "mqm"
_PUT_OPTIONS = CMQC.MQPMO_SET_ALL_CONTEXT | CMQC.MQPMO_FAIL_IF_QUIESCING


#: MQPUT1 (verbs/put.py's put1), which each caller hands in: put.py sends COA reports, so
#: this module cannot import it (the server's modules form no import cycle)
PutOne = Callable[[QueueManagerState, Connection, str, bytes, int, int, "list | None", bytes,
                   str, str], bytes]


class Report(NamedTuple):
    """A report message and where it goes (the original's ReplyToQ at its ReplyToQMgr)."""
    md: list
    data: bytes
    queue: str
    qmgr: str


def of_unit_of_work(qm: QueueManagerState, put1: PutOne, conn: Connection,
                    puts: list[Message], gets: list[Message],
                    whole: Sequence[list[Message]] = ()) -> Connection | None:
    """The COA reports of the puts and the COD reports of the gets of `conn`'s unit of work
    that is being committed, or of its put or get outside syncpoint, put under syncpoint on a
    connection of the queue manager's, which is returned: the caller stores its puts in the
    same transaction as the work they report on (units_of_work.commit, put.py, get.py), so a
    queue manager killed after that write has lost no report, and one killed before it has
    sent none (a receiving MCA's batch and its COA reports are one); then `released` makes
    them available (or `dropped` forgets them when the write failed). None when nothing asks
    for a report."""
    coa = [message for message in puts if _asks_coa(message)]
    cod = [message for message in gets if _asks_cod(message)]
    if not coa and not cod:
        return None
    carrier = _internal(qm, conn.acts_for)
    appl_name = conn.appl_name if conn.agent else ""
    # IBM ("Reports and segmented messages"): a single COD report for the entire message
    # when it was got with MQGMO_COMPLETE_MSG; segments got one by one report one by one
    segments = {id(message) for taken in whole for message in taken}
    cod = [message for message in cod if id(message) not in segments]
    cod += [_whole(taken) for taken in whole if _asks_cod(taken[0])]
    for message in coa:
        _send_for(qm, put1, message, _COA, CMQC.MQFB_COA, appl_name, carrier, True)
    for message in cod:
        _send_for(qm, put1, message, _COD, CMQC.MQFB_COD, "", carrier, True)
    return carrier


def stored(carrier: Connection | None) -> list[Message]:
    """The persistent reports `carrier` holds: the rows the caller's store write adds."""
    return [m for m in carrier.uow_puts if m.persistent] if carrier is not None else []


def store_with(qm: QueueManagerState, carrier: Connection | None, inserts: list[Message],
               deletes: Sequence[int] = ()) -> bool:
    """One store transaction: the caller's rows and `carrier`'s persistent reports, all or
    none (a StoreError drops the reports and goes on to the caller). Returns whether there
    was anything to write."""
    inserts = inserts + stored(carrier)
    if not inserts and not deletes:
        return False
    try:
        qm.store.apply(inserts=inserts, deletes=list(deletes))
    except StoreError:
        dropped(qm, carrier)
        raise
    return True


def released(qm: QueueManagerState, carrier: Connection | None) -> None:
    """The reports `carrier` holds, stored with the work they report on, reach their queues
    (and their trigger messages appear), as a commit of the carrier's unit of work would."""
    if carrier is None or not carrier.uow_puts:
        return
    for message in carrier.uow_puts:
        queue = message.queue
        queue.pending_puts -= 1
        if qm.queues.get(queue.name) is queue:  # a queue deleted meanwhile takes nothing
            queue.insert(message)
    triggering.unit_of_work_ended(qm, carrier, committed=True)
    carrier.uow_puts, carrier.uow_gets, carrier.uow_stream_copies = [], [], 0
    qm.arrived.notify_all()


def dropped(qm: QueueManagerState, carrier: Connection | None) -> None:
    """The store write that was to carry `carrier`'s reports failed: they go with it."""
    if carrier is None:
        return
    for message in carrier.uow_puts:
        message.queue.pending_puts -= 1
    triggering.unit_of_work_ended(qm, carrier, committed=False)
    carrier.uow_puts, carrier.uow_gets, carrier.uow_stream_copies = [], [], 0


def _whole(segments: list[Message]) -> Message:
    """The logical message a MQGMO_COMPLETE_MSG get took as `segments`, as its COD reports
    on it: the first segment's descriptor without the segment flags, at Offset 0, with all
    the data (OriginalLength is its length: build)."""
    first = segments[0]
    md = list(first.md)
    md[I_FLAGS] &= ~SEGMENT_FLAGS
    md[I_OFFSET] = 0
    return Message(first.seq, md, b"".join(segment.body for segment in segments), None,
                   first.expires_at, first.queue)


def _asks_coa(message: Message) -> bool:
    return bool(message.md[_I["Report"]] & CMQC.MQRO_COA) and not message.queue.deleted \
        and message.queue.attrs.get("USAGE") != "XMITQ"


def _asks_cod(message: Message) -> bool:
    return bool(message.md[_I["Report"]] & CMQC.MQRO_COD) \
        and message.queue.attrs.get("USAGE") != "XMITQ"


def expired(qm: QueueManagerState, put1: PutOne,
            messages: Iterable[Message]) -> Connection | None:
    """Expiration reports of expired messages the queue manager is discarding; one on a
    transmission queue reports on the message behind its MQXQH. Put under syncpoint on a
    connection of the queue manager's, returned as `of_unit_of_work` returns it: the caller
    stores them in the transaction that deletes the messages, then `released`."""
    carrier = None
    for message in messages:
        md, body = list(message.md), message.body
        if md[_I["Format"]] == CMQC.MQFMT_XMIT_Q_HEADER:
            inner = unwrap(body)
            if inner is None:
                continue
            md, body = inner[2], inner[3]
        # nothing is left of the original's expiry to pass on: the report does not expire
        md[_I["Expiry"]] = CMQC.MQEI_UNLIMITED
        if md[_I["Report"]] & CMQC.MQRO_EXPIRATION:
            carrier = carrier or _internal(qm)
            send(qm, put1, carrier,
                 build(qm.name, md, body, _EXPIRATION, CMQC.MQFB_EXPIRATION), syncpoint=True)
    return carrier


def exception(qm: QueueManagerState, put1: PutOne, conn: Connection, md: list, body: bytes,
              reason: int, syncpoint: bool) -> None:
    """The exception report of a message an MCA could not deliver (`reason` why), put on
    `conn` (the MCA's) in its unit of work when `syncpoint`: a batch backed out takes its
    reports back too."""
    if md[_I["Report"]] & CMQC.MQRO_EXCEPTION:
        send(qm, put1, conn, build(qm.name, md, body, _EXCEPTION, reason, conn.appl_name),
             syncpoint)


def build(qmgr_name: str, md: list, body: bytes, kind: tuple[int, int, int], feedback: int,
          appl_name: str = "") -> Report:
    """The report of `kind` on the message `md`, `body` (see the module docstring)."""
    report = md[_I["Report"]]
    asked = report & kind[2]
    data = body if asked == kind[2] else body[:WITH_DATA_LENGTH] if asked == kind[1] else b""
    out = list(md)
    date, hms = put_stamp(int(time.time()))
    passing = bool(report & CMQC.MQRO_PASS_DISCARD_AND_EXPIRY)
    out[_I["Version"]] = CMQC.MQMD_VERSION_2
    out[_I["Report"]] = report & CMQC.MQRO_DISCARD_MSG if passing else CMQC.MQRO_NONE
    out[_I["Expiry"]] = md[_I["Expiry"]] if passing else CMQC.MQEI_UNLIMITED
    out[_I["MsgType"]] = CMQC.MQMT_REPORT
    out[_I["Feedback"]] = feedback
    out[_I["MsgId"]] = md[_I["MsgId"]] if report & CMQC.MQRO_PASS_MSG_ID else CMQC.MQMI_NONE
    out[_I["CorrelId"]] = md[_I["CorrelId"]] if report & CMQC.MQRO_PASS_CORREL_ID \
        else md[_I["MsgId"]]
    out[_I["BackoutCount"]] = 0
    out[_I["ReplyToQ"]] = blank("", 48)
    out[_I["ReplyToQMgr"]] = blank(qmgr_name, 48)
    out[_I["PutApplType"]] = CMQC.MQAT_QMGR
    out[_I["PutApplName"]] = blank(appl_name or qmgr_name, 28)
    out[_I["PutDate"]], out[_I["PutTime"]] = date, hms + b"00"
    out[_I["ApplOriginData"]] = blank("", 4)
    out[_I["OriginalLength"]] = len(body)
    return Report(out, data, _field(md[_I["ReplyToQ"]]), _field(md[_I["ReplyToQMgr"]]))


def send(qm: QueueManagerState, put1: PutOne, conn: Connection, report: Report,
         syncpoint: bool) -> bool:
    """Put a report where the original's ReplyToQ and ReplyToQMgr say, else on the
    dead-letter queue; False, logged, when it is lost."""
    reply_q, reply_qmgr = report.queue, report.qmgr
    md, data = report.md, report.data
    options = _PUT_OPTIONS | (CMQC.MQPMO_SYNCPOINT if syncpoint else CMQC.MQPMO_NO_SYNCPOINT)
    # checked for the original's user (the report's UserIdentifier), as if it put the report
    # itself: a report must not carry its data where that user may not put (an initiation
    # queue, the command queue, another user's queue)
    user = _field(md[_I["UserIdentifier"]])
    with qm.lock:
        try:
            _check_mca_user(qm, conn, reply_q, reply_qmgr)
            put1(qm, conn, reply_q, MD.pack(md), options | CMQC.MQPMO_ALTERNATE_USER_AUTHORITY,
                 0, None, data, user, reply_qmgr)
            return True
        except MQError as exc:
            reason = exc.reason
        dead_letter_queue = str(qm.attrs.get("DEADQ", "")).strip()
        if dead_letter_queue:
            try:
                put1(qm, conn, dead_letter_queue, MD.pack(dead_letter_md(md)), options, 0, None,
                     dead_letter_header(qm.name, md, reason, reply_q, reply_qmgr or qm.name)
                     + data,
                     "", "")
                log.warning("AMQ9544W: a report message for %s at %s could not be put there "
                            "(reason %d) and went to the dead-letter queue %s", reply_q,
                            reply_qmgr or qm.name, reason, dead_letter_queue)
                return True
            except MQError as dlq_failure:
                why = f"nor on the dead-letter queue {dead_letter_queue} " \
                      f"(reason {dlq_failure.reason})"
        else:
            why = "and the queue manager has no dead-letter queue (DEADQ is blank)"
    log.error("a report message (feedback %d) for %s at %s could not be put there (reason %d) "
              "%s: it is discarded", md[_I["Feedback"]], reply_q, reply_qmgr or qm.name, reason,
              why)
    return False


def _send_for(qm: QueueManagerState, put1: PutOne, message: Message,
              kind: tuple[int, int, int], feedback: int, appl_name: str,
              carrier: Connection, syncpoint: bool = False) -> None:
    """Send `message`'s report on `carrier`, in its unit of work when `syncpoint`."""
    md = message.md
    if message.expires_at is not None:   # MQRO_PASS_DISCARD_AND_EXPIRY passes what is left
        md = list(md)
        md[_I["Expiry"]] = max(1, int((message.expires_at - time.time()) * 10))
    send(qm, put1, carrier, build(qm.name, md, message.body, kind, feedback, appl_name),
         syncpoint=syncpoint)


def _internal(qm: QueueManagerState, acts_for: str = "") -> Connection:
    """The queue manager's own connection a report is put on (not listed: it holds nothing
    once the put is done)."""
    return Connection(next(qm.conn_ids), _QMGR_USER, qm.name, agent=True, acts_for=acts_for)


def _check_mca_user(qm: QueueManagerState, conn: Connection, queue: str, qmgr: str) -> None:
    """An MCA user may put the report where it could put a message it delivers (+put and
    +setall, as PUTAUT(DEF) asks of it): MQError when not. A partner's UserIdentifier is only
    what the partner sent, so it alone must not vouch for a report."""
    if not conn.acts_for:
        return
    probe = Connection(next(qm.conn_ids), conn.acts_for, qm.name, agent=True)
    handle = open_handle(qm, probe, CMQC.MQOT_Q, queue,
                         CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT, None, None, "", qmgr)
    release(qm, handle)


def _field(value: bytes) -> str:
    return value.split(b"\0", 1)[0].decode(errors="replace").strip()

