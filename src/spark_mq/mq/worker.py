"""A thread that owns one MQ connection: every call on the connection runs on that thread.

IBM's MQI binds a connection handle to the thread that made it (unless MQCNO_HANDLE_SHARE_*
is set), so a connection that is used by a background prefetch and by the caller's commit
must do both on one thread. The thread is a daemon thread, so it still runs while atexit
handlers back out open units of work (ThreadPoolExecutor's threads are joined before that).
"""
from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any


class ConnectionThread:
    def __init__(self, name: str) -> None:
        # None asks the thread to stop
        self._calls: queue.Queue[tuple[Callable[[], Any], Future[Any]] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def submit(self, call: Callable[[], Any]) -> Future[Any]:
        future: Future[Any] = Future()
        self._calls.put((call, future))
        return future

    def run(self, call: Callable[[], Any], timeout: float | None = None) -> Any:
        return self.submit(call).result(timeout)

    def stop(self) -> None:
        self._calls.put(None)

    def _loop(self) -> None:
        while True:
            item = self._calls.get()
            if item is None:
                return
            call, future = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(call())
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                future.set_exception(exc)
