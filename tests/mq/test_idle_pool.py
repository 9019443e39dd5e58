"""The pool of kept connections (spark_mq.mq.idle_pool.IdlePool, behind the writer's producers
and the readMode executors' task connections), holding real connections to an embedded queue
manager of its own: what it closes is counted by the queue manager (its metrics endpoint's
ibmmq_qmgr_connection_count) and seen failing on the connection itself.
"""
from __future__ import annotations

import pytest

import spark_mq.embedded as embedded
from spark_mq.mq.connecting import ConnectionOptions, connect
from spark_mq.mq.idle_pool import IdlePool
from support import connection_count as connections
from support import is_connected as alive
from support import wait_for


@pytest.fixture(scope="module")
def manager(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qm")), name="QMPOOL",
                                       metrics_port=0) as started:
        yield started


def pool_of(manager, **settings) -> IdlePool:
    return IdlePool("test", lambda qmgr: qmgr.disconnect(), **settings)


def new_connection(manager):
    return connect(ConnectionOptions(queue_manager=manager.name, conn_name=manager.conn_name,
                                     channel=manager.channel, transport="embedded"))


def test_a_connection_put_back_is_the_next_one_taken(manager):
    pool = pool_of(manager)
    assert pool.take("k") is None
    first = new_connection(manager)
    pool.put_back("k", first)
    assert pool.take("other") is None
    assert pool.take("k") is first and alive(first)
    assert pool.take("k") is None
    first.disconnect()


def test_beyond_per_key_the_oldest_kept_is_closed_and_the_newest_taken_first(manager):
    before = connections(manager)
    pool = pool_of(manager, per_key=2)
    oldest, middle, newest = (new_connection(manager) for _ in range(3))
    for qmgr in (oldest, middle, newest):
        pool.put_back("k", qmgr)
    assert connections(manager) == before + 2 and len(pool) == 2
    assert not alive(oldest)
    assert pool.take("k") is newest
    assert pool.take("k") is middle
    assert pool.take("k") is None
    for qmgr in (middle, newest):
        qmgr.disconnect()
    assert connections(manager) == before


def test_close_idle_closes_only_what_was_idle_that_long_and_close_all_the_rest(manager):
    before = connections(manager)
    pool = pool_of(manager, idle_seconds=3600)
    kept = [new_connection(manager) for _ in range(2)]
    pool.put_back("a", kept[0])
    pool.put_back("b", kept[1])
    assert pool.close_idle() == 0               # not idle for an hour
    assert connections(manager) == before + 2
    assert pool.close_idle(max_idle=0) == 2     # idle for 0 s or more: every one
    assert connections(manager) == before and len(pool) == 0
    again = new_connection(manager)
    pool.put_back("a", again)
    assert pool.close_all() == 1 and not alive(again)
    assert connections(manager) == before


def test_the_reaper_closes_a_connection_left_idle(manager):
    before = connections(manager)
    pool = pool_of(manager, idle_seconds=0.2)
    pool.put_back("k", new_connection(manager))
    wait_for(lambda: connections(manager) == before, 60)   # the reaper's thread, not this one
    assert len(pool) == 0


def test_per_key_must_be_at_least_one(manager):
    with pytest.raises(ValueError, match="per_key is 0; valid: 1 or more"):
        pool_of(manager, per_key=0)
