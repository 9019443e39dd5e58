"""The authority checks of MQOPEN and MQPUT1 (runs in the queue-manager process, under its
lock; only on a queue manager started with users, see core/security/__init__.py).

MQOPEN needs, on the object it names (an alias's own name, a model queue's name), one
authority per open option: input GET, browse BROWSE, output PUT, inquire INQ, set SET, and
the context options SETID, SETALL, PASSID and PASSALL; SETID and SETALL are needed on the
queue manager as well ("authorizations must be granted on both the appropriate queue object
and also on the queue manager object", MQ's "Granting authority to set context"). Opening a
model queue, which creates a dynamic queue from it, also needs DSP on the model. A
queue-manager object opened to inquire needs INQ on the queue manager. MQPUT1 opens the
queue the same way (put.put1). The user whose MQOPEN created a dynamic queue holds every
authority on it. MQCLOSE deleting a permanent dynamic queue (MQCO_DELETE, MQCO_DELETE_PURGE)
through a handle that did not create it needs DLT on the queue for the connection's user
(IBM's MQCLOSE: "the user identifier that was used to validate the MQOPEN call"; this queue
manager does not keep an open's alternate user with its handle). MQSUB given the handle of
its destination queue needs PUT on that queue for the subscription's user. A refusal is
MQRC_NOT_AUTHORIZED, as in MQ; a queue that does not exist is left to the open
(MQRC_UNKNOWN_OBJECT_NAME).

Alternate user authority (MQOO_ALTERNATE_USER_AUTHORITY, MQPMO_ALTERNATE_USER_AUTHORITY on
MQPUT1, MQSO_ALTERNATE_USER_AUTHORITY on MQSUB): the connection's user must hold ALTUSR on
the queue manager, and the object's authorities are then checked for the MQOD's (MQSD's)
AlternateUserId instead, except the context authorities, which MQ still checks for the
connection's user. A blank AlternateUserId names nobody: such an open succeeds only where it
needs no authority. Without the option the field is ignored. AlternateSecurityId is not
used: MQ uses it only on Windows (a SID), and this queue manager is MQ on Unix.
"""
from __future__ import annotations

from collections.abc import Iterable

from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.queue_objects import ModelQueue
from spark_mq.embedded.server.core.security import refusal_log as refusals
from spark_mq.embedded.server.core.security.security_state import enforced, groups_of, privileged, security_of
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.mqi.constants import CMQC, CMQCFC

_INPUT = CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INPUT_EXCLUSIVE
#: open option -> the authority it needs on the object
_OPEN_AUTHORITIES = (
    (_INPUT, CMQCFC.MQAUTH_INPUT),
    (CMQC.MQOO_BROWSE, CMQCFC.MQAUTH_BROWSE),
    (CMQC.MQOO_OUTPUT, CMQCFC.MQAUTH_OUTPUT),
    (CMQC.MQOO_INQUIRE, CMQCFC.MQAUTH_INQUIRE),
    (CMQC.MQOO_SET, CMQCFC.MQAUTH_SET),
    (CMQC.MQOO_SET_IDENTITY_CONTEXT, CMQCFC.MQAUTH_SET_IDENTITY_CONTEXT),
    (CMQC.MQOO_SET_ALL_CONTEXT, CMQCFC.MQAUTH_SET_ALL_CONTEXT),
    (CMQC.MQOO_PASS_IDENTITY_CONTEXT, CMQCFC.MQAUTH_PASS_IDENTITY_CONTEXT),
    (CMQC.MQOO_PASS_ALL_CONTEXT, CMQCFC.MQAUTH_PASS_ALL_CONTEXT),
)


#: what MQ checks for the connection's own user even with an alternate user (MQOD AlternateUserId)
_CONTEXT_AUTHORITIES = frozenset({
    CMQCFC.MQAUTH_SET_IDENTITY_CONTEXT, CMQCFC.MQAUTH_SET_ALL_CONTEXT,
    CMQCFC.MQAUTH_PASS_IDENTITY_CONTEXT, CMQCFC.MQAUTH_PASS_ALL_CONTEXT})
#: the context authorities MQ also checks on the queue manager object
_QMGR_CONTEXT_AUTHORITIES = frozenset({
    CMQCFC.MQAUTH_SET_IDENTITY_CONTEXT, CMQCFC.MQAUTH_SET_ALL_CONTEXT})


def open_authorities(options: int) -> set[int]:
    """The authorities MQOPEN's options need on the object itself."""
    return {authority for option, authority in _OPEN_AUTHORITIES if options & option}


def check(qm: QueueManagerState, user: str, object_type: int, name: str,
          needed: Iterable[int]) -> None:
    """Raise MQError(MQRC_NOT_AUTHORIZED) unless `user` holds every authority in `needed`
    (a blank user, an alternate user left blank, holds none)."""
    wanted = set(needed)
    if not wanted:
        return
    if not user:
        refusals.missing_authority(qm.name, user, object_type, name, wanted)
        raise MQError(CMQC.MQRC_NOT_AUTHORIZED)
    if privileged(qm, user):
        return
    state = security_of(qm)
    if object_type == CMQC.MQOT_Q and state.dynamic_owners.get(name) == user:
        return
    held = state.authority.holds(object_type, name, user, groups_of(qm, user))
    if not wanted <= held:
        refusals.missing_authority(qm.name, user, object_type, name, wanted - held)
        raise MQError(CMQC.MQRC_NOT_AUTHORIZED)


