"""`spark-mq-qmgr trace start|stop|show` as a user runs them (strmqtrc, endmqtrc, dspmqtrc):
a queue manager started with `start --background`, a trace of one queue's calls started and
stopped with the tool, the file it names formatted by `trace show`."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import spark_mq
from shell_tool import one_line_error, run, text
from support import activated_environment


@pytest.fixture
def shell(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = activated_environment()
    env["HOME"] = str(home)
    # the tree under test, not the one the environment's editable install points at
    env["PYTHONPATH"] = str(Path(spark_mq.__file__).parents[1])
    out, _ = text(run("start", "--background", "--port", "0", "--name", "QMT", "--data-dir",
                      str(tmp_path / "QMT"), cwd=tmp_path, env=env))
    conn_name = re.search(r"running at (localhost\(\d+\))", out).group(1)
    yield tmp_path, env, ["--conn-name", conn_name, "--queue-manager", "QMT"]
    run("stop", "--data-dir", str(tmp_path / "QMT"), cwd=tmp_path, env=env, check=False)


def test_trace_start_stop_and_show_one_queue(shell):
    cwd, env, at = shell
    run("mqsc", "DEFINE QLOCAL(APP.IN)", "DEFINE QLOCAL(APP.OUT)", *at, cwd=cwd, env=env)
    started, _ = text(run("trace", "start", "-t", "api", "--queue", "APP.IN", "-l", "1", *at,
                          cwd=cwd, env=env))
    trace_file = re.search(r"FILE\((\S+\.TRC)\)", started).group(1)
    assert trace_file.startswith(str(cwd / "QMT" / "trace" / "AMQ")), started
    run("put", "APP.IN", "first order", *at, cwd=cwd, env=env)
    run("put", "APP.OUT", "not traced", *at, cwd=cwd, env=env)
    stopped, _ = text(run("trace", "stop", *at, cwd=cwd, env=env))
    assert stopped.strip() == "Trace stopped.", stopped
    shown, _ = text(run("trace", "show", trace_file, cwd=cwd, env=env))
    lines = shown.splitlines()
    assert [line.split()[7] for line in lines] == ["OPEN", "PUT", "CLOSE"], shown
    assert all(line.split()[8] == "APP.IN" for line in lines), shown
    assert "first order" not in shown and "APP.OUT" not in shown
    assert re.fullmatch(r"\d\d:\d\d:\d\d\.\d{6} \d+\.\S+ API conn \d+ user \S+ OPEN APP.IN "
                        r"options \d+ CC 0 MQRC_NONE", lines[0]), lines[0]


def test_stop_without_a_trace_and_bad_arguments_fail_in_one_line(shell):
    cwd, env, at = shell
    conn_name = at[1]
    done = run("trace", "stop", "-m", "QMT", "--conn-name", conn_name, cwd=cwd, env=env,
               check=False)   # -m: strmqtrc's spelling of --queue-manager
    assert done.returncode == 1 and "no trace is running" in text(done)[1], text(done)
    done = run("trace", "stop", "-m", "QMX", "--conn-name", conn_name, cwd=cwd, env=env,
               check=False)
    assert done.returncode == 1 and "2058" in one_line_error(done)
    done = run("trace", "start", "-l", "0", *at, cwd=cwd, env=env, check=False)
    assert done.returncode == 2 and "-l: 0 MB is not valid" in one_line_error(done)
    done = run("trace", "show", str(cwd / "missing.TRC"), cwd=cwd, env=env, check=False)
    assert done.returncode == 2 and "cannot read trace file" in one_line_error(done)
