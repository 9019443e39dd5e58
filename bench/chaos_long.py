"""The long chaos run: random pipelines and faults, every message counted after each run.

    .venv/bin/python bench/chaos_long.py --kills 100 [--seed S] [--messages 400]

Each run starts its own embedded queue manager, loads the input, starts the pipeline in a
child process, injects one fault at a random moment (SIGKILL of the process tree, of the
driver only, of one worker, query.stop(), forced task retries, a queue-manager SIGKILL and
restart), restarts the pipeline on its checkpoint until it completes and counts every
message (tests/chaos/harness.py). Runs go on until --kills faults have been injected. It
prints one line per run and the totals: kills, messages, lost, doubled. A failing run is
replayed with its seed: `--seed <seed> --runs 1 --pipeline P --fault F`.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path.insert(0, str(TESTS))

import spark_mq.embedded  # noqa: E402

spark_mq.embedded.install()

from chaos.harness import FAULTS, PIPELINES, QUEUE_PIPELINES, ChaosRun  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=100, help="faults to inject (default 100)")
    parser.add_argument("--runs", type=int, default=0, help="stop after this many runs (0: by kills)")
    parser.add_argument("--seed", type=int, default=None, help="first seed (default: random)")
    parser.add_argument("--messages", type=int, default=400, help="messages per run (default 400)")
    parser.add_argument("--pipeline", choices=PIPELINES, help="only this pipeline")
    parser.add_argument("--fault", choices=FAULTS, help="only this fault")
    parser.add_argument("--read-mode", choices=("driver", "executors"), default="driver",
                        help="the reader's readMode (default driver; executors: the queue pipelines "
                             "only, with speculative tasks)")
    args = parser.parse_args()
    os.environ["PYSPARK_PYTHON"] = sys.executable
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    chooser = random.Random(seed)
    totals = {"runs": 0, "kills": 0, "restarts": 0, "messages": 0, "lost": 0, "doubled": 0,
              "wrong": 0}
    failed: list[str] = []
    started = time.monotonic()
    while totals["kills"] < args.kills and (not args.runs or totals["runs"] < args.runs):
        run_seed = seed + totals["runs"]
        pipelines = PIPELINES if args.read_mode == "driver" else QUEUE_PIPELINES
        pipeline = args.pipeline or chooser.choice(pipelines)
        fault = args.fault or chooser.choice(FAULTS)
        work = Path(tempfile.mkdtemp(prefix="spark-mq-chaos-"))
        try:
            outcome = ChaosRun(work, pipeline, fault, run_seed, args.messages, args.read_mode).run()
        except AssertionError as exc:        # it did not complete: keep its logs
            print(f"{exc}", flush=True)
            failed.append(f"--seed {run_seed} --runs 1 --pipeline {pipeline} --fault {fault} "
                          f"--read-mode {args.read_mode}   (logs in {work})")
            totals["runs"] += 1
            continue
        if outcome.ok:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"  logs kept in {work}", flush=True)
        totals["runs"] += 1
        for key in ("kills", "restarts", "messages"):
            totals[key] += getattr(outcome, key)
        totals["lost"] += len(outcome.lost)
        totals["doubled"] += len(outcome.doubled)
        totals["wrong"] += len(outcome.wrong)
        print(outcome.line(), flush=True)
        if not outcome.ok:
            failed.append(f"--seed {run_seed} --runs 1 --pipeline {pipeline} --fault {fault} "
                          f"--read-mode {args.read_mode}")
    minutes = (time.monotonic() - started) / 60
    print(f"\nchaos totals (first seed {seed}, {minutes:.0f} min): " +
          " ".join(f"{key}={value}" for key, value in totals.items()), flush=True)
    for replay in failed:
        print(f"replay a failed run: .venv/bin/python bench/chaos_long.py {replay}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
