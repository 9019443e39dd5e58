"""The queue manager and connection commands: Inquire/Change Queue Manager, Ping Queue
Manager, Refresh Queue Manager and Inquire Connection (runs in the queue-manager process,
under the queue manager's lock).

Queue-manager attributes are answered by qmgr_attributes.qmgr_value, the function MQINQ uses,
so PCF, MQINQ and DISPLAY QMGR agree.
"""
from __future__ import annotations

from spark_mq.embedded.server.admin.command_server import pcf
from spark_mq.embedded.server.admin.command_server.attributes import Value, is_int_selector, padded
from spark_mq.embedded.server.admin.command_server.pcf import PARM_ID_ERRORS, PCFError
from spark_mq.embedded.server.admin.command_server.queue_commands import appl_type
from spark_mq.embedded.server.admin.command_server.request import Reply, Request, encode, passes
from spark_mq.embedded.server.admin.mqsc_apply import apply_command
from spark_mq.embedded.server.clusters.definitions import ClusterRefused
from spark_mq.embedded.server.core.mqsc_attributes import QMGR_ATTRIBUTES
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand
from spark_mq.embedded.server.core.qmgr_attributes import CHAR_LENGTHS, KEYWORD_SWITCHES, qmgr_value
from spark_mq.embedded.server.core.state import Connection
from spark_mq.mqi.constants import CMQC, CMQCFC

#: every MQIA_*/MQCA_* selector: the candidates for Inquire Queue Manager's MQIACF_ALL
_SELECTORS = sorted({value for name, value in vars(CMQC).items()
                     if name.startswith(("MQIA_", "MQCA_")) and isinstance(value, int)
                     and (is_int_selector(value) or CMQC.MQCA_FIRST <= value <= CMQC.MQCA_LAST)})
_MAX_REFRESH_INTERVAL = 999999
#: Change Queue Manager's parameters -> the QMGR attribute (mqsc_attributes.QMGR_ATTRIBUTES)
_QMGR_CHANGES = {
    CMQC.MQCA_Q_MGR_DESC: "DESCR",
    CMQC.MQCA_DEAD_LETTER_Q_NAME: "DEADQ",
    CMQC.MQIA_MAX_MSG_LENGTH: "MAXMSGL",
    CMQC.MQIA_MAX_UNCOMMITTED_MSGS: "MAXUMSGS",
    CMQC.MQIA_MAX_PROPERTIES_LENGTH: "MAXPROPL",
    CMQC.MQIA_MAX_HANDLES: "MAXHANDS",
    CMQC.MQIA_TRIGGER_INTERVAL: "TRIGINT",
    CMQC.MQCA_CONN_AUTH: "CONNAUTH",
    CMQC.MQCA_SSL_KEY_REPOSITORY: "SSLKEYR",
    CMQC.MQCA_CERT_LABEL: "CERTLABL",
    CMQC.MQCA_DEF_XMIT_Q_NAME: "DEFXMITQ",
    CMQC.MQCA_REPOSITORY_NAME: "REPOS",
    CMQC.MQCA_REPOSITORY_NAMELIST: "REPOSNL",
    CMQC.MQIA_CLWL_MRU_CHANNELS: "CLWLMRUC",
}


# === queue manager ========================================================================
def inquire_q_mgr(request: Request) -> list[Reply]:
    """MQCMD_INQUIRE_Q_MGR: one reply, the name first, then what MQIACF_Q_MGR_ATTRS asks for
    (everything the queue manager answers MQINQ for, by default)."""
    qm = request.qm
    selectors = request.integers(CMQCFC.MQIACF_Q_MGR_ATTRS)
    if selectors is None or CMQCFC.MQIACF_ALL in selectors:
        selectors = _SELECTORS
    values: dict[int, Value | list[int]] = {
        CMQC.MQCA_Q_MGR_NAME: padded(qm.name, CMQC.MQ_Q_MGR_NAME_LENGTH)}
    for selector in selectors:
        value = qmgr_value(qm, selector)
        if value is None or selector in values:
            continue  # not a queue-manager attribute here: left out, as MQ leaves out others
        values[selector] = value if isinstance(value, int) \
            else value[:CHAR_LENGTHS.get(selector, len(value))].ljust(CHAR_LENGTHS.get(selector, 0), b" ")
    return [Reply(encode(values))]


