"""Start, Stop, Ping, Reset and Resolve Channel and Inquire Channel Status (runs in the
queue-manager process, under its lock): the channel initiator's commands
(message_channels/initiator.py), as MQSC's START/STOP/PING/RESET/RESOLVE CHANNEL and DISPLAY
CHSTATUS run them, with IBM's PCF parameters and reasons."""
from __future__ import annotations

from collections.abc import Callable

from spark_mq.embedded.server.admin.command_server.attributes import Value, padded
from spark_mq.embedded.server.admin.command_server.channel_commands import CHANNEL_TYPES
from spark_mq.embedded.server.admin.command_server.pcf import PCFError
from spark_mq.embedded.server.admin.command_server.request import Reply, Request, encode, matches
from spark_mq.embedded.server.core import channel_status as statuses
from spark_mq.embedded.server.message_channels.initiator import ChannelInDoubt, initiator_of
from spark_mq.mqi.constants import CMQC, CMQCFC

#: the initiator's refusals (runmqsc's message numbers) -> IBM's PCF reasons
_REASONS = {"AMQ8147E": CMQCFC.MQRCCF_CHANNEL_NOT_FOUND, "AMQ9514E": CMQCFC.MQRCCF_CHANNEL_IN_USE,
            "AMQ9533E": CMQCFC.MQRCCF_CHANNEL_NOT_ACTIVE, "AMQ9558E": CMQCFC.MQRCCF_PING_ERROR}
_STATES = {statuses.INACTIVE: CMQCFC.MQCHS_INACTIVE, statuses.BINDING: CMQCFC.MQCHS_BINDING,
           statuses.STARTING: CMQCFC.MQCHS_STARTING, statuses.RUNNING: CMQCFC.MQCHS_RUNNING,
           statuses.STOPPING: CMQCFC.MQCHS_STOPPING, statuses.RETRYING: CMQCFC.MQCHS_RETRYING,
           statuses.STOPPED: CMQCFC.MQCHS_STOPPED, statuses.PAUSED: CMQCFC.MQCHS_PAUSED,
           statuses.REQUESTING: CMQCFC.MQCHS_REQUESTING}


def _run(request: Request, command: Callable[[str], str]) -> list[Reply]:
    try:
        command(request.string(CMQCFC.MQCACH_CHANNEL_NAME))
    except ChannelInDoubt:
        raise PCFError(CMQCFC.MQRCCF_CHANNEL_INDOUBT) from None
    except ValueError as exc:
        code = str(exc).split(":", 1)[0]
        raise PCFError(_REASONS.get(code, CMQCFC.MQRCCF_COMMAND_FAILED)) from None
    return [Reply()]


def start_channel(request: Request) -> list[Reply]:
    """MQCMD_START_CHANNEL."""
    return _run(request, initiator_of(request.qm).start_channel)


def stop_channel(request: Request) -> list[Reply]:
    """MQCMD_STOP_CHANNEL: ChannelStatus MQCHS_STOPPED (default) or MQCHS_INACTIVE."""
    wanted = request.integer(CMQCFC.MQIACH_CHANNEL_STATUS, CMQCFC.MQCHS_STOPPED)
    if wanted not in (CMQCFC.MQCHS_STOPPED, CMQCFC.MQCHS_INACTIVE):
        raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, CMQCFC.MQIACH_CHANNEL_STATUS)
    after = statuses.STOPPED if wanted == CMQCFC.MQCHS_STOPPED else statuses.INACTIVE
    return _run(request, lambda name: initiator_of(request.qm).stop_channel(name, after))


def ping_channel(request: Request) -> list[Reply]:
    """MQCMD_PING_CHANNEL."""
    return _run(request, initiator_of(request.qm).ping_channel)


def reset_channel(request: Request) -> list[Reply]:
    """MQCMD_RESET_CHANNEL: MsgSeqNumber (MQIACH_MSG_SEQUENCE_NUMBER, default 1)."""
    seq = request.integer(CMQCFC.MQIACH_MSG_SEQUENCE_NUMBER, 1)
    if not 1 <= seq <= 999_999_999:
        raise PCFError(CMQCFC.MQRCCF_MSG_SEQ_NUMBER_ERROR, CMQCFC.MQIACH_MSG_SEQUENCE_NUMBER)
    return _run(request, lambda name: initiator_of(request.qm).reset_channel(name, seq))


