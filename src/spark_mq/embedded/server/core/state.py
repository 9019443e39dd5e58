"""The state the queue manager's verbs share (runs in the queue-manager process).

`QueueManagerState` is the queue manager itself: its queues, its attributes, its store, the
lock every verb runs under and the condition a waiting MQGET sleeps on. `Connection` is one
client connection (its open handles and its unit of work), `Handle` one open object.
What each feature keeps per queue manager (channels, namelists, processes, security,
triggering, statistics, channel status ...) lives here too, in `QueueManagerState.features`,
each under its `FeatureState` key: the one helper the feature modules use, rather than
module-level tables beside the queue manager.
The verb modules (connections, put, get, ...) are functions over these; `qmgr.QueueManager`
is the façade that takes the lock and calls them.
"""
from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from spark_mq.embedded.server.core.mqsc_attributes import default_attributes
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.pubsub.pubsub_state import PubSubState
from spark_mq.embedded.server.core.queue_objects import (
    DEFAULT_QUEUE_MEMORY,
    HotBudget,
    LocalQueue,
    Message,
    QueueDefinition,
)
from spark_mq.embedded.server.core.store import Store
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.message_ids import MessageIds
from spark_mq.mqi.structs import MD

if TYPE_CHECKING:  # the selector grammar is loaded only when a handle uses one
    from spark_mq.mqi.selector import Selector


T = TypeVar("T")

_MD_I = MD.index
QMGR_CCSID = 1208  # the queue manager's CCSID: what MQCCSI_Q_MGR in an MD stands for


@dataclass
class Handle:
    hobj: int
    queue: LocalQueue | None          # None for the queue manager object
    name: str
    options: int
    read_ahead: bool = False
    selector: Selector | None = None
    cursor: int | None = None          # browse cursor: key of the last message browsed
    cursor_msg: Message | None = None
    get_group: tuple | None = None     # logical-order get in progress: (groupid, seq, offset)
    put_group: tuple | None = None     # logical-order put in progress:
    #                                    (groupid, next seq, next offset, in a group, syncpoint, persistence)
    saved_context: list | None = None  # MQOO_SAVE_ALL_CONTEXT: MD of the last message got
    rejected_upto: tuple | None = None  # (key, queue.reorders): head run the selector rejected
    created_temporary: bool = False    # this handle's MQOPEN created its temporary dynamic queue
    created_permanent: bool = False    # ... or its permanent one (MQCLOSE may delete it unchecked)
    topic: str | None = None           # a topic opened to publish on: its full topic string
    subscription: Any = None           # a subscription handle's pubsub.state.Subscription
    named_kind: Any = None             # a namelist or process opened to inquire on: its kind
    #                                    (core/named_objects.NamedKind; queue is None, name its name)
    remote: Any = None                 # resolution.names.Remote: a queue on another queue
    #                                    manager (queue is then its transmission queue)
    bind: str = ""                     # a cluster queue's: when its instance is chosen again
    #                                    (resolution.names.BIND_NOT_FIXED, BIND_ON_GROUP)

    def local_queue(self, reason: int) -> LocalQueue:
        """The queue this handle has open; on a queue-manager handle the verb fails with `reason`
        (the reason MQ gives for a handle not opened for what the verb does), and on a dynamic
        queue deleted since it was opened with MQRC_Q_DELETED."""
        if self.queue is None:
            raise MQError(reason)
        if self.queue.deleted:
            raise MQError(CMQC.MQRC_Q_DELETED)
        return self.queue


