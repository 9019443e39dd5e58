"""Conformance: what IBM MQ keeps of a channel's state, between real embedded queue managers
through MQSC and IBM's `ibmmq` PCF: a STOPPED channel stays STOPPED across a restart of its
queue manager and only START CHANNEL starts it, a RETRYING sender tries again after one,
DISPLAY CHSTATUS SAVED shows the status saved at each batch's end (and survives restarts),
and DISPLAY CHSTATUS shows IBM's current-only fields with ALL and its short list without."""
from __future__ import annotations

import re

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

import spark_mq.embedded as embedded
from channel_topology import (
    channel_status,
    connect,
    define_receiver,
    define_sender,
    depth,
    free_port,
    link,
    put_remote,
    receive,
    start,
    wait_for,
)


@pytest.fixture
def pair(tmp_path):
    """QMA -> QMB with a channel, both running (QMB on a fixed port, so that it can be
    restarted where the sender looks for it); IN.B on QMB."""
    qmb = start(tmp_path, "QMB", port=free_port(), mqsc="DEFINE QLOCAL(IN.B)\n")
    qma = start(tmp_path, "QMA")
    name = link(qma, qmb, "BATCHSZ(10)")
    yield qma, qmb, name
    qma.stop()
    qmb.stop()


def _restart(qm: embedded.EmbeddedQueueManager) -> None:
    qm.stop()
    qm.start()


def _fields(output: str) -> dict[str, str]:
    """KEYWORD(value) pairs of one DISPLAY's output (bare keywords map to "")."""
    found = {key: value.strip() for key, value in re.findall(r"(\w+)\(([^)]*)\)", output)}
    found.update({word: "" for word in re.findall(r"(?<![\w(])([A-Z]+)(?![\w(])", output)
                  if word not in found})
    return found


def _control_channel(qma: embedded.EmbeddedQueueManager, qmb: embedded.EmbeddedQueueManager
                     ) -> str:
    """A second triggered channel QMA -> QMB, reached through the remote queue CTL.Q: when a
    message put to it arrives, the channel initiator has scanned every transmission queue
    since that put (one scan looks at all of them)."""
    qmb.run_mqsc("DEFINE CHANNEL(CTL.TO.QMB) CHLTYPE(RCVR) REPLACE\nDEFINE QLOCAL(CTL.IN)")
    qma.run_mqsc(
        "DEFINE QLOCAL(CTL.XQ) USAGE(XMITQ) TRIGGER TRIGTYPE(FIRST) "
        "INITQ(SYSTEM.CHANNEL.INITQ) TRIGDATA(CTL.TO.QMB)\n"
        f"DEFINE CHANNEL(CTL.TO.QMB) CHLTYPE(SDR) CONNAME('127.0.0.1({qmb.port})') "
        "XMITQ(CTL.XQ) SHORTRTY(100) SHORTTMR(1)\n"
        "DEFINE QREMOTE(CTL.Q) RNAME(CTL.IN) RQMNAME(QMB) XMITQ(CTL.XQ)")
    return "CTL.TO.QMB"


def _scanned_since_now(qma: embedded.EmbeddedQueueManager,
                       qmb: embedded.EmbeddedQueueManager) -> None:
    """Returns once the channel initiator has looked at QMA's transmission queues after this
    call began (deterministic: a control message crossed a triggered channel)."""
    ibmmq.Queue(connect(qma), "CTL.Q", CMQC.MQOO_OUTPUT).put(b"control")
    assert len(receive(connect(qmb), "CTL.IN", 1)) == 1


