"""Run every benchmark in bench/ and print one table of figures and ratios.

    .venv/bin/python bench/run_all.py            # full runs
    .venv/bin/python bench/run_all.py --quick    # small runs, a minute or two
    .venv/bin/python bench/run_all.py --only reader,writer --json results.json

Each bench/bench_*.py script runs in its own process (one at a time: they measure speed)
and reports by printing lines of the form

    BENCH {"name": "reader", "figures": {...}, "ratios": {...}, "notes": "..."}

(see bench/README.md). This script collects those lines and prints them as one table; a
script that fails or prints no BENCH line is listed as failed, and the exit code is 1.

A benchmark ends with this script, however this script ends (on Linux, where prctl's
PR_SET_PDEATHSIG sends it SIGTERM; its queue managers and Spark end with it in turn), so a
killed run leaves nothing running.
"""
from __future__ import annotations

import argparse
import ctypes
import glob
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
PREFIX = "BENCH "
PR_SET_PDEATHSIG = 1     # <linux/prctl.h>


@dataclass
class Result:
    script: str
    returncode: int
    seconds: float
    reports: list[dict] = field(default_factory=list)
    tail: str = ""

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and bool(self.reports)


def parse_reports(output: str) -> list[dict]:
    """Every well-formed BENCH line of a script's output (others are ignored)."""
    reports = []
    for line in output.splitlines():
        if not line.startswith(PREFIX):
            continue
        try:
            report = json.loads(line[len(PREFIX):])
        except json.JSONDecodeError:
            continue
        if isinstance(report, dict) and isinstance(report.get("figures", {}), dict):
            reports.append(report)
    return reports


def discover(only: list[str], directory: str = BENCH_DIR) -> list[str]:
    scripts = sorted(glob.glob(os.path.join(directory, "bench_*.py")))
    if only:
        scripts = [s for s in scripts if os.path.basename(s)[len("bench_"):-3] in only]
    return scripts


def ends_with_parent(parent: int) -> Callable[[], None] | None:
    """A preexec_fn that has the child get SIGTERM when this process ends (Linux only: None
    elsewhere). prctl ties the signal to the thread that forked; this script starts its
    children from its only thread, so that is its whole life."""
    if not sys.platform.startswith("linux"):
        return None

    def arrange() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:     # the parent ended before prctl took effect
            os._exit(1)
    return arrange


def run_script(script: str, quick: bool, timeout: float) -> Result:
    command = [sys.executable, script] + (["--quick"] if quick else [])
    print(f"--- {os.path.basename(script)} {'--quick' if quick else ''}", flush=True)
    started = time.monotonic()
    env = dict(os.environ, PYSPARK_PYTHON=os.environ.get("PYSPARK_PYTHON", sys.executable))
    try:
        process = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env,
                                 cwd=os.path.dirname(BENCH_DIR), preexec_fn=ends_with_parent(os.getpid()))
        output, code = process.stdout + process.stderr, process.returncode
    except subprocess.TimeoutExpired as exc:
        stdout = exc.stdout or b""
        output = stdout.decode(errors="replace") if isinstance(stdout, bytes) else stdout
        output += f"\n(timed out after {timeout:.0f} s)"
        code = -1
    seconds = time.monotonic() - started
    reports = parse_reports(output)
    for report in reports:
        print(f"    {report.get('name', '?')}: {json.dumps(report.get('figures', {}))}", flush=True)
    tail = "\n".join(output.strip().splitlines()[-15:])
    if quick and "unrecognized arguments: --quick" in output:
        tail = f"{os.path.basename(script)} does not accept --quick (see the convention in bench/README.md)"
    if code != 0 or not reports:
        shown = "\n".join("      " + line for line in tail.splitlines())
        print(f"    FAILED (exit {code}); last lines:\n{shown}", flush=True)
    return Result(os.path.basename(script), code, seconds, reports, tail)


def fmt(value) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int) or float(value).is_integer() and abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        return f"{value:,.2f}"
    return f"{value:.3f}"


def table(results: list[Result]) -> str:
    rows = [("benchmark", "kind", "measure", "value")]
    for result in results:
        if not result.ok:
            reason = (result.tail.splitlines() or ["no output"])[-1].strip()
            if result.returncode == 0 and not result.reports:
                reason = "printed no BENCH line"
            rows.append((result.script, "FAILED", reason[:80], f"exit {result.returncode}"))
        for report in result.reports:
            name = str(report.get("name", result.script))
            for key, value in report.get("figures", {}).items():
                rows.append((name, "figure", str(key), fmt(value)))
            for key, value in (report.get("ratios") or {}).items():
                rows.append((name, "ratio", str(key), fmt(value)))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = []
    for index, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(widths[i]) if i < 3 else cell.rjust(widths[i])
                               for i, cell in enumerate(row)))
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    notes = [f"{r.get('name')}: {r['notes']}" for res in results for r in res.reports if r.get("notes")]
    if notes:
        lines += ["", "notes:"] + [f"  {note}" for note in notes]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/run_all.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="pass --quick to every benchmark (small runs)")
    parser.add_argument("--only", help="comma-separated names, e.g. reader,writer (bench_<name>.py)")
    parser.add_argument("--timeout", type=float, default=3600.0,
                        help="per-script timeout in seconds (default: 3600)")
    parser.add_argument("--json", help="also write all reports to this JSON file")
    parser.add_argument("--dir", default=BENCH_DIR, help=argparse.SUPPRESS)  # for run_all's own test
    args = parser.parse_args(argv)
    only = [name.strip() for name in (args.only or "").split(",") if name.strip()]
    scripts = discover(only, args.dir)
    if not scripts:
        print(f"no bench/bench_*.py scripts found{' matching ' + args.only if only else ''}", file=sys.stderr)
        return 1
    results = [run_script(script, args.quick, args.timeout) for script in scripts]
    print(f"\n=== spark-mq benchmarks ({'quick' if args.quick else 'full'} runs, "
          f"{os.cpu_count()} cores, python {sys.version.split()[0]}) ===")
    print(table(results))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump([{"script": r.script, "returncode": r.returncode, "seconds": round(r.seconds, 1),
                        "reports": r.reports} for r in results], handle, indent=2)
    return 0 if all(result.ok for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())
