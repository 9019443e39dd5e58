"""The README's "Use it from your own code" works as written, run the way a user runs it: its
script, in a folder outside the repository, by each command of its run block (`python
script.py`, `spark-submit ... script.py` with the package's log4j2 option, which prints the
script's line and warnings only) in a plain shell with the environment activated (the
environment's bin first on PATH, as `. .venv/bin/activate` does; no PYTHONPATH, no
PYSPARK_PYTHON) prints what the README says it prints. And the queue manager it tells to
start with `spark-mq-qmgr` serves `localhost(port)` and stops on Ctrl-C (status 130) and on
SIGTERM (0)."""
from __future__ import annotations

import queue
import re
import shlex
import signal
import subprocess
import threading
from pathlib import Path

import pytest

from support import PROJECT_ROOT, activated_environment

README = Path(PROJECT_ROOT, "README.md")
SECTION = "## Use it from your own code"


def section_text() -> str:
    text = README.read_text(encoding="utf-8")
    assert SECTION + "\n" in text, f"README.md has no section {SECTION!r}"
    body = text.split(SECTION + "\n", 1)[1]
    return re.split(r"^## ", body, maxsplit=1, flags=re.MULTILINE)[0]


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(language, code) of each fenced code block."""
    return re.findall(r"^```(\w*)\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def the_script() -> tuple[str, str]:
    """(file name, code) of the section's one Python block, named by its first line `# name.py`."""
    [code] = [code for language, code in fenced_blocks(section_text()) if language == "python"]
    name = re.match(r"# (\S+\.py)\n", code)
    assert name, "the script's first line should name its file: # script.py"
    return name.group(1), code


def run_commands() -> tuple[list[str], str]:
    """The commands of the bash block that runs the script, and the line the README says
    they print (its one `# prints: ...` comment)."""
    script, _ = the_script()
    blocks = [code for language, code in fenced_blocks(section_text())
              if language == "bash" and script in code]
    assert len(blocks) == 1, f"expected one bash block running {script}"
    commands, prints = [], []
    for line in blocks[0].splitlines():
        command, _, comment = line.partition("#")
        if command.strip():
            commands.append(command.strip())
        if comment.strip().startswith("prints:"):
            prints.append(comment.strip().removeprefix("prints:").strip())
    assert len(prints) == 1, "the run block should say once what the script prints: # prints: ..."
    return commands, prints[0]


def test_the_section_activates_the_environment_first_and_runs_the_script_both_ways():
    first_language, first_code = fenced_blocks(section_text())[0]
    assert first_language == "bash" and ". .venv/bin/activate" in first_code
    name, _ = the_script()
    assert run_commands()[0] == [
        f"python {name}", f'spark-submit --driver-java-options "$(python -m spark_mq.jobs.log4j)" {name}']


@pytest.mark.spark
@pytest.mark.timeout(600)
@pytest.mark.parametrize("command", run_commands()[0])
def test_the_script_runs_as_written(command, tmp_path):
    name, code = the_script()
    (tmp_path / name).write_text(code, encoding="utf-8")
    expected = run_commands()[1]
    assert "HELLO" in expected and "WORLD" in expected, expected
    env = activated_environment()
    env["TMPDIR"] = str(tmp_path / "tmp")        # the script's temporary folders, removed with tmp_path
    (tmp_path / "tmp").mkdir()
    done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=420)
    assert done.returncode == 0, (f"{command}: exit {done.returncode}\n"
                                  f"{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    assert expected in done.stdout.splitlines(), f"{command}: {done.stdout[-2000:]}"
    if command.startswith("spark-submit"):
        # the script's line and warnings only: the JVM's note on its incubator modules, and
        # where the host name resolves to a loopback address, Spark's two warnings saying so
        spark = [line for line in (done.stdout + done.stderr).splitlines() if line != expected]
        assert all(" WARN " in line or line.startswith("WARNING: ") for line in spark), \
            f"{command}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"


def qmgr_command(data_dir: Path) -> list[str]:
    """The README's `spark-mq-qmgr start` line, on a data dir of the test's and a free port."""
    [line] = [line.strip() for line in section_text().splitlines()
              if line.strip().startswith("spark-mq-qmgr start ")]
    assert "--data-dir /tmp/qm1" in line and "--port 1414" in line, line
    return shlex.split(line.replace("/tmp/qm1", str(data_dir)).replace("--port 1414", "--port 0"))


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_spark_mq_qmgr_serves_localhost_and_stops_as_described(stop, tmp_path, ibmmq):
    process = subprocess.Popen(qmgr_command(tmp_path / "qm1"), cwd=tmp_path, env=activated_environment(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stderr], daemon=True).start()
    try:
        port = None
        while port is None:
            line = lines.get(timeout=30)
            found = re.search(r"queue manager QM1 listening on 127\.0\.0\.1\((\d+)\)", line)
            port = found and int(found.group(1))
        conn = ibmmq.connect("QM1", "DEV.APP.SVRCONN", f"localhost({port})")
        conn.disconnect()
        process.send_signal(stop)
        assert process.wait(15) == (130 if stop == signal.SIGINT else 0)   # as the README says
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
