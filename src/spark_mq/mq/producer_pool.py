"""One connected Producer per (connection, settings) per process, kept between tasks.

Spark reuses its Python workers across tasks and batches, so a connection (and its open
queue handles) made for one task serves the next: no MQCONNX per microbatch. A producer
that saw a failure is closed (after a backout: MQDISC alone would commit open work) and the
next task connects afresh. A producer left idle for IDLE_SECONDS is closed by a daemon
thread, so that an idle worker does not keep queues open (an open queue cannot be cleared
or deleted by the administrator).
"""
from __future__ import annotations

import threading
import time
from typing import Any, TypeAlias

from spark_mq.mq.connection import ConnectionOptions, connect, hand_over, load_ibmmq
from spark_mq.mq.producer import Producer, ProducerSettings, queue_manager_limits

_Key: TypeAlias = tuple[ConnectionOptions, ProducerSettings]

IDLE_SECONDS = 60.0
_lock = threading.Lock()
_pool: dict[_Key, Producer] = {}
_idle_since: dict[_Key, float] = {}
_limits: dict[_Key, tuple[int, int]] = {}   # (MAXUMSGS, MAXMSGL)
_reaper: threading.Thread | None = None


def acquire(connection: ConnectionOptions, settings: ProducerSettings) -> tuple[Producer, int]:
    """(a connected producer, the queue manager's MAXUMSGS); take it back with release()."""
    key: _Key = (connection, settings)
    with _lock:
        producer = _pool.pop(key, None)
        _idle_since.pop(key, None)
    if producer is not None and not _alive(producer, key):
        producer.close()
        producer = None
    if producer is None:
        ibmmq = load_ibmmq(connection.transport)
        qmgr = connect(connection, f"connecting to queue manager {connection.queue_manager} "
                                   f"at {connection.conn_name} to write")
        producer = hand_over(ibmmq, qmgr, lambda qmgr: _new_producer(ibmmq, qmgr, key))
    return producer, _limits[key][0]


def _new_producer(ibmmq: Any, qmgr: Any, key: _Key) -> Producer:
    _limits[key] = queue_manager_limits(qmgr, ibmmq)
    return Producer(qmgr, ibmmq, key[1], _limits[key][1])


def _alive(producer: Producer, key: _Key) -> bool:
    """A kept connection may have broken since its last task (queue manager restarted, network
    dropped): one MQINQ tells, and refreshes the limits, before any row depends on it."""
    try:
        _limits[key] = queue_manager_limits(producer.qmgr, producer.ibmmq)
        return True
    except Exception:   # noqa: BLE001 - any failure means: connect afresh
        return False


def release(connection: ConnectionOptions, settings: ProducerSettings, producer: Producer,
            healthy: bool) -> None:
    if not healthy:
        producer.close()
        return
    key = (connection, settings)
    with _lock:
        spare = _pool.pop(key, None)
        _pool[key] = producer
        _idle_since[key] = time.monotonic()
        _start_reaper()
    if spare is not None:
        spare.close()


def close_idle(max_idle: float = IDLE_SECONDS) -> int:
    """Close the producers idle for longer than `max_idle` seconds; returns how many."""
    now = time.monotonic()
    with _lock:
        stale = [key for key, since in _idle_since.items() if now - since >= max_idle]
        producers = [_pool.pop(key) for key in stale]
        for key in stale:
            del _idle_since[key]
    for producer in producers:
        producer.close()
    return len(producers)


def _start_reaper() -> None:
    global _reaper
    if _reaper is None or not _reaper.is_alive():
        _reaper = threading.Thread(target=_reap, name="spark-mq-producer-reaper", daemon=True)
        _reaper.start()


def _reap() -> None:
    while True:
        time.sleep(IDLE_SECONDS / 4)
        close_idle()
