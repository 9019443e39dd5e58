"""Two queue managers started with `spark-mq-qmgr start --background` in a plain shell, and
the client tools finding each by --queue-manager or --data-dir without --conn-name (the
local registry); `status`; the errors of a queue manager that is not running, or not the
one named, in the shell's words; `put --ccsid/--encoding/--format`; `depth` without the
tool's own reply queues. As in test_shell_tools.py: the installed command, HOME a folder of
the test, every outcome read from exit status and output."""
from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import socket
from pathlib import Path

import pytest

from shell_tool import one_line_error, run, text
from support import activated_environment

EBCDIC_TEXT = "Grüße, Zürich"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """(cwd, env without SPARK_MQ_CONN_NAME, {name: (port, data dir)}): QMA and QMB started
    by the tool on two free ports, stopped by it at the end."""
    cwd = tmp_path_factory.mktemp("registry")
    (cwd / "home").mkdir()
    env = {**activated_environment(), "HOME": str(cwd / "home")}
    started: dict[str, tuple[int, Path]] = {}
    try:
        for name in ("QMA", "QMB"):
            port, data_dir = free_port(), cwd / name.lower()
            out, _ = text(run("start", "--background", "--name", name, "--port", str(port),
                              "--data-dir", str(data_dir), cwd=cwd, env=env))
            assert f"running at localhost({port})" in out, out
            started[name] = (port, data_dir)
        yield cwd, env, started
    finally:
        for _port, data_dir in started.values():
            if run("stop", "--data-dir", str(data_dir), cwd=cwd, env=env, check=False).returncode:
                with contextlib.suppress(OSError, ValueError, KeyError, ProcessLookupError):
                    os.kill(json.loads((data_dir / "ready.json").read_text())["pid"], 9)


def depth_of(queue: str, *where: str, cwd: Path, env: dict[str, str]) -> int:
    out, _ = text(run("depth", queue, *where, cwd=cwd, env=env))
    return int(re.search(rf"^{re.escape(queue)}\s+(\d+)\s+\d+$", out, re.MULTILINE).group(1))


def test_status_lists_both_with_port_data_directory_pid_and_state(pair):
    cwd, env, started = pair
    out, _ = text(run("status", cwd=cwd, env=env))
    for name, (port, data_dir) in started.items():
        pid = json.loads((data_dir / "ready.json").read_text())["pid"]
        assert re.search(rf"^{name}\s+running\s+localhost\({port}\)\s+{pid}\s+{re.escape(str(data_dir))}$",
                         out, re.MULTILINE), out


def test_each_client_command_finds_the_named_queue_manager_without_conn_name(pair):
    cwd, env, started = pair
    run("mqsc", "--queue-manager", "QMB", "DEFINE QLOCAL(ONLY.ON.B)", cwd=cwd, env=env)
    run("put", "--queue-manager", "QMB", "ONLY.ON.B", "for B", cwd=cwd, env=env)
    assert depth_of("ONLY.ON.B", "--queue-manager", "QMB", cwd=cwd, env=env) == 1
    assert depth_of("ONLY.ON.B", "--data-dir", str(started["QMB"][1]), cwd=cwd, env=env) == 1
    on_a = run("depth", "--queue-manager", "QMA", "ONLY.ON.B", cwd=cwd, env=env, check=False)
    assert "2085 MQRC_UNKNOWN_OBJECT_NAME" in one_line_error(on_a)
    browsed, _ = text(run("browse", "--data-dir", str(started["QMB"][1]), "ONLY.ON.B",
                          "--payload-only", cwd=cwd, env=env))
    assert browsed.splitlines() == ["for B"]
    out, _ = text(run("mqsc", "--queue-manager", "QMB", "DISPLAY QMGR QMNAME", cwd=cwd, env=env))
    assert "QMNAME(QMB)" in out, out
    run("channels", "--queue-manager", "QMB", cwd=cwd, env=env)
    got, _ = text(run("get", "--queue-manager", "QMB", "ONLY.ON.B", "--payload-only", cwd=cwd, env=env))
    assert got.splitlines() == ["for B"]


def test_data_dir_and_queue_manager_that_disagree_are_refused(pair):
    cwd, env, started = pair
    done = run("depth", "--queue-manager", "QMA", "--data-dir", str(started["QMB"][1]), "DEV.QUEUE.1",
               cwd=cwd, env=env, check=False)
    assert done.returncode == 2
    assert "holds queue manager QMB, not QMA" in one_line_error(done)


def test_depth_hides_the_tools_own_reply_queues(pair):
    cwd, env, _ = pair
    out, _ = text(run("depth", "--queue-manager", "QMA", cwd=cwd, env=env))
    assert "DEV.QUEUE.1" in out and "AMQ.MQSC." not in out, out
    everything, _ = text(run("depth", "--queue-manager", "QMA", "--system", cwd=cwd, env=env))
    assert "AMQ.MQSC." in everything and "SYSTEM.DEFAULT.LOCAL.QUEUE" in everything, everything


