"""readMode executors in real Spark (local[2]) against a real embedded queue manager: each
partition gets its share on the executor, exactly once through claims and records on the
state queue (spark_mq/reader/executors.py)."""
from __future__ import annotations

import pytest
from ibmmq import CMQC

from support import depth, put_group, put_messages, reader_options, run_available_now

pytestmark = pytest.mark.spark


def executor_options(qm, queue, state_queue, **extra):
    return reader_options(qm, queue, readMode="executors", stateQueue=state_queue, **extra)


def test_every_message_once_in_parallel_partitions(qm, conn, make_queue, spark, tmp_path):
    queue, state = make_queue(), make_queue(prefix="STATE.Q")
    payloads = [b"m%04d" % i for i in range(1000)]
    put_messages(conn, queue, payloads)
    rows, query = run_available_now(
        spark, executor_options(qm, queue, state, maxMessagesPerTrigger=300, numPartitions=3),
        tmp_path, select=("payload", "queue"))
    assert sorted(r.payload for r in rows) == payloads
    batches = [p["numInputRows"] for p in query.recentProgress if p["numInputRows"]]
    assert sum(batches) == 1000 and max(batches) <= 300, batches
    assert depth(conn, queue) == 0
    assert depth(conn, state) == 0       # claims and records of committed batches are gone


def test_groups_stay_whole_and_poison_goes_to_the_backout_queue(qm, conn, make_queue, spark, tmp_path):
    backout = make_queue()
    queue, state = make_queue(f"BOTHRESH(2) BOQNAME({backout})"), make_queue(prefix="STATE.Q")
    put_messages(conn, queue, [b"poison"])
    # make the first message poison: get it twice under syncpoint and back out
    import ibmmq
    q = ibmmq.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED)
    for _ in range(2):
        gmo = ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT)
        assert q.get(None, ibmmq.MD(), gmo) == b"poison"
        conn.backout()
    q.close()
    put_group(conn, queue, [b"g1", b"g2", b"g3"])
    put_messages(conn, queue, [b"plain"])
    rows, _ = run_available_now(spark, executor_options(qm, queue, state, numPartitions=2), tmp_path,
                                select=("payload",))
    assert sorted(r.payload for r in rows) == [b"g1", b"g2", b"g3", b"plain"]
    assert depth(conn, backout) == 1 and depth(conn, queue) == 0


def test_a_replayed_partition_emits_its_record(qm, conn, make_queue, spark, tmp_path):
    """A task run twice (Spark's retry) finds the first attempt's record: the same rows, no
    new gets."""
    queue, state = make_queue(), make_queue(prefix="STATE.Q")
    put_messages(conn, queue, [b"a%d" % i for i in range(20)])
    from pyspark.sql.types import StructType

    from spark_mq.options import ReadOptions
    from spark_mq.reader.executors import MQExecutorStreamReader
    schema = StructType.fromDDL("payload binary")
    reader = MQExecutorStreamReader(ReadOptions.parse(executor_options(qm, queue, state)), schema)
    start = reader.initialOffset()
    end = reader.latestOffset(start, reader.getDefaultReadLimit())
    [first, second] = reader.partitions(start, end)
    rows = [list(reader.read(first)), list(reader.read(second))]
    again = list(reader.read(first))
    payloads = lambda batches: [p for b in batches for p in b.column("payload").to_pylist()]  # noqa: E731
    assert payloads(again) == payloads(rows[0])
    assert sorted(payloads(rows[0]) + payloads(rows[1])) == sorted(b"a%d" % i for i in range(20))
    assert depth(conn, queue) == 0
    reader.commit(end)
    assert depth(conn, state) == 0
    reader.stop()


def test_delivery_other_than_exactly_once_is_refused(qm, make_queue):
    from spark_mq.mq.exceptions import MQOptionError
    from spark_mq.options import ReadOptions
    with pytest.raises(MQOptionError, match="option 'delivery'.*exactlyOnce with readMode executors"):
        ReadOptions.parse(reader_options(qm, make_queue(), readMode="executors", delivery="atLeastOnce"))


def _reader_and_partition(qm, queue, state, **extra):
    from pyspark.sql.types import BinaryType, StructField, StructType

    from spark_mq.options import ReadOptions
    from spark_mq.reader.executors import MQExecutorStreamReader
    reader = MQExecutorStreamReader(ReadOptions.parse(executor_options(qm, queue, state, numPartitions=1,
                                                                       **extra)),
                                    StructType([StructField("payload", BinaryType())]))
    start = reader.initialOffset()
    end = reader.latestOffset(start, reader.getDefaultReadLimit())
    [partition] = reader.partitions(start, end)
    return reader, partition


