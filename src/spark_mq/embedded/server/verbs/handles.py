"""Object handles: MQOPEN of a queue, the queue manager object, a namelist or a process
definition, MQCLOSE of any handle but a subscription's, and the open counts a handle holds
on its queue.

Runs in the queue-manager process, under the queue manager's lock (see qmgr.py). Opening
resolves an alias to its local queue (or creates a dynamic queue from a model, see
dynamic_queues.py), checks the open options, the user's authority (core/security/checks.py,
on a queue manager with users) and input sharing, compiles the handle's
selection string and decides read-ahead; closing checks the authority to delete a
permanent dynamic queue the handle did not create, gives the queue's open counts back and
deletes the dynamic queues that go with the handle.

Apart from connections.py, which sends MQOPEN of a topic and MQCLOSE of a subscription to
pub/sub: pub/sub opens its managed queues here, so this module must sit below it.
"""
from __future__ import annotations

from contextlib import nullcontext
from typing import TYPE_CHECKING

from spark_mq.embedded.server.clusters import interest as cluster_interest
from spark_mq.embedded.server.core.named_kinds import BY_OBJECT_TYPE
from spark_mq.embedded.server.core.outcomes import WARNING, MQError
from spark_mq.embedded.server.core.queue_objects import (
    PERMANENT_DYNAMIC,
    TEMPORARY_DYNAMIC,
    AliasQueue,
    LocalQueue,
    ModelQueue,
)
from spark_mq.embedded.server.core.security import checks
from spark_mq.embedded.server.core.state import Connection, Handle, QueueManagerState
from spark_mq.embedded.server.resolution import names
from spark_mq.embedded.server.triggering import hook as triggering
from spark_mq.embedded.server.verbs import dynamic_queues
from spark_mq.mqi.constants import CMQC

if TYPE_CHECKING:  # the selector grammar is loaded only when a handle uses one
    from spark_mq.mqi.selector import Selector

INPUT_OPTIONS: int = CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INPUT_EXCLUSIVE
_READ_AHEAD_OPTIONS = CMQC.MQOO_READ_AHEAD | CMQC.MQOO_NO_READ_AHEAD
_BIND_OPTIONS = CMQC.MQOO_BIND_ON_OPEN | CMQC.MQOO_BIND_NOT_FIXED | CMQC.MQOO_BIND_ON_GROUP
_KNOWN_OPEN_OPTIONS = (
    INPUT_OPTIONS | _READ_AHEAD_OPTIONS | CMQC.MQOO_BROWSE | CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE
    | CMQC.MQOO_SET | CMQC.MQOO_SAVE_ALL_CONTEXT | CMQC.MQOO_PASS_IDENTITY_CONTEXT
    | CMQC.MQOO_PASS_ALL_CONTEXT | CMQC.MQOO_SET_IDENTITY_CONTEXT | CMQC.MQOO_SET_ALL_CONTEXT
    | CMQC.MQOO_ALTERNATE_USER_AUTHORITY | CMQC.MQOO_FAIL_IF_QUIESCING | CMQC.MQOO_BIND_ON_OPEN
    | CMQC.MQOO_BIND_NOT_FIXED | CMQC.MQOO_BIND_ON_GROUP | CMQC.MQOO_RESOLVE_LOCAL_Q
    | CMQC.MQOO_NO_MULTICAST)
# what MQOPEN of the queue manager object (or of a namelist) may ask for: inquiring
_QMGR_OPEN_OPTIONS = (CMQC.MQOO_INQUIRE | CMQC.MQOO_FAIL_IF_QUIESCING
                      | CMQC.MQOO_ALTERNATE_USER_AUTHORITY)
_SUBSCRIPTION_CLOSES = CMQC.MQCO_KEEP_SUB | CMQC.MQCO_REMOVE_SUB
_KNOWN_CLOSE_OPTIONS = dynamic_queues.DELETE_OPTIONS | _SUBSCRIPTION_CLOSES | CMQC.MQCO_QUIESCE


