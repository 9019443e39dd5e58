"""Fail points: places where a crash test makes the queue-manager process die, exactly there
and not after a guessed sleep. SPARK_MQ_FAULT=<point>[:<n>] in the process's environment
ends it (os._exit, as a SIGKILL would: nothing flushed, nothing committed) the n-th time
(default 1) execution passes `fail_point(<point>)`. Unset, a fail point costs one lookup.

Pause points hold one thread of the process at a place instead, for a test of two threads'
interleaving: SPARK_MQ_PAUSE=<point>:<directory> makes the first thread that passes
`pause_point(<point>)` create <directory>/<point>.reached and then wait, blocked on reading
the FIFO <directory>/<point>.go (which the test makes beforehand) until the test writes to
it. The test waits for the .reached file, does what must happen meanwhile, and lets the
thread go: an order of events, no guessed sleep."""
from __future__ import annotations

import os
import threading
from pathlib import Path

_SPEC = os.environ.get("SPARK_MQ_FAULT", "")
_POINT, _, _COUNT = _SPEC.partition(":")
_remaining = [int(_COUNT) if _COUNT.isdigit() else 1]
_lock = threading.Lock()
_PAUSE_POINT, _, _PAUSE_DIR = os.environ.get("SPARK_MQ_PAUSE", "").partition(":")
_paused: list[str] = []
#: the exit status of a process a fail point ended (128 + SIGKILL, as the shell shows a kill)
EXIT_STATUS = 137


def fail_point(name: str) -> None:
    if name != _POINT:
        return
    with _lock:
        _remaining[0] -= 1
        if _remaining[0] == 0:
            os._exit(EXIT_STATUS)


def pause_point(name: str) -> None:
    if name != _PAUSE_POINT:
        return
    with _lock:
        if _paused:   # only the first thread to pass: the one the test is about
            return
        _paused.append(name)
    directory = Path(_PAUSE_DIR)
    (directory / f"{name}.reached").touch()
    with open(directory / f"{name}.go", "rb") as go:   # blocks until the test opens it to write
        go.read()
