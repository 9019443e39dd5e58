"""The reader option queueManagers: one query over a queue on several real embedded queue
managers (no channels: the queue is simply defined on each), with real Spark. Every message
is counted: each once, each row's `queue_manager` naming where it was, nothing left behind;
through kills of the driver (real processes, as tests/spark/test_reader_exactly_once.py) and
of one member (a fail point ends it at its first commit, and it comes back later)."""
from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest

from channel_topology import connect, fresh_queue, members, start, wait_for
from crash_driver import Driver
from spark_mq.errors import MQOptionError
from spark_mq.options import ReadOptions
from support import depth, put_messages, run_available_now


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """QMA and QMB, each its own process."""
    folder = tmp_path_factory.mktemp("pair")
    managers = {name: start(folder, name) for name in ("QMA", "QMB")}
    yield managers
    for manager in managers.values():
        manager.stop()




def multi_options(managers, queue: str, **extra) -> dict[str, str]:
    return {"queueManagers": members(*managers), "queue": queue, "transport": "embedded",
            **{k: str(v) for k, v in extra.items()}}


def put(manager, queue: str, prefix: str, count: int, first: int = 0) -> list[str]:
    payloads = [f"{prefix}{n:04d}" for n in range(first, first + count)]
    conn = connect(manager)
    try:
        put_messages(conn, queue, [p.encode() for p in payloads])
    finally:
        conn.disconnect()
    return payloads


def depth_of(manager, queue: str) -> int:
    conn = connect(manager)
    try:
        return depth(conn, queue)
    finally:
        conn.disconnect()


# --- the option --------------------------------------------------------------------------
def test_queue_managers_instead_of_conn_name_and_queue_manager():
    options = ReadOptions.parse({"queueManagers": "QMA@host1(1414), QMB@host2(1415),host3(1415)",
                                 "queue": "ORDERS", "channel": "APP.SVRCONN"})
    found = [(c.queue_manager, c.conn_name, c.channel) for c in options.queue_managers]
    assert found == [("QMA", "host1(1414)", "APP.SVRCONN"),
                     ("QMB", "host2(1415),host3(1415)", "APP.SVRCONN")]
    assert [m.connection.queue_manager for m in options.members()] == ["QMA", "QMB"]
    assert all(not m.queue_managers for m in options.members())


@pytest.mark.parametrize("extra, named", [
    ({"connName": "host(1414)"}, ("'queueManagers'", "'connName'")),
    ({"queueManager": "QM1"}, ("'queueManagers'", "'queueManager'")),
    ({"connName": "host(1414)", "queueManager": "QM1"}, ("'connName' and 'queueManager'",)),
])
def test_queue_managers_beside_conn_name_or_queue_manager_is_an_error_naming_both(extra, named):
    with pytest.raises(MQOptionError) as refused:
        ReadOptions.parse({"queueManagers": "QMA@host(1414)", "queue": "ORDERS", **extra})
    assert all(name in str(refused.value) for name in named)


@pytest.mark.parametrize("value, entry", [
    ("QMA@host(1414),QMB@host", "'QMB@host'"),
    ("QMA@host(1414),,QMB@h(1)", "''"),
    ("QMA@host(port)", "'QMA@host(port)'"),
    ("BAD NAME@h(1)", "'BAD NAME@h(1)'"),
])
def test_a_malformed_entry_is_named_with_the_valid_form(value, entry):
    with pytest.raises(MQOptionError) as refused:
        ReadOptions.parse({"queueManagers": value, "queue": "ORDERS"})
    message = str(refused.value)
    assert f"invalid value {entry}" in message and "NAME@host(port)" in message


def test_a_name_without_an_address_needs_a_ccdt_and_a_name_twice_is_refused():
    with pytest.raises(MQOptionError) as refused:
        ReadOptions.parse({"queueManagers": "QMA@h(1),QMB", "queue": "ORDERS"})
    assert "invalid value 'QMB'" in str(refused.value) and "ccdtUrl" in str(refused.value)
    with pytest.raises(MQOptionError) as refused:
        ReadOptions.parse({"queueManagers": "QMA@h(1),QMA@h(2)", "queue": "ORDERS"})
    assert "QMA is named 2 times" in str(refused.value)


def test_queue_managers_reads_a_queue_not_a_topic():
    with pytest.raises(MQOptionError) as refused:
        ReadOptions.parse({"queueManagers": "QMA@h(1)", "topic": "orders/#"})
    assert "option topic" in str(refused.value)


