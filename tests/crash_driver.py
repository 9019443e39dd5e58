"""A Spark driver in its own process tree (its JVM, the Python daemon and workers), reading
a queue into a parquet sink on a checkpoint, killed with SIGKILL as a crash kills it and
started again on the same checkpoint: the crash tests of the reader count every message in
the sink afterwards. Rows carry `payload` and one more column (`message_id`, or
`queue_manager` for a query over several queue managers)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from support import kill_tree

SCRIPT = r'''
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
out = df.select(slow("payload").alias("payload"), args["column"])
writer = (out.writeStream.format("parquet").option("path", args["out"])
          .option("checkpointLocation", args["checkpoint"]))
if args["available_now"]:
    writer = writer.trigger(availableNow=True)
else:
    writer = writer.trigger(processingTime=args["interval"])
writer.start().awaitTermination()
'''


def batches(directory: Path) -> set[int]:
    """The batch numbers a checkpoint folder (offsets/, commits/) has files for."""
    if not directory.is_dir():
        return set()
    return {int(p.name) for p in directory.iterdir() if p.name.isdigit()}


class Driver:
    """The driver process; `column` is the sink's second column."""

    def __init__(self, tmp_path: Path, options: dict, column: str = "message_id"):
        self.script = tmp_path / "driver.py"
        self.script.write_text(SCRIPT)
        self.out, self.checkpoint = tmp_path / "out", tmp_path / "checkpoint"
        self.options, self.column = options, column
        self.log_path = tmp_path / "driver.log"
        self.log = open(self.log_path, "ab")
        self.process: subprocess.Popen | None = None

    def start(self, available_now: bool = False, interval: str = "4 seconds",
              row_sleep: float = 0.03) -> None:
        args = {"options": self.options, "out": str(self.out), "checkpoint": str(self.checkpoint),
                "available_now": available_now, "interval": interval, "row_sleep": row_sleep,
                "column": self.column}
        self.process = subprocess.Popen([sys.executable, str(self.script), json.dumps(args)],
                                        stdout=self.log, stderr=self.log,
                                        env=dict(os.environ, PYSPARK_PYTHON=sys.executable),
                                        start_new_session=True, cwd=str(self.script.parent))

    def offsets(self) -> set[int]:
        return batches(self.checkpoint / "offsets")

    def commits(self) -> set[int]:
        return batches(self.checkpoint / "commits")

    def wait_for(self, condition, timeout: float = 150.0) -> None:
        """Until `condition()`; a driver that exits first fails the test with its log's tail."""
        deadline = time.monotonic() + timeout
        while not condition():
            if self.process.poll() is not None:
                self.log.flush()
                tail = self.log_path.read_text(errors="replace")[-3000:]
                raise AssertionError(f"driver exited early with {self.process.returncode}:\n{tail}")
            assert time.monotonic() < deadline, "timed out waiting for the driver"
            time.sleep(0.02)

    def kill(self) -> None:
        kill_tree(self.process.pid)  # the driver, its JVM, the daemon and its workers
        self.process.wait(30)

    def finish(self, timeout: float = 240.0) -> int:
        return self.process.wait(timeout)
