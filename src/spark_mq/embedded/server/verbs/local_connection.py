"""A message channel agent's own connection to this queue manager: the MQI calls it makes,
in-process, through QueueManager (which takes the queue manager's lock for each call and
lets it go while a get waits), so that no network wait ever holds the lock.

The connection is the queue manager's own (mqm, as IBM MQ's agent process runs), for the
agent's bookkeeping: its sync records, the dead-letter queue. The queues a receiver puts
messages to are opened with `open_as`, checked for the user the agent acts for (its
MCAUSER), as MQ checks authority when a queue is opened; the handle's puts then share the
connection's unit of work with the sync record, so a batch and its record still commit as
one."""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.state import Connection
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import GMO, MD, default_md

if TYPE_CHECKING:
    from spark_mq.embedded.server.verbs.qmgr import QueueManager

#: the largest transmission message: IBM MQ's largest message and its headers
MAX_MESSAGE = 104_857_600 + 4096


class Got(NamedTuple):
    md: list
    data: bytes
    props: list | None


def gmo(options: int, wait_ms: int = 0, match: int = CMQC.MQMO_NONE) -> bytes:
    return GMO.pack([b"GMO ", CMQC.MQGMO_VERSION_4, options, wait_ms, 0, 0, b"", match,
                     ord(" "), ord(" "), ord(" "), b" ", b"", CMQC.MQRL_UNDEFINED, 0, 0])


class LocalConnection:
    """An internal connection (no password, as IBM MQ's own processes) running as `user`."""

    def __init__(self, qmgr: QueueManager, user: str, appl_name: str) -> None:
        self.qmgr = qmgr
        with qmgr.lock:
            self.conn = Connection(next(qmgr.conn_ids), user, appl_name, agent=True)
            qmgr.connections[self.conn.conn_id] = self.conn

    def open(self, name: str, options: int, qmgr_name: str = "", alternate_user: str = "") -> int:
        return self.qmgr.open(self.conn, CMQC.MQOT_Q, name, options, None, "", alternate_user,
                              qmgr_name).hobj

    def open_as(self, user: str, name: str, options: int, qmgr_name: str = "",
                alternate_user: str = "") -> int:
        """MQOPEN checked for `user` instead of the connection's own (its authority, and
        ALTUSR and the context authorities for it with an alternate user)."""
        with self.qmgr.lock:
            own, self.conn.user = self.conn.user, user
            try:
                return self.open(name, options, qmgr_name, alternate_user)
            finally:
                self.conn.user = own

    def queue_of(self, hobj: int) -> str:
        """The local queue a handle resolved to ("" for none, e.g. a transmission queue's
        remote destination is still a local queue)."""
        handle = self.conn.handles.get(hobj)
        queue = None if handle is None else handle.queue
        return "" if queue is None else str(queue.name)

    def put(self, hobj: int, md: list, options: int, props: list | None, data: bytes) -> list:
        """MQPUT; returns the MQMD as put."""
        return MD.unpack(self.qmgr.put(self.conn, hobj, MD.pack(md), options, 0, props, data))

    def close_handle(self, hobj: int) -> None:
        self.qmgr.close(self.conn, hobj, CMQC.MQCO_NONE)

    def get(self, hobj: int, options: int, wait_ms: int = 0, msg_id: bytes | None = None,
            correl_id: bytes | None = None) -> Got | None:
        """One message (matched by MsgId or CorrelId when given), or None when there is none
        (within `wait_ms`)."""
        fields = {"MsgId": msg_id} if msg_id else {"CorrelId": correl_id} if correl_id else {}
        md = MD.pack(default_md(**fields))
        match = (CMQC.MQMO_MATCH_MSG_ID if msg_id else
                 CMQC.MQMO_MATCH_CORREL_ID if correl_id else CMQC.MQMO_NONE)
        try:
            _, _, md_out, _, data, _, props = self.qmgr.get(
                self.conn, hobj, md, gmo(options | CMQC.MQGMO_PROPERTIES_IN_HANDLE, wait_ms, match),
                MAX_MESSAGE, True)
        except MQError as exc:
            if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                return None
            raise
        return Got(MD.unpack(md_out), data, props)

    def put1(self, name: str, qmgr_name: str, md: list, options: int, props: list | None,
             data: bytes, alternate_user: str = "") -> None:
        self.qmgr.put1(self.conn, name, MD.pack(md), options, 0, props, data, alternate_user,
                       qmgr_name)

    def commit(self) -> None:
        self.qmgr.commit(self.conn)

    def backout(self) -> None:
        self.qmgr.backout(self.conn)

    def close(self, clean: bool = False) -> None:
        """Disconnect; not clean: the open unit of work is backed out."""
        self.qmgr.disconnect(self.conn, clean=clean)
