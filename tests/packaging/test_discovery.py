"""Spark finds format("mq") by itself (pyspark_mq.DefaultSource, no register() call) however
the package is installed: the editable install the README uses, run from a folder outside
the repository, and a wheel installed into a fresh virtual environment. Each runs a real
Spark job in a child process that reads a real queue through format("mq") (the editable
install's two tests share one: its first read is discovery's, then register() runs on top)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from support import PROJECT_ROOT, put_messages, reader_options

pytestmark = [pytest.mark.spark, pytest.mark.timeout(600)]

JOB = r'''
import json, os, sys
import spark_mq
from pyspark.sql import SparkSession
options = json.loads(sys.argv[1])
spark = (SparkSession.builder.master("local[1]").appName("discovery")
         .config("spark.ui.enabled", "false").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
rows = spark.read.format("mq").options(**options).load().select("payload").collect()
print("RESULT " + json.dumps({"payloads": sorted(r.payload.decode() for r in rows),
                              "spark_mq": spark_mq.__file__}), flush=True)
spark.stop()
'''


#: the same job, then register() twice on top of discovery and the read again: one Spark
#: for both claims (its first read is the discovery's, before any register() call)
REGISTERING_JOB = JOB.replace('setLogLevel("ERROR")', 'setLogLevel("WARN")').replace(
    "spark.stop()", """spark_mq.register(spark); spark_mq.register(spark)
rows = spark.read.format("mq").options(**options).load().select("payload").collect()
print("REGISTERED " + json.dumps({"payloads": sorted(r.payload.decode() for r in rows)}), flush=True)
spark.stop()""")


def run_job(python: str, cwd: Path, options: dict, job: str = JOB) -> dict:
    script = cwd / "discovery_job.py"
    script.write_text(job)
    env = dict(os.environ, PYSPARK_PYTHON=python, PYSPARK_DRIVER_PYTHON=python)
    env.pop("PYTHONPATH", None)
    done = subprocess.run([python, str(script), json.dumps(options)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    results = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert results, done.stdout[-2000:] + done.stderr[-4000:]
    registered = [line for line in done.stdout.splitlines() if line.startswith("REGISTERED ")]
    return {**json.loads(results[-1][len("RESULT "):]), "stderr": done.stderr, "stdout": done.stdout,
            "registered": json.loads(registered[-1][len("REGISTERED "):]) if registered else None}


@pytest.fixture
def queue_with_three(qm, conn, make_queue):
    queue = make_queue()
    put_messages(conn, queue, [b"a", b"b", b"c"])
    return queue


@pytest.fixture(scope="module")
def editable_run(qm, tmp_path_factory) -> dict:
    """The registering job from a folder outside the repository, run once for the two tests
    on the editable install: its first read finds format("mq") by discovery alone."""
    import ibmmq
    queue = f"DISCOVERY.{os.getpid()}"
    qm.run_mqsc(f"DEFINE QLOCAL({queue}) REPLACE")
    conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    try:
        put_messages(conn, queue, [b"a", b"b", b"c"])
    finally:
        conn.disconnect()
    # the reads browse: the second finds the same three messages
    return run_job(sys.executable, tmp_path_factory.mktemp("outside"), reader_options(qm, queue),
                   REGISTERING_JOB)


def test_editable_install_is_discovered_from_a_folder_outside_the_repository(editable_run):
    assert editable_run["payloads"] == ["a", "b", "c"]
    assert editable_run["spark_mq"].startswith(os.path.join(PROJECT_ROOT, "src"))


def test_wheel_installed_in_a_fresh_environment_is_discovered(qm, queue_with_three, tmp_path):
    wheels = tmp_path / "wheels"
    # built from a copy: an in-tree build leaves build/ behind, whose stale files a later
    # wheel could pick up
    source = tmp_path / "source"
    shutil.copytree(PROJECT_ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(wheels), str(source)], check=True, timeout=300)
    [wheel] = wheels.glob("spark_mq-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for shipped in ("spark_mq/py.typed", "spark_mq/jobs/log4j2.properties", ".dist-info/licenses/LICENSE"):
        assert any(name.endswith(shipped) for name in names), f"{shipped} is not in {wheel.name}"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # the dependencies (pyspark, ibmmq, pyarrow) come from this environment's site-packages,
    # added as a plain path: its .pth files (our editable install among them) are not read
    Path(site, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps",
                    "-q", str(wheel)], check=True, timeout=300)
    result = run_job(python, tmp_path, reader_options(qm, queue_with_three))
    assert result["payloads"] == ["a", "b", "c"]
    assert result["spark_mq"].startswith(site)


def test_register_on_top_of_discovery_works_without_spark_warning(editable_run):
    assert editable_run["registered"] == {"payloads": ["a", "b", "c"]}, editable_run["stdout"][-2000:]
    assert "replaced" not in editable_run["stderr"] and "WARN" in REGISTERING_JOB