def open_handle(qm: QueueManagerState, conn: Connection, obj_type: int, name: str, options: int,
                selection: str | None, dynamic_name: str | None,
                alternate_user: str = "", qmgr_name: str = "") -> Handle:
    """MQOPEN of a queue, the queue manager object or a namelist. A model queue's name creates
    a dynamic queue named after `dynamic_name` (MQOD.DynamicQName), which the handle opens;
    None: the caller cannot open a model (MQPUT1), which fails with MQRC_Q_TYPE_ERROR as in
    MQ. `alternate_user`: the MQOD's AlternateUserId, whose authority counts with
    MQOO_ALTERNATE_USER_AUTHORITY. `qmgr_name`: the MQOD's ObjectQMgrName
    (resolution/names.py)."""
    if obj_type == CMQC.MQOT_Q_MGR:
        if options & ~_QMGR_OPEN_OPTIONS:
            raise MQError(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)
        checks.check_open(qm, conn.user, obj_type, qm.name, options, alternate_user)
        handle = Handle(next(conn.hobj_counter), None, qm.name, options)
        conn.handles[handle.hobj] = handle
        return handle
    if obj_type in BY_OBJECT_TYPE:
        return _open_definition(qm, conn, obj_type, name, options, alternate_user)
    if obj_type != CMQC.MQOT_Q:
        raise MQError(CMQC.MQRC_FUNCTION_NOT_SUPPORTED)
    _check_open_options(options)
    if not names.is_local(qm, qmgr_name):
        return _open_elsewhere(qm, conn, name, qmgr_name, options, selection, alternate_user)
    checks.check_open(qm, conn.user, obj_type, name, options, alternate_user)
    model = qm.queues.get(name)
    created_temporary = created_permanent = False
    remote, bind = None, ""
    if isinstance(model, ModelQueue) and dynamic_name is not None:
        # every check that can fail comes before the queue exists: a failed MQOPEN creates nothing
        selector = _compile_selector(selection, options) if selection else None
        queue = dynamic_queues.create(qm, model, dynamic_name)
        # its owner is the user the open was authorized for (the alternate user, if any)
        checks.created_dynamic(qm, queue.name, _opener(conn, options, alternate_user))
        name, alias = queue.name, None
        created_temporary = queue.definition_type == TEMPORARY_DYNAMIC
        created_permanent = not created_temporary
    else:
        # ObjectQMgrName naming this queue manager (a channel's delivery) is no cluster put.
        # An application's open may wait while a partial repository asks for a cluster queue;
        # an agent's (a channel's delivery) does not: a partner must not hold a batch up for
        # seconds per message by naming queues nobody knows
        with nullcontext() if conn.agent else cluster_interest.asking():
            resolved = names.resolve(qm, name, qmgr_name, options)
        queue, alias, remote, bind = resolved.queue, resolved.alias, resolved.remote, resolved.bind
        _check_sharing(queue, options)
        selector = _compile_selector(selection, options) if selection else None
    handle = Handle(next(conn.hobj_counter), queue, name, options, selector=selector,
                    created_temporary=created_temporary, created_permanent=created_permanent,
                    remote=remote, bind=bind)
    return _opened(qm, conn, handle, alias or queue)


def _open_elsewhere(qm: QueueManagerState, conn: Connection, name: str, qmgr_name: str,
                    options: int, selection: str | None, alternate_user: str) -> Handle:
    """MQOPEN with the ObjectQMgrName of another queue manager (or a queue-manager alias)."""
    # an application's open may wait while a partial repository asks for a cluster member;
    # a channel's delivery does not hold its batch up on a name a partner sent
    with nullcontext() if conn.agent else cluster_interest.asking():
        resolved = names.resolve(qm, name, qmgr_name, options)
    if resolved.remote is None:   # an alias of this queue manager: the queue is local
        return open_handle(qm, conn, CMQC.MQOT_Q, name, options, selection, None, alternate_user)
    if selection:
        raise MQError(CMQC.MQRC_SELECTOR_INVALID_FOR_TYPE)
    checks.check_remote_qmgr(qm, conn.user, qmgr_name, options, alternate_user)
    handle = Handle(next(conn.hobj_counter), resolved.queue, name, options,
                    remote=resolved.remote)
    return _opened(qm, conn, handle, resolved.queue)