def test_a_stopped_sender_stays_stopped_across_a_restart_and_only_start_starts_it(pair):
    """IBM docs, "Restarting stopped channels" (q015680_): "If the queue manager stops while
    a channel is in RETRYING or STOPPED status, the channel status is remembered when the
    queue manager is restarted"; "When a channel goes into STOPPED state, you have to
    restart the channel manually" (START CHANNEL). A message arriving on its triggered
    transmission queue does not start it ("Stopping a channel": STATUS(STOPPED) "cannot be
    restarted automatically")."""
    qma, qmb, name = pair
    put_remote(connect(qma), "IN.B", "QMB", [b"first"])
    assert len(receive(connect(qmb), "IN.B", 1)) == 1
    qma.run_mqsc(f"STOP CHANNEL({name})")
    wait_for(lambda: channel_status(qma, name) == "STOPPED", what="STOPPED")
    _restart(qma)
    assert channel_status(qma, name) == "STOPPED"
    _control_channel(qma, qmb)
    put_remote(connect(qma), "IN.B", "QMB", [b"held"])
    _scanned_since_now(qma, qmb)
    assert channel_status(qma, name) == "STOPPED"
    assert depth(connect(qma), "QMB") == 1
    qma.run_mqsc(f"START CHANNEL({name})")
    assert [body for _, body in receive(connect(qmb), "IN.B", 1)] == [b"held"]
    wait_for(lambda: channel_status(qma, name) == "RUNNING", what="RUNNING")
    _restart(qma)      # started again: nothing of the old STOPPED comes back
    assert channel_status(qma, name) != "STOPPED"
    put_remote(connect(qma), "IN.B", "QMB", [b"triggered"])
    assert [body for _, body in receive(connect(qmb), "IN.B", 1)] == [b"triggered"]


def test_a_stopped_receiver_stays_stopped_across_a_restart(pair):
    """A receiver stopped with STOP CHANNEL refuses its partner after a restart of its
    queue manager too (the sender keeps its messages and retries); START CHANNEL on the
    receiver lets the partner in again (IBM docs, START CHANNEL: on a receiver it "allows
    it to be started" by the sender)."""
    qma, qmb, name = pair
    qmb.run_mqsc(f"STOP CHANNEL({name})")
    _restart(qmb)
    assert channel_status(qmb, name) == "STOPPED"
    put_remote(connect(qma), "IN.B", "QMB", [b"waits"])
    wait_for(lambda: channel_status(qma, name) == "RETRYING", what="the sender refused")
    assert depth(connect(qma), "QMB") == 1 and receive(connect(qmb), "IN.B", 1, seconds=1) == []
    qmb.run_mqsc(f"START CHANNEL({name})")
    assert [body for _, body in receive(connect(qmb), "IN.B", 1)] == [b"waits"]


def test_a_sender_that_stopped_itself_stays_stopped_across_a_restart(tmp_path):
    """Retries used up: the channel is STOPPED (IBM docs, "Channel states"), and that too is
    remembered across a restart (q015680_)."""
    qma = start(tmp_path, "QMA")
    try:
        name = define_sender(qma, "QMB", free_port())
        qma.run_mqsc(f"ALTER CHANNEL({name}) CHLTYPE(SDR) SHORTRTY(0) LONGRTY(0)")
        put_remote(connect(qma), "IN.B", "QMB", [b"nowhere"])
        wait_for(lambda: channel_status(qma, name) == "STOPPED", what="retries used up")
        _restart(qma)
        assert channel_status(qma, name) == "STOPPED"
        assert depth(connect(qma), "QMB") == 1
    finally:
        qma.stop()


def test_a_retrying_sender_tries_again_after_a_restart(tmp_path):
    """A sender RETRYING when its queue manager ends is RETRYING again after the restart
    (q015680_), though its transmission queue is not triggered: the messages arrive once
    the partner is there."""
    port = free_port()
    qma = start(tmp_path, "QMA")
    qmb = None
    try:
        name = define_sender(qma, "QMB", port)
        put_remote(connect(qma), "IN.B", "QMB", [b"later"])
        wait_for(lambda: channel_status(qma, name) == "RETRYING", what="RETRYING")
        qma.run_mqsc("ALTER QLOCAL(QMB) NOTRIGGER")
        _restart(qma)
        wait_for(lambda: channel_status(qma, name) == "RETRYING", what="RETRYING again")
        qmb = start(tmp_path, "QMB", port=port, mqsc="DEFINE QLOCAL(IN.B)\n")
        define_receiver(qmb, "QMA")
        assert [body for _, body in receive(connect(qmb), "IN.B", 1)] == [b"later"]
    finally:
        qma.stop()
        if qmb is not None:
            qmb.stop()


