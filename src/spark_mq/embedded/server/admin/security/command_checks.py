"""The authority checks of the PCF command server (runs in the queue-manager process, under
its lock; only on a queue manager started with users, see core/security/__init__.py).

As IBM MQ's command server on AIX, Linux and Windows, a command runs with the authority of
the user in its request's MQMD UserIdentifier:

* every command needs CONNECT and DSP on the queue manager;
* then what NEEDS says for the command: an authority on the object a parameter names (DSP
  to inquire, CHG to change, DLT to delete, CLR to clear), or on the queue manager (CHG
  for Change Queue Manager and for setting or deleting authority records, which IBM opens
  to non-administrators granted DSP and CHG on the queue manager);
* Create and Copy need CRT on the object type (IBM keeps it in the type's @class profile;
  here a record of the type that holds CRT, whatever its profile), or CHG on the object
  when they replace one that exists; also DSP on the object copied, or on the type's
  SYSTEM.DEFAULT object that a Create starts from;
* the subscription commands need what admin/security/subscription_checks.py says: CTRL on the
  topic to define, alter or delete a subscription, and for the subscription's user SUB on the
  topic and PUT on the destination; DSP on the topic (or owning it) to display one;
* the Inquire ... Names commands and Ping Queue Manager need nothing more.

A name that is not an object is left to the command, which answers MQRC_UNKNOWN_OBJECT_NAME
as MQOPEN does. A generic inquiry answers only the objects the user may display: the others
are left out, not refused (`display_filter`). A refusal is MQRC_NOT_AUTHORIZED (2035).
Administrators (members of mqm) hold every authority, as the user who created a dynamic
queue does on it (checks.check).
"""
from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

from spark_mq.embedded.server.admin.security import subscription_checks
from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core.named_kinds import BY_OBJECT_TYPE as NAMED_KINDS
from spark_mq.embedded.server.core.named_objects import NamedKind
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.security import checks
from spark_mq.embedded.server.core.security.authority import ENTITY_GROUP, ENTITY_PRINCIPAL
from spark_mq.embedded.server.core.security.security_state import enforced, groups_of, privileged, security_of
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.mqi.constants import CMQC, CMQCFC, CMQXC

if TYPE_CHECKING:
    from spark_mq.embedded.server.admin.command_server.request import Request

_CONNECT, _DSP, _CHG = CMQCFC.MQAUTH_CONNECT, CMQCFC.MQAUTH_DISPLAY, CMQCFC.MQAUTH_CHANGE
_DLT, _CLR, _CRT = CMQCFC.MQAUTH_DELETE, CMQCFC.MQAUTH_CLEAR, CMQCFC.MQAUTH_CREATE
_CTRL, _CTRLX = CMQCFC.MQAUTH_CONTROL, CMQCFC.MQAUTH_CONTROL_EXTENDED
_Q, _QMGR, _CHANNEL = CMQC.MQOT_Q, CMQC.MQOT_Q_MGR, CMQC.MQOT_CHANNEL
_TOPIC, _AUTH_INFO = CMQC.MQOT_TOPIC, CMQC.MQOT_AUTH_INFO


@dataclass(frozen=True)
class Need:
    """What one command needs beyond DSP on the queue manager: `authority` on the object of
    `object_type` that the parameter `name` names (None: on the queue manager itself).

    With MQAUTH_CREATE the command creates that object: `source` is the parameter naming
    the object a Copy copies, `defaults` the SYSTEM.DEFAULT object a Create starts from, by
    the value of the parameter `type_parameter` (None: the one default under the key 0)."""
    object_type: int
    authority: int
    name: int | None = None
    source: int | None = None
    type_parameter: int | None = None
    defaults: dict[int, str] | None = None


_QUEUE_DEFAULTS = {CMQC.MQQT_LOCAL: "SYSTEM.DEFAULT.LOCAL.QUEUE",
                   CMQC.MQQT_ALIAS: "SYSTEM.DEFAULT.ALIAS.QUEUE",
                   CMQC.MQQT_MODEL: "SYSTEM.DEFAULT.MODEL.QUEUE",
                   CMQC.MQQT_REMOTE: "SYSTEM.DEFAULT.REMOTE.QUEUE"}
