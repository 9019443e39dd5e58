"""The code blocks of the project's Markdown documents, and a sandbox to run them in (no tests
in here: tests/packaging/test_readme.py holds the docs tests and states the convention).

A fenced block is ```` ```LANG MARKERS ````: LANG is the language (GitHub highlights by it and
ignores the rest of the line), MARKERS say whether and how the docs test runs it:

    no-run: REASON     never run; the reason is required (a fragment, a real IBM MQ, Docker)
    run-by: PATH       run as written by that test file (which must exist)
    continues          runs after the block before it, in the same sandbox (its processes,
                       queue managers and files are still there)
    once               runs once; any other block runs twice in a row

A sandbox is a private network (its own loopback, so localhost(1414) and sc://localhost:15002
are free), a private PID space (whatever a block leaves running ends with it), a private
/tmp, HOME and TMPDIR, and a working folder in which the repository's top-level entries
(jobs/, mqsc/, examples/, ...) appear, so that the documents' relative paths work without the
repository being written to."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from support import PROJECT_ROOT, activated_environment

RUN_LANGUAGES = ("python", "sh", "bash")
MARKERS_WITH_TEXT = ("no-run:", "run-by:")
MARKERS = ("continues", "once")
FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<code>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
FILE_LINE = re.compile(r"# (\S+\.py)\n")


@dataclass(frozen=True)
class Block:
    doc: str                   # path relative to the repository
    line: int                  # of the opening fence, 1-based
    language: str
    markers: dict[str, str]    # marker -> its text ("" for the plain ones)
    code: str

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"

    @property
    def runs(self) -> bool:
        return self.language in RUN_LANGUAGES and not ({"no-run:", "run-by:"} & self.markers.keys())

    @property
    def file_name(self) -> str | None:
        """`name.py` for a Python block whose first line is `# name.py`: a file to write, which
        a shell block of its chain runs."""
        found = FILE_LINE.match(self.code) if self.language == "python" else None
        return found.group(1) if found else None


def parse_info(info: str) -> tuple[str, dict[str, str]]:
    """("python", {"no-run:": "a fragment"}) from 'python no-run: a fragment'; unknown words
    are an error, so that a misspelt marker cannot silently run or skip a block."""
    language, _, rest = info.strip().partition(" ")
    markers: dict[str, str] = {}
    words = rest.split()
    while words:
        word = words.pop(0)
        if word in MARKERS_WITH_TEXT:
            markers[word] = " ".join(words)
            break
        if word not in MARKERS:
            raise ValueError(f"unknown fence marker {word!r} in {info!r}: use "
                             f"{', '.join(MARKERS_WITH_TEXT + MARKERS)}")
        markers[word] = ""
    return language, markers


def blocks(doc: str) -> list[Block]:
    text = Path(PROJECT_ROOT, doc).read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        language, markers = parse_info(match.group("info"))
        line = text.count("\n", 0, match.start()) + 1
        found.append(Block(doc, line, language, markers, match.group("code")))
    return found


def documents() -> list[str]:
    """README.md and every Markdown file under docs/."""
    docs = sorted(str(path.relative_to(PROJECT_ROOT)) for path in Path(PROJECT_ROOT, "docs").glob("**/*.md"))
    return ["README.md", *docs]


@dataclass
class Chain:
    """Blocks run one after another in one sandbox: a block and those that continue it."""
    blocks: list[Block] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.blocks[0].where

    @property
    def run_by(self) -> str | None:
        """The test file that runs this chain, when its first block names one."""
        return self.blocks[0].markers.get("run-by:")


def chains(doc: str) -> list[Chain]:
    """The document's runnable chains; a chain whose first block says `run-by: TEST` is
    there too (its `run_by`), for that test to run."""
    found: list[Chain] = []
    for block in blocks(doc):
        if not (block.runs or ("run-by:" in block.markers and block.language in RUN_LANGUAGES)):
            continue
        if "continues" in block.markers:
            assert found, f"{block.where}: `continues` but no block before it runs"
            found[-1].blocks.append(block)
        else:
            found.append(Chain([block]))
    return found


# --- the sandbox -----------------------------------------------------------------------------

def _under_tmp(path: str) -> bool:
    return os.path.realpath(path).startswith("/tmp/")


def _sandbox_prelude(sandbox: Path) -> str:
    """Shell run first inside the new namespaces: loopback up, /proc of the new PID space,
    a private /tmp in which the folders this run needs (the environment, the repository, the
    sandbox) are still at their paths."""
    keep = sorted({os.path.realpath(p) for p in (sys.prefix, PROJECT_ROOT, str(sandbox)) if _under_tmp(p)})
    lines = [
        "set -e",
        "mount --make-rprivate /",
        "mount -t proc proc /proc",
        f"{shlex.quote(sys.executable)} -c {shlex.quote(_LOOPBACK_UP)}",
        "mount -t tmpfs sandbox-tmp /mnt",
    ]
    for path in keep:
        inside = "/mnt/" + path.removeprefix("/tmp/")
        lines += [f"mkdir -p {shlex.quote(inside)}",
                  f"mount --rbind {shlex.quote(path)} {shlex.quote(inside)}"]
    lines += ["mount --rbind /mnt /tmp", "chmod 1777 /tmp", "set +e"]
    return "\n".join(lines) + "\n"


# SIOCSIFFLAGS on "lo" with IFF_UP|IFF_RUNNING: what `ip link set lo up` does, without iproute2
_LOOPBACK_UP = """
import fcntl, socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
fcntl.ioctl(s, 0x8914, struct.pack("16sH14s", b"lo", 0x1 | 0x40, b"\\0" * 14))
"""


def sandbox_environment(sandbox: Path) -> dict[str, str]:
    """An activated environment (see support.activated_environment) with the sandbox's HOME
    and temporary folders, and Spark bound to loopback, the only network there is."""
    env = activated_environment()
    for name in ("home", "tmp", "spark-pids", "spark-logs"):
        (sandbox / name).mkdir(exist_ok=True)
    env.update(HOME=str(sandbox / "home"), TMPDIR=str(sandbox / "tmp"),
               SPARK_PID_DIR=str(sandbox / "spark-pids"), SPARK_LOG_DIR=str(sandbox / "spark-logs"),
               SPARK_LOCAL_IP="127.0.0.1")
    return env


def work_folder(sandbox: Path) -> Path:
    """The blocks' working folder: the repository's top-level entries as links."""
    work = sandbox / "work"
    work.mkdir()
    for entry in Path(PROJECT_ROOT).iterdir():
        if entry.name not in (".git", ".venv") and not entry.name.startswith("."):
            (work / entry.name).symlink_to(entry)
    return work


def run_chain(chain: Chain, sandbox: Path, timeout: float) -> subprocess.CompletedProcess:
    """Run a chain's blocks in order in one new sandbox: shell blocks with `set -eo pipefail`,
    Python blocks with the environment's python, a `# name.py` block written to name.py; each
    block not marked `once` twice in a row. The first failing block ends the run, its status
    the run's."""
    work = work_folder(sandbox)
    script = [_sandbox_prelude(sandbox), f"cd {shlex.quote(str(work))}"]
    for number, block in enumerate(chain.blocks):
        path = sandbox / f"block-{number}"
        path.write_text(block.code, encoding="utf-8")
        if block.file_name:
            script.append(f"cp {shlex.quote(str(path))} {shlex.quote(block.file_name)}")
            continue
        if block.language == "python":
            command = f"python {shlex.quote(str(path))}"
        else:
            command = f"bash -eo pipefail {shlex.quote(str(path))}"
        times = 1 if "once" in block.markers else 2
        for attempt in range(1, times + 1):
            script += [f"echo '=== {block.where} (run {attempt} of {times})'",
                       f"{command} || {{ status=$?; echo '=== {block.where} failed: exit '$status; "
                       f"exit $status; }}"]
    script.append("echo '=== all blocks ran'")
    return subprocess.run(["unshare", "--net", "--pid", "--fork", "--mount", "--kill-child",
                           "bash", "-c", "\n".join(script)],
                          env=sandbox_environment(sandbox), cwd=sandbox, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=timeout)
