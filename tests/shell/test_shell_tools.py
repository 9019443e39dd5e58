"""`spark-mq-qmgr` as a user runs it: the installed command, in a plain shell, from a folder
outside the repository, against queue managers it starts itself; every outcome read from
its exit status, standard output and standard error."""
from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
from pathlib import Path

import pytest

from shell_tool import TOOL, one_line_error, run, text
from support import PROJECT_ROOT, activated_environment

SHELL_TOOLS_PAGE = Path(PROJECT_ROOT, "docs", "embedded", "shell-tools.md")
SOME_FAILED = 10    # the mqsc command's status when a command failed (runmqsc's)


@pytest.fixture
def shell(tmp_path):
    """(cwd, env) of a plain shell with the environment activated, HOME a folder of the test."""
    home = tmp_path / "home"
    home.mkdir()
    env = activated_environment()
    env["HOME"] = str(home)
    return tmp_path, env


@pytest.fixture
def running(shell):
    """A queue manager started with `start --background` on a free port; its conn name is in
    SPARK_MQ_CONN_NAME as a user would set it. Stopped with `stop` at the end."""
    cwd, env = shell
    data_dir = cwd / "qm"
    out, _ = text(run("start", "--background", "--port", "0", "--data-dir", str(data_dir), cwd=cwd, env=env))
    conn_name = re.search(r"running at (localhost\(\d+\))", out).group(1)
    env = {**env, "SPARK_MQ_CONN_NAME": conn_name}
    yield cwd, env, data_dir
    if run("stop", "--data-dir", str(data_dir), cwd=cwd, env=env, check=False).returncode != 0:
        # none running (the test stopped it): a queue manager still ending after its `stop`
        # is killed, one already gone is fine
        pid = json.loads((data_dir / "ready.json").read_text())["pid"]
        with contextlib.suppress(ProcessLookupError):     # a test that stopped it itself
            os.kill(pid, 9)


# --- the documented session ----------------------------------------------------------------------

def documented_session() -> list[str]:
    """The commands of the first `sh` block of the shell tools' page (docs/embedded/shell-tools.md)."""
    body = SHELL_TOOLS_PAGE.read_text(encoding="utf-8").split("# The shell tools: `spark-mq-qmgr`", 1)[1]
    block = re.search(r"^```sh\n(.*?)^```", body, flags=re.MULTILINE | re.DOTALL).group(1)
    return [line.partition("#")[0].strip() for line in block.splitlines() if line.partition("#")[0].strip()]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_documented_session_runs_as_written(shell):
    """Each command of the page, in bash, on the defaults (HOME's data directory); only the
    port is moved off 1414 (the same substitution for start and the clients' default)."""
    cwd, env = shell
    port = free_port()
    env = {**env, "SPARK_MQ_CONN_NAME": f"localhost({port})"}
    outputs = {}
    commands = documented_session()
    assert commands[0] == "spark-mq-qmgr start --background" and commands[-1] == "spark-mq-qmgr stop"
    try:
        for command in commands:
            shell_line = command.replace("start --background", f"start --background --port {port}")
            done = subprocess.run(["bash", "-c", shell_line], cwd=cwd, env=env, capture_output=True,
                                  text=True, timeout=120)
            assert done.returncode == 0, f"{shell_line}: {done.stdout}\n{done.stderr}"
            assert "Traceback" not in done.stderr
            outputs[command.split()[1] if command.startswith(TOOL) else command] = done
    finally:
        subprocess.run([TOOL, "stop"], cwd=cwd, env=env, capture_output=True, timeout=60)
    assert (cwd / "home" / ".spark-mq" / "QM1" / "qmgr.db").exists()
    depth = outputs["depth"].stdout
    assert re.search(r"^APP\.IN\s+7\s+50000$", depth, flags=re.MULTILINE), depth
    browsed = outputs["browse"].stdout
    assert 'region = "EU"' in browsed and "qty = 3 (int)" in browsed, browsed
    assert "payload (11 bytes): first order" in browsed and "second order" not in browsed, browsed
    got = outputs["get"].stdout.splitlines()
    assert got == ["first order", "second order", "1", "2", "3", "4", "5"], got
    assert "got 7 message(s) from APP.IN" in outputs["get"].stderr
    assert "stopped" in outputs["stop"].stdout