_CHANNEL_DEFAULTS = {CMQXC.MQCHT_SVRCONN: "SYSTEM.DEF.SVRCONN",
                     CMQXC.MQCHT_CLNTCONN: "SYSTEM.DEF.CLNTCONN",
                     CMQXC.MQCHT_SENDER: "SYSTEM.DEF.SENDER",
                     CMQXC.MQCHT_RECEIVER: "SYSTEM.DEF.RECEIVER"}
_AUTH_INFO_DEFAULTS = {CMQC.MQAIT_IDPW_OS: "SYSTEM.DEFAULT.AUTHINFO.IDPWOS",
                       CMQC.MQAIT_IDPW_LDAP: "SYSTEM.DEFAULT.AUTHINFO.IDPWLDAP",
                       CMQC.MQAIT_CRL_LDAP: "SYSTEM.DEFAULT.AUTHINFO.CRLLDAP",
                       CMQC.MQAIT_OCSP: "SYSTEM.DEFAULT.AUTHINFO.OCSP"}


def _named_kind_needs(kind: NamedKind) -> dict[int, Need | None]:
    """A named object kind's six commands, as MQ checks them: display to inquire, create on
    the kind's SYSTEM.DEFAULT object to create (and on the target to copy), change, delete;
    Inquire ... Names needs nothing beyond DSP on the queue manager, as the other kinds'."""
    inquire, names, create, copy, change, delete = kind.pcf_commands
    copy_from, copy_to = kind.copy_parameters
    object_type, name = kind.object_type, kind.name_parameter
    return {
        inquire: Need(object_type, _DSP, name),
        names: None,
        create: Need(object_type, _CRT, name, defaults={0: f"SYSTEM.DEFAULT.{kind.kind}"}),
        copy: Need(object_type, _CRT, copy_to, copy_from),
        change: Need(object_type, _CHG, name),
        delete: Need(object_type, _DLT, name),
    }


