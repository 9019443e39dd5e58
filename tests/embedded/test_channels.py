"""Conformance: sender and receiver channels between real embedded queue managers, through
IBM's `ibmmq` API and MQSC as IBM MQ defines them: messages arrive once with their context
and properties, what cannot be put goes to the dead-letter queue behind an MQDLH, a third
queue manager is reached through a middle hop, a partner that is down is retried until it is
back, STOP/START and triggering, and each end killed exactly where the other is in doubt."""
from __future__ import annotations

import socket

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC, CMQXC

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
from spark_mq.embedded import wire


@pytest.fixture
def pair(tmp_path):
    """QMA -> QMB with a channel, both running; IN.B on QMB."""
    qmb = start(tmp_path, "QMB", mqsc="DEFINE QLOCAL(IN.B)\n")
    qma = start(tmp_path, "QMA")
    name = link(qma, qmb)
    yield qma, qmb, name
    qma.stop()
    qmb.stop()


def test_messages_arrive_once_with_their_context_and_properties(pair):
    qma, qmb, name = pair
    a, b = connect(qma), connect(qmb)
    props = ibmmq.MessageHandle(a)
    props.properties.set("region", "emea")
    props.properties.set("amount", 42, property_type=CMQC.MQTYPE_INT32)
    od = ibmmq.OD(ObjectName="IN.B", ObjectQMgrName="QMB")
    out = ibmmq.Queue(a, od, CMQC.MQOO_OUTPUT)
    sent = []
    for n in range(30):
        md = ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT, CorrelId=b"C%023d" % n,
                      Format=CMQC.MQFMT_STRING)
        out.put(f"order {n}".encode(), md, ibmmq.PMO(OriginalMsgHandle=props.msg_handle))
        sent.append(md)
    out.close()
    handle = ibmmq.MessageHandle(b)
    got = receive(b, "IN.B", 30, handle=handle)
    assert [body for _, body in got] == [f"order {n}".encode() for n in range(30)]
    for (md, _), put in zip(got, sent):
        assert (md.MsgId, md.CorrelId) == (put.MsgId, put.CorrelId)
        assert md.PutApplName == put.PutApplName and md.UserIdentifier == put.UserIdentifier
        assert (md.PutDate, md.PutTime) == (put.PutDate, put.PutTime)
        assert md.Persistence == CMQC.MQPER_PERSISTENT and md.Format == CMQC.MQFMT_STRING
    assert handle.properties.get("region") == "emea" and handle.properties.get("amount") == 42
    assert depth(a, "QMB") == 0 and receive(b, "IN.B", 1, seconds=1) == []
    status = qma.run_mqsc(f"DISPLAY CHSTATUS({name}) ALL")
    assert "STATUS(RUNNING)" in status and "MSGS(30)" in status and "RQMNAME(QMB)" in status


def test_a_message_that_cannot_be_put_goes_to_the_dead_letter_queue(pair):
    qma, qmb, _ = pair
    a, b = connect(qma), connect(qmb)
    [msg_id] = put_remote(a, "NO.SUCH.QUEUE", "QMB", [b"lost?"], Format=CMQC.MQFMT_STRING)
    [(md, data)] = receive(b, "DEV.DEAD.LETTER.QUEUE", 1)
    assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER and md.MsgId == msg_id
    dlh = ibmmq.DLH()
    dlh.unpack(data[:CMQC.MQDLH_LENGTH_1])
    assert dlh.Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert (dlh.DestQName.strip(), dlh.DestQMgrName.strip()) == (b"NO.SUCH.QUEUE", b"QMB")
    assert dlh.Format == CMQC.MQFMT_STRING and data[CMQC.MQDLH_LENGTH_1:] == b"lost?"


def test_without_a_dead_letter_queue_the_channel_stops_and_keeps_the_messages(pair):
    qma, qmb, name = pair
    qmb.run_mqsc("ALTER QMGR DEADQ(' ')")
    a = connect(qma)
    put_remote(a, "NO.SUCH.QUEUE", "QMB", [b"kept"])
    wait_for(lambda: channel_status(qma, name) == "STOPPED", what="the channel stopped")
    assert depth(a, "QMB") == 1                        # still on the transmission queue
    qmb.run_mqsc("DEFINE QLOCAL(NO.SUCH.QUEUE)")
    qma.run_mqsc(f"START CHANNEL({name})")
    assert [body for _, body in receive(connect(qmb), "NO.SUCH.QUEUE", 1)] == [b"kept"]


