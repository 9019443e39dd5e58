"""Name resolution as IBM MQ does it on MQOPEN and MQPUT1 (IBM docs: "Name resolution",
"Opening remote queues").

ObjectQMgrName is resolved first, then ObjectName:

1. ObjectQMgrName blank or this queue manager: ObjectName is a local queue, an alias (whose
   target may be a remote queue definition) or a remote queue definition (QREMOTE): the
   queue RNAME at queue manager RQMNAME, through XMITQ or the rules of 3.
2. Another queue-manager name: a QREMOTE of that name with a blank RNAME is a queue-manager
   alias (its RQMNAME replaces the name, its XMITQ is the way; an RQMNAME that is this queue
   manager makes the queue local again); with an RNAME it is refused (2087); otherwise the
   rules of 3.
3. The transmission queue for a queue manager: the definition's XMITQ, else a local queue of
   the queue manager's name, else, for a member of a cluster this queue manager is in,
   SYSTEM.CLUSTER.TRANSMIT.QUEUE (`cluster_member`, below), else the queue manager's
   DEFXMITQ, each a local queue with USAGE(XMITQ); nothing: 2087
   MQRC_UNKNOWN_REMOTE_Q_MGR.

The transmission queue is chosen again at every put through an open handle
(`transmission_queue_now`), not only at MQOPEN: after an administrator swings the way to a
queue manager (ALTER QREMOTE XMITQ, a new queue of the queue manager's name, ALTER QMGR
DEFXMITQ, `move-xmitq`), a long-running putter's next message follows the switch instead of
landing on the queue being emptied. A put that finds no usable way now goes where the open
found it, as long as that queue still exists, so that a half-made switch loses nothing.

A queue elsewhere can only be put to (and a QREMOTE definition inquired): other open
options answer 2045 MQRC_OPTION_NOT_VALID_FOR_TYPE.

A name with no definition here may be a cluster queue (`cluster_route`, clusters/): the
open reaches one instance the cluster records know, chosen by IBM's workload algorithm,
its messages put behind an MQXQH on SYSTEM.CLUSTER.TRANSMIT.QUEUE with the CorrelId of the
cluster-sender to its host. A local queue that names a cluster is one candidate among its
instances when an application puts to it by name alone (ObjectQMgrName blank): it is
chosen as CLWLUSEQ says (LOCAL: always, unless the algorithm's earlier rules, rank and
PUT(DISABLED), removed it); a channel's delivery names this queue manager, so it always
lands here. `Resolved.bind` says when the choice is made again: at each put
(MQOO_BIND_NOT_FIXED) or at each new group (MQOO_BIND_ON_GROUP), MQOO_BIND_AS_Q_DEF
taking the chosen instance's DEFBIND.

A queue manager known only as a member of a cluster (rule 3: no XMITQ on the way, no queue
of its name) is reached through the cluster whatever the queue (IBM docs, "Sending messages
to a specific queue manager in a cluster", "Queue-manager aliases and clusters"): the
MQXQH names the queue and that queue manager, and the message waits on
SYSTEM.CLUSTER.TRANSMIT.QUEUE with the CorrelId of the cluster-sender to it (auto-defined
from its record when needed), which the queue manager there resolves the queue name on.
The target is named, so the workload algorithm does not choose (a SUSPENDed member gets it
all the same) and the message is never reallocated. That is how a reply reaches a
ReplyToQMgr that is a cluster member. A partial repository that knows no member of the name
asks its full repositories first, at MQOPEN, but only when DEFXMITQ is blank: with a
default transmission queue an unknown name goes there at once, as it did before clusters.
A handle opened to a member this way keeps the cluster's queue for its life: a queue of the
member's name defined later is used by the next open, not by `transmission_queue_now`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.queue_objects import AliasQueue, LocalQueue, ModelQueue, RemoteQueue
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.mqi.constants import CMQC

XMITQ_USAGE = "XMITQ"
#: what a handle to a queue elsewhere may do
_REMOTE_OPTIONS = (CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE | CMQC.MQOO_FAIL_IF_QUIESCING
                   | CMQC.MQOO_ALTERNATE_USER_AUTHORITY | CMQC.MQOO_BIND_AS_Q_DEF
                   | CMQC.MQOO_BIND_ON_OPEN | CMQC.MQOO_BIND_NOT_FIXED | CMQC.MQOO_BIND_ON_GROUP
                   | CMQC.MQOO_PASS_IDENTITY_CONTEXT | CMQC.MQOO_PASS_ALL_CONTEXT
                   | CMQC.MQOO_SET_IDENTITY_CONTEXT | CMQC.MQOO_SET_ALL_CONTEXT
                   | CMQC.MQOO_NO_READ_AHEAD | CMQC.MQOO_READ_AHEAD_AS_Q_DEF)


@dataclass(frozen=True)
class Remote:
    """A queue on another queue manager: what the MQXQH names, and the definition (QREMOTE
    or queue-manager alias) whose attributes apply to puts, if one was used."""
    queue_name: str
    qmgr_name: str
    definition: RemoteQueue | None
    #: a cluster queue's instance: the cluster-sender that carries its messages (their
    #: CorrelId on SYSTEM.CLUSTER.TRANSMIT.QUEUE)
    channel: str = ""


#: the cluster's choice of an instance of queue `name`: `route(qm, name, local)` (`local`:
#: the local queue of that name, if it names a cluster) -> (the hosting queue manager, its
#: cluster-receiver's name, blank for the local instance; the instance's DEFBIND) or None.
#: Set by the verbs (clusters/routing.py's `route`): resolution and clusters are siblings
#: on the hooks' floor and do not import each other.
cluster_route: Callable[[QueueManagerState, str, LocalQueue | None],
                        tuple[str, str, str] | None] | None = None
#: the cluster-sender to cluster queue manager `qmgr_name`: `member(qm, qmgr_name, ask)`
#: (`ask`: a partial may ask its full repositories) -> the channel's name, or None. Set by
#: the verbs (clusters/interest.py's `member`), as `cluster_route` is.
cluster_member: Callable[[QueueManagerState, str, bool], str | None] | None = None
CLUSTER_XMITQ = "SYSTEM.CLUSTER.TRANSMIT.QUEUE"
#: Resolved.bind: when the cluster's choice is made again (blank: never, MQOO_BIND_ON_OPEN)
BIND_NOT_FIXED, BIND_ON_GROUP = "NOTFIXED", "GROUP"
_BINDS = {CMQC.MQOO_BIND_NOT_FIXED: BIND_NOT_FIXED, CMQC.MQOO_BIND_ON_GROUP: BIND_ON_GROUP,
          CMQC.MQOO_BIND_ON_OPEN: ""}


@dataclass(frozen=True)
class Resolved:
    """Where an open's messages go: `queue` (a local queue, or the transmission queue when
    `remote` is set), and the alias it was opened through."""
    queue: LocalQueue
    alias: AliasQueue | None = None
    remote: Remote | None = None
    bind: str = ""

    def names(self, local_qmgr: str) -> tuple[str, str]:
        """MQOD's ResolvedQName and ResolvedQMgrName."""
        if self.remote is not None:
            return self.remote.queue_name, self.remote.qmgr_name
        return self.queue.name, local_qmgr


