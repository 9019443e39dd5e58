"""MQ topics as Spark sources and sinks: a topic read owns a durable subscription with a
managed queue and reads it with the queue reader; a topic write publishes.

Real Spark (local[2], and a real driver process killed with SIGKILL) against a real embedded
queue manager."""
from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import ibmmq
import pytest
from ibmmq import CMQC

from spark_mq.mq.connecting import ConnectionOptions
from spark_mq.mq.exceptions import MQOptionError
from spark_mq.mq.subscriptions import ensure_durable_subscription, remove_subscription
from spark_mq.options import ReadOptions, WriteOptions, subscription_name
from support import (
    committed_parquet_rows,
    depth,
    drain,
    kill_tree,
    lose_commit,
    mq_options,
    run_available_now,
    write_json,
)

pytestmark = pytest.mark.timeout(600)
_numbers = itertools.count(1)


@pytest.fixture
def root() -> str:
    """A topic string of this test's own."""
    return f"spark/{os.getpid()}/{next(_numbers)}"


DRIVER = r'''
import json, os, sys, time
args = json.loads(sys.argv[1])
from pyspark.sql import SparkSession
from pyspark.sql.functions import udf
spark = (SparkSession.builder.master("local[2]").appName("mq-topic-crash")
         .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1")
         .config("spark.driver.memory", "1g").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")

@udf("string")
def slow(payload):
    time.sleep(0.03)  # widens the window in which a batch is in flight
    return payload.decode()

df = spark.readStream.format("mq").options(**args["options"]).load()
trigger = {"availableNow": True} if args["available_now"] else {"processingTime": "500 milliseconds"}
(df.select(slow("payload").alias("payload"), "topic").writeStream.format("parquet")
   .option("path", args["out"]).option("checkpointLocation", args["checkpoint"])
   .trigger(**trigger).start().awaitTermination())
'''


