"""Durable state of the embedded queue manager: object definitions and persistent messages.

Runs in the queue-manager process. SQLite in WAL mode gives atomic, crash-safe
commits without a hand-written log: a unit of work becomes one SQLite transaction, so after
a kill -9 either all of it is there or none. Uncommitted work is never written, which is
exactly MQ's "backed out on restart".

A write that fails (the disk or the file-size limit full, an I/O error) changes nothing and
raises StoreError, an MQError with the reason IBM MQ gives a put in that state (2056
MQRC_Q_SPACE_NOT_AVAILABLE when full, else 2102 MQRC_RESOURCE_PROBLEM); the verbs that
need another reason (MQCMIT's 2003 MQRC_BACKED_OUT) catch it. The first failure of a run of
them is logged, and so is the first write that succeeds after them: the queue manager keeps
serving, and works again by itself when space returns.
"""
from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from spark_mq.embedded.server.core import message_rows
from spark_mq.embedded.server.core.message_rows import QueueRows
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import MD

if TYPE_CHECKING:
    from spark_mq.embedded.server.core.queue_objects import Message


log = logging.getLogger("spark_mq.embedded")


#: free pages kept for new messages (16 MiB), and given back to the file system per round
#: of the checkpointer beyond them (2 MiB: a round holds the write lock only briefly)
_FREE_PAGES_KEPT, _FREE_PAGES_GIVEN = 2048, 256


class StoreError(MQError):
    """A store write failed and changed nothing."""

    def __init__(self, cause: sqlite3.Error):
        self.full = getattr(cause, "sqlite_errorname", "") == "SQLITE_FULL"
        super().__init__(CMQC.MQRC_Q_SPACE_NOT_AVAILABLE if self.full
                         else CMQC.MQRC_RESOURCE_PROBLEM)
        self.detail = str(cause)


