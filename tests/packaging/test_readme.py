"""The docs cannot rot: the code blocks of README.md and of every page under docs/ (its
subfolders too) run as written, and their links point at files and headings that exist, by
GitHub's rules (test_docs_site.py builds docs/ as a site, whose strict build checks the same
by mkdocs' rules).

Which blocks run is said by each fence's info string (parsed in tests/doc_blocks.py):

    ```python / ```sh / ```bash      run, each block twice in a row, in a sandbox of its own
    ```LANG no-run: REASON           not run, for the reason given: a fragment on your session
                                     (`spark`, `df`), a real IBM MQ, Docker, a long set-up
    ```LANG run-by: TEST_FILE        run as written by that test (which must exist), with the
                                     blocks that continue it
    ```LANG continues                run after the block before it, in its sandbox
    ```LANG once                     run once (it starts something, or defines what exists)
    ```text, ```yaml, ...            output and listings: never run

A Python block whose first line is `# name.py` is written to name.py for a shell block of its
chain to run; `# prints: TEXT` after a command says what it prints, and the test checks it.
Indented (four-space) blocks are never run: they show syntax with placeholders, output and
layout; anything meant to be run as written goes in a fence. The sandbox (doc_blocks.py):
its own loopback network, PID space, /tmp, HOME and working folder, so that localhost(1414),
~/.spark-mq and fixed /tmp paths are the sandbox's alone and nothing a block starts outlives it.

The README's "Use it from your own code" works as written, run the way a user runs it: its
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

import doc_blocks
from support import PROJECT_ROOT, activated_environment

README = Path(PROJECT_ROOT, "README.md")
SECTION = "## Use it from your own code"


def section_text() -> str:
    text = README.read_text(encoding="utf-8")
    assert SECTION + "\n" in text, f"README.md has no section {SECTION!r}"
    body = text.split(SECTION + "\n", 1)[1]
    return re.split(r"^## ", body, maxsplit=1, flags=re.MULTILINE)[0]


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(language, code) of each fenced code block (markers after the language left out)."""
    return [(doc_blocks.parse_info(info)[0], code) for info, code in doc_blocks.FENCE.findall(text)]


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


# --- every document's blocks and links --------------------------------------------------------

CHAIN_SECONDS = 840
LINKED_DOCS = ("README.md", "ARCHITECTURE.md", "CHANGELOG.md")


def all_blocks() -> list[doc_blocks.Block]:
    return [block for doc in doc_blocks.documents() for block in doc_blocks.blocks(doc)]


def all_chains() -> list[doc_blocks.Chain]:
    """The chains this test runs: those no other test runs."""
    return [chain for doc in doc_blocks.documents() for chain in doc_blocks.chains(doc) if not chain.run_by]


def test_every_block_says_whether_it_runs():
    for doc in doc_blocks.documents():
        for number, line in enumerate(Path(PROJECT_ROOT, doc).read_text().splitlines(), 1):
            # CommonMark: a backtick in the info string makes the line no fence at all
            assert not (line.startswith("```") and "`" in line[3:]), f"{doc}:{number}: a backtick after ```"
    for block in all_blocks():
        if "no-run:" in block.markers:
            assert block.markers["no-run:"], f"{block.where}: no-run needs its reason"
        if "run-by:" in block.markers:
            test = Path(PROJECT_ROOT, block.markers["run-by:"])
            assert test.is_file(), f"{block.where}: run-by names {test}, which does not exist"
        if block.runs and block.file_name:
            assert any(block.file_name in later.code for later in all_blocks()
                       if later.doc == block.doc and later.line > block.line and later.runs), (
                f"{block.where}: nothing runs {block.file_name}")


def expected_prints(chain: doc_blocks.Chain) -> list[str]:
    return [line.split("# prints:", 1)[1].strip() for block in chain.blocks if block.language != "python"
            for line in block.code.splitlines() if "# prints:" in line]


SPARK_WORDS = ("spark-submit", "pyspark", "SparkSession", "spark-pipelines", "start-connect-server")


def chain_params() -> list:
    """Each chain, marked `spark` when it starts Spark (the fast loop runs the others)."""
    return [pytest.param(chain, id=chain.name,
                         marks=[pytest.mark.spark] if any(word in block.code for block in chain.blocks
                                                         for word in SPARK_WORDS) else [])
            for chain in all_chains()]


@pytest.mark.timeout(CHAIN_SECONDS + 60)
@pytest.mark.parametrize("chain", chain_params())
def test_the_block_runs_as_written(chain, tmp_path):
    done = doc_blocks.run_chain(chain, tmp_path, timeout=CHAIN_SECONDS)
    told = (f"exit {done.returncode}\n--- stdout ---\n{done.stdout[-6000:]}"
            f"\n--- stderr ---\n{done.stderr[-6000:]}")
    assert done.returncode == 0 and "=== all blocks ran" in done.stdout, told
    for text in expected_prints(chain):
        assert text in done.stdout, f"the block says it prints {text!r}\n{told}"


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation but - and _ dropped,
    spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def prose(text: str) -> str:
    """The text without fenced blocks and inline code, where link syntax is not a link."""
    text = doc_blocks.FENCE.sub("", text)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors_of(path: Path) -> set[str]:
    text = doc_blocks.FENCE.sub("", path.read_text(encoding="utf-8"))
    return {github_anchor(heading) for heading in re.findall(r"^#+ (.+)$", text, re.M)}


@pytest.mark.parametrize("doc", [*LINKED_DOCS, *doc_blocks.documents()[1:]])
def test_links_point_at_files_and_headings_that_exist(doc):
    path = Path(PROJECT_ROOT, doc)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", prose(path.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):            # https:, mailto:: not files
            continue
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            broken.append(f"{target}: no file {linked}")
        elif anchor and linked.suffix == ".md" and anchor not in anchors_of(linked):
            broken.append(f"{target}: no heading #{anchor} in {linked.name}")
    assert not broken, f"{doc}: broken links:\n" + "\n".join(broken)