def test_a_third_queue_manager_is_reached_through_a_middle_hop(pair, tmp_path):
    qma, qmb, _ = pair
    qmc = start(tmp_path, "QMC", mqsc="DEFINE QLOCAL(IN.C)\n")
    try:
        link(qmb, qmc)
        # on A, QMC is reached through B: a queue-manager alias whose XMITQ is B's
        qma.run_mqsc("DEFINE QREMOTE(QMC) RNAME(' ') RQMNAME(QMC) XMITQ(QMB)")
        sent = put_remote(connect(qma), "IN.C", "QMC", [b"hop 1", b"hop 2"])
        got = receive(connect(qmc), "IN.C", 2)
        assert [md.MsgId for md, _ in got] == sent
        assert [body for _, body in got] == [b"hop 1", b"hop 2"]
    finally:
        qmc.stop()


def test_a_partner_that_is_down_is_retried_until_it_is_back(tmp_path):
    port = free_port()
    qma = start(tmp_path, "QMA")
    qmb = embedded.EmbeddedQueueManager(str(tmp_path / "QMB"), name="QMB", port=port,
                                        mqsc="DEFINE QLOCAL(IN.B)\n")
    try:
        name = define_sender(qma, "QMB", port)
        sent = put_remote(connect(qma), "IN.B", "QMB", [b"waited"])
        wait_for(lambda: channel_status(qma, name) == "RETRYING", what="RETRYING")
        assert depth(connect(qma), "QMB") == 1
        qmb.start()
        define_receiver(qmb, "QMA")                   # the partner is back: retries find it
        got = receive(connect(qmb), "IN.B", 1)
        assert [md.MsgId for md, _ in got] == sent
    finally:
        qma.stop()
        qmb.stop()


def test_a_sender_without_a_receiver_definition_retries_and_loses_nothing(pair, tmp_path):
    qma, qmb, name = pair
    qmb.run_mqsc(f"DELETE CHANNEL({name})")
    a = connect(qma)
    put_remote(a, "IN.B", "QMB", [b"one"])
    wait_for(lambda: channel_status(qma, name) == "RETRYING", what="RETRYING")
    log = (tmp_path / "QMA" / "qmgr.log").read_text()
    assert f"MQ reason {CMQC.MQRC_UNKNOWN_CHANNEL_NAME}: no receiver channel {name}" in log
    assert depth(a, "QMB") == 1
    qmb.run_mqsc(f"DEFINE CHANNEL({name}) CHLTYPE(RCVR)")
    assert len(receive(connect(qmb), "IN.B", 1)) == 1


def test_stop_start_and_triggered_starts(pair):
    qma, qmb, name = pair
    a, b = connect(qma), connect(qmb)
    assert "Ping IBM MQ channel complete (partner QMB)" in qma.run_mqsc(f"PING CHANNEL({name})")
    qma.run_mqsc(f"ALTER CHANNEL({name}) CHLTYPE(SDR) DISCINT(1)")
    put_remote(a, "IN.B", "QMB", [b"first"])           # the trigger starts the channel
    assert len(receive(b, "IN.B", 1)) == 1
    wait_for(lambda: channel_status(qma, name) == "", what="INACTIVE after DISCINT")
    put_remote(a, "IN.B", "QMB", [b"second"])          # triggered again
    assert len(receive(b, "IN.B", 1)) == 1
    qma.run_mqsc(f"STOP CHANNEL({name})")
    wait_for(lambda: channel_status(qma, name) == "STOPPED", what="STOPPED")
    put_remote(a, "IN.B", "QMB", [b"third"])
    assert receive(b, "IN.B", 1, seconds=3) == []      # a STOPPED channel is not triggered
    assert depth(a, "QMB") == 1
    qma.run_mqsc(f"START CHANNEL({name})")
    assert len(receive(b, "IN.B", 1)) == 1
    with pytest.raises(embedded.EmbeddedQueueManagerError, match="AMQ9514E"):
        qma.run_mqsc(f"PING CHANNEL({name})")           # not while it runs, as on IBM MQ