def test_saved_status_is_the_books_of_the_last_batch_and_survives_restarts(pair):
    """IBM docs, "Displaying channel status": saved status "applies after at least one batch
    of messages has been transmitted on the channel", and is saved when the channel is
    stopped and when the queue manager ends; DISPLAY CHSTATUS SAVED shows the common status
    fields (CURLUWID, CURMSGS, CURSEQNO, INDOUBT, LSTLUWID, LSTSEQNO, STATUS), one instance
    per partner on a receiver (RQMNAME)."""
    qma, qmb, name = pair
    with pytest.raises(embedded.EmbeddedQueueManagerError, match="AMQ8420I"):
        qma.run_mqsc(f"DISPLAY CHSTATUS({name}) SAVED")      # no batch yet: no saved status
    put_remote(connect(qma), "IN.B", "QMB", [b"m%d" % n for n in range(25)])
    assert len(receive(connect(qmb), "IN.B", 25)) == 25
    wait_for(lambda: _fields(qma.run_mqsc(f"DISPLAY CHSTATUS({name}) ALL"))["LSTSEQNO"]
             == "25", what="the sender committed")
    current = _fields(qma.run_mqsc(f"DISPLAY CHSTATUS({name}) ALL"))
    for qm, chltype in ((qma, "SDR"), (qmb, "RCVR")):
        saved = _fields(qm.run_mqsc(f"DISPLAY CHSTATUS({name}) SAVED ALL"))
        assert "SAVED" in saved and "CURRENT" not in saved
        assert saved["CHLTYPE"] == chltype and saved["LSTSEQNO"] == "25"
        assert saved["CURSEQNO"] == "25" and saved["CURMSGS"] == "0"
        assert saved["INDOUBT"] == "NO" and saved["STATUS"] == "RUNNING"
        assert saved["LSTLUWID"] == current["LSTLUWID"] != "0" * 16
        assert "MSGS" not in saved and "BYTSSENT" not in saved    # current-only fields
    assert _fields(qmb.run_mqsc(f"DISPLAY CHSTATUS({name}) SAVED ALL"))["RQMNAME"] == "QMA"
    # RQMNAME, "the queue manager name, or queue sharing group name, of the remote system":
    # the sender's saved instance names its partner too
    assert _fields(qma.run_mqsc(f"DISPLAY CHSTATUS({name}) SAVED ALL"))["RQMNAME"] == "QMB"
    assert _fields(qma.run_mqsc(f"DISPLAY CHSTATUS({name}) SAVED ALL"))["XMITQ"] == "QMB"
    qma.run_mqsc(f"STOP CHANNEL({name})")
    _restart(qma)
    _restart(qmb)
    saved = _fields(qma.run_mqsc(f"DISPLAY CHSTATUS({name}) SAVED ALL"))
    assert saved["STATUS"] == "STOPPED" and saved["LSTSEQNO"] == "25"
    assert saved["LSTLUWID"] == current["LSTLUWID"]
    assert _fields(qmb.run_mqsc(f"DISPLAY CHSTATUS({name}) SAVED ALL"))["LSTSEQNO"] == "25"
    assert saved["RQMNAME"] == "QMB"
    pcf = ibmmq.PCFExecute(connect(qma), response_wait_interval=10000)
    try:
        [status] = pcf.MQCMD_INQUIRE_CHANNEL_STATUS({
            CMQCFC.MQCACH_CHANNEL_NAME: name.encode(),
            CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE: CMQC.MQOT_SAVED_CHANNEL})
    finally:
        pcf.disconnect()
    assert status[CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE] == CMQC.MQOT_SAVED_CHANNEL
    assert status[CMQCFC.MQIACH_LAST_SEQ_NUMBER] == 25
    assert status[CMQCFC.MQIACH_CHANNEL_STATUS] == CMQCFC.MQCHS_STOPPED
    assert status[CMQCFC.MQCACH_LAST_LUWID].strip() == current["LSTLUWID"].encode()
    assert status[CMQCFC.MQIACH_INDOUBT_STATUS] == CMQCFC.MQCHIDS_NOT_INDOUBT


