"""Channel events: Channel Started and Channel Stopped messages on SYSTEM.ADMIN.CHANNEL.EVENT
of both queue managers of a sender/receiver channel, as CHLEV says (ENABLED, EXCEPTION,
DISABLED), read with ibmmq's PCF classes. Two queue manager processes per test; the partner
"fails" by being killed (SIGKILL)."""
from __future__ import annotations

from dataclasses import dataclass

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

import spark_mq.embedded as embedded
from support import events_on, next_event, wait_for

EVENTS = "SYSTEM.ADMIN.CHANNEL.EVENT"
CHANNEL = "QMA.TO.QMB"
WAIT_MS = 30_000     # how long an expected event may take to come


@dataclass
class Pair:
    sending: embedded.EmbeddedQueueManager
    receiving: embedded.EmbeddedQueueManager

    def connect(self, manager: embedded.EmbeddedQueueManager):
        return ibmmq.connect(manager.name, manager.channel, manager.conn_name)


@pytest.fixture
def pair(tmp_path):
    """QMA sends to QMB over CHANNEL; REMOTE.Q on QMA is TARGET.Q on QMB."""
    sending = embedded.EmbeddedQueueManager(str(tmp_path / "a"), name="QMA").start()
    receiving = embedded.EmbeddedQueueManager(str(tmp_path / "b"), name="QMB").start()
    try:
        receiving.run_mqsc(f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(RCVR)\nDEFINE QLOCAL(TARGET.Q)")
        sending.run_mqsc("DEFINE QLOCAL(QMB) USAGE(XMITQ)\n"
                         "DEFINE QREMOTE(REMOTE.Q) RNAME(TARGET.Q) RQMNAME(QMB)\n"
                         f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(SDR) CONNAME('{receiving.conn_name}') "
                         "XMITQ(QMB) SHORTRTY(100) SHORTTMR(1)")
        yield Pair(sending, receiving)
    finally:
        sending.stop()
        receiving.stop()


def send(conn, count: int = 1) -> None:
    queue = ibmmq.Queue(conn, "REMOTE.Q", CMQC.MQOO_OUTPUT)
    try:
        for _ in range(count):
            queue.put(b"over the channel", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
    finally:
        queue.close()


def arrived(conn, count: int) -> None:
    """Wait (MQGET with a wait interval) for `count` messages on TARGET.Q, taking them."""
    queue = ibmmq.Queue(conn, "TARGET.Q", CMQC.MQOO_INPUT_SHARED)
    try:
        for _ in range(count):
            queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=WAIT_MS))
    finally:
        queue.close()


def expect(conn, reason: int, qualifier: int | None = None) -> dict:
    """The next channel event, which must be `reason` (with `qualifier`): its parameters."""
    event = next_event(conn, EVENTS, WAIT_MS)
    assert event is not None, f"no event {reason} within {WAIT_MS} ms"
    md, header, values = event
    assert md.Format == CMQC.MQFMT_EVENT and md.PutApplType == CMQC.MQAT_QMGR
    assert (header.Type, header.Command, header.CompCode, header.Reason) == (
        CMQCFC.MQCFT_EVENT, CMQCFC.MQCMD_CHANNEL_EVENT, CMQC.MQCC_WARNING, reason), values
    assert header.ParameterCount == len(values)
    assert values[CMQCFC.MQCACH_CHANNEL_NAME] == CHANNEL
    if qualifier is not None:
        assert values[CMQCFC.MQIACF_REASON_QUALIFIER] == qualifier, values
    return values