def is_local(qm: QueueManagerState, qmgr_name: str) -> bool:
    return not qmgr_name.strip() or qmgr_name.strip() == qm.name


def resolve(qm: QueueManagerState, name: str, qmgr_name: str = "", options: int = 0) -> Resolved:
    """The queue an open of (ObjectName, ObjectQMgrName) with `options` reaches."""
    if not is_local(qm, qmgr_name):
        # through a queue-manager name only puts, even when an alias leads back here
        if options & ~(_REMOTE_OPTIONS & ~CMQC.MQOO_INQUIRE):
            raise MQError(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)
        return _through_qmgr_name(qm, name, qmgr_name.strip())
    if not qmgr_name.strip():
        clustered = _clustered_here(qm, name, options)
        if clustered is not None:
            return clustered
    resolved = _local_name(qm, name, options)
    if resolved.remote is not None and options & ~_REMOTE_OPTIONS:
        raise MQError(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)   # a QREMOTE: put or inquire
    return resolved


def _local_name(qm: QueueManagerState, name: str, options: int = 0) -> Resolved:
    definition = qm.queues.get(name)
    if definition is None:
        return _cluster_instance(qm, name, options)
    if isinstance(definition, ModelQueue):
        raise MQError(CMQC.MQRC_Q_TYPE_ERROR)
    if isinstance(definition, AliasQueue):
        target = qm.queues.get(definition.attrs["TARGET"])
        if isinstance(target, ModelQueue):  # an alias must resolve to a real queue
            raise MQError(CMQC.MQRC_ALIAS_BASE_Q_TYPE_ERROR)
        if isinstance(target, RemoteQueue):
            through = _remote_definition(qm, target)
            return Resolved(through.queue, definition, through.remote)
        if not isinstance(target, LocalQueue):
            raise MQError(CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q)
        return Resolved(target, definition)
    if isinstance(definition, RemoteQueue):
        return _remote_definition(qm, definition)
    return Resolved(definition)


