"""The fuzz lane's budget and guards: a fixed number of examples per target (the whole lane
some 30 s), no example database (a run is what the seed gives), and each test under a cap on
the process's address space, so that an input that makes a parser blow memory fails as a
MemoryError in that test instead of taking the machine's memory."""
from __future__ import annotations

import os
import resource
from collections.abc import Iterator
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, settings

#: examples per target in the suite; bench/fuzz_long.py runs far more
EXAMPLES = int(os.environ.get("SPARK_MQ_FUZZ_EXAMPLES", "400"))
#: room above what the test process already maps
MEMORY_HEADROOM = 1 << 30

settings.register_profile(
    "suite", max_examples=EXAMPLES, database=None, print_blob=True,
    # a parser taking seconds on an input of a few KiB is a finding, even on a busy machine
    deadline=timedelta(seconds=3),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile("suite")


def _mapped_bytes() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[0]) * resource.getpagesize()


@pytest.fixture(autouse=True)
def bounded_memory(request: pytest.FixtureRequest) -> Iterator[None]:
    if "qm" in request.fixturenames:
        # a test that talks to a queue manager may start it: its process would inherit the cap
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = _mapped_bytes() + MEMORY_HEADROOM
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))  # a soft limit may go back up
