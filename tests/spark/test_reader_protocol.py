"""The driver-side offset protocol of MQStreamReader, driven call by call the way Spark calls
it (see spark_mq/reader/stream.py), against the real embedded queue manager. The end-to-end proof
with real Spark and SIGKILL is test_reader_exactly_once.py; these pin down each step."""
from __future__ import annotations

import json
import pickle

import pytest
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxRows
from pyspark.sql.types import BinaryType, StringType, StructField, StructType

from spark_mq.options import ReadOptions
from spark_mq.reader import MQStreamReader
from support import depth, drain_payloads, put_messages, reader_options, wait_for

SCHEMA = StructType([StructField("payload", BinaryType()), StructField("queue", StringType())])


def _reader(qm, queue, **extra) -> MQStreamReader:
    return MQStreamReader(ReadOptions.parse(reader_options(qm, queue, waitIntervalMs=0, **extra)),
                          SCHEMA)


def _payloads(reader: MQStreamReader, start: dict, end: dict) -> list[bytes]:
    """What the executors would produce for this batch (partitions pickled, like Spark)."""
    executor_copy = pickle.loads(pickle.dumps(reader))
    out = []
    for partition in reader.partitions(start, end):
        for batch in executor_copy.read(pickle.loads(pickle.dumps(partition))):
            out.extend(batch.column("payload").to_pylist())
    return out


def _offset(offset: dict) -> dict:
    return json.loads(json.dumps(offset))  # what Spark's offset log gives back


def _first_batch_of_six(own, ibmmq, limit, **extra) -> tuple[MQStreamReader, dict, dict, list[bytes]]:
    """Six messages m0..m5 on R.Q of `own`, a reader of two a batch, and its first batch:
    (reader, start, end of batch 1, what it delivered)."""
    own.run_mqsc("DEFINE QLOCAL(R.Q) REPLACE")
    conn = ibmmq.connect(own.name, own.channel, own.conn_name)
    put_messages(conn, "R.Q", [b"m%d" % i for i in range(6)])
    conn.disconnect()
    reader = _reader(own, "R.Q", maxMessagesPerTrigger=2, **extra)
    start = _offset(reader.initialOffset())
    end = _offset(reader.latestOffset(start, limit))
    return reader, start, end, _payloads(reader, start, end)


@pytest.mark.parametrize("prefetch", ["true", "false"])
def test_a_replayed_batch_redelivers_exactly_its_messages(qm, conn, make_queue, prefetch):
    queue = make_queue()
    put_messages(conn, queue, [b"m%d" % i for i in range(10)])
    first = _reader(qm, queue, maxMessagesPerTrigger=4, prefetch=prefetch)
    start = _offset(first.initialOffset())
    end = _offset(first.latestOffset(start, ReadAllAvailable()))
    assert _payloads(first, start, end) == [b"m0", b"m1", b"m2", b"m3"]
    first.stop()                     # the driver dies before Spark commits the batch
    assert depth(conn, queue) == 10  # held (and prefetched) gets were backed out

    restarted = _reader(qm, queue, maxMessagesPerTrigger=4, prefetch=prefetch)
    assert _payloads(restarted, start, end) == [b"m0", b"m1", b"m2", b"m3"]   # by id
    following = _offset(restarted.latestOffset(end, ReadAllAvailable()))  # batch is durable
    assert _payloads(restarted, end, following) == [b"m4", b"m5", b"m6", b"m7"]
    restarted.latestOffset(following, ReadAllAvailable())
    restarted.stop()
    assert sorted(p for p, _ in drain_payloads(conn, queue)) == [b"m8", b"m9"]


@pytest.mark.parametrize("prefetch", ["true", "false"])
def test_a_batch_spark_finished_but_mq_did_not_commit_is_removed(qm, conn, make_queue, prefetch):
    queue = make_queue()
    put_messages(conn, queue, [b"m%d" % i for i in range(6)])
    first = _reader(qm, queue, maxMessagesPerTrigger=3, prefetch=prefetch)
    start = _offset(first.initialOffset())
    end = _offset(first.latestOffset(start, ReadAllAvailable()))
    assert _payloads(first, start, end) == [b"m0", b"m1", b"m2"]
    first.stop()   # Spark committed the batch, then the driver died before MQCMIT

    restarted = _reader(qm, queue, maxMessagesPerTrigger=3, prefetch=prefetch)
    following = _offset(restarted.latestOffset(end, ReadAllAvailable()))
    assert _payloads(restarted, end, following) == [b"m3", b"m4", b"m5"]  # not m0-m2 again
    assert restarted.latestOffset(following, ReadAllAvailable()) == following   # queue empty
    restarted.stop()
    assert depth(conn, queue) == 0