def test_delete_channel_takes_its_stopped_state_and_saved_status_with_it(pair):
    """IBM docs, DELETE CHANNEL (q085820_) deletes "a channel definition"; what "Restarting
    stopped channels" (q015680_) remembers across a restart and what DISPLAY CHSTATUS SAVED
    shows are that channel's: a channel defined again under the name, at both ends, is not
    STOPPED (now or after a restart), has no saved status before its first batch (AMQ8420I)
    and starts its sequence numbers afresh, so a trigger starts it and its messages arrive."""
    qma, qmb, name = pair
    put_remote(connect(qma), "IN.B", "QMB", [b"before"])
    assert len(receive(connect(qmb), "IN.B", 1)) == 1
    wait_for(lambda: _fields(qma.run_mqsc(f"DISPLAY CHSTATUS({name}) ALL"))["LSTSEQNO"]
             == "1", what="the sender committed")
    for qm in (qma, qmb):
        qm.run_mqsc(f"STOP CHANNEL({name})")
        wait_for(lambda qm=qm: channel_status(qm, name) == "STOPPED", what="STOPPED")
        qm.run_mqsc(f"DELETE CHANNEL({name})")
        assert channel_status(qm, name) == ""
        with pytest.raises(embedded.EmbeddedQueueManagerError, match="AMQ8420I"):
            qm.run_mqsc(f"DISPLAY CHSTATUS({name}) SAVED")
    assert link(qma, qmb, "BATCHSZ(10)") == name          # defined again, both ends
    assert channel_status(qma, name) == channel_status(qmb, name) == ""
    _restart(qma)
    _restart(qmb)
    assert channel_status(qma, name) == channel_status(qmb, name) == ""
    put_remote(connect(qma), "IN.B", "QMB", [b"after"])
    assert [body for _, body in receive(connect(qmb), "IN.B", 1)] == [b"after"]
    wait_for(lambda: _fields(qma.run_mqsc(f"DISPLAY CHSTATUS({name}) ALL"))["LSTSEQNO"]
             == "1", what="sequence numbers from 1 again")


def test_saved_status_of_a_sender_in_doubt_names_the_batch(tmp_path, monkeypatch):
    """The receiver's queue manager dies after committing batch 3 and before confirming it:
    the sender is in doubt, and its saved status says so with the in-doubt batch's LUWID,
    last sequence number and size (IBM docs, DISPLAY CHSTATUS: CURLUWID, CURSEQNO and
    CURMSGS are meaningful for a saved instance "only if the channel instance is in
    doubt"). Once the partner is back the batch is settled and the saved status follows."""
    monkeypatch.setenv("SPARK_MQ_FAULT", "receiver-committed:3")
    qmb = start(tmp_path, "QMB", port=free_port(), mqsc="DEFINE QLOCAL(IN.B)\n")
    monkeypatch.delenv("SPARK_MQ_FAULT")
    qma = start(tmp_path, "QMA")
    try:
        name = link(qma, qmb, "BATCHSZ(10)")
        qma.run_mqsc(f"STOP CHANNEL({name})")             # fill the queue first: full batches
        put_remote(connect(qma), "IN.B", "QMB", [b"m%02d" % n for n in range(40)])
        qma.run_mqsc(f"START CHANNEL({name})")
        wait_for(lambda: not qmb.running, what="QMB died with batch 3 committed")
        saved = _fields(qma.run_mqsc(f"DISPLAY CHSTATUS({name}) SAVED ALL"))
        assert saved["INDOUBT"] == "YES"
        assert (saved["LSTSEQNO"], saved["CURSEQNO"], saved["CURMSGS"]) == ("20", "30", "10")
        assert saved["CURLUWID"] != saved["LSTLUWID"]
        qmb.start()
        assert len(receive(connect(qmb), "IN.B", 40)) == 40
        wait_for(lambda: _fields(qma.run_mqsc(f"DISPLAY CHSTATUS({name}) SAVED ALL"))["LSTSEQNO"]
                 == "40", what="the last batch saved")
        assert _fields(qma.run_mqsc(f"DISPLAY CHSTATUS({name}) SAVED ALL"))["INDOUBT"] == "NO"
    finally:
        qma.stop()
        qmb.stop()


