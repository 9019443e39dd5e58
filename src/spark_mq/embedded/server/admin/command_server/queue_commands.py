"""The queue commands: Inquire Queue (Names, Status), Create, Copy, Change, Delete and Clear
Queue (runs in the queue-manager process, under the queue manager's lock).

Each command checks what MQ's command server checks, with MQ's reasons, then changes
objects through admin.apply_command, the applier MQSC uses, so that a PCF command and the
MQSC command of the same name do the same thing.
"""
from __future__ import annotations

from spark_mq.embedded.server.admin import queue_status
from spark_mq.embedded.server.admin.command_server import pcf
from spark_mq.embedded.server.admin.command_server.attributes import (
    QUEUE_TYPES,
    TYPE_OF_KIND,
    Value,
    mqsc_changes,
    padded,
    queue_values,
)
from spark_mq.embedded.server.admin.command_server.pcf import PCFError
from spark_mq.embedded.server.admin.command_server.request import (
    Reply,
    Request,
    authrec_flags,
    encode,
    matches,
    passes,
    unknown_object,
)
from spark_mq.embedded.server.admin.mqsc_apply import apply_command
from spark_mq.embedded.server.clusters.definitions import ClusterRefused
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand
from spark_mq.embedded.server.core.queue_objects import LocalQueue, QueueDefinition
from spark_mq.embedded.server.verbs.handles import INPUT_OPTIONS
from spark_mq.embedded.server.verbs.streaming import StreamingRefused
from spark_mq.mqi.constants import CMQC, CMQCFC

# MQIA_Q_TYPE values that select queues of no type the embedded queue manager has
_OTHER_TYPES = frozenset({CMQC.MQQT_CLUSTER})
#: a queue's monitoring level in effect (queue_status.monitoring) as MQIA_MONITORING_Q
_MONITORING = {"LOW": CMQC.MQMON_LOW, "MEDIUM": CMQC.MQMON_MEDIUM, "HIGH": CMQC.MQMON_HIGH}


# === inquiries ============================================================================
def _wanted_type(request: Request) -> int:
    qtype = request.integer(CMQC.MQIA_Q_TYPE, CMQC.MQQT_ALL)
    if qtype != CMQC.MQQT_ALL and qtype not in QUEUE_TYPES and qtype not in _OTHER_TYPES:
        raise PCFError(CMQCFC.MQRCCF_Q_TYPE_ERROR, CMQC.MQIA_Q_TYPE)
    return qtype


def _selected(request: Request, name_parameter: int = CMQC.MQCA_Q_NAME,
              locals_only: bool = False) -> list[QueueDefinition]:
    """The queues a (generic) name and MQIA_Q_TYPE select, by name; none is an error."""
    pattern = request.string(name_parameter)
    qtype = CMQC.MQQT_LOCAL if locals_only else _wanted_type(request)
    found = [queue for name, queue in sorted(request.qm.queues.items())
             if matches(pattern, name)
             and (qtype == CMQC.MQQT_ALL or TYPE_OF_KIND[queue.kind] == qtype)]
    if not found:
        raise unknown_object()
    return found


def inquire_q(request: Request) -> list[Reply]:
    """MQCMD_INQUIRE_Q: one reply per queue; QName and QType always, then the attributes
    MQIACF_Q_ATTRS asks for (all of them by default)."""
    selectors = request.integers(CMQCFC.MQIACF_Q_ATTRS)
    replies = []
    for queue in _selected(request):
        values: dict[int, Value | list[int]] = dict(queue_values(queue, selectors))
        if request.filters:
            # the filtered attribute is compared, and returned, even when not asked for
            extra = queue_values(queue, [condition.id for condition in request.filters])
            values.update({k: v for k, v in extra.items() if k not in values})
            if not passes(request.filters, values):
                continue
        replies.append(Reply(encode(values)))
    return replies


def inquire_q_names(request: Request) -> list[Reply]:
    """MQCMD_INQUIRE_Q_NAMES: one reply listing the names and their types; a generic name
    that matches nothing is an empty list, not an error."""
    try:
        queues = _selected(request)
    except PCFError:
        if not request.string(CMQC.MQCA_Q_NAME).endswith("*"):
            raise
        queues = []
    return [Reply([pcf.cfsl(CMQCFC.MQCACF_Q_NAMES, [q.name for q in queues], CMQC.MQ_Q_NAME_LENGTH),
                   pcf.cfil(CMQCFC.MQIACF_Q_TYPES, [TYPE_OF_KIND[q.kind] for q in queues])])]