def test_enabled_reports_start_and_stop_at_both_ends(pair):
    pair.sending.run_mqsc("ALTER QMGR CHLEV(ENABLED)")
    pair.receiving.run_mqsc("ALTER QMGR CHLEV(ENABLED)")
    a, b = pair.connect(pair.sending), pair.connect(pair.receiving)
    send(a, 3)
    pair.sending.run_mqsc(f"START CHANNEL({CHANNEL})")
    arrived(b, 3)
    started = expect(a, CMQC.MQRC_CHANNEL_STARTED)
    assert started == {CMQC.MQCA_Q_MGR_NAME: "QMA", CMQCFC.MQCACH_CHANNEL_NAME: CHANNEL,
                       CMQCFC.MQCACH_XMIT_Q_NAME: "QMB",
                       CMQCFC.MQCACH_CONNECTION_NAME: pair.receiving.conn_name}
    started = expect(b, CMQC.MQRC_CHANNEL_STARTED)
    assert started[CMQC.MQCA_Q_MGR_NAME] == "QMB"
    assert CMQCFC.MQCACH_XMIT_Q_NAME not in started        # a receiving channel has none
    assert started[CMQCFC.MQCACH_CONNECTION_NAME].startswith("127.0.0.1(")
    pair.sending.run_mqsc(f"STOP CHANNEL({CHANNEL})")
    stopped = expect(a, CMQC.MQRC_CHANNEL_STOPPED, CMQCFC.MQRQ_CHANNEL_STOPPED_DISABLED)
    assert stopped[CMQCFC.MQIACF_ERROR_IDENTIFIER] == 0
    assert stopped[CMQCFC.MQCACH_XMIT_Q_NAME] == "QMB"
    for parameter in (CMQCFC.MQIACF_AUX_ERROR_DATA_INT_1, CMQCFC.MQIACF_AUX_ERROR_DATA_INT_2,
                      CMQCFC.MQCACF_AUX_ERROR_DATA_STR_1, CMQCFC.MQCACF_AUX_ERROR_DATA_STR_2,
                      CMQCFC.MQCACF_AUX_ERROR_DATA_STR_3):
        assert parameter in stopped
    # the receiver saw its sender say goodbye: an ordinary end
    expect(b, CMQC.MQRC_CHANNEL_STOPPED, CMQCFC.MQRQ_CHANNEL_STOPPED_OK)
    assert events_on(a, EVENTS) == [] and events_on(b, EVENTS) == []
    a.disconnect()
    b.disconnect()


def test_stop_to_inactive_is_an_ordinary_end(pair):
    pair.sending.run_mqsc("ALTER QMGR CHLEV(ENABLED)")
    a, b = pair.connect(pair.sending), pair.connect(pair.receiving)
    send(a)
    pair.sending.run_mqsc(f"START CHANNEL({CHANNEL})")
    arrived(b, 1)
    expect(a, CMQC.MQRC_CHANNEL_STARTED)
    pair.sending.run_mqsc(f"STOP CHANNEL({CHANNEL}) STATUS(INACTIVE)")
    expect(a, CMQC.MQRC_CHANNEL_STOPPED, CMQCFC.MQRQ_CHANNEL_STOPPED_OK)
    a.disconnect()
    b.disconnect()


def test_exception_reports_only_the_stops_to_look_at(pair):
    """EXCEPTION: no Started, no ordinary Stopped; a partner that dies puts the sender in
    RETRYING (qualifier RETRY, with the failure's reason) and ends the receiver with ERROR."""
    pair.sending.run_mqsc("ALTER QMGR CHLEV(EXCEPTION)")
    pair.receiving.run_mqsc("ALTER QMGR CHLEV(EXCEPTION)")
    a, b = pair.connect(pair.sending), pair.connect(pair.receiving)
    send(a)
    pair.sending.run_mqsc(f"START CHANNEL({CHANNEL})")
    arrived(b, 1)
    b.disconnect()
    pair.receiving.kill()                  # the partner dies under a running channel
    send(a)                                # the next batch finds it gone
    stopped = expect(a, CMQC.MQRC_CHANNEL_STOPPED, CMQCFC.MQRQ_CHANNEL_STOPPED_RETRY)
    assert stopped[CMQCFC.MQIACF_ERROR_IDENTIFIER] == CMQC.MQRC_CONNECTION_BROKEN
    assert stopped[CMQCFC.MQCACF_AUX_ERROR_DATA_STR_1], stopped   # the failure, in words
    assert "RETRYING" in pair.sending.run_mqsc(f"DISPLAY CHSTATUS({CHANNEL}) STATUS")
    pair.receiving.start()                 # same port: the retrying sender finds it again
    b = pair.connect(pair.receiving)
    arrived(b, 1)                          # the batch backed out at the failure, sent again
    assert events_on(b, EVENTS) == []      # EXCEPTION: its start is not reported
    pair.sending.kill()                    # now the sender dies: the receiver ends in error
    stopped = expect(b, CMQC.MQRC_CHANNEL_STOPPED, CMQCFC.MQRQ_CHANNEL_STOPPED_ERROR)
    assert CMQCFC.MQCACH_XMIT_Q_NAME not in stopped
    b.disconnect()


def test_disabled_reports_nothing(pair):
    a, b = pair.connect(pair.sending), pair.connect(pair.receiving)
    send(a)
    pair.sending.run_mqsc(f"START CHANNEL({CHANNEL})")
    arrived(b, 1)
    pair.sending.run_mqsc(f"STOP CHANNEL({CHANNEL})")
    wait_for(lambda: "STATUS(STOPPED)" in pair.sending.run_mqsc(      # after the agent's wait
        f"DISPLAY CHSTATUS({CHANNEL}) STATUS"), 30)
    assert events_on(a, EVENTS) == [] and events_on(b, EVENTS) == []
    a.disconnect()
    b.disconnect()
