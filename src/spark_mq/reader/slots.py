"""The stream reader's MQ connections: each a `ConnectionSlot` holding one Consumer, used only
from its own thread (spark_mq.mq.worker), reconnecting when the connection is lost.

Open slots are backed out at interpreter exit: ibmmq's QueueManager.__del__ would MQDISC,
and MQDISC COMMITS open work (a held batch Spark may not have made durable yet)."""
from __future__ import annotations

import atexit
import logging
import weakref
from concurrent.futures import Future
from typing import Any

from spark_mq.mq.connecting import connect, connected_again, load_ibmmq, retry_while_lost
from spark_mq.mq.exceptions import MQConnectorError, connection_lost
from spark_mq.mq.worker import ConnectionThread
from spark_mq.options import ReadOptions

log = logging.getLogger(__name__)


class ConnectionSlot:
    """One MQ connection (a Consumer), used only from its own thread (spark_mq.mq.worker)."""

    def __init__(self, options: ReadOptions, index: int):
        self.options = options
        self.thread = ConnectionThread(f"spark-mq-reader-{index}")
        self.consumer = None
        self.closed = False
        self._poison_before = 0     # moved by this slot's earlier connections
        self._not_text_before = 0
        self.not_text_destination: str | None = None

    def _open(self):
        if self.consumer is None:
            from spark_mq.mq.consumer import open_consumer
            opts = self.options
            ibmmq = load_ibmmq(opts.connection.transport)
            self.consumer = open_consumer(ibmmq, connect(opts.connection), opts.queue,
                                          syncpoint=opts.syncpoint,
                                          read_ahead=opts.read_ahead and not opts.syncpoint,
                                          **consumer_settings(opts))
            self.not_text_destination = self.consumer.not_text_destination
            connected_again(reading_what(opts.queue))
        return self.consumer

    def submit(self, action) -> Future:
        return self.thread.submit(lambda: action(self._open()))

    def call(self, action):
        return self.submit(action).result()

    def call_retrying(self, action):
        """action(consumer), again on a new connection while the connection is lost, with
        back-off up to reconnectTimeoutMs (a broken connection backed its unit of work out,
        so starting again is safe)."""
        def attempt():
            try:
                return self.call(action)
            except MQConnectorError as exc:
                if connection_lost(exc):
                    self.reset()
                raise
        return retry_while_lost(self.options.connection, attempt,
                                reading_what(self.options.queue))

    @property
    def poison_moved(self) -> int:
        """Poison messages this slot's connections moved to the backout queue."""
        consumer = self.consumer
        return self._poison_before + (consumer.poison_moved if consumer is not None else 0)

    @property
    def not_text_moved(self) -> int:
        """requireText: messages that are not text this slot's connections moved (committed)."""
        consumer = self.consumer
        return self._not_text_before + (consumer.not_text_moved if consumer is not None else 0)

    @property
    def not_text_open(self) -> int:
        """requireText: moves in this slot's open unit of work."""
        consumer = self.consumer
        return consumer.not_text_open if consumer is not None else 0

    def _close_consumer(self) -> None:
        if self.consumer is not None:
            consumer, self.consumer = self.consumer, None
            self._poison_before += consumer.poison_moved
            self._not_text_before += consumer.not_text_moved
            try:
                consumer.close()  # backs out first: MQDISC alone would commit
            except Exception:  # noqa: BLE001 - it may be broken already
                pass

    def reset(self, timeout: float | None = None) -> None:
        self.thread.run(self._close_consumer, timeout)

    def close(self, timeout: float | None = None) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            self.reset(timeout)
        finally:
            self.thread.stop()


def consumer_settings(options: ReadOptions) -> dict[str, Any]:
    """The Consumer's keyword arguments the reader's options decide, whichever connection
    reads (a stream slot's, a readMode executors task's)."""
    return {"selector": options.selector, "backout_threshold": options.backout_threshold,
            "backout_queue": options.backout_queue, "conversion": options.conversion,
            "typed_properties": options.typed_properties, "require_text": options.require_text}


live_slots: weakref.WeakSet[ConnectionSlot] = weakref.WeakSet()


@atexit.register
def _back_out_on_exit() -> None:
    # MQDISC (ibmmq's QueueManager.__del__ at exit) would COMMIT held batches: back out first
    for slot in list(live_slots):
        try:
            slot.close(timeout=10)
        except Exception:  # noqa: BLE001 - best effort at interpreter exit
            pass


def reading_what(queue: str) -> str:
    """How a reader's reconnects name their work (in errors, and in connecting.outages)."""
    return f"reading queue {queue!r}"