def _opened(qm: QueueManagerState, conn: Connection, handle: Handle,
            definition: LocalQueue | AliasQueue) -> Handle:
    """Count the new handle on its queue and give it to the connection; a first input
    handle on an initiation queue is a trigger monitor coming (triggering/)."""
    queue, options = handle.queue, handle.options
    assert queue is not None
    handle.read_ahead = _read_ahead(definition, options)
    if options & INPUT_OPTIONS:
        exclusive = options & CMQC.MQOO_INPUT_EXCLUSIVE or (
            options & CMQC.MQOO_INPUT_AS_Q_DEF and queue.attrs["DEFSOPT"] == "EXCL")
        if queue.input_exclusive or (exclusive and queue.input_shared):
            raise MQError(CMQC.MQRC_OBJECT_IN_USE)
        if exclusive:
            queue.input_exclusive += 1
        else:
            queue.input_shared += 1
    if options & CMQC.MQOO_OUTPUT:
        queue.output_count += 1
    conn.handles[handle.hobj] = handle
    if options & INPUT_OPTIONS:
        triggering.input_opened(qm, queue)
    return handle


def _opener(conn: Connection, options: int, alternate_user: str) -> str:
    if options & CMQC.MQOO_ALTERNATE_USER_AUTHORITY and alternate_user:
        return alternate_user
    return conn.user


def _open_definition(qm: QueueManagerState, conn: Connection, obj_type: int, name: str,
                     options: int, alternate_user: str) -> Handle:
    """MQOPEN of a namelist or a process definition: only to inquire on it (MQINQ), as in MQ."""
    if options & ~_QMGR_OPEN_OPTIONS:  # these take the queue manager object's few options
        raise MQError(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)
    kind = BY_OBJECT_TYPE[obj_type]
    if not kind.exists(qm, name):
        raise MQError(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    checks.check_open(qm, conn.user, obj_type, name, options, alternate_user)
    handle = Handle(next(conn.hobj_counter), None, name, options, named_kind=kind)
    conn.handles[handle.hobj] = handle
    return handle


def close_handle(qm: QueueManagerState, conn: Connection, handle: Handle, options: int) -> None:
    """MQCLOSE of any handle but a subscription's; a failure leaves the handle open, as in MQ."""
    if options & ~_KNOWN_CLOSE_OPTIONS or (
            options & dynamic_queues.DELETE_OPTIONS == dynamic_queues.DELETE_OPTIONS):
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)
    if options & _SUBSCRIPTION_CLOSES:  # for subscription handles, and no handle here is one
        raise MQError(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)
    dynamic_queues.check_close(qm, handle, options)
    _check_delete_authority(qm, conn, handle, options)
    del conn.handles[handle.hobj]
    release(qm, handle)
    dynamic_queues.delete_on_close(qm, handle, options)
    if handle.put_group is not None:
        raise MQError(CMQC.MQRC_INCOMPLETE_GROUP, WARNING)


def _check_delete_authority(qm: QueueManagerState, conn: Connection, handle: Handle,
                            options: int) -> None:
    """MQCLOSE deleting a permanent dynamic queue (check_close let it through) through a
    handle other than the one whose MQOPEN created it: IBM MQ checks +dlt on the queue."""
    queue = handle.queue
    if (options & dynamic_queues.DELETE_OPTIONS and queue is not None and not queue.deleted
            and queue.definition_type == PERMANENT_DYNAMIC and not handle.created_permanent):
        checks.check_delete_dynamic(qm, conn.user, queue.name)


def handle_of(conn: Connection, hobj: int) -> Handle:
    handle = conn.handles.get(hobj)
    if handle is None:
        raise MQError(CMQC.MQRC_HOBJ_ERROR)
    return handle