def _payloads(batches) -> list[bytes]:
    return [p for b in batches for p in b.column("payload").to_pylist()]


def _read_in_thread(reader, partition):
    import threading
    result: dict = {}

    def run():
        try:
            result["rows"] = _payloads(reader.read(partition))
        except Exception as exc:  # noqa: BLE001 - handed to the test
            result["error"] = exc
    thread = threading.Thread(target=run)
    thread.start()
    return thread, result


def test_an_attempt_waits_for_the_one_holding_the_claim_and_emits_its_record(qm, conn, make_queue):
    """Two attempts of one partition (a speculative copy): the second finds the claim taken,
    waits, and emits exactly what the first recorded; it gets nothing itself."""
    import ibmmq

    from spark_mq.mq.claims import StateQueue
    from spark_mq.reader.executors import _ipc
    queue, state = make_queue(), make_queue(prefix="STATE.Q")
    put_messages(conn, queue, [b"left alone"])
    reader, partition = _reader_and_partition(qm, queue, state)
    first = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    holder = StateQueue(ibmmq, first, state)
    assert holder.take_claim(partition.key)                 # the first attempt holds the claim
    thread, result = _read_in_thread(reader, partition)     # the second waits for it
    import pyarrow as pa
    schema = pa.schema([("payload", pa.binary())])
    recorded = pa.record_batch([pa.array([b"as recorded"], pa.binary())], schema=schema)
    holder.put_record(partition.key, _ipc(schema, [recorded]), 1)
    first.commit()
    thread.join(60)
    assert result == {"rows": [b"as recorded"]}
    assert depth(conn, queue) == 1                          # the second attempt got nothing
    holder.close()
    first.disconnect()
    reader.stop()


def test_a_failed_attempts_claim_comes_back_and_the_next_attempt_reads(qm, conn, make_queue):
    import ibmmq

    from spark_mq.mq.claims import StateQueue
    queue, state = make_queue(), make_queue(prefix="STATE.Q")
    put_messages(conn, queue, [b"one", b"two"])
    reader, partition = _reader_and_partition(qm, queue, state)
    first = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    holder = StateQueue(ibmmq, first, state)
    assert holder.take_claim(partition.key)
    thread, result = _read_in_thread(reader, partition)
    first.backout()                                         # the first attempt fails
    thread.join(60)
    assert sorted(result["rows"]) == [b"one", b"two"]
    assert depth(conn, queue) == 0
    holder.close()
    first.disconnect()
    reader.stop()


def test_reference_pairs_segments_selectors_and_typed_properties(qm, conn, make_queue, spark, tmp_path):
    """The reader's message features hold on the executors too: the selector picks, the
    reference/data pair (with a segmented data message) is one row, properties are columns."""
    from support import put_reference_pair
    queue, state = make_queue("MAXMSGL(4096)"), make_queue(prefix="STATE.Q")
    big = bytes(range(256)) * 64
    put_reference_pair(conn, queue, big, {"colour": ("green", CMQC.MQTYPE_STRING, 5)})
    put_messages(conn, queue, [b"red one", b"green one"], properties=[
        {"colour": ("red", CMQC.MQTYPE_STRING, 3)}, {"colour": ("green", CMQC.MQTYPE_STRING, 5)}])
    rows, _ = run_available_now(spark, executor_options(qm, queue, state, selector="colour = 'green'"),
                                tmp_path, schema="payload binary, colour string")
    assert sorted((r.payload, r.colour) for r in rows) == sorted([(big, "green"), (b"green one", "green")])
    assert depth(conn, queue) == 1                       # the red one stays


def test_max_bytes_per_trigger_shares_out_among_partitions(qm, conn, make_queue, spark, tmp_path):
    queue, state = make_queue(), make_queue(prefix="STATE.Q")
    put_messages(conn, queue, [b"x" * 100] * 12)
    rows, query = run_available_now(spark, executor_options(qm, queue, state, maxBytesPerTrigger=400,
                                                            numPartitions=2), tmp_path, select=("payload",))
    assert len(rows) == 12
    # each partition takes up to 200 bytes (at least one message): 2 x 2 messages a batch
    assert [p["numInputRows"] for p in query.recentProgress if p["numInputRows"]] == [4, 4, 4]