def _clustered_here(qm: QueueManagerState, name: str, options: int) -> Resolved | None:
    """An application's put to a local queue that names a cluster: the instance the cluster's
    choice gives (None: this queue, as without a cluster)."""
    local = qm.queues.get(name)
    if (not isinstance(local, LocalQueue) or not _names_a_cluster(local)
            or not options & CMQC.MQOO_OUTPUT or options & ~_REMOTE_OPTIONS):
        return None
    return cluster_choice(qm, name, options, local)


def _names_a_cluster(queue: LocalQueue) -> bool:
    """CLUSTER or CLUSNL set: routing reads which clusters (and whether it is in one here)."""
    return any(str(queue.attrs.get(key, "") or "").strip() for key in ("CLUSTER", "CLUSNL"))


def cluster_choice(qm: QueueManagerState, name: str, options: int,
                   local: LocalQueue | None = None) -> Resolved | None:
    """The instance of cluster queue `name` a put reaches now: `local` (the queue of that
    name here, when it names a cluster) or one elsewhere, its messages for
    SYSTEM.CLUSTER.TRANSMIT.QUEUE; None when the records know no instance elsewhere."""
    route = cluster_route(qm, name, local) if cluster_route is not None else None
    if route is None:
        return None
    host, channel, defbind = route
    bind = _BINDS.get(options & (CMQC.MQOO_BIND_NOT_FIXED | CMQC.MQOO_BIND_ON_GROUP
                                 | CMQC.MQOO_BIND_ON_OPEN), defbind.replace("OPEN", ""))
    if not channel and local is not None:
        return Resolved(local, bind=bind)
    return Resolved(_cluster_xmitq(qm), None, Remote(name, host, None, channel), bind)


