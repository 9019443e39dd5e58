"""The JVM profile the suite starts Spark with: the same Spark, started for less CPU.

The suite is CPU-bound on two cores (vmstat: about 1% idle throughout), and most of a
Spark test's CPU is the driver JVM starting: loading some 15,000 classes from Spark's jars
and compiling the hot ones twice over (C1, then C2). A short test never runs long enough
for C2's code to pay back its compile time. So every JVM that spark-submit starts here
(the jobs, the docs blocks, the in-process session, which pyspark starts through
spark-submit too) runs with:

- a class-data-sharing archive of Spark's classes (JDK 17's dynamic AppCDS: the classes
  are mapped from one file, not parsed and verified again in each JVM), made once per
  machine by a short training job and kept in pytest's cache folder under a key of the
  Java runtime, the jars and the flags;
- C1 only (`-XX:TieredStopAtLevel=1`) and the serial collector: fewer compiler and GC
  threads competing with the other worker.

A trivial job measured 25 CPU-seconds without the profile, 8 with it. The profile changes
no behaviour (class loading and JIT tiers only); a user's JVM runs with Spark's defaults,
and `SPARK_MQ_TEST_JVM_PROFILE=0` runs the suite with them too.

The flags go through SPARK_SUBMIT_OPTS (the driver JVM) and SPARK_LAUNCHER_OPTS (the small
JVM that spark-submit first starts to build the command line), set in this process's
environment: every child a test starts inherits them, and the "plain shell" environments of
support.activated_environment pass them on.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pyspark

#: the variables the profile sets, for the environments built from scratch
VARIABLES = ("SPARK_SUBMIT_OPTS", "SPARK_LAUNCHER_OPTS")
SWITCH = "SPARK_MQ_TEST_JVM_PROFILE"
LEAN_JIT = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"

#: what the training job does: the kinds of work the tests do (a Python data source read,
#: a streaming query with foreachBatch, files written and read, a Python UDF), so that the
#: classes they load are in the archive
TRAINING_JOB = '''
import tempfile
from pyspark.sql import SparkSession
from pyspark.sql.datasource import DataSource, DataSourceReader
from pyspark.sql.functions import udf


class Numbers(DataSource):
    @classmethod
    def name(cls):
        return "numbers"

    def schema(self):
        return "n int"

    def reader(self, schema):
        return NumbersReader()


class NumbersReader(DataSourceReader):
    def read(self, partition):
        yield from ((n,) for n in range(10))


spark = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").getOrCreate()
spark.dataSource.register(Numbers)
frame = spark.read.format("numbers").load()
frame.select(udf(lambda n: n * 2, "int")("n")).collect()
folder = tempfile.mkdtemp()
frame.write.mode("overwrite").json(folder + "/json")
spark.read.json(folder + "/json").count()
frame.write.mode("overwrite").parquet(folder + "/parquet")
query = (spark.readStream.schema("n int").json(folder + "/json")
         .writeStream.foreachBatch(lambda batch, n: batch.count()).trigger(availableNow=True)
         .option("checkpointLocation", folder + "/checkpoint").start())
query.awaitTermination()
spark.stop()
'''


def apply(cache_folder: Path) -> None:
    """Set the profile's variables in this process's environment, making the archive first
    when this machine has none for this Java and these jars (the other worker waits)."""
    if os.environ.get(SWITCH) == "0" or os.environ.get("SPARK_SUBMIT_OPTS"):
        return   # switched off, set already, or the caller chose the driver's JVM flags
    archive = cache_folder / f"spark-{_key()}.jsa"
    cache_folder.mkdir(parents=True, exist_ok=True)
    with open(cache_folder / "archive.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not archive.exists():
            _train(archive)
    options = LEAN_JIT
    if archive.exists():   # a training job that failed leaves none: the JIT flags still help
        options = f"-XX:SharedArchiveFile={archive} -Xshare:auto {options}"
    os.environ["SPARK_SUBMIT_OPTS"] = options
    os.environ.setdefault("SPARK_LAUNCHER_OPTS", LEAN_JIT)


def _key() -> str:
    """A digest of what the archive depends on: the Java runtime, Spark's jars, the flags."""
    jars = Path(pyspark.__file__).parent / "jars"
    digest = hashlib.sha256(f"{LEAN_JIT} {jars}".encode())   # the archive names the jars' paths
    java = subprocess.run(["java", "-version"], capture_output=True, text=True)
    digest.update(java.stderr.encode())
    for jar in sorted(jars.glob("*.jar")):
        digest.update(f"{jar.name}:{jar.stat().st_size}:{jar.stat().st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def _train(archive: Path) -> None:
    """Run the training job with the archive written at the JVM's exit (to a temporary name,
    renamed when whole: a JVM never maps half an archive)."""
    partial = archive.with_suffix(".partial")
    script = archive.with_suffix(".py")
    script.write_text(TRAINING_JOB)
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable,
               SPARK_SUBMIT_OPTS=f"-XX:ArchiveClassesAtExit={partial} {LEAN_JIT}",
               SPARK_LAUNCHER_OPTS=LEAN_JIT, SPARK_LOCAL_IP="127.0.0.1")
    spark_submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    done = subprocess.run([str(spark_submit), str(script)], env=env, capture_output=True,
                          text=True, timeout=300)
    if done.returncode == 0 and partial.exists():
        partial.rename(archive)
    else:
        partial.unlink(missing_ok=True)
        print(f"jvm_profile: no class-data archive (exit {done.returncode}): "
              f"{done.stderr.strip().splitlines()[-1:] or 'no output'}", file=sys.stderr)