def test_available_now_after_a_restart_does_not_count_earlier_batches(qm, conn, make_queue):
    """A restarted query's Trigger.AvailableNow takes the depth at its start; the records of a
    batch committed before the restart, removed only now, must not count against it."""
    queue, state = make_queue(), make_queue(prefix="STATE.Q")
    put_messages(conn, queue, [b"r%02d" % i for i in range(20)])
    from pyspark.sql.types import BinaryType, StructField, StructType

    from spark_mq.options import ReadOptions
    from spark_mq.reader.executors import MQExecutorStreamReader
    options = ReadOptions.parse(executor_options(qm, queue, state, numPartitions=1, maxMessagesPerTrigger=10))
    first = MQExecutorStreamReader(options, StructType([StructField("payload", BinaryType())]))
    start = first.initialOffset()
    first.prepareForTriggerAvailableNow()
    end = first.latestOffset(start, first.getDefaultReadLimit())
    [partition] = first.partitions(start, end)
    assert len(_payloads(first.read(partition))) == 10
    first.stop()                       # Spark committed batch 1; its records are still there
    second = MQExecutorStreamReader(first.options, first.schema)     # the restarted query
    second.prepareForTriggerAvailableNow()                           # depth 10 now
    following = second.latestOffset(end, second.getDefaultReadLimit())
    assert following["batch"] == end["batch"] + 1                    # the other 10 are planned
    [rest] = second.partitions(end, following)
    assert len(_payloads(second.read(rest))) == 10
    second.commit(following)
    assert second.latestOffset(following, second.getDefaultReadLimit()) == following   # done
    assert depth(conn, queue) == 0 and depth(conn, state) == 0
    second.stop()


def _open_input_count(conn, queue: str) -> int:
    import ibmmq
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_INQUIRE)
    try:
        return int(handle.inquire(CMQC.MQIA_OPEN_INPUT_COUNT))
    finally:
        handle.close()


def test_a_worker_keeps_its_tasks_connection_for_the_next_task_and_closes_it_when_idle(
        qm, conn, make_queue):
    """A task's connection outlives it (no MQCONNX, MQOPENs and MQINQs per partition): the
    next task of the worker takes it, and an idle one is closed (its queues with it)."""
    from spark_mq.reader import task_connections
    queue, state = make_queue(), make_queue(prefix="STATE.Q")
    put_messages(conn, queue, [b"k%d" % i for i in range(6)])
    reader, partition = _reader_and_partition(qm, queue, state, maxMessagesPerTrigger=3)
    assert _payloads(reader.read(partition)) == [b"k0", b"k1", b"k2"]
    assert _open_input_count(conn, queue) == 1          # kept, its unit of work committed
    following = reader.latestOffset({"reader": partition.key.reader, "batch": 1},
                                    reader.getDefaultReadLimit())
    [next_partition] = reader.partitions({"reader": partition.key.reader, "batch": 1}, following)
    assert _payloads(reader.read(next_partition)) == [b"k3", b"k4", b"k5"]
    assert _open_input_count(conn, queue) == 1          # the same one, not a second
    assert depth(conn, queue) == 0
    assert task_connections.close_idle(0) >= 1
    assert _open_input_count(conn, queue) == 0
    reader.stop()


def test_a_kept_connection_broken_by_a_queue_manager_restart_is_replaced(tmp_path, ibmmq):
    """The queue manager restarts between two tasks of a worker: the kept connection is
    broken, the next task reads on a new one, and every message is delivered once."""
    import spark_mq.embedded as embedded
    with embedded.EmbeddedQueueManager(str(tmp_path / "qm"), name="QMK") as own:
        own.run_mqsc("DEFINE QLOCAL(K.Q) REPLACE\nDEFINE QLOCAL(K.STATE) REPLACE")
        direct = ibmmq.connect(own.name, own.channel, own.conn_name)
        put_messages(direct, "K.Q", [b"r%d" % i for i in range(4)])
        direct.disconnect()
        reader, partition = _reader_and_partition(own, "K.Q", "K.STATE", maxMessagesPerTrigger=2)
        delivered = _payloads(reader.read(partition))
        own.kill()
        own.start()          # same port, same store: the kept connection is now broken
        start = {"reader": partition.key.reader, "batch": 1}
        following = reader.latestOffset(start, reader.getDefaultReadLimit())
        [next_partition] = reader.partitions(start, following)
        delivered += _payloads(reader.read(next_partition))
        reader.commit(following)
        reader.stop()
        assert delivered == [b"r0", b"r1", b"r2", b"r3"]
        direct = ibmmq.connect(own.name, own.channel, own.conn_name)
        assert depth(direct, "K.Q") == 0 and depth(direct, "K.STATE") == 0
        direct.disconnect()
