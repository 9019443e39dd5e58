"""Ctrl-C ends every `spark-mq-qmgr` tool that waits, with status 130 and one quiet line:
`get --wait` (also while an MQGET waits), `mqsc` reading its commands, `start` in the
foreground. The signal is a real SIGINT, sent once the tool is where it waits (connected to
the queue manager, or listening), as a terminal sends it."""
from __future__ import annotations

import re
import signal
import subprocess

import psutil

from shell_tool import TOOL
from support import activated_environment, wait_for

#: far longer than any test runs: a tool that ignored Ctrl-C would still be waiting
LONG_WAIT = "3600"


def connected(pid: int, port: int) -> bool:
    """Whether process `pid` has a TCP connection to `port` (the queue manager's listener)."""
    try:
        return any(c.raddr and c.raddr.port == port and c.status == psutil.CONN_ESTABLISHED
                   for c in psutil.Process(pid).net_connections("tcp"))
    except psutil.NoSuchProcess:
        return False


def interrupt(tool: subprocess.Popen) -> tuple[int, str]:
    """Ctrl-C; the tool's status and what it said on stderr."""
    tool.send_signal(signal.SIGINT)
    _, err = tool.communicate(timeout=60)
    return tool.returncode, err


def test_get_waiting_for_a_message_ends_on_ctrl_c_with_status_130(qm, tmp_path):
    tool = subprocess.Popen([TOOL, "get", "DEV.QUEUE.3", "--wait", LONG_WAIT, "--conn-name", qm.conn_name],
                            cwd=tmp_path, env=activated_environment(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: connected(tool.pid, qm.port), 60)     # its MQGET is waiting
        code, err = interrupt(tool)
    finally:
        stop(tool)
    assert code == 130, err
    assert err.strip().splitlines() == ["spark-mq-qmgr: interrupted"], err


def test_mqsc_reading_its_commands_ends_on_ctrl_c_with_status_130(qm, tmp_path):
    tool = subprocess.Popen([TOOL, "mqsc", "--conn-name", qm.conn_name], cwd=tmp_path,
                            env=activated_environment(), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert tool.stdin is not None and tool.stdout is not None
        tool.stdin.write("DISPLAY QMGR QMNAME\n")
        tool.stdin.flush()
        for line in tool.stdout:        # answered: it reads the next command now
            if "QMNAME(" in line:
                break
        code, err = interrupt(tool)
    finally:
        stop(tool)
    assert code == 130, err
    assert err.strip().splitlines()[-1] == "spark-mq-qmgr: interrupted", err
    assert "Traceback" not in err


def stop(tool: subprocess.Popen) -> None:
    if tool.poll() is None:
        tool.kill()
        tool.communicate()


def test_start_in_the_foreground_ends_on_ctrl_c_with_status_130(tmp_path):
    tool = subprocess.Popen([TOOL, "start", "--data-dir", str(tmp_path / "qm"), "--port", "0"],
                            cwd=tmp_path, env=activated_environment(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert tool.stderr is not None
        for line in tool.stderr:
            if re.search(r"listening on 127\.0\.0\.1\(\d+\)", line):
                break
        code, err = interrupt(tool)
    finally:
        stop(tool)
    assert code == 130, err
    assert "stopping (SIGINT)" in err and "Traceback" not in err
