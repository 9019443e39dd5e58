"""Telling the driver-side stream reader that Spark's commit log has a batch, so MQ catches up
at once instead of at the next trigger, and a stopped query leaves MQ matching its sink.

What the reader process learns from Spark itself (pyspark 4.3, checked with a real run):
`latestOffset(start)` of the next trigger is the first call after batch N is in the commit
log; with a processing-time interval that is up to an interval later, and after the last
batch there is none. `query.stop()` does not call the reader: Spark sends its process
SIGTERM (`Process.destroy()`, sometimes twice) and does not wait for it; a batch that had
finished is in the commit log by then. The reader cannot read the commit log itself: Spark
does not tell a Python source where the checkpoint is (and it may be on HDFS or S3).

Spark posts the query's progress event, with each source's end offset, right after the
commit log has the batch (MicroBatchExecution.runBatch, then finishTrigger), on its listener
bus, which delivers it some milliseconds later (measured: 100-500 ms, so often after a stop
that follows the batch at once). So:

* `spark_mq.register(spark)` (classic sessions) adds `CommitListener` in the application's
  process and a *hub*: a Unix socket in a private folder (0700: only this user connects),
  named after the pid of the driver's JVM, which both sides know (the reader's process is
  the JVM's child);
* the reader (pyspark's source-runner process only) connects to the hub at its first offset,
  says its random id, and puts the id in every offset it returns (`"notify"`);
* for each progress event, the listener sends each mq source's end offset to its reader as
  `{"committed": end}`: every batch up to `end` is in the commit log, so the reader MQCMITs
  the batches it holds up to there (the claims and records, in readMode executors);
* on SIGTERM, a connected reader says `stopping`; the hub waits until the listener bus has
  delivered every event posted so far (`LiveListenerBus.waitUntilEmpty`): progress events of
  batches that finished before the stop come first, so their notes reach the reader (on the
  same connection, in order) before the hub's `verdict`; then the reader dies, and the
  broken connections back out what it still holds: the batch in flight, not in the commit
  log (and any prefetched one).

Nothing is committed on anything but Spark's own word: the end offsets come only from
progress events, which Spark posts after the commit log has the batch. Without the hub
(Spark found format("mq") by itself and nothing called register, Spark Connect, whose
listeners do not run in the driver's process, or a driver on another machine than the
application) the reader behaves as before: the batch finished last is committed at the next
trigger, or removed by id at the next start.
"""
from __future__ import annotations

import atexit
import functools
import json
import logging
import os
import signal
import socket
import sys
import tempfile
import threading
import uuid
from collections.abc import Callable
from types import FrameType
from typing import Any

log = logging.getLogger(__name__)

#: the longest a stopped reader waits for the hub's verdict (seconds)
VERDICT_TIMEOUT = 30.0
#: the longest `await_settled` waits for a stopped query's readers (seconds)
SETTLE_TIMEOUT = 60.0
_RUNNER = "pyspark.sql.streaming.python_streaming_source_runner"


def in_source_runner() -> bool:
    """Whether this process is pyspark's driver-side streaming source runner (not a test or
    an executor calling the reader)."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return getattr(spec, "name", None) == _RUNNER


def _hub_folder() -> str | None:
    """This user's private folder for hubs, made if missing; None if it is not private."""
    folder = os.path.join(tempfile.gettempdir(), f"spark-mq-{os.getuid()}")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        info = os.stat(folder)
    except OSError:
        return None
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        log.warning("%s is not private to this user: no commit notes", folder)
        return None
    return folder


def hub_path(jvm_pid: int) -> str | None:
    folder = _hub_folder()
    return os.path.join(folder, f"driver-{jvm_pid}.sock") if folder else None


def _send(peer: socket.socket, lock: threading.Lock, note: dict) -> bool:
    try:
        with lock:
            peer.sendall(json.dumps(note).encode("utf-8") + b"\n")
        return True
    except OSError:
        return False


