"""Queue manager events (IBM docs "Queue manager events" and the page of each event): PCF
messages on SYSTEM.ADMIN.QMGR.EVENT, MQCFH Command MQCMD_Q_MGR_EVENT, Reason the reason
code of the failure the event reports. Runs in the queue-manager process; the verbs call the
hooks below as they refuse a call, under the queue manager's lock.

Each family has its ALTER QMGR switch, checked first (a switch that is off costs one
dictionary look-up):

* AUTHOREV, authority: Not Authorized type 1 (MQCONN refused, `connect_refused`), type 2
  (MQOPEN or MQPUT1 of a queue, namelist or process refused, `open_refused`; MQOPEN of a
  topic to publish on, `topic_open_refused`), type 3 (MQCLOSE with MQCO_DELETE or
  MQCO_DELETE_PURGE of a permanent dynamic queue by a handle that did not create it, for a
  user without +dlt on it, `close_refused`), type 4 (a command refused, `command_refused`),
  type 5 (MQSUB refused the topic, `subscribe_refused`), type 6 (MQSUB refused the
  destination queue whose handle it was given: no +put on it, `destination_refused`).
  Types 2 (topic) and 5 name the topic objects whose authority was checked
  (AdminTopicNames: the topic objects at or above the topic string, nearest first, as
  core/pubsub/topic_authority.py walks them). Type 3 of a subscription (MQCO_REMOVE_SUB by
  someone not its creator, without +sub) does not arise here: a subscription handle is held
  only by a user whose MQSUB passed the +sub check.
* INHIBTEV, inhibit: Get Inhibited (2016) and Put Inhibited (2051), `inhibited`: of a queue
  (QName) or of a topic (a publication on a topic whose PUB is DISABLED: TopicString).
* LOCALEV, local: Unknown Object Name (2085), Unknown Alias Base Queue (2082), Alias Base
  Queue Type Error (2001), from `open_refused`.
* REMOTEEV, remote: Unknown Remote Queue Manager (2087), Unknown Transmission Queue (2196),
  Transmission Queue Type Error (2091) and Usage Error (2092), Unknown Default Transmission
  Queue (2197), Default Transmission Queue Type Error (2198) and Usage Error (2199), Remote
  Queue Name Error (2184), from `open_refused`.
* STRSTPEV, start and stop: Queue Manager Active (2222) once the queue manager runs,
  Queue Manager Not Active (2223, ReasonQualifier MQRQ_Q_MGR_STOPPING) as it ends normally
  (`started`, `stopping`); a killed queue manager says nothing, as IBM's does not.

The event data is IBM's, in IBM's order; ApplType is MQAT_DEFAULT for every application (the
queue manager does not learn a client's platform). ConnName and ChannelName, which IBM
returns only for a client-attached application, end the Not Authorized events of types 1,
2, 3, 5 and 6 of a client (type 4 has none in IBM's list): the connection keeps the
server-connection channel it came in on and the client's address (verbs/connections.py).
The other events here leave them out.
"""
from __future__ import annotations

from spark_mq.embedded.server.core.pcf_structures import cfin, cfsl, cfst
from spark_mq.embedded.server.core.queue_objects import RemoteQueue
from spark_mq.embedded.server.core.state import Connection, QueueManagerState
from spark_mq.embedded.server.events.event_messages import QMGR_QUEUE, put_event
from spark_mq.mqi.constants import CMQC, CMQCFC

ENABLED = "ENABLED"
_LOCAL = frozenset({CMQC.MQRC_UNKNOWN_OBJECT_NAME, CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q,
                    CMQC.MQRC_ALIAS_BASE_Q_TYPE_ERROR})
_XMITQ_NAMED = frozenset({CMQC.MQRC_UNKNOWN_XMIT_Q, CMQC.MQRC_XMIT_Q_TYPE_ERROR,
                          CMQC.MQRC_XMIT_Q_USAGE_ERROR})
_DEFAULT_XMITQ = frozenset({CMQC.MQRC_UNKNOWN_DEF_XMIT_Q, CMQC.MQRC_DEF_XMIT_Q_TYPE_ERROR,
                            CMQC.MQRC_DEF_XMIT_Q_USAGE_ERROR})
_REMOTE = _XMITQ_NAMED | _DEFAULT_XMITQ | {CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR,
                                           CMQC.MQRC_REMOTE_Q_NAME_ERROR}