def resolve_channel(request: Request) -> list[Reply]:
    """MQCMD_RESOLVE_CHANNEL: InDoubt MQIDO_COMMIT or MQIDO_BACKOUT (required)."""
    action = {CMQCFC.MQIDO_COMMIT: "COMMIT", CMQCFC.MQIDO_BACKOUT: "BACKOUT"}.get(
        request.integer(CMQCFC.MQIACH_IN_DOUBT, 0))
    if action is None:
        raise PCFError(CMQCFC.MQRCCF_INDOUBT_VALUE_ERROR, CMQCFC.MQIACH_IN_DOUBT)
    return _run(request, lambda name: initiator_of(request.qm).resolve_channel(name, action))


def inquire_channel_status(request: Request) -> list[Reply]:
    """MQCMD_INQUIRE_CHANNEL_STATUS: one reply per channel instance with a status, current
    (ChannelInstanceType MQOT_CURRENT_CHANNEL, the default) or saved (MQOT_SAVED_CHANNEL:
    the common status fields, message_channels/saved_status.py)."""
    pattern = request.string(CMQCFC.MQCACH_CHANNEL_NAME)
    instance = request.integer(CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE, CMQC.MQOT_CURRENT_CHANNEL)
    if instance == CMQC.MQOT_SAVED_CHANNEL:
        return _saved_replies(request, pattern)
    if instance != CMQC.MQOT_CURRENT_CHANNEL:
        raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE)
    found = [status for status in statuses.table(request.qm).all() if matches(pattern, status.name)]
    if not found:
        raise PCFError(CMQCFC.MQRCCF_CHL_STATUS_NOT_FOUND)
    replies = []
    for status in found:
        shown = initiator_of(request.qm).display_status(status.name)
        attrs = dict(shown[0][1]) if shown else {}
        values: dict[int, Value | list[int]] = {
            CMQCFC.MQCACH_CHANNEL_NAME: padded(status.name, CMQC.MQ_CHANNEL_NAME_LENGTH),
            CMQCFC.MQIACH_CHANNEL_TYPE: CHANNEL_TYPES[status.chltype],
            CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE: CMQC.MQOT_CURRENT_CHANNEL,
            CMQCFC.MQIACH_CHANNEL_STATUS: _STATES[status.status],
            CMQCFC.MQCACH_CONNECTION_NAME: padded(status.conname, CMQC.MQ_CONN_NAME_LENGTH),
            CMQC.MQCA_REMOTE_Q_MGR_NAME: padded(status.rqmname, CMQC.MQ_Q_MGR_NAME_LENGTH),
            CMQCFC.MQIACH_MSGS: status.msgs, CMQCFC.MQIACH_BATCHES: status.batches,
            CMQCFC.MQIACH_CURRENT_MSGS: status.current_msgs,
            CMQCFC.MQIACH_CURRENT_SEQ_NUMBER: status.current_seq,
            CMQCFC.MQIACH_LAST_SEQ_NUMBER: status.last_seq,
            CMQCFC.MQIACH_BATCH_SIZE: status.batch_size,
            CMQCFC.MQIACH_MAX_MSG_LENGTH: status.max_msg_length,
            CMQCFC.MQIACH_INDOUBT_STATUS: (CMQCFC.MQCHIDS_INDOUBT if status.indoubt
                                           else CMQCFC.MQCHIDS_NOT_INDOUBT),
            CMQCFC.MQCACH_LAST_MSG_DATE: padded(str(attrs.get("LSTMSGDA", "")), CMQC.MQ_DATE_LENGTH),
            CMQCFC.MQCACH_LAST_MSG_TIME: padded(str(attrs.get("LSTMSGTI", "")), CMQC.MQ_TIME_LENGTH),
        }
        values.update(_current_only(status, attrs))
        if status.chltype in ("SDR", "SVR"):
            values[CMQCFC.MQCACH_XMIT_Q_NAME] = padded(status.xmitq, CMQC.MQ_Q_NAME_LENGTH)
            values[CMQCFC.MQIACH_XMITQ_MSGS_AVAILABLE] = int(str(attrs.get("XQMSGSA", 0)))
        replies.append(Reply(encode(values)))
    return replies


