"""Browsing a queue (batch reads): a snapshot of its messages, nothing consumed.

Browses in delivery order with MQGMO_BROWSE_FIRST/NEXT, whole logical messages
(MQGMO_COMPLETE_MSG), properties in a message handle. A reference message (see
spark_mq.mq.message) comes out with its data message's payload; the data message itself
is not listed separately. At most the queue's depth at the start is returned, so messages
put while browsing do not make the snapshot grow without end. With `conversion` the
browse asks for MQGMO_CONVERT as the stream reader does (spark_mq.mq.consumer).

A browse with an `IdMatch` (the batch reader's lookups, spark_mq.reader.pushdown) passes
MQMO_MATCH_MSG_ID / MATCH_CORREL_ID / MATCH_GROUP_ID on every get: BROWSE_FIRST, then
BROWSE_NEXT until MQRC_NO_MSG_AVAILABLE, since ids need not be unique. The queue manager
looks for the matches itself (the embedded one through its id index, IBM MQ by searching
the queue, or with its index on z/OS, INDXTYPE), so only the matches cross the network.
With MQGMO_COMPLETE_MSG the embedded queue manager matches a segmented message on its
first segment, whose MQMD the get returns: a row's ids are the ids it was matched on.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from spark_mq.mq import records
from spark_mq.mq.connecting import disconnect_quietly, quietly
from spark_mq.mq.exceptions import describe
from spark_mq.mq.message import (
    DATA_FORMAT,
    DATA_GROUP_PROPERTY,
    DATA_LENGTH_PROPERTY,
    NO_ID,
    REFERENCE_FORMAT,
    Message,
    md_values,
)
from spark_mq.mq.mqget import get_converted
from spark_mq.mq.properties import TypedReader, read_all
from spark_mq.mq.queues import open_queue


class IdMatch(NamedTuple):
    """The ids one lookup matches on (None: not matched on). Never MQMI_NONE / MQCI_NONE /
    MQGI_NONE: matching on an id of zeros matches every message."""
    msg_id: bytes | None = None
    correl_id: bytes | None = None
    group_id: bytes | None = None

    def apply(self, md: Any, CMQC: Any) -> int:
        """Set the ids on the get's MQMD; the MatchOptions that match on them."""
        options: int = CMQC.MQMO_NONE
        if self.msg_id is not None:
            md.MsgId, options = self.msg_id, options | CMQC.MQMO_MATCH_MSG_ID
        if self.correl_id is not None:
            md.CorrelId, options = self.correl_id, options | CMQC.MQMO_MATCH_CORREL_ID
        if self.group_id is not None:
            md.GroupId, options = self.group_id, options | CMQC.MQMO_MATCH_GROUP_ID
        return options


class Browser:
    def __init__(self, ibmmq: Any, qmgr: Any, queue: str, selector: str | None = None,
                 conversion: tuple[int, int] | None = None, typed_properties: bool = False) -> None:
        self.ibmmq, self.qmgr, self.queue_name = ibmmq, qmgr, queue
        self.conversion = conversion
        CMQC = ibmmq.CMQC
        browse = CMQC.MQOO_BROWSE | CMQC.MQOO_FAIL_IF_QUIESCING
        self._queue = open_queue(ibmmq, qmgr, queue, browse | CMQC.MQOO_INQUIRE, selector,
                                 "browse")
        self._data = open_queue(ibmmq, qmgr, queue, browse, None, "browse")
        self._handle = ibmmq.MessageHandle(qmgr)
        self._typed = TypedReader(ibmmq, qmgr, self._handle) if typed_properties else None
        self._buffer = 64 << 10
        self._reason = 0

    def depth(self) -> int:
        try:
            return int(self._queue.inquire(self.ibmmq.CMQC.MQIA_CURRENT_Q_DEPTH))
        except self.ibmmq.MQMIError as exc:
            raise describe(exc, f"inquiring the depth of {self.queue_name}") from exc

    def messages(self, limit: int | None = None, match: IdMatch | None = None) -> Iterator[Message]:
        """The queue's messages in delivery order (with `match`: only those with its ids),
        at most `limit` (default: the queue's depth now)."""
        CMQC = self.ibmmq.CMQC
        limit = self.depth() if limit is None else limit
        option = CMQC.MQGMO_BROWSE_FIRST
        count = 0
        while count < limit:
            md = self.ibmmq.MD()
            gmo = self.ibmmq.GMO()
            gmo.Options = (option | CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_COMPLETE_MSG
                           | CMQC.MQGMO_PROPERTIES_IN_HANDLE | CMQC.MQGMO_FAIL_IF_QUIESCING)
            gmo.MatchOptions = CMQC.MQMO_NONE if match is None else match.apply(md, CMQC)
            gmo.MsgHandle = self._handle.msg_handle
            if self.conversion is not None:
                md.CodedCharSetId, md.Encoding = self.conversion
                gmo.Options |= CMQC.MQGMO_CONVERT
            payload = self._browse(self._queue, md, gmo)
            reason = self._reason
            option = CMQC.MQGMO_BROWSE_NEXT
            if payload is None:
                return
            count += 1
            if md.Format == DATA_FORMAT:
                continue  # listed with its reference message
            types = None
            if self._typed is not None:
                properties, types = self._typed.read()
            else:
                properties = read_all(self._handle, self.ibmmq)
            if md.Format == REFERENCE_FORMAT:
                group_id = properties.pop(DATA_GROUP_PROPERTY, None)
                properties.pop(DATA_LENGTH_PROPERTY, None)
                for name in (DATA_GROUP_PROPERTY, DATA_LENGTH_PROPERTY):
                    (types or {}).pop(name, None)
                payload = self._browse_data(group_id) if group_id else b""
                record = records.reference(md.MsgId, bytes(group_id or NO_ID))
            elif md.GroupId != NO_ID:
                record = records.grouped(md.GroupId, md.MsgSeqNumber)
            else:
                record = records.plain(md.MsgId)
            yield Message(payload, md_values(md), properties, record, reason, types)

    def _browse_data(self, group_id: bytes) -> bytes:
        CMQC = self.ibmmq.CMQC
        md = self.ibmmq.MD()
        md.GroupId = bytes(group_id)
        md.MsgSeqNumber = 1
        gmo = self.ibmmq.GMO()
        gmo.Options = (CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_COMPLETE_MSG
                       | CMQC.MQGMO_NO_PROPERTIES)
        gmo.MatchOptions = CMQC.MQMO_MATCH_GROUP_ID | CMQC.MQMO_MATCH_MSG_SEQ_NUMBER
        payload = self._browse(self._data, md, gmo)
        return payload if payload is not None else b""

    def _browse(self, queue: Any, md: Any, gmo: Any) -> bytes | None:
        payload, self._buffer, self._reason = get_converted(self.ibmmq, queue, self._buffer, md, gmo,
                                                            f"browsing {self.queue_name}")
        return payload

    def close(self) -> None:
        for queue in (self._queue, self._data):
            quietly(self.ibmmq, f"closing {self.queue_name}", queue.close)
        disconnect_quietly(self.ibmmq, self.qmgr)
