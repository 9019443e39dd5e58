"""Channel events (IBM docs "Channel Started", "Channel Stopped", "ChannelEvent"): put on
SYSTEM.ADMIN.CHANNEL.EVENT by the message channel agents (message_channels/sender.py and
receiver.py) as a channel instance reaches RUNNING and when that instance ends. Runs in the
agent's thread; event_messages.py takes the queue manager's lock to put the message.

ALTER QMGR CHLEV says which: DISABLED (the default) none; EXCEPTION only Channel Stopped with
qualifier ERROR, RETRY or DISABLED (the stops an operator must look at); ENABLED those plus
Channel Started and Channel Stopped with qualifier OK. A Channel Stopped follows only a
Channel Started of the same instance (the agents keep that pairing): a sender that never
reached its partner reports nothing.

Event data, in IBM's order:
* Channel Started (2282 MQRC_CHANNEL_STARTED): QMgrName, ChannelName, XmitQName (sending
  channels only), ConnectionName.
* Channel Stopped (2283 MQRC_CHANNEL_STOPPED): QMgrName, ReasonQualifier (MQRQ_CHANNEL_
  STOPPED_OK: ended normally, e.g. DISCINT or STOP CHANNEL STATUS(INACTIVE); _ERROR: failed,
  not retrying nor stopped; _RETRY: failed, retrying; _DISABLED: STOPPED), ChannelName,
  ErrorIdentifier, AuxErrorDataInt1/2, AuxErrorDataStr1/2/3, XmitQName (sending channels
  only), ConnectionName. IBM puts the number of its AMQ error message in ErrorIdentifier;
  this queue manager has no AMQ messages of its own for channel failures, so it puts the MQ
  reason code of the failure there (0 when there was none) and the failure's text in
  AuxErrorDataStr1; the other inserts are zero or empty.
"""
from __future__ import annotations

from spark_mq.embedded.server.core.pcf_structures import cfin, cfst
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.embedded.server.events.event_messages import CHANNEL_QUEUE, put_event
from spark_mq.mqi.constants import CMQC, CMQCFC

STOPPED_OK: int = CMQCFC.MQRQ_CHANNEL_STOPPED_OK
STOPPED_ERROR: int = CMQCFC.MQRQ_CHANNEL_STOPPED_ERROR
STOPPED_RETRY: int = CMQCFC.MQRQ_CHANNEL_STOPPED_RETRY
STOPPED_DISABLED: int = CMQCFC.MQRQ_CHANNEL_STOPPED_DISABLED
_AUX_TEXT = 264   # how much of a failure's text AuxErrorDataStr1 carries


def channel_started(qm: QueueManagerState, channel: str, xmitq: str, conname: str) -> None:
    """A channel instance is RUNNING; `xmitq` blank for a receiving channel."""
    if qm.attrs.get("CHLEV") != "ENABLED":
        return
    parameters = [cfst(CMQC.MQCA_Q_MGR_NAME, qm.name, CMQC.MQ_Q_MGR_NAME_LENGTH),
                  cfst(CMQCFC.MQCACH_CHANNEL_NAME, channel, CMQC.MQ_CHANNEL_NAME_LENGTH),
                  *_ends(xmitq, conname)]
    put_event(qm, CHANNEL_QUEUE, CMQCFC.MQCMD_CHANNEL_EVENT, CMQC.MQRC_CHANNEL_STARTED,
              parameters)


def channel_stopped(qm: QueueManagerState, channel: str, xmitq: str, conname: str,
                    qualifier: int, reason: int = 0, error: str = "") -> None:
    """A channel instance that had started has ended: `qualifier` one of STOPPED_*, `reason`
    and `error` the failure's MQ reason and text, if it failed."""
    level = qm.attrs.get("CHLEV")
    if level not in ("ENABLED", "EXCEPTION") or (level == "EXCEPTION" and qualifier == STOPPED_OK):
        return
    parameters = [cfst(CMQC.MQCA_Q_MGR_NAME, qm.name, CMQC.MQ_Q_MGR_NAME_LENGTH),
                  cfin(CMQCFC.MQIACF_REASON_QUALIFIER, qualifier),
                  cfst(CMQCFC.MQCACH_CHANNEL_NAME, channel, CMQC.MQ_CHANNEL_NAME_LENGTH),
                  cfin(CMQCFC.MQIACF_ERROR_IDENTIFIER, reason),
                  cfin(CMQCFC.MQIACF_AUX_ERROR_DATA_INT_1, 0),
                  cfin(CMQCFC.MQIACF_AUX_ERROR_DATA_INT_2, 0),
                  cfst(CMQCFC.MQCACF_AUX_ERROR_DATA_STR_1, error[:_AUX_TEXT]),
                  cfst(CMQCFC.MQCACF_AUX_ERROR_DATA_STR_2, ""),
                  cfst(CMQCFC.MQCACF_AUX_ERROR_DATA_STR_3, ""),
                  *_ends(xmitq, conname)]
    put_event(qm, CHANNEL_QUEUE, CMQCFC.MQCMD_CHANNEL_EVENT, CMQC.MQRC_CHANNEL_STOPPED,
              parameters)


def _ends(xmitq: str, conname: str) -> list[bytes]:
    ends = [cfst(CMQCFC.MQCACH_XMIT_Q_NAME, xmitq, CMQC.MQ_Q_NAME_LENGTH)] if xmitq else []
    return [*ends, cfst(CMQCFC.MQCACH_CONNECTION_NAME, conname, CMQC.MQ_CONN_NAME_LENGTH)]
