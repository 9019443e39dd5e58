"""Killing real process trees the way a crash does.

`os.killpg` on a Spark driver started in its own session does NOT reach the Python workers:
pyspark's daemon puts each worker in a process group of its own (`os.setpgid(0, 0)`). The
tree is therefore found through /proc (parent links), frozen with SIGSTOP so that nothing in
it runs on (a worker would otherwise race to commit what it holds), and then killed."""
from __future__ import annotations

import os
import signal
from pathlib import Path


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # the command name may hold spaces and parentheses: fields follow the last ')'
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == pid:
            found.append(int(entry.name))
    return found


def process_tree(pid: int) -> list[int]:
    """pid and every process descended from it."""
    tree, pending = [], [pid]
    while pending:
        current = pending.pop()
        tree.append(current)
        pending.extend(children_of(current))
    return tree


def _signal_all(pids, sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def kill_tree(pid: int) -> list[int]:
    """SIGKILL pid and all its descendants at one instant (frozen first); returns them."""
    frozen: list[int] = []
    while True:       # freeze until no new process appears (a fork may be under way)
        new = [p for p in process_tree(pid) if p not in frozen]
        if not new:
            break
        _signal_all(new, signal.SIGSTOP)
        frozen.extend(new)
    _signal_all(frozen, signal.SIGKILL)
    return frozen