def change_q_mgr(request: Request) -> list[Reply]:
    """MQCMD_CHANGE_Q_MGR: ALTER QMGR with the attributes the embedded queue manager keeps,
    validated as MQSC validates them."""
    changes: dict[str, object] = {}
    for parameter in request.parameters.values():
        if parameter.id == CMQCFC.MQIACF_FORCE:
            continue
        if parameter.id in KEYWORD_SWITCHES and type(parameter.value) is int:
            # PCF gives an MQEVR_* or MQMON_* number where MQSC gives a keyword
            switch, numbers = KEYWORD_SWITCHES[parameter.id]
            setting = next((w for w, n in numbers.items() if n == parameter.value), None)
            if setting is None:
                raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, parameter.id)
            changes[switch] = setting
            continue
        keyword = _QMGR_CHANGES.get(parameter.id)
        spec = QMGR_ATTRIBUTES.get(keyword) if keyword else None
        if keyword is None or spec is None:
            raise PCFError(PARM_ID_ERRORS.get(parameter.type, CMQCFC.MQRCCF_PARM_SYNTAX_ERROR),
                           parameter.id)
        word = pcf.text(parameter.value) if isinstance(parameter.value, bytes) else str(parameter.value)
        try:
            changes[keyword] = spec.coerce(word, quoted=True)
        except ValueError:
            raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, parameter.id) from None
    try:
        apply_command(request.qm, MQSCCommand("ALTER", "QMGR", "", changes))
    except ClusterRefused as refused:
        raise PCFError(refused.pcf_reason) from None
    except ValueError:
        raise PCFError(CMQCFC.MQRCCF_COMMAND_FAILED) from None
    return [Reply()]


#: Refresh Queue Manager's ObjectType -> REFRESH QMGR's OBJECT: the types kept here
_REFRESHED_TYPES = {
    CMQC.MQOT_ALL: "ALL", CMQC.MQOT_Q: "QUEUE", CMQC.MQOT_LOCAL_Q: "QLOCAL",
    CMQC.MQOT_ALIAS_Q: "QALIAS", CMQC.MQOT_MODEL_Q: "QMODEL", CMQC.MQOT_REMOTE_Q: "QREMOTE",
    CMQC.MQOT_Q_MGR: "QMGR", CMQC.MQOT_CHANNEL: "CHANNEL", CMQC.MQOT_NAMELIST: "NAMELIST",
    CMQC.MQOT_PROCESS: "PROCESS", CMQC.MQOT_AUTH_INFO: "AUTHINFO", CMQC.MQOT_TOPIC: "TOPIC"}
#: what REFRESH QMGR TYPE(...) each RefreshType is; MQRT_EXPIRY and MQRT_EARLY are z/OS's
_REFRESH_TYPES = {CMQCFC.MQRT_CONFIGURATION: "CONFIGEV", CMQCFC.MQRT_PROXYSUB: "PROXYSUB"}


def refresh_q_mgr(request: Request) -> list[Reply]:
    """MQCMD_REFRESH_Q_MGR: REFRESH QMGR TYPE(CONFIGEV) for MQRT_CONFIGURATION, with
    ObjectType, ObjectName and RefreshInterval as OBJECT, NAME and REFINT (one Refresh
    object event per object selected, admin/config_objects.py); MQRT_PROXYSUB has no proxy
    subscriptions to resynchronize here."""
    refresh_type = _REFRESH_TYPES.get(request.integer(CMQCFC.MQIACF_REFRESH_TYPE, 0))
    if refresh_type is None:
        raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, CMQCFC.MQIACF_REFRESH_TYPE)
    object_type = _REFRESHED_TYPES.get(request.integer(CMQCFC.MQIACF_OBJECT_TYPE, CMQC.MQOT_ALL))
    if object_type is None:
        raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, CMQCFC.MQIACF_OBJECT_TYPE)
    name = request.string(CMQCFC.MQCACF_OBJECT_NAME, "*")
    interval = request.integer(CMQCFC.MQIACF_REFRESH_INTERVAL, 0)
    if not 0 <= interval <= _MAX_REFRESH_INTERVAL:
        raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, CMQCFC.MQIACF_REFRESH_INTERVAL)
    attributes: dict[str, object] = {"TYPE": refresh_type, "OBJECT": object_type,
                                     "NAME": name or "*", "REFINT": interval}
    try:
        apply_command(request.qm, MQSCCommand("REFRESH", "QMGR", "", attributes))
    except ValueError:
        raise PCFError(CMQCFC.MQRCCF_COMMAND_FAILED) from None
    return [Reply()]


