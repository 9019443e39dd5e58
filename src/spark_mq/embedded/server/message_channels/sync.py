"""A channel's books: persistent messages on SYSTEM.CHANNEL.SYNCQ (as IBM MQ keeps its
channels' synchronisation data there), one per channel end, keyed apart by role.

* A receiver's record (`SyncRecord`, key: RCVR + channel + partner queue manager): the id
  (LUWID) and last sequence number of the last batch it committed, replaced in the unit of
  work that commits the batch. It answers the sender's hello with it. It holds no MsgIds:
  what the sender removes at a restart comes from the sender's own record, never from the
  partner's word.
* A sender's record (`SenderRecord`, key: SDR + channel): its last committed sequence
  number and LUWID, the partner queue manager it last ran with (saved status's RQMNAME),
  a RESET CHANNEL's sequence number still to be carried to the partner, and, while a batch
  is in doubt, that batch: its LUWID, first and last sequence numbers
  and the transmission messages it got, each named by its MsgId AND a digest of the whole
  transmission message (MsgIds belong to applications and need not be unique; the digest
  covers the MQXQH with the message's own descriptor, which only the queue manager wrote).
  It is made durable before the batch's END is sent, and cleared in the unit of work that
  commits the batch's gets.
"""
from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field

from spark_mq.embedded.server.verbs.local_connection import LocalConnection
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import default_md

SYNC_QUEUE = "SYSTEM.CHANNEL.SYNCQ"
#: a batch's logical unit of work id: 8 bytes, shown as 16 hex digits, never all zeros
_LUWID = re.compile(r"[0-9A-Fa-f]{16}")
_NO_LUWID = "0" * 16


def valid_luwid(value: object) -> bool:
    return isinstance(value, str) and _LUWID.fullmatch(value) is not None and value != _NO_LUWID


@dataclass
class SyncRecord:
    """A receiver's record, as it answers a hello: [LUWID ("" for none), last seq]."""
    batch: str = ""                   # the id of the last batch committed ("": none yet)
    seq: int = 0                      # its last message's sequence number (0: none yet)

    def to_wire(self) -> list:
        return [self.batch, self.seq]

    @classmethod
    def from_wire(cls, value: object) -> SyncRecord:
        """The partner's record; an older partner's third element (its MsgIds) is ignored:
        a sender no longer removes anything on its partner's word."""
        if not (isinstance(value, list) and len(value) in (2, 3)
                and (value[0] == "" or valid_luwid(value[0]))
                and type(value[1]) is int and 0 <= value[1] <= 999_999_999):
            raise ValueError("a sync record is [batch id (16 hex digits, or empty), sequence "
                             f"number (0..999999999)], not {value!r:.200}")
        return cls(value[0], value[1])


@dataclass
class InDoubt:
    """The batch a sender has sent END for and not yet seen confirmed."""
    batch: str
    first: int
    last: int
    messages: list[tuple[bytes, bytes]] = field(default_factory=list)   # (MsgId, digest)


@dataclass
class SenderRecord:
    seq: int = 0                      # the last committed batch's last sequence number
    batch: str = ""                   # its LUWID
    reset: int = 0                    # RESET CHANNEL SEQNUM still to tell the partner (0: none)
    indoubt: InDoubt | None = None
    partner: str = ""                 # the partner queue manager's name (saved RQMNAME)


def new_luwid() -> str:
    """A batch's id: random, so that nobody can name a batch before its sender has sent it."""
    return secrets.token_hex(8).upper()


def remove_indoubt(local: LocalConnection, xmitq_hobj: int,
                   messages: list[tuple[bytes, bytes]]) -> int:
    """Get (in the open unit of work) the transmission messages an in-doubt record names:
    each the first one with that MsgId whose digest also matches; the number found. The
    handle must be open for browse and input."""
    removed = 0
    for msg_id, wanted in messages:
        got = local.get(xmitq_hobj, CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_NO_WAIT, msg_id=msg_id)
        while got is not None and digest(msg_id, got.data) != wanted:
            got = local.get(xmitq_hobj, CMQC.MQGMO_BROWSE_NEXT | CMQC.MQGMO_NO_WAIT,
                            msg_id=msg_id)
        if got is not None and local.get(xmitq_hobj, CMQC.MQGMO_MSG_UNDER_CURSOR
                                         | CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT):
            removed += 1
    return removed


def digest(msg_id: bytes, data: bytes) -> bytes:
    """What names one transmission message in a sender's in-doubt record besides its MsgId."""
    return hashlib.blake2b(msg_id + data, digest_size=16).digest()


def _key(channel: str, partner: str) -> bytes:
    return hashlib.sha256(f"RCVR\0{channel}\0{partner}".encode()).digest()[:24]


def _sender_key(channel: str) -> bytes:
    return hashlib.sha256(f"SDR\0{channel}".encode()).digest()[:24]


def _browse(local: LocalConnection, hobj: int, key: bytes) -> bytes | None:
    got = local.get(hobj, CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_NO_WAIT, correl_id=key)
    return None if got is None else got.data


def _replace(local: LocalConnection, hobj: int, key: bytes, body: dict) -> None:
    """Take the old record and put the new one, both in the open unit of work."""
    local.get(hobj, CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT, correl_id=key)
    md = default_md(CorrelId=key, Persistence=CMQC.MQPER_PERSISTENT,
                    Format=CMQC.MQFMT_STRING, CodedCharSetId=1208)
    local.put1(SYNC_QUEUE, "", md, CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_NEW_MSG_ID, None,
               json.dumps(body).encode())


