"""What a user reads when something is wrong, run as the README runs a script: `spark-submit
--driver-java-options "$(python -m spark_mq.jobs.log4j)" script.py` in a plain shell with the
environment activated, and every line of its output counted.

- The README's script against a queue manager that is not running, stopped before the batch
  write and before the stream: the first line of the error names MQ's reason (2538
  MQRC_HOST_NOT_AVAILABLE), the queue manager and its address, says nothing listens there and
  how to start the embedded one.
- A batch write of a '€' in CCSID 37: the reason (2119 MQRC_NOT_CONVERTED), the row, and
  CCSID 1140 (37 with the euro sign) as the fix.

In each: no Java stack and no ERROR line before the exception, no line of the connector's
own code in the traceback (it ends in the script's call and pyspark's), and no more lines than
docs/errors.md says ("When something is wrong"). And the docs' promises about the
`queue_manager` column and about an unknown column: a read names its queue manager, and a
select of a column that does not exist prints no JSON log line with a Java stack inside.
"""
from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path

import pytest

from support import PROJECT_ROOT, activated_environment


def _readme_test():   # the README section's script and commands, as test_readme reads them
    spec = importlib.util.spec_from_file_location("_readme_section",
                                                  Path(__file__).with_name("test_readme.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


run_commands, the_script = _readme_test().run_commands, _readme_test().the_script



def real_spark(test):
    """A test that runs spark-submit (the set-up test below runs without)."""
    return pytest.mark.spark(pytest.mark.timeout(900)(test))


README = Path(PROJECT_ROOT, "README.md")
ERRORS_PAGE = Path(PROJECT_ROOT, "docs", "errors.md")
TESTS_PAGE = Path(PROJECT_ROOT, "docs", "contributing.md")
SUBMIT = 'spark-submit --driver-java-options "$(python -m spark_mq.jobs.log4j)" script.py'
WITH_LINE = "with EmbeddedQueueManager(tempfile.mkdtemp()) as qm:"
STREAM_LINE = "    # stream, exactly once"


def readme_figure(phrase: str) -> int:
    """The number of lines the errors page (docs/errors.md, "When something is wrong")
    promises where it says `phrase` (`{n}` stands for the number)."""
    section = ERRORS_PAGE.read_text(encoding="utf-8")
    pattern = re.escape(phrase).replace(re.escape("{n}"), r"(\d+)").replace(r"\ ", r"\s+")
    found = re.search(pattern, section)
    assert found, f"docs/errors.md no longer says {phrase!r}"
    return int(found.group(1))


def submit(tmp_path: Path, code: str) -> tuple[int, list[str]]:
    """Run `code` as script.py the README's way; its exit status and what it printed."""
    assert SUBMIT in run_commands()[0], "the README no longer runs its script this way"
    (tmp_path / "script.py").write_text(code, encoding="utf-8")
    env = activated_environment()
    env["TMPDIR"] = str(tmp_path / "tmp")
    (tmp_path / "tmp").mkdir()
    done = subprocess.run(["bash", "-c", SUBMIT], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    return done.returncode, (done.stdout + done.stderr).splitlines()


def the_error(lines: list[str]) -> list[str]:
    """The output without the lines every run prints first (the JVM's note on its incubator
    modules, Spark's warnings about the host name and the UI port)."""
    return [line for line in lines
            if not (line.startswith("WARNING: ") or re.match(r"\d\d:\d\d:\d\d WARN Utils: ", line))]


def assert_cause_first(lines: list[str], figure: int) -> str:
    """The checks every failure gets; returns the exception's line (the one with MQ's reason)."""
    error = the_error(lines)
    shown = "\n".join(lines)
    assert not [line for line in error if " ERROR " in line or line.startswith("\tat ")], shown
    assert error[0] == "Traceback (most recent call last):", shown
    frames = [line for line in error if line.startswith('  File "')]
    assert frames and 'script.py"' in frames[0], shown
    assert not [line for line in frames if "/spark_mq/" in line], shown     # no re-raise line
    [reason] = [line for line in error if "MQ reason " in line]
    assert len(error) <= figure, f"{len(error)} lines, docs/errors.md says {figure}:\n{shown}"
    return reason


def script_stopped_before(line: str) -> str:
    _, code = the_script()
    assert WITH_LINE in code and line in code, "the README's script changed: adapt this test"
    return code.replace(line, "    qm.stop()   # the queue manager is not running\n" + line, 1)


@pytest.mark.parametrize("step", ["write", "stream"])
@real_spark
def test_the_readme_script_against_a_stopped_queue_manager(step, tmp_path):
    first = "    # batch: put two messages" if step == "write" else STREAM_LINE
    status, lines = submit(tmp_path, script_stopped_before(first))
    assert status == 1, "\n".join(lines)
    figure = readme_figure("a failed batch write: {n} lines" if step == "write"
                           else "an uncaught stream error: {n} lines")
    reason = assert_cause_first(lines, figure)
    assert "connecting to queue manager QM1 at 127.0.0.1(" in reason, reason
    assert "MQ reason 2538 MQRC_HOST_NOT_AVAILABLE" in reason, reason
    assert "nothing listens at 'connName' (host(port)): the queue manager is not running" in reason
    assert "spark-mq-qmgr start --data-dir DIR --port PORT" in reason, reason
    if step == "stream":
        assert reason.startswith("pyspark.errors.exceptions.captured.StreamingQueryException: "
                                 "[STREAM_FAILED]"), reason


EURO = '''
import tempfile

from pyspark.sql import SparkSession

from spark_mq.embedded import EmbeddedQueueManager

with EmbeddedQueueManager(tempfile.mkdtemp()) as qm:
    spark = SparkSession.builder.master("local[2]").getOrCreate()
    (spark.createDataFrame([("price: 5 \u20ac",)], "payload string")
          .write.format("mq").option("connName", qm.conn_name).option("queue", "DEV.QUEUE.1")
          .option("ccsid", "37").mode("append").save())
'''


@real_spark
def test_a_euro_written_in_ccsid_37_says_why_and_the_ccsid_that_holds_it(tmp_path):
    status, lines = submit(tmp_path, EURO)
    assert status == 1, "\n".join(lines)
    reason = assert_cause_first(lines, readme_figure("a failed task: {n} lines"))
    assert reason.startswith("spark_mq.mq.outgoing.RowValueError: row 1 of its partition"), reason
    assert "cannot be encoded in the row's CCSID 37 (option 'ccsid'): character '\u20ac' " \
           "(position 9) has no code in CCSID 37 (MQ reason 2119 MQRC_NOT_CONVERTED)" in reason
    assert "valid: CCSID 1140 (37 with the euro sign) or 1208 (UTF-8), which hold it" in reason


COLUMNS = '''
import tempfile

from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession

from spark_mq.embedded import EmbeddedQueueManager

with EmbeddedQueueManager(tempfile.mkdtemp(), name="QMX") as qm:
    spark = SparkSession.builder.master("local[2]").getOrCreate()
    mq = {"connName": qm.conn_name, "queueManager": qm.name, "queue": "DEV.QUEUE.1"}
    spark.createDataFrame([("hello",)], "payload string").write.format("mq").options(**mq) \\
        .mode("append").save()
    read = spark.read.format("mq").options(**mq).load()
    print("read from:", [(row.queue, row.queue_manager) for row in read.collect()])
    read.write.format("mq").options(**{**mq, "queue": "DEV.QUEUE.2"}).mode("append").save()
    print("written on:", [row.queue_manager for row in
          spark.read.format("mq").options(**{**mq, "queue": "DEV.QUEUE.2"}).load().collect()])
    try:
        read.select("no_such_column").collect()
    except AnalysisException as exc:
        print("refused:", str(exc).splitlines()[0][:60])
'''


@real_spark
def test_a_read_names_its_queue_manager_and_an_unknown_column_is_one_exception(tmp_path):
    """The default schema's `queue_manager`; the read written on with a `queue` option goes to
    that queue on the connected queue manager; pyspark logs no JSON line for the select."""
    status, lines = submit(tmp_path, COLUMNS)
    shown = "\n".join(lines)
    assert status == 0, shown
    assert "read from: [('DEV.QUEUE.1', 'QMX')]" in lines, shown
    assert "written on: ['QMX']" in lines, shown
    [refused] = [line for line in lines if line.startswith("refused: ")]
    assert refused.startswith("refused: [UNRESOLVED_COLUMN"), shown
    assert not [line for line in lines if line.startswith("{")], shown
    assert the_error(lines) == [line for line in lines if line.startswith(
        ("read from: ", "written on: ", "refused: "))], shown


def test_the_set_up_says_how_long_each_command_takes_and_shows_the_fast_loop():
    text = README.read_text(encoding="utf-8")
    set_up = text.split("## Set-up: two commands\n", 1)[1].split("\n## ", 1)[0]
    block = set_up.split("```bash", 1)[1].split("```", 1)[0].split("\n", 1)[1]   # no info string
    commands = [line for line in block.splitlines() if line and not line.startswith("#")]
    assert len(commands) == 2, block                              # still two commands
    assert "about a minute" in block and "about 29 minutes on 2 cores" in block, block
    fast = '.venv/bin/python -m pytest -m "not spark"'
    assert f"about 5 minutes:\n#    {fast}" in block, block
    tests = TESTS_PAGE.read_text(encoding="utf-8").split("## Tests\n", 1)[1].split("\n## ", 1)[0]
    assert f"about five minutes on 2 cores):\n`{fast}`" in tests and "about 29 minutes" in tests