#: command -> what it needs beyond CONNECT and DSP on the queue manager (None: nothing)
NEEDS: dict[int, Need | None] = {
    # queues
    CMQCFC.MQCMD_INQUIRE_Q: Need(_Q, _DSP, CMQC.MQCA_Q_NAME),
    CMQCFC.MQCMD_INQUIRE_Q_STATUS: Need(_Q, _DSP, CMQC.MQCA_Q_NAME),
    CMQCFC.MQCMD_INQUIRE_Q_NAMES: None,
    CMQCFC.MQCMD_CREATE_Q: Need(_Q, _CRT, CMQC.MQCA_Q_NAME, type_parameter=CMQC.MQIA_Q_TYPE,
                                defaults=_QUEUE_DEFAULTS),
    CMQCFC.MQCMD_COPY_Q: Need(_Q, _CRT, CMQCFC.MQCACF_TO_Q_NAME, CMQCFC.MQCACF_FROM_Q_NAME),
    CMQCFC.MQCMD_CHANGE_Q: Need(_Q, _CHG, CMQC.MQCA_Q_NAME),
    CMQCFC.MQCMD_DELETE_Q: Need(_Q, _DLT, CMQC.MQCA_Q_NAME),
    CMQCFC.MQCMD_CLEAR_Q: Need(_Q, _CLR, CMQC.MQCA_Q_NAME),
    # the queue manager, its connections and its authority records
    CMQCFC.MQCMD_INQUIRE_Q_MGR: Need(_QMGR, _DSP),
    CMQCFC.MQCMD_CHANGE_Q_MGR: Need(_QMGR, _CHG),
    CMQCFC.MQCMD_PING_Q_MGR: None,
    CMQCFC.MQCMD_INQUIRE_CONNECTION: Need(_QMGR, _DSP),
    CMQCFC.MQCMD_INQUIRE_AUTH_RECS: Need(_QMGR, _DSP),
    CMQCFC.MQCMD_SET_AUTH_REC: Need(_QMGR, _CHG),
    CMQCFC.MQCMD_DELETE_AUTH_REC: Need(_QMGR, _CHG),
    # channels
    CMQCFC.MQCMD_INQUIRE_CHANNEL: Need(_CHANNEL, _DSP, CMQCFC.MQCACH_CHANNEL_NAME),
    CMQCFC.MQCMD_INQUIRE_CHANNEL_NAMES: None,
    CMQCFC.MQCMD_CREATE_CHANNEL: Need(_CHANNEL, _CRT, CMQCFC.MQCACH_CHANNEL_NAME,
                                      type_parameter=CMQCFC.MQIACH_CHANNEL_TYPE,
                                      defaults=_CHANNEL_DEFAULTS),
    CMQCFC.MQCMD_CHANGE_CHANNEL: Need(_CHANNEL, _CHG, CMQCFC.MQCACH_CHANNEL_NAME),
    CMQCFC.MQCMD_DELETE_CHANNEL: Need(_CHANNEL, _DLT, CMQCFC.MQCACH_CHANNEL_NAME),
    CMQCFC.MQCMD_INQUIRE_CHANNEL_STATUS: Need(_CHANNEL, _DSP, CMQCFC.MQCACH_CHANNEL_NAME),
    CMQCFC.MQCMD_START_CHANNEL: Need(_CHANNEL, _CTRL, CMQCFC.MQCACH_CHANNEL_NAME),
    CMQCFC.MQCMD_STOP_CHANNEL: Need(_CHANNEL, _CTRL, CMQCFC.MQCACH_CHANNEL_NAME),
    CMQCFC.MQCMD_PING_CHANNEL: Need(_CHANNEL, _CTRL, CMQCFC.MQCACH_CHANNEL_NAME),
    CMQCFC.MQCMD_RESOLVE_CHANNEL: Need(_CHANNEL, _CTRLX, CMQCFC.MQCACH_CHANNEL_NAME),
    CMQCFC.MQCMD_RESET_CHANNEL: Need(_CHANNEL, _CTRLX, CMQCFC.MQCACH_CHANNEL_NAME),
    # authentication information
    CMQCFC.MQCMD_INQUIRE_AUTH_INFO: Need(_AUTH_INFO, _DSP, CMQC.MQCA_AUTH_INFO_NAME),
    CMQCFC.MQCMD_INQUIRE_AUTH_INFO_NAMES: None,
    CMQCFC.MQCMD_CREATE_AUTH_INFO: Need(_AUTH_INFO, _CRT, CMQC.MQCA_AUTH_INFO_NAME,
                                        type_parameter=CMQC.MQIA_AUTH_INFO_TYPE,
                                        defaults=_AUTH_INFO_DEFAULTS),
    CMQCFC.MQCMD_CHANGE_AUTH_INFO: Need(_AUTH_INFO, _CHG, CMQC.MQCA_AUTH_INFO_NAME),
    CMQCFC.MQCMD_DELETE_AUTH_INFO: Need(_AUTH_INFO, _DLT, CMQC.MQCA_AUTH_INFO_NAME),
    # the named object kinds: namelists, processes
    **{command: need for kind in NAMED_KINDS.values()
       for command, need in _named_kind_needs(kind).items()},
    # topics and subscriptions
    CMQCFC.MQCMD_INQUIRE_TOPIC: Need(_TOPIC, _DSP, CMQC.MQCA_TOPIC_NAME),
    CMQCFC.MQCMD_CREATE_TOPIC: Need(_TOPIC, _CRT, CMQC.MQCA_TOPIC_NAME,
                                    defaults={0: "SYSTEM.DEFAULT.TOPIC"}),
    CMQCFC.MQCMD_CHANGE_TOPIC: Need(_TOPIC, _CHG, CMQC.MQCA_TOPIC_NAME),
    CMQCFC.MQCMD_DELETE_TOPIC: Need(_TOPIC, _DLT, CMQC.MQCA_TOPIC_NAME),
    # subscriptions: subscription_checks.py's rule (their topic, their user, their destination)
    CMQCFC.MQCMD_INQUIRE_SUBSCRIPTION: None,
    CMQCFC.MQCMD_INQUIRE_SUB_STATUS: None,
    CMQCFC.MQCMD_CREATE_SUBSCRIPTION: None,
    CMQCFC.MQCMD_CHANGE_SUBSCRIPTION: None,
    CMQCFC.MQCMD_DELETE_SUBSCRIPTION: None,
    # MQSC in PCF: checked as the PCF command its text is (admin/command_server/escape_commands.py)
    CMQCFC.MQCMD_ESCAPE: None,
}
#: a command missing from NEEDS: what changing the queue manager needs, never less
_UNLISTED = Need(_QMGR, _CHG)