def rebind(qm: QueueManagerState, handle: Handle, pmo_options: int) -> None:
    """A handle to a cluster queue bound MQOO_BIND_NOT_FIXED takes the instance the workload
    algorithm chooses now, at each put; one bound MQOO_BIND_ON_GROUP at each put that starts
    a group or a logical message in logical order (MQPMO_LOGICAL_ORDER: IBM keeps only the
    groups the queue manager manages together; any other put chooses as NOT_FIXED)."""
    if not handle.bind:
        return
    if (handle.bind == names.BIND_ON_GROUP and pmo_options & CMQC.MQPMO_LOGICAL_ORDER
            and handle.put_group is not None):
        return   # inside a group or a logical message: it stays on its instance
    local = qm.queues.get(handle.name)
    chosen = names.cluster_choice(qm, handle.name, handle.options,
                                  local if isinstance(local, LocalQueue) else None)
    if chosen is None:   # no instance elsewhere any more: the one it has
        return
    if chosen.queue is not handle.queue and handle.queue is not None \
            and handle.options & CMQC.MQOO_OUTPUT:
        handle.queue.output_count -= 1
        chosen.queue.output_count += 1
    handle.queue, handle.remote = chosen.queue, chosen.remote


def follow_transmission_queue(qm: QueueManagerState, handle: Handle) -> None:
    """A handle to a queue on another queue manager takes the transmission queue the way
    there leads to now (resolution/names.py, `transmission_queue_now`), its open count with
    it: the queue it leaves is free to be moved from and deleted."""
    if handle.remote is None or handle.queue is None:
        return
    now = names.transmission_queue_now(qm, handle.remote, handle.queue)
    if now is handle.queue:
        return
    if handle.options & CMQC.MQOO_OUTPUT:
        handle.queue.output_count -= 1
        now.output_count += 1
    handle.queue = now


def follow_transmission_queues(qm: QueueManagerState, leaving: LocalQueue) -> None:
    """Every open handle that reaches another queue manager through `leaving`: see
    `follow_transmission_queue`."""
    for conn in list(qm.connections.values()):
        for handle in list(conn.handles.values()):
            if handle.queue is leaving and handle.remote is not None:
                follow_transmission_queue(qm, handle)


def release(qm: QueueManagerState, handle: Handle) -> None:
    """Give back the open counts a handle holds on its queue; the last input handle going
    may trigger the queue for the messages left on it (triggering/)."""
    queue = handle.queue
    if queue is None:
        return
    if handle.options & INPUT_OPTIONS:
        if queue.input_exclusive and handle.options & CMQC.MQOO_INPUT_EXCLUSIVE:
            queue.input_exclusive -= 1
        elif queue.input_shared:
            queue.input_shared -= 1
        elif queue.input_exclusive:
            queue.input_exclusive -= 1
        triggering.input_closed(qm, queue)
    if handle.options & CMQC.MQOO_OUTPUT:
        queue.output_count -= 1


def _check_open_options(options: int) -> None:
    if options & ~_KNOWN_OPEN_OPTIONS:
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)
    inputs = options & INPUT_OPTIONS
    if inputs & (inputs - 1):
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)
    if options & _READ_AHEAD_OPTIONS == _READ_AHEAD_OPTIONS:
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)
    binds = options & _BIND_OPTIONS
    if binds & (binds - 1):
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)
    if not options & (INPUT_OPTIONS | CMQC.MQOO_BROWSE | CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE
                      | CMQC.MQOO_SET):
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)


def _check_sharing(queue: LocalQueue, options: int) -> None:
    # inhibit checks (GET/PUT DISABLED) happen at get/put time, as in MQ
    if options & INPUT_OPTIONS and queue.attrs.get("SHARE") == "NOSHARE" and (
            queue.input_shared or queue.input_exclusive):
        raise MQError(CMQC.MQRC_OBJECT_IN_USE)


def _compile_selector(selection: str, options: int) -> Selector:
    if not options & (INPUT_OPTIONS | CMQC.MQOO_BROWSE):
        raise MQError(CMQC.MQRC_SELECTOR_INVALID_FOR_TYPE)
    # loaded on first use: most handles have no selection string
    from spark_mq.mqi.selector import SelectorError, compile_selector
    try:
        return compile_selector(selection)
    except SelectorError as exc:
        raise MQError(exc.reason) from exc


def _read_ahead(definition: LocalQueue | AliasQueue, options: int) -> bool:
    if not options & (INPUT_OPTIONS | CMQC.MQOO_BROWSE):
        return False
    setting = definition.attrs.get("DEFREADA", "NO")
    if setting == "DISABLED" or options & CMQC.MQOO_NO_READ_AHEAD:
        return False
    return bool(options & CMQC.MQOO_READ_AHEAD) or setting == "YES"