# --- the reader's end ------------------------------------------------------------------------
class CommitChannel:
    """The reader's connection to the hub: notes go to `on_committed` (on the channel's thread;
    the reader serialises it with Spark's own calls)."""

    def __init__(self, path: str, on_committed: Callable[[dict], None]) -> None:
        self.id = uuid.uuid4().hex[:16]
        self._on_committed = on_committed
        self._peer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._peer.connect(path)
        self._lock = threading.Lock()
        self.verdict = threading.Event()
        _send(self._peer, self._lock, {"reader": self.id})
        threading.Thread(target=self._serve, name="spark-mq-commit-notes", daemon=True).start()

    def _serve(self) -> None:
        try:
            for line in self._peer.makefile("r", encoding="utf-8"):
                note = json.loads(line)
                if "committed" in note:
                    self._on_committed(note["committed"])
                if note.get("verdict"):
                    self.verdict.set()
        except Exception as exc:  # noqa: BLE001 - a bad note must not end the reader
            log.warning("commit notes: %s", exc)
        finally:
            self.verdict.set()      # the application went: no word will come

    def await_verdict(self, timeout: float) -> None:
        if not _send(self._peer, self._lock, {"stopping": True}):
            return
        if not self.verdict.wait(timeout):
            log.warning("no word from the application within %.0f s of the stop: the batch "
                        "finished last is settled at the next start", timeout)


_channel: CommitChannel | None = None
_tried = False
_busy = threading.Event()       # set while one of Spark's calls into the reader runs


def open_channel(on_committed: Callable[[dict], None]) -> CommitChannel | None:
    """The reader's channel, in pyspark's source runner (one reader per runner process) when
    the application has a hub, with the SIGTERM handler that waits for its verdict."""
    global _channel, _tried
    if _tried:
        return _channel
    _tried = True
    if not in_source_runner():
        return None
    path = hub_path(os.getppid())
    if path is None or not os.path.exists(path):
        return None
    try:
        _channel = CommitChannel(path, on_committed)
    except OSError as exc:
        log.warning("no commit notes for this reader (%s): a stopped query's last batch is "
                    "settled at its next start", exc)
        return None
    signal.signal(signal.SIGTERM, _on_sigterm)
    return _channel


_stopping = threading.Event()


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    if _stopping.is_set():      # Spark's stop may send SIGTERM twice
        return
    _stopping.set()
    if _channel is not None and not _busy.is_set():
        _channel.await_verdict(VERDICT_TIMEOUT)
    # die as before: the broken connections back out what is still open (MQDISC would commit)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)


class TakesCommitNotes:
    """What a stream reader adds to take the listener's notes: `notify_id()` for its offsets,
    and `settle_committed(end)`, which the channel's thread calls one at a time with Spark's
    own calls (`one_at_a_time`)."""

    _notes_lock_obj: threading.RLock | None = None

    @property
    def notes_lock(self) -> threading.RLock:
        if self._notes_lock_obj is None:
            self._notes_lock_obj = threading.RLock()
        return self._notes_lock_obj

    def notify_id(self) -> str | None:
        """The id this reader's offsets carry for the listener; None without a hub."""
        channel = open_channel(self._on_note)
        return channel.id if channel is not None else None

    def _on_note(self, end: dict) -> None:
        with self.notes_lock:
            self.settle_committed(end)

    def settle_committed(self, end: dict) -> None:
        raise NotImplementedError


def one_at_a_time(*names: str) -> Callable[[type], type]:
    """Class decorator: Spark's calls `names` hold the reader's notes lock, and mark the
    process busy, so a stop that lands in one does not wait for the listener (the reader's
    state is mid-change; MQ backs the open work out)."""
    def decorate(cls: type) -> type:
        for name in names:
            setattr(cls, name, _held_call(getattr(cls, name)))
        return cls
    return decorate


