"""The seconds each test file takes, for the order in which the suite hands files to its
workers (tests/conftest.py): the longest first, so that a long file never starts last while
the other worker has nothing left to do.

pytest-xdist's `--dist loadfile` hands out files in the order it is given them; left to
itself it puts the files with the most tests first, and so the few-test files that run
Spark jobs, chaos runs or mypy last, where one of them alone made the tail of the run.
The figures are only an order, never an assertion: a file missing here (a new one) counts
as DEFAULT_SECONDS (DEFAULT_SPARK_SECONDS for Spark tests), and a stale figure costs some
speed, never a test.

Refresh them from a run's JUnit XML (`pytest --junitxml=run.xml`):
    python tests/file_seconds.py run.xml > tests/file_seconds.json
"""
from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from pathlib import Path

TABLE = Path(__file__).with_name("file_seconds.json")
#: a file without a figure: about a median file's time; a file of Spark tests, about the
#: average of those (Spark's jobs and sessions are most of the whole suite's time)
DEFAULT_SECONDS = 10.0
DEFAULT_SPARK_SECONDS = 120.0


def load() -> dict[str, float]:
    """path under the project (tests/...) -> seconds; empty when the table is missing."""
    try:
        return {path: float(seconds) for path, seconds in json.loads(TABLE.read_text()).items()}
    except (OSError, ValueError):
        return {}


def from_junit(xml_path: str) -> dict[str, float]:
    """Each file's seconds in a JUnit XML report (its test cases' times, set-up included)."""
    seconds: dict[str, float] = defaultdict(float)
    for case in ElementTree.parse(xml_path).iter("testcase"):
        module = case.get("classname", "").split(".")
        # classname is tests.folder.test_file[.Class]: the file is the part up to test_*
        parts = []
        for part in module:
            parts.append(part)
            if part.startswith("test_"):
                break
        seconds["/".join(parts) + ".py"] += float(case.get("time", 0))
    return {path: round(total, 1) for path, total in sorted(seconds.items())}


if __name__ == "__main__":
    json.dump(from_junit(sys.argv[1]), sys.stdout, indent=0, sort_keys=True)
    sys.stdout.write("\n")
