"""How persistent messages lie in the store, and the queries a deep queue asks of it.

Runs in the queue-manager process, under the queue manager's lock. One table holds every
persistent message: a row per physical message, numbered by its arrival sequence (`seq`),
with its queue's number (`qid`, from the `queue_ids` table: a name once per queue, not per
row), its place in its queue's delivery order (`key`, see queues.LocalQueue.key_for) and the
ids gets match on in their own indexed columns. The MQMD is kept deflated against a
template MQMD (about 30 bytes instead of 364) with those ids blanked out of it, so a 1 KiB
message costs about 1.2 KiB on disk with its indexes.

A queue deeper than its share of memory (queue_objects.py) leaves the messages beyond its
in-memory part here and reads them back a page at a time, in delivery order or by id:
`QueueRows` is one queue's view of the table.
"""
from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from spark_mq.embedded.wire import decode, encode
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import MD, default_md

SCHEMA = """
CREATE TABLE IF NOT EXISTS store_info (
    name TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS queue_ids (
    name TEXT PRIMARY KEY, qid INTEGER NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS queued (
    seq INTEGER PRIMARY KEY, qid INTEGER NOT NULL, key INTEGER NOT NULL,
    priority INTEGER NOT NULL, msgid BLOB NOT NULL, correlid BLOB, groupid BLOB,
    md BLOB NOT NULL, body BLOB NOT NULL, props BLOB, backout INTEGER NOT NULL DEFAULT 0,
    expires_at REAL);
CREATE INDEX IF NOT EXISTS queued_order ON queued (qid, key);
CREATE INDEX IF NOT EXISTS queued_msgid ON queued (qid, msgid);
CREATE INDEX IF NOT EXISTS queued_correlid ON queued (qid, correlid) WHERE correlid IS NOT NULL;
CREATE INDEX IF NOT EXISTS queued_groupid ON queued (qid, groupid) WHERE groupid IS NOT NULL;
"""

