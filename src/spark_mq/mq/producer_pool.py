"""One connected Producer per (connection, settings) per process, kept between tasks.

Spark reuses its Python workers across tasks and batches, so a connection (and its open
queue handles) made for one task serves the next: no MQCONNX per microbatch. A producer
that saw a failure is closed (after a backout: MQDISC alone would commit open work) and the
next task connects afresh. A producer left idle for IDLE_SECONDS is closed by a daemon
thread, so that an idle worker does not keep queues open (an open queue cannot be cleared
or deleted by the administrator); the pool is spark_mq.mq.idle_pool's, one producer per key.
"""
from __future__ import annotations

from typing import Any, TypeAlias

from spark_mq.mq.connecting import ConnectionOptions, connect, hand_over, load_ibmmq
from spark_mq.mq.idle_pool import IdlePool
from spark_mq.mq.producer import Producer, ProducerSettings, queue_manager_limits

_Key: TypeAlias = tuple[ConnectionOptions, ProducerSettings]

IDLE_SECONDS = 60.0
_pool: IdlePool[_Key, Producer] = IdlePool("spark-mq-producer", Producer.close, IDLE_SECONDS)
_limits: dict[_Key, tuple[int, int]] = {}   # (MAXUMSGS, MAXMSGL)


def acquire(connection: ConnectionOptions, settings: ProducerSettings) -> tuple[Producer, int]:
    """(a connected producer, the queue manager's MAXUMSGS); take it back with release()."""
    key: _Key = (connection, settings)
    producer = _pool.take(key)
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
    if healthy:
        _pool.put_back((connection, settings), producer)
    else:
        producer.close()


def close_idle(max_idle: float = IDLE_SECONDS) -> int:
    """Close the producers idle for longer than `max_idle` seconds; returns how many."""
    return _pool.close_idle(max_idle)
