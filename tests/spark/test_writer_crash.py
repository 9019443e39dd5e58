"""Exactly-once writing through a real crash: the Spark driver's whole process tree (Python
driver, JVM, pyspark daemon and workers) is frozen and killed with SIGKILL in the middle of
a batch, then the query restarts on its checkpoint. Every message is counted on the queue
afterwards."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

from support import depth, kill_tree, mq_options, numbers_on, write_json

pytestmark = pytest.mark.timeout(400)

ROWS = 2000

JOB = textwrap.dedent("""
    import json, os, sys
    os.environ["PYSPARK_PYTHON"] = sys.executable
    import spark_mq.embedded
    spark_mq.embedded.install()
    from pyspark.sql import SparkSession, functions as F
    spark = (SparkSession.builder.master("local[2]").appName("writer-crash")
             .config("spark.ui.enabled", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    import spark_mq
    spark_mq.register(spark)
    options, queue, source, checkpoint, delay = json.loads(sys.argv[1])
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "20")

    def slow(n):
        import time
        time.sleep(delay)          # slow rows: the parent has time to kill us mid-batch
        return f"row-{n}".ljust(1024, ".")

    query = (spark.readStream.schema("n int").json(source)
             .select(F.udf(slow, "string")("n").alias("payload"), "n")
             .writeStream.format("mq").options(**options).option("queue", queue)
             .option("commitEvery", "50").option("checkpointLocation", checkpoint)
             .trigger(availableNow=True).start())
    query.awaitTermination()
    print("RESULT " + json.dumps({"exception": None if query.exception() is None
                                  else str(query.exception())}), flush=True)
""")


def start_job(script, arguments) -> subprocess.Popen:
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    return subprocess.Popen([sys.executable, str(script), arguments], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True)


def test_driver_killed_mid_batch_then_restarted_puts_every_row_once(qm, conn, make_queue,
                                                                    tmp_path):
    queue = make_queue()
    source, checkpoint = tmp_path / "in", tmp_path / "chk"
    source.mkdir()
    write_json(source / "a.json", range(ROWS))
    script = tmp_path / "job.py"
    script.write_text(JOB)

    job = start_job(script, json.dumps([mq_options(qm), queue, str(source), str(checkpoint),
                                        0.003]))
    deadline = time.monotonic() + 180
    seen = 0
    while time.monotonic() < deadline and job.poll() is None:
        seen = depth(conn, queue)
        if seen >= 300:
            break
        time.sleep(0.05)
    assert job.poll() is None, job.stdout.read()[-3000:]
    killed = kill_tree(job.pid)               # no worker survives to commit what it holds
    assert len(killed) >= 3                   # driver, JVM, daemon (and workers)
    job.wait(30)
    # CURDEPTH counts uncommitted puts until the queue manager backs the dead connections'
    # work out; frozen mid-chunk, only whole chunks of 50 can be committed
    deadline = time.monotonic() + 30
    while (at_crash := depth(conn, queue)) % 50 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert at_crash % 50 == 0
    assert 300 <= at_crash < ROWS             # killed mid-batch, committed chunks stay
    assert not (checkpoint / "commits" / "0").exists()

    job = start_job(script, json.dumps([mq_options(qm), queue, str(source), str(checkpoint), 0]))
    output, _ = job.communicate(timeout=240)
    results = [line for line in output.splitlines() if line.startswith("RESULT ")]
    assert results, output[-3000:]
    assert json.loads(results[-1][7:]) == {"exception": None}
    assert numbers_on(conn, queue) == list(range(ROWS))
