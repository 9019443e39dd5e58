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
from typing import TYPE_CHECKING, NamedTuple

from spark_mq.embedded.server.errors import MQError
from spark_mq.embedded.wire import encode
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import MD

if TYPE_CHECKING:
    from spark_mq.embedded.server.queues import Message


log = logging.getLogger("spark_mq.embedded")


class StoreError(MQError):
    """A store write failed and changed nothing."""

    def __init__(self, cause: sqlite3.Error):
        self.full = getattr(cause, "sqlite_errorname", "") == "SQLITE_FULL"
        super().__init__(CMQC.MQRC_Q_SPACE_NOT_AVAILABLE if self.full
                         else CMQC.MQRC_RESOURCE_PROBLEM)
        self.detail = str(cause)


class StoredMessage(NamedTuple):
    seq: int
    queue: str
    md: bytes
    body: bytes
    props: bytes | None
    backout: int
    expires_at: float | None


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
        self._db.execute("PRAGMA journal_mode=WAL")
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
            CREATE TABLE IF NOT EXISTS messages (
                seq INTEGER PRIMARY KEY, queue TEXT NOT NULL, md BLOB NOT NULL,
                body BLOB NOT NULL, props BLOB, backout INTEGER NOT NULL DEFAULT 0,
                expires_at REAL);
            """)
        self._checkpointer = threading.Thread(target=self._checkpoint_loop, daemon=True,
                                              name="wal-checkpoint")
        self._checkpointer.start()

    def _checkpoint_loop(self) -> None:
        db = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        try:
            while not self._stop.wait(0.5):
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error:
                    pass  # a full disk or the store closing: the next round tries again
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
    def messages(self) -> Iterator[StoredMessage]:
        cursor = self._db.execute(
            "SELECT seq, queue, md, body, props, backout, expires_at FROM messages ORDER BY seq")
        for row in cursor:
            yield StoredMessage(*row)

    def apply(self, inserts: Iterable[StoredMessage] = (), deletes: Iterable[int] = (),
              backouts: Iterable[tuple[int, int]] = (), purge_queue: str | None = None) -> None:
        """One atomic change: new messages, removed messages, updated backout counts."""
        inserts, deletes = list(inserts), list(deletes)

        def change(db: sqlite3.Connection) -> None:
            if purge_queue is not None:
                db.execute("DELETE FROM messages WHERE queue = ?", (purge_queue,))
            db.executemany(
                "INSERT INTO messages (seq, queue, md, body, props, backout, expires_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)", inserts)
            for start in range(0, len(deletes), 500):  # one statement per 500 rows, not per row
                chunk = deletes[start:start + 500]
                db.execute(f"DELETE FROM messages WHERE seq IN ({','.join('?' * len(chunk))})", chunk)
            db.executemany("UPDATE messages SET backout = ? WHERE seq = ?",
                           ((count, seq) for seq, count in backouts))
        self._write(change)

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


def stored(message: Message, queue_name: str) -> StoredMessage:
    """The row a persistent message is kept as."""
    return StoredMessage(message.seq, queue_name, MD.pack(message.md), message.body,
                         encode(message.props) if message.props else None,
                         message.md[_I_BACKOUT], message.expires_at)


_I_BACKOUT = MD.index["BackoutCount"]