def test_non_persistent_fast_messages_travel_outside_the_batches(pair):
    qma, qmb, name = pair
    sent = put_remote(connect(qma), "IN.B", "QMB", [b"np %d" % n for n in range(20)],
                      persistent=False)
    got = receive(connect(qmb), "IN.B", 20)
    assert sorted(md.MsgId for md, _ in got) == sorted(sent)


def test_a_bad_frame_on_the_channel_port_ends_that_channel_only(pair):
    qma, qmb, name = pair
    with socket.create_connection(("127.0.0.1", qmb.port), timeout=10) as sock:
        sock.sendall(wire.frame(["CHL", name, "EVIL", 50, False, 0, 4_194_304]))
        reader = wire.FrameReader(sock)
        assert reader.read_reply()[0] == CMQC.MQCC_OK
        sock.sendall(wire.frame(["MSG", 1, b"x" * 24, b"not a transmission header", None, True]))
        sock.sendall(wire.frame(["END", 7]))              # a malformed batch end
        assert sock.recv(65536) == b""                    # the receiver ended this channel
    b = connect(qmb)
    assert depth(b, "DEV.DEAD.LETTER.QUEUE") == 0        # nothing of the bad batch committed
    sent = put_remote(connect(qma), "IN.B", "QMB", [b"still served"])
    assert [md.MsgId for md, _ in receive(b, "IN.B", 1)] == sent


@pytest.mark.parametrize("killed, point", [("QMB", "receiver-committed"),
                                           ("QMA", "sender-confirmed")])
def test_killed_while_the_sender_is_in_doubt_every_message_arrives_once(
        tmp_path, monkeypatch, killed, point):
    """The receiver has committed batch 3, its confirmation never reaches the sender's
    commit: the queue manager named dies at exactly that step. After the restart the sender
    learns from the receiver's sync record which messages arrived."""
    def started(name: str, mqsc: str = "") -> embedded.EmbeddedQueueManager:
        if name == killed:     # only the victim's process carries the fail point
            monkeypatch.setenv("SPARK_MQ_FAULT", f"{point}:3")
        manager = start(tmp_path, name, port=free_port(), mqsc=mqsc)
        monkeypatch.delenv("SPARK_MQ_FAULT", raising=False)
        return manager
    qmb = started("QMB", "DEFINE QLOCAL(IN.B)\n")
    qma = started("QMA")
    victim = qmb if killed == "QMB" else qma
    try:
        name = link(qma, qmb, "BATCHSZ(10)")
        qma.run_mqsc(f"STOP CHANNEL({name})")          # fill the queue first: full batches
        bodies = [b"m%03d" % n for n in range(100)]
        sent = put_remote(connect(qma), "IN.B", "QMB", bodies)
        qma.run_mqsc(f"START CHANNEL({name})")
        wait_for(lambda: not victim.running, what=f"{killed} died at {point}")
        victim.start()   # the sender retries (QMB killed), or its trigger starts it (QMA)
        got = receive(connect(qmb), "IN.B", 100)
        assert sorted(md.MsgId for md, _ in got) == sorted(sent)
        assert sorted(body for _, body in got) == bodies
        assert receive(connect(qmb), "IN.B", 1, seconds=2) == []      # nothing twice
        wait_for(lambda: depth(connect(qma), "QMB") == 0, what="the xmitq drained")
    finally:
        qma.stop()
        qmb.stop()


