"""Passwords never on a command line, for the client tools as a user runs them (the installed
`spark-mq-qmgr`, a plain shell, a queue manager with users): `--password VALUE` is refused
with the three ways that keep a password private, and each of them works: SPARK_MQ_PASSWORD,
a file only its owner may read (--password-file; a group-readable one is refused, naming the
file and its mode), and a prompt at a terminal. A running trigger monitor's command line, and
the command lines of the programs it starts, hold no password."""
from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import subprocess
import sys
import termios
import time
from pathlib import Path

import ibmmq
import pytest
from ibmmq import CMQC

import spark_mq.embedded as embedded
from shell_tool import TOOL, one_line_error, run, text
from support import activated_environment

SECRET = "Pr1vate-pw-31"
DEADLINE = 60.0
THREE_WAYS = ("SPARK_MQ_PASSWORD", "--password-file PATH", "type it when asked")


@pytest.fixture(scope="module")
def secured(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qm")), name="QMPW",
                                       users={"admin": SECRET}) as qm:
        yield qm


@pytest.fixture
def shell(secured, tmp_path):
    """(cwd, env): a plain shell that names the queue manager and its admin user, no password."""
    env = {**activated_environment(), "HOME": str(tmp_path), "SPARK_MQ_CONN_NAME": secured.conn_name,
           "SPARK_MQ_QUEUE_MANAGER": secured.name, "SPARK_MQ_USER": "admin"}
    return tmp_path, env


def password_file(folder: Path, mode: int, content: str = SECRET + "\n") -> Path:
    path = folder / f"password-{mode:o}"
    path.write_text(content)
    path.chmod(mode)
    return path


def test_a_password_on_the_command_line_is_refused_with_the_three_ways(shell):
    cwd, env = shell
    for args in (["mqsc", "DISPLAY QMGR", "--password", SECRET],
                 ["put", "DEV.QUEUE.1", "x", f"--password={SECRET}"],
                 ["trigger-monitor", "--password", SECRET]):
        done = run(*args, cwd=cwd, env=env, check=False)
        said = done.stderr.decode()
        assert done.returncode == 2, said
        assert "--password: a password on the command line is readable by every local user" in said
        assert all(way in said for way in THREE_WAYS), said
    assert "--password-file" in text(run("put", "--help", cwd=cwd, env=env))[0]


def test_the_environment_and_an_owner_only_file_give_the_password(shell):
    cwd, env = shell
    assert "QMNAME(QMPW)" in text(run("mqsc", "DISPLAY QMGR", cwd=cwd,
                                      env={**env, "SPARK_MQ_PASSWORD": SECRET}))[0]
    private = password_file(cwd, 0o600)
    assert "QMNAME(QMPW)" in text(run("mqsc", "DISPLAY QMGR", "--password-file", str(private),
                                      cwd=cwd, env=env))[0]
    assert "QMNAME(QMPW)" in text(run("mqsc", "DISPLAY QMGR", cwd=cwd,
                                      env={**env, "SPARK_MQ_PASSWORD_FILE": str(private)}))[0]
    # the file's word wins over a stale variable, and a wrong one is MQ's 2035
    done = run("mqsc", "DISPLAY QMGR", "--password-file", str(password_file(cwd, 0o400, "wrong\n")),
               cwd=cwd, env={**env, "SPARK_MQ_PASSWORD": SECRET}, check=False)
    assert done.returncode == 1 and "2035 MQRC_NOT_AUTHORIZED" in one_line_error(done)


def test_a_password_file_others_can_read_is_refused_naming_it_and_its_mode(shell):
    cwd, env = shell
    for mode in (0o640, 0o604, 0o620):
        shared = password_file(cwd, mode)
        done = run("mqsc", "DISPLAY QMGR", "--password-file", str(shared), cwd=cwd, env=env, check=False)
        assert done.returncode == 2
        line = one_line_error(done)
        assert f"--password-file {shared}: permissions {mode:04o} are too open" in line, line
        assert f"chmod 600 {shared}" in line
    done = run("depth", "--password-file", str(cwd / "missing"), cwd=cwd, env=env, check=False)
    assert done.returncode == 2 and f"--password-file {cwd / 'missing'}: No such file" in one_line_error(done)


