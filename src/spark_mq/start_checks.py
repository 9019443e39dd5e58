"""Checks against the queue manager made when a query starts, so that bad input fails at
start rather than in the first batch: remembered for a while, because Spark builds new
reader and writer objects on the driver for later microbatches (the stream writer's
commit, for one), and one check a minute is enough."""
from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import TypeVar

T = TypeVar("T")

_PASSED: dict[Hashable, tuple[float, object]] = {}
_TTL_SECONDS = 60.0


def checked_once(key: Hashable, check: Callable[[], T]) -> T:
    """`check()`'s result, reused for a minute after it last succeeded for `key`."""
    now = time.monotonic()
    passed = _PASSED.get(key)
    if passed is not None and now - passed[0] < _TTL_SECONDS:
        return passed[1]  # type: ignore[return-value]
    result = check()
    _PASSED[key] = (now, result)
    return result
