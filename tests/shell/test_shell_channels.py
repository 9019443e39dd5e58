"""`spark-mq-qmgr channels` and `spark-mq-qmgr move-xmitq` as a user runs them: two queue
managers started with `start --background`, a sender channel between them, every outcome
read from the exit status and the output."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from shell_tool import one_line_error, run, text
from support import activated_environment

CHANNEL = "QMA.TO.QMB"


@dataclass
class Pair:
    cwd: Path
    env: dict[str, str]
    a: list[str]         # the connection arguments of QMA
    b: list[str]         # and of QMB

    def tool(self, *args: str, at: list[str], check: bool = True):
        return run(*args, *at, cwd=self.cwd, env=self.env, check=check)

    def out(self, *args: str, at: list[str]) -> str:
        return text(self.tool(*args, at=at))[0]


@pytest.fixture
def shell(tmp_path):
    """(cwd, env) of a plain shell with the environment activated, HOME a folder of the test."""
    home = tmp_path / "home"
    home.mkdir()
    env = activated_environment()
    env["HOME"] = str(home)
    return tmp_path, env


@pytest.fixture
def pair(shell):
    """QMA with transmission queue STUCK (MAXDEPTH 10) served by sender CHANNEL to QMB, and
    REMOTE.Q routed through STUCK to TARGET.Q on QMB; the channel not started."""
    cwd, env = shell
    started = []
    args = {}
    try:
        for name in ("QMA", "QMB"):
            out, _ = text(run("start", "--background", "--port", "0", "--name", name,
                              "--data-dir", str(cwd / name), cwd=cwd, env=env))
            started.append(name)
            conn_name = re.search(r"running at (localhost\(\d+\))", out).group(1)
            args[name] = ["--conn-name", conn_name, "--queue-manager", name]
        pair = Pair(cwd, env, args["QMA"], args["QMB"])
        pair.tool("mqsc", f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(RCVR)", "DEFINE QLOCAL(TARGET.Q)",
                  at=pair.b)
        pair.tool("mqsc", "DEFINE QLOCAL(STUCK) USAGE(XMITQ) MAXDEPTH(10)",
                  "DEFINE QLOCAL(SPARE) USAGE(XMITQ)",
                  "DEFINE QREMOTE(REMOTE.Q) RNAME(TARGET.Q) RQMNAME(QMB) XMITQ(STUCK)",
                  f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(SDR) CONNAME('{args['QMB'][1]}') "
                  "XMITQ(STUCK)", at=pair.a)
        yield pair
    finally:
        for name in started:
            run("stop", "--data-dir", str(cwd / name), cwd=cwd, env=env, check=False)


def columns(output: str, first: str) -> list[str]:
    """The cells of the table row that starts with `first`."""
    for line in output.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if cells[0] == first:
            return cells
    raise AssertionError(f"no row {first} in:\n{output}")


def receive(pair: Pair, count: int) -> list[str]:
    """`count` messages got from TARGET.Q on QMB, waiting for them as they come."""
    out = pair.out("get", "TARGET.Q", "--payload-only", "--wait", "30", "-n", str(count),
                   at=pair.b)
    return out.splitlines()


def test_channels_shows_status_partner_and_a_transmission_queue_above_qdepthhi(pair):
    pair.tool("put", "REMOTE.Q", *[f"m{n}" for n in range(9)], at=pair.a)
    shown = pair.out("channels", at=pair.a)
    assert columns(shown, CHANNEL) == [CHANNEL, "SDR", "INACTIVE", pair.b[1], "0", "STUCK", "9!"]
    assert columns(shown, "STUCK") == ["STUCK", "9!", "10", "80%", CHANNEL]
    assert columns(shown, "SPARE") == ["SPARE", "0", "5000", "80%", "-"]
    assert "! at or above QDEPTHHI" in shown, shown
    pair.tool("mqsc", f"START CHANNEL({CHANNEL})", at=pair.a)
    assert receive(pair, 9) == [f"m{n}" for n in range(9)]
    shown = pair.out("channels", at=pair.a)
    assert columns(shown, CHANNEL) == [CHANNEL, "SDR", "RUNNING", f"QMB at {pair.b[1]}", "9",
                                       "STUCK", "0"]
    assert "!" not in shown, shown
    row = columns(pair.out("channels", at=pair.b), CHANNEL)
    assert row[:3] == [CHANNEL, "RCVR", "RUNNING"] and row[3].startswith("QMA at 127.0.0.1(")
    assert row[4:] == ["9", "-", "-"], row


def test_move_xmitq_switches_the_channel_and_moves_every_message_once(pair):
    pair.tool("put", "REMOTE.Q", *[f"m{n}" for n in range(6)], at=pair.a)
    out = pair.out("move-xmitq", "STUCK", "SPARE", at=pair.a)
    assert f"sender channel {CHANNEL} now serves SPARE (was STUCK)" in out, out
    assert "MOVE QLOCAL: 6 messages moved from STUCK to SPARE." in out, out
    assert f"START CHANNEL({CHANNEL})" in out, out
    shown = pair.out("channels", at=pair.a)
    assert columns(shown, CHANNEL)[5:] == ["SPARE", "6"]
    assert columns(shown, "STUCK")[1] == "0" and columns(shown, "SPARE")[1:2] == ["6"]
    pair.tool("mqsc", f"START CHANNEL({CHANNEL})", at=pair.a)
    assert receive(pair, 6) == [f"m{n}" for n in range(6)]
    nothing = pair.tool("get", "TARGET.Q", at=pair.b, check=False)
    assert nothing.returncode == 0 and "got 0 message(s)" in nothing.stderr.decode()


def test_move_xmitq_refuses_a_running_channel_and_bad_queues(pair):
    pair.tool("put", "REMOTE.Q", "x", at=pair.a)
    pair.tool("mqsc", f"START CHANNEL({CHANNEL})", at=pair.a)
    receive(pair, 1)
    cases = {
        ("STUCK", "SPARE"): f"sender channel {CHANNEL} serves STUCK and is RUNNING: stop it first",
        ("STUCK", "STUCK"): "NEW: 'STUCK' is OLD itself (valid: another transmission queue)",
        ("STUCK", "SP*"): "NEW: 'SP*' is not a queue name (valid: 1 to 48",
        ("NO.SUCH.Q", "SPARE"): "OLD: queue NO.SUCH.Q is not defined (valid: a local queue with "
                                "USAGE(XMITQ))",
        ("STUCK", "REMOTE.Q"): "NEW: REMOTE.Q is a QREMOTE (valid: a local queue with USAGE(XMITQ))",
        ("STUCK", "TARGET.Q"): "NEW: queue TARGET.Q is not defined",       # it is QMB's
        ("DEV.QUEUE.1", "SPARE"): "OLD: DEV.QUEUE.1 is a QLOCAL with USAGE(NORMAL) (valid:",
    }
    for (old, new), expected in cases.items():
        done = pair.tool("move-xmitq", old, new, at=pair.a, check=False)
        assert done.returncode == 2, (old, new, done)
        assert expected in one_line_error(done), (old, new, one_line_error(done))
    assert columns(pair.out("channels", at=pair.a), CHANNEL)[5] == "STUCK"   # nothing changed