def test_pcf_defines_starts_inquires_and_stops_channels(pair):
    """IBM's PCFExecute: Create Channel of both types, Start, Inquire Channel Status, Stop."""
    qma, qmb, _ = pair
    a = connect(qma)
    pcf = ibmmq.PCFExecute(a, response_wait_interval=10000)
    try:
        name = b"QMA.PCF.QMB"
        ibmmq.PCFExecute(connect(qmb), response_wait_interval=10000).MQCMD_CREATE_CHANNEL({
            CMQCFC.MQCACH_CHANNEL_NAME: name, CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_RECEIVER})
        pcf.MQCMD_CREATE_CHANNEL({
            CMQCFC.MQCACH_CHANNEL_NAME: name, CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_SENDER,
            CMQCFC.MQCACH_CONNECTION_NAME: f"127.0.0.1({qmb.port})".encode(),
            CMQCFC.MQCACH_XMIT_Q_NAME: b"QMB", CMQCFC.MQIACH_BATCH_SIZE: 20,
            CMQCFC.MQIACH_SHORT_TIMER: 1})
        [sender] = pcf.MQCMD_INQUIRE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: name,
                                              CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_SENDER})
        assert sender[CMQCFC.MQIACH_BATCH_SIZE] == 20
        assert sender[CMQCFC.MQCACH_XMIT_Q_NAME].strip() == b"QMB"
        qma.run_mqsc("STOP CHANNEL(QMA.TO.QMB)")     # the pair fixture's channel serves QMB too
        wait_for(lambda: channel_status(qma, "QMA.TO.QMB") == "STOPPED", what="STOPPED")
        pcf.MQCMD_START_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: name})
        put_remote(a, "IN.B", "QMB", [b"via pcf"])
        assert len(receive(connect(qmb), "IN.B", 1)) == 1
        [status] = pcf.MQCMD_INQUIRE_CHANNEL_STATUS({CMQCFC.MQCACH_CHANNEL_NAME: name})
        assert status[CMQCFC.MQIACH_CHANNEL_STATUS] == CMQCFC.MQCHS_RUNNING
        assert status[CMQCFC.MQIACH_MSGS] == 1
        assert status[CMQC.MQCA_REMOTE_Q_MGR_NAME].strip() == b"QMB"
        pcf.MQCMD_STOP_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: name})
        wait_for(lambda: channel_status(qma, name.decode()) == "STOPPED", what="STOPPED")
        with pytest.raises(ibmmq.MQMIError) as missing:
            pcf.MQCMD_START_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"NO.SUCH.CHANNEL"})
        assert missing.value.reason == CMQCFC.MQRCCF_CHANNEL_NOT_FOUND
    finally:
        pcf.disconnect()


def test_a_secured_receiver_admits_a_sender_only_through_its_chlauth_rules(tmp_path):
    """IBM's developer configuration blocks every channel its rules do not name (the
    back-stop ADDRESSMAP NOACCESS): a sender is refused (2035) and retries, its messages
    kept; a rule mapping the channel to a user lets it in, and messages are put as that
    user (MCAUSER), with that user's authority: +put, and +setall on the queue and the queue
    manager for the sender's context (IBM docs: PUTAUT(DEF))."""
    qmb = embedded.EmbeddedQueueManager(str(tmp_path / "QMB"), name="QMB",
                                        users={"app": "passw0rd", "admin": "adminpw"}).start()
    qma = start(tmp_path, "QMA")
    try:
        name = link(qma, qmb)
        sent = put_remote(connect(qma), "DEV.QUEUE.1", "QMB", [b"let me in"])
        wait_for(lambda: channel_status(qma, name) == "RETRYING", what="refused, RETRYING")
        log = (tmp_path / "QMA" / "qmgr.log").read_text()
        assert f"MQ reason {CMQC.MQRC_NOT_AUTHORIZED}" in log
        assert depth(connect(qma), "QMB") == 1
        qmb.run_mqsc("SET AUTHREC PROFILE('DEV.QUEUE.1') OBJTYPE(QUEUE) PRINCIPAL('app') "
                     "AUTHADD(SETALL)\n"
                     "SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('app') AUTHADD(SETALL)\n"
                     f"SET CHLAUTH('{name}') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(MAP) "
                     "MCAUSER('app')")
        b = ibmmq.connect("QMB", "DEV.APP.SVRCONN", qmb.conn_name, user="app", password="passw0rd")
        got = receive(b, "DEV.QUEUE.1", 1)
        assert [md.MsgId for md, _ in got] == sent
    finally:
        qma.stop()
        qmb.stop()
