"""The authority checks of MQOPEN and MQPUT1 (runs in the queue-manager process, under its
lock; only on a queue manager started with users, see security/__init__.py).

MQOPEN needs, on the object it names (an alias's own name, a model queue's name), one
authority per open option: input GET, browse BROWSE, output PUT, inquire INQ, set SET, and
the context options SETID, SETALL, PASSID and PASSALL; MQOO_ALTERNATE_USER_AUTHORITY needs
ALTUSR on the queue manager. A queue-manager object opened to inquire needs INQ on the
queue manager. MQPUT1 opens the queue the same way (put.put1). The user whose MQOPEN created
a dynamic queue holds every authority on it. A refusal is MQRC_NOT_AUTHORIZED, as in MQ; a
queue that does not exist is left to the open (MQRC_UNKNOWN_OBJECT_NAME).
"""
from __future__ import annotations

from collections.abc import Iterable

from spark_mq.embedded.server.errors import MQError
from spark_mq.embedded.server.security.state import enforced, groups_of, privileged, security_of
from spark_mq.embedded.server.state import QueueManagerState
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


def open_authorities(options: int) -> set[int]:
    """The authorities MQOPEN's options need on the object itself."""
    return {authority for option, authority in _OPEN_AUTHORITIES if options & option}


def check(qm: QueueManagerState, user: str, object_type: int, name: str,
          needed: Iterable[int]) -> None:
    """Raise MQError(MQRC_NOT_AUTHORIZED) unless `user` holds every authority in `needed`."""
    wanted = set(needed)
    if not wanted or privileged(qm, user):
        return
    state = security_of(qm)
    if object_type == CMQC.MQOT_Q and state.dynamic_owners.get(name) == user:
        return
    held = state.authority.holds(object_type, name, user, groups_of(qm, user))
    if not wanted <= held:
        raise MQError(CMQC.MQRC_NOT_AUTHORIZED)


def check_open(qm: QueueManagerState, user: str, object_type: int, name: str,
               options: int) -> None:
    """MQOPEN's (and MQPUT1's) authority checks; nothing on an unsecured queue manager."""
    if not enforced(qm):
        return
    if options & CMQC.MQOO_ALTERNATE_USER_AUTHORITY:
        check(qm, user, CMQC.MQOT_Q_MGR, qm.name, {CMQCFC.MQAUTH_ALT_USER_AUTHORITY})
    if object_type == CMQC.MQOT_Q_MGR:
        check(qm, user, CMQC.MQOT_Q_MGR, qm.name, open_authorities(options))
    elif object_type == CMQC.MQOT_Q and name in qm.queues:
        check(qm, user, CMQC.MQOT_Q, name, open_authorities(options))
    elif object_type == CMQC.MQOT_NAMELIST:
        check(qm, user, CMQC.MQOT_NAMELIST, name, open_authorities(options))
    elif object_type == CMQC.MQOT_TOPIC:
        check_topic(qm, user, name, options)


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


def created_dynamic(qm: QueueManagerState, queue_name: str, user: str) -> None:
    """Remember who created a dynamic queue: its creator holds every authority on it."""
    if enforced(qm):
        security_of(qm).dynamic_owners[queue_name] = user
