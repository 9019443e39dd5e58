"""CBWAIT: one wait over every message consumer of a connection (asynchronous consume, MQCB).

Runs in the queue-manager process, for client/async_consume.py in the application's
process. A connection's consumers (one per object handle, registered with MQCB) must all
be served through the connection's one session, because a consumer that gets under
syncpoint gets into the connection's unit of work, and the session answers one call at a
time. So the client does not wait on each handle; it sends the consumers it has started,
each with its MQMD, MQGMO and buffer length, and this verb waits for the first of them that
has a message:

    request  ["CBWAIT", [[hobj, md, gmo, max_length, has_handle, batch], ...], wait_ms, first]
    answer   [OK, NONE, index, [get result, ...]]     index: the consumer served
             [OK, NONE, -1, []]                       wait_ms passed with nothing for anyone

Each get is the ordinary MQGET without MQGMO_WAIT (get.py: match options, selectors, browse
cursors, units of work), tried in turn from consumer `first` so that a busy queue cannot
starve the others. A consumer whose get fails for its own reason (MQRC_GET_INHIBITED,
MQRC_HOBJ_ERROR ...) is answered with that failure as its one result, for the client to
report to that consumer alone. `batch` > 1 asks for up to that many non-persistent messages
at once (read-ahead, get.get_batch), for consumers that get outside syncpoint. A quiescing
queue manager fails the whole wait (MQRC_Q_MGR_QUIESCING): an event for the connection.

The wait is bounded by the client (`wait_ms`): while it lasts, the session reads nothing
from the socket, and the client must be able to stop or suspend consumption soon.
"""
from __future__ import annotations

import struct
import time

from spark_mq.embedded.server.core.outcomes import FAILED, MQError
from spark_mq.embedded.server.core.state import Connection, QueueManagerState
from spark_mq.embedded.server.verbs import get as get_verb
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import GMO

_OPTIONS_AT = GMO.offsets["Options"]
_INT = struct.Struct("=i")  # MQLONG, in the client's (native) encoding
_MAX_WAIT_MS = 60_000  # no client asks for more; a bound keeps a bad frame from pinning a thread
_TICK = 0.25           # as a waiting MQGET: notices quiescing and a vanished client


def wait_for_consumers(qm: QueueManagerState, conn: Connection, consumers: list, wait_ms: int,
                       first: int) -> list:
    """[index, results] for the first consumer with a message (or its own failure), or
    [-1, []] when `wait_ms` passes. Raises MQError for what ends the whole wait. With no
    consumers it only waits: the client's event handler learns of quiescing that way."""
    requests = [(hobj, md, _without_wait(gmo), max_length, has_handle, batch)
                for hobj, md, gmo, max_length, has_handle, batch in consumers]
    order = [(first + step) % len(requests) for step in range(len(requests))]
    deadline = time.monotonic() + min(max(wait_ms, 0), _MAX_WAIT_MS) / 1000.0
    with qm.lock:
        while True:
            for index in order:
                results = _try(qm, conn, *requests[index])
                if results:
                    return [index, results]
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return [-1, []]
            qm.arrived.wait(min(remaining, _TICK))
            if qm.quiescing:
                raise MQError(CMQC.MQRC_Q_MGR_QUIESCING)
            if not conn.alive():
                raise MQError(CMQC.MQRC_CONNECTION_BROKEN)


def _without_wait(gmo: bytes) -> bytes:
    """The consumer's MQGMO without MQGMO_WAIT: this verb does the waiting, for all of them."""
    options = _INT.unpack_from(gmo, _OPTIONS_AT)[0] & ~CMQC.MQGMO_WAIT
    return gmo[:_OPTIONS_AT] + _INT.pack(options) + gmo[_OPTIONS_AT + 4:]


def _try(qm: QueueManagerState, conn: Connection, hobj: int, md: bytes, gmo: bytes,
         max_length: int, has_handle: bool, batch: int) -> list:
    """The results of one consumer's get: [] when it has no message."""
    try:
        if batch > 1:
            results = get_verb.get_batch(qm, conn, hobj, gmo, has_handle, batch, 4 << 20)
            if results:
                return [list(result) for result in results]
            # only a persistent message is there: it is delivered on its own, never buffered
        return [list(get_verb.get(qm, conn, hobj, md, gmo, max_length, has_handle))]
    except MQError as exc:
        if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
            return []
        return [[exc.comp_code if exc.comp_code else FAILED, exc.reason]]
