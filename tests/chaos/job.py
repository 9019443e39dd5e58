"""The pipeline the chaos harness runs, killed and restarted on the same checkpoint.

Run as `python job.py '<json arguments>'` (see harness.Pipeline.arguments). Prints
`STARTED` once the query runs and `RESULT <json>` when it ends; a `stop` file in the work
folder makes it call query.stop() (a user stopping it mid-batch)."""
from __future__ import annotations

import json
import os
import sys
import time

os.environ["PYSPARK_PYTHON"] = sys.executable
import spark_mq.embedded  # noqa: E402

spark_mq.embedded.install()

from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

args = json.loads(sys.argv[1])
read_mode = args.get("read_mode", "driver")
builder = (SparkSession.builder.master(args["master"]).appName(f"chaos-{args['pipeline']}")
           .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
           .config("spark.driver.memory", "1g"))
if read_mode == "executors":
    # speculative copies of slow tasks: two attempts of one partition compete for its claim
    builder = (builder.config("spark.speculation", "true").config("spark.speculation.quantile", "0.5")
               .config("spark.speculation.multiplier", "1.2")
               .config("spark.speculation.minTaskRuntime", "200ms"))
spark = builder.getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "10")


def flaky(seed: int, probability: float):
    """Identity on the payload that fails a row's task on its first attempt with the given
    probability (decided from the seed and the row: a retry passes): Spark retries tasks."""
    def check(n, payload):
        import zlib

        from pyspark import TaskContext
        if probability and TaskContext.get().attemptNumber() == 0:
            if zlib.crc32(f"{seed}:{n}".encode()) % 10_000 < probability * 10_000:
                raise RuntimeError(f"chaos: forced failure of the task holding row {n}")
        return payload
    return F.udf(check, "binary")


connection = args["connection"]
if args["pipeline"] == "files_to_queue":
    rows = (spark.readStream.schema("n int, tag string, payload string")
            .option("maxFilesPerTrigger", 1).json(args["source"])
            .select(F.col("payload").cast("binary").alias("payload"), "n", "tag"))
else:
    rows = (spark.readStream.format("mq").options(**connection)
            .option("queue", args["input"]).option("maxMessagesPerTrigger", args["batch"])
            .option("readMode", read_mode).option("numPartitions", 2)
            .schema("payload binary, n int, tag string, group_id binary").load()
            .select("payload", "n", "tag"))
rows = rows.select(flaky(args["seed"], args["fail_probability"])("n", "payload").alias("payload"),
                   "n", "tag")
if args["pipeline"] == "queue_to_parquet":
    writer = rows.writeStream.format("parquet").option("path", args["output"])
else:
    writer = (rows.writeStream.format("mq").options(**connection).option("queue", args["output"])
              .option("commitEvery", args["commit_every"]))
query = (writer.option("checkpointLocation", args["checkpoint"])
         .trigger(availableNow=True).start())
print("STARTED", flush=True)
stop_file = os.path.join(args["work"], "stop")
while query.isActive:
    if os.path.exists(stop_file):
        os.remove(stop_file)
        query.stop()
        print("RESULT " + json.dumps({"stopped": True}), flush=True)
        sys.exit(3)
    time.sleep(0.1)
failure = query.exception()
print("RESULT " + json.dumps({"exception": None if failure is None else str(failure)[:2000]}),
      flush=True)
spark.stop()
sys.exit(0 if failure is None else 1)