INSERT = ("INSERT INTO queued (seq, qid, key, priority, msgid, correlid, groupid, md, body, "
          "props, backout, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
_COLUMNS = "seq, key, msgid, correlid, groupid, md, body, props, backout, expires_at"

_MDI = MD.index
_I_MSGID, _I_CORRELID, _I_GROUPID = _MDI["MsgId"], _MDI["CorrelId"], _MDI["GroupId"]
_I_BACKOUT, _I_PRIORITY = _MDI["BackoutCount"], _MDI["Priority"]
NONE_ID = b"\0" * 24
_PRIORITY_SHIFT = 44

# The template of stores whose rows were written before templates were learnt
DEFAULT_TEMPLATE = MD.pack(default_md(
    Persistence=CMQC.MQPER_PERSISTENT, Format=CMQC.MQFMT_STRING, CodedCharSetId=1208,
    Encoding=CMQC.MQENC_NATIVE, Priority=0, PutApplType=CMQC.MQAT_UNIX, MsgId=NONE_ID,
    CorrelId=NONE_ID, GroupId=NONE_ID, ReplyToQ=b" " * 48, ReplyToQMgr=b" " * 48,
    UserIdentifier=b" " * 12, ApplIdentityData=b" " * 32, PutApplName=b" " * 28,
    PutDate=b"20260101", PutTime=b"00000000", ApplOriginData=b" " * 4))
#: the store_info row that holds a store's template
TEMPLATE_NAME = "md_template"
_WBITS = -15


class MdCodec:
    """An MQMD without its ids, deflated against a template MQMD: the first one the store
    kept, so that a row holds little more than what differs from it (its put time: about
    25 bytes instead of 364). A raw deflate stream at level 1, its dictionary loaded once
    and copied for each MQMD (loading it costs more than deflating)."""

    def __init__(self, template: bytes):
        self.template = template
        self._deflate = zlib.compressobj(1, zlib.DEFLATED, _WBITS, 1, zlib.Z_DEFAULT_STRATEGY,
                                         template)

    def deflated(self, md: list) -> tuple[bytes, bytes | None, bytes | None, bytes]:
        """(MsgId, CorrelId, GroupId, the rest of the MQMD deflated): ids of none are NULL."""
        deflate = self._deflate.copy()
        return (md[_I_MSGID], _id_or_null(md[_I_CORRELID]), _id_or_null(md[_I_GROUPID]),
                deflate.compress(template_of(md)) + deflate.flush())

    def inflated(self, blob: bytes) -> list:
        return MD.unpack(zlib.decompressobj(_WBITS, zdict=self.template).decompress(blob))


def template_of(md: list) -> bytes:
    """An MQMD packed with its ids blanked: what a row deflates, and a store's template."""
    rest = list(md)
    rest[_I_MSGID] = rest[_I_CORRELID] = rest[_I_GROUPID] = NONE_ID
    return MD.pack(rest)


class Row(NamedTuple):
    """A stored message as a queue takes it back: MQMD unpacked, properties decoded."""
    seq: int
    key: int
    md: list
    body: bytes
    props: list | None
    expires_at: float | None


def order_key(seq: int, priority: int, by_priority: bool) -> int:
    """A message's place in its queue's delivery order: priority first when the queue
    delivers by priority (MSGDLVSQ PRIORITY), then arrival."""
    if not by_priority:
        return seq
    return ((9 - clamped(priority)) << _PRIORITY_SHIFT) | seq


def clamped(priority: int) -> int:
    return min(max(priority, 0), 9)


def row_values(codec: MdCodec, seq: int, qid: int, key: int, md: list, body: bytes,
               props: list | None, expires_at: float | None) -> tuple:
    """The INSERT parameters of one message."""
    return (seq, qid, key, clamped(md[_I_PRIORITY]), *codec.deflated(md), body,
            encode(props) if props else None, md[_I_BACKOUT], expires_at)


def migrated_values(codec: MdCodec, seq: int, qid: int, by_priority: bool, md: list,
                    body: bytes, props: bytes | None, backout: int,
                    expires_at: float | None) -> tuple:
    """The INSERT parameters of a row of the table stores had before this one (its MQMD
    packed whole, its properties encoded as here)."""
    return (seq, qid, order_key(seq, md[_I_PRIORITY], by_priority), clamped(md[_I_PRIORITY]),
            *codec.deflated(md), body, props, backout, expires_at)


def _id_or_null(value: bytes) -> bytes | None:
    return None if value == NONE_ID else value


def _row(codec: MdCodec, values: Sequence) -> Row:
    seq, key, msgid, correlid, groupid, blob, body, props, backout, expires_at = values
    md = codec.inflated(blob)
    md[_I_MSGID] = msgid
    md[_I_CORRELID] = correlid or NONE_ID
    md[_I_GROUPID] = groupid or NONE_ID
    md[_I_BACKOUT] = backout
    return Row(seq, key, md, body, _properties(props), expires_at)


def _properties(data: bytes | None) -> list | None:
    """The properties of a stored message: the wire encoding of its [name, type, value] list."""
    if not data:
        return None
    props = decode(data)
    if not isinstance(props, list):  # only row_values writes this column, always a list
        raise ValueError("the stored properties of a message are not a list")
    return props


class QueueRows:
    """One queue's stored messages. Every query here returns rows after a key (the queue's
    in-memory part lies before it), in delivery order."""

    def __init__(self, db: sqlite3.Connection, qid: int, codec: Callable[[], MdCodec | None]):
        self._db = db
        self.qid = qid
        self._codec = codec   # the store's (none until its first message: then no rows)

    def count(self) -> int:
        return self._db.execute("SELECT count(*) FROM queued WHERE qid = ?",
                                (self.qid,)).fetchone()[0]

    def page(self, after: int, limit: int) -> list[Row]:
        return self._rows("", (), after, limit)

    def matching(self, after: int, limit: int, msgid: bytes | None, correlid: bytes | None,
                 groupid: bytes | None) -> list[Row]:
        """Rows with these ids (None: any), found through the index of the first id given:
        left to itself SQLite walks the delivery-order index, for the ORDER BY."""
        where, values, index = [], [], ""
        for column, value in (("msgid", msgid), ("correlid", correlid), ("groupid", groupid)):
            if value is not None:
                where.append(f" AND {column} = ?")
                values.append(value)
                index = index or f" INDEXED BY queued_{column}"
        return self._rows("".join(where), values, after, limit, index)

    def by_seq(self, seq: int) -> Row | None:
        values = self._db.execute(f"SELECT {_COLUMNS} FROM queued WHERE seq = ? AND qid = ?",
                                  (seq, self.qid)).fetchone()
        return None if values is None else _row(self._stored_codec(), values)

    def exists(self, seq: int) -> bool:
        return self._db.execute("SELECT 1 FROM queued WHERE seq = ? AND qid = ?",
                                (seq, self.qid)).fetchone() is not None

    def count_priority(self, after: int, threshold: int, excluding: Iterable[int]) -> int:
        """Rows after `after` of priority `threshold` or more, but those in `excluding`."""
        excluded = list(excluding)
        holes = ",".join("?" * len(excluded))
        sql = ("SELECT count(*) FROM queued WHERE qid = ? AND key > ? AND priority >= ?"
               + (f" AND seq NOT IN ({holes})" if excluded else ""))
        return self._db.execute(sql, (self.qid, after, threshold, *excluded)).fetchone()[0]

    def _rows(self, where: str, values: Sequence, after: int, limit: int,
              index: str = "") -> list[Row]:
        cursor = self._db.execute(
            f"SELECT {_COLUMNS} FROM queued{index} WHERE qid = ?{where} AND key > ? "
            "ORDER BY key LIMIT ?", (self.qid, *values, after, limit))
        rows = cursor.fetchall()
        if not rows:
            return []
        codec = self._stored_codec()
        return [_row(codec, values) for values in rows]

    def _stored_codec(self) -> MdCodec:
        codec = self._codec()
        assert codec is not None    # rows exist, so the store has its template
        return codec


def rekey(db: sqlite3.Connection, qid: int, by_priority: bool) -> None:
    """Renumber a queue's rows after its MSGDLVSQ changed."""
    if by_priority:
        db.execute(f"UPDATE queued SET key = ((9 - priority) << {_PRIORITY_SHIFT}) | seq "
                   "WHERE qid = ?", (qid,))
    else:
        db.execute("UPDATE queued SET key = seq WHERE qid = ?", (qid,))
