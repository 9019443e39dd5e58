"""MOVE QLOCAL(source) TOQLOCAL(target) [TYPE(MOVE|ADD)]: move every committed message of one
local queue to another, in units of work (runs in the queue-manager process; admin/mqsc_apply.py calls
it under the queue manager's lock).

The command is IBM MQ for z/OS's (Multiplatforms has none; its runswchl switches only
cluster-sender channels, and `dmpmqmsg -m QM -i SOURCE -o TARGET` copies through a
client). It is the one an administrator reaches for when a transmission queue is stuck
and its messages must go to another one (`spark-mq-qmgr move-xmitq`, which also points
the sender channels of the old queue at the new one), and it keeps IBM's rules:

* both queues are local queues, not the same one, of the same USAGE (a message without an
  MQXQH must not reach a transmission queue, nor a transmission header an application);
* the source is not open and holds no uncommitted messages (puts or gets), else the command
  fails and moves nothing. A handle that puts to another queue manager through the source,
  whose way the administrator has already pointed elsewhere (ALTER QREMOTE XMITQ, ALTER
  QMGR DEFXMITQ), first follows the switch (verbs/handles.py, `follow_transmission_queues`)
  and so does not count: the application keeps its handle and its next put goes the new way;
* TYPE(MOVE), the default, needs an empty target; TYPE(ADD) puts the messages after the
  target's own. Either way the target must take them all: the source's depth plus the
  target's must not pass the target's MAXDEPTH (checked before anything moves);
* each message keeps its MQMD (MsgId, CorrelId, context, priority, persistence, the expiry
  left) and its properties; the order is the source's delivery order; expired messages are
  discarded on the way, as a get discards them.

Exactly once: every unit of work gets up to BATCH messages from the source under syncpoint,
puts them to the target under syncpoint (MQPMO_SET_ALL_CONTEXT) and commits, and a commit is
one store transaction (store.py). So a failure, or a kill -9 of the queue manager, at any
moment leaves every message on exactly one of the two queues: what was committed is on the
target, the rest on the source, and running the command again (TYPE(ADD)) moves the rest.

Between units of work the queue manager's lock is let go, so that other applications are
not held up by a long move (IBM's command makes them wait instead). The source stays open
for exclusive input meanwhile: an application that opens it for input is refused with 2042
MQRC_OBJECT_IN_USE; what is put on it meanwhile is moved too (the command ends when the
source is empty).
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from spark_mq.embedded.server.core.mqsc_command import MQSCCommand
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.queue_objects import LocalQueue
from spark_mq.embedded.server.verbs.handles import follow_transmission_queues
from spark_mq.embedded.server.verbs.local_connection import LocalConnection
from spark_mq.mqi.constants import CMQC, reason_name

if TYPE_CHECKING:
    from spark_mq.embedded.server.verbs.qmgr import QueueManager

#: messages per unit of work: small enough to let other work in often, large enough that
#: the store's one transaction per unit of work is not the whole cost
BATCH = 100
_YIELD_SECONDS = 0.001   # how long the lock is let go between units of work
_TYPES = ("MOVE", "ADD")
_KEYWORDS = ("TOQLOCAL", "TYPE")
_QUEUE_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")
_GET = CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING
_PUT = CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_SET_ALL_CONTEXT | CMQC.MQPMO_FAIL_IF_QUIESCING


def move(qmgr: QueueManager, command: MQSCCommand) -> str:
    """Run MOVE QLOCAL; runmqsc's answer, or a ValueError saying why it moved nothing or
    where it stopped."""
    source_name, target_name, kind = _arguments(command)
    source, target = _checked(qmgr, source_name, target_name, kind)
    local = LocalConnection(qmgr, "mqm", "MOVE QLOCAL")
    moved = 0
    try:
        source_handle = local.open(source.name, CMQC.MQOO_INPUT_EXCLUSIVE
                                   | CMQC.MQOO_FAIL_IF_QUIESCING)
        target_handle = local.open(target.name, CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT
                                   | CMQC.MQOO_FAIL_IF_QUIESCING)
        while True:
            count = _unit_of_work(local, source_handle, target_handle)
            moved += count
            if count < BATCH:
                break
            # let the lock go between units of work (Condition.wait releases the re-entrant
            # lock however often this thread holds it): other connections go on meanwhile
            with qmgr.arrived:
                qmgr.arrived.wait(_YIELD_SECONDS)
    except MQError as exc:
        local.backout()
        raise ValueError(f"MOVE QLOCAL({source_name}) TOQLOCAL({target_name}) stopped after "
                         f"moving {moved} messages: MQ reason {exc.reason} "
                         f"{reason_name(exc.reason)}; the others are still on {source_name} "
                         f"(run it again with TYPE(ADD) to move them)") from None
    finally:
        local.close(clean=False)
    return f"MOVE QLOCAL: {moved} messages moved from {source_name} to {target_name}."


def _unit_of_work(local: LocalConnection, source: int, target: int) -> int:
    """Up to BATCH messages got, put and committed together: the number moved."""
    count = 0
    while count < BATCH:
        got = local.get(source, _GET)
        if got is None:
            break
        local.put(target, got.md, _PUT, got.props, got.data)
        count += 1
    if count:
        local.commit()
    return count


def _arguments(command: MQSCCommand) -> tuple[str, str, str]:
    """(source, target, TYPE) of the command, each checked."""
    for keyword in command.attributes:
        if keyword not in _KEYWORDS:
            raise ValueError(f"{keyword} is not a keyword of MOVE QLOCAL (valid: "
                             f"{', '.join(_KEYWORDS)})")
    for flag in sorted(command.flags):
        raise ValueError(f"{flag} is not valid on MOVE QLOCAL (valid: TOQLOCAL(target) and "
                         "TYPE(MOVE|ADD))")
    source = command.name
    target = str(command.attributes.get("TOQLOCAL", ""))
    kind = str(command.attributes.get("TYPE", "MOVE")).upper()
    if not _QUEUE_NAME.fullmatch(source):
        raise ValueError(f"MOVE QLOCAL: source queue name '{source}' is not valid (valid: 1 to "
                         "48 of A-Z a-z 0-9 . / _ %)")
    if not target:
        raise ValueError("MOVE QLOCAL needs TOQLOCAL(target) (valid: the name of a local queue)")
    if not _QUEUE_NAME.fullmatch(target):
        raise ValueError(f"TOQLOCAL({target}) is not a valid queue name (valid: 1 to 48 of "
                         "A-Z a-z 0-9 . / _ %)")
    if kind not in _TYPES:
        raise ValueError(f"TYPE({kind}) is not valid on MOVE QLOCAL (valid: {', '.join(_TYPES)})")
    return source, target, kind


def _checked(qmgr: QueueManager, source_name: str, target_name: str,
             kind: str) -> tuple[LocalQueue, LocalQueue]:
    """The two queues, once IBM's conditions for the command hold."""
    source, target = qmgr.queues.get(source_name), qmgr.queues.get(target_name)
    for keyword, name, queue in (("QLOCAL", source_name, source),
                                 ("TOQLOCAL", target_name, target)):
        if not isinstance(queue, LocalQueue):
            what = "not defined" if queue is None else f"a {queue.kind}"
            raise ValueError(f"{keyword}({name}) is {what} (valid: a local queue; "
                             "AMQ8147E: IBM MQ object not found)")
    assert isinstance(source, LocalQueue) and isinstance(target, LocalQueue)
    if source is target:
        raise ValueError(f"TOQLOCAL({target_name}) is the source queue itself (valid: another "
                         "local queue)")
    if source.attrs.get("USAGE") != target.attrs.get("USAGE"):
        raise ValueError(f"QLOCAL({source_name}) has USAGE({source.attrs.get('USAGE')}) and "
                         f"TOQLOCAL({target_name}) USAGE({target.attrs.get('USAGE')}) (valid: "
                         "queues of the same USAGE)")
    # applications putting to another queue manager through the source, whose way the
    # administrator has swung already (ALTER QREMOTE XMITQ ...), let go of it first
    follow_transmission_queues(qmgr, source)
    opened = source.input_shared + source.input_exclusive + source.output_count
    if opened:
        raise ValueError(f"QLOCAL({source_name}) is open ({opened} handles; IPPROCS and OPPROCS "
                         "must be 0): close it, or stop the channel that serves it")
    held = source.pending_puts + sum(1 for conn in qmgr.connections.values()
                                     for message in conn.uow_gets if message.queue is source)
    if held:
        raise ValueError(f"QLOCAL({source_name}) has {held} uncommitted messages: commit or back "
                         "out the units of work that hold them first")
    if kind == "MOVE" and target.depth:
        raise ValueError(f"TOQLOCAL({target_name}) holds {target.depth} messages: TYPE(MOVE) "
                         "needs an empty target (valid: TYPE(ADD) adds to them)")
    maximum = int(target.attrs["MAXDEPTH"])
    if source.available_count + target.depth > maximum:
        raise ValueError(f"TOQLOCAL({target_name}) cannot take them: {source.available_count} messages "
                         f"+ its {target.depth} > its MAXDEPTH({maximum})")
    return source, target
