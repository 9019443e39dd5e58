"""Helpers for the tests that run the jobs/ pipelines as a user would: through spark-submit."""
from __future__ import annotations

import os
import subprocess
import sys

import pyspark

PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JOBS = os.path.join(PROJECT_ROOT, "jobs")
SPARK_HOME = os.path.dirname(pyspark.__file__)
SPARK_SUBMIT = os.path.join(SPARK_HOME, "bin", "spark-submit")
SPARK_CLASS = os.path.join(SPARK_HOME, "bin", "spark-class")

# Small and quiet: the machine is shared, and a job's output is what the tests read.
LEAN_CONF = {
    "spark.ui.enabled": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.driver.memory": "1g",
}


def job_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYSPARK_PYTHON"] = sys.executable
    env["PYSPARK_DRIVER_PYTHON"] = sys.executable
    env["SPARK_HOME"] = SPARK_HOME
    env.pop("PYSPARK_SUBMIT_ARGS", None)
    # The jobs import spark_mq from the project even where it is not installed.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [PROJECT_ROOT, env.get("PYTHONPATH")]))
    return env


def spark_submit_command(job: str, *args: str, master: str = "local[2]",
                         submit_args: tuple[str, ...] = ()) -> tuple[list[str], dict[str, str]]:
    """The spark-submit command line and environment that run jobs/<job> args..."""
    command = [SPARK_SUBMIT, "--master", master]
    for key, value in LEAN_CONF.items():
        command += ["--conf", f"{key}={value}"]
    command += list(submit_args)
    command += [os.path.join(JOBS, job), *args]
    return command, job_env()


def spark_submit(job: str, *args: str, master: str = "local[2]", submit_args: tuple[str, ...] = (),
                 timeout: float = 300) -> subprocess.CompletedProcess:
    """spark-submit jobs/<job> args..., returning the finished process (output as text)."""
    command, env = spark_submit_command(job, *args, master=master, submit_args=submit_args)
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=PROJECT_ROOT)


def python_job(job: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """python jobs/<job> args... (the job starts its own local Spark)."""
    return subprocess.run([sys.executable, os.path.join(JOBS, job), *args], capture_output=True, text=True,
                          timeout=timeout, env=job_env(), cwd=PROJECT_ROOT)


def explain(process: subprocess.CompletedProcess) -> str:
    """What a failed job printed, for assertion messages."""
    return (f"exit {process.returncode}\n--- stdout ---\n{process.stdout[-6000:]}"
            f"\n--- stderr ---\n{process.stderr[-6000:]}")


def connection_args(qm) -> list[str]:
    return ["--conn-name", qm.conn_name, "--queue-manager", qm.name, "--channel", qm.channel,
            "--transport", "embedded"]


def drain(ibmmq, conn, queue: str, wait_ms: int = 0) -> list[tuple[object, bytes, dict]]:
    """Every message on the queue as (MQMD, payload, properties), gotten destructively."""
    from spark_mq.mq.properties import read_all
    handle = ibmmq.Queue(conn, queue, ibmmq.CMQC.MQOO_INPUT_SHARED)
    messages = []
    try:
        while True:
            md = ibmmq.MD()
            properties = ibmmq.MessageHandle(conn)
            gmo = ibmmq.GMO(Options=ibmmq.CMQC.MQGMO_NO_SYNCPOINT | ibmmq.CMQC.MQGMO_WAIT
                            | ibmmq.CMQC.MQGMO_PROPERTIES_IN_HANDLE,
                            WaitInterval=wait_ms, Version=ibmmq.CMQC.MQGMO_VERSION_4,
                            MsgHandle=properties.msg_handle)
            try:
                payload = handle.get(None, md, gmo)
            except ibmmq.MQMIError as exc:
                if exc.reason == ibmmq.CMQC.MQRC_NO_MSG_AVAILABLE:
                    return messages
                raise
            messages.append((md, payload, read_all(properties, ibmmq)))
    finally:
        handle.close()


def depth(ibmmq, conn, queue: str) -> int:
    handle = ibmmq.Queue(conn, queue, ibmmq.CMQC.MQOO_INQUIRE)
    try:
        return int(handle.inquire(ibmmq.CMQC.MQIA_CURRENT_Q_DEPTH))
    finally:
        handle.close()


def put_texts(ibmmq, conn, queue: str, texts, **md_fields) -> list[bytes]:
    """Persistent string messages under syncpoint, committed; returns their MsgIds."""
    handle = ibmmq.Queue(conn, queue, ibmmq.CMQC.MQOO_OUTPUT)
    ids = []
    try:
        for text in texts:
            md = ibmmq.MD(Format=ibmmq.CMQC.MQFMT_STRING, Persistence=ibmmq.CMQC.MQPER_PERSISTENT, **md_fields)
            pmo = ibmmq.PMO(Options=ibmmq.CMQC.MQPMO_SYNCPOINT | ibmmq.CMQC.MQPMO_NEW_MSG_ID)
            handle.put(text.encode(), md, pmo)
            ids.append(md.MsgId)
        conn.commit()
    finally:
        handle.close()
    return ids