# --- start and stop -------------------------------------------------------------------------------

def test_start_on_a_busy_port_is_one_line_and_status_2(shell):
    cwd, env = shell
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        for mode in ([], ["--background"]):
            done = run("start", *mode, "--port", port, "--data-dir", str(cwd / f"qm{len(mode)}"),
                       cwd=cwd, env=env, check=False)
            assert done.returncode == 2
            line = one_line_error(done)
            assert f"port {port} on 127.0.0.1 is already in use" in line and "--port 0" in line, line


def test_a_data_directory_serves_one_queue_manager(running):
    cwd, env, data_dir = running
    pid = json.loads((data_dir / "ready.json").read_text())["pid"]
    for mode in ([], ["--background"]):
        done = run("start", *mode, "--port", "0", "--data-dir", str(data_dir), cwd=cwd, env=env, check=False)
        assert done.returncode == 2
        line = one_line_error(done)
        assert str(data_dir) in line and f"pid {pid}" in line, line


def test_stop_stops_it_and_says_so_when_none_runs(running):
    cwd, env, data_dir = running
    assert "stopped" in text(run("stop", "--data-dir", str(data_dir), cwd=cwd, env=env))[0]
    done = run("get", "DEV.QUEUE.1", cwd=cwd, env=env, check=False)
    assert done.returncode == 1 and "2538 MQRC_HOST_NOT_AVAILABLE" in one_line_error(done)
    done = run("stop", "--data-dir", str(data_dir), cwd=cwd, env=env, check=False)
    assert done.returncode == 2
    assert one_line_error(done).endswith(f"no queue manager is running on {data_dir}")


def test_persistent_messages_outlive_a_stop_and_start(running):
    cwd, env, data_dir = running
    run("put", "DEV.QUEUE.1", "kept", "--persistent", cwd=cwd, env=env)
    run("put", "DEV.QUEUE.1", "lost", "--non-persistent", cwd=cwd, env=env)
    run("stop", "--data-dir", str(data_dir), cwd=cwd, env=env)
    port = env["SPARK_MQ_CONN_NAME"][len("localhost("):-1]
    run("start", "--background", "--port", port, "--data-dir", str(data_dir), cwd=cwd, env=env)
    assert text(run("get", "DEV.QUEUE.1", "--payload-only", cwd=cwd, env=env))[0] == "kept\n"


