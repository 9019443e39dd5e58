"""The short chaos run (part of the README's test command): each fault once, on the three
pipelines in turn, with a seed printed with every outcome (SPARK_MQ_CHAOS_SEED=<seed>
replays a run). After each run every message is counted: none lost, none doubled,
properties intact, poison messages on the backout queue exactly once, and the fault landed
mid-run (not after the pipeline had finished). The long form is bench/chaos_long.py."""
from __future__ import annotations

import os
import random

import pytest

from chaos.harness import FAULTS, PIPELINES, QUEUE_PIPELINES, ChaosRun, Outcome

pytestmark = [pytest.mark.spark, pytest.mark.timeout(900)]

BASE_SEED = int(os.environ.get("SPARK_MQ_CHAOS_SEED", random.randrange(1 << 30)))


@pytest.mark.parametrize("index, fault", list(enumerate(FAULTS)), ids=list(FAULTS))
def test_a_fault_at_a_random_moment_loses_and_doubles_nothing(index, fault, tmp_path):
    seed = BASE_SEED + index
    pipeline = PIPELINES[(BASE_SEED + index) % len(PIPELINES)]
    outcome = ChaosRun(tmp_path, pipeline, fault, seed).run()
    print(outcome.line())
    assert_landed_and_counted(outcome)


#: the faults that hit where readMode executors differs: tasks (killed workers, retries and
#: speculative copies), the whole tree mid-batch, and the queue manager under the tasks
EXECUTOR_FAULTS = ("kill_worker", "task_retries", "kill_tree", "qm_restart")


@pytest.mark.parametrize("index, fault", list(enumerate(EXECUTOR_FAULTS)), ids=list(EXECUTOR_FAULTS))
def test_read_mode_executors_loses_and_doubles_nothing(index, fault, tmp_path):
    seed = BASE_SEED + 100 + index
    pipeline = QUEUE_PIPELINES[seed % len(QUEUE_PIPELINES)]
    outcome = ChaosRun(tmp_path, pipeline, fault, seed, read_mode="executors").run()
    print(outcome.line())
    assert_landed_and_counted(outcome)


def assert_landed_and_counted(outcome: Outcome) -> None:
    replay = f" (replay: SPARK_MQ_CHAOS_SEED={BASE_SEED})"
    # task_retries is the rows' own failure, inside the job: there is nothing to land
    assert outcome.kills == 1 or outcome.fault == "task_retries", \
        outcome.line() + ": the fault did not land while the pipeline ran" + replay
    assert outcome.ok, outcome.line() + replay