def test_nothing_is_committed_before_spark_has_the_batch(qm, conn, make_queue):
    queue = make_queue()
    put_messages(conn, queue, [b"a"])
    reader = _reader(qm, queue, prefetch="false")
    start = _offset(reader.initialOffset())
    end = _offset(reader.latestOffset(start, ReadAllAvailable()))
    reader.commit(start)                          # an older offset commits nothing
    assert drain_payloads(conn, queue) == []               # a is held in the open unit of work
    reader.stop()                                 # the driver goes away: a comes back
    assert [p for p, _ in drain_payloads(conn, queue)] == [b"a"]

    put_messages(conn, queue, [b"b"])
    reader = _reader(qm, queue, prefetch="false")
    end = _offset(reader.latestOffset(start, ReadAllAvailable()))
    reader.commit(end)                            # Spark's commit of the batch: MQCMIT
    reader.stop()
    assert drain_payloads(conn, queue) == []


def test_available_now_stops_at_the_depth_seen_at_start(qm, conn, make_queue):
    queue = make_queue()
    put_messages(conn, queue, [b"m%d" % i for i in range(5)])
    reader = _reader(qm, queue, maxMessagesPerTrigger=2)
    offset = _offset(reader.initialOffset())
    reader.prepareForTriggerAvailableNow()
    put_messages(conn, queue, [b"late"])          # arrives after the trigger started
    delivered = []
    while True:
        end = _offset(reader.latestOffset(offset, ReadAllAvailable()))
        if end == offset:
            break
        delivered += _payloads(reader, offset, end)
        offset = end
    reader.stop()
    assert delivered == [b"m0", b"m1", b"m2", b"m3", b"m4"]
    assert [p for p, _ in drain_payloads(conn, queue)] == [b"late"]


@pytest.mark.parametrize("prefetch", ["true", "false"])
def test_queue_manager_restart_between_batches(tmp_path, ibmmq, prefetch, caplog):
    """SIGKILL of the queue manager while a batch is held (and the next one prefetched):
    their gets are backed out; the reader reconnects, takes the finished batch off by id,
    does not deliver again what the prefetched batch had, and goes on."""
    import spark_mq.embedded as embedded
    with embedded.EmbeddedQueueManager(str(tmp_path / "qm"), name="QMR") as own:
        reader, start, end, delivered = _first_batch_of_six(own, ibmmq, ReadAllAvailable(), prefetch=prefetch)
        if reader._prefetch is not None:
            reader._prefetch.future.result(timeout=30)  # m2, m3 gotten before the kill
        own.kill()
        own.start()   # same port, same store: the held gets are back on the queue
        offset = end
        while True:
            following = _offset(reader.latestOffset(offset, ReadAllAvailable()))
            if following == offset:
                break
            delivered += _payloads(reader, offset, following)
            offset = following
        reader.stop()
        assert delivered == [b"m%d" % i for i in range(6)]
        if prefetch == "true":
            assert "not delivered again" in caplog.text
        conn = ibmmq.connect(own.name, own.channel, own.conn_name)
        assert depth(conn, "R.Q") == 0
        conn.disconnect()


def _batches_until_empty(reader: MQStreamReader, offset: dict, limit) -> list[bytes]:
    """Spark's triggers until one finds the queue empty (a trigger given back during an
    outage ends without a batch too: the outage must be over for the loop to end)."""
    delivered = []
    while True:
        following = _offset(reader.latestOffset(offset, limit))
        if following == offset and reader.reportLatestOffset()["outage"] is None:
            return delivered
        delivered += _payloads(reader, offset, following)
        offset = following


def test_messages_that_came_back_twice_are_still_not_delivered_again(
        tmp_path, ibmmq, monkeypatch, caplog):
    """A queue manager restart while batch 1 is held and batch 2 prefetched: batch 2's gets
    come back, and the prefetch made for batch 3 on the other connection gets them again
    before batch 2's MQCMIT (lost with its connection) can remove them by id. So batch 3's
    gets are only messages batch 2 delivered, and its commit consumes them; if that commit
    is lost too (the queue manager dies at it, fail point "commit-begun"), they come back a
    second time. They were delivered once; they must not be delivered again."""
    import spark_mq.embedded as embedded
    every_trigger = ReadMaxRows(2)   # a processing-time trigger: it gives back during an outage
    with embedded.EmbeddedQueueManager(str(tmp_path / "qm"), name="QMR") as own:
        reader, start, first, delivered = _first_batch_of_six(own, ibmmq, every_trigger)
        reader._prefetch.future.result(timeout=30)      # m2, m3 gotten for batch 2
        own.kill()
        # the restarted queue manager dies at its second commit with work: batch 3's
        # (its first is the removal by id of batch 1, which came back)
        monkeypatch.setenv("SPARK_MQ_FAULT", "commit-begun:2")
        own.start()
        monkeypatch.delenv("SPARK_MQ_FAULT")
        second = _offset(reader.latestOffset(first, every_trigger))
        delivered += _payloads(reader, first, second)   # m2, m3 from the prefetched gets
        reader._prefetch.future.result(timeout=30)      # batch 3's prefetch: m2, m3 again
        assert _offset(reader.latestOffset(second, every_trigger)) == second  # no batch...
        assert not own.running                          # ...its commit killed the queue manager
        own.kill()
        own.start()                                     # m2, m3 are back a second time
        delivered += _batches_until_empty(reader, second, every_trigger)
        reader.stop()
        assert delivered == [b"m%d" % i for i in range(6)]
        conn = ibmmq.connect(own.name, own.channel, own.conn_name)
        assert depth(conn, "R.Q") == 0
        conn.disconnect()


