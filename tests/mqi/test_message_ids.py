"""Queue-manager-made message ids (mqi/message_ids.py): IBM's shape, unique within a
generator, and not to be guessed from the ids seen before (the attack of issue 31: a
receiver's forged record listing a sender's next MsgIds)."""
from __future__ import annotations

from spark_mq.mqi.message_ids import MessageIds, permute, round_functions

PREFIX = b"AMQ QM1         "


def test_ids_have_ibms_shape_and_are_unique():
    ids = MessageIds(PREFIX, start=1_700_000_000_000_000)
    made = [ids() for _ in range(100_000)]
    assert all(len(made_id) == 24 and made_id.startswith(PREFIX) for made_id in made)
    assert len(set(made)) == len(made)


def test_the_permutation_is_a_bijection_on_a_window_and_at_the_edges():
    rounds = round_functions(b"k" * 32)
    values = [*range(50_000), *range(2**64 - 50_000, 2**64)]
    images = {permute(rounds, value) for value in values}
    assert len(images) == len(values) and all(0 <= image < 2**64 for image in images)


def test_the_next_id_does_not_follow_from_the_last():
    """A counter's ids differ by one; these neither increase nor keep a step, and two
    generators (two processes) with the same prefix and start make different ids."""
    ids = MessageIds(PREFIX, start=42)
    tails = [int.from_bytes(ids()[16:], "big") for _ in range(1000)]
    steps = {after - before for before, after in zip(tails, tails[1:])}
    assert len(steps) > 990
    assert sum(after > before for before, after in zip(tails, tails[1:])) < 600
    assert MessageIds(PREFIX, start=42)() != MessageIds(PREFIX, start=42)()