def test_a_checkpoint_of_a_one_queue_manager_read_is_not_taken_over(spark):
    from pyspark.sql.streaming.datasource import ReadMaxRows
    from pyspark.sql.types import StructType

    from spark_mq.columns import default_schema
    from spark_mq.reader.queue_managers import MQQueueManagersStreamReader
    reader = MQQueueManagersStreamReader(
        {"queueManagers": "QMA@h(1),QMB@h(2)", "queue": "ORDERS"},
        StructType.fromDDL(default_schema()))
    with pytest.raises(MQOptionError) as refused:
        reader.latestOffset({"seq": 3, "ids": ""}, ReadMaxRows(10))
    assert "checkpointLocation of its own" in str(refused.value)


# --- (a) a batch read --------------------------------------------------------------------
def test_a_batch_read_browses_the_queue_on_every_queue_manager(pair, spark):
    queue = fresh_queue(*pair.values())
    wanted = {"QMA": put(pair["QMA"], queue, "A", 3), "QMB": put(pair["QMB"], queue, "B", 2)}
    rows = (spark.read.format("mq").options(**multi_options(pair.values(), queue)).load()
            .select("queue_manager", "queue", "payload").collect())
    found = collections.defaultdict(list)
    for row in rows:
        assert row.queue == queue
        found[row.queue_manager].append(bytes(row.payload).decode())
    assert {name: sorted(payloads) for name, payloads in found.items()} == wanted
    assert depth_of(pair["QMA"], queue) == 3 and depth_of(pair["QMB"], queue) == 2


def test_a_batch_read_through_a_ccdt_takes_plain_names(pair, spark, tmp_path):
    queue = fresh_queue(*pair.values())
    put(pair["QMA"], queue, "A", 1)
    put(pair["QMB"], queue, "B", 1)
    entries = [{"name": "DEV.APP.SVRCONN", "type": "clientConnection",
                "clientConnection": {"queueManager": m.name, "connection": [
                    {"host": m.conn_name.split("(")[0], "port": int(m.port)}]}}
               for m in pair.values()]
    ccdt = tmp_path / "ccdt.json"
    ccdt.write_text(json.dumps({"channel": entries}))
    options = {"queueManagers": "QMA,QMB", "ccdtUrl": f"file://{ccdt}", "queue": queue,
               "transport": "embedded"}
    rows = spark.read.format("mq").options(**options).load().select("queue_manager", "payload")
    assert sorted((r.queue_manager, bytes(r.payload)) for r in rows.collect()) == [
        ("QMA", b"A0000"), ("QMB", b"B0000")]


def test_a_batch_read_with_a_queue_manager_down_fails_naming_it(tmp_path, pair, spark):
    down = start(tmp_path, "QMD")
    queue = fresh_queue(pair["QMA"], down)
    down.stop()
    options = multi_options([pair["QMA"], down], queue)
    with pytest.raises(Exception) as failed:
        spark.read.format("mq").options(**options).load().collect()
    assert "queue manager QMD" in str(failed.value)


def test_a_stream_over_three_queue_managers_counts_each_ones_rows(pair, spark, tmp_path):
    third = start(tmp_path, "QMC")
    try:
        managers = [pair["QMA"], pair["QMB"], third]
        queue = fresh_queue(*managers)
        wanted = {m.name: put(m, queue, m.name[-1], count)
                  for m, count in zip(managers, (7, 3, 12))}
        rows, _ = run_available_now(spark, multi_options(managers, queue, maxMessagesPerTrigger=5),
                                    tmp_path, select=("queue_manager",
                                                      "CAST(payload AS STRING) AS payload"))
        assert by_queue_manager((r.queue_manager, r.payload) for r in rows) == wanted
        assert all(depth_of(m, queue) == 0 for m in managers)
    finally:
        third.stop()


# --- (b) a stream, exactly once across kills of the driver ----------------------------------
def sink_rows(spark, out: Path) -> list[tuple[str, str]]:
    if not (out / "_spark_metadata").is_dir():
        return []
    return [(r.queue_manager, r.payload) for r in spark.read.parquet(str(out)).collect()]


def by_queue_manager(rows) -> dict[str, list[str]]:
    found = collections.defaultdict(list)
    for name, payload in rows:
        found[name].append(payload)
    return {name: sorted(payloads) for name, payloads in found.items()}