#: the MQOD name an MQOPEN of each object type names, as the event's parameter
_NAME_PARAMETERS = {CMQC.MQOT_Q: CMQC.MQCA_Q_NAME, CMQC.MQOT_PROCESS: CMQC.MQCA_PROCESS_NAME,
                    CMQC.MQOT_NAMELIST: CMQC.MQCA_NAMELIST_NAME,
                    CMQC.MQOT_Q_MGR: CMQC.MQCA_Q_MGR_NAME}
_APPL_TYPE: int = CMQC.MQAT_DEFAULT


def open_refused(qm: QueueManagerState, conn: Connection, obj_type: int, name: str,
                 qmgr_name: str, options: int, reason: int) -> None:
    """MQOPEN or MQPUT1 of (`name`, `qmgr_name`) with `options` failed with `reason`: a
    local, remote or authority event, if that one is ENABLED."""
    if reason in _LOCAL:
        if qm.attrs.get("LOCALEV") == ENABLED:
            _local(qm, conn, obj_type, name, qmgr_name, reason)
    elif reason in _REMOTE:
        if qm.attrs.get("REMOTEEV") == ENABLED:
            _remote(qm, conn, name, qmgr_name, reason)
    elif reason == CMQC.MQRC_NOT_AUTHORIZED and qm.attrs.get("AUTHOREV") == ENABLED:
        _put(qm, reason, [
            _qmgr(qm), cfin(CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQRQ_OPEN_NOT_AUTHORIZED),
            cfin(CMQCFC.MQIACF_OPEN_OPTIONS, options), _user(conn.user), *_appl(conn),
            *_object_qmgr(qm, qmgr_name),
            cfst(_NAME_PARAMETERS.get(obj_type, CMQC.MQCA_Q_NAME), name, CMQC.MQ_Q_NAME_LENGTH),
            *_client(conn)])


def inhibited(qm: QueueManagerState, conn: Connection, reason: int, name: str,
              qmgr_name: str = "", topic: str | None = None) -> None:
    """An MQGET (MQRC_GET_INHIBITED) or MQPUT/MQPUT1 (MQRC_PUT_INHIBITED) of the queue the
    application named `name` was refused; of a topic (`topic` its string, `name` unused),
    a publication refused by PUB(DISABLED)."""
    if qm.attrs.get("INHIBTEV") != ENABLED:
        return
    queue = [] if topic is not None else [cfst(CMQC.MQCA_Q_NAME, name, CMQC.MQ_Q_NAME_LENGTH)]
    parameters = [_qmgr(qm), *queue, *_appl(conn)]
    if reason == CMQC.MQRC_PUT_INHIBITED:
        parameters += _object_qmgr(qm, qmgr_name)
    if topic is not None:
        parameters.append(cfst(CMQC.MQCA_TOPIC_STRING, topic))
    _put(qm, reason, parameters)


def topic_open_refused(qm: QueueManagerState, conn: Connection, user: str, options: int,
                       topic: str, admin_topics: list[str]) -> None:
    """MQOPEN of `topic` refused for authority (`user` may not publish on it): Not
    Authorized (type 2), with the topic string and the topic objects checked."""
    if qm.attrs.get("AUTHOREV") != ENABLED:
        return
    _put(qm, CMQC.MQRC_NOT_AUTHORIZED, [
        _qmgr(qm), cfin(CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQRQ_OPEN_NOT_AUTHORIZED),
        cfin(CMQCFC.MQIACF_OPEN_OPTIONS, options), _user(user), *_appl(conn),
        cfst(CMQC.MQCA_TOPIC_STRING, topic), _admin_topics(admin_topics), *_client(conn)])


def close_refused(qm: QueueManagerState, conn: Connection, user: str, queue_name: str) -> None:
    """MQCLOSE deleting the permanent dynamic queue `queue_name` refused for authority:
    Not Authorized (type 3)."""
    if qm.attrs.get("AUTHOREV") != ENABLED:
        return
    _put(qm, CMQC.MQRC_NOT_AUTHORIZED, [
        _qmgr(qm), cfin(CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQRQ_CLOSE_NOT_AUTHORIZED),
        _user(user), *_appl(conn), cfst(CMQC.MQCA_Q_NAME, queue_name, CMQC.MQ_Q_NAME_LENGTH),
        *_client(conn)])