def test_the_old_form_without_a_subcommand_still_starts_one(shell):
    cwd, env = shell
    process = subprocess.Popen([TOOL, "--data-dir", str(cwd / "old"), "--port", "0"], cwd=cwd, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        for line in process.stderr:
            if "listening on 127.0.0.1(" in line:
                break
        process.terminate()
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()


# --- put, get, browse --------------------------------------------------------------------------

def test_put_browse_get_keep_mqmd_properties_and_bytes(running):
    cwd, env, _ = running
    payload = bytes(range(256)) * 3
    (cwd / "blob.bin").write_bytes(payload)
    run("put", "DEV.QUEUE.2", "--file", "blob.bin", "--correl-id", "0x" + "ab" * 24, "--priority", "7",
        "--reply-to", "REPLY.Q", "--property", "raw:binary=00ff", "--property", "ok:boolean=true",
        "--property", "ratio:double=0.5", cwd=cwd, env=env)
    browsed, _ = text(run("browse", "DEV.QUEUE.2", cwd=cwd, env=env))
    assert "CorrelId         " + "AB" * 24 in browsed and "Priority         7" in browsed
    assert "ReplyToQ         REPLY.Q" in browsed and "Format" not in browsed   # a file: no MQSTR
    assert "raw = 0x00FF (bytes)" in browsed and "ratio = 0.5 (float)" in browsed
    assert re.search(r"ok = (true|1 \(int\))", browsed)   # MQ gives a BOOLEAN back as bool or int
    assert "payload (768 bytes):" in browsed and "00000000:  0001 0203" in browsed, browsed
    [line] = text(run("get", "DEV.QUEUE.2", "--json", cwd=cwd, env=env))[0].splitlines()
    record = json.loads(line)
    import base64
    assert base64.b64decode(record["payload_base64"]) == payload
    assert record["md"]["CorrelId"] == "AB" * 24 and record["md"]["ReplyToQ"] == "REPLY.Q"
    assert record["properties"] == {"raw": "00FF", "ok": 1, "ratio": 0.5}
    depth, _ = text(run("depth", "DEV.QUEUE.2", cwd=cwd, env=env))
    assert re.search(r"^DEV\.QUEUE\.2\s+0\s+5000$", depth, re.M), depth


def test_get_takes_what_the_selector_and_count_say(running):
    cwd, env, _ = running
    for region in ("EU", "US", "EU", "EU"):
        run("put", "DEV.QUEUE.3", region, "--property", f"region={region}", cwd=cwd, env=env)
    out, err = text(run("get", "DEV.QUEUE.3", "--selector", "region = 'EU'", "-n", "2", "--payload-only",
                        cwd=cwd, env=env))
    assert out.splitlines() == ["EU", "EU"] and "got 2 message(s)" in err
    assert text(run("get", "DEV.QUEUE.3", "--payload-only", cwd=cwd, env=env))[0].splitlines() == ["US", "EU"]


def test_a_put_that_fails_says_what_was_committed_and_puts_nothing_more(running):
    cwd, env, _ = running
    run("mqsc", "DEFINE QLOCAL(SMALL.Q) MAXDEPTH(2)", cwd=cwd, env=env)
    done = run("put", "SMALL.Q", "a", "b", "c", cwd=cwd, env=env, check=False)
    assert done.returncode == 1
    line = one_line_error(done)
    assert "putting message 3 on SMALL.Q" in line and "2053 MQRC_Q_FULL" in line, line
    assert re.search(r"^SMALL\.Q\s+0\s+2$", text(run("depth", "SMALL.Q", cwd=cwd, env=env))[0], re.M)


def test_bad_input_names_the_argument_and_the_valid_values(running):
    cwd, env, _ = running
    cases = {
        ("put", "DEV.QUEUE.1", "x", "--property", "n:int=3"):
            "--property n: unknown type 'int'; valid: string,",
        ("put", "DEV.QUEUE.1", "x", "--property", "n:integer=three"): "'three' is not a valid integer",
        ("put", "DEV.QUEUE.1", "x", "--correl-id", "0xzz"): "--correl-id: '0xzz' is not hex",
        ("put", "DEV.QUEUE.1", "--file", "missing.bin"): "--file: cannot read missing.bin",
        ("get", "DEV.QUEUE.1", "-n", "0"): "--count: expected at least 1, got 0",
        ("get", "NO.SUCH.Q"): "2085 MQRC_UNKNOWN_OBJECT_NAME",
        ("browse", "DEV.QUEUE.1", "--selector", "region = "): "selector",
        ("get", "DEV.QUEUE.1", "--transport", "carrier-pigeon"): "transport",
    }
    for args, expected in cases.items():
        done = run(*args, cwd=cwd, env=env, check=False)
        assert done.returncode in (1, 2), args
        assert expected in one_line_error(done), (args, one_line_error(done))


def test_unsubscribe_removes_a_durable_subscription_and_says_2428_when_none(running):
    """The subscription a topic read owns stays until removed with `unsubscribe`."""
    from spark_mq.mq.connecting import ConnectionOptions
    from spark_mq.mq.subscriptions import ensure_durable_subscription
    cwd, env, _ = running
    options = ConnectionOptions(conn_name=env["SPARK_MQ_CONN_NAME"], transport="embedded")
    managed = ensure_durable_subscription(options, "SPARK.MQ.SHELL", "shell/orders/#", None)
    assert "SUB(SPARK.MQ.SHELL)" in text(run("mqsc", "DISPLAY SUB(SPARK.MQ.SHELL)", cwd=cwd, env=env))[0]
    assert text(run("unsubscribe", "SPARK.MQ.SHELL", cwd=cwd, env=env))[0] == \
        "removed subscription SPARK.MQ.SHELL\n"
    done = run("mqsc", "DISPLAY SUB(SPARK.MQ.SHELL)", cwd=cwd, env=env, check=False)
    assert done.returncode == SOME_FAILED
    assert managed not in text(run("mqsc", "DISPLAY QLOCAL(SYSTEM.MANAGED.*)", cwd=cwd, env=env,
                                   check=False))[0]
    done = run("unsubscribe", "SPARK.MQ.SHELL", cwd=cwd, env=env, check=False)
    assert done.returncode == 1 and "2428 MQRC_NO_SUBSCRIPTION" in one_line_error(done)


# --- mqsc and depth -------------------------------------------------------------------------------

def test_mqsc_from_a_file_and_from_standard_input_echoes_and_counts(running):
    cwd, env, _ = running
    (cwd / "app.mqsc").write_text("* the application's queues\n"
                                  "DEFINE QLOCAL(APP.A) +\n   DESCR('first queue')\n\n"
                                  "DEFINE QLOCAL(APP.B) MAXDEPTH(7)\n")
    out, _ = text(run("mqsc", "-f", "app.mqsc", cwd=cwd, env=env))
    assert "     1 : DEFINE QLOCAL(APP.A) + DESCR('first queue')" in out
    assert "AMQ8006I: IBM MQ queue created: APP.B." in out and "2 MQSC command(s) read; none failed." in out
    done = run("mqsc", cwd=cwd, env=env, stdin="DISPLAY QLOCAL(APP.A) DESCR\nDEFINE QLOCAL(APP.B)\n",
               check=False)
    assert done.returncode == 10            # runmqsc's "completed with errors"
    out = done.stdout.decode()
    assert "DESCR(first queue)" in out and "2 MQSC command(s) read; 1 failed." in out, out
    depth, _ = text(run("depth", cwd=cwd, env=env))
    assert re.search(r"^APP\.B\s+0\s+7$", depth, flags=re.M) and "DEV.QUEUE.1" in depth, depth
    assert "SYSTEM." not in depth, depth
    depth, _ = text(run("depth", "--system", cwd=cwd, env=env))
    assert re.search(r"^SYSTEM\.AUTH\.DATA\.QUEUE\s+[1-9]\d*\s+999999999$", depth, flags=re.M), depth


def test_mqsc_on_a_queue_manager_with_users_needs_the_password(shell):
    cwd, env = shell
    out, _ = text(run("start", "--background", "--port", "0", "--data-dir", str(cwd / "secured"),
                      cwd=cwd, env={**env, "SPARK_MQ_QMGR_USERS": "admin:passw0rd"}))
    env = {**env, "SPARK_MQ_CONN_NAME": re.search(r"running at (localhost\(\d+\))", out).group(1)}
    try:
        done = run("mqsc", "DISPLAY QMGR", cwd=cwd, env=env, check=False)
        assert done.returncode == 1 and "2035 MQRC_NOT_AUTHORIZED" in one_line_error(done)
        done = run("put", "DEV.QUEUE.1", "x", "--user", "admin", cwd=cwd,
                   env={**env, "SPARK_MQ_PASSWORD": "wrong"}, check=False)
        assert done.returncode == 1 and "2035 MQRC_NOT_AUTHORIZED" in one_line_error(done)
        env = {**env, "SPARK_MQ_USER": "admin", "SPARK_MQ_PASSWORD": "passw0rd"}
        assert "QMNAME(QM1)" in text(run("mqsc", "DISPLAY QMGR", cwd=cwd, env=env))[0]
        # an administrator is refused on DEV.APP.SVRCONN and admitted on the admin channel,
        # as in IBM's developer container
        assert "2035" in one_line_error(run("put", "DEV.QUEUE.1", "x", cwd=cwd, env=env, check=False))
        run("put", "DEV.QUEUE.1", "x", cwd=cwd, env={**env, "SPARK_MQ_CHANNEL": "DEV.ADMIN.SVRCONN"})
    finally:
        run("stop", "--data-dir", str(cwd / "secured"), cwd=cwd, env=env, check=False)


def test_start_in_the_background_puts_no_password_on_any_command_line(shell):
    cwd, env = shell
    secret = "bg-S3cret-pw"
    data = cwd / "private"
    out, _ = text(run("start", "--background", "--port", "0", "--data-dir", str(data), cwd=cwd,
                      env={**env, "SPARK_MQ_QMGR_USERS": f"admin:{secret}\napp:{secret}"}))
    try:
        pid = int(re.search(r"pid (\d+)", out).group(1))
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        assert secret.encode() not in cmdline and b"--users-stdin" in cmdline
        assert secret.encode() not in Path(f"/proc/{pid}/environ").read_bytes()
        assert oct(data.stat().st_mode & 0o777) == oct(0o700)
        conn = {**env, "SPARK_MQ_CONN_NAME": re.search(r"running at (localhost\(\d+\))", out).group(1)}
        assert "QMNAME(QM1)" in text(run("mqsc", "DISPLAY QMGR", cwd=cwd, env={
            **conn, "SPARK_MQ_USER": "admin", "SPARK_MQ_PASSWORD": secret}))[0]
    finally:
        run("stop", "--data-dir", str(data), cwd=cwd, env=env, check=False)
    done = run("start", "--background", "--port", "0", "--data-dir", str(cwd / "wide"),
               "--host", "0.0.0.0", cwd=cwd, env=env, check=False)
    assert done.returncode == 2 and "--insecure" in one_line_error(done)


# --- typed at a terminal ------------------------------------------------------------------------

class Terminal:
    """A tool whose standard input is a terminal (a pty), as when a person types into it."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        import pty
        import queue
        import threading
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen([TOOL, *args], cwd=cwd, env=env, stdin=slave,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        os.close(slave)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.process.stdout],
                         daemon=True).start()

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def wait_for(self, fragment: str) -> list[str]:
        seen = []
        while not seen or fragment not in seen[-1]:
            seen.append(self.lines.get(timeout=60))
        return seen

    def close(self) -> int:
        os.close(self.master)
        try:
            return self.process.wait(30)
        finally:
            if self.process.poll() is None:
                self.process.kill()


def test_typed_mqsc_runs_each_command_when_it_is_complete(running):
    cwd, env, _ = running
    terminal = Terminal(["mqsc"], cwd, env)
    try:
        terminal.wait_for("END or Ctrl-D ends")
        terminal.type("DEFINE QLOCAL(TYPED.Q) +\n")
        terminal.type("  MAXDEPTH(3)\n")
        terminal.wait_for("AMQ8006I: IBM MQ queue created: TYPED.Q.")
        terminal.type("END\n")
        assert "1 MQSC command(s) read; none failed." in terminal.wait_for("read;")[-1]
    finally:
        assert terminal.close() == 0
    assert re.search(r"^TYPED\.Q\s+0\s+3$", text(run("depth", "TYPED.Q", cwd=cwd, env=env))[0], re.M)


def test_typed_put_commits_each_line_as_it_is_typed(running):
    cwd, env, _ = running
    terminal = Terminal(["put", "DEV.QUEUE.1"], cwd, env)
    try:
        terminal.wait_for("one a line; Ctrl-D ends")
        terminal.type("typed line\n")
        # committed at once: another connection gets it while put still waits for more
        got = text(run("get", "DEV.QUEUE.1", "--payload-only", "--wait", "30", "-n", "1",
                       cwd=cwd, env=env))[0]
        assert got == "typed line\n"
        assert terminal.process.poll() is None
        terminal.type("\x04")               # Ctrl-D
        assert "put 1 message(s) on DEV.QUEUE.1" in terminal.wait_for("put ")[-1]
    finally:
        assert terminal.close() == 0