@dataclass
class Connection:
    conn_id: int
    user: str
    appl_name: str
    alive: Callable[[], bool] = lambda: True
    handles: dict[int, Handle] = field(default_factory=dict)
    uow_puts: list[Message] = field(default_factory=list)
    uow_gets: list[Message] = field(default_factory=list)
    # of uow_puts, the streaming queues' copies (verbs/streaming.py): not counted in MAXUMSGS
    uow_stream_copies: int = 0
    # of uow_gets, the segments each MQGMO_COMPLETE_MSG get took whole: one COD report each
    # (verbs/reports.py), not one per segment
    uow_whole_gets: list[list[Message]] = field(default_factory=list)
    hobj_counter: itertools.count = field(default_factory=lambda: itertools.count(101))
    # asynchronous put results since the last MQSTAT
    put_success: int = 0
    put_warning: int = 0
    put_failure: int = 0
    first_error: tuple | None = None   # (comp_code, reason, object name)
    # the queue manager's own agent (a channel's MCA: verbs/local_connection.py): it moves
    # messages applications put, checked when they were put, so the put rules that are the
    # application's (check_reply_to) are not its to fail on
    agent: bool = False
    # a receiving MCA's connection: its MCA user, who vouched for the messages it delivered
    # and so must also be allowed to put the reports they cause (verbs/reports.py)
    acts_for: str = ""
    # a client's server-connection channel and address (None: bindings or the queue
    # manager's own): the ChannelName and ConnName of the authority events it causes
    channel: str | None = None
    address: str = ""

    def uow_count(self) -> int:
        """The messages put and got in the unit of work, as MAXUMSGS counts them."""
        return len(self.uow_puts) + len(self.uow_gets) - self.uow_stream_copies

    @property
    def appl_name_field(self) -> bytes:
        return blank(self.appl_name, 28)


