"""MQSUB, MQCLOSE of a subscription handle, MQDISC, and MQOPEN of a topic (runs in the
queue-manager process, under the queue manager's lock).

MQSUB with MQSO_CREATE makes a subscription; with MQSO_RESUME it takes up an existing
(durable or administrative) one by its SubName, and with MQSO_ALTER it also changes it. Its
publications go to a managed queue (MQSO_MANAGED: a dynamic queue made from the topic's
MDURMDL or MNDURMDL model, and MQSUB returns a handle to it) or to the queue whose handle
the application passes (which the subscription's user must be allowed to put to, else
MQRC_NOT_AUTHORIZED and IBM's Not Authorized (type 6) event). MQSUB also returns a
subscription handle; MQCLOSE of that handle removes a non-durable subscription (and its
managed queue), and a durable one only with MQCO_REMOVE_SUB. MQDISC closes every
subscription handle of the connection with MQCO_NONE. A subscription is held by one handle
at a time (MQRC_SUBSCRIPTION_IN_USE).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.pubsub import storage, topics
from spark_mq.embedded.server.core.pubsub import topic_authority as authority
from spark_mq.embedded.server.core.pubsub.pubsub_state import Subscription
from spark_mq.embedded.server.core.pubsub.topic_matching import compile_pattern, fixed_prefix
from spark_mq.embedded.server.core.queue_objects import LocalQueue, ModelQueue
from spark_mq.embedded.server.core.security import checks
from spark_mq.embedded.server.core.security.checks import acting_user
from spark_mq.embedded.server.core.state import ACCOUNTING_TOKEN, Handle
from spark_mq.embedded.server.events import queue_manager as qmgr_events
from spark_mq.embedded.server.verbs import dynamic_queues
from spark_mq.embedded.server.verbs.handles import open_handle
from spark_mq.embedded.server.verbs.pubsub import retained
from spark_mq.mqi.constants import CMQC

if TYPE_CHECKING:
    from spark_mq.embedded.server.core.state import Connection, QueueManagerState

_ACTIONS = CMQC.MQSO_CREATE | CMQC.MQSO_RESUME | CMQC.MQSO_ALTER
_KNOWN_OPTIONS = (
    _ACTIONS | CMQC.MQSO_DURABLE | CMQC.MQSO_GROUP_SUB | CMQC.MQSO_MANAGED
    | CMQC.MQSO_SET_IDENTITY_CONTEXT | CMQC.MQSO_NO_MULTICAST | CMQC.MQSO_FIXED_USERID
    | CMQC.MQSO_ANY_USERID | CMQC.MQSO_PUBLICATIONS_ON_REQUEST | CMQC.MQSO_NEW_PUBLICATIONS_ONLY
    | CMQC.MQSO_FAIL_IF_QUIESCING | CMQC.MQSO_ALTERNATE_USER_AUTHORITY | CMQC.MQSO_WILDCARD_CHAR
    | CMQC.MQSO_WILDCARD_TOPIC | CMQC.MQSO_SET_CORREL_ID | CMQC.MQSO_SCOPE_QMGR
    | CMQC.MQSO_NO_READ_AHEAD | CMQC.MQSO_READ_AHEAD)
_EXCLUSIVE_PAIRS = ((CMQC.MQSO_WILDCARD_CHAR, CMQC.MQSO_WILDCARD_TOPIC),
                    (CMQC.MQSO_FIXED_USERID, CMQC.MQSO_ANY_USERID),
                    (CMQC.MQSO_READ_AHEAD, CMQC.MQSO_NO_READ_AHEAD))
# what MQ opens a managed queue with for the subscriber
MANAGED_OPEN = CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE
MANAGED_DURABLE_PREFIX = "SYSTEM.MANAGED.DURABLE.*"
MANAGED_NON_DURABLE_PREFIX = "SYSTEM.MANAGED.NDURABLE.*"
_TOPIC_OPEN_OPTIONS = (CMQC.MQOO_OUTPUT | CMQC.MQOO_FAIL_IF_QUIESCING
                       | CMQC.MQOO_ALTERNATE_USER_AUTHORITY | CMQC.MQOO_PASS_IDENTITY_CONTEXT
                       | CMQC.MQOO_PASS_ALL_CONTEXT | CMQC.MQOO_SET_IDENTITY_CONTEXT
                       | CMQC.MQOO_SET_ALL_CONTEXT | CMQC.MQOO_NO_READ_AHEAD
                       | CMQC.MQOO_NO_MULTICAST | CMQC.MQOO_BIND_AS_Q_DEF)
_CLOSE_OPTIONS = CMQC.MQCO_KEEP_SUB | CMQC.MQCO_REMOVE_SUB | CMQC.MQCO_QUIESCE


@dataclass
class SubRequest:
    """The MQSD fields MQSUB reads (the client reads its MQCHARV strings)."""
    options: int
    object_name: str
    object_string: str
    sub_name: str
    user_data: str
    correl_id: bytes
    priority: int
    accounting_token: bytes
    appl_identity: bytes
    expiry: int
    selection: str
    sub_level: int
    hobj: int
    alternate_user: str = ""  # MQSD AlternateUserId, used with MQSO_ALTERNATE_USER_AUTHORITY


# === MQOPEN of a topic =====================================================================
def open_topic(qm: QueueManagerState, conn: Connection, object_name: str, object_string: str,
               options: int, alternate_user: str = "") -> Handle:
    """MQOPEN(MQOT_TOPIC): a handle to publish on (only output is valid on a topic)."""
    if options & ~_TOPIC_OPEN_OPTIONS:
        raise MQError(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)
    if not options & CMQC.MQOO_OUTPUT:
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)
    topic = topics.topic_string(qm, object_name, object_string)
    user = acting_user(qm, conn.user, alternate_user,
                       bool(options & CMQC.MQOO_ALTERNATE_USER_AUTHORITY))
    try:
        authority.authorize(qm, user, topic, authority.PUBLISH)
    except MQError as exc:
        if exc.reason == CMQC.MQRC_NOT_AUTHORIZED:
            qmgr_events.topic_open_refused(qm, conn, user, options, topic,
                                           authority.admin_topic_names(qm, topic))
        raise
    handle = Handle(next(conn.hobj_counter), None, object_name or topic, options, topic=topic)
    conn.handles[handle.hobj] = handle
    return handle


# === MQSUB =================================================================================
def subscribe(qm: QueueManagerState, conn: Connection, request: SubRequest) -> tuple[Handle, int]:
    """MQSUB: (subscription handle, queue handle); the subscription is handle.subscription."""
    options = request.options
    if options & ~_KNOWN_OPTIONS or not options & _ACTIONS or any(
            options & one and options & other for one, other in _EXCLUSIVE_PAIRS):
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)
    if options & CMQC.MQSO_GROUP_SUB and (options & CMQC.MQSO_MANAGED
                                          or not options & CMQC.MQSO_SET_CORREL_ID):
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)
    if qm.quiescing and options & CMQC.MQSO_FAIL_IF_QUIESCING:
        raise MQError(CMQC.MQRC_Q_MGR_QUIESCING)
    name = request.sub_name
    if options & CMQC.MQSO_DURABLE and not name:
        raise MQError(CMQC.MQRC_SUB_NAME_ERROR)
    existing = qm.pubsub.named(name) if name else None
    # whom the subscription is checked for and belongs to: the MQSD's AlternateUserId with
    # MQSO_ALTERNATE_USER_AUTHORITY (the connection's user then needs ALTUSR)
    user = acting_user(qm, conn.user, request.alternate_user,
                       bool(options & CMQC.MQSO_ALTERNATE_USER_AUTHORITY))
    if existing is not None:
        if not options & (CMQC.MQSO_RESUME | CMQC.MQSO_ALTER):
            raise MQError(CMQC.MQRC_SUB_ALREADY_EXISTS)
        return _resume(qm, conn, existing, request, user)
    if not options & CMQC.MQSO_CREATE:
        raise MQError(CMQC.MQRC_NO_SUBSCRIPTION)
    if options & (CMQC.MQSO_RESUME | CMQC.MQSO_ALTER) and not name:
        raise MQError(CMQC.MQRC_SUB_NAME_ERROR)  # nothing to resume by
    return _create(qm, conn, request, user)


def _create(qm: QueueManagerState, conn: Connection, request: SubRequest,
            user: str) -> tuple[Handle, int]:
    options = request.options
    char_wildcards = bool(options & CMQC.MQSO_WILDCARD_CHAR)
    topic = topics.topic_string(qm, request.object_name, request.object_string)
    node = fixed_prefix(topic, char_wildcards)
    try:
        authority.authorize(qm, user, node, authority.SUBSCRIBE)
    except MQError as exc:
        if exc.reason == CMQC.MQRC_NOT_AUTHORIZED:
            qmgr_events.subscribe_refused(qm, conn, user, options, topic,
                                          authority.admin_topic_names(qm, node))
        raise
    attrs = topics.attributes(qm, node, ("SUB", "DURSUB", "MDURMDL", "MNDURMDL"))
    if attrs["SUB"] == "DISABLED":
        raise MQError(CMQC.MQRC_SUB_INHIBITED)
    durable = bool(options & CMQC.MQSO_DURABLE)
    if durable and attrs["DURSUB"] == "NO":
        raise MQError(CMQC.MQRC_DURABILITY_NOT_ALLOWED)
    compiled = _compile_selector(request.selection)
    sub = Subscription(
        sub_id=qm.new_msgid(), name=request.sub_name, topic_string=topic,
        topic_object=request.object_name, wildcard_char=char_wildcards, durable=durable,
        managed=bool(options & CMQC.MQSO_MANAGED), destination="",
        correl_id=request.correl_id if options & CMQC.MQSO_SET_CORREL_ID else qm.new_msgid(),
        options=options, user=user, any_user=bool(options & CMQC.MQSO_ANY_USERID))
    _take_fields(sub, request)
    sub.compiled_selector = compiled
    sub.matcher = compile_pattern(topic, char_wildcards)
    if sub.managed:
        if request.hobj != CMQC.MQHO_NONE:
            raise MQError(CMQC.MQRC_HOBJ_ERROR)
        # the managed queue is the connection's to use, whoever owns the subscription
        queue_handle = _open_managed(qm, conn, attrs["MDURMDL" if durable else "MNDURMDL"], durable)
        sub.destination = queue_handle.name
        hobj = queue_handle.hobj
    else:
        sub.destination = _destination(qm, conn, request, user, topic)
        hobj = request.hobj
    qm.pubsub.add(sub)
    storage.save_subscription(qm, sub)
    handle = _hold(conn, sub)
    if not options & (CMQC.MQSO_NEW_PUBLICATIONS_ONLY | CMQC.MQSO_PUBLICATIONS_ON_REQUEST):
        retained.send(qm, sub)
    return handle, hobj


def _resume(qm: QueueManagerState, conn: Connection, sub: Subscription,
            request: SubRequest, user: str) -> tuple[Handle, int]:
    options = request.options
    if sub.holder is not None:
        raise MQError(CMQC.MQRC_SUBSCRIPTION_IN_USE)
    if sub.user != user and not sub.any_user:
        raise MQError(CMQC.MQRC_IDENTITY_MISMATCH)
    authority.authorize(qm, user, fixed_prefix(sub.topic_string, sub.wildcard_char),
                        authority.SUBSCRIBE)
    if options & CMQC.MQSO_ALTER:
        _alter(qm, conn, sub, request, user)
    if sub.managed:
        if request.hobj != CMQC.MQHO_NONE:
            raise MQError(CMQC.MQRC_HOBJ_ERROR)
        hobj = _open_existing(qm, conn, sub.destination)
    else:
        hobj = request.hobj
        if hobj != CMQC.MQHO_NONE and not options & CMQC.MQSO_ALTER:   # _alter checked it
            _destination(qm, conn, request, user, sub.topic_string)
    return _hold(conn, sub), hobj


def _alter(qm: QueueManagerState, conn: Connection, sub: Subscription, request: SubRequest,
           user: str) -> None:
    options = request.options
    if bool(options & CMQC.MQSO_DURABLE) != sub.durable:
        raise MQError(CMQC.MQRC_DURABILITY_NOT_ALTERABLE)
    if request.object_name or request.object_string:
        if topics.topic_string(qm, request.object_name, request.object_string) != sub.topic_string:
            raise MQError(CMQC.MQRC_TOPIC_NOT_ALTERABLE)
    if bool(options & CMQC.MQSO_MANAGED) != sub.managed:
        raise MQError(CMQC.MQRC_ALTER_SUB_ERROR)
    if not sub.managed:
        sub.destination = _destination(qm, conn, request, user, sub.topic_string)
    if request.selection != sub.selector:
        raise MQError(CMQC.MQRC_SELECTOR_NOT_ALTERABLE)
    if options & CMQC.MQSO_SET_CORREL_ID:
        sub.correl_id = request.correl_id
    _take_fields(sub, request)
    keep = CMQC.MQSO_DURABLE | CMQC.MQSO_MANAGED | CMQC.MQSO_WILDCARD_CHAR
    sub.options = (sub.options & keep) | (options & ~keep & ~_ACTIONS) | CMQC.MQSO_CREATE
    sub.any_user = bool(options & CMQC.MQSO_ANY_USERID)
    sub.altered = time.time()
    storage.save_subscription(qm, sub)


def _take_fields(sub: Subscription, request: SubRequest) -> None:
    """The MQSD fields a subscription keeps as they were given."""
    sub.user_data = request.user_data
    sub.priority = request.priority
    # PubAccountingToken and PubApplIdentityData go into every publication the subscription
    # gets; the subscriber gives them with MQSO_SET_IDENTITY_CONTEXT, else the queue manager
    # generates them, as for a put with default context
    if request.options & CMQC.MQSO_SET_IDENTITY_CONTEXT:
        sub.accounting_token, sub.appl_identity = request.accounting_token, request.appl_identity
    else:
        sub.accounting_token, sub.appl_identity = ACCOUNTING_TOKEN, b" " * 32
    sub.expiry = request.expiry
    sub.selector = request.selection
    sub.sub_level = request.sub_level


def _compile_selector(selection: str) -> object:
    if not selection:
        return None
    # loaded on first use, as for queue handles: most subscriptions have no selection string
    from spark_mq.mqi.selector import SelectorError, compile_selector
    try:
        return compile_selector(selection)
    except SelectorError as exc:
        raise MQError(exc.reason) from exc


def _provided_queue(conn: Connection, hobj: int) -> str:
    """The queue an application's handle names, for publications to go to."""
    handle = conn.handles.get(hobj)
    if handle is None or handle.queue is None or handle.topic is not None \
            or handle.subscription is not None:
        raise MQError(CMQC.MQRC_HOBJ_ERROR)
    if handle.queue.deleted:
        raise MQError(CMQC.MQRC_Q_DELETED)
    return handle.queue.name