def connect_refused(qm: QueueManagerState, user: str, appl_name: str, with_password: bool,
                    channel: str | None = None, address: str = "") -> None:
    """MQCONN refused for authority: Not Authorized (type 1), qualified
    MQRQ_CSP_NOT_AUTHORIZED when an MQCSP user and password were refused; a client's
    (`channel` not None) with its ConnName and ChannelName, as IBM's."""
    if qm.attrs.get("AUTHOREV") != ENABLED:
        return
    qualifier = CMQCFC.MQRQ_CSP_NOT_AUTHORIZED if with_password \
        else CMQCFC.MQRQ_CONN_NOT_AUTHORIZED
    parameters = [_qmgr(qm), cfin(CMQCFC.MQIACF_REASON_QUALIFIER, qualifier), _user(user),
                  cfin(CMQC.MQIA_APPL_TYPE, _APPL_TYPE),
                  cfst(CMQCFC.MQCACF_APPL_NAME, appl_name, CMQC.MQ_APPL_NAME_LENGTH)]
    parameters += _client_of(channel, address)
    if with_password:
        parameters.append(cfst(CMQCFC.MQCACF_CSP_USER_IDENTIFIER, user))
    _put(qm, CMQC.MQRC_NOT_AUTHORIZED, parameters)


def subscribe_refused(qm: QueueManagerState, conn: Connection, user: str, options: int,
                      topic: str, admin_topics: list[str]) -> None:
    """MQSUB refused: `user` may not subscribe to `topic`: Not Authorized (type 5)."""
    if qm.attrs.get("AUTHOREV") != ENABLED:
        return
    _put(qm, CMQC.MQRC_NOT_AUTHORIZED, [
        _qmgr(qm), cfin(CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQRQ_SUB_NOT_AUTHORIZED),
        cfin(CMQCFC.MQIACF_SUB_OPTIONS, options), _user(user), *_appl(conn),
        cfst(CMQC.MQCA_TOPIC_STRING, topic), _admin_topics(admin_topics), *_client(conn)])


def destination_refused(qm: QueueManagerState, conn: Connection, user: str, options: int,
                        topic: str, queue_name: str, open_options: int) -> None:
    """MQSUB refused: `user` may not use `queue_name`, the destination the application gave
    by its handle, with `open_options` (what the subscription needs of it): Not Authorized
    (type 6). DestQMgrName is left out: a destination handle here is always to a queue of
    this queue manager."""
    if qm.attrs.get("AUTHOREV") != ENABLED:
        return
    _put(qm, CMQC.MQRC_NOT_AUTHORIZED, [
        _qmgr(qm), cfin(CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQRQ_SUB_DEST_NOT_AUTHORIZED),
        cfin(CMQCFC.MQIACF_SUB_OPTIONS, options), _user(user), *_appl(conn),
        cfst(CMQC.MQCA_TOPIC_STRING, topic),
        cfst(CMQC.MQCA_Q_NAME, queue_name, CMQC.MQ_Q_NAME_LENGTH),
        cfin(CMQCFC.MQIACF_OPEN_OPTIONS, open_options), *_client(conn)])


def command_refused(qm: QueueManagerState, user: str, command: int) -> None:
    """A PCF command (MQCMD_*) `user` may not run: Not Authorized (type 4)."""
    if qm.attrs.get("AUTHOREV") != ENABLED:
        return
    _put(qm, CMQC.MQRC_NOT_AUTHORIZED, [
        _qmgr(qm), cfin(CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQRQ_CMD_NOT_AUTHORIZED),
        cfin(CMQCFC.MQIACF_COMMAND, command), _user(user)])


def started(qm: QueueManagerState) -> None:
    """The queue manager runs: Queue Manager Active."""
    if qm.attrs.get("STRSTPEV") == ENABLED:
        _put(qm, CMQC.MQRC_Q_MGR_ACTIVE, [_qmgr(qm)])


def stopping(qm: QueueManagerState) -> None:
    """The queue manager is ending normally: Queue Manager Not Active."""
    if qm.attrs.get("STRSTPEV") == ENABLED:
        _put(qm, CMQC.MQRC_Q_MGR_NOT_ACTIVE, [
            _qmgr(qm), cfin(CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQRQ_Q_MGR_STOPPING)])