class Store:
    def __init__(self, data_dir: str):
        os.makedirs(data_dir, mode=0o700, exist_ok=True)
        path = os.path.join(data_dir, "qmgr.db")
        # the owner's only, whatever the umask: messages and definitions are private, and
        # SQLite gives its WAL and shared-memory files the database file's mode
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
        os.chmod(path, 0o600)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        # NORMAL is durable across a process crash (kill -9), which is what MQ promises for
        # committed persistent messages on a running system; FULL only adds OS-crash safety.
        # 8 KiB pages hold seven 1 KiB messages with little left over (4 KiB pages hold three,
        # a sixth of each page unused); it applies to a new store only
        self._db.execute("PRAGMA page_size=8192")
        # the pages a drained queue leaves free are given back to the file system a few at a
        # time (_checkpoint_loop); also for a new store only
        self._db.execute("PRAGMA auto_vacuum=INCREMENTAL")
        self._db.execute("PRAGMA journal_mode=WAL")
        # after a checkpoint, a WAL grown by a burst of work shrinks back to this size
        self._db.execute(f"PRAGMA journal_size_limit={64 * 2**20}")
        self._db.execute("PRAGMA synchronous=NORMAL")
        # Checkpoints copy the WAL into the database file; done inline they stall whichever
        # MQCMIT crosses the threshold, so a background thread does them instead.
        self._db.execute("PRAGMA wal_autocheckpoint=0")
        self._path = os.path.join(data_dir, "qmgr.db")
        self._stop = threading.Event()
        self._failing = False    # the last write failed (logged once per run of failures)
        self._watchers: list[Callable[[str, str, str | None], None]] = []
        self._db.executescript(
            """
            CREATE TABLE IF NOT EXISTS objects (
                kind TEXT NOT NULL, name TEXT NOT NULL, attrs TEXT NOT NULL,
                PRIMARY KEY (kind, name));
            """ + message_rows.SCHEMA)
        self._qids: dict[str, int] = dict(self._db.execute("SELECT name, qid FROM queue_ids"))
        self._codec = self._stored_codec()
        if self._db.execute("SELECT 1 FROM sqlite_master WHERE name = 'messages'").fetchone():
            self._write(self._migrate)
        self._checkpointer = threading.Thread(target=self._checkpoint_loop, daemon=True,
                                              name="wal-checkpoint")
        self._checkpointer.start()

    def _checkpoint_loop(self) -> None:
        # a short busy timeout: a round that meets the queue manager's own write gives way
        db = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False,
                             timeout=0.05)
        try:
            while not self._stop.wait(0.5):
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)")
                    if db.execute("PRAGMA freelist_count").fetchone()[0] > _FREE_PAGES_KEPT:
                        # through execute() it frees one page, whatever the number (the
                        # sqlite3 module steps it once); executescript runs it to its end
                        db.executescript(f"PRAGMA incremental_vacuum({_FREE_PAGES_GIVEN});")
                except sqlite3.Error:
                    pass  # busy, a full disk or the store closing: the next round tries again
        finally:
            db.close()

    def close(self) -> None:
        self._stop.set()
        self._checkpointer.join(5)
        try:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error:
            pass
        self._db.close()

    # --- object definitions -------------------------------------------------------------
    def watch(self, watcher: Callable[[str, str, str | None], None]) -> None:
        """Call `watcher(kind, name, attrs)` after each object saved, attrs the JSON text
        stored, and with attrs None after each one deleted (system_queues.py mirrors records
        onto queues this way)."""
        self._watchers.append(watcher)

    def save_object(self, kind: str, name: str, attrs: dict) -> None:
        text = json.dumps(attrs)
        self._write(lambda db: db.execute(
            "INSERT OR REPLACE INTO objects (kind, name, attrs) VALUES (?, ?, ?)",
            (kind, name, text)))
        for watcher in self._watchers:
            watcher(kind, name, text)

    def delete_object(self, kind: str, name: str) -> None:
        self._write(lambda db: db.execute("DELETE FROM objects WHERE kind = ? AND name = ?",
                                          (kind, name)))
        for watcher in self._watchers:
            watcher(kind, name, None)

    def objects(self) -> Iterator[tuple[str, str, dict]]:
        for kind, name, attrs in self._db.execute("SELECT kind, name, attrs FROM objects"):
            yield kind, name, json.loads(attrs)

    # --- messages -------------------------------------------------------------------------
    def rows(self, queue_name: str) -> QueueRows:
        """The stored messages of one queue."""
        return QueueRows(self._db, self._qid(queue_name), lambda: self._codec)

    def queue_depths(self) -> dict[str, int]:
        """The number of stored messages of each queue that has any."""
        names = {qid: name for name, qid in self._qids.items()}
        return {names[qid]: count for qid, count in self._db.execute(
            "SELECT qid, count(*) FROM queued GROUP BY qid") if qid in names}

    def last_seq(self) -> int:
        return self._db.execute("SELECT coalesce(max(seq), 0) FROM queued").fetchone()[0]

    def apply(self, inserts: Iterable[Message] = (), deletes: Iterable[int] = (),
              backouts: Iterable[tuple[int, int]] = (), purge_queue: str | None = None,
              rekey: tuple[str, bool] | None = None, forget_queue: bool = False) -> None:
        """One atomic change: new messages, removed messages (by seq), updated backout counts,
        a queue emptied (and with forget_queue its number given up: the queue is deleted),
        a queue renumbered for its new MSGDLVSQ (name, by priority)."""
        inserts, rows = list(inserts), []
        if inserts:
            codec = self._codec or self._learn(inserts[0].md)
            rows = [message_rows.row_values(codec, m.seq, self._qid(m.queue.name),
                                            m.queue.key_for(m), m.md, m.body, m.props,
                                            m.expires_at) for m in inserts]
        deletes = list(deletes)
        purged = None if purge_queue is None else self._qids.get(purge_queue)
        renumbered = None if rekey is None else self._qids.get(rekey[0])

        def change(db: sqlite3.Connection) -> None:
            if purged is not None:
                db.execute("DELETE FROM queued WHERE qid = ?", (purged,))
                if forget_queue:
                    db.execute("DELETE FROM queue_ids WHERE qid = ?", (purged,))
            if renumbered is not None and rekey is not None:
                message_rows.rekey(db, renumbered, rekey[1])
            db.executemany(message_rows.INSERT, rows)
            for start in range(0, len(deletes), 500):  # one statement per 500 rows, not per row
                chunk = deletes[start:start + 500]
                db.execute(f"DELETE FROM queued WHERE seq IN ({','.join('?' * len(chunk))})", chunk)
            db.executemany("UPDATE queued SET backout = ? WHERE seq = ?",
                           ((count, seq) for seq, count in backouts))
        self._write(change)
        if purged is not None and forget_queue:
            del self._qids[str(purge_queue)]

    def _qid(self, queue_name: str) -> int:
        """The number that stands for a queue's name in the message rows."""
        qid = self._qids.get(queue_name)
        if qid is None:
            new = max(self._qids.values(), default=0) + 1
            self._write(lambda db: db.execute(
                "INSERT INTO queue_ids (name, qid) VALUES (?, ?)", (queue_name, new)))
            qid = self._qids[queue_name] = new
        return qid

    def _stored_codec(self) -> message_rows.MdCodec | None:
        """The codec of the store's template; a store with rows but no template has the
        template rows were written with before templates were learnt."""
        found = self._db.execute("SELECT value FROM store_info WHERE name = ?",
                                 (message_rows.TEMPLATE_NAME,)).fetchone()
        if found is not None:
            return message_rows.MdCodec(found[0])
        if self._db.execute("SELECT 1 FROM queued LIMIT 1").fetchone() is not None:
            return self._learn_template(message_rows.DEFAULT_TEMPLATE)
        return None

    def _learn(self, md: list) -> message_rows.MdCodec:
        """The store's template, from the first message it keeps."""
        return self._learn_template(message_rows.template_of(md))

    def _learn_template(self, template: bytes) -> message_rows.MdCodec:
        self._write(lambda db: db.execute("INSERT OR REPLACE INTO store_info VALUES (?, ?)",
                                          (message_rows.TEMPLATE_NAME, template)))
        self._codec = message_rows.MdCodec(template)
        return self._codec

    def _migrate(self, db: sqlite3.Connection) -> None:
        """Move the messages of a store written before the queued table into it, once."""
        by_priority = {name: attrs.get("MSGDLVSQ", "PRIORITY") == "PRIORITY"
                       for kind, name, attrs in self.objects() if kind == "QLOCAL"}
        old = db.execute("SELECT seq, queue, md, body, props, backout, expires_at FROM messages")
        while rows := old.fetchmany(1000):     # a page at a time: the store may be large
            for seq, queue, packed, body, props, backout, expires_at in rows:
                md = MD.unpack(packed)
                if self._codec is None:        # the template is written in this transaction
                    template = message_rows.template_of(md)
                    db.execute("INSERT INTO store_info VALUES (?, ?)",
                               (message_rows.TEMPLATE_NAME, template))
                    self._codec = message_rows.MdCodec(template)
                qid = self._qids.get(queue)
                if qid is None:
                    qid = self._qids[queue] = max(self._qids.values(), default=0) + 1
                    db.execute("INSERT INTO queue_ids (name, qid) VALUES (?, ?)", (queue, qid))
                db.execute(message_rows.INSERT, message_rows.migrated_values(
                    self._codec, seq, qid, by_priority.get(queue, True), md, body, props,
                    backout, expires_at))
        db.execute("DROP TABLE messages")

    def _write(self, change: Callable[[sqlite3.Connection], object]) -> None:
        """`change` in one transaction: all of it, or nothing and StoreError."""
        db = self._db
        try:
            db.execute("BEGIN")
            try:
                change(db)
                db.execute("COMMIT")
            except BaseException:
                _roll_back(db)
                raise
        except sqlite3.Error as exc:
            error = StoreError(exc)
            if not self._failing:
                log.error("the store cannot write (%s): puts of persistent messages answer "
                          "%d, commits that need the store back out (2003) until it can",
                          error.detail, error.reason)
                self._failing = True
            raise error from exc
        if self._failing:
            log.warning("the store writes again")
            self._failing = False


def _roll_back(db: sqlite3.Connection) -> None:
    if not db.in_transaction:   # SQLite rolled back by itself (disk full)
        return
    try:
        db.execute("ROLLBACK")
    except sqlite3.Error:
        pass                    # then SQLite rolled back, or the next BEGIN fails again
