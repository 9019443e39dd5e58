"""spark_mq.mq.sink with its exactly-once markers, against a real embedded queue manager (no
Spark): a partition that fails mid-way, an input cut off mid-chunk (issue 14), a marker
ahead of the batch, the markers of the first, chunk-numbered writer, and two attempts of a
partition at once."""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import ibmmq
import pytest

from spark_mq.mq import producer_pool
from spark_mq.mq.exceptions import MQConnectorError
from spark_mq.mq.markers import ChunkLedger, ensure_state_queue, marker_id
from spark_mq.mq.outgoing import Column, MessagePlan
from spark_mq.mq.producer import ProducerSettings
from spark_mq.mq.sink import MarkerAheadError, SinkResult, write_partition
from spark_mq.options import parse_connection
from support import depth, mq_options, numbers_on

STATE = "SPARK.MQ.WRITER.STATE"


class Poisoned(Exception):
    pass


def rows(count: int, fail_at: int | None = None) -> Iterator[tuple[bytes, int]]:
    for n in range(count):
        if n == fail_at:
            raise Poisoned(n)
        yield (f"row-{n}".encode(), n)


@pytest.fixture
def write(qm, make_queue) -> Iterator[Callable[..., SinkResult]]:
    """write(rows, commit_every=, batch_id=, writer_id=) -> SinkResult, on partition 0 of
    `writer_id` into the queue `write.queue`; `write.other(...)` the same on a second
    connection, as another attempt of the partition would."""
    options = parse_connection(mq_options(qm))
    plan = MessagePlan([Column("payload", "binary"), Column("n", "integer")])
    producers = [producer_pool.acquire(options, ProducerSettings()) for _ in range(2)]
    ensure_state_queue(producers[0][0].qmgr, ibmmq, STATE, options)
    queue = make_queue()

    def on(index: int) -> Callable[..., SinkResult]:
        producer, max_uncommitted = producers[index]

        def run(data, commit_every: int, batch_id: int, writer_id: str | None = None,
                claim_timeout_ms: int = 60_000) -> SinkResult:
            ledger = ChunkLedger(producer.qmgr, ibmmq, STATE, writer_id or f"unit-{queue}", 0,
                                 claim_timeout_ms)
            try:
                return write_partition(data, plan, producer, queue, commit_every=commit_every,
                                       max_messages=max_uncommitted - 2, ledger=ledger,
                                       batch_id=batch_id)
            finally:
                ledger.close()
        return run

    run = on(0)
    run.other = on(1)
    run.queue = queue
    yield run
    for producer, _ in producers:
        producer_pool.release(options, ProducerSettings(), producer, healthy=False)


def test_partition_rerun_after_a_mid_way_failure_skips_committed_rows(write, conn):
    with pytest.raises(Poisoned):
        write(rows(100, fail_at=75), commit_every=30, batch_id=7)   # 60 rows committed
    assert depth(conn, write.queue) == 60       # the open chunk was backed out
    result = write(rows(100), commit_every=30, batch_id=7)          # the same batch again
    assert (result.rows_skipped, result.chunks_written) == (60, 2)
    again = write(rows(100), commit_every=30, batch_id=7)           # and once more
    assert (again.rows_skipped, again.chunks_written, again.messages) == (100, 0, 0)
    assert numbers_on(conn, write.queue) == list(range(100))


def test_partition_cut_off_mid_chunk_then_replayed_whole_puts_every_row_once(write, conn):
    """The row iterator ends early (JVM died, upstream failure, query.stop()): the writer
    cannot tell that from the partition's end, so it commits what it has. The replay of the
    whole partition must then put exactly the rows not committed, whatever the chunk size."""
    write(rows(320), commit_every=50, batch_id=3)       # cut off 20 rows into chunk 6
    assert depth(conn, write.queue) == 320
    replay = write(rows(2000), commit_every=50, batch_id=3)
    assert (replay.rows_skipped, replay.messages) == (320, 1680)
    write(rows(1000), commit_every=50, batch_id=3)      # a shorter replay puts nothing
    assert numbers_on(conn, write.queue) == list(range(2000))


