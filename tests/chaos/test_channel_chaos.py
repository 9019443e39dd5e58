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
    """Each message once on the target, its streaming queue's copy once, its COA report once."""
    ok, line = ChannelChaos(tmp_path, BASE_SEED, messages=2000, kills=6, reports=True).run()
    print(line)
    assert ok, line


@pytest.mark.timeout(600)
def test_the_same_through_a_secured_pair_users_chlauth_tls_and_a_named_mca_user(tmp_path):
    """The doors shut (issue 31): every message once, its context intact, though the receiver
    runs as `app` behind CHLAUTH and mutual TLS."""
    ok, line = ChannelChaos(tmp_path, BASE_SEED + 1, messages=1000, kills=4, secured=True).run()
    print(line)
    assert ok, line