def acting_user(qm: QueueManagerState, user: str, alternate_user: str, alternate: bool) -> str:
    """Whom an open's (or a subscription's) authority checks are for: `user`, the
    connection's, unless `alternate` (the verb's ALTERNATE_USER_AUTHORITY option) asks for
    `alternate_user`, which needs ALTUSR on the queue manager. A queue manager without users
    checks nothing, but a subscription still belongs to the alternate user, as in MQ."""
    if not alternate:
        return user
    if not enforced(qm):
        return alternate_user or user
    check(qm, user, CMQC.MQOT_Q_MGR, qm.name, {CMQCFC.MQAUTH_ALT_USER_AUTHORITY})
    return alternate_user


def check_open(qm: QueueManagerState, user: str, object_type: int, name: str,
               options: int, alternate_user: str = "") -> None:
    """MQOPEN's (and MQPUT1's) authority checks; nothing on an unsecured queue manager.
    `alternate_user`: the MQOD's AlternateUserId, used with MQOO_ALTERNATE_USER_AUTHORITY."""
    if not enforced(qm):
        return
    checked = acting_user(qm, user, alternate_user,
                          bool(options & CMQC.MQOO_ALTERNATE_USER_AUTHORITY))
    needed = open_authorities(options)
    context = needed & _CONTEXT_AUTHORITIES
    if object_type == CMQC.MQOT_Q_MGR:
        check(qm, checked, CMQC.MQOT_Q_MGR, qm.name, needed)
    elif object_type == CMQC.MQOT_Q and name in qm.queues:
        if isinstance(qm.queues[name], ModelQueue):  # the dynamic queue copies the model's attributes
            needed.add(CMQCFC.MQAUTH_DISPLAY)
        check(qm, checked, CMQC.MQOT_Q, name, needed - context)
        check(qm, user, CMQC.MQOT_Q, name, context)
        check(qm, user, CMQC.MQOT_Q_MGR, qm.name, context & _QMGR_CONTEXT_AUTHORITIES)
    elif object_type in (CMQC.MQOT_NAMELIST, CMQC.MQOT_PROCESS):
        check(qm, checked, object_type, name, needed)
    elif object_type == CMQC.MQOT_TOPIC:
        check_topic(qm, checked, name, options)


def check_remote_qmgr(qm: QueueManagerState, user: str, qmgr_name: str, options: int,
                      alternate_user: str = "") -> None:
    """An open through ObjectQMgrName: IBM MQ checks the remote queue manager's name
    (setmqaut -t rqmname profiles) for the put, not a queue."""
    if not enforced(qm):
        return
    checked = acting_user(qm, user, alternate_user,
                          bool(options & CMQC.MQOO_ALTERNATE_USER_AUTHORITY))
    needed = open_authorities(options)
    context = needed & _CONTEXT_AUTHORITIES
    check(qm, checked, CMQC.MQOT_REMOTE_Q_MGR_NAME, qmgr_name, needed - context)
    check(qm, user, CMQC.MQOT_Q_MGR, qm.name, context & _QMGR_CONTEXT_AUTHORITIES)


def check_topic(qm: QueueManagerState, user: str, topic_object: str, options: int) -> None:
    """Publishing (MQOO_OUTPUT) needs PUB, subscribing SUB, on the topic object's profile."""
    if not enforced(qm):
        return
    needed = set()
    if options & CMQC.MQOO_OUTPUT:
        needed.add(CMQCFC.MQAUTH_PUBLISH)
    if options & (_INPUT | CMQC.MQOO_BROWSE):
        needed.add(CMQCFC.MQAUTH_SUBSCRIBE)
    check(qm, user, CMQC.MQOT_TOPIC, topic_object, needed)


def check_delete_dynamic(qm: QueueManagerState, user: str, queue_name: str) -> None:
    """MQCLOSE deleting a permanent dynamic queue through a handle that did not create it."""
    if enforced(qm):
        check(qm, user, CMQC.MQOT_Q, queue_name, {CMQCFC.MQAUTH_DELETE})


def check_destination(qm: QueueManagerState, user: str, queue_name: str) -> None:
    """MQSUB's destination queue, given by a handle: publications are put on it for `user`."""
    if enforced(qm):
        check(qm, user, CMQC.MQOT_Q, queue_name, {CMQCFC.MQAUTH_OUTPUT})


def created_dynamic(qm: QueueManagerState, queue_name: str, user: str) -> None:
    """Remember who created a dynamic queue: its creator holds every authority on it."""
    if enforced(qm):
        security_of(qm).dynamic_owners[queue_name] = user
