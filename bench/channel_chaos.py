"""The long channel chaos run: 20,000 persistent messages with properties through a
sender/receiver channel between two embedded queue managers while QMA, QMB and the channel
are killed at random moments (at least 20 kills), then every message counted on QMB.

    .venv/bin/python bench/channel_chaos.py [--messages 20000] [--kills 24] [--runs 1] [--seed S]

One line per run (its seed replays it: --seed S --runs 1) and the totals; exit status 1 when
any message was lost, doubled or changed (tests/chaos/channels.py).
"""
from __future__ import annotations

import argparse
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

from chaos.channels import ChannelChaos  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--kills", type=int, default=24, help="faults per run (default 24)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--batch", type=int, default=50, help="BATCHSZ (default 50)")
    parser.add_argument("--seed", type=int, default=None, help="first seed (default: random)")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    failed = 0
    started = time.monotonic()
    for run in range(args.runs):
        folder = Path(tempfile.mkdtemp(prefix="channel-chaos-"))
        try:
            ok, line = ChannelChaos(folder, seed + run, args.messages, args.kills,
                                    args.batch).run()
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        print(line, flush=True)
        failed += not ok
    print(f"{args.runs} runs, {args.runs * args.kills} kills, {args.runs * args.messages} "
          f"messages, {failed} runs with a message lost, doubled or changed, "
          f"{time.monotonic() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