def read(local: LocalConnection, hobj: int, channel: str, partner: str) -> SyncRecord:
    """A receiver's committed record (a browse: nothing is taken)."""
    data = _browse(local, hobj, _key(channel, partner))
    record = SyncRecord() if data is None else parse_record(data)
    if not isinstance(record, SyncRecord):
        raise ValueError(f"the sync record of receiver channel {channel} is a sender's")
    return record


def replace(local: LocalConnection, hobj: int, channel: str, partner: str,
            record: SyncRecord) -> None:
    """A receiver's new record, in the open unit of work."""
    _replace(local, hobj, _key(channel, partner),
             {"role": "RCVR", "channel": channel, "partner": partner, "batch": record.batch,
              "seq": record.seq})


def browse_records(local: LocalConnection, hobj: int) -> Iterator[dict]:
    """Every record on the sync queue (open for browse as `hobj`) that parses as a JSON
    object, in queue order; nothing is taken."""
    got = local.get(hobj, CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_NO_WAIT)
    while got is not None:
        try:
            record = json.loads(got.data)
        except ValueError:
            record = None
        if isinstance(record, dict):
            yield record
        got = local.get(hobj, CMQC.MQGMO_BROWSE_NEXT | CMQC.MQGMO_NO_WAIT)


def reset_receiver(local: LocalConnection, hobj: int, channel: str, seq: int) -> int:
    """RESET CHANNEL on a receiver: every record of `channel` (whichever partner wrote it)
    now says `seq` was the last; in the open unit of work. The number of records reset."""
    partners = [state["partner"] for state in browse_records(local, hobj)
                if state.get("role", "RCVR") == "RCVR" and state.get("channel") == channel
                and isinstance(state.get("partner"), str)]
    for partner in partners:
        replace(local, hobj, channel, partner, SyncRecord("", seq))
    return len(partners)


def erase_books(local: LocalConnection, hobj: int, channel: str, sending: bool) -> bool:
    """DELETE CHANNEL: take (in the open unit of work) `channel`'s books, a sender's record
    or a receiver's record per partner. A sender's record that holds a batch in doubt is
    kept (False): it names messages the partner may have committed, which a channel
    redefined under the name must not send again before it has resynchronised."""
    if sending:
        try:
            if read_sender(local, hobj, channel).indoubt is not None:
                return False
        except ValueError:
            pass     # damaged books go with the channel: nothing in them can be trusted
        local.get(hobj, CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT, correl_id=_sender_key(channel))
        return True
    partners = {state["partner"] for state in browse_records(local, hobj)
                if state.get("role", "RCVR") == "RCVR" and state.get("channel") == channel
                and isinstance(state.get("partner"), str)}
    for partner in partners:
        local.get(hobj, CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT,
                  correl_id=_key(channel, partner))
    return True


def read_sender(local: LocalConnection, hobj: int, channel: str) -> SenderRecord:
    """A sender's committed record (a browse); a sender that never committed has seq 0."""
    data = _browse(local, hobj, _sender_key(channel))
    record = SenderRecord() if data is None else parse_record(data)
    if not isinstance(record, SenderRecord):
        raise ValueError(f"the sync record of sender channel {channel} is a receiver's")
    return record


def replace_sender(local: LocalConnection, hobj: int, channel: str, record: SenderRecord) -> None:
    """A sender's new record, in the open unit of work."""
    doubt = record.indoubt
    _replace(local, hobj, _sender_key(channel), {
        "role": "SDR", "channel": channel, "seq": record.seq, "batch": record.batch,
        "reset": record.reset, "partner": record.partner,
        "indoubt": None if doubt is None else {
            "batch": doubt.batch, "first": doubt.first, "last": doubt.last,
            "messages": [[m.hex(), d.hex()] for m, d in doubt.messages]}})


def parse_record(data: bytes) -> SenderRecord | SyncRecord:
    """A record as it lies on the queue (the fuzz lane's entry: ValueError for anything
    that is not one)."""
    try:
        state = json.loads(data)
        if not isinstance(state, dict) or state.get("role", "RCVR") not in ("RCVR", "SDR"):
            raise ValueError("not a channel sync record")
        if state.get("role") == "SDR":
            doubt = state.get("indoubt")
            record = SenderRecord(_seq(state["seq"]), _batch(state["batch"]),
                                  _seq(state.get("reset", 0)),
                                  partner=_partner(state.get("partner", "")))
            if doubt is not None:
                messages = [(bytes.fromhex(m), bytes.fromhex(d)) for m, d in doubt["messages"]]
                record.indoubt = InDoubt(_batch(doubt["batch"]), _seq(doubt["first"]),
                                         _seq(doubt["last"]), messages)
            return record
        return SyncRecord(_batch(state["batch"]), _seq(state["seq"]))
    except (KeyError, TypeError, AttributeError, RecursionError) as exc:
        raise ValueError(f"not a channel sync record: {type(exc).__name__}") from None


def _seq(value: object) -> int:
    if type(value) is not int or not 0 <= value <= 999_999_999:
        raise ValueError(f"a sequence number is 0..999999999, not {value!r:.40}")
    return value


def _partner(value: object) -> str:
    if not isinstance(value, str) or len(value) > 48:
        raise ValueError(f"a partner is a queue-manager name (0..48 characters), not "
                         f"{value!r:.60}")
    return value


def _batch(value: object) -> str:
    if value != "" and not valid_luwid(value):
        raise ValueError(f"a batch id is 16 hex digits or empty, not {value!r:.40}")
    return str(value)
