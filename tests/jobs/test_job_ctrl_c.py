"""Ctrl-C in a job, as a terminal sends it: SIGINT to the job's whole process group (the
driver, and under spark-submit the JVM and pyspark's workers in it too). One Ctrl-C stops
the queries between micro-batches and prints the exact command that goes on; that command
finishes the run exactly once; the queue then holds exactly what is not in the sink (the
micro-batch Spark committed last is committed in MQ too). A second Ctrl-C ends everything
at once. Either way, no process of the job is left: the JVM, pyspark's daemons and
workers, the streaming sources' runners, the embedded queue manager; nor of the run that goes
on. Each test marks the runs it starts with an environment variable of its own (`MARK`), which
every process under them inherits, and looks for it in /proc: a process that outlives its run
is found also when its parent is gone or it was not yet there when the test looked."""
from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator

import psutil
import pytest

from support import (
    JOBS,
    PROJECT_ROOT,
    committed_parquet_rows,
    connection_args,
    depth,
    job_env,
    put_messages,
    spark_submit_command,
)

pytestmark = pytest.mark.spark

#: how long the processes of an ended job may take to go (they are gone well before)
GONE_WITHIN = 60
#: the environment variable that marks every process a test's runs start (module docstring)
MARK = "SPARK_MQ_TEST_RUN"


def marked_env(env: dict[str, str]) -> dict[str, str]:
    """`env` with a mark of its own: the processes started with it are the run's."""
    return {**env, MARK: uuid.uuid4().hex}


def marked_processes(env: dict[str, str]) -> list[psutil.Process]:
    """The live processes that carry `env`'s mark (zombies are gone: only a wait is missing)."""
    found = []
    for process in psutil.process_iter():
        try:
            if process.environ().get(MARK) == env[MARK] and _running(process):
                found.append(process)
        except psutil.Error:    # gone meanwhile, or another user's
            continue
    return found


def outliving(env: dict[str, str]) -> list[str]:
    """The marked processes still alive GONE_WITHIN seconds after their runs ended."""
    psutil.wait_procs(marked_processes(env), timeout=GONE_WITHIN)
    return [_described(process) for process in marked_processes(env)]


def kill_marked(env: dict[str, str]) -> None:
    for process in marked_processes(env):
        try:
            process.kill()
        except psutil.Error:
            pass


def _described(process: psutil.Process) -> str:
    try:
        return f"pid {process.pid} (parent {process.ppid()}): {' '.join(process.cmdline())}"
    except psutil.Error:
        return f"pid {process.pid} (gone meanwhile)"


