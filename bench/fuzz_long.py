"""The long fuzz run: each target of tests/fuzz/targets.py for a while, far beyond the
suite's fixed budget.

    .venv/bin/python bench/fuzz_long.py [--minutes-per-target 5] [--only wire,pcf] [--seed S]

Targets: the wire frame decoder, the MQSC parser, the PCF parser, the MQRFH2 decoder and
MQGMO_CONVERT of MQDLH/MQXQH/MQMDE/MQRFH/MQRFH2 header chains. Each must answer or fail with
its documented error only; the process runs under a 2 GiB address-space cap, so an input
that blows memory fails as a MemoryError. A failure prints hypothesis's shrunk input and
the blob that replays it (@reproduce_failure); add it to tests/fuzz as a regression test.
Exits 1 when any target failed.
"""
from __future__ import annotations

import argparse
import random
import resource
import sys
import time
import traceback
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402

from fuzz.targets import TARGETS  # noqa: E402

ADDRESS_SPACE = 2 << 30
ROUND = 2000   # examples per hypothesis run; runs repeat with new seeds until time is up


def run_target(name: str, minutes: float, first_seed: int) -> tuple[int, list[str]]:
    strategy, check = TARGETS[name]
    failures: list[str] = []
    calls = [0]

    def counted(value: object) -> None:
        calls[0] += 1
        check(value)

    deadline = time.monotonic() + minutes * 60
    run = 0
    while time.monotonic() < deadline:
        run_seed = first_seed + run
        run += 1
        fuzz = seed(run_seed)(settings(
            max_examples=ROUND, database=None, deadline=timedelta(seconds=5), print_blob=True,
            suppress_health_check=list(HealthCheck))(given(strategy)(counted)))
        try:
            fuzz()
        except Exception:  # noqa: BLE001 - every failure is reported, then the next seed
            failures.append(f"seed {run_seed}:\n{traceback.format_exc()}")
    return calls[0], failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes-per-target", type=float, default=5.0)
    parser.add_argument("--only", default="", help="comma-separated targets (default: all)")
    parser.add_argument("--seed", type=int, default=None, help="first seed (default: random)")
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE if hard == resource.RLIM_INFINITY
                                            else min(ADDRESS_SPACE, hard), hard))
    names = [n for n in args.only.split(",") if n] or list(TARGETS)
    first_seed = args.seed if args.seed is not None else random.randrange(2**31)
    print(f"first seed {first_seed}; {args.minutes_per_target:g} min per target: {', '.join(names)}",
          flush=True)
    failed = False
    for name in names:
        start = time.monotonic()
        examples, failures = run_target(name, args.minutes_per_target, first_seed)
        print(f"{name:8} {examples:>9} examples in {time.monotonic() - start:6.0f} s, "
              f"{len(failures)} failing runs", flush=True)
        for failure in failures:
            print(failure, flush=True)
        failed = failed or bool(failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