_SUBSTATES = {"": CMQCFC.MQCHSSTATE_OTHER, "MQGET": CMQCFC.MQCHSSTATE_IN_MQGET,
              "SEND": CMQCFC.MQCHSSTATE_SENDING, "RECEIVE": CMQCFC.MQCHSSTATE_RECEIVING,
              "MQPUT": CMQCFC.MQCHSSTATE_IN_MQPUT,
              "NETCONNECT": CMQCFC.MQCHSSTATE_NET_CONNECTING}


def _current_only(status: statuses.ChannelStatus, attrs: dict) -> dict[int, Value | list[int]]:
    """The current-only fields DISPLAY CHSTATUS ALL shows, by their PCF names."""
    return {
        CMQCFC.MQIACH_CHANNEL_SUBSTATE: _SUBSTATES.get(str(attrs.get("SUBSTATE", "")),
                                                       CMQCFC.MQCHSSTATE_OTHER),
        CMQCFC.MQIACH_STOP_REQUESTED: (CMQCFC.MQCHSR_STOP_REQUESTED if status.stop_requested
                                       else CMQCFC.MQCHSR_STOP_NOT_REQUESTED),
        CMQCFC.MQIACH_BYTES_SENT: status.traffic.bytes_sent,
        CMQCFC.MQIACH_BYTES_RECEIVED: status.traffic.bytes_received,
        CMQCFC.MQIACH_BUFFERS_SENT: status.traffic.buffers_sent,
        CMQCFC.MQIACH_BUFFERS_RECEIVED: status.traffic.buffers_received,
        CMQCFC.MQCACH_MCA_USER_ID: padded(status.mcauser, CMQC.MQ_USER_ID_LENGTH),
        CMQCFC.MQCACH_CURRENT_LUWID: padded(str(attrs.get("CURLUWID", "")), 16),
        CMQCFC.MQCACH_LAST_LUWID: padded(str(attrs.get("LSTLUWID", "")), 16),
        CMQCFC.MQCACH_CHANNEL_START_DATE: padded(str(attrs.get("CHSTADA", "")),
                                                 CMQC.MQ_DATE_LENGTH),
        CMQCFC.MQCACH_CHANNEL_START_TIME: padded(str(attrs.get("CHSTATI", "")),
                                                 CMQC.MQ_TIME_LENGTH),
    }


def _saved_replies(request: Request, pattern: str) -> list[Reply]:
    found = [(name, attrs) for name, attrs in initiator_of(request.qm).display_status("*", saved=True)
             if matches(pattern, name)]
    if not found:
        raise PCFError(CMQCFC.MQRCCF_CHL_STATUS_NOT_FOUND)
    replies = []
    for name, attrs in found:
        values: dict[int, Value | list[int]] = {
            CMQCFC.MQCACH_CHANNEL_NAME: padded(name, CMQC.MQ_CHANNEL_NAME_LENGTH),
            CMQCFC.MQIACH_CHANNEL_TYPE: CHANNEL_TYPES[str(attrs["CHLTYPE"])],
            CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE: CMQC.MQOT_SAVED_CHANNEL,
            CMQCFC.MQIACH_CHANNEL_STATUS: _STATES[str(attrs["STATUS"])],
            CMQCFC.MQCACH_CONNECTION_NAME: padded(str(attrs["CONNAME"]), CMQC.MQ_CONN_NAME_LENGTH),
            CMQC.MQCA_REMOTE_Q_MGR_NAME: padded(str(attrs["RQMNAME"]), CMQC.MQ_Q_MGR_NAME_LENGTH),
            CMQCFC.MQCACH_XMIT_Q_NAME: padded(str(attrs.get("XMITQ", "")), CMQC.MQ_Q_NAME_LENGTH),
            CMQCFC.MQIACH_CURRENT_MSGS: int(str(attrs["CURMSGS"])),
            CMQCFC.MQIACH_CURRENT_SEQ_NUMBER: int(str(attrs["CURSEQNO"])),
            CMQCFC.MQIACH_LAST_SEQ_NUMBER: int(str(attrs["LSTSEQNO"])),
            CMQCFC.MQCACH_CURRENT_LUWID: padded(str(attrs["CURLUWID"]), 16),
            CMQCFC.MQCACH_LAST_LUWID: padded(str(attrs["LSTLUWID"]), 16),
            CMQCFC.MQIACH_INDOUBT_STATUS: (CMQCFC.MQCHIDS_INDOUBT if attrs["INDOUBT"] == "YES"
                                           else CMQCFC.MQCHIDS_NOT_INDOUBT),
        }
        replies.append(Reply(encode(values)))
    return replies
