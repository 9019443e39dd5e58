"""spark-mq-writer-state, run as a user would (the installed command, in a child process),
against a state queue holding the markers of two writers."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import ibmmq

from spark_mq.mq.markers import marker_id
from support import depth

COMMAND = os.path.join(os.path.dirname(sys.executable), "spark-mq-writer-state")


def put_marker(conn, queue: str, writer_id: str, partition: int, batch: int, rows: int) -> None:
    handle = ibmmq.Queue(conn, queue, ibmmq.CMQC.MQOO_OUTPUT)
    body = {"writerId": writer_id, "partition": partition, "batch": batch, "rows": rows}
    handle.put(json.dumps(body).encode(), ibmmq.MD(CorrelId=marker_id(writer_id, partition),
                                                   Persistence=ibmmq.CMQC.MQPER_PERSISTENT))
    handle.close()


def writer_state(qm, state: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([COMMAND, "--conn-name", qm.conn_name, "--transport", "embedded",
                           "--state-queue", state, *args], capture_output=True, text=True,
                          timeout=60)


def test_list_shows_every_marker_and_remove_takes_only_the_idle_ones_of_one_writer(
        qm, conn, make_queue):
    state = make_queue(prefix="TEST.STATE")
    put_marker(conn, state, "finished-query", 0, 41, 2000)
    put_marker(conn, state, "finished-query", 1, 41, 1500)
    put_marker(conn, state, "running-query", 0, 7, 300)

    listed = writer_state(qm, state, "list")
    assert listed.returncode == 0, listed.stderr
    assert "3 markers of 2 writer ids" in listed.stdout
    assert "finished-query  partition 1  batch 41  rows 1500" in listed.stdout

    recent = writer_state(qm, state, "remove", "--writer-id", "finished-query")
    assert recent.returncode == 0, recent.stderr
    assert "removed 0 markers" in recent.stdout and "kept 2 markers" in recent.stdout
    assert depth(conn, state) == 3          # updated within the last hour: maybe still needed

    idle = writer_state(qm, state, "remove", "--writer-id", "finished-query", "--idle", "0")
    assert idle.returncode == 0, idle.stderr
    assert "removed 2 markers of finished-query" in idle.stdout
    assert depth(conn, state) == 1          # the other writer's marker stays
    assert "1 markers of 1 writer ids" in writer_state(qm, state, "list").stdout


def test_an_unknown_state_queue_is_one_line_with_the_reason(qm):
    done = writer_state(qm, "NO.SUCH.STATE.QUEUE", "list")
    assert done.returncode == 1
    assert done.stderr.startswith("error:") and "2085" in done.stderr
    assert "Traceback" not in done.stderr