@pytest.mark.timeout(900)
def test_a_driver_killed_at_several_points_reads_each_queue_manager_exactly_once(pair, spark,
                                                                               tmp_path):
    qma, qmb = pair["QMA"], pair["QMB"]
    queue = fresh_queue(qma, qmb)
    wanted = {"QMA": put(qma, queue, "A", 60), "QMB": put(qmb, queue, "B", 40)}
    total = 100
    driver = Driver(tmp_path, multi_options([qma, qmb], queue, maxMessagesPerTrigger=10,
                                          waitIntervalMs=200), column="queue_manager")

    def on_queues() -> int:
        return depth_of(qma, queue) + depth_of(qmb, queue)
    try:
        # 1. killed with the first batch in flight: both parts are backed out, Spark replays it
        driver.start(row_sleep=0.05)
        driver.wait_for(lambda: 0 in driver.offsets())
        assert 0 not in driver.commits()
        driver.kill()
        wait_for(lambda: on_queues() == total, what="the first batch backed out on both")

        # 2. killed once Spark has committed a batch that MQ has not (its MQCMITs come with the
        #    next trigger, 15 s later): those messages are back on both queues, not to be read
        #    again
        driver.start(interval="15 seconds", row_sleep=0.05)
        driver.wait_for(lambda: len(driver.commits()) >= 2)
        driver.kill()
        in_sink = len(sink_rows(spark, driver.out))
        assert in_sink >= 20
        wait_for(lambda: in_sink + on_queues() > total, what="the finished batch back on a queue")

        # 3. killed with a later batch in flight
        driver.start(row_sleep=0.05)
        committed = max(driver.commits())
        driver.wait_for(lambda: max(driver.offsets()) > committed
                        and max(driver.offsets()) not in driver.commits())
        driver.kill()

        # 4. Trigger.AvailableNow on the same checkpoint drains both
        driver.start(available_now=True, row_sleep=0)
        assert driver.process.wait(240) == 0
    finally:
        if driver.process is not None and driver.process.poll() is None:
            driver.kill()
    assert by_queue_manager(sink_rows(spark, driver.out)) == wanted   # each message once
    assert on_queues() == 0


# --- (c) a member down: the others go on, its part waits, nothing lost when it returns -------
def latest_reports(query) -> list[dict]:
    """The reader's JSON of each progress so far (a trigger without a batch too)."""
    found = []
    for progress in query.recentProgress:
        latest = progress["sources"][0]["latestOffset"]
        if latest:
            found.append(json.loads(latest) if isinstance(latest, str) else dict(latest))
    return found


def memory_rows(spark, name: str) -> list[tuple[str, str]]:
    return [(r.queue_manager, r.payload)
            for r in spark.sql(f"SELECT queue_manager, payload FROM {name}").collect()]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("read_mode", ["driver", "executors"])
def test_a_queue_manager_down_waits_while_the_others_go_on_and_loses_nothing(
        tmp_path, monkeypatch, spark, read_mode):
    """QMB ends itself at its first commit that stores anything (readMode driver: the commit
    of its first batch, after Spark has it; executors: the claims of its first plan)."""
    qma = start(tmp_path, "QMA")
    monkeypatch.setenv("SPARK_MQ_FAULT", "commit-stored:1")
    qmb = start(tmp_path, "QMB")
    monkeypatch.delenv("SPARK_MQ_FAULT")
    name, query = f"members_down_{read_mode}", None
    try:
        queue = fresh_queue(qma, qmb)
        wanted = {"QMA": put(qma, queue, "A", 5), "QMB": put(qmb, queue, "B", 5)}
        options = multi_options([qma, qmb], queue, readMode=read_mode, waitIntervalMs=100)
        query = (spark.readStream.format("mq").options(**options).load()
                 .selectExpr("queue_manager", "CAST(payload AS STRING) AS payload")
                 .writeStream.format("memory").queryName(name)
                 .option("checkpointLocation", str(tmp_path / "checkpoint"))
                 .trigger(processingTime="1 second").start())
        wait_for(lambda: not qmb.running, what="QMB ended at its first commit")

        wanted["QMA"] += put(qma, queue, "A", 5, first=5)
        wait_for(lambda: len(by_queue_manager(memory_rows(spark, name)).get("QMA", [])) == 10,
                 what="QMA read on while QMB is down")
        wait_for(lambda: any(r.get("unavailable") == ["QMB"] for r in latest_reports(query)),
                 what="the progress names QMB as unavailable")
        down = next(r for r in latest_reports(query) if r.get("unavailable") == ["QMB"])
        assert "unavailable" in down["queueManagers"]["QMB"]
        assert down["queueManagers"]["QMA"]["queueDepth"] is not None
        if read_mode == "driver":
            # QMB reported its first batch before the commit that ended it: those figures
            # stay in view, marked as from then, and out of the sums of what waits now
            last_known = down["queueManagers"]["QMB"]["lastKnown"]
            assert isinstance(last_known["lag"], int) and last_known["at"]
            assert down["lag"] == down["queueManagers"]["QMA"]["lag"]

        qmb.start()                 # the same port and data: what it had stored is there
        wanted["QMB"] += put(qmb, queue, "B", 5, first=5)
        wait_for(lambda: len(memory_rows(spark, name)) >= 20 and depth_of(qmb, queue) == 0,
                 what="QMB's messages read once it is back")
        figure = "lag" if read_mode == "driver" else "queueDepth"
        wait_for(lambda: any(r.get("unavailable") == [] and isinstance(
                             (r["queueManagers"]["QMB"] or {}).get(figure), int)
                             for r in latest_reports(query)[-1:]),
                 what=f"the progress shows QMB's {figure} again")
        assert query.exception() is None
        assert by_queue_manager(memory_rows(spark, name)) == wanted   # each message once
        assert depth_of(qma, queue) == 0
    finally:
        if query is not None:
            query.stop()
        for manager in (qma, qmb):
            manager.stop()


