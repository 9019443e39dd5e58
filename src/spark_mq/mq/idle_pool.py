"""Connections kept between uses in one process, and closed when left idle.

Spark reuses its Python workers across tasks and batches, so a connection made for one task
(with its open queue handles) can serve the next: no MQCONNX per micro-batch. Both kinds of
kept connection, the writer's producers (spark_mq.mq.producer_pool) and the readMode
executors' task connections (spark_mq.reader.task_connections), follow the same rules, held
here once:

* `take(key)` hands out the connection put back last for that key (the one most likely to
  still be alive), or None; the caller owns it until it puts it back.
* `put_back(key, item)` keeps it for the next taker, at most `per_key` for one key: the
  oldest beyond that is closed. Only a connection in a reusable state is put back (its unit
  of work committed or empty): the caller closes the others itself.
* A connection kept idle for `idle_seconds` is closed by a daemon thread (started with the
  first put_back): an idle worker must not keep queues open, as an open queue cannot be
  cleared or deleted by its administrator. `close_idle` is that sweep, `close_all` empties
  the pool.

Closing happens outside the pool's lock, so a slow MQDISC never holds up a take or a put_back.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class IdlePool(Generic[K, V]):
    """Kept connections by key; see the module docstring."""

    def __init__(self, name: str, close: Callable[[V], object], idle_seconds: float = 60.0,
                 per_key: int = 1) -> None:
        if per_key < 1:
            raise ValueError(f"IdlePool {name!r}: per_key is {per_key}; valid: 1 or more")
        self.name = name
        self.idle_seconds = idle_seconds
        self.per_key = per_key
        self._close = close
        self._lock = threading.Lock()
        self._kept: dict[K, list[tuple[V, float]]] = {}   # oldest first, with when put back
        self._reaper: threading.Thread | None = None

    def take(self, key: K) -> V | None:
        """The connection put back last for `key`, now the caller's; None when none is kept."""
        with self._lock:
            kept = self._kept.get(key)
            if not kept:
                return None
            item = kept.pop()[0]
            if not kept:
                del self._kept[key]
            return item

    def put_back(self, key: K, item: V) -> None:
        """Keep `item` for the next take(key); beyond `per_key`, the oldest kept is closed."""
        with self._lock:
            kept = self._kept.setdefault(key, [])
            kept.append((item, time.monotonic()))
            spares = [spare for spare, _since in kept[:-self.per_key]]
            del kept[:-self.per_key]
            self._start_reaper()
        self._close_each(spares)

    def close_idle(self, max_idle: float | None = None) -> int:
        """Close what was kept idle for at least `max_idle` seconds (default: idle_seconds);
        returns how many."""
        limit = self.idle_seconds if max_idle is None else max_idle
        now = time.monotonic()
        stale: list[V] = []
        with self._lock:
            for key in list(self._kept):
                kept = self._kept[key]
                stale += [item for item, since in kept if now - since >= limit]
                fresh = [(item, since) for item, since in kept if now - since < limit]
                if fresh:
                    self._kept[key] = fresh
                else:
                    del self._kept[key]
        self._close_each(stale)
        return len(stale)

    def close_all(self) -> int:
        """Close everything kept; returns how many."""
        with self._lock:
            items = [item for kept in self._kept.values() for item, _since in kept]
            self._kept.clear()
        self._close_each(items)
        return len(items)

    def __len__(self) -> int:
        with self._lock:
            return sum(len(kept) for kept in self._kept.values())

    def _close_each(self, items: list[V]) -> None:
        for item in items:
            self._close(item)

    def _start_reaper(self) -> None:
        # under self._lock
        if self._reaper is None or not self._reaper.is_alive():
            self._reaper = threading.Thread(target=self._reap, name=f"{self.name}-reaper",
                                            daemon=True)
            self._reaper.start()

    def _reap(self) -> None:
        while True:
            time.sleep(self.idle_seconds / 4)
            self.close_idle()