def _cluster_xmitq(qm: QueueManagerState) -> LocalQueue:
    xmitq = qm.queues.get(CLUSTER_XMITQ)
    if not isinstance(xmitq, LocalQueue):
        raise MQError(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    return xmitq


def _cluster_instance(qm: QueueManagerState, name: str, options: int) -> Resolved:
    """One instance the cluster records know of a queue not defined here; else 2085."""
    chosen = cluster_choice(qm, name, options)
    if chosen is None:
        raise MQError(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    return chosen


def _remote_definition(qm: QueueManagerState, definition: RemoteQueue) -> Resolved:
    """A QREMOTE opened by its own name: the queue RNAME at RQMNAME."""
    rname, rqmname = definition.attrs["RNAME"].strip(), definition.attrs["RQMNAME"].strip()
    if not rname:
        raise MQError(CMQC.MQRC_REMOTE_Q_NAME_ERROR)
    if is_local(qm, rqmname):
        raise MQError(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR)
    return _way_to(qm, rname, rqmname, definition)


def _through_qmgr_name(qm: QueueManagerState, name: str, qmgr_name: str) -> Resolved:
    """ObjectQMgrName names another queue manager (or an alias of one)."""
    definition = qm.queues.get(qmgr_name)
    if isinstance(definition, RemoteQueue):
        if definition.attrs["RNAME"].strip():
            raise MQError(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR)   # a queue, not a queue manager
        target = definition.attrs["RQMNAME"].strip() or qmgr_name
        if is_local(qm, target):
            return _local_name(qm, name)
        return _way_to(qm, name, target, definition)
    return _way_to(qm, name, qmgr_name, None)


def _way_to(qm: QueueManagerState, name: str, target: str,
            definition: RemoteQueue | None) -> Resolved:
    """Queue `name` at queue manager `target`, through `definition` (a QREMOTE or a
    queue-manager alias) if one was used: rule 3, the cluster coming after a transmission
    queue named explicitly or by the queue manager's name and before DEFXMITQ."""
    explicit = definition.attrs["XMITQ"].strip() if definition is not None else ""
    if not explicit and target not in qm.queues and cluster_member is not None:
        ask = not str(qm.attrs.get("DEFXMITQ", "")).strip()
        channel = cluster_member(qm, target, ask)
        if channel:
            return Resolved(_cluster_xmitq(qm), None, Remote(name, target, definition, channel))
    return Resolved(transmission_queue(qm, target, explicit), None,
                    Remote(name, target, definition))


def transmission_queue(qm: QueueManagerState, qmgr_name: str, explicit: str) -> LocalQueue:
    """The transmission queue that leads to `qmgr_name` (rule 3 above)."""
    if explicit:
        return _xmitq(qm.queues.get(explicit), CMQC.MQRC_UNKNOWN_XMIT_Q,
                      CMQC.MQRC_XMIT_Q_TYPE_ERROR, CMQC.MQRC_XMIT_Q_USAGE_ERROR)
    named = qm.queues.get(qmgr_name)
    if named is not None:
        return _xmitq(named, CMQC.MQRC_UNKNOWN_XMIT_Q, CMQC.MQRC_XMIT_Q_TYPE_ERROR,
                      CMQC.MQRC_XMIT_Q_USAGE_ERROR)
    default = str(qm.attrs.get("DEFXMITQ", "")).strip()
    if default:
        return _xmitq(qm.queues.get(default), CMQC.MQRC_UNKNOWN_DEF_XMIT_Q,
                      CMQC.MQRC_DEF_XMIT_Q_TYPE_ERROR, CMQC.MQRC_DEF_XMIT_Q_USAGE_ERROR)
    raise MQError(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR)


def transmission_queue_now(qm: QueueManagerState, remote: Remote, at_open: LocalQueue) -> LocalQueue:
    """The transmission queue a put through a handle opened to `remote` uses now (see the
    module docstring); its error only when the queue the open chose is gone too."""
    if remote.channel:   # a cluster queue's instance or member: always clustering's own queue
        return at_open
    definition = remote.definition
    if definition is not None:   # a definition replaced since the open is read as it is now
        current = qm.queues.get(definition.name)
        definition = current if isinstance(current, RemoteQueue) else definition
    explicit = definition.attrs["XMITQ"].strip() if definition is not None else ""
    try:
        return transmission_queue(qm, remote.qmgr_name, explicit)
    except MQError:
        if qm.queues.get(at_open.name) is at_open:
            return at_open
        raise


def _xmitq(queue: object, unknown: int, wrong_type: int, wrong_usage: int) -> LocalQueue:
    if queue is None:
        raise MQError(unknown)
    if not isinstance(queue, LocalQueue):
        raise MQError(wrong_type)
    if queue.attrs.get("USAGE") != XMITQ_USAGE:
        raise MQError(wrong_usage)
    return queue


def reply_to(qm: QueueManagerState, reply_to_q: str) -> tuple[str, str]:
    """(ReplyToQ, ReplyToQMgr) stored for a put whose ReplyToQMgr is blank: a ReplyToQ that
    names a remote queue definition is a reply-to queue alias, its RNAME and RQMNAME are
    stored (its XMITQ is not used); any other, this queue manager."""
    definition = qm.queues.get(reply_to_q)
    if isinstance(definition, RemoteQueue):
        return (definition.attrs["RNAME"].strip() or reply_to_q,
                definition.attrs["RQMNAME"].strip() or qm.name)
    return reply_to_q, qm.name