def _local(qm: QueueManagerState, conn: Connection, obj_type: int, name: str,
           qmgr_name: str, reason: int) -> None:
    parameters = [_qmgr(qm)]
    if reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME:
        parameters += [*_appl(conn), cfst(_NAME_PARAMETERS.get(obj_type, CMQC.MQCA_Q_NAME),
                                          name, CMQC.MQ_Q_NAME_LENGTH)]
    else:   # the alias events name the alias and what its TARGET names
        alias = qm.queues.get(name)
        target = str(alias.attrs.get("TARGET", "")) if alias is not None else ""
        parameters += [cfst(CMQC.MQCA_Q_NAME, name, CMQC.MQ_Q_NAME_LENGTH),
                       cfst(CMQC.MQCA_BASE_OBJECT_NAME, target, CMQC.MQ_Q_NAME_LENGTH),
                       *_appl(conn)]
    _put(qm, reason, [*parameters, *_object_qmgr(qm, qmgr_name)])


def _remote(qm: QueueManagerState, conn: Connection, name: str, qmgr_name: str,
            reason: int) -> None:
    parameters = [_qmgr(qm), cfst(CMQC.MQCA_Q_NAME, name, CMQC.MQ_Q_NAME_LENGTH)]
    if reason in _XMITQ_NAMED or reason in _DEFAULT_XMITQ:
        parameters.append(cfst(CMQC.MQCA_XMIT_Q_NAME, _xmitq(qm, name, qmgr_name, reason),
                               CMQC.MQ_Q_NAME_LENGTH))
    _put(qm, reason, [*parameters, *_appl(conn), *_object_qmgr(qm, qmgr_name)])


def _xmitq(qm: QueueManagerState, name: str, qmgr_name: str, reason: int) -> str:
    """The transmission queue the refused open was to use (resolution/names.py's rule)."""
    if reason in _DEFAULT_XMITQ:
        return str(qm.attrs.get("DEFXMITQ", "")).strip()
    definition = qm.queues.get(qmgr_name.strip() or name)
    if isinstance(definition, RemoteQueue):
        explicit = str(definition.attrs.get("XMITQ", "")).strip()
        return explicit or str(definition.attrs.get("RQMNAME", "")).strip()
    return qmgr_name.strip()


def _qmgr(qm: QueueManagerState) -> bytes:
    return cfst(CMQC.MQCA_Q_MGR_NAME, qm.name, CMQC.MQ_Q_MGR_NAME_LENGTH)


def _user(user: str) -> bytes:
    return cfst(CMQCFC.MQCACF_USER_IDENTIFIER, user, CMQC.MQ_USER_ID_LENGTH)


def _admin_topics(names: list[str]) -> bytes:
    return cfsl(CMQCFC.MQCACF_ADMIN_TOPIC_NAMES, names, CMQC.MQ_TOPIC_NAME_LENGTH)


def _appl(conn: Connection) -> list[bytes]:
    return [cfin(CMQC.MQIA_APPL_TYPE, _APPL_TYPE),
            cfst(CMQCFC.MQCACF_APPL_NAME, conn.appl_name, CMQC.MQ_APPL_NAME_LENGTH)]


def _client(conn: Connection) -> list[bytes]:
    """ConnName and ChannelName: IBM returns them only for a client-attached application."""
    return _client_of(conn.channel, conn.address)


def _client_of(channel: str | None, address: str) -> list[bytes]:
    if channel is None:
        return []
    return [cfst(CMQCFC.MQCACH_CONNECTION_NAME, address, CMQC.MQ_CONN_NAME_LENGTH),
            cfst(CMQCFC.MQCACH_CHANNEL_NAME, channel, CMQC.MQ_CHANNEL_NAME_LENGTH)]


def _object_qmgr(qm: QueueManagerState, qmgr_name: str) -> list[bytes]:
    """ObjectQMgrName: IBM returns it only when the MQOD named another queue manager."""
    named = qmgr_name.strip()
    if not named or named == qm.name:
        return []
    return [cfst(CMQCFC.MQCACF_OBJECT_Q_MGR_NAME, named, CMQC.MQ_Q_MGR_NAME_LENGTH)]


def _put(qm: QueueManagerState, reason: int, parameters: list[bytes]) -> None:
    put_event(qm, QMGR_QUEUE, CMQCFC.MQCMD_Q_MGR_EVENT, reason, parameters)
