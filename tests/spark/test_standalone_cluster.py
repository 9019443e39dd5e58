"""A job on a real Spark standalone cluster: master and worker processes from the pyspark
distribution, executors in their own JVMs (as on a real cluster), the driver submitted
with spark-submit --master spark://... . The connector's executor-side code has to stand
on its own there: nothing is shared with the driver's process."""
from __future__ import annotations

import glob
import os
import signal
import socket
import subprocess
import time

import pyarrow.parquet as pq
import pytest

from support import SPARK_CLASS, connection_args, depth, explain, job_env, put_texts, spark_submit


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(predicate, timeout: float, what: str, logs: list[str]) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            shown = "\n".join(f"--- {log} ---\n{open(log, errors='replace').read()[-3000:]}"
                              for log in logs if os.path.exists(log))
            raise AssertionError(f"{what} did not happen within {timeout:.0f} s\n{shown}")
        time.sleep(0.05)


class Daemon:
    """A Spark daemon (master or worker) run in the foreground by spark-class."""

    def __init__(self, name: str, args: list[str], log: str, env: dict[str, str]):
        self.name, self.log = name, log
        with open(log, "wb") as out:
            self.process = subprocess.Popen([SPARK_CLASS, *args], stdout=out, stderr=subprocess.STDOUT,
                                            env=env, start_new_session=True)

    def output(self) -> str:
        with open(self.log, errors="replace") as handle:
            return handle.read()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


@pytest.fixture(scope="module")
def standalone_cluster(tmp_path_factory):
    """(master URL, workers' work dir) of a standalone cluster of two one-core workers on
    loopback: one executor JVM on each."""
    base = tmp_path_factory.mktemp("standalone")
    env = job_env()
    env.update(SPARK_LOCAL_IP="127.0.0.1", SPARK_LOG_DIR=str(base), SPARK_WORKER_DIR=str(base / "work"),
               SPARK_NO_DAEMONIZE="1", SPARK_DAEMON_MEMORY="256m")
    port = free_port()
    master_url = f"spark://127.0.0.1:{port}"
    master = Daemon("master", ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                               "--port", str(port), "--webui-port", str(free_port())],
                    str(base / "master.log"), env)
    workers: list[Daemon] = []
    try:
        wait_for(lambda: any(line in master.output()
                             for line in ("Starting Spark master", "I have been elected leader")),
                 90, "the master starting", [master.log])
        work_dir = str(base / "work")
        for n in (1, 2):
            arguments = ["org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", "1",
                         "--memory", "768m", "--work-dir", work_dir, "--webui-port", str(free_port()),
                         master_url]
            workers.append(Daemon(f"worker{n}", arguments, str(base / f"worker{n}.log"), env))
        for worker in workers:
            wait_for(lambda worker=worker: "Successfully registered with master" in worker.output(), 90,
                     f"{worker.name} registering with the master", [master.log, worker.log])
        yield master_url, work_dir
    finally:
        for worker in workers:
            worker.stop()
        master.stop()


def executors_that_ran_tasks(work_dir: str, app_logs_before: set[str]) -> list[str]:
    """The stderr logs of this application's executors that ran a task."""
    logs = set(glob.glob(os.path.join(work_dir, "app-*", "*", "stderr"))) - app_logs_before
    return [log for log in logs if "Running task" in open(log, errors="replace").read()]


def test_queue_to_files_on_a_standalone_cluster(standalone_cluster, qm, ibmmq, conn, make_queue, tmp_path):
    master_url, work_dir = standalone_cluster
    queue = make_queue()
    texts = [f"cluster message {n}" for n in range(400)]
    put_texts(conn, queue, texts)
    out = tmp_path / "parquet"
    before = set(glob.glob(os.path.join(work_dir, "app-*", "*", "stderr")))
    process = spark_submit("queue_to_files.py", *connection_args(qm), "--queue", queue, "--format", "parquet",
                           "--path", str(out), "--max-messages-per-trigger", "150",
                           master=master_url,
                           submit_args=("--executor-memory", "512m", "--total-executor-cores", "2",
                                        "--conf", "spark.executor.cores=1"),
                           timeout=420)
    assert process.returncode == 0, explain(process)
    assert "done: 400 messages" in process.stdout
    rows = pq.read_table(str(out)).to_pylist()
    assert sorted(row["payload"] for row in rows) == sorted(texts)
    assert depth(conn, queue) == 0
    # The work really ran in executor JVMs the workers launched for this application.
    assert executors_that_ran_tasks(work_dir, before), f"no executor ran under {work_dir}"


def test_read_mode_executors_reads_one_queue_from_both_workers(standalone_cluster, qm, conn, make_queue,
                                                               tmp_path):
    """Each micro-batch's two partitions get their shares from the queue in the two executors,
    one per worker; every message lands once."""
    master_url, work_dir = standalone_cluster
    queue = make_queue()
    texts = [f"parallel message {n}" for n in range(1000)]
    put_texts(conn, queue, texts)
    out = tmp_path / "parquet"
    before = set(glob.glob(os.path.join(work_dir, "app-*", "*", "stderr")))
    process = spark_submit("queue_to_files.py", *connection_args(qm), "--queue", queue, "--format", "parquet",
                           "--path", str(out), "--max-messages-per-trigger", "400",
                           "--read-option", "readMode=executors", "--read-option", "numPartitions=2",
                           master=master_url,
                           submit_args=("--executor-memory", "512m", "--total-executor-cores", "2",
                                        "--conf", "spark.executor.cores=1"),
                           timeout=420)
    assert process.returncode == 0, explain(process)
    rows = pq.read_table(str(out)).to_pylist()
    assert sorted(row["payload"] for row in rows) == sorted(texts)
    assert depth(conn, queue) == 0 and depth(conn, "SPARK.MQ.READER.STATE") == 0
    assert len(executors_that_ran_tasks(work_dir, before)) == 2