def test_a_name_no_local_queue_manager_has_lists_the_running_ones(pair):
    cwd, env, started = pair
    done = run("put", "--queue-manager", "QMX", "--conn-name", f"localhost({started['QMA'][0]})",
               "DEV.QUEUE.1", "x", cwd=cwd, env=env, check=False)
    line = one_line_error(done)
    assert done.returncode == 1
    assert "2058 MQRC_Q_MGR_NAME_ERROR" in line and "not QMX" in line, line
    for name, (port, _) in started.items():
        assert f"{name} at localhost({port})" in line, line
    assert "'queueManager'" not in line and "--queue-manager" in line, line


@pytest.mark.parametrize("command", [["put", "DEV.QUEUE.1", "x"], ["get", "DEV.QUEUE.1"],
                                     ["browse", "DEV.QUEUE.1"], ["depth", "DEV.QUEUE.1"], ["depth"],
                                     ["mqsc", "DISPLAY QMGR"]])
def test_nothing_listening_is_said_in_the_shells_words(pair, command):
    cwd, env, _ = pair
    port = free_port()
    done = run(*command, "--conn-name", f"localhost({port})", cwd=cwd, env=env, check=False)
    line = one_line_error(done)
    assert done.returncode == 1
    assert "2538 MQRC_HOST_NOT_AVAILABLE" in line and f"localhost({port})" in line, line
    assert "spark-mq-qmgr start --background" in line and f"--port {port}" in line, line
    assert "--conn-name" in line and "'connName'" not in line, line


def test_put_plays_the_mainframe_sender(pair):
    cwd, env, _ = pair
    where = ("--queue-manager", "QMA")
    run("mqsc", *where, "DEFINE QLOCAL(FROM.MAINFRAME)", cwd=cwd, env=env)
    run("put", *where, "--ccsid", "500", "--encoding", "s390", "--property", "region=EU",
        "--property", "qty:integer=3", "FROM.MAINFRAME", EBCDIC_TEXT, cwd=cwd, env=env)
    run("put", *where, "--ccsid", "500", "--format", "NONE", "FROM.MAINFRAME", EBCDIC_TEXT, cwd=cwd, env=env)
    out, _ = text(run("browse", *where, "--json", "FROM.MAINFRAME", cwd=cwd, env=env))
    string, raw = (json.loads(line) for line in out.splitlines())
    assert string["md"]["CodedCharSetId"] == 500 and string["md"]["Encoding"] == 785
    assert string["md"]["Format"] == "MQSTR" and string["payload"] == EBCDIC_TEXT
    assert string["properties"] == {"region": "EU", "qty": 3}
    assert raw["md"]["CodedCharSetId"] == 500 and raw["md"]["Format"] == ""
    assert base64.b64decode(raw["payload_base64"]) == EBCDIC_TEXT.encode("cp500")


def test_put_refuses_a_ccsid_it_has_no_table_for_and_text_the_code_page_lacks(pair):
    cwd, env, _ = pair
    where = ("--queue-manager", "QMA")
    unknown = run("put", *where, "--ccsid", "4242", "DEV.QUEUE.2", "x", cwd=cwd, env=env, check=False)
    line = one_line_error(unknown)
    assert unknown.returncode == 2 and "--ccsid 4242" in line and "valid: " in line and "500" in line, line
    lacking = run("put", *where, "--ccsid", "37", "DEV.QUEUE.2", "ok", "price: 5 €", cwd=cwd, env=env,
                  check=False)
    line = one_line_error(lacking)
    assert lacking.returncode == 2 and "'€'" in line and "CCSID 37" in line, line
    assert depth_of("DEV.QUEUE.2", *where, cwd=cwd, env=env) == 0
    bad = run("put", *where, "--encoding", "middle-endian", "DEV.QUEUE.2", "x", cwd=cwd, env=env, check=False)
    assert bad.returncode == 2 and b"s390 (785)" in bad.stderr


def test_a_stopped_queue_manager_is_2059_with_the_command_that_starts_it(tmp_path):
    (tmp_path / "home").mkdir()
    env = {**activated_environment(), "HOME": str(tmp_path / "home")}
    port, data_dir = free_port(), tmp_path / "qmc"
    run("start", "--background", "--name", "QMC", "--port", str(port), "--data-dir", str(data_dir),
        cwd=tmp_path, env=env)
    run("stop", "--name", "QMC", cwd=tmp_path, env=env)       # found in the registry
    out, _ = text(run("status", cwd=tmp_path, env=env))
    assert re.search(rf"^QMC\s+stopped\s+localhost\({port}\)\s+-\s+{re.escape(str(data_dir))}$",
                     out, re.MULTILINE), out
    for where in (["--queue-manager", "QMC"], ["--data-dir", str(data_dir)]):
        for command in (["put", "DEV.QUEUE.1", "x"], ["get", "DEV.QUEUE.1"], ["depth"]):
            done = run(*command, *where, cwd=tmp_path, env=env, check=False)
            line = one_line_error(done)
            assert done.returncode == 1, line
            assert line.startswith(f"spark-mq-qmgr {command[0]}: connecting to queue manager QMC"), line
            assert "2059 MQRC_Q_MGR_NOT_AVAILABLE" in line and "not running" in line, line
            assert (f"`spark-mq-qmgr start --background --name QMC --data-dir {data_dir} --port {port}`"
                    in line), line
