"""Channel chaos through a cluster (issue 36 item 1): persistent messages put through
cluster opens on both full repositories while the members' cluster-receivers are cut or
stopped and started, and one member queue manager is SIGKILLed and restarted; every message
counted after, on exactly one instance exactly once (see tests/chaos/clusters.py). The
seed is printed with the outcome; SPARK_MQ_CHAOS_SEED=<seed> replays it."""
from __future__ import annotations

import os
import random

import pytest

from chaos.clusters import ClusterChaos

SEED = int(os.environ.get("SPARK_MQ_CHAOS_SEED", random.randrange(1 << 30)))


@pytest.mark.timeout(900)
def test_cluster_channels_cut_stopped_and_a_member_killed_lose_and_double_nothing(tmp_path):
    ok, line = ClusterChaos(tmp_path, SEED, messages=1000, chunk=40).run()
    print(line)
    assert ok, line