def inquire_q_status(request: Request) -> list[Reply]:
    """MQCMD_INQUIRE_Q_STATUS for local queues: queue status (depth, open counts, uncommitted
    messages and, with queue monitoring on, MSGAGE, QTIME and the last put and get: see
    queue_status.py; blank or -1 with it off, as MQ shows them) or,
    with MQIACF_Q_HANDLE, one reply per handle open on each queue."""
    status_type = request.integer(CMQCFC.MQIACF_Q_STATUS_TYPE, CMQCFC.MQIACF_Q_STATUS)
    if status_type not in (CMQCFC.MQIACF_Q_STATUS, CMQCFC.MQIACF_Q_HANDLE):
        raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, CMQCFC.MQIACF_Q_STATUS_TYPE)
    queues = _status_queues(request)
    replies = []
    for queue in queues:
        rows = [_queue_status(request, queue)] if status_type == CMQCFC.MQIACF_Q_STATUS \
            else _handle_status(request, queue)
        for row in rows:
            values: dict[int, Value | list[int]] = {
                CMQC.MQCA_Q_NAME: padded(queue.name, CMQC.MQ_Q_NAME_LENGTH),
                CMQCFC.MQIACF_Q_STATUS_TYPE: status_type}
            values.update(request.chosen(row, CMQCFC.MQIACF_Q_STATUS_ATTRS))
            if passes(request.filters, values):
                replies.append(Reply(encode(values)))
    return replies


def _status_queues(request: Request) -> list[LocalQueue]:
    pattern = request.string(CMQC.MQCA_Q_NAME)
    if not pattern.endswith("*"):
        queue = request.qm.queues.get(pattern)
        if queue is None:
            raise unknown_object()
        if not isinstance(queue, LocalQueue):
            raise PCFError(CMQCFC.MQRCCF_Q_WRONG_TYPE)
        return [queue]
    return [q for q in _selected(request, locals_only=True) if isinstance(q, LocalQueue)]


def _queue_status(request: Request, queue: LocalQueue) -> dict[int, Value | list[int]]:
    found = queue_status.status(request.qm, queue)
    monitored = found.monitoring != queue_status.OFF
    return {
        CMQC.MQIA_CURRENT_Q_DEPTH: found.depth,
        CMQC.MQIA_OPEN_INPUT_COUNT: found.input_handles,
        CMQC.MQIA_OPEN_OUTPUT_COUNT: found.output_handles,
        CMQCFC.MQIACF_UNCOMMITTED_MSGS: found.uncommitted,
        CMQCFC.MQCACF_LAST_GET_DATE: _date(found.last_get),
        CMQCFC.MQCACF_LAST_GET_TIME: _time(found.last_get),
        CMQCFC.MQCACF_LAST_PUT_DATE: _date(found.last_put),
        CMQCFC.MQCACF_LAST_PUT_TIME: _time(found.last_put),
        CMQCFC.MQIACF_OLDEST_MSG_AGE: (found.oldest_age if found.oldest_age is not None
                                       else CMQC.MQMON_NOT_AVAILABLE),
        CMQCFC.MQIACF_Q_TIME_INDICATOR: (list(found.qtime) if found.qtime is not None
                                         else [CMQC.MQMON_NOT_AVAILABLE] * 2),
        CMQC.MQIA_MONITORING_Q: _MONITORING[found.monitoring] if monitored else CMQC.MQMON_OFF,
        CMQCFC.MQCACF_MEDIA_LOG_EXTENT_NAME: b" " * CMQCFC.MQ_LOG_EXTENT_NAME_LENGTH,
    }


def _date(stamp: float | None) -> bytes:
    return padded(queue_status.local_date(stamp), CMQC.MQ_DATE_LENGTH)


def _time(stamp: float | None) -> bytes:
    return padded(queue_status.local_time(stamp), CMQC.MQ_TIME_LENGTH)