class Job:
    """A job started as a shell starts it in the foreground: a process group of its own,
    which Ctrl-C reaches as a whole. Its stdout and stderr are read as one stream."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.env = env
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True, env=env, cwd=PROJECT_ROOT, start_new_session=True)
        self.lines: list[str] = []
        self.seen: list[psutil.Process] = []     # every process of the job noted so far

    def read_until(self, pattern: str) -> str:
        """Read lines until one matches `pattern`; returns it (the job must print it)."""
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)
            if re.search(pattern, line):
                return line
        raise AssertionError(f"the job ended without a line matching {pattern!r}:\n{self.output}")

    def note_processes(self) -> None:
        """Note the job's processes now (its JVM and Python workers run by now)."""
        self.seen = [psutil.Process(self.process.pid), *self.tree()]

    def tree(self) -> Iterator[psutil.Process]:
        try:
            yield from psutil.Process(self.process.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return

    def ctrl_c(self) -> None:
        os.killpg(self.process.pid, signal.SIGINT)

    def finish(self) -> int:
        rest, _ = self.process.communicate(timeout=600)
        self.lines.append(rest)
        return self.process.returncode

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def left_behind(self) -> list[str]:
        """The job's processes still alive after GONE_WITHIN seconds."""
        _, alive = psutil.wait_procs(self.seen, timeout=GONE_WITHIN)
        return [" ".join(p.cmdline()) for p in alive if _running(p)]

    def kill(self) -> None:
        for process in [*self.tree(), *self.seen]:
            try:
                process.kill()
            except psutil.Error:
                pass
        kill_marked(self.env)


def _running(process: psutil.Process) -> bool:
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def python_quickstart(*args: str) -> list[str]:
    return [sys.executable, os.path.join(JOBS, "quickstart.py"), *args]


def submitted_quickstart(*args: str) -> list[str]:
    command, _ = spark_submit_command("quickstart.py", *args)
    return command


#: four micro-batches: the queries still run after their first, and what is left for the
#: command that goes on is more than one batch. (Every order more costs CPU in each of the
#: job's processes twice over, the queue stage and the files stage, and asserts nothing more.)
ORDERS = ("--messages", "2000", "--max-messages-per-trigger", "500")


def resume(job: Job) -> subprocess.CompletedProcess:
    """Run the command the stopped job printed, as printed."""
    [command] = re.findall(r"^to go on where it stopped: (.+)$", job.output, flags=re.MULTILINE)
    return subprocess.run(shlex.split(command), capture_output=True, text=True, env=job.env,
                          cwd=PROJECT_ROOT, timeout=600)


def resume_leaving_nothing(job: Job) -> subprocess.CompletedProcess:
    """`resume(job)`, asserting that no process of either run outlives it."""
    try:
        done = resume(job)
        left = outliving(job.env)
    finally:
        kill_marked(job.env)
    assert left == [], "\n".join(left) + "\n" + done.stdout + done.stderr
    return done


def assert_exactly_once(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 0, done.stdout + done.stderr
    assert "going on with the run that put 2,000 orders" in done.stdout, done.stdout
    assert "duplicates         0" in done.stdout and "missing            0" in done.stdout, done.stdout
    assert "rows out           2,000" in done.stdout, done.stdout
    # its progress counts toward the rows still to come, and ends on reaching them (toward the
    # whole run's, the rows out before Ctrl-C never come and it waits out the pipeline's settle)
    totals = re.findall(r"^\[queue -> files\].*\(total ([\d,]+)/([\d,]+)\)", done.stdout, re.MULTILINE)
    assert totals and totals[-1][0] == totals[-1][1], done.stdout


@pytest.mark.parametrize("launch", [python_quickstart, submitted_quickstart],
                         ids=["python", "spark-submit"])
def test_one_ctrl_c_stops_cleanly_and_the_printed_command_goes_on_exactly_once(launch):
    job = Job(launch(*ORDERS), marked_env(job_env()))
    try:
        job.read_until(r"^\[in -> queue\]")        # a micro-batch is done: the queries run
        job.note_processes()
        job.ctrl_c()
        assert job.finish() == 130, job.output
        left = job.left_behind()
        after_ctrl_c = outliving(job.env)
    finally:
        job.kill()
    output = job.output
    assert "Traceback" not in output and "Py4J" not in output, output
    # the queries stop between micro-batches (the readers' stopFile): no task is killed
    assert " ERROR " not in output and "TaskKilledException" not in output, output
    assert re.search(r"stopped by Ctrl-C: in -> queue: [\d,]+ rows in \d+ micro-batch", output), output
    assert left == [] and after_ctrl_c == [], left + after_ctrl_c
    # the queue manager's data was kept for the command that goes on, and it finishes the run
    assert_exactly_once(resume_leaving_nothing(job))


@pytest.mark.parametrize("launch", [python_quickstart, submitted_quickstart],
                         ids=["python", "spark-submit"])
def test_a_second_ctrl_c_ends_everything_at_once_and_the_run_still_goes_on_exactly_once(launch):
    job = Job(launch(*ORDERS), marked_env(job_env()))
    try:
        job.read_until(r"^\[in -> queue\]")
        job.note_processes()
        job.ctrl_c()
        job.read_until(r"^interrupted: stopping the queries")
        job.ctrl_c()
        assert job.finish() == 130, job.output
        left = job.left_behind()
        after_ctrl_c = outliving(job.env)
    finally:
        job.kill()
    output = job.output
    assert "quit at once" in output and "Traceback" not in output, output
    assert left == [] and after_ctrl_c == [], left + after_ctrl_c
    assert_exactly_once(resume_leaving_nothing(job))


def test_ctrl_c_between_micro_batches_leaves_the_queue_holding_only_what_is_not_in_the_files(
        qm, conn, make_queue, tmp_path):
    """The issue's case: a processing-time job stopped while it waits for its next trigger.
    Spark has the last micro-batch in its commit log (and the files); MQ must have it
    committed too, not backed out when the reader's process ends."""
    total, per_batch = 40, 10
    queue = make_queue()
    # text (MQSTR): the archive job moves what is not text to the backout queue
    put_messages(conn, queue, [b"m%03d" % n for n in range(total)],
                 md_fields={"Format": b"MQSTR   "})
    out = tmp_path / "out"
    command, env = spark_submit_command(
        "queue_to_files.py", *connection_args(qm), "--queue", queue, "--format", "parquet",
        "--path", str(out), "--trigger", "processing-time", "--interval", "1 hour",
        "--max-messages-per-trigger", str(per_batch))
    job = Job(command, marked_env(env))
    try:
        job.read_until(r"^\[queue -> files\]")   # the first micro-batch is in the commit log
        job.note_processes()
        job.ctrl_c()
        assert job.finish() == 130, job.output
        left = job.left_behind()                 # the readers' connections are gone with them
        left += outliving(job.env)
    finally:
        job.kill()
    assert left == [], left
    in_files = len(committed_parquet_rows(out))
    assert in_files == per_batch, job.output
    assert depth(conn, queue) == total - in_files, job.output
