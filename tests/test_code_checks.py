"""The project's own code checks, run as part of the test suite (so the README's one test
command and CI run them): ruff, mypy (strict for spark_mq.mq and spark_mq.mqi) and the
import-linter layer contracts, all configured in pyproject.toml."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from support import PROJECT_ROOT

BIN = os.path.dirname(sys.executable)


def run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([os.path.join(BIN, tool), *args], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("tool, args", [
    ("ruff", ("check", "src", "tests", "bench", "jobs")),
    ("mypy", ()),
    ("lint-imports", ()),
], ids=["ruff", "mypy", "import-linter"])
def test_code_check_passes(tool, args):
    done = run(tool, *args)
    assert done.returncode == 0, f"{tool} failed:\n{done.stdout[-6000:]}\n{done.stderr[-2000:]}"
