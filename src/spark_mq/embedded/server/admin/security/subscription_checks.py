"""Who may define, delete and display subscriptions through the command server (runs in the
queue-manager process, under its lock; only on a queue manager started with users, for a
user outside mqm: command_checks.py calls these for the subscription commands, PCF and
MQSC alike, the MQSC ones seen as their PCF equivalents).

A subscription is administered through the topic object that covers its topic string: the
nearest topic object at or above it, then the next one up as far as SYSTEM.BASE.TOPIC, as
MQSUB's SUB authority is found (core/pubsub/topic_authority.py); authority on any of them is enough.

* Create Subscription (DEFINE SUB): the issuing user needs CTRL on the topic (the OAM's
  topic authority for administering subscriptions); the subscription's user (SUBUSER,
  default the issuing user) needs what MQSUB would need of it: SUB on the topic and PUT on
  the destination queue (DEST, at DESTQMGR when that names another queue manager; none for
  a managed destination, which the queue manager creates).
* Change Subscription (ALTER SUB), and a Create that replaces a subscription: CTRL on the
  topic of that subscription; a new SUBUSER needs SUB on the topic and PUT on the
  destination; a new DEST needs PUT for the subscription's user.
* Acting for another user: a SUBUSER other than the issuing user, or a new DEST for another
  user's subscription, also needs ALTUSR on the queue manager for the issuing user, as
  MQSUB's AlternateUserId does: else CTRL alone would let a user subscribe in mqm's name,
  or send another user's publications to its own queue.
* Delete Subscription (DELETE SUB): CTRL on the topic of every subscription it names, so a
  display-only user cannot remove another user's subscription.
* Inquire Subscription and Subscription Status (DISPLAY SUB, DISPLAY SBSTATUS): a user may
  display its own subscriptions (SUBUSER) and those under a topic it holds DSP on. A
  generic inquiry leaves the others out (`may_display`, through command_checks.display_filter,
  as for every other generic DISPLAY); naming one the user may not display is refused.

A refusal is MQRC_NOT_AUTHORIZED (2035), with the AMQ8077W line naming the missing
authority (core/security/refusal_log.py). A topic object or subscription that does not exist is
left to the command, which reports it as it reports it to anyone.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from spark_mq.embedded.server.admin.pubsub import administered
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.pubsub import topics
from spark_mq.embedded.server.core.pubsub.pubsub_state import Subscription
from spark_mq.embedded.server.core.pubsub.topic_authority import (
    SUBSCRIBE,
    authorize,
    authorize_administration,
)
from spark_mq.embedded.server.core.security import checks
from spark_mq.embedded.server.resolution import names
from spark_mq.mqi.constants import CMQC, CMQCFC

if TYPE_CHECKING:
    from spark_mq.embedded.server.admin.command_server.request import Request
    from spark_mq.embedded.server.core.state import QueueManagerState

_CTRL, _DSP = CMQCFC.MQAUTH_CONTROL, CMQCFC.MQAUTH_DISPLAY
#: the inquiries whose answers are subscriptions, keyed by SubId (see may_display)
INQUIRIES = frozenset({CMQCFC.MQCMD_INQUIRE_SUBSCRIPTION, CMQCFC.MQCMD_INQUIRE_SUB_STATUS})
COMMANDS = INQUIRIES | {CMQCFC.MQCMD_CREATE_SUBSCRIPTION, CMQCFC.MQCMD_CHANGE_SUBSCRIPTION,
                        CMQCFC.MQCMD_DELETE_SUBSCRIPTION}


def check(request: Request) -> None:
    """Raise MQError(MQRC_NOT_AUTHORIZED) unless the request's user may run this
    subscription command (see the module docstring)."""
    if request.command == CMQCFC.MQCMD_CREATE_SUBSCRIPTION:
        _check_create(request)
    elif request.command == CMQCFC.MQCMD_CHANGE_SUBSCRIPTION:
        for sub in _named(request):
            _check_change(request, sub)
    elif request.command == CMQCFC.MQCMD_DELETE_SUBSCRIPTION:
        for sub in _named(request):
            authorize_administration(request.qm, request.user, sub.topic_string, {_CTRL})
    elif request.command in INQUIRIES and not _generic(request):
        for sub in _named(request):
            if not may_display(request.qm, request.user, sub):
                raise MQError(CMQC.MQRC_NOT_AUTHORIZED)


def may_display(qm: QueueManagerState, user: str, sub: Subscription) -> bool:
    """Whether `user` may see `sub` in DISPLAY SUB or SBSTATUS: its own, or DSP on its topic."""
    if sub.user == user:
        return True
    try:
        authorize_administration(qm, user, sub.topic_string, {_DSP})
    except MQError:
        return False
    return True


def _generic(request: Request) -> bool:
    return not request.has(CMQCFC.MQBACF_SUB_ID) \
        and request.string(CMQCFC.MQCACF_SUB_NAME).endswith("*")


def _named(request: Request) -> list[Subscription]:
    """The subscriptions a SubName (generic with '*') or SubId names."""
    if request.has(CMQCFC.MQBACF_SUB_ID):
        sub_id = bytes(request.parameters[CMQCFC.MQBACF_SUB_ID].value)
        return administered.find_subscriptions(request.qm, sub_id=sub_id)
    name = request.string(CMQCFC.MQCACF_SUB_NAME)
    return administered.find_subscriptions(request.qm, name=name) if name else []


def _check_create(request: Request) -> None:
    qm, user = request.qm, request.user
    existing = qm.pubsub.named(request.string(CMQCFC.MQCACF_SUB_NAME))
    topic = _topic_string(request)
    if topic is None:
        if existing is None:
            return  # no topic it could subscribe to: the command refuses it
        topic = existing.topic_string
    if existing is not None:
        _check_change(request, existing)
    authorize_administration(qm, user, topic, {_CTRL})
    sub_user = request.string(CMQCFC.MQCACF_SUB_USER_ID) \
        or (existing.user if existing is not None else user)
    _check_acting_for(request, sub_user)
    authorize(qm, sub_user, topic, SUBSCRIBE)
    if request.integer(CMQCFC.MQIACF_DESTINATION_CLASS, CMQC.MQDC_PROVIDED) == CMQC.MQDC_PROVIDED:
        _check_destination(request, sub_user, request.string(CMQCFC.MQCACF_DESTINATION))


def _check_change(request: Request, sub: Subscription) -> None:
    """Change Subscription (ALTER SUB), or a Create that replaces `sub`: CTRL on its topic;
    a new owner, or a new destination of another user's subscription, acts for that user
    (ALTUSR); a new owner needs SUB on the topic and PUT on the destination it will have."""
    qm, user = request.qm, request.user
    authorize_administration(qm, user, sub.topic_string, {_CTRL})
    new_user = request.string(CMQCFC.MQCACF_SUB_USER_ID)
    sub_user = new_user or sub.user
    if new_user or request.string(CMQCFC.MQCACF_DESTINATION):
        _check_acting_for(request, sub_user)
    if new_user:
        authorize(qm, sub_user, sub.topic_string, SUBSCRIBE)
    if not sub.managed and request.command == CMQCFC.MQCMD_CHANGE_SUBSCRIPTION:
        destination = request.string(CMQCFC.MQCACF_DESTINATION)
        if destination or new_user:
            _check_destination(request, sub_user, destination or sub.destination)


def _check_acting_for(request: Request, sub_user: str) -> None:
    """A subscription made or redirected in another user's name: ALTUSR, as MQSUB's
    AlternateUserId needs (else CTRL alone would let a user subscribe as mqm)."""
    if sub_user != request.user:
        checks.check(request.qm, request.user, CMQC.MQOT_Q_MGR, request.qm.name,
                     {CMQCFC.MQAUTH_ALT_USER_AUTHORITY})


def _topic_string(request: Request) -> str | None:
    """The full topic string of a Create's TopicObject and TopicString; None when they name
    none (no topic given, or a topic object that does not exist)."""
    name, string = request.string(CMQC.MQCA_TOPIC_NAME), request.string(CMQC.MQCA_TOPIC_STRING)
    if not name and not string:
        return None
    try:
        return topics.topic_string(request.qm, name, string)
    except MQError:
        return None


def _check_destination(request: Request, sub_user: str, destination: str) -> None:
    """PUT on the destination for the subscription's user, resolved as an MQOPEN of DEST at
    DESTQMGR would be: another queue manager's name is checked as its rqmname profile."""
    qm = request.qm
    dest_qmgr = request.string(CMQCFC.MQCACF_DESTINATION_Q_MGR)
    if not destination:
        return
    if names.is_local(qm, dest_qmgr):
        checks.check_open(qm, sub_user, CMQC.MQOT_Q, destination, CMQC.MQOO_OUTPUT)
    else:
        checks.check_remote_qmgr(qm, sub_user, dest_qmgr, CMQC.MQOO_OUTPUT)