def test_messages_that_came_back_into_a_held_batch_go_with_it_when_its_commit_is_lost(
        tmp_path, ibmmq):
    """As above, but the prefetch for batch 3 also got a new message (put with a higher
    priority, so it comes before what came back): batch 3 holds it and, in its unit of work,
    m2 that batch 2 delivered. Its commit lost in a restart gives m2 back once more: batch
    3's removal by id must take m2 off as well as its own message."""
    import spark_mq.embedded as embedded
    with embedded.EmbeddedQueueManager(str(tmp_path / "qm"), name="QMR") as own:
        reader, start, first, delivered = _first_batch_of_six(own, ibmmq, ReadAllAvailable())
        reader._prefetch.future.result(timeout=30)      # m2, m3 gotten for batch 2
        own.kill()
        own.start()
        conn = ibmmq.connect(own.name, own.channel, own.conn_name)
        put_messages(conn, "R.Q", [b"high"], md_fields={"Priority": 9})
        conn.disconnect()
        second = _offset(reader.latestOffset(first, ReadAllAvailable()))
        delivered += _payloads(reader, first, second)   # m2, m3 from the prefetched gets
        reader._prefetch.future.result(timeout=30)      # batch 3's prefetch: high, m2
        third = _offset(reader.latestOffset(second, ReadAllAvailable()))
        delivered += _payloads(reader, second, third)   # high alone: m2 was delivered
        reader._prefetch.future.result(timeout=30)      # m4, m5 gotten for batch 4
        own.kill()                                      # batch 3's commit will be lost
        own.start()
        delivered += _batches_until_empty(reader, third, ReadAllAvailable())
        reader.stop()
        assert delivered == [b"m0", b"m1", b"m2", b"m3", b"high", b"m4", b"m5"]
        conn = ibmmq.connect(own.name, own.channel, own.conn_name)
        assert depth(conn, "R.Q") == 0
        conn.disconnect()


def _start_after_failed_attempts(qm, queue: str, attempts: int,
                                 outcome: list[BaseException | None]) -> None:
    """Start `qm` again once the reader of `queue` has failed to reconnect `attempts` times
    (what its progress shows as the outage's attempts): the reader is then waiting in its
    back-off, whatever the machine's speed. `outcome` gets None, or what went wrong."""
    from spark_mq.mq.connecting import outage_now
    from spark_mq.reader.slots import reading_what
    try:
        wait_for(lambda: (outage_now(reading_what(queue)) or {}).get("attempts", 0) >= attempts,
                 60)
        qm.start()
        outcome.append(None)
    except BaseException as exc:  # noqa: BLE001 - the test thread asserts on it
        outcome.append(exc)


