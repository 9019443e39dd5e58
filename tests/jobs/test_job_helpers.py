"""spark_mq.jobs without Spark: the jobs' CLIs stay thin, the shared arguments parse as the
jobs document them, and errors come out as one clear line."""
from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys

import pytest

from spark_mq.jobs import cli
from spark_mq.jobs.job_errors import JobError, explain
from spark_mq.jobs.queue_manager import require_connection
from support import JOBS, python_job
from support import explain as explain_process

JOB_FILES = sorted(name for name in os.listdir(JOBS) if name.endswith(".py"))


@pytest.mark.parametrize("job", JOB_FILES)
def test_a_job_file_imports_only_spark_mq_jobs_and_the_standard_library(job):
    tree = ast.parse(open(os.path.join(JOBS, job)).read())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
    outside = {name for name in imported
               if name != "spark_mq.jobs" and not name.startswith("spark_mq.jobs.")
               and name.split(".")[0] not in sys.stdlib_module_names}
    assert not outside, f"{job} imports {sorted(outside)}"
    assert "sys.path" not in open(os.path.join(JOBS, job)).read()


def test_importing_the_job_helpers_imports_neither_spark_nor_ibmmq():
    code = ("import sys; import spark_mq.jobs.cli, spark_mq.jobs.queue_manager, spark_mq.jobs.streaming; "
            "print(sorted(m for m in ('pyspark', 'ibmmq') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def parse(argv, monkeypatch=None, **environment):
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    parser = cli.new_parser("job.py", "a job")
    cli.add_connection_arguments(parser)
    cli.add_extra_option_arguments(parser, "read")
    cli.add_trigger_arguments(parser)
    return parser.parse_args(argv)


def test_connection_arguments_come_from_the_command_line_or_the_environment(monkeypatch):
    args = parse(["--conn-name", "mq1(1414)", "--channel", "APP.SVRCONN"], monkeypatch,
                 SPARK_MQ_PASSWORD="secret", SPARK_MQ_RECONNECT="true")
    assert cli.connection_options(args) == {"connName": "mq1(1414)", "channel": "APP.SVRCONN",
                                            "password": "secret", "reconnect": "true"}
    assert require_connection(args)["connName"] == "mq1(1414)"


PASSWORD_WAYS = ("SPARK_MQ_PASSWORD", "--password-file PATH", "type it when asked")


def test_a_password_on_a_jobs_command_line_is_refused_with_the_three_ways(monkeypatch, capsys):
    for argv in (["--password", "secret"], ["--password=secret"], ["--read-option", "password=secret"],
                 ["--read-option", " Password =secret"]):
        with pytest.raises(SystemExit) as exited:
            parse(["--conn-name", "mq1(1414)", *argv], monkeypatch)
        said = capsys.readouterr().err
        assert exited.value.code == 2, said
        assert "a password on the command line is readable by every local user" in said
        assert all(way in said for way in PASSWORD_WAYS), said
    with pytest.raises(JobError, match="--write-option password=...: a password on the command line"):
        cli.key_values(["password=secret"], "--write-option")


def test_a_jobs_password_comes_from_an_owner_only_file_or_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("SPARK_MQ_PASSWORD", raising=False)
    monkeypatch.delenv("SPARK_MQ_PASSWORD_FILE", raising=False)
    private = tmp_path / "pw"
    private.write_text("from-file\nignored second line\n")
    private.chmod(0o600)
    assert cli.connection_options(parse(["--user", "app", "--password-file", str(private)]))["password"] \
        == "from-file"
    monkeypatch.setenv("SPARK_MQ_PASSWORD_FILE", str(private))
    assert cli.connection_options(parse(["--user", "app"]))["password"] == "from-file"
    monkeypatch.delenv("SPARK_MQ_PASSWORD_FILE")
    monkeypatch.setenv("SPARK_MQ_PASSWORD", "from-env")
    assert cli.connection_options(parse(["--user", "app"]))["password"] == "from-env"
    monkeypatch.delenv("SPARK_MQ_PASSWORD")
    # no terminal (pytest's standard input): no prompt, no password
    assert "password" not in cli.connection_options(parse(["--user", "app"]))
    private.chmod(0o640)
    with pytest.raises(JobError, match=rf"--password-file {private}: permissions 0640 are too open: "
                                       rf"group or others may read or change it; make it the owner's "
                                       rf"only: chmod 600 {private}"):
        cli.connection_options(parse(["--user", "app", "--password-file", str(private)]))
    private.chmod(0o600)
    private.write_text("")
    with pytest.raises(JobError, match="the file is empty"):
        cli.connection_options(parse(["--password-file", str(private)]))


def test_a_job_run_as_a_user_runs_it_refuses_a_password_before_spark_starts(tmp_path):
    refused = python_job("queue_to_files.py", "--path", str(tmp_path / "out"), "--password", "secret",
                         timeout=120)
    assert refused.returncode == 2, explain_process(refused)
    assert "--password: a password on the command line is readable by every local user" in refused.stderr
    shared = tmp_path / "pw"
    shared.write_text("secret\n")
    shared.chmod(0o644)
    refused = python_job("queue_to_files.py", "--path", str(tmp_path / "out"), "--conn-name", "localhost(1)",
                         "--user", "app", "--password-file", str(shared), timeout=120)
    assert refused.returncode == 1, explain_process(refused)
    assert f"error: --password-file {shared}: permissions 0644 are too open" in refused.stderr


def test_a_job_without_a_queue_manager_says_how_to_give_one(monkeypatch):
    for name in ("SPARK_MQ_CONN_NAME", "SPARK_MQ_CCDT_URL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(JobError, match="--conn-name.*SPARK_MQ_CONN_NAME"):
        require_connection(parse([]))


def test_key_values_and_positive_reject_what_they_cannot_use():
    assert cli.key_values(["a=1", " b =x=y"], "--read-option") == {"a": "1", "b": "x=y"}
    with pytest.raises(JobError, match="--read-option: expected KEY=VALUE, got 'oops'"):
        cli.key_values(["oops"], "--read-option")
    assert cli.positive("3") == 3
    for bad in ("0", "-1", "x"):
        with pytest.raises(argparse.ArgumentTypeError):
            cli.positive(bad)
    assert cli.csv_list(" a, b,,c ") == ["a", "b", "c"]


def test_explain_finds_the_connector_error_inside_a_spark_error():
    wrapped = RuntimeError("[STREAM_FAILED] Query terminated\nTraceback ...\n"
                           "spark_mq.mq.exceptions.MQOptionError: option 'delivery': invalid value "
                           "'x'\n  more")
    assert explain(wrapped) == "option 'delivery': invalid value 'x'"
    assert explain(JobError("--stream needs --checkpoint")) == "--stream needs --checkpoint"
    assert explain(ValueError("first\n\nsecond")) == "ValueError: first\nsecond"


def test_read_and_write_option_help_names_the_side_and_an_option_of_that_side():
    from spark_mq.options import READ_OPTIONS, WRITE_OPTIONS
    parser = cli.new_parser("job.py", "a job")
    cli.add_extra_option_arguments(parser, "read", "write")
    helps = {action.dest: action.help for action in parser._actions}
    for dest, side, names in (("read_options", "reader", READ_OPTIONS),
                              ("write_options", "writer", WRITE_OPTIONS)):
        text = helps[dest]
        assert f"to the {side} as is" in text, text
        example = text.rsplit("e.g. ", 1)[1].split("=")[0]
        assert example in names, f"{dest}: the example {example!r} is not a {side} option"


def quickstart(*args: str, cwd: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, os.path.join(JOBS, "quickstart.py"), *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


def test_quickstart_resume_needs_the_output_of_a_stopped_run(tmp_path):
    done = quickstart("--resume", "--output", str(tmp_path))
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"error: --resume: {tmp_path} holds no quickstart run to go on with (no readable "
        "quickstart-run.json); give the --output of the run that Ctrl-C stopped")


def test_quickstart_refuses_an_earlier_run_s_checkpoint_without_resume(tmp_path):
    """Instead of the Java FileNotFoundException Spark meets going on into other files."""
    (tmp_path / "ck" / "to-queue").mkdir(parents=True)
    done = quickstart("--output", str(tmp_path / "new"), "--checkpoint", str(tmp_path / "ck"))
    assert done.returncode == 1
    assert done.stderr.strip().startswith(f"error: --checkpoint: {tmp_path / 'ck'} holds the progress "
                                          "of an earlier run; go on with that run (add --resume")


def test_the_command_that_goes_on_names_the_run_s_directories_and_resume(monkeypatch, tmp_path):
    from spark_mq.jobs import ctrl_c
    from spark_mq.jobs import quickstart as pipeline
    monkeypatch.setattr(ctrl_c, "_resume_arguments", None)     # restored after the test
    monkeypatch.setattr(sys, "argv", ["jobs/quickstart.py", "--messages", "500", "--output=old",
                                      "--sink", "queue", "--resume"])
    args = argparse.Namespace(data_dir=str(tmp_path / "qm"))
    ctrl_c.on_resume(lambda: pipeline.resume_arguments(args, "/runs/out", "/runs/out/checkpoints"))
    command = ctrl_c.resume_command().split()
    assert command[1:] == ["jobs/quickstart.py", "--messages", "500", "--sink", "queue",
                           "--output", "/runs/out", "--checkpoint", "/runs/out/checkpoints",
                           "--data-dir", str(tmp_path / "qm"), "--resume"]
    assert command[0] in ("python", os.path.basename(sys.executable), sys.executable)


def test_environment_options_are_the_connection_arguments_variables():
    # what a declarative pipeline's definitions use (examples/mq_pipeline), with no command line
    environ = {"SPARK_MQ_CONN_NAME": "mq1(1414),mq2(1414)", "SPARK_MQ_QUEUE_MANAGER": "QM9",
               "SPARK_MQ_PASSWORD": "secret", "SPARK_MQ_CHANNEL": "", "SPARK_MQ_RECONNECT": "yes",
               "UNRELATED": "x"}
    assert cli.environment_options(environ) == {
        "connName": "mq1(1414),mq2(1414)", "queueManager": "QM9", "password": "secret", "reconnect": "true"}
    assert cli.environment_options({}) == {}


def test_the_live_display_and_the_log_lines_show_the_depth_the_reader_reports():
    import io
    import json
    from types import SimpleNamespace

    from spark_mq.jobs.job_progress import ProgressMonitor

    def progress(batch: int, rows: int, report: dict) -> SimpleNamespace:
        # the shape of pyspark's StreamingQueryProgress that the monitor reads
        return SimpleNamespace(batchId=batch, timestamp=f"t{batch}", numInputRows=rows,
                               processedRowsPerSecond=10.0,
                               sources=[SimpleNamespace(latestOffset=json.dumps(report))])
    query = SimpleNamespace(recentProgress=[
        progress(0, 4, {"queue": "APP.IN", "queueDepth": 41000, "lag": 41004, "seq": 1}),
        progress(1, 2, {"queue": "APP.IN", "queueDepth": 0, "lag": 0, "seq": 2,
                        "notTextMessagesMoved": 3, "notTextMovedTo": "APP.BACKOUT"})])
    out = io.StringIO()
    monitor = ProgressMonitor(out=out, live=False)
    monitor.track("queue -> files", query)
    monitor.poll()
    lines = out.getvalue().splitlines()
    assert lines[0].endswith("depth APP.IN=41,000 (lag 41,004)") and lines[1].endswith("depth APP.IN=0")
    assert monitor.report("queue -> files")["notTextMessagesMoved"] == 3

    from spark_mq.jobs.job_text import not_text_line
    line = not_text_line(monitor.report("queue -> files"), "APP.IN")
    assert line is not None and "3 messages of APP.IN" in line and "moved to APP.BACKOUT" in line
    assert not_text_line({"queueDepth": 0}, "APP.IN") is None

    live = io.StringIO()
    shown = ProgressMonitor(out=live, live=True)
    shown.track("queue -> files", query)
    shown.poll()
    shown.close()
    assert "depth APP.IN=0" in live.getvalue()


def test_the_archive_job_reads_text_with_require_text_and_refuses_it_without_a_unit_of_work():
    import argparse

    from spark_mq.jobs.job_errors import JobError
    from spark_mq.jobs.queue_to_files import text_options

    def args(**given) -> argparse.Namespace:
        return argparse.Namespace(**{"format": "json", "payload_encoding": "utf8",
                                     "delivery": "exactlyOnce", **given})
    assert text_options(args(), ["message_id", "payload"]) == {"requireText": "true"}
    assert text_options(args(payload_encoding="base64"), ["payload"]) == {}   # bytes: every message
    assert text_options(args(), ["message_id"]) == {}                         # no data written
    with pytest.raises(JobError, match="--delivery atMostOnce.*--payload-encoding base64"):
        text_options(args(delivery="atMostOnce"), ["payload"])
