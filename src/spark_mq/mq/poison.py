"""Poison messages: a message whose BackoutCount reached the threshold leaves the queue.

As IBM's JMS client does: it is put to the backout queue (BOQNAME, or the `backoutQueue`
option) in the SAME unit of work as the get, so the move is atomic; with no backout queue
it goes to the queue manager's dead-letter queue behind an MQDLH (reason 2362
MQRC_BACKOUT_THRESHOLD_REACHED). MsgId, CorrelId and the message properties are kept.

A message the reader refuses for a reason of its own (requireText: not text in its CCSID) is
moved the same way, but always behind an MQDLH whose Reason is that reason (2110, 2111,
2119), on the backout queue too: the reason travels with the message, and IBM's dead-letter
handler (runmqdlq, which reads any queue) can act on it. The MQDLH's Format, CodedCharSetId
and Encoding describe the message's data; the MD's describe the MQDLH.
"""
from __future__ import annotations

from typing import Any

from spark_mq.mq.connecting import quietly
from spark_mq.mq.exceptions import MQConnectorError, describe
from spark_mq.mqi.codepages import UTF8


def _name(value: str | bytes) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return value.strip().strip("\0").strip()


class PoisonMover:
    def __init__(self, ibmmq: Any, qmgr: Any, source_queue: str, backout_queue: str | None,
                 dead_letter_queue: str | None = None) -> None:
        """dead_letter_queue: None = the queue manager's DEADQ."""
        self._ibmmq, self._qmgr, self._source = ibmmq, qmgr, source_queue
        self._target = backout_queue
        self._dlq = dead_letter_queue
        if not backout_queue and not dead_letter_queue:
            self._dlq = _name(qmgr.inquire(ibmmq.CMQC.MQCA_DEAD_LETTER_Q_NAME)) or None
        self._queue: Any | None = None   # opened on the first move: most readers never need it

    @property
    def destination(self) -> str | None:
        return self._target or self._dlq

    def move(self, payload: bytes, md: Any, msg_handle: Any | None, reason: int = 0,
             why: str = "") -> str:
        """Put the message to the backout queue (or the DLQ) under syncpoint; returns where.

        `reason`, `why`: a refusal other than the backout threshold (see the module docstring)."""
        ibmmq, CMQC = self._ibmmq, self._ibmmq.CMQC
        destination = self.destination
        if destination is None:
            what = why or (f"reached its backout threshold (BackoutCount {md.BackoutCount})")
            raise MQConnectorError(
                f"message {bytes(md.MsgId).hex()} on {self._source} {what} but there is nowhere "
                "to put it, so it stays on the queue: set the queue's BOQNAME, the 'backoutQueue' "
                "option, or a dead-letter queue (DEADQ) on the queue manager")
        body = payload
        if reason or not self._target:
            body = self._dead_letter_header(md, reason or CMQC.MQRC_BACKOUT_THRESHOLD_REACHED) + payload
            md.Format = CMQC.MQFMT_DEAD_LETTER_HEADER
            # the MQDLH is packed in this process's encoding, its names in ASCII
            md.CodedCharSetId, md.Encoding = UTF8, CMQC.MQENC_NATIVE
        pmo = ibmmq.PMO()
        pmo.Options = CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_FAIL_IF_QUIESCING
        if msg_handle is not None:
            pmo.OriginalMsgHandle = msg_handle.msg_handle
        try:
            if self._queue is None:
                self._queue = ibmmq.Queue(self._qmgr, destination,
                                          CMQC.MQOO_OUTPUT | CMQC.MQOO_FAIL_IF_QUIESCING)
            self._queue.put(body, md, pmo)
        except ibmmq.MQMIError as exc:
            raise describe(exc, f"moving a poison message from {self._source} to "
                                f"{destination}") from exc
        return destination

    def _dead_letter_header(self, md: Any, reason: int) -> bytes:
        ibmmq, CMQC = self._ibmmq, self._ibmmq.CMQC
        dlh = ibmmq.DLH()
        dlh.Reason = reason
        dlh.DestQName = self._source.encode()
        dlh.Encoding = md.Encoding
        dlh.CodedCharSetId = md.CodedCharSetId
        dlh.Format = md.Format
        dlh.PutApplType = CMQC.MQAT_PYTHON if hasattr(CMQC, "MQAT_PYTHON") else 0
        dlh.PutApplName = b"spark-mq reader"
        header: bytes = dlh.pack()
        return header

    def close(self) -> None:
        if self._queue is not None:
            quietly(self._ibmmq, f"closing {self.destination}", self._queue.close)
            self._queue = None
