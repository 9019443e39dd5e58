"""Putting messages: asynchronous puts under syncpoint, checked with MQSTAT before each commit.

One `Producer` per connection: it caches an open handle per target queue (rows may route to
many queues), packs each MQMD from a template and the MQPMOs once (packing the MQI
structures is the Python layer's main cost, see packed_put.py), reuses one message handle
for every put, and chooses per message between a plain put, queue-manager segmentation (no
properties, payload past MAXMSGL) and the reference/data pattern (properties and a large
payload, see large_messages.py).

Cluster queues: every queue handle is opened with the writer's `bind` (MQOO_BIND_*). Under a
bind that may spread puts over the instances (asQueueDef on a DEFBIND(NOTFIXED) queue,
notFixed, group: the writer's puts carry no MQPMO_LOGICAL_ORDER, so ON_GROUP chooses per put
too), messages that are read as one would be torn apart: a reference/data pair, and rows that
carry a `group_id`. Those go through a second handle on the same queue opened
MQOO_BIND_ON_OPEN, so each stays whole on one instance. A message the queue manager segments
is one MQPUT, whose segments go where that put goes.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from spark_mq.mq import jms
from spark_mq.mq.exceptions import MQConnectorError, describe
from spark_mq.mq.large_messages import DATA_FORMAT, REFERENCE_FORMAT, new_group_id, reference_properties
from spark_mq.mq.outgoing import Outgoing, RowValueError, property_size
from spark_mq.mq.packed_put import PackedPut
from spark_mq.mq.properties import PropertyValueError, to_mq
from spark_mq.mq.refusals import open_refused
from spark_mq.mqi.codepages import QMGR_CCSID, UTF8
from spark_mq.mqi.constants import CMQC

_RFH2_ROOM = 1024   # bytes kept free for the MQRFH2 header when properties travel with a body


@dataclass(frozen=True)
class ProducerSettings:
    async_put: bool = True
    persistence: str = "persistent"        # persistent | nonPersistent | asQueueDef
    segmentation: bool = True
    large_message_threshold: int = 4 * 1024 * 1024
    context: str = "none"                  # none | identity | all: MQMD context from columns
    retain: bool = False                   # publications: MQPMO_RETAIN
    # context=all (a faithful copy): the MsgId comes from the row, so no MQPMO_NEW_MSG_ID; a
    # row without one puts MQMI_NONE and the queue manager makes a new id as it would
    keep_msg_id: bool = False
    bind: str = "asQueueDef"               # asQueueDef | open | notFixed | group: MQOO_BIND_*


#: an open with MQOO_INQUIRE refused for these: open again without it
_NO_INQUIRE = (CMQC.MQRC_NOT_AUTHORIZED, CMQC.MQRC_NOT_OPEN_FOR_INQUIRE,
               CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)


@dataclass
class Target:
    """An open output handle on one queue (or topic) and the largest message it takes."""
    name: str
    queue: Any
    max_length: int
    topic: bool = False     # a topic string: puts publish (MQOPEN of MQOT_TOPIC)
    qmgr_name: str = ""     # MQOD.ObjectQMgrName: a queue on another queue manager

    @property
    def label(self) -> str:
        if self.topic:
            return f"topic {self.name!r}"
        return f"queue {self.name!r}" + (f" at queue manager {self.qmgr_name!r}"
                                         if self.qmgr_name else "")

    @property
    def hobj(self) -> int:
        handle: int = self.queue.get_handle()
        return handle


def _put_date_time() -> dict[str, bytes]:
    """PutDate and PutTime (GMT) as the queue manager would set them."""
    now = time.time()
    stamp = time.gmtime(now)
    return {"PutDate": time.strftime("%Y%m%d", stamp).encode(),
            "PutTime": (time.strftime("%H%M%S", stamp) + f"{int(now * 100) % 100:02d}").encode()}


class AsyncPutError(MQConnectorError):
    """An asynchronous put failed; MQSTAT reported it before the commit."""


def queue_manager_limits(qmgr: Any, ibmmq: Any) -> tuple[int, int]:
    """(MAXUMSGS, MAXMSGL) of the queue manager."""
    C = ibmmq.CMQC
    try:
        values = qmgr.inquire([C.MQIA_MAX_UNCOMMITTED_MSGS, C.MQIA_MAX_MSG_LENGTH])
    except ibmmq.MQMIError as exc:
        raise describe(exc, "inquiring the queue manager's MAXUMSGS and MAXMSGL") from exc
    return int(values[C.MQIA_MAX_UNCOMMITTED_MSGS]), int(values[C.MQIA_MAX_MSG_LENGTH])


class Producer:
    def __init__(self, qmgr: Any, ibmmq: Any, settings: ProducerSettings, qmgr_max_length: int) -> None:
        self.qmgr, self.ibmmq, self.settings = qmgr, ibmmq, settings
        C = self.C = ibmmq.CMQC
        self.qmgr_max_length = qmgr_max_length
        self.targets: dict[tuple[bool, str, str], Target] = {}   # (is a topic, name, qmgr)
        self.fixed_targets: dict[tuple[str, str], Target] = {}   # (name, qmgr): BIND_ON_OPEN
        self.persistence = {"persistent": C.MQPER_PERSISTENT, "nonPersistent": C.MQPER_NOT_PERSISTENT,
                            "asQueueDef": C.MQPER_PERSISTENCE_AS_Q_DEF}[settings.persistence]
        response = C.MQPMO_ASYNC_RESPONSE if settings.async_put else C.MQPMO_SYNC_RESPONSE
        options = C.MQPMO_SYNCPOINT | C.MQPMO_FAIL_IF_QUIESCING | response
        if not settings.keep_msg_id:
            options |= C.MQPMO_NEW_MSG_ID
        # setting context needs both the open option and the put option (MQ's rule)
        self.context_open, context_put = {
            "none": (0, 0),
            "identity": (C.MQOO_SET_IDENTITY_CONTEXT, C.MQPMO_SET_IDENTITY_CONTEXT),
            "all": (C.MQOO_SET_ALL_CONTEXT, C.MQPMO_SET_ALL_CONTEXT)}[settings.context]
        options |= context_put
        self.bind_open = {"asQueueDef": C.MQOO_BIND_AS_Q_DEF, "open": C.MQOO_BIND_ON_OPEN,
                          "notFixed": C.MQOO_BIND_NOT_FIXED,
                          "group": C.MQOO_BIND_ON_GROUP}[settings.bind]
        # one MQPMO per (the put carries the message handle, which exists from the first
        # property on; the put retains: MQPMO_RETAIN, topic puts only)
        self.retain = bool(settings.retain)
        self._pmos: dict[tuple[bool, bool], Any] = {
            (handle, retain): ibmmq.PMO(Options=options | (C.MQPMO_RETAIN if retain else 0))
            for handle in (False, True) for retain in (False, True)}
        # the MQMD packed from a template and the MQPMOs packed once (see packed_put.py)
        self.packed = PackedPut.create(ibmmq)
        self.hconn = qmgr.get_handle()
        self._pmo_bytes: dict[tuple[bool, bool], bytes] = {
            key: pmo.pack() for key, pmo in self._pmos.items() if not key[0]}
        self._handle: Any | None = None
        self._handle_names: set[str] = set()
        self._names: dict[str, bytes] = {}     # property name -> its UTF-8 bytes
        self.async_puts = 0          # asynchronous puts since the last MQSTAT

    # --- targets -----------------------------------------------------------------------
    def target(self, name: str, qmgr_name: str = "") -> Target:
        """An output handle on queue `name` (at `qmgr_name`, through name resolution)."""
        target = self.targets.get((False, name, qmgr_name))
        if target is None:
            target = self.targets[(False, name, qmgr_name)] = self._open(name, qmgr_name,
                                                                         self.bind_open)
        return target

    def _kept_together(self, out: Outgoing, target: Target) -> Target:
        """The handle for a message that must not be spread over a cluster queue's instances
        (see the module docstring): `target`, or its MQOO_BIND_ON_OPEN twin."""
        if (target.topic or self.bind_open == self.C.MQOO_BIND_ON_OPEN
                or (out.group_id is None and not self.uses_reference(out, target))):
            return target
        key = (target.name, target.qmgr_name)
        fixed = self.fixed_targets.get(key)
        if fixed is None:
            fixed = self.fixed_targets[key] = self._open(target.name, target.qmgr_name,
                                                         self.C.MQOO_BIND_ON_OPEN)
        return fixed

    def topic_target(self, topic: str) -> Target:
        """An output handle on a topic string: puts to it publish."""
        target = self.targets.get((True, topic, ""))
        if target is None:
            target = self.targets[(True, topic, "")] = self._open_topic(topic)
        return target

    def _open_topic(self, topic: str) -> Target:
        C, ibmmq = self.C, self.ibmmq
        od = ibmmq.OD(ObjectType=C.MQOT_TOPIC, Version=C.MQOD_VERSION_4)
        od.set_vs("ObjectString", topic)
        try:
            # a topic takes no MQOO_INQUIRE: the queue manager's MAXMSGL is the limit
            handle = ibmmq.Queue(self.qmgr, od, C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING
                                 | self.context_open)
        except ibmmq.MQMIError as exc:
            raise open_refused(exc, self.qmgr, topic, C.MQOO_OUTPUT,
                               f"opening topic {topic!r} for publishing", "topic") from exc
        return Target(topic, handle, self.qmgr_max_length, topic=True)

    def _open(self, name: str, qmgr_name: str, bind: int) -> Target:
        C, ibmmq = self.C, self.ibmmq
        base = C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING | self.context_open | bind
        label = f"queue {name!r}" + (f" at queue manager {qmgr_name!r}" if qmgr_name else "")
        try:
            queue = ibmmq.Queue(self.qmgr, self._od(name, qmgr_name), base | C.MQOO_INQUIRE)
            try:
                max_length = min(int(queue.inquire(C.MQIA_MAX_MSG_LENGTH)), self.qmgr_max_length)
            except ibmmq.MQMIError:
                max_length = self.qmgr_max_length
        except ibmmq.MQMIError as exc:
            if exc.reason not in _NO_INQUIRE:
                raise open_refused(exc, self.qmgr, name, base | C.MQOO_INQUIRE,
                                   f"opening {label} for output") from exc
            # no inquire authority, or a queue elsewhere (which MQ lets one only put to):
            # put with the queue manager's limit as the estimate
            try:
                queue = ibmmq.Queue(self.qmgr, self._od(name, qmgr_name), base)
            except ibmmq.MQMIError as exc2:
                raise open_refused(exc2, self.qmgr, name, base,
                                   f"opening {label} for output") from exc2
            max_length = self.qmgr_max_length
        return Target(name, queue, max_length, qmgr_name=qmgr_name)

    def _od(self, name: str, qmgr_name: str) -> Any:
        return self.ibmmq.OD(ObjectName=name, ObjectQMgrName=qmgr_name) if qmgr_name else name

    # --- sizing ------------------------------------------------------------------------
    def uses_reference(self, out: Outgoing, target: Target) -> bool:
        if not out.properties or out.jms is not None:
            return False
        size = len(out.payload)
        return (size > self.settings.large_message_threshold
                or size + property_size(out.properties) + _RFH2_ROOM > target.max_length)

    def message_count(self, out: Outgoing, target: Target) -> int:
        """Physical messages this row puts (segments included): they count to MAXUMSGS."""
        if out.jms is not None:
            return 1     # never segmented: see _send_jms
        segments = self._segments(len(out.payload), target)
        return segments + 1 if self.uses_reference(out, target) else segments

    def _segments(self, size: int, target: Target) -> int:
        if size <= target.max_length or not self.settings.segmentation:
            return 1
        piece = max(16, target.max_length - target.max_length % 16)
        return math.ceil(size / piece)

    # --- puts --------------------------------------------------------------------------
    def send(self, out: Outgoing, target: Target) -> None:
        """Put one row's message(s) under the open unit of work."""
        target = self._kept_together(out, target)
        if out.jms is not None:
            self._send_jms(out, out.jms, target)
            return
        if self.uses_reference(out, target):
            self._send_reference_pair(out, target)
            return
        fields = self._md_fields(out)
        if self.settings.segmentation and not out.properties and out.group_id is None:
            fields["MsgFlags"] = self.C.MQMF_SEGMENTATION_ALLOWED
        self._put(target, fields, out.payload, out.properties)

    def _send_jms(self, out: Outgoing, headers: jms.JmsHeaders, target: Target) -> None:
        """An MQRFH2 as IBM MQ classes for JMS write it, then the body. A message too large
        for the queue fails the row: segments of it would each be a message whose data starts
        mid-RFH2, and the reference/data pair would hide the RFH2 from JMS receivers."""
        encoding = self.C.MQENC_NATIVE if out.encoding is None else out.encoding
        destination = headers.destination or jms.destination_uri(target.name, target.topic)
        # the body's CCSID was decided with the message (MessagePlan.message); 0 is the
        # queue manager's, which an MQRFH2 cannot name
        rfh2 = jms.jms_rfh2(headers, destination, encoding, out.ccsid or QMGR_CCSID,
                            out.format or self.C.MQFMT_NONE, int(time.time() * 1000))
        if len(rfh2) + len(out.payload) > target.max_length:
            raise RowValueError(
                f"a JMS message of {len(rfh2) + len(out.payload)} bytes ({len(rfh2)} of them its "
                f"MQRFH2) is larger than the {target.max_length} bytes {target.label} takes "
                "(MAXMSGL); MQ cannot segment a message that starts with an MQRFH2. Valid: a "
                "smaller payload, a larger MAXMSGL on the queue and the queue manager, or "
                "jmsMessageType none (plain messages are segmented)")
        fields = self._md_fields(out)
        # the MQMD describes the MQRFH2 in front: its character fields are ASCII, so UTF-8
        fields.update(Format=self.C.MQFMT_RF_HEADER_2, CodedCharSetId=UTF8, Encoding=encoding)
        self._put(target, fields, rfh2 + out.payload, [])

    def _send_reference_pair(self, out: Outgoing, target: Target) -> None:
        C = self.C
        group_id = new_group_id()
        fields = self._md_fields(out)
        fields["Format"] = REFERENCE_FORMAT
        self._put(target, fields, b"", reference_properties(out.properties, len(out.payload),
                                                            group_id))
        fields = self._md_fields(out)
        fields.pop("MsgId", None)     # a copied MsgId is the reference message's: one per queue
        fields.update(Format=DATA_FORMAT, GroupId=group_id, MsgSeqNumber=1,
                      MsgFlags=C.MQMF_LAST_MSG_IN_GROUP | (
                          C.MQMF_SEGMENTATION_ALLOWED if self.settings.segmentation else 0))
        self._put(target, fields, out.payload, [])

    def _md_fields(self, out: Outgoing) -> dict[str, Any]:
        """The MQMD fields of one row; fields not named keep ibmmq's MD() defaults (MsgId
        none: MQPMO_NEW_MSG_ID makes each one)."""
        C = self.C
        fields: dict[str, Any] = {"Persistence": self.persistence if out.persistent is None else (
            C.MQPER_PERSISTENT if out.persistent else C.MQPER_NOT_PERSISTENT),
            "Format": out.format or C.MQFMT_NONE}   # MD()'s default is NULs, MQ's blanks
        if out.correl_id is not None:
            fields["CorrelId"] = out.correl_id
        if out.group_id is not None:
            fields["GroupId"] = out.group_id
        if out.reply_to_queue:
            fields["ReplyToQ"] = out.reply_to_queue.encode()
        if out.reply_to_qmgr:
            fields["ReplyToQMgr"] = out.reply_to_qmgr.encode()
        if out.priority is not None:
            fields["Priority"] = out.priority
        if out.expiry is not None:
            fields["Expiry"] = out.expiry
        if out.msg_type is not None:
            fields["MsgType"] = out.msg_type
        if out.ccsid is not None:
            fields["CodedCharSetId"] = out.ccsid
        if out.encoding is not None:
            fields["Encoding"] = out.encoding
        if out.feedback is not None:
            fields["Feedback"] = out.feedback
        if out.report is not None:
            fields["Report"] = out.report
        if self.settings.context == "all":
            fields.update(_put_date_time())     # all context: the queue manager sets none of it
            fields["PutApplType"] = C.MQAT_UNIX
        fields.update(out.context)
        if out.msg_id is not None:
            fields["MsgId"] = out.msg_id
        return fields

    def _put(self, target: Target, fields: dict[str, Any], body: bytes,
             properties: list[tuple[str, Any, str]]) -> None:
        ibmmq = self.ibmmq
        with_handle = bool(properties)
        retain = self.retain and target.topic
        if with_handle:
            self._set_properties(properties)
        try:
            if self.packed is not None:
                self.packed.put(self.hconn, target.hobj, self.packed.md(fields),
                                self._pmo_bytes[(with_handle, retain)], body)
            else:
                target.queue.put(body, ibmmq.MD(**fields), self._pmos[(with_handle, retain)])
        except ibmmq.MQMIError as exc:
            raise describe(exc, f"putting a message on {target.label}") from exc
        if self.settings.async_put:
            self.async_puts += 1

    def _set_properties(self, properties: list[tuple[str, Any, str]]) -> None:
        handle = self._handle
        if handle is None:
            handle = self._handle = self.ibmmq.MessageHandle(self.qmgr)
            for retain in (False, True):
                pmo = self._pmos[(True, retain)]
                pmo.OriginalMsgHandle = handle.msg_handle
                self._pmo_bytes[(True, retain)] = pmo.pack()
        names: set[str] = set()
        for name, value, type_name in properties:
            try:
                mq_type, raw, length = to_mq(name, value, type_name)
                if self.packed is not None:
                    encoded = self._names.get(name) or self._names.setdefault(name, name.encode())
                    self.packed.set_property(self.hconn, handle.msg_handle, encoded,
                                             mq_type, raw, length)
                else:
                    handle.properties.set(name, raw, property_type=mq_type, value_length=length)
            except PropertyValueError as exc:
                raise RowValueError(str(exc)) from None
            except self.ibmmq.MQMIError as exc:
                raise describe(exc, f"setting message property {name!r} ({type_name} value "
                                    f"{value!r:.80})") from exc
            names.add(name)
        for stale in self._handle_names - names:    # left over from the previous row
            handle.properties.dlt(stale)
        self._handle_names = names

    # --- units of work -----------------------------------------------------------------
    def check_async(self) -> None:
        """MQSTAT: raise the first error of the asynchronous puts since the last check."""
        if not self.async_puts:
            return
        self.async_puts = 0
        ibmmq, C = self.ibmmq, self.C
        try:
            sts = self.qmgr.stat(C.MQSTAT_TYPE_ASYNC_ERROR)
        except ibmmq.MQMIError as exc:
            raise describe(exc, "checking asynchronous puts (MQSTAT)") from exc
        if sts.CompCode == C.MQCC_FAILED or sts.PutFailureCount:
            queue = sts.ObjectName.rstrip(b"\0 ").decode(errors="replace")
            error = describe(ibmmq.MQMIError(sts.CompCode, sts.Reason),
                             f"{sts.PutFailureCount} asynchronous put(s) to queue {queue!r}")
            raise AsyncPutError(str(error), error.reason, error.reason_name)

    def commit(self) -> None:
        self.check_async()
        try:
            self.qmgr.commit()
        except self.ibmmq.MQMIError as exc:
            raise describe(exc, "committing the unit of work (MQCMIT)") from exc

    def backout(self) -> None:
        """Back out the open unit of work; never raises (it runs while failing)."""
        self.async_puts = 0
        try:
            self.qmgr.backout()
        except Exception:   # noqa: BLE001 - a broken connection backs out by itself
            pass
        try:
            self.qmgr.stat(self.C.MQSTAT_TYPE_ASYNC_ERROR)   # reset the async error record
        except Exception:   # noqa: BLE001
            pass

    def close(self) -> None:
        """Back out anything open, then disconnect (MQDISC would commit open work)."""
        self.backout()
        for target in [*self.targets.values(), *self.fixed_targets.values()]:
            try:
                target.queue.close()
            except Exception:  # noqa: BLE001
                pass
        self.targets.clear()
        self.fixed_targets.clear()
        try:
            self.qmgr.disconnect()
        except Exception:  # noqa: BLE001
            pass