class QueueManagerState:
    """The queue manager's data; see `qmgr.QueueManager` for the verbs."""

    def __init__(self, name: str, data_dir: str, users: dict[str, str] | None = None,
                 queue_memory: int = DEFAULT_QUEUE_MEMORY):
        self.name = name
        self.data_dir = data_dir
        self.users = users
        self.lock = threading.RLock()
        self.arrived = threading.Condition(self.lock)
        self.queues: dict[str, QueueDefinition] = {}
        # the connections, for what spans them: uncommitted work on a queue being deleted
        self.connections: dict[int, Connection] = {}
        self.attrs: dict[str, Any] = default_attributes("QMGR")
        self.quiescing = False
        self.store = Store(data_dir)
        # the messages held in memory, a queue's and all queues' (queue_objects.py)
        self.hot = HotBudget(queue_memory, 20 * queue_memory)
        self.conn_ids = itertools.count(1)
        # "AMQ " + name, then 8 bytes unguessable from other ids (mqi/message_ids.py); the
        # counter starts at the clock so that a restart does not count the same values again
        self.new_msgid = MessageIds(b"AMQ " + name.encode()[:12].ljust(12, b" "),
                                    time.time_ns() // 1000)
        self.seq = itertools.count(1)  # arrival order of messages; restarts after recovery
        self.dynamic_names = itertools.count(1)  # the unique part of generated queue names
        self.pubsub = PubSubState()  # topics, subscriptions, retained publications
        # every other feature's state, by its FeatureState key (not stored: each comes back
        # from the store, or starts afresh, when the queue manager starts)
        self.features: dict[FeatureState[Any], Any] = {}

    def back(self, queue: LocalQueue, stored: int = 0) -> None:
        """Give a local queue its rows in the store (`stored` of them there already) and its
        share of the memory for messages (queues.LocalQueue)."""
        queue.attach(self.store.rows(queue.name), self.hot, stored)


class FeatureState(Generic[T]):
    """One feature's state on each queue manager, made by `make` when first asked for and
    kept in the queue manager's `features`, so that it goes with the queue manager (a test's
    second queue manager in one process starts with its own)."""

    def __init__(self, name: str, make: Callable[[QueueManagerState], T]) -> None:
        self.name = name
        self.make = make

    def of(self, qm: QueueManagerState) -> T:
        found = qm.features.get(self)
        if found is None:
            # setdefault is atomic: threads that race here (channel agents run outside the
            # queue manager's lock) all get the one value that was stored first
            found = qm.features.setdefault(self, self.make(qm))
        return cast(T, found)

    def get(self, qm: QueueManagerState) -> T | None:
        """The state, or None when the feature has made none on this queue manager yet."""
        return cast("T | None", qm.features.get(self))

    def set(self, qm: QueueManagerState, value: T) -> None:
        qm.features[self] = value

    def __repr__(self) -> str:
        return f"FeatureState({self.name!r})"


def blank(value: str, length: int) -> bytes:
    """An MQCHAR field as MQ fills it: blank padded, not NUL padded."""
    return value.encode()[:length].ljust(length, b" ")


def check_md_header(md: list) -> None:
    if md[0] != b"MD  " or md[1] not in (1, 2):
        raise MQError(CMQC.MQRC_MD_ERROR)


#: the Report options that ask for a report message sent to ReplyToQ, each with its data
#: variants (IBM docs: "Report (MQLONG)"); the others only say how a report is made or what
#: happens to the message. MQRO_ACTIVITY is left out: ACTIVREC(QUEUE) sends activity reports
#: to SYSTEM.ADMIN.ACTIVITY.QUEUE, not to the message's ReplyToQ.
REPORT_REQUESTS = (CMQC.MQRO_COA_WITH_FULL_DATA | CMQC.MQRO_COD_WITH_FULL_DATA
                   | CMQC.MQRO_EXCEPTION_WITH_FULL_DATA | CMQC.MQRO_EXPIRATION_WITH_FULL_DATA
                   | CMQC.MQRO_PAN | CMQC.MQRO_NAN)


def check_reply_to(conn: Connection, md: list) -> None:
    """MQRC_MISSING_REPLY_TO_Q for a put whose ReplyToQ is blank although the message is a
    request or asks for reports (IBM docs: "ReplyToQ (MQCHAR48)": it "must not be blank if
    the MsgType field has the value MQMT_REQUEST, or if any report messages are requested by
    the Report field"). An agent's put (Connection.agent) is not checked: a channel that
    delivers or dead-letters a partner's message must not fail on the partner's rule."""
    if conn.agent:
        return
    if (md[_MD_I["MsgType"]] == CMQC.MQMT_REQUEST
            or md[_MD_I["Report"]] & REPORT_REQUESTS) and not _name(md[_MD_I["ReplyToQ"]]):
        raise MQError(CMQC.MQRC_MISSING_REPLY_TO_Q)


def _name(field: bytes) -> bytes:
    """An MQCHAR name as MQ reads it: up to the first NUL, trailing blanks dropped."""
    return field.split(b"\0", 1)[0].rstrip(b" ")


def os_user() -> str:
    """The user a connection without credentials runs as, as MQ takes it from the OS."""
    try:
        import pwd
        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError):
        return "mqapp"


def unix_accounting_token(uid: int) -> bytes:
    """The AccountingToken IBM MQ on Unix makes for a user: the first byte is the length of
    the accounting information, then the numeric user id in ASCII characters, binary zeros,
    and in the last byte the token type MQACTT_UNIX_NUMERIC_ID."""
    digits = str(uid).encode()[:30]  # at most 30 bytes of information fit between the two
    filler = CMQC.MQ_ACCOUNTING_TOKEN_LENGTH - 2 - len(digits)
    return bytes([len(digits)]) + digits + b"\0" * filler + CMQC.MQACTT_UNIX_NUMERIC_ID


# The users of the embedded queue manager have no numeric ids of their own, so every default
# context gets the token of the queue manager process's user: the one IBM MQ's client channel
# agent runs as (mqm), and also the applications' user, as clients and the embedded queue
# manager share a machine (see core/security/admission.py). One stable value for every connection.
#: the default context's AccountingToken
ACCOUNTING_TOKEN: bytes = unix_accounting_token(os.getuid())