def _destination(qm: QueueManagerState, conn: Connection, request: SubRequest, user: str,
                 topic: str) -> str:
    """The queue of the handle MQSUB was given, which `user` must be allowed to put to."""
    name = _provided_queue(conn, request.hobj)
    try:
        checks.check_destination(qm, user, name)
    except MQError as exc:
        if exc.reason == CMQC.MQRC_NOT_AUTHORIZED:
            qmgr_events.destination_refused(qm, conn, user, request.options, topic, name,
                                            CMQC.MQOO_OUTPUT)
        raise
    return name


def _open_managed(qm: QueueManagerState, conn: Connection, model: str, durable: bool) -> Handle:
    """A new managed queue from `model`, opened for the subscriber."""
    if not isinstance(qm.queues.get(model), ModelQueue):
        raise MQError(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    prefix = MANAGED_DURABLE_PREFIX if durable else MANAGED_NON_DURABLE_PREFIX
    model_queue = qm.queues[model]
    assert isinstance(model_queue, ModelQueue)
    queue = dynamic_queues.create(qm, model_queue, prefix)
    authority.own_managed_queue(qm, queue.name, conn.user)
    try:
        return open_handle(qm, conn, CMQC.MQOT_Q, queue.name, MANAGED_OPEN, None, None)
    except MQError:
        dynamic_queues.remove(qm, queue)
        raise


def _open_existing(qm: QueueManagerState, conn: Connection, name: str) -> int:
    if not isinstance(qm.queues.get(name), LocalQueue):
        raise MQError(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    authority.own_managed_queue(qm, name, conn.user)  # whoever resumes it is its subscriber
    return open_handle(qm, conn, CMQC.MQOT_Q, name, MANAGED_OPEN, None, None).hobj


def _hold(conn: Connection, sub: Subscription) -> Handle:
    handle = Handle(next(conn.hobj_counter), None, sub.name or sub.topic_string, 0,
                    subscription=sub)
    conn.handles[handle.hobj] = handle
    sub.holder = (conn.conn_id, handle.hobj)
    return handle


# === closing and removing ==================================================================
def close(qm: QueueManagerState, conn: Connection, handle: Handle, options: int) -> None:
    """MQCLOSE of a subscription handle."""
    sub = handle.subscription
    assert isinstance(sub, Subscription)
    if options & ~_CLOSE_OPTIONS:
        raise MQError(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)
    if options & CMQC.MQCO_KEEP_SUB and options & CMQC.MQCO_REMOVE_SUB:
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)
    if options & CMQC.MQCO_KEEP_SUB and not sub.durable:
        raise MQError(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)  # only a durable one can stay
    del conn.handles[handle.hobj]
    sub.holder = None
    if not sub.durable or options & CMQC.MQCO_REMOVE_SUB:
        remove(qm, sub)


def disconnect(qm: QueueManagerState, conn: Connection) -> None:
    """MQDISC (or a broken connection): its subscription handles close with MQCO_NONE."""
    for handle in list(conn.handles.values()):
        sub = handle.subscription
        if isinstance(sub, Subscription):
            del conn.handles[handle.hobj]
            sub.holder = None
            if not sub.durable:
                remove(qm, sub)


def remove(qm: QueueManagerState, sub: Subscription) -> None:
    """Delete a subscription, and its managed queue with the publications on it."""
    qm.pubsub.remove(sub)
    storage.delete_subscription(qm, sub)
    if sub.managed:
        queue = qm.queues.get(sub.destination)
        if isinstance(queue, LocalQueue):
            dynamic_queues.remove(qm, queue)