def _handle_status(request: Request, queue: LocalQueue) -> list[dict[int, Value | list[int]]]:
    rows: list[dict[int, Value | list[int]]] = []
    for conn in request.qm.connections.values():
        for handle in conn.handles.values():
            if handle.queue is not queue:
                continue
            options = handle.options
            input_type = CMQCFC.MQQSO_NO
            if options & INPUT_OPTIONS:
                input_type = CMQCFC.MQQSO_EXCLUSIVE if options & CMQC.MQOO_INPUT_EXCLUSIVE \
                    else CMQCFC.MQQSO_SHARED
            rows.append({
                CMQCFC.MQCACF_APPL_TAG: padded(conn.appl_name, CMQC.MQ_APPL_TAG_LENGTH),
                CMQC.MQIA_APPL_TYPE: appl_type(request, conn.conn_id),
                CMQCFC.MQCACF_USER_IDENTIFIER: padded(conn.user, CMQC.MQ_USER_ID_LENGTH),
                CMQCFC.MQIACF_OPEN_INPUT_TYPE: input_type,
                CMQCFC.MQIACF_OPEN_OUTPUT: _yes(options & CMQC.MQOO_OUTPUT),
                CMQCFC.MQIACF_OPEN_BROWSE: _yes(options & CMQC.MQOO_BROWSE),
                CMQCFC.MQIACF_OPEN_INQUIRE: _yes(options & CMQC.MQOO_INQUIRE),
                CMQCFC.MQIACF_OPEN_SET: _yes(options & CMQC.MQOO_SET),
                CMQCFC.MQIACF_HANDLE_STATE: CMQCFC.MQHSTATE_INACTIVE,
                CMQCFC.MQIACF_UOW_TYPE: CMQCFC.MQUOWT_Q_MGR,
            })
    return rows


def _yes(flag: int) -> int:
    return int(CMQCFC.MQQSO_YES if flag else CMQCFC.MQQSO_NO)


def appl_type(request: Request, conn_id: int) -> int:
    """The command server's own connection is the queue manager's; every other is a user
    application (MQ reports client applications as MQAT_USER)."""
    return int(CMQC.MQAT_QMGR if conn_id == request.server_conn_id else CMQC.MQAT_USER)


# === changes ==============================================================================
def _kind(request: Request) -> str:
    qtype = request.integer(CMQC.MQIA_Q_TYPE, CMQC.MQQT_ALL)
    if qtype not in QUEUE_TYPES:  # cluster queues are not modelled
        raise PCFError(CMQCFC.MQRCCF_Q_TYPE_ERROR, CMQC.MQIA_Q_TYPE)
    return QUEUE_TYPES[qtype]


def _apply(request: Request, verb: str, kind: str, name: str, attributes: dict[str, object],
           flags: frozenset[str] = frozenset()) -> None:
    try:
        apply_command(request.qm, MQSCCommand(verb, kind, name, attributes, flags))
    except (StreamingRefused, ClusterRefused) as refused:
        raise PCFError(refused.pcf_reason) from None
    except ValueError:
        # what the checks above did not foresee: a failure MQ has no more precise reason for
        raise PCFError(CMQCFC.MQRCCF_COMMAND_FAILED) from None


def _define(request: Request, kind: str, name: str, attributes: dict[str, object]) -> None:
    """DEFINE with MQIACF_REPLACE as MQ checks it: an existing object of another type is
    MQRCCF_OBJECT_WRONG_TYPE, of the same type without REPLACE MQRCCF_OBJECT_ALREADY_EXISTS."""
    if not _NAME_CHARACTERS.issuperset(name) or not 0 < len(name) <= CMQC.MQ_Q_NAME_LENGTH:
        raise PCFError(CMQCFC.MQRCCF_OBJECT_NAME_ERROR)
    replace = request.integer(CMQCFC.MQIACF_REPLACE, CMQCFC.MQRP_NO)
    if replace not in (CMQCFC.MQRP_YES, CMQCFC.MQRP_NO):
        raise PCFError(CMQCFC.MQRCCF_REPLACE_VALUE_ERROR, CMQCFC.MQIACF_REPLACE)
    existing = request.qm.queues.get(name)
    if existing is not None:
        if existing.kind != kind:
            raise PCFError(CMQCFC.MQRCCF_OBJECT_WRONG_TYPE)
        if replace != CMQCFC.MQRP_YES:
            raise PCFError(CMQCFC.MQRCCF_OBJECT_ALREADY_EXISTS)
    if kind == "QALIAS" and not attributes.get("TARGET"):
        raise PCFError(CMQCFC.MQRCCF_PARM_MISSING, CMQC.MQCA_BASE_Q_NAME)
    flags = frozenset({"REPLACE"}) if replace == CMQCFC.MQRP_YES else frozenset()
    _apply(request, "DEFINE", kind, name, attributes, flags)


_NAME_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/%")


