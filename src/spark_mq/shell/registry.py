"""The local registry: the embedded queue managers `spark-mq-qmgr start` ran on this machine
for this user, so that the client tools find one by its name (`--queue-manager QMB`) or its
data directory (`--data-dir DIR`) without being told its port, and `status` lists them.

A queue manager is its data directory: the ready file the queue-manager process writes once
it listens (spark_mq.embedded.data_directory.READY_FILE) says its name, host, port and pid, and
the lock it holds on the directory while it runs says whether it runs (a pid alone could
be one the system has reused since). The registry itself is only a list of data
directories, one small file each in ~/.spark-mq/registry/, written by `start`; the default
data directories (~/.spark-mq/NAME) are found without it. An entry whose data directory is
gone is dropped when the registry is read. Nothing here connects to anything.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from dataclasses import dataclass

from spark_mq.embedded.data_directory import LOCK_FILE, READY_FILE
from spark_mq.jobs.job_errors import JobError


@dataclass(frozen=True)
class LocalQueueManager:
    """One data directory's queue manager: where it listens (or listened) and whether it runs."""
    name: str
    data_dir: str
    host: str
    port: int | None
    pid: int | None
    running: bool

    @property
    def conn_name(self) -> str:
        return f"{connectable(self.host)}({self.port})"

    @property
    def state(self) -> str:
        return "running" if self.running else "stopped"


def home() -> str:
    return os.path.join(os.path.expanduser("~"), ".spark-mq")


def _registry_dir() -> str:
    return os.path.join(home(), "registry")


def _entry_path(data_dir: str) -> str:
    digest = hashlib.sha256(os.path.abspath(data_dir).encode()).hexdigest()[:20]
    return os.path.join(_registry_dir(), f"{digest}.json")


def record(data_dir: str, name: str, host: str) -> None:
    """Remember a data directory `start` runs a queue manager on (name and host for a ready
    file that does not say them yet)."""
    os.makedirs(_registry_dir(), mode=0o700, exist_ok=True)
    path = _entry_path(data_dir)
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w") as handle:
        json.dump({"data_dir": os.path.abspath(data_dir), "name": name, "host": host}, handle)
    os.replace(temporary, path)


def queue_managers() -> list[LocalQueueManager]:
    """Every queue manager of the registry and of the default data directories, by name."""
    found: dict[str, LocalQueueManager] = {}
    for data_dir, name, host in _candidates():
        if data_dir not in found:
            local = read(data_dir, name, host)
            if local is not None:
                found[data_dir] = local
    return sorted(found.values(), key=lambda qm: (qm.name, qm.data_dir))


def _candidates() -> list[tuple[str, str, str]]:
    """(data directory, name, host) of each registry entry, then of each default directory."""
    candidates = []
    registry = _registry_dir()
    for entry in sorted(os.listdir(registry)) if os.path.isdir(registry) else []:
        path = os.path.join(registry, entry)
        try:
            with open(path) as handle:
                recorded = json.load(handle)
            candidates.append((recorded["data_dir"], recorded["name"], recorded["host"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if not os.path.isdir(recorded["data_dir"]):
            with contextlib.suppress(OSError):
                os.unlink(path)     # the data directory was deleted: so is the queue manager
    root = home()
    for entry in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        candidates.append((os.path.join(root, entry), entry, "127.0.0.1"))
    return candidates


def read(data_dir: str, name: str | None = None, host: str = "127.0.0.1") -> LocalQueueManager | None:
    """The queue manager of a data directory, or None where none has ever listened."""
    data_dir = os.path.abspath(data_dir)
    try:
        with open(os.path.join(data_dir, READY_FILE)) as handle:
            ready = json.load(handle)
    except (OSError, ValueError):
        return None
    try:
        pid = running_pid(data_dir)
    except JobError:            # starting: it holds the directory, its ready file is older
        return None
    return LocalQueueManager(name=str(ready.get("name") or name or "?"), data_dir=data_dir,
                             host=str(ready.get("host") or host), port=ready.get("port"),
                             pid=pid if pid is not None else ready.get("pid"), running=pid is not None)


def running_pid(directory: str) -> int | None:
    """The pid of the queue manager holding `directory`, or None when none holds it."""
    lock = os.path.join(directory, LOCK_FILE)
    if not os.path.exists(lock):
        return None
    with open(lock) as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return _ready_pid(directory)
        fcntl.flock(handle, fcntl.LOCK_UN)
    return None


def _ready_pid(directory: str) -> int:
    try:
        with open(os.path.join(directory, READY_FILE)) as handle:
            return int(json.load(handle)["pid"])
    except (OSError, ValueError, KeyError):
        raise JobError(f"a queue manager holds {directory} but has not said its pid yet "
                       "(still starting?); try again") from None


def connectable(host: str) -> str:
    """The address a local client reaches a listener on `host` at."""
    return "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