def test_a_marker_ahead_of_the_batch_fails_instead_of_skipping_or_doubling(write, conn):
    """A writer id used again by a query with a new checkpoint (batch ids start again at 0)."""
    write(rows(10), commit_every=5, batch_id=5)
    with pytest.raises(MarkerAheadError, match="writerId"):
        write(rows(10), commit_every=5, batch_id=0)
    assert depth(conn, write.queue) == 10
    assert write(rows(10), commit_every=5, batch_id=6).chunks_written == 2   # marker intact


def test_a_chunk_numbered_marker_of_the_first_writer_is_read_with_its_own_cut(write, conn):
    """Upgrade rule: {"batch": b, "chunk": c} meant chunks 0..c as that writer cut them."""
    writer_id = f"legacy-{write.queue}"
    state = ibmmq.Queue(conn, STATE, ibmmq.CMQC.MQOO_OUTPUT | ibmmq.CMQC.MQOO_INPUT_SHARED)
    state.put(json.dumps({"writerId": writer_id, "partition": 0, "batch": 4, "chunk": 1}).encode(),
              ibmmq.MD(CorrelId=marker_id(writer_id, 0)))
    result = write(rows(100), commit_every=30, batch_id=4, writer_id=writer_id)
    assert (result.rows, result.rows_skipped, result.messages) == (100, 60, 40)
    assert numbers_on(conn, write.queue) == list(range(60, 100))
    marker = state.get(None, ibmmq.MD(CorrelId=marker_id(writer_id, 0)),
                       ibmmq.GMO(MatchOptions=ibmmq.CMQC.MQMO_MATCH_CORREL_ID))
    state.close()
    assert json.loads(marker) == {"writerId": writer_id, "partition": 0, "batch": 4, "rows": 100}


def test_a_second_attempt_waits_for_the_partition_another_attempt_holds(write, conn):
    """A retried or speculative task, or one query.stop() cancelled that still runs while the
    restarted query runs the batch again: two attempts of one partition at once. In the first
    batch of a writer id there is no marker yet, so only the partition's lock keeps the second
    attempt from writing the rows the first has not committed yet."""
    outcome = {}

    def first_attempt() -> Iterator[tuple[bytes, int]]:
        for n, row in enumerate(rows(30)):
            if n == 20:       # 20 rows sent, none committed: the other attempt starts now
                with pytest.raises(MQConnectorError, match="claimTimeoutMs") as refused:
                    write.other(rows(100), commit_every=50, batch_id=0, claim_timeout_ms=300)
                outcome["refused"] = str(refused.value)
                assert depth(conn, write.queue) == 20    # the first's, uncommitted; none more
            yield row             # then its input ends early (cancelled) after 30 rows

    assert write(first_attempt(), commit_every=50, batch_id=0).rows == 30
    assert "wrote nothing" in outcome["refused"]
    replay = write.other(rows(100), commit_every=50, batch_id=0)      # the lock is free now
    assert (replay.rows_skipped, replay.messages) == (30, 70)
    assert numbers_on(conn, write.queue) == list(range(100))


def test_a_ledger_closed_after_its_queue_manager_died_says_the_connection_was_lost(tmp_path):
    """The chaos run's qm_restart found it: a writer task whose queue manager restarted just
    as it closed its ledger failed with ibmmq's own 2009, which the writer's retry does not
    know; it is a connector error of a lost connection now, and the task rides it out."""
    import spark_mq.embedded as embedded
    from spark_mq.mq.exceptions import connection_lost
    own = embedded.EmbeddedQueueManager(str(tmp_path / "qm"), name="QMLEDGER").start()
    try:
        options = parse_connection(mq_options(own))
        producer, _ = producer_pool.acquire(options, ProducerSettings())
        ensure_state_queue(producer.qmgr, ibmmq, STATE, options)
        ledger = ChunkLedger(producer.qmgr, ibmmq, STATE, "unit-ledger", 0, 60_000)
        own.kill()
        with pytest.raises(MQConnectorError) as lost:
            ledger.close()
        assert connection_lost(lost.value), lost.value
        assert "closing the exactly-once state queue" in str(lost.value)
        producer_pool.release(options, ProducerSettings(), producer, healthy=False)
    finally:
        own.stop()
