"""Running `spark-mq-qmgr` as a user does, for the shell tests: the installed command in a
plain environment, its outcome read from exit status, standard output and standard error."""
from __future__ import annotations

import subprocess
from pathlib import Path

TOOL = "spark-mq-qmgr"


def run(*args: str, cwd: Path, env: dict[str, str], stdin: str | bytes | None = None,
        check: bool = True) -> subprocess.CompletedProcess:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    done = subprocess.run([TOOL, *args], cwd=cwd, env=env, input=data, capture_output=True, timeout=120)
    if check:
        assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout!r}\n{done.stderr!r}"
    return done


def text(done: subprocess.CompletedProcess) -> tuple[str, str]:
    return done.stdout.decode(), done.stderr.decode()


def one_line_error(done: subprocess.CompletedProcess) -> str:
    """The error a user sees: one line, no traceback."""
    err = done.stderr.decode()
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]