def create_q(request: Request) -> list[Reply]:
    """MQCMD_CREATE_Q: DEFINE QLOCAL/QALIAS/QMODEL/QREMOTE [REPLACE] with the given
    attributes."""
    kind = _kind(request)
    _define(request, kind, request.string(CMQC.MQCA_Q_NAME),
            mqsc_changes(kind, list(request.parameters.values())))
    return [Reply()]


def copy_q(request: Request) -> list[Reply]:
    """MQCMD_COPY_Q: DEFINE ... LIKE(FromQName): the source's attributes, then the given ones.
    A dynamic queue's copy is predefined."""
    kind = _kind(request)
    source = request.qm.queues.get(request.string(CMQCFC.MQCACF_FROM_Q_NAME))
    if source is None:
        raise unknown_object()
    if source.kind != kind:
        raise PCFError(CMQCFC.MQRCCF_LIKE_OBJECT_WRONG_TYPE)
    attributes: dict[str, object] = {k: v for k, v in source.attrs.items()
                                     if not (kind == "QLOCAL" and k == "DEFTYPE")}
    attributes.update(mqsc_changes(kind, list(request.parameters.values())))
    _define(request, kind, request.string(CMQCFC.MQCACF_TO_Q_NAME), attributes)
    return [Reply()]


def change_q(request: Request) -> list[Reply]:
    """MQCMD_CHANGE_Q: ALTER the queue's given attributes; QType must be the queue's."""
    kind = _kind(request)
    name = request.string(CMQC.MQCA_Q_NAME)
    queue = request.qm.queues.get(name)
    if queue is None:
        raise unknown_object()
    if queue.kind != kind:
        raise PCFError(CMQCFC.MQRCCF_OBJECT_WRONG_TYPE)
    _apply(request, "ALTER", kind, name, mqsc_changes(kind, list(request.parameters.values())))
    return [Reply()]


def _existing(request: Request) -> QueueDefinition:
    """The queue MQCA_Q_NAME names, of the type MQIA_Q_TYPE says when given."""
    queue = request.qm.queues.get(request.string(CMQC.MQCA_Q_NAME))
    if queue is None:
        raise unknown_object()
    qtype = _wanted_type(request)
    if qtype != CMQC.MQQT_ALL and TYPE_OF_KIND[queue.kind] != qtype:
        raise PCFError(CMQCFC.MQRCCF_OBJECT_WRONG_TYPE)
    return queue


def _check_not_in_use(request: Request, queue: LocalQueue) -> None:
    if queue.input_shared or queue.input_exclusive or queue.output_count:
        raise PCFError(CMQCFC.MQRCCF_OBJECT_OPEN)
    if queue_status.uncommitted(request.qm, queue):
        raise PCFError(CMQC.MQRC_Q_NOT_EMPTY)


def delete_q(request: Request) -> list[Reply]:
    """MQCMD_DELETE_Q: an open queue is MQRCCF_OBJECT_OPEN; one with messages needs
    MQIACF_PURGE(MQPO_YES), and one with uncommitted messages cannot go (MQRC_Q_NOT_EMPTY)."""
    queue = _existing(request)
    purge = request.integer(CMQCFC.MQIACF_PURGE, CMQCFC.MQPO_NO)
    if purge not in (CMQCFC.MQPO_YES, CMQCFC.MQPO_NO):
        raise PCFError(CMQCFC.MQRCCF_PURGE_VALUE_ERROR, CMQCFC.MQIACF_PURGE)
    if isinstance(queue, LocalQueue):
        _check_not_in_use(request, queue)
        if queue.depth and purge != CMQCFC.MQPO_YES:
            raise PCFError(CMQC.MQRC_Q_NOT_EMPTY)
    flags = authrec_flags(request) | ({"PURGE"} if purge == CMQCFC.MQPO_YES else set())
    _apply(request, "DELETE", queue.kind, queue.name, {}, frozenset(flags))
    return [Reply()]


def clear_q(request: Request) -> list[Reply]:
    """MQCMD_CLEAR_Q: local queues only, neither open nor with uncommitted messages."""
    queue = request.qm.queues.get(request.string(CMQC.MQCA_Q_NAME))
    if queue is None:
        raise unknown_object()
    if not isinstance(queue, LocalQueue):
        raise PCFError(CMQCFC.MQRCCF_Q_WRONG_TYPE)
    _check_not_in_use(request, queue)
    _apply(request, "CLEAR", "QLOCAL", queue.name, {})
    return [Reply()]
