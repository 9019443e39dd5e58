"""An embedded queue manager started from Python ends with the process that started it,
however that process ends (SIGKILL included), unless it was asked to outlive it; and then
its port and its data directory are free for the next one."""
from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import textwrap

import psutil
import pytest

from support import activated_environment

#: starts a queue manager, says where it is, then waits to be killed
OWNER = textwrap.dedent("""
    import json, sys, time
    from spark_mq.embedded import EmbeddedQueueManager
    qm = EmbeddedQueueManager(sys.argv[1], outlive_owner=sys.argv[2] == "outlive").start()
    print(json.dumps({"pid": qm.pid, "port": qm.port}), flush=True)
    time.sleep(3600)
""")


def start_owner(data_dir: str, mode: str) -> tuple[subprocess.Popen, dict]:
    owner = subprocess.Popen([sys.executable, "-c", OWNER, data_dir, mode], stdout=subprocess.PIPE,
                             text=True)
    assert owner.stdout is not None
    started = json.loads(owner.stdout.readline())
    return owner, started


def port_is_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["sigkill", "sigterm"])
def test_the_queue_manager_ends_with_the_process_that_started_it(how, tmp_path):
    owner, started = start_owner(str(tmp_path / "qm"), "owned")
    queue_manager = psutil.Process(started["pid"])
    assert queue_manager.is_running() and not port_is_free(started["port"])
    owner.send_signal(how)
    owner.wait(30)
    queue_manager.wait(30)             # raises TimeoutExpired when it lives on
    assert port_is_free(started["port"])
    # it stopped cleanly (as on SIGTERM): the data directory is free for the next one
    log = (tmp_path / "qm" / "qmgr.log").read_text()
    assert "stopping (owner ended)" in log, log
    subprocess.run(["spark-mq-qmgr", "start", "--background", "--data-dir", str(tmp_path / "qm"),
                    "--port", "0"], check=True, capture_output=True, env=activated_environment())
    subprocess.run(["spark-mq-qmgr", "stop", "--data-dir", str(tmp_path / "qm")], check=True,
                   capture_output=True, env=activated_environment())


def test_a_queue_manager_asked_to_outlive_its_owner_runs_on(tmp_path):
    owner, started = start_owner(str(tmp_path / "qm"), "outlive")
    queue_manager = psutil.Process(started["pid"])
    try:
        owner.kill()
        owner.wait(30)
        with pytest.raises(psutil.TimeoutExpired):
            queue_manager.wait(3)      # still there after its owner has gone
        assert not port_is_free(started["port"])
    finally:
        queue_manager.terminate()
        queue_manager.wait(30)


def test_spark_mq_qmgr_start_background_outlives_the_command(tmp_path):
    env = activated_environment()
    done = subprocess.run(["spark-mq-qmgr", "start", "--background", "--data-dir", str(tmp_path / "qm"),
                           "--port", "0"], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    pid = json.loads((tmp_path / "qm" / "ready.json").read_text())["pid"]
    try:
        assert psutil.Process(pid).is_running()
    finally:
        stopped = subprocess.run(["spark-mq-qmgr", "stop", "--data-dir", str(tmp_path / "qm")],
                                 capture_output=True, text=True, env=env)
    assert stopped.returncode == 0, stopped.stderr