# --- (d) readMode executors: the queue managers spread over the tasks ------------------------
def test_read_mode_executors_spreads_the_queue_managers_over_the_tasks(pair, spark, tmp_path):
    queue = fresh_queue(*pair.values())
    # as many on each: every batch has both, so a task's index is always the same one's
    wanted = {"QMA": put(pair["QMA"], queue, "A", 20), "QMB": put(pair["QMB"], queue, "B", 20)}
    options = multi_options(pair.values(), queue, readMode="executors", numPartitions=2,
                            maxMessagesPerTrigger=10)
    rows, _ = run_available_now(spark, options, tmp_path, select=(
        "queue_manager", "CAST(payload AS STRING) AS payload", "spark_partition_id() AS task"))
    assert by_queue_manager((r.queue_manager, r.payload) for r in rows) == wanted
    tasks = collections.defaultdict(set)
    for row in rows:
        tasks[row.task].add(row.queue_manager)
    assert all(len(names) == 1 for names in tasks.values())   # each task reads one of them
    assert depth_of(pair["QMA"], queue) == 0 and depth_of(pair["QMB"], queue) == 0


@pytest.mark.timeout(600)
def test_a_queue_manager_killed_after_spark_committed_its_part_has_it_removed_when_back(
        tmp_path, spark):
    """QMB is killed (SIGKILL) once Spark has committed the first batch and before MQ has (no
    listener in the driver: its MQCMIT waits for the next trigger, 15 s later), so its part
    is backed out there while it is in the sink. The next batch goes on with QMA alone; when
    QMB is back, its new reader removes that part by id before it reads anything new."""
    qma, qmb = start(tmp_path, "QMA"), start(tmp_path, "QMB")
    driver = None
    try:
        queue = fresh_queue(qma, qmb)
        wanted = {"QMA": put(qma, queue, "A", 30), "QMB": put(qmb, queue, "B", 10)}
        driver = Driver(tmp_path, multi_options([qma, qmb], queue, maxMessagesPerTrigger=10,
                                              waitIntervalMs=200), column="queue_manager")
        driver.start(interval="15 seconds", row_sleep=0)
        driver.wait_for(lambda: 0 in driver.commits())
        qmb.kill()
        driver.wait_for(lambda: 1 in driver.offsets())       # the next batch: QMA's part only
        qmb.start()
        assert depth_of(qmb, queue) == 10       # backed out, and in the sink already
        wanted["QMB"] += put(qmb, queue, "B", 5, first=10)
        driver.wait_for(lambda: len(sink_rows(spark, driver.out)) >= 45
                        and depth_of(qma, queue) == 0 and depth_of(qmb, queue) == 0)
        driver.kill()
        assert by_queue_manager(sink_rows(spark, driver.out)) == wanted   # each message once
    finally:
        if driver is not None and driver.process.poll() is None:
            driver.kill()
        for manager in (qma, qmb):
            manager.stop()
