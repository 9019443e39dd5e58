"""The identifiers a queue manager makes for messages (MQPMO_NEW_MSG_ID, NEW_CORREL_ID,
group ids, subscription ids): IBM MQ's shape, "AMQ " and the queue manager's name, then
bytes that make the id unique.

Unique, and not guessable from one another: an id that follows from the last one seen (a
counter, a clock) lets anyone who sees one message name the next, and a channel partner or
an application could then act on messages it never saw. So the unique part is a counter
passed through a keyed permutation of the 64-bit numbers: a 4-round Feistel network whose
round function is keyed BLAKE2b. A Feistel network is a bijection whatever its round
function, so distinct counter values give distinct ids (unique within a generator's life);
the key is random per generator (per process), so the ids of one do not tell the next.
Ids are therefore not increasing: nothing may rely on their order.
"""
from __future__ import annotations

import hashlib
import itertools
import os
from typing import Any

_HALF = (1 << 32) - 1
_ROUNDS = 4


class MessageIds:
    """24-byte ids: `prefix` (16 bytes) and the permuted counter (8 bytes)."""

    def __init__(self, prefix: bytes, start: int = 0, key: bytes | None = None) -> None:
        if len(prefix) != 16:
            raise ValueError(f"a message id prefix is 16 bytes, not {len(prefix)}")
        self.prefix = prefix
        self._rounds = round_functions(key if key is not None else os.urandom(32))
        self._counter = itertools.count(start)   # next() is atomic under the GIL

    def __call__(self) -> bytes:
        return self.prefix + permute(self._rounds, next(self._counter)).to_bytes(8, "big")


def round_functions(key: bytes) -> list[Any]:
    """The network's keyed round functions (BLAKE2b states to copy: cheaper than keying)."""
    return [hashlib.blake2b(key=key, digest_size=4, person=bytes([number]) * 16)
            for number in range(_ROUNDS)]


def permute(rounds: list[Any], value: int) -> int:
    """The 64-bit number `value` (taken modulo 2**64) maps to: a bijection."""
    left, right = (value >> 32) & _HALF, value & _HALF
    for function in rounds:
        state = function.copy()
        state.update(right.to_bytes(4, "big"))
        left, right = right, left ^ int.from_bytes(state.digest(), "big")
    return (left << 32) | right
