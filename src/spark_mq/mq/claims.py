"""Claims and records on a state queue: how executors read one queue exactly once in parallel
(readMode executors; the protocol is in spark_mq/reader/executors.py).

For a partition p of microbatch b of reader r the state queue holds, at different times:

* a CLAIM, put by the driver when it plans the batch: whoever gets it (under syncpoint)
  may move messages for (r, b, p); nobody else can, because the claim is one message;
* a RECORD, put by the task that got the claim, in the SAME unit of work as its gets: the
  rows it emits, as an Arrow IPC stream cut into chunks of at most CHUNK bytes (each chunk
  a message: a 12-byte header (index, count, rows), then its bytes), so that a task that
  runs again emits exactly the same rows. The row count lets the driver learn, as it
  removes a committed batch's records, how many messages the batch delivered.

Claims and records are found by CorrelId (a hash of the kind and the key) and removed by a
selector on their properties (SparkMQReader, SparkMQBatch): every message of reader r whose
batch Spark has committed, or whose batch never reached Spark's offset log.
"""
from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from spark_mq.mq.connecting import quietly
from spark_mq.mq.exceptions import describe
from spark_mq.mq.markers import open_state_queue
from spark_mq.mq.mqget import found, get_message
from spark_mq.mq.properties import set_property
from spark_mq.mqi.constants import CMQC

CHUNK = 1 << 20                       # record bytes per message: below any MAXMSGL in use
READER_PROPERTY, BATCH_PROPERTY = "SparkMQReader", "SparkMQBatch"
_HEADER = struct.Struct(">III")       # chunk index, chunk count, rows of the record


@dataclass(frozen=True)
class PartitionKey:
    reader: str
    batch: int
    partition: int

    def correl_id(self, kind: str) -> bytes:
        text = f"{kind}\0{self.reader}\0{self.batch}\0{self.partition}"
        return hashlib.sha256(text.encode()).digest()[:24]

    def __str__(self) -> str:
        return f"batch {self.batch} partition {self.partition} of reader {self.reader}"