def test_display_chstatus_shows_ibms_fields_all_with_all_and_the_short_list_without(pair):
    """IBM docs, DISPLAY CHSTATUS: without fields asked for, runmqsc shows CHANNEL, CHLTYPE,
    CONNAME, CURRENT, RQMNAME, STATUS, SUBSTATE and XMITQ; ALL adds the current-only status
    (BYTSSENT, BYTSRCVD, BUFSSENT, BUFSRCVD, MCAUSER, STOPREQ, the values the channel runs
    with) and the common status. PCF Inquire Channel Status answers the same by its names."""
    qma, qmb, name = pair
    qmb.run_mqsc(f"ALTER CHANNEL({name}) CHLTYPE(RCVR) MCAUSER('app')")
    put_remote(connect(qma), "IN.B", "QMB", [b"x" * 1000, b"y"])
    assert len(receive(connect(qmb), "IN.B", 2)) == 2
    wait_for(lambda: _fields(qma.run_mqsc(f"DISPLAY CHSTATUS({name}) ALL"))["MSGS"] == "2",
             what="the batch committed")
    short = _fields(qma.run_mqsc(f"DISPLAY CHSTATUS({name})"))
    assert {"CHANNEL", "CHLTYPE", "CONNAME", "CURRENT", "RQMNAME", "STATUS", "SUBSTATE",
            "XMITQ"} <= set(short)
    assert "MSGS" not in short and "BYTSSENT" not in short
    sent = _fields(qma.run_mqsc(f"DISPLAY CHSTATUS({name}) ALL"))
    got = _fields(qmb.run_mqsc(f"DISPLAY CHSTATUS({name}) ALL"))
    assert int(sent["BYTSSENT"]) > 1000 and int(sent["BUFSSENT"]) >= 3   # 2 messages + END
    assert int(got["BYTSRCVD"]) > 1000 and int(got["BUFSRCVD"]) >= 3
    assert int(sent["BUFSRCVD"]) >= 2 and int(got["BUFSSENT"]) >= 2      # hello and DONE
    assert sent["STOPREQ"] == got["STOPREQ"] == "NO"
    assert got["MCAUSER"] == "app"
    assert sent["SUBSTATE"] == "MQGET" and got["SUBSTATE"] == "RECEIVE"  # idle both ends
    assert (sent["HBINT"], sent["NPMSPEED"], sent["BATCHSZ"]) == ("5", "FAST", "10")
    assert sent["RQMNAME"] == "QMB" and sent["XMITQ"] == "QMB" and "CURRENT" in sent
    assert sent["CHSTADA"] and sent["LSTMSGDA"] and sent["CURLUWID"] and "SSLCIPH" in sent
    assert _fields(qma.run_mqsc(f"DISPLAY CHSTATUS({name}) BYTSSENT"))["BYTSSENT"] \
        == sent["BYTSSENT"]
    pcf = ibmmq.PCFExecute(connect(qma), response_wait_interval=10000)
    try:
        [status] = pcf.MQCMD_INQUIRE_CHANNEL_STATUS({CMQCFC.MQCACH_CHANNEL_NAME: name.encode()})
    finally:
        pcf.disconnect()
    assert status[CMQCFC.MQIACH_BYTES_SENT] >= int(sent["BYTSSENT"])
    assert status[CMQCFC.MQIACH_BUFFERS_SENT] >= int(sent["BUFSSENT"])
    assert status[CMQCFC.MQIACH_CHANNEL_SUBSTATE] == CMQCFC.MQCHSSTATE_IN_MQGET
    assert status[CMQCFC.MQIACH_STOP_REQUESTED] == CMQCFC.MQCHSR_STOP_NOT_REQUESTED