def ping_q_mgr(request: Request) -> list[Reply]:
    """MQCMD_PING_Q_MGR: the command server is there to answer."""
    return [Reply()]


# === connections ==========================================================================
def connection_id(request: Request, conn: Connection) -> bytes:
    """A connection's 24-byte identifier: 'AMQC', the queue manager's name, the number."""
    return (b"AMQC" + request.qm.name.encode()[:12].ljust(12, b" ")
            + conn.conn_id.to_bytes(8, "big"))


def inquire_connection(request: Request) -> list[Reply]:
    """MQCMD_INQUIRE_CONNECTION: one reply per connection (MQIACF_CONN_INFO_CONN), per open
    handle (MQIACF_CONN_INFO_HANDLE) or both (MQIACF_CONN_INFO_ALL). An empty generic
    connection id selects every connection."""
    wanted_id = b""
    for parameter in (CMQCFC.MQBACF_CONNECTION_ID, CMQCFC.MQBACF_GENERIC_CONNECTION_ID):
        if request.has(parameter):
            wanted_id = bytes(request.parameters[parameter].value).rstrip(b"\0")
    info = request.integer(CMQCFC.MQIACF_CONN_INFO_TYPE, CMQCFC.MQIACF_CONN_INFO_CONN)
    if info not in (CMQCFC.MQIACF_CONN_INFO_CONN, CMQCFC.MQIACF_CONN_INFO_HANDLE,
                    CMQCFC.MQIACF_CONN_INFO_ALL):
        raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, CMQCFC.MQIACF_CONN_INFO_TYPE)
    replies = []
    selected = [c for _, c in sorted(request.qm.connections.items())
                if connection_id(request, c).startswith(wanted_id)]
    if not selected:
        raise PCFError(CMQCFC.MQRCCF_CONNECTION_ID_ERROR)
    for conn in selected:
        rows = []
        if info != CMQCFC.MQIACF_CONN_INFO_HANDLE:
            rows.append((CMQCFC.MQIACF_CONN_INFO_CONN, _connection_row(request, conn)))
        if info != CMQCFC.MQIACF_CONN_INFO_CONN:
            rows.extend((CMQCFC.MQIACF_CONN_INFO_HANDLE, row) for row in _handle_rows(conn))
        for kind, row in rows:
            values: dict[int, Value | list[int]] = {CMQCFC.MQIACF_CONN_INFO_TYPE: kind}
            values.update(request.chosen(row, CMQCFC.MQIACF_CONNECTION_ATTRS))
            if passes(request.filters, values):
                replies.append(Reply([pcf.cfbs(CMQCFC.MQBACF_CONNECTION_ID, connection_id(request, conn)),
                                      *encode(values)]))
    return replies


def _connection_row(request: Request, conn: Connection) -> dict[int, Value | list[int]]:
    # the channel and address a client came in through, once the listener records them
    channel = str(getattr(conn, "channel", "") or "")
    address = str(getattr(conn, "conn_name", "") or "")
    return {
        CMQCFC.MQCACF_APPL_TAG: padded(conn.appl_name, CMQC.MQ_APPL_TAG_LENGTH),
        CMQC.MQIA_APPL_TYPE: appl_type(request, conn.conn_id),
        CMQCFC.MQCACF_USER_IDENTIFIER: padded(conn.user, CMQC.MQ_USER_ID_LENGTH),
        CMQCFC.MQCACH_CHANNEL_NAME: padded(channel, CMQC.MQ_CHANNEL_NAME_LENGTH),
        CMQCFC.MQCACH_CONNECTION_NAME: padded(address, CMQC.MQ_CONN_NAME_LENGTH),
        CMQCFC.MQIACF_UOW_STATE: CMQCFC.MQUOWST_ACTIVE if conn.uow_puts or conn.uow_gets
        else CMQCFC.MQUOWST_NONE,
    }


def _handle_rows(conn: Connection) -> list[dict[int, Value | list[int]]]:
    rows: list[dict[int, Value | list[int]]] = []
    for handle in conn.handles.values():
        is_queue = handle.queue is not None
        rows.append({
            CMQCFC.MQCACF_OBJECT_NAME: padded(handle.name, CMQC.MQ_OBJECT_NAME_LENGTH),
            CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q if is_queue else CMQC.MQOT_Q_MGR,
            CMQCFC.MQIACF_OPEN_OPTIONS: handle.options,
            CMQCFC.MQIACF_HANDLE_STATE: CMQCFC.MQHSTATE_INACTIVE,
        })
    return rows

