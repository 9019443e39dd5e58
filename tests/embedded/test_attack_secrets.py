"""Attack: reading secrets as another local user would. No password on the queue manager's
command line (/proc/PID/cmdline is world-readable), none in its environment, the data
directory 0700 and everything in it 0600, and no listening beyond loopback without users
unless the operator says --insecure. Real processes."""
from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import ibmmq
import pytest
from ibmmq import CMQC

import spark_mq.embedded as embedded

SECRET = "s3cret-Pa55"
USERS = {"app": SECRET, "admin": "adm-" + SECRET}


def clean_environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "SPARK_MQ_QMGR_USERS"}


@pytest.fixture(scope="module")
def sqm(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmsecret")), name="QMSECRET",
                                       users=USERS, mqsc="DEFINE QLOCAL(SECRET.Q) REPLACE\n") as qm:
        connection = ibmmq.connect(qm.name, "DEV.APP.SVRCONN", qm.conn_name, user="app",
                                   password=SECRET)
        connection.put1("DEV.QUEUE.1", b"persistent", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        connection.disconnect()
        yield qm


def test_no_password_on_the_command_line_or_in_the_environment(sqm):
    cmdline = Path(f"/proc/{sqm.pid}/cmdline").read_bytes()
    assert SECRET.encode() not in cmdline and b"app:" not in cmdline and b"--user " not in cmdline
    assert b"--users-stdin" in cmdline
    assert SECRET.encode() not in Path(f"/proc/{sqm.pid}/environ").read_bytes()


def test_the_data_directory_is_0700_and_its_files_0600(sqm):
    top = Path(sqm.data_dir)
    assert stat.S_IMODE(top.stat().st_mode) == 0o700
    found = {path.name: stat.S_IMODE(path.lstat().st_mode) for path in top.rglob("*")}
    for expected in ("qmgr.log", "ready.json", "qmgr.lock", "qmgr.sock"):
        assert expected in found, sorted(found)
    assert any(name.endswith(".mqsc") for name in found), sorted(found)   # the generated MQSC
    assert len(found) > 5, sorted(found)                                  # the store and its WAL
    for path in top.rglob("*"):
        mode = stat.S_IMODE(path.lstat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))


def test_an_existing_open_directory_is_made_private(tmp_path):
    data = tmp_path / "old"
    data.mkdir(mode=0o755)
    (data / "notes.txt").write_text("left by an older version")
    os.chmod(data / "notes.txt", 0o644)
    with embedded.EmbeddedQueueManager(str(data), name="QMOLD"):
        assert stat.S_IMODE(data.stat().st_mode) == 0o700
        assert stat.S_IMODE((data / "notes.txt").stat().st_mode) == 0o600


# --- the command line ---------------------------------------------------------------------------
def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 60,
            stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "spark_mq.embedded", *args], input=stdin,
                          capture_output=True, text=True, timeout=timeout,
                          env=env or clean_environment())


def test_a_password_on_the_command_line_is_refused(tmp_path):
    done = run_cli("--data-dir", str(tmp_path), "--port", "0", "--user", f"app:{SECRET}")
    assert done.returncode == 2
    assert "--users-file" in done.stderr and "/proc" in done.stderr
    assert SECRET not in done.stderr


def test_a_users_file_others_may_read_is_refused(tmp_path):
    users = tmp_path / "users"
    users.write_text(f"app:{SECRET}\n")
    os.chmod(users, 0o644)
    done = run_cli("--data-dir", str(tmp_path / "d"), "--port", "0", "--users-file", str(users))
    assert done.returncode == 2 and "chmod 600" in done.stderr and SECRET not in done.stderr


class Foreground:
    """`python -m spark_mq.embedded ARGS` until stopped, with its ready file."""

    def __init__(self, tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.ready = tmp_path / "ready.json"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "spark_mq.embedded", "--data-dir", str(tmp_path / "d"),
             "--port", "0", "--ready-file", str(self.ready), *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env=env or clean_environment())

    def wait_ready(self) -> int:
        deadline = time.monotonic() + 30
        while not self.ready.exists():
            assert self.process.poll() is None, self.process.communicate()[0]
            assert time.monotonic() < deadline
            time.sleep(0.05)
        return int(json.loads(self.ready.read_text())["port"])

    def stop(self) -> str:
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.communicate(timeout=20)[0]
        finally:
            self.process.kill()


def test_a_users_file_only_the_owner_reads_is_taken(tmp_path):
    users = tmp_path / "users"
    users.write_text(f"# the users\napp:{SECRET}\n")
    os.chmod(users, 0o600)
    server = Foreground(tmp_path, "--name", "QMFILE", "--users-file", str(users))
    try:
        port = server.wait_ready()
        ibmmq.connect("QMFILE", "DEV.APP.SVRCONN", f"127.0.0.1({port})", user="app",
                      password=SECRET).disconnect()
        with pytest.raises(ibmmq.MQMIError) as exc:
            ibmmq.connect("QMFILE", "DEV.APP.SVRCONN", f"127.0.0.1({port})", user="app",
                          password="wrong")
        assert exc.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    finally:
        server.stop()


def test_beyond_loopback_without_users_is_refused(tmp_path):
    done = run_cli("--data-dir", str(tmp_path), "--port", "0", "--host", "0.0.0.0")
    assert done.returncode == 2
    assert "--insecure" in done.stderr and "no users" in done.stderr


def test_beyond_loopback_without_users_starts_with_insecure(tmp_path):
    server = Foreground(tmp_path, "--name", "QMOPEN", "--host", "0.0.0.0", "--insecure")
    try:
        port = server.wait_ready()
        ibmmq.connect("QMOPEN", "DEV.APP.SVRCONN", f"127.0.0.1({port})").disconnect()
    finally:
        output = server.stop()
    assert "listening on 0.0.0.0" in output


def test_beyond_loopback_with_users_from_the_environment_starts(tmp_path):
    env = {**clean_environment(), "SPARK_MQ_QMGR_USERS": f"app:{SECRET}"}
    server = Foreground(tmp_path, "--name", "QMENV", "--host", "0.0.0.0", env=env)
    try:
        port = server.wait_ready()
        ibmmq.connect("QMENV", "DEV.APP.SVRCONN", f"127.0.0.1({port})", user="app",
                      password=SECRET).disconnect()
        assert SECRET.encode() not in Path(f"/proc/{server.process.pid}/cmdline").read_bytes()
    finally:
        server.stop()


def test_embedded_queue_manager_beyond_loopback_needs_users_or_insecure(tmp_path):
    with pytest.raises(embedded.EmbeddedQueueManagerError, match="--insecure"):
        embedded.EmbeddedQueueManager(str(tmp_path / "a"), name="QMWIDE", host="0.0.0.0").start()
    with embedded.EmbeddedQueueManager(str(tmp_path / "b"), name="QMWIDE", host="0.0.0.0",
                                       insecure=True) as open_qm:
        assert "QMNAME(QMWIDE)" in open_qm.run_mqsc("DISPLAY QMGR")