def _held_call(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(self: TakesCommitNotes, *args: Any, **kwargs: Any) -> Any:
        with self.notes_lock:
            # the outermost call marks it: a reader over several queue managers calls its
            # members' (spark_mq/reader/queue_managers.py), on threads of its own
            outermost = not _busy.is_set()
            _busy.set()
            try:
                return method(self, *args, **kwargs)
            finally:
                if outermost:
                    _busy.clear()
    return call


# --- the application's end: the hub and the listener -------------------------------------
class _Hub:
    """The readers of this driver, by id: the listener's notes go to them, and a stopping
    reader gets its verdict once the listener bus is empty (module docstring)."""

    def __init__(self, path: str, drain: Callable[[], None]) -> None:
        self.path = path
        self.drain = drain      # waits until the listener bus has delivered what was posted
        self._lock = threading.Lock()
        self.gone = threading.Condition(self._lock)
        self._readers: dict[str, tuple[socket.socket, threading.Lock]] = {}
        if os.path.exists(path):
            os.remove(path)     # a hub of an earlier JVM with the same pid
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(path)
        self._server.listen(16)
        atexit.register(self.close)
        threading.Thread(target=self._accept, name="spark-mq-hub", daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                peer, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(peer,), name="spark-mq-hub-reader",
                             daemon=True).start()

    def _serve(self, peer: socket.socket) -> None:
        reader, lock = None, threading.Lock()
        try:
            for line in peer.makefile("r", encoding="utf-8"):
                note = json.loads(line)
                if "reader" in note:
                    reader = str(note["reader"])
                    with self._lock:
                        self._readers[reader] = (peer, lock)
                if note.get("stopping"):
                    self.drain()
                    _send(peer, lock, {"verdict": True})
        except Exception as exc:  # noqa: BLE001 - one reader's trouble is not the application's
            log.debug("commit notes hub: %s", exc)
        finally:
            with self.gone:
                if reader is not None:
                    self._readers.pop(reader, None)
                self.gone.notify_all()
            peer.close()

    def close(self) -> None:
        self._server.close()
        try:
            os.remove(self.path)
        except OSError:
            pass

    def tell(self, reader: str, note: dict) -> None:
        with self._lock:
            found = self._readers.get(reader)
        if found is not None:
            _send(found[0], found[1], note)

    def await_gone(self, readers: set[str], timeout: float) -> bool:
        with self.gone:
            return self.gone.wait_for(lambda: not readers & self._readers.keys(), timeout)


_hub: _Hub | None = None


def _notify_id(offset_json: str | None) -> tuple[str, dict] | None:
    if not offset_json or '"notify"' not in offset_json:
        return None
    try:
        offset = json.loads(offset_json)
    except ValueError:
        return None
    if isinstance(offset, dict) and isinstance(offset.get("notify"), str):
        return offset["notify"], offset
    return None


def make_listener() -> Any:
    """A StreamingQueryListener that tells the mq readers what Spark committed."""
    from pyspark.sql.streaming import StreamingQueryListener

    class CommitListener(StreamingQueryListener):
        """Spark posts a progress event once the batch is in the commit log: its mq sources'
        end offsets go to their readers (module docstring)."""

        def onQueryStarted(self, event: Any) -> None:
            pass

        def onQueryProgress(self, event: Any) -> None:
            for source in event.progress.sources:
                found = _notify_id(source.endOffset)
                if found is not None and _hub is not None:
                    _hub.tell(found[0], {"committed": found[1]})

        def onQueryIdle(self, event: Any) -> None:
            pass

        def onQueryTerminated(self, event: Any) -> None:
            pass

    return CommitListener()


def add_listener(spark: Any) -> None:
    """The hub (one per driver JVM) and the listener (one per session), for classic sessions
    only: a Spark Connect client is not the driver's process (module docstring)."""
    global _hub
    try:
        if getattr(spark, "_spark_mq_listener", None) is not None:
            return
        jvm_pid = int(spark._jvm.java.lang.ProcessHandle.current().pid())
        bus = spark._jsc.sc().listenerBus()
    except Exception:  # noqa: BLE001 - Spark Connect, or Spark's internals changed
        return
    path = hub_path(jvm_pid)
    if path is None:
        return
    timeout_ms = int(VERDICT_TIMEOUT * 1000 * 0.8)

    def drain() -> None:
        try:
            bus.waitUntilEmpty(timeout_ms)
        except Exception as exc:  # noqa: BLE001 - Spark stopping: what was delivered is all
            log.debug("waiting for the listener bus: %s", exc)

    if _hub is None or _hub.path != path:
        if _hub is not None:
            _hub.close()
        _hub = _Hub(path, drain)
    _hub.drain = drain
    listener = make_listener()
    spark.streams.addListener(listener)
    spark._spark_mq_listener = listener


def await_settled(query: Any, timeout: float = SETTLE_TIMEOUT) -> bool:
    """After `query.stop()`: wait until the query's mq readers that delivered a batch have
    settled it in MQ and ended (at once when this process has no hub)."""
    if _hub is None:
        return True
    readers = set()
    for progress in query.recentProgress:
        for source in progress.get("sources", []) if isinstance(progress, dict) else []:
            found = _notify_id(source.get("endOffset") if isinstance(source.get("endOffset"), str)
                               else json.dumps(source.get("endOffset")))
            if found is not None:
                readers.add(found[0])
    return _hub.await_gone(readers, timeout)