def _objects(qm: QueueManagerState, object_type: int) -> Collection[str]:
    """The names of the objects of one type (those the command server administers)."""
    if object_type == _Q:
        return qm.queues.keys()
    if object_type == _CHANNEL:
        return channels.table(qm).channels.keys()
    if object_type == _TOPIC:
        return qm.pubsub.topics.keys()
    if object_type in NAMED_KINDS:
        return NAMED_KINDS[object_type].table(qm).keys()
    if object_type == _AUTH_INFO:
        return security_of(qm).authinfos.keys()
    return ()


def _checked(request: Request) -> bool:
    """Whether the request's user is checked at all."""
    return enforced(request.qm) and not privileged(request.qm, request.user)


def check(request: Request) -> None:
    """Raise MQError(MQRC_NOT_AUTHORIZED) unless the request's user may run the command on
    the objects it names (a generic inquiry's objects are filtered, see display_filter)."""
    if not _checked(request):
        return
    qm, user = request.qm, request.user
    checks.check(qm, user, _QMGR, qm.name, {_CONNECT, _DSP})
    if request.command in subscription_checks.COMMANDS:
        subscription_checks.check(request)
        return
    need = NEEDS.get(request.command, _UNLISTED)
    if need is None:
        return
    if need.name is None:
        checks.check(qm, user, _QMGR, qm.name, {need.authority})
    elif need.authority == _CRT:
        _check_create(request, need, request.string(need.name))
    else:
        _check_object(request, need.object_type, request.string(need.name), need.authority)


def _check_object(request: Request, object_type: int, name: str, authority: int) -> None:
    """`authority` on one object, when it exists (else the command reports it unknown)."""
    if name in _objects(request.qm, object_type):
        checks.check(request.qm, request.user, object_type, name, {authority})


def _check_create(request: Request, need: Need, name: str) -> None:
    """Create or Copy of object `name`: CHG on it when it is replaced, else CRT on its
    type; DSP on the object the new one starts from."""
    replacing = request.integer(CMQCFC.MQIACF_REPLACE, CMQCFC.MQRP_NO) == CMQCFC.MQRP_YES
    if replacing and name in _objects(request.qm, need.object_type):
        checks.check(request.qm, request.user, need.object_type, name, {_CHG})
    elif not _may_create(request.qm, request.user, need.object_type):
        raise MQError(CMQC.MQRC_NOT_AUTHORIZED)
    if need.source is not None:
        _check_object(request, need.object_type, request.string(need.source), _DSP)
    elif need.defaults is not None:
        kind = 0 if need.type_parameter is None else request.integer(need.type_parameter, -1)
        default = need.defaults.get(kind)
        if default is not None:  # a type the command refuses: left to it
            checks.check(request.qm, request.user, need.object_type, default, {_DSP})


def _may_create(qm: QueueManagerState, user: str, object_type: int) -> bool:
    """CRT on an object type: held by the user or a group of theirs in any record of it."""
    entities = {(user, ENTITY_PRINCIPAL), *((group, ENTITY_GROUP) for group in groups_of(qm, user))}
    return any(key[1] == object_type and (key[2], key[3]) in entities and _CRT in held
               for key, held in security_of(qm).authority.records.items())


def display_filter(request: Request) -> tuple[int, Callable[[str], bool]] | None:
    """For an inquiry whose answer lists objects the user may not all display: the reply
    parameter naming each object and whether the user may display it; None: show all.
    Subscriptions are named by their SubId (MQBACF_SUB_ID, in hexadecimal as DISPLAY SUB
    shows SUBID): their names need not be unique."""
    if request.command in subscription_checks.INQUIRIES and _checked(request):
        return CMQCFC.MQBACF_SUB_ID, lambda sub_id: _may_display_subscription(request, sub_id)
    need = NEEDS.get(request.command, _UNLISTED)
    if need is None or need.authority != _DSP or need.name is None or not _checked(request):
        return None
    object_type = need.object_type

    def may_display(name: str) -> bool:
        try:
            checks.check(request.qm, request.user, object_type, name, {_DSP})
        except MQError:
            return False
        return True

    return need.name, may_display


def _may_display_subscription(request: Request, sub_id: str) -> bool:
    try:
        sub = request.qm.pubsub.subscriptions.get(bytes.fromhex(sub_id))
    except ValueError:
        return False
    return sub is not None and subscription_checks.may_display(request.qm, request.user, sub)
