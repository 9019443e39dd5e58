"""The embedded queue manager: one façade over the MQI verbs, each concern in its own module.

Runs in the queue-manager process. `QueueManager` is what network/mqi_session.py and server_process.py
use; it holds the state (core/state.py's QueueManagerState) and delegates every verb to a
module of plain functions over that state (in this folder unless a path says otherwise):

    connections.py    MQCONN/MQDISC, MQOPEN/MQCLOSE (of topics and subscriptions: pubsub/)
    handles.py        object handles on queues, the queue manager, namelists: open, close
    dynamic_queues.py dynamic queues: created from a model by MQOPEN, deleted by MQCLOSE/MQDISC
    put.py            MQPUT/MQPUT1: MD defaults, groups, segmentation (to a topic: pubsub/)
    prepare_put.py    the MQPUT preamble a put to a queue and a publication share
    core/md_context.py the MD context and character fields, for puts to queues and topics
    get.py            MQGET and read-ahead batches: checks, waiting, delivery
    core/message_matching.py which message a get returns (match options, cursors, selectors)
    core/property_rules.py message properties: MAXPROPL at put, PROPCTL at get
    units_of_work.py  MQCMIT/MQBACK
    inquire.py        MQINQ/MQSET
    async_status.py   asynchronous put outcomes and MQSTAT
    definitions.py    start-up recovery and MQSC DEFINE/ALTER/DELETE/CLEAR

Composition by functions rather than mixins: the modules do not know about each other's
classes, only about the shared state, and the lock is taken in one place, here. Everything
runs under that one lock: a server thread per connection calls these methods, and MQ's
ordering and unit-of-work rules are simplest to keep when only one verb changes state at
a time (a waiting MQGET lets the lock go while it sleeps on `arrived`). Taking no lock here:
the async-put counters and MQSTAT (per connection, touched only by that connection's own
thread), and the MQSC definition commands (admin/mqsc_apply.run_mqsc holds the lock for a whole script).

Verbs report failures by raising core/outcomes.MQError(reason); the listener turns that into the
(CompCode, Reason) pair the MQI returns.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from spark_mq.embedded.server.core.queue_objects import DEFAULT_QUEUE_MEMORY
from spark_mq.embedded.server.core.security.admission import FailedAuthentication
from spark_mq.embedded.server.core.security.chlauth import Certificate
from spark_mq.embedded.server.core.state import Connection, Handle, QueueManagerState
from spark_mq.embedded.server.events import queue_manager as qmgr_events
from spark_mq.embedded.server.verbs import async_status, connections, definitions, inquire, units_of_work
from spark_mq.embedded.server.verbs import get as get_verb
from spark_mq.embedded.server.verbs import put as put_verb


class QueueManager(QueueManagerState):
    """The queue manager's verbs, each under the lock; the state comes from QueueManagerState."""

    def __init__(self, name: str, data_dir: str, users: dict[str, str] | None = None,
                 queue_memory: int = DEFAULT_QUEUE_MEMORY):
        super().__init__(name, data_dir, users, queue_memory)
        # client requests between their verb and their answer (`answering`); a lock of its
        # own: counting must not wait for the queue manager's lock, which a get may hold
        self._in_flight = 0
        self._in_flight_changed = threading.Condition(threading.Lock())
        definitions.recover(self)

    # === definitions (admin/mqsc_apply.run_mqsc holds the lock) =====================================
    def define(self, kind: str, name: str, attrs: dict, replace: bool) -> None:
        definitions.define(self, kind, name, attrs, replace)

    def alter(self, kind: str, name: str, attrs: dict) -> None:
        definitions.alter(self, kind, name, attrs)

    def alter_qmgr(self, attrs: dict) -> None:
        definitions.alter_qmgr(self, attrs)

    def delete(self, kind: str, name: str, purge: bool) -> None:
        definitions.delete(self, kind, name, purge)

    def clear(self, name: str) -> int:
        return definitions.clear(self, name)

    # === connections and handles =========================================================
    def connect(self, user: str, password: str, appl_name: str, alive: Callable[[], bool],
                channel: str | None = None, address: str = "",
                peer_user: str | None = None,
                certificate: Certificate | None = None, token: str | None = None) -> Connection:
        try:
            with self.lock:  # the connection joins the queue manager's list of them
                return connections.connect(self, user, password, appl_name, alive, channel,
                                           address, peer_user, certificate, token)
        except FailedAuthentication as failed:
            # the AUTHINFO's FAILDLAY, waited out in this connection's own thread after the
            # lock is let go: other connections go on meanwhile, as in MQ
            time.sleep(failed.delay)
            raise

    def disconnect(self, conn: Connection, clean: bool) -> int:
        """MQDISC commits open work; a broken connection backs it out. Returns the reason."""
        with self.lock:
            return connections.disconnect(self, conn, clean)

    def open(self, conn: Connection, obj_type: int, name: str, options: int,
             selection: str | None, dynamic_name: str, alternate_user: str = "",
             qmgr_name: str = "") -> Handle:
        with self.lock:
            return connections.open_object(self, conn, obj_type, name, options, selection,
                                           dynamic_name, alternate_user, qmgr_name)

    def close(self, conn: Connection, hobj: int, options: int) -> None:
        with self.lock:
            connections.close(self, conn, hobj, options)

    # === put and get =====================================================================
    def put(self, conn: Connection, hobj: int, md_bytes: bytes, pmo_options: int,
            context_hobj: int, props: list | None, body: bytes) -> bytes:
        with self.lock:
            return put_verb.put(self, conn, hobj, md_bytes, pmo_options, context_hobj, props, body)

    def put1(self, conn: Connection, name: str, md_bytes: bytes, pmo_options: int,
             context_hobj: int, props: list | None, body: bytes, alternate_user: str = "",
             qmgr_name: str = "") -> bytes:
        with self.lock:
            return put_verb.put1(self, conn, name, md_bytes, pmo_options, context_hobj, props, body,
                                 alternate_user, qmgr_name)

    def get(self, conn: Connection, hobj: int, md_bytes: bytes, gmo_bytes: bytes,
            max_length: int, has_handle: bool, non_persistent_only: bool = False) -> tuple:
        """One MQGET. Returns (comp_code, reason, md, gmo, data, total_length, props)."""
        with self.lock:
            return get_verb.get(self, conn, hobj, md_bytes, gmo_bytes, max_length, has_handle,
                                non_persistent_only)

    def get_batch(self, conn: Connection, hobj: int, gmo_bytes: bytes, has_handle: bool,
                  max_count: int, max_bytes: int) -> list:
        """Read-ahead: up to max_count non-persistent messages, as get results."""
        with self.lock:
            return get_verb.get_batch(self, conn, hobj, gmo_bytes, has_handle, max_count, max_bytes)

    # === units of work ===================================================================
    def commit(self, conn: Connection) -> None:
        with self.lock:
            units_of_work.commit(self, conn)

    def backout(self, conn: Connection) -> None:
        with self.lock:
            units_of_work.backout(self, conn)

    # === status, inquire, set ============================================================
    def record_async(self, conn: Connection, comp_code: int, reason: int, name: str) -> None:
        async_status.record_async(conn, comp_code, reason, name)

    def stat(self, conn: Connection, stat_type: int, sts_bytes: bytes) -> bytes:
        return async_status.stat(self, conn, stat_type, sts_bytes)

    def inquire(self, conn: Connection, hobj: int, selectors: list[int]) -> tuple[list, bytes, bool]:
        with self.lock:
            return inquire.inquire(self, conn, hobj, selectors)

    def set(self, conn: Connection, hobj: int, selectors: list[int], ints: list[int],
            chars: bytes) -> None:
        with self.lock:
            inquire.set_attributes(self, conn, hobj, selectors, ints, chars)

    # === stopping ========================================================================
    @contextmanager
    def answering(self) -> Iterator[None]:
        """Around one client request, from its verb to its answer sent: `shutdown` waits for
        the requests in flight, so that a waiting get's MQRC_Q_MGR_QUIESCING reaches its client."""
        with self._in_flight_changed:
            self._in_flight += 1
        try:
            yield
        finally:
            with self._in_flight_changed:
                self._in_flight -= 1
                if not self._in_flight:
                    self._in_flight_changed.notify_all()

    def shutdown(self, grace: float = 0.5) -> None:
        """Clean stop: waiting gets are answered (MQRC_Q_MGR_QUIESCING or MQRC_Q_MGR_STOPPING),
        then the store is closed. Open units of work are not written, so they are backed out,
        as MQ does. The answers are waited for, not a fixed time: `grace` seconds at most,
        for a client that does not read its answer."""
        with self.lock:
            qmgr_events.stopping(self)
            self.quiescing = True
            self.arrived.notify_all()
        with self._in_flight_changed:
            self._in_flight_changed.wait_for(lambda: not self._in_flight, grace)
        with self.lock:
            self.store.close()

