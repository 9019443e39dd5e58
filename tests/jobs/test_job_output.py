"""What a person sees running a job (issues 12 and 25): the main job's whole output fits on
a screen with no Spark warnings; through spark-submit a packaged job prints its own lines
and warnings only; a misspelt option is one line naming the right one (Ctrl-C:
test_job_ctrl_c.py)."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from support import JOBS, connection_args, explain, job_env, put_texts, python_job, spark_submit

pytestmark = pytest.mark.spark


def test_the_main_job_prints_a_screenful_without_spark_warnings(tmp_path):
    # a few hundred orders fill the one micro-batch (maxMessagesPerTrigger 10,000) as thousands do:
    # the same lines, for less CPU
    process = python_job("quickstart.py", "--messages", "500", "--data-dir", str(tmp_path / "qm"))
    assert process.returncode == 0, explain(process)
    out, err = process.stdout.splitlines(), process.stderr.splitlines()
    assert "missing            0" in process.stdout and "duplicates         0" in process.stdout
    assert len(out) + len(err) <= 30, explain(process)
    spark_lines = [line for line in err if " WARN " in line or " ERROR " in line]
    assert spark_lines == [], explain(process)
    # the batch size reads as set, or the output says why it is smaller
    assert "maxMessagesPerTrigger=10,000 (batches of at most 9,992" in process.stdout


#: what spark-submit's JVM prints before the job runs, which no job can change: the JVM's
#: note on its incubator modules, Spark naming its default logging profile, and on a host
#: whose name resolves to a loopback address two warnings saying so
SUBMIT_PREAMBLE = re.compile(r"^WARNING: Using incubator modules|^Using Spark's default log4j profile|"
                             r" WARN Utils: (Your hostname|Set SPARK_LOCAL_IP)")


def run_queue_to_files(qm, conn, make_queue, tmp_path, submit_args: tuple[str, ...] = ()):
    queue = make_queue()
    put_texts(conn, queue, [f"message {n}" for n in range(20)])
    return spark_submit("queue_to_files.py", *connection_args(qm), "--queue", queue, "--format", "json",
                        "--path", str(tmp_path / "out"), submit_args=submit_args)


def own_lines(lines: list[str]) -> list[str]:
    """The job's own lines (queue_to_files.py): what it streams, each micro-batch, what it did."""
    return [line for line in lines if line.startswith(("streaming ", "[queue -> files]", "done: "))]


def test_a_packaged_job_through_spark_submit_prints_its_own_lines_and_spark_s_preamble_only(
        qm, conn, make_queue, tmp_path):
    process = run_queue_to_files(qm, conn, make_queue, tmp_path)
    assert process.returncode == 0, explain(process)
    lines = (process.stdout + process.stderr).splitlines()
    own = own_lines(lines)
    assert own[0].startswith("streaming ") and own[-1].startswith("done: 20 messages"), explain(process)
    others = [line for line in lines if line not in own]
    assert all(SUBMIT_PREAMBLE.search(line) for line in others), explain(process)
    assert len(lines) <= len(own) + 4, explain(process)


def test_with_the_package_s_log4j2_option_spark_submit_adds_no_line_of_spark_s_own(
        qm, conn, make_queue, tmp_path):
    """`--driver-java-options "$(python -m spark_mq.jobs.log4j)"`, as the README says."""
    option = subprocess.run([sys.executable, "-m", "spark_mq.jobs.log4j"], capture_output=True,
                            text=True, check=True).stdout.strip()
    process = run_queue_to_files(qm, conn, make_queue, tmp_path, ("--driver-java-options", option))
    assert process.returncode == 0, explain(process)
    lines = (process.stdout + process.stderr).splitlines()
    others = [line for line in lines if line not in own_lines(lines)]
    assert not any("log4j profile" in line or " INFO " in line for line in others), explain(process)
    # left: the JVM's note and the loopback warnings, where the host has them
    assert all(SUBMIT_PREAMBLE.search(line) for line in others), explain(process)


def test_a_misspelt_option_is_one_line_naming_the_right_one(tmp_path):
    process = python_job("quickstart.py", "--messages", "10", "--data-dir", str(tmp_path / "qm"),
                         "--read-option", "maxMessagePerTrigger=5")
    assert process.returncode == 1, explain(process)
    assert process.stderr.strip().splitlines()[-1] == (
        "error: unknown option 'maxmessagepertrigger' for the mq data source; did you mean "
        "'maxMessagesPerTrigger'?"), explain(process)
    assert "Traceback" not in process.stderr + process.stdout


def test_in_a_terminal_the_progress_is_a_live_display(tmp_path):
    """stdout a pseudo-terminal, as in a shell: a bar per query (rich), then the summary."""
    import pty
    import select
    main, secondary = pty.openpty()
    job = subprocess.Popen([sys.executable, os.path.join(JOBS, "quickstart.py"), "--messages",
                            "500", "--data-dir", str(tmp_path / "qm")],
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
    assert "━" in text and "in -> queue" in text and "500/500 rows" in text, text[-3000:]
    assert "missing            0" in text