def test_a_queue_manager_away_for_a_while_is_waited_for_and_one_away_too_long_fails_clearly(
        tmp_path, ibmmq):
    """The queue manager is down when the next batch is due: the reader connects again with
    back-off and goes on (reconnectTimeoutMs 60 s); with 1.5 s it fails with one error that
    names the option, and a new reader on the same offsets goes on without loss."""
    import threading

    import spark_mq.embedded as embedded
    from spark_mq.errors import MQConnectorError
    with embedded.EmbeddedQueueManager(str(tmp_path / "qm"), name="QMR") as own:
        reader, start, first, delivered = _first_batch_of_six(own, ibmmq, ReadAllAvailable())
        own.kill()
        restarted: list[BaseException | None] = []
        comes_back = threading.Thread(target=_start_after_failed_attempts,
                                      args=(own, "R.Q", 2, restarted))
        comes_back.start()
        second = _offset(reader.latestOffset(first, ReadAllAvailable()))  # waits for it
        comes_back.join()
        assert restarted == [None]
        outage = reader.reportLatestOffset()["lastOutage"]
        assert outage["attempts"] >= 2 and outage["since"] < outage["ended"]
        delivered += _payloads(reader, first, second)
        reader.stop()

        impatient = _reader(own, "R.Q", maxMessagesPerTrigger=2, reconnectTimeoutMs=1500)
        following = _offset(impatient.latestOffset(second, ReadAllAvailable()))
        delivered += _payloads(impatient, second, following)
        own.kill()
        with pytest.raises(MQConnectorError, match="reconnectTimeoutMs") as failure:
            impatient.latestOffset(following, ReadAllAvailable())
        assert "1500 ms" in str(failure.value)
        impatient.stop()
        own.start()
        restarted = _reader(own, "R.Q", maxMessagesPerTrigger=2)   # the same checkpoint
        assert _payloads(restarted, second, following) == delivered[-2:]   # replayed by id
        last = _offset(restarted.latestOffset(following, ReadAllAvailable()))
        assert _offset(restarted.latestOffset(last, ReadAllAvailable())) == last
        restarted.stop()
        assert delivered == [b"m%d" % i for i in range(6)]
        conn = ibmmq.connect(own.name, own.channel, own.conn_name)
        assert depth(conn, "R.Q") == 0
        conn.disconnect()


def test_a_short_prefetched_batch_is_topped_up(qm, conn, make_queue):
    queue = make_queue()
    put_messages(conn, queue, [b"m0"])
    reader = _reader(qm, queue, maxMessagesPerTrigger=5)
    start = _offset(reader.initialOffset())
    end = _offset(reader.latestOffset(start, ReadAllAvailable()))
    reader._prefetch.future.result(timeout=30)    # found the queue empty
    put_messages(conn, queue, [b"m1", b"m2", b"m3"])
    following = _offset(reader.latestOffset(end, ReadAllAvailable()))
    assert _payloads(reader, end, following) == [b"m1", b"m2", b"m3"]
    reader.stop()


# --- a restart while the old driver's connection still holds the finished batch ---------
@pytest.mark.parametrize("prefetch", ["true", "false"])
def test_a_restart_waits_for_the_old_drivers_unit_of_work_before_removing_its_batch(
        qm, conn, make_queue, prefetch):
    """The old driver is not dead to the queue manager (a stopped process, a network
    partition): its unit of work still locks the batch Spark finished. The restarted reader
    must not read past it, or those messages come back when that work is backed out and
    are delivered twice (issue 14)."""
    import threading
    queue = make_queue()
    put_messages(conn, queue, [b"m%d" % i for i in range(6)])
    old = _reader(qm, queue, maxMessagesPerTrigger=3, prefetch=prefetch)
    start = _offset(old.initialOffset())
    end = _offset(old.latestOffset(start, ReadAllAvailable()))
    assert _payloads(old, start, end) == [b"m0", b"m1", b"m2"]
    # Spark committed the batch; the old driver is frozen with its unit of work open
    restarted = _reader(qm, queue, maxMessagesPerTrigger=3, prefetch=prefetch)
    answer: dict = {}
    waiting = threading.Thread(target=lambda: answer.update(
        offset=restarted.latestOffset(end, ReadAllAvailable())))
    waiting.start()
    waiting.join(2.0)
    assert waiting.is_alive()           # it waits for the old connection...
    old.stop()                          # ...which the queue manager finally backs out
    waiting.join(60)
    assert not waiting.is_alive()
    following = _offset(answer["offset"])
    assert _payloads(restarted, end, following) == [b"m3", b"m4", b"m5"]   # not m0-m2 again
    assert restarted.latestOffset(following, ReadAllAvailable()) == following
    restarted.stop()
    assert depth(conn, queue) == 0


def test_the_wait_for_an_old_drivers_unit_of_work_is_bounded_and_names_the_option(
        qm, conn, make_queue):
    from spark_mq.errors import MQConnectorError
    queue = make_queue()
    put_messages(conn, queue, [b"m%d" % i for i in range(4)])
    old = _reader(qm, queue, maxMessagesPerTrigger=2, prefetch="false")
    start = _offset(old.initialOffset())
    end = _offset(old.latestOffset(start, ReadAllAvailable()))
    restarted = _reader(qm, queue, maxMessagesPerTrigger=2, prefetch="false",
                        orphanedWorkTimeoutMs=500)
    try:
        with pytest.raises(MQConnectorError, match="orphanedWorkTimeoutMs"):
            restarted.latestOffset(end, ReadAllAvailable())
    finally:
        old.stop()
        restarted.stop()
    assert depth(conn, queue) == 4      # nothing was taken while the old work was open
