"""The short channel chaos run (part of the README's test command): 2,000 persistent
messages through a channel while its two queue managers and the channel itself are killed
at random moments; every message counted after (see tests/chaos/channels.py). The seed is
printed with the outcome; SPARK_MQ_CHAOS_SEED=<seed> replays it. The long form is
bench/channel_chaos.py."""
from __future__ import annotations

import os
import random

import pytest

from chaos.channels import ChannelChaos

BASE_SEED = int(os.environ.get("SPARK_MQ_CHAOS_SEED", random.randrange(1 << 30)))


@pytest.mark.timeout(600)
def test_kills_of_either_queue_manager_and_the_channel_lose_and_double_nothing(tmp_path):
    ok, line = ChannelChaos(tmp_path, BASE_SEED, messages=2000, kills=6).run()
    print(line)
    assert ok, line