def test_at_a_terminal_a_user_without_a_password_is_asked_for_it(shell):
    """As runmqsc -u USER: the prompt is on the terminal, what is typed is not echoed."""
    cwd, env = shell
    master, slave = pty.openpty()

    def own_terminal() -> None:      # the pty becomes the tool's controlling terminal (/dev/tty)
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    process = subprocess.Popen([TOOL, "mqsc", "DISPLAY QMGR"], cwd=cwd, env=env, stdin=slave,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True, preexec_fn=own_terminal)
    os.close(slave)
    try:
        seen = _read_until(master, b"password for admin: ")
        os.write(master, SECRET.encode() + b"\n")
        out, err = process.communicate(timeout=DEADLINE)
        assert process.returncode == 0, err
        assert b"QMNAME(QMPW)" in out
        seen += _read_all(master)
        assert SECRET.encode() not in seen           # not echoed
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)


def _read_until(fd: int, wanted: bytes) -> bytes:
    seen = b""
    deadline = time.monotonic() + DEADLINE
    while wanted not in seen:
        assert time.monotonic() < deadline, f"no prompt; the terminal showed {seen!r}"
        if select.select([fd], [], [], 1)[0]:
            seen += os.read(fd, 1024)
    return seen


def _read_all(fd: int) -> bytes:
    seen = b""
    while select.select([fd], [], [], 0.5)[0]:
        try:
            chunk = os.read(fd, 1024)
        except OSError:            # EIO: the tool has closed its end
            break
        if not chunk:
            break
        seen += chunk
    return seen


def test_a_running_trigger_monitor_and_its_programs_hold_no_password_on_their_command_lines(
        secured, shell):
    cwd, env = shell
    output = cwd / "arguments.json"
    script = cwd / "record-arguments"
    script.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                      f"open({str(output)!r}, 'w').write(json.dumps([sys.argv, "
                      "open(f'/proc/{os.getppid()}/cmdline').read()]))\n")
    script.chmod(0o755)
    secured.run_mqsc(f"""
        DEFINE PROCESS(PW.PROC) APPLICID('{script}') ENVRDATA('--from-trigger yes') REPLACE
        DEFINE QLOCAL(PW.INITQ) REPLACE
        DEFINE QLOCAL(PW.APP) TRIGGER TRIGTYPE(FIRST) PROCESS(PW.PROC) INITQ(PW.INITQ) REPLACE""")
    for way in ({"SPARK_MQ_PASSWORD": SECRET}, {"SPARK_MQ_PASSWORD_FILE": str(password_file(cwd, 0o600))}):
        output.unlink(missing_ok=True)
        monitor = subprocess.Popen([TOOL, "trigger-monitor", "--initq", "PW.INITQ", "--channel",
                                    "DEV.ADMIN.SVRCONN"], cwd=cwd, env={**env, **way},
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            said = _line_with(monitor, "waiting for trigger messages")   # connected: the password worked
            cmdline = Path(f"/proc/{monitor.pid}/cmdline").read_bytes()
            assert b"trigger-monitor" in cmdline and SECRET.encode() not in cmdline
            connection = ibmmq.connect(secured.name, "DEV.ADMIN.SVRCONN", secured.conn_name,
                                       user="admin", password=SECRET)
            try:
                queue = ibmmq.Queue(connection, "PW.APP", CMQC.MQOO_OUTPUT)
                queue.put(b"work")
                queue.close()
            finally:
                connection.disconnect()
            said += _line_with(monitor, "the program ended with exit status 0")
            arguments, parent_cmdline = json.loads(output.read_text())
            assert SECRET not in json.dumps(arguments) and SECRET not in parent_cmdline
            _drain_queue(secured, "PW.APP")
        finally:
            monitor.send_signal(signal.SIGINT)
            monitor.communicate(timeout=DEADLINE)
        assert monitor.returncode == 130, said


def _line_with(process: subprocess.Popen, fragment: str) -> str:
    seen = []
    deadline = time.monotonic() + DEADLINE
    assert process.stderr is not None
    while time.monotonic() < deadline:
        if not select.select([process.stderr], [], [], 1)[0]:
            continue
        line = process.stderr.readline()
        if not line:
            break
        seen.append(line)
        if fragment in line:
            return "".join(seen)
    raise AssertionError(f"no line with {fragment!r}: {''.join(seen)}")


def _drain_queue(qm, name: str) -> None:
    """Empties the triggered queue, so that the next message triggers again (TRIGTYPE FIRST)."""
    connection = ibmmq.connect(qm.name, "DEV.ADMIN.SVRCONN", qm.conn_name, user="admin", password=SECRET)
    try:
        queue = ibmmq.Queue(connection, name, CMQC.MQOO_INPUT_SHARED)
        try:
            while True:
                queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
        except ibmmq.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
        finally:
            queue.close()
    finally:
        connection.disconnect()



