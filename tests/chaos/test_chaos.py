"""The short chaos run (part of the README's test command): each fault once, on the three
pipelines in turn, with a seed printed with every outcome (SPARK_MQ_CHAOS_SEED=<seed>
replays a run). After each run every message is counted: none lost, none doubled,
properties intact, poison messages on the backout queue exactly once. The long form is
bench/chaos_long.py."""
from __future__ import annotations

import os
import random

import pytest

from chaos.harness import FAULTS, PIPELINES, ChaosRun

pytestmark = [pytest.mark.spark, pytest.mark.timeout(900)]

BASE_SEED = int(os.environ.get("SPARK_MQ_CHAOS_SEED", random.randrange(1 << 30)))


@pytest.mark.parametrize("index, fault", list(enumerate(FAULTS)), ids=list(FAULTS))
def test_a_fault_at_a_random_moment_loses_and_doubles_nothing(index, fault, tmp_path):
    seed = BASE_SEED + index
    pipeline = PIPELINES[(BASE_SEED + index) % len(PIPELINES)]
    outcome = ChaosRun(tmp_path, pipeline, fault, seed).run()
    print(outcome.line())
    assert outcome.ok, outcome.line() + f" (replay: SPARK_MQ_CHAOS_SEED={BASE_SEED})"