class Driver:
    """A real Spark driver process reading a topic into parquet, killed with SIGKILL."""

    def __init__(self, tmp_path: Path, options: dict):
        self.script = tmp_path / "driver.py"
        self.script.write_text(DRIVER)
        self.out, self.checkpoint = tmp_path / "out", tmp_path / "checkpoint"
        self.options = options
        self.log = open(tmp_path / "driver.log", "ab")
        self.process: subprocess.Popen | None = None

    def start(self, available_now: bool = False) -> None:
        args = {"options": self.options, "out": str(self.out), "checkpoint": str(self.checkpoint),
                "available_now": available_now}
        env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
        self.process = subprocess.Popen([sys.executable, str(self.script), json.dumps(args)],
                                        stdout=self.log, stderr=self.log, env=env,
                                        start_new_session=True, cwd=str(self.script.parent))

    def batches(self, log: str) -> set[int]:
        folder = self.checkpoint / log
        return {int(p.name) for p in folder.iterdir() if p.name.isdigit()} if folder.is_dir() \
            else set()

    def wait_for(self, condition, timeout: float = 180.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            assert self.process is not None and self.process.poll() is None, \
                f"driver exited early: {(self.script.parent / 'driver.log').read_text()[-3000:]}"
            assert time.monotonic() < deadline, "timed out waiting for the driver"
            time.sleep(0.02)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            kill_tree(self.process.pid)  # the driver, its JVM, the daemon and its workers
            self.process.wait(30)


def sink_payloads(spark, out: Path) -> list[str]:
    if not (out / "_spark_metadata").is_dir():
        return []
    return [r.payload for r in spark.read.parquet(str(out)).collect()]


def publish(conn, topic: str, payloads, persistent: bool = True, retain: bool = False) -> None:
    od = ibmmq.OD(ObjectType=CMQC.MQOT_TOPIC, Version=CMQC.MQOD_VERSION_4)
    od.set_vs("ObjectString", topic)
    handle = ibmmq.Topic(conn, topic_desc=od)
    handle.open(topic_desc=od, open_opts=CMQC.MQOO_OUTPUT)
    persistence = CMQC.MQPER_PERSISTENT if persistent else CMQC.MQPER_NOT_PERSISTENT
    pmo = ibmmq.PMO(Options=CMQC.MQPMO_RETAIN if retain else 0)
    try:
        for payload in payloads:
            handle.pub(payload, ibmmq.MD(Persistence=persistence), pmo)
    finally:
        handle.close()


def connection(qm) -> ConnectionOptions:
    return ConnectionOptions(queue_manager=qm.name, conn_name=qm.conn_name, channel=qm.channel,
                             transport="embedded")


def topic_options(qm, **extra) -> dict:
    return mq_options(qm, transport="embedded", **extra)


# --- options --------------------------------------------------------------------------------
@pytest.mark.parametrize("extra, option, valid", [
    ({"queue": "Q", "topic": "a/b"}, "queue / topic", "exactly one of the options queue"),
    ({"topic": "a", "topicObject": "T"}, "topic / topicObject", "exactly one"),
    ({"topic": "  "}, "topic", "non-empty topic string"),
    ({"topicObject": "bad name!"}, "topicObject", "the name of a topic object"),
    ({"queue": "Q", "subscription": "S"}, "subscription", "topic read"),
    ({"topic": "a", "retain": "true"}, "retain", "an option for writing"),
])
def test_read_option_errors_name_the_option(qm, extra, option, valid):
    with pytest.raises(MQOptionError) as info:
        ReadOptions.parse(topic_options(qm, **extra))
    assert f"option '{option}'" in str(info.value) and valid in str(info.value)


def test_write_option_errors_and_the_default_subscription_name(qm, spark):
    with pytest.raises(MQOptionError, match="option 'queue / topic'"):
        WriteOptions.parse(topic_options(qm, queue="Q", topic="a"), streaming=True)
    with pytest.raises(MQOptionError, match="option 'retain'.*true"):
        WriteOptions.parse(topic_options(qm, topic="a", retain="perhaps"), streaming=True)
    df = spark.createDataFrame([("x",)], "payload string")
    with pytest.raises(Exception, match="option 'retain'"):
        df.write.format("mq").options(**topic_options(qm, queue="DEV.QUEUE.1", retain="true")) \
            .mode("append").save()
    name = ReadOptions.parse(topic_options(qm, topic="orders/eu/#")).subscription
    assert name == subscription_name("orders/eu/#", None) and name.startswith("SPARK.MQ.")
    assert name != subscription_name("orders/us/#", None)


def test_a_subscription_on_another_topic_is_refused_naming_the_option(qm, spark, root,
                                                                       tmp_path):
    ensure_durable_subscription(connection(qm), f"{root}.SUB", f"{root}/a", None)
    with pytest.raises(Exception, match=r"option 'topic'.*the topic of durable subscription"):
        run_available_now(spark, topic_options(qm, topic=f"{root}/b",
                                               subscription=f"{root}.SUB"), tmp_path)


# --- reading ----------------------------------------------------------------------------------
@pytest.mark.parametrize("wildcard, published, expected", [
    ("#", ["", "/a", "/a/b", "x"], ["", "/a", "/a/b"]),
    ("+", ["/a", "/a/b", "/c"], ["/a", "/c"]),
])
def test_wildcard_subscriptions_deliver_the_topic_column(spark, qm, conn, root, tmp_path,
                                                         wildcard, published, expected):
    options = topic_options(qm, topic=f"{root}/{wildcard}")
    # the first run makes the durable subscription; publications from then on wait for it
    rows, _ = run_available_now(spark, options, tmp_path)
    assert rows == []
    for suffix in published:
        publish(conn, root + suffix, [f"to {root + suffix}".encode()])
    rows, _ = run_available_now(spark, options, tmp_path)
    assert sorted(r.topic for r in rows) == sorted(root + s for s in expected)
    assert all(r.payload.decode() == f"to {r.topic}" for r in rows)
    assert "topic" in spark.readStream.format("mq").options(**options).load().columns


def test_topic_object_read_in_read_mode_executors(spark, qm, conn, root, tmp_path):
    name = f"T.{os.getpid()}.{next(_numbers)}"
    qm.run_mqsc(f"DEFINE TOPIC({name}) TOPICSTR('{root}')")
    options = topic_options(qm, topicObject=name, readMode="executors", numPartitions=2,
                            stateQueue=f"STATE.{os.getpid()}.{next(_numbers)}")
    assert run_available_now(spark, options, tmp_path)[0] == []
    publish(conn, root, [f"m{i}".encode() for i in range(50)])
    rows, _ = run_available_now(spark, options, tmp_path, schema="payload binary, topic string")
    assert sorted(r.payload.decode() for r in rows) == sorted(f"m{i}" for i in range(50))
    assert {r.topic for r in rows} == {root}


@pytest.mark.timeout(900)
def test_durable_topic_stream_killed_and_restarted_loses_and_doubles_nothing(spark, qm, conn,
                                                                            root, tmp_path):
    topic = f"{root}/orders"
    options = topic_options(qm, topic=topic, maxMessagesPerTrigger=20, waitIntervalMs=200)
    managed = ensure_durable_subscription(connection(qm), subscription_name(topic, None),
                                          topic, None)
    expected = [f"m{i:04d}" for i in range(200)]
    publish(conn, topic, [p.encode() for p in expected[:120]])
    driver = Driver(tmp_path, options)
    try:
        driver.start()
        # killed with a batch in flight, after Spark committed an earlier one
        driver.wait_for(lambda: driver.batches("commits") and len(driver.batches("offsets")) >= 2)
        driver.kill()
        # while it is down: more publications wait on the durable subscription's queue
        publish(conn, topic, [p.encode() for p in expected[120:]])
        driver.start()
        # read with pyarrow, not this session: a Spark job per poll starves the driver
        driver.wait_for(lambda: len(committed_parquet_rows(driver.out)) >= len(expected), 300)
        driver.kill()
        # the last batch is in Spark's commit log, but the kill backed out its unit of work:
        # a run to the end (Trigger.AvailableNow) takes it off by id and delivers nothing again
        driver.start(available_now=True)
        assert driver.process is not None and driver.process.wait(300) == 0
    finally:
        driver.kill()
    assert sorted(sink_payloads(spark, driver.out)) == expected
    assert {r.topic for r in spark.read.parquet(str(driver.out)).collect()} == {topic}
    assert depth(conn, managed) == 0
    remove_subscription(ibmmq, conn, subscription_name(topic, None))


# --- writing ------------------------------------------------------------------------------------
def test_topic_writer_replayed_batch_publishes_nothing_twice(spark, qm, conn, root, tmp_path):
    topic = f"{root}/out"
    managed = ensure_durable_subscription(connection(qm), f"{root}.W", topic, None)
    source, checkpoint = tmp_path / "in", tmp_path / "chk"
    source.mkdir()
    write_json(source / "a.json", range(200))

    def run():
        query = (spark.readStream.schema("payload string, n int").json(str(source))
                 .writeStream.format("mq").options(**topic_options(qm, topic=topic, commitEvery=30))
                 .option("checkpointLocation", str(checkpoint))
                 .trigger(availableNow=True).start())
        query.awaitTermination(120)
        assert query.exception() is None

    run()
    assert depth(conn, managed) == 200
    lose_commit(checkpoint, 0)                    # Spark lost the commit: batch 0 runs again
    run()
    assert (checkpoint / "commits" / "0").exists()
    messages = drain(conn, managed)
    assert sorted(props["n"] for _, _, props in messages) == list(range(200))
    assert {props["MQTopicString"] for _, _, props in messages} == {topic}
    remove_subscription(ibmmq, conn, f"{root}.W")


def test_topic_column_routes_rows_and_retain_keeps_the_last(spark, qm, conn, root):
    managed = ensure_durable_subscription(connection(qm), f"{root}.C", f"{root}/#", None)
    # one partition: the two publications on {root}/a are then put in row order (from two
    # partitions they would race, and either could be the retained one)
    df = spark.createDataFrame([("a1", f"{root}/a"), ("b1", f"{root}/b"), ("a2", f"{root}/a")],
                               "payload string, topic string").coalesce(1)
    df.write.format("mq").options(**topic_options(qm, retain="true")).mode("append").save()
    got = drain(conn, managed)
    assert sorted((body.decode(), props["MQTopicString"]) for _, body, props in got) == \
        [("a1", f"{root}/a"), ("a2", f"{root}/a"), ("b1", f"{root}/b")]
    late = ibmmq.Subscription(conn)
    sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED)
    sd.set_vs("ObjectString", f"{root}/a")
    late.sub(sub_desc=sd)
    retained = late.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=5000))
    assert retained == b"a2"
    late.close(close_sub_queue=True)
    both = spark.createDataFrame([("x", "SOME.Q", f"{root}/a")],
                                 "payload string, queue string, topic string")
    with pytest.raises(Exception, match="columns 'queue'.*and 'topic'.*both set"):
        both.write.format("mq").options(**topic_options(qm)).mode("append").save()
    remove_subscription(ibmmq, conn, f"{root}.C")
