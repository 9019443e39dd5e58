"""exactlyOnce under SIGKILL of the driver: a real Spark driver process (its JVM and Python
workers) is killed with SIGKILL at several points and restarted on the same checkpoint;
every message must end up in the file sink exactly once and off the queue."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support import depth, kill_tree, put_messages, reader_options

DRIVER = r'''
import json, os, sys, time
args = json.loads(sys.argv[1])
os.environ["PYSPARK_PYTHON"] = sys.executable
from pyspark.sql import SparkSession
from pyspark.sql.functions import udf
spark = (SparkSession.builder.master("local[2]").appName("mq-crash")
         .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1")
         .config("spark.driver.memory", "1g").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
# no spark_mq.register(spark): Spark finds format("mq") through pyspark_mq.DefaultSource
row_sleep = args["row_sleep"]

@udf("string")
def slow(payload):
    time.sleep(row_sleep)  # widens the window in which a batch is in flight
    return payload.decode()

df = spark.readStream.format("mq").options(**args["options"]).load()
out = df.select(slow("payload").alias("payload"), "message_id")
writer = (out.writeStream.format("parquet").option("path", args["out"])
          .option("checkpointLocation", args["checkpoint"]))
if args["available_now"]:
    writer = writer.trigger(availableNow=True)
else:
    writer = writer.trigger(processingTime=args["interval"])
query = writer.start()
query.awaitTermination()
'''


def _batches(directory: Path) -> set[int]:
    if not directory.is_dir():
        return set()
    return {int(p.name) for p in directory.iterdir() if p.name.isdigit()}


class Driver:
    def __init__(self, tmp_path: Path, options: dict):
        self.script = tmp_path / "driver.py"
        self.script.write_text(DRIVER)
        self.out, self.checkpoint = tmp_path / "out", tmp_path / "checkpoint"
        self.options = options
        self.log = open(tmp_path / "driver.log", "ab")
        self.process: subprocess.Popen | None = None

    def start(self, available_now: bool = False, interval: str = "4 seconds",
              row_sleep: float = 0.03) -> None:
        args = {"options": self.options, "out": str(self.out), "checkpoint": str(self.checkpoint),
                "available_now": available_now, "interval": interval, "row_sleep": row_sleep}
        env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
        self.process = subprocess.Popen([sys.executable, str(self.script), json.dumps(args)],
                                        stdout=self.log, stderr=self.log, env=env,
                                        start_new_session=True, cwd=str(self.script.parent))

    def offsets(self) -> set[int]:
        return _batches(self.checkpoint / "offsets")

    def commits(self) -> set[int]:
        return _batches(self.checkpoint / "commits")

    def wait_for(self, condition, timeout: float = 150.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return
            if self.process.poll() is not None:
                raise AssertionError(f"driver exited early with {self.process.returncode}")
            time.sleep(0.02)
        raise AssertionError("timed out waiting for the driver")

    def kill(self) -> None:
        kill_tree(self.process.pid)  # the driver, its JVM, the daemon and its workers
        self.process.wait(30)

    def finish(self, timeout: float = 240.0) -> int:
        return self.process.wait(timeout)


def _wait_until(condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.05)


def _sink_payloads(spark, out: Path) -> list[str]:
    if not (out / "_spark_metadata").is_dir():
        return []
    return [r.payload for r in spark.read.parquet(str(out)).collect()]


@pytest.mark.timeout(900)
def test_sigkill_at_several_points_loses_and_doubles_nothing(qm, conn, make_queue, spark, tmp_path):
    queue = make_queue()
    total = 240
    expected = [f"m{i:04d}" for i in range(total)]
    put_messages(conn, queue, [p.encode() for p in expected])
    driver = Driver(tmp_path, reader_options(qm, queue, maxMessagesPerTrigger=20,
                                             waitIntervalMs=200))
    try:
        # 1. killed while the first batch is in flight: Spark replays it on restart
        driver.start()
        driver.wait_for(lambda: 0 in driver.offsets())
        assert 0 not in driver.commits()
        driver.kill()
        # the held unit of work is backed out once the queue manager sees the connection go
        _wait_until(lambda: depth(conn, queue) == total)

        # 2. killed right after Spark committed a batch, before MQ did (the next trigger, which
        #    would commit it in MQ, is 15 s after the batch started: a window a loaded machine
        #    cannot miss): the batch's messages are back on the queue, not to be read again
        driver.start(interval="15 seconds")
        driver.wait_for(lambda: len(driver.commits()) >= 2)
        driver.kill()
        in_sink = len(_sink_payloads(spark, driver.out))
        assert in_sink >= 40
        # once the queue manager has seen the connection go, the batch Spark finished is back
        # on the queue as well as in the sink
        _wait_until(lambda: in_sink + depth(conn, queue) > total)

        # 3. killed with a later batch in flight
        driver.start()
        committed = max(driver.commits())
        driver.wait_for(lambda: max(driver.offsets()) > committed
                        and max(driver.offsets()) not in driver.commits())
        driver.kill()

        # 4. Trigger.AvailableNow on the same checkpoint drains the queue
        driver.start(available_now=True, row_sleep=0)
        assert driver.finish() == 0
    finally:
        if driver.process is not None and driver.process.poll() is None:
            driver.kill()
    payloads = _sink_payloads(spark, driver.out)
    assert sorted(payloads) == expected  # each message exactly once
    assert depth(conn, queue) == 0
