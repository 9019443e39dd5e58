"""One local Spark Connect server for the Connect lane (its own JVM, started as Spark's
`sbin/start-connect-server.sh` starts it: spark-submit of SparkConnectServer), and a Connect
client session on it.

The data source runs in the server's Python workers, so the server's PYSPARK_PYTHON is this
interpreter, which has the project installed. The server listens on a port the kernel
chooses (binding.port 0, read back from its log line), on loopback only."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from support import LEAN_CONF, SPARK_SUBMIT, job_env, process_tree

SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
STARTED = re.compile(r"Spark Connect server started at: (\S+):(\d+)")
START_SECONDS = 180


def server_command() -> list[str]:
    command = [SPARK_SUBMIT, "--class", SERVER_CLASS, "--name", "spark-mq Connect lane",
               "--master", "local[2]",
               "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
               "--conf", "spark.connect.grpc.binding.port=0"]
    for key, value in LEAN_CONF.items():
        command += ["--conf", f"{key}={value}"]
    return command


def wait_for_port(process: subprocess.Popen, log: Path) -> int:
    """The port in the server's "started at" line; fails with the log's tail if the server
    exits or does not start in time."""
    deadline = time.monotonic() + START_SECONDS
    while True:
        found = STARTED.search(log.read_text(errors="replace"))
        if found:
            return int(found.group(2))
        tail = log.read_text(errors="replace")[-4000:]
        assert process.poll() is None, f"the Connect server exited with {process.returncode}:\n{tail}"
        assert time.monotonic() < deadline, f"no Connect server after {START_SECONDS} s:\n{tail}"
        time.sleep(0.2)   # polling a log file: nothing to wait on instead


def stop_server(process: subprocess.Popen) -> None:
    """SIGTERM (Spark's shutdown hook stops the context and its Python workers), then kill
    whatever of its process tree is left, so that no worker outlives the lane."""
    tree = process_tree(process.pid)
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    for pid in tree:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture(scope="session")
def connect_url(tmp_path_factory):
    """sc://127.0.0.1:PORT of a Spark Connect server (local[2]) for the whole session."""
    work = tmp_path_factory.mktemp("connect-server")
    log = work / "server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(server_command(), cwd=work, env=job_env(), stdin=subprocess.DEVNULL,
                                   stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        port = wait_for_port(process, log)
        yield f"sc://127.0.0.1:{port}"
    finally:
        stop_server(process)


@pytest.fixture(scope="session")
def connect(connect_url):
    """A Spark Connect client session with the "mq" data source registered on it.

    Built with the Connect session class itself, not `SparkSession.builder.remote(...)`:
    that one refuses while this test process has a classic session (the `spark` fixture)
    and switches the whole process to Connect mode."""
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    import spark_mq
    session = ConnectSession.builder.remote(connect_url).create()
    spark_mq.register(session)      # on Connect: spark.dataSource.register, the class goes by reference
    yield session
    session.stop()
