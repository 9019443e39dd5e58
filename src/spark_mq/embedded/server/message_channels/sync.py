"""A receiver's sync record: the last batch it committed on a channel, kept as one
persistent message on SYSTEM.CHANNEL.SYNCQ (as IBM MQ keeps its channels' synchronisation
data there) and replaced in the unit of work that commits the batch. The sender asks for it
whenever the channel starts (see __init__.py)."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from spark_mq.embedded.server.message_channels.local import LocalConnection
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import default_md

SYNC_QUEUE = "SYSTEM.CHANNEL.SYNCQ"


@dataclass
class SyncRecord:
    batch: str = ""                   # the id of the last batch committed ("": none yet)
    seq: int = 0                      # its last message's sequence number
    msg_ids: list[bytes] = field(default_factory=list)   # its transmission messages

    def to_wire(self) -> list:
        return [self.batch, self.seq, list(self.msg_ids)]

    @classmethod
    def from_wire(cls, value: object) -> SyncRecord:
        if not (isinstance(value, list) and len(value) == 3 and isinstance(value[0], str)
                and type(value[1]) is int and isinstance(value[2], list)
                and all(isinstance(m, bytes) and len(m) == 24 for m in value[2])):
            raise ValueError("a sync record is [batch id, sequence number, [MsgId, ...]]")
        return cls(value[0], value[1], list(value[2]))


def _key(channel: str, partner: str) -> bytes:
    return hashlib.sha256(f"RCVR\0{channel}\0{partner}".encode()).digest()[:24]


def read(local: LocalConnection, hobj: int, channel: str, partner: str) -> SyncRecord:
    """The committed record (a browse: nothing is taken)."""
    got = local.get(hobj, CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_NO_WAIT,
                    correl_id=_key(channel, partner))
    if got is None:
        return SyncRecord()
    state = json.loads(got.data)
    return SyncRecord(state["batch"], int(state["seq"]), [bytes.fromhex(m) for m in state["msgids"]])


def replace(local: LocalConnection, hobj: int, channel: str, partner: str,
            record: SyncRecord) -> None:
    """Take the old record and put the new one, both in the open unit of work."""
    local.get(hobj, CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT, correl_id=_key(channel, partner))
    body = json.dumps({"channel": channel, "partner": partner, "batch": record.batch,
                       "seq": record.seq, "msgids": [m.hex() for m in record.msg_ids]}).encode()
    md = default_md(CorrelId=_key(channel, partner), Persistence=CMQC.MQPER_PERSISTENT,
                    Format=CMQC.MQFMT_STRING, CodedCharSetId=1208)
    local.put1(SYNC_QUEUE, "", md, CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_NEW_MSG_ID, None, body)
