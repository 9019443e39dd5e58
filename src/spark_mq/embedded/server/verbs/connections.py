"""Connections: MQCONN and MQDISC, and MQOPEN and MQCLOSE, which go to pub/sub for a topic
or a subscription handle (verbs/pubsub/subscribe.py) and to handles.py for every other handle.

Runs in the queue-manager process, under the queue manager's lock (see qmgr.py).
"""
from __future__ import annotations

from collections.abc import Callable

from spark_mq.embedded.server.core.outcomes import NONE, MQError
from spark_mq.embedded.server.core.security import admission
from spark_mq.embedded.server.core.security.chlauth import Certificate
from spark_mq.embedded.server.core.state import Connection, Handle, QueueManagerState, os_user
from spark_mq.embedded.server.events import queue_manager as qmgr_events
from spark_mq.embedded.server.verbs import dynamic_queues, units_of_work
from spark_mq.embedded.server.verbs.handles import close_handle, handle_of, open_handle, release
from spark_mq.embedded.server.verbs.pubsub import subscribe as subscriptions
from spark_mq.mqi.constants import CMQC


# === connections =========================================================================
def connect(qm: QueueManagerState, user: str, password: str, appl_name: str,
            alive: Callable[[], bool], channel: str | None = None,
            address: str = "", peer_user: str | None = None,
            certificate: Certificate | None = None, token: str | None = None) -> Connection:
    """MQCONN through `channel` (None: bindings, whose process runs as `peer_user`, as the
    OS says) from `address`. Without users the queue manager is open and the connection
    runs as the MQCSP user or the OS user; with them core/security/admission.py decides who it
    runs as, or refuses it. An authentication token (`token`) is for client connections only:
    on bindings IBM MQ answers MQRC_FUNCTION_NOT_SUPPORTED."""
    if qm.quiescing:
        raise MQError(CMQC.MQRC_Q_MGR_QUIESCING)
    if token is not None and channel is None:
        raise MQError(CMQC.MQRC_FUNCTION_NOT_SUPPORTED)
    if qm.users is None:
        runs_as = user or peer_user or os_user()
    else:
        try:
            runs_as = admission.admit(qm, user, password, channel, address, peer_user,
                                      certificate, token)
        except MQError as exc:
            if exc.reason == CMQC.MQRC_NOT_AUTHORIZED:
                qmgr_events.connect_refused(qm, user or peer_user or "", appl_name,
                                            bool(password) or token is not None, channel, address)
            raise
    conn = Connection(next(qm.conn_ids), runs_as, appl_name, alive, channel=channel,
                      address=address if channel is not None else "")
    qm.connections[conn.conn_id] = conn
    return conn


def disconnect(qm: QueueManagerState, conn: Connection, clean: bool) -> int:
    """MQDISC commits open work; a broken connection backs it out. Either closes the handles
    still open, which deletes the temporary dynamic queues they created. Returns the reason."""
    reason = NONE
    if clean:
        try:
            units_of_work.commit(qm, conn)
        except MQError:
            units_of_work.backout(qm, conn)
            reason = CMQC.MQRC_BACKED_OUT
    else:
        units_of_work.backout(qm, conn)
    if any(handle.subscription is not None for handle in conn.handles.values()):
        subscriptions.disconnect(qm, conn)
    for handle in list(conn.handles.values()):
        release(qm, handle)
        dynamic_queues.delete_on_close(qm, handle, CMQC.MQCO_NONE)  # MQ closes them with MQCO_NONE
    conn.handles.clear()
    qm.connections.pop(conn.conn_id, None)
    return reason


# === open and close ======================================================================
def open_object(qm: QueueManagerState, conn: Connection, obj_type: int, name: str, options: int,
                selection: str | None, dynamic_name: str | None,
                alternate_user: str = "", qmgr_name: str = "") -> Handle:
    """MQOPEN (see handles.open_handle for the arguments)."""
    if obj_type == CMQC.MQOT_TOPIC:  # the topic string comes by the pub/sub verb TOPEN
        return subscriptions.open_topic(qm, conn, name, "", options, alternate_user)
    try:
        return open_handle(qm, conn, obj_type, name, options, selection, dynamic_name,
                           alternate_user, qmgr_name)
    except MQError as exc:
        qmgr_events.open_refused(qm, conn, obj_type, name, qmgr_name, options, exc.reason)
        raise


def close(qm: QueueManagerState, conn: Connection, hobj: int, options: int) -> None:
    """MQCLOSE; a failure leaves the handle open, as in MQ."""
    handle = handle_of(conn, hobj)
    if handle.subscription is not None:
        subscriptions.close(qm, conn, handle, options)
        return
    try:
        close_handle(qm, conn, handle, options)
    except MQError as exc:
        if exc.reason == CMQC.MQRC_NOT_AUTHORIZED:
            qmgr_events.close_refused(qm, conn, conn.user, handle.name)
        raise
