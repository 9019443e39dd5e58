"""Durable state of the embedded queue manager: object definitions and persistent messages.

Runs in the queue-manager process. SQLite in WAL mode gives atomic, crash-safe
commits without a hand-written log: a unit of work becomes one SQLite transaction, so after
a kill -9 either all of it is there or none. Uncommitted work is never written, which is
exactly MQ's "backed out on restart".
"""
from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, NamedTuple

from spark_mq.embedded.wire import encode
from spark_mq.mqi.structs import MD

if TYPE_CHECKING:
    from spark_mq.embedded.server.queues import Message


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
                db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error:
            pass  # the store is closing
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
        self._db.execute("INSERT OR REPLACE INTO objects (kind, name, attrs) VALUES (?, ?, ?)",
                         (kind, name, text))
        for watcher in self._watchers:
            watcher(kind, name, text)

    def delete_object(self, kind: str, name: str) -> None:
        self._db.execute("DELETE FROM objects WHERE kind = ? AND name = ?", (kind, name))
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
        db = self._db
        db.execute("BEGIN")
        try:
            if purge_queue is not None:
                db.execute("DELETE FROM messages WHERE queue = ?", (purge_queue,))
            db.executemany(
                "INSERT INTO messages (seq, queue, md, body, props, backout, expires_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)", inserts)
            deletes = list(deletes)
            for start in range(0, len(deletes), 500):  # one statement per 500 rows, not per row
                chunk = deletes[start:start + 500]
                db.execute(f"DELETE FROM messages WHERE seq IN ({','.join('?' * len(chunk))})", chunk)
            db.executemany("UPDATE messages SET backout = ? WHERE seq = ?",
                           ((count, seq) for seq, count in backouts))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise


def stored(message: Message, queue_name: str) -> StoredMessage:
    """The row a persistent message is kept as."""
    return StoredMessage(message.seq, queue_name, MD.pack(message.md), message.body,
                         encode(message.props) if message.props else None,
                         message.md[_I_BACKOUT], message.expires_at)


_I_BACKOUT = MD.index["BackoutCount"]
