"""Fail points: places where a crash test makes the queue-manager process die, exactly there
and not after a guessed sleep. SPARK_MQ_FAULT=<point>[:<n>] in the process's environment
ends it (os._exit, as a SIGKILL would: nothing flushed, nothing committed) the n-th time
(default 1) execution passes `fail_point(<point>)`. Unset, a fail point costs one lookup."""
from __future__ import annotations

import os
import threading

_SPEC = os.environ.get("SPARK_MQ_FAULT", "")
_POINT, _, _COUNT = _SPEC.partition(":")
_remaining = [int(_COUNT) if _COUNT.isdigit() else 1]
_lock = threading.Lock()
#: the exit status of a process a fail point ended (128 + SIGKILL, as the shell shows a kill)
EXIT_STATUS = 137


def fail_point(name: str) -> None:
    if name != _POINT:
        return
    with _lock:
        _remaining[0] -= 1
        if _remaining[0] == 0:
            os._exit(EXIT_STATUS)