class StateQueue:
    """The reader's state queue on one connection; gets and puts join the connection's unit
    of work where the docstrings say so."""

    def __init__(self, ibmmq: Any, qmgr: Any, name: str) -> None:
        self.ibmmq, self.qmgr, self.name = ibmmq, qmgr, name
        self.queue = open_state_queue(qmgr, ibmmq, name, CMQC.MQOO_BROWSE)
        self._buffer = CHUNK + _HEADER.size + 4096
        self._removers: dict[str, Any] = {}       # selector -> a handle kept open (remove)
        self._handle = ibmmq.MessageHandle(qmgr)  # a removed message's properties
        self._put_handle: Any = None              # a claim's or record's properties

    # --- claims ---------------------------------------------------------------------------
    def put_claims(self, reader: str, batch: int, partitions: Iterable[int]) -> None:
        """One claim per partition, under syncpoint (the caller commits). The puts are
        asynchronous (they travel with the next call) and MQSTAT checks them all at once:
        two round trips for any number of partitions instead of one per claim."""
        for partition in partitions:
            key = PartitionKey(reader, batch, partition)
            self._put(key, key.correl_id("claim"), b"", CMQC.MQPMO_ASYNC_RESPONSE)
        ibmmq = self.ibmmq
        try:
            status = self.qmgr.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
        except ibmmq.MQMIError as exc:
            raise describe(exc, f"checking the claims of batch {batch} on {self.name!r} (MQSTAT)") from exc
        if status.CompCode == CMQC.MQCC_FAILED or status.PutFailureCount:
            raise describe(ibmmq.MQMIError(CMQC.MQCC_FAILED, status.Reason),
                           f"putting {status.PutFailureCount} claim(s) of batch {batch} on {self.name!r}")

    def take_claim(self, key: PartitionKey, wait_ms: int = 0) -> bool:
        """Get the claim under syncpoint; False when no claim is there (another attempt holds
        or used it) within wait_ms."""
        return found(self.ibmmq, self.queue, self.ibmmq.MD(CorrelId=key.correl_id("claim")),
                     CMQC.MQGMO_SYNCPOINT, wait_ms, CMQC.MQMO_MATCH_CORREL_ID,
                     f"getting the claim of {key} from {self.name!r}")

    # --- records ------------------------------------------------------------------------
    def put_record(self, key: PartitionKey, data: bytes, rows: int) -> int:
        """The record (`rows` rows) in chunks, under syncpoint; returns how many messages it took."""
        chunks = [data[i:i + CHUNK] for i in range(0, len(data), CHUNK)] or [b""]
        correl_id = key.correl_id("record")
        for index, chunk in enumerate(chunks):
            self._put(key, correl_id, _HEADER.pack(index, len(chunks), rows) + chunk)
        return len(chunks)

    def record(self, key: PartitionKey) -> bytes | None:
        """The committed record of `key` (a browse), or None when there is none."""
        C, ibmmq = CMQC, self.ibmmq
        chunks: dict[int, bytes] = {}
        count = None
        option = C.MQGMO_BROWSE_FIRST
        while count is None or len(chunks) < count:
            md = ibmmq.MD(CorrelId=key.correl_id("record"))
            gmo = ibmmq.GMO(Options=option | C.MQGMO_NO_WAIT | C.MQGMO_FAIL_IF_QUIESCING
                            | C.MQGMO_NO_PROPERTIES, MatchOptions=C.MQMO_MATCH_CORREL_ID)
            body, self._buffer = get_message(ibmmq, self.queue, self._buffer, md, gmo,
                                             f"browsing the record of {key} on {self.name!r}")
            if body is None:
                if count is None:
                    return None
                raise describe_incomplete(key, self.name, len(chunks), count)
            option = C.MQGMO_BROWSE_NEXT
            index, count, _ = _HEADER.unpack_from(body)
            chunks[index] = body[_HEADER.size:]
        return b"".join(chunks[i] for i in range(count))

    # --- removal ------------------------------------------------------------------------
    def remove(self, reader: str, condition: str = "", count_from: int = 0,
               keep_open: bool = False) -> tuple[int, int]:
        """Remove (outside syncpoint) every visible claim and record of `reader` whose
        SparkMQBatch meets `condition` (e.g. '<= 7'; empty: all); returns (messages removed,
        rows of the records of batches >= count_from removed). With keep_open the handle
        (opened with the selector) stays open for the next removal with the same one: an
        MQOPEN and an MQCLOSE fewer each time."""
        C, ibmmq = CMQC, self.ibmmq
        selector = f"{READER_PROPERTY} = '{reader}'"
        if condition:
            selector += f" AND {BATCH_PROPERTY} {condition}"
        queue = self._removers.pop(selector, None) or self._open_remover(selector)
        removed = rows = 0
        ok = False
        try:
            while True:
                # only the header comes across: a record's data stays on the queue manager
                gmo = ibmmq.GMO(Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_NO_WAIT
                                | C.MQGMO_ACCEPT_TRUNCATED_MSG | C.MQGMO_PROPERTIES_IN_HANDLE,
                                MsgHandle=self._handle.msg_handle)
                try:
                    header = queue.get(_HEADER.size, ibmmq.MD(), gmo)
                except ibmmq.MQMIError as exc:
                    if exc.reason == C.MQRC_NO_MSG_AVAILABLE:
                        ok = True
                        return removed, rows
                    if exc.reason != C.MQRC_TRUNCATED_MSG_ACCEPTED:
                        raise describe(exc, f"removing claims and records from {self.name!r}") from exc
                    header = exc.message if isinstance(getattr(exc, "message", None), bytes) else b""
                removed += 1
                if len(header) == _HEADER.size and _HEADER.unpack(header)[0] == 0:
                    if not count_from or self._batch_of_removed() >= count_from:
                        rows += _HEADER.unpack(header)[2]
        finally:
            if ok and keep_open:
                self._removers[selector] = queue
            else:
                quietly(ibmmq, f"closing {self.name}", queue.close)

    def _open_remover(self, selector: str) -> Any:
        from spark_mq.mq.queues import open_queue
        return open_queue(self.ibmmq, self.qmgr, self.name,
                          CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_FAIL_IF_QUIESCING, selector,
                          "removing finished claims and records")

    def _batch_of_removed(self) -> int:
        """SparkMQBatch of the message just removed (its properties came with it)."""
        try:
            return int(self._handle.properties.get(BATCH_PROPERTY))
        except (self.ibmmq.MQMIError, TypeError, ValueError):
            return -1

    def close(self) -> None:
        for queue in [self.queue, *self._removers.values()]:
            quietly(self.ibmmq, f"closing {self.name}", queue.close)
        self._removers.clear()

    def _put(self, key: PartitionKey, correl_id: bytes, body: bytes, response: int = 0) -> None:
        C, ibmmq = CMQC, self.ibmmq
        if self._put_handle is None:
            self._put_handle = ibmmq.MessageHandle(self.qmgr)
        handle = self._put_handle              # both properties are set again for each message
        set_property(handle, READER_PROPERTY, key.reader, "string")
        set_property(handle, BATCH_PROPERTY, key.batch, "long")
        md = ibmmq.MD(CorrelId=correl_id, Persistence=C.MQPER_PERSISTENT)
        pmo = ibmmq.PMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_NEW_MSG_ID | C.MQPMO_FAIL_IF_QUIESCING
                        | response)
        pmo.OriginalMsgHandle = handle.msg_handle
        try:
            self.queue.put(body, md, pmo)
        except ibmmq.MQMIError as exc:
            raise describe(exc, f"putting a claim or record of {key} on {self.name!r}") from exc


def describe_incomplete(key: PartitionKey, queue: str, found: int, count: int) -> Exception:
    from spark_mq.mq.exceptions import MQConnectorError
    return MQConnectorError(f"the record of {key} on {queue!r} is incomplete ({found} of its {count} "
                            "chunks): was the state queue cleared while the query ran?")
