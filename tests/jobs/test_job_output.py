"""What a person sees running a job (issue 12): the main job's whole output fits on a screen
with no Spark warnings; a misspelt option is one line naming the right one; Ctrl-C stops the
queries and ends with the summary, status 130 and no traceback."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

import pytest

from support import JOBS, PROJECT_ROOT, explain, job_env, python_job

pytestmark = pytest.mark.spark


def test_the_main_job_prints_a_screenful_without_spark_warnings(tmp_path):
    process = python_job("quickstart.py", "--messages", "3000", "--data-dir", str(tmp_path / "qm"))
    assert process.returncode == 0, explain(process)
    out, err = process.stdout.splitlines(), process.stderr.splitlines()
    assert "missing            0" in process.stdout and "duplicates         0" in process.stdout
    assert len(out) + len(err) <= 30, explain(process)
    spark_lines = [line for line in err if " WARN " in line or " ERROR " in line]
    assert spark_lines == [], explain(process)
    # the batch size reads as set, or the output says why it is smaller
    assert "maxMessagesPerTrigger=10,000 (batches of at most 9,992" in process.stdout


def test_a_misspelt_option_is_one_line_naming_the_right_one(tmp_path):
    process = python_job("quickstart.py", "--messages", "10", "--data-dir", str(tmp_path / "qm"),
                         "--read-option", "maxMessagePerTrigger=5")
    assert process.returncode == 1, explain(process)
    assert process.stderr.strip().splitlines()[-1] == (
        "error: unknown option 'maxmessagepertrigger' for the mq data source; did you mean "
        "'maxMessagesPerTrigger'?"), explain(process)
    assert "Traceback" not in process.stderr + process.stdout


def test_ctrl_c_stops_the_queries_and_ends_with_the_summary_and_status_130(tmp_path):
    job = subprocess.Popen([sys.executable, os.path.join(JOBS, "quickstart.py"), "--messages",
                            "30000", "--data-dir", str(tmp_path / "qm")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=job_env(), cwd=PROJECT_ROOT)
    assert job.stdout is not None
    seen = []
    for line in job.stdout:             # the first micro-batch is done: the queries run
        seen.append(line)
        if line.startswith("[in -> queue]"):
            job.send_signal(signal.SIGINT)   # what the terminal sends on Ctrl-C
            break
    rest, err = job.communicate(timeout=180)
    output = "".join(seen) + rest
    assert job.returncode == 130, output + err
    assert "Traceback" not in err and "Py4J" not in err, err
    # the queries stop between micro-batches (the readers' stopFile): no task is killed
    assert " ERROR " not in err and "TaskKilledException" not in err, err
    # what was done, counted once the batch in flight at Ctrl-C had finished
    assert re.search(r"stopped by Ctrl-C: in -> queue: [\d,]+ rows in [12] micro-batches", err), err


def test_in_a_terminal_the_progress_is_a_live_display(tmp_path):
    """stdout a pseudo-terminal, as in a shell: a bar per query (rich), then the summary."""
    import pty
    import select
    main, secondary = pty.openpty()
    job = subprocess.Popen([sys.executable, os.path.join(JOBS, "quickstart.py"), "--messages",
                            "2000", "--data-dir", str(tmp_path / "qm")],
                           stdout=secondary, stderr=subprocess.PIPE, env=job_env(), cwd=tmp_path)
    os.close(secondary)
    screen = b""
    while True:
        ready, _, _ = select.select([main], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(main, 65536)
            except OSError:         # the job closed the terminal: it has ended
                break
            if not chunk:
                break
            screen += chunk
        elif job.poll() is not None:
            break
    assert job.wait(timeout=60) == 0, job.stderr.read() if job.stderr else ""
    text = screen.decode(errors="replace")
    assert "━" in text and "in -> queue" in text and "2,000/2,000 rows" in text, text[-3000:]
    assert "missing            0" in text
