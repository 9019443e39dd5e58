"""Conformance: server (SVR) and requester (RQSTR) channels between real embedded queue
managers, in the forms IBM MQ describes (IBM docs, "Channel combinations" / "Starting a
channel"): server-initiated (a SVR with CONNAME starts as a sender does), requester-server
(START CHANNEL on the requester; a server without CONNAME can only be started so), and
requester-sender callback (the sender disconnects and calls back its own CONNAME). The
books and the doors are the sender's and receiver's: sequence numbers carry on across
sessions, a STOPPED or unknown partner channel refuses the requester."""
from __future__ import annotations

import shutil
from pathlib import Path

import ibmmq
import pytest
from ibmmq import CMQCFC, CMQXC

import spark_mq.embedded as embedded
from channel_topology import (
    TIMERS,
    channel_status,
    connect,
    depth,
    put_remote,
    receive,
    start,
    wait_for,
)
from tls_keys import make_ca, make_certificate

CHANNEL = "QMA.TO.QMB"


@pytest.fixture
def pair(tmp_path):
    """QMA (holding QMB's transmission queue, not triggered) and QMB (with IN.B)."""
    qmb = start(tmp_path, "QMB", mqsc="DEFINE QLOCAL(IN.B)\n")
    qma = start(tmp_path, "QMA", mqsc="DEFINE QLOCAL(QMB) USAGE(XMITQ)\n")
    yield qma, qmb
    qma.stop()
    qmb.stop()


def _requester(qmb: embedded.EmbeddedQueueManager, qma: embedded.EmbeddedQueueManager) -> None:
    qmb.run_mqsc(f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(RQSTR) CONNAME('127.0.0.1({qma.port})')")


def _lstseqno(qm: embedded.EmbeddedQueueManager) -> int:
    output = qm.run_mqsc(f"DISPLAY CHSTATUS({CHANNEL}) SAVED ALL")
    return int(output.split("LSTSEQNO(")[1].split(")")[0])


def _chltype(qm: embedded.EmbeddedQueueManager) -> str:
    output = qm.run_mqsc(f"DISPLAY CHSTATUS({CHANNEL})")
    return output.split("CHLTYPE(")[1].split(")")[0]


def test_a_server_with_conname_starts_as_a_sender_and_its_requester_receives(pair):
    """Server-initiated: "a server channel that has the connection name of the partner
    specified ... can initiate the channel" to a requester (IBM docs, "Channel
    combinations"); the messages arrive once, and each end shows its own type."""
    qma, qmb = pair
    _requester(qmb, qma)
    qma.run_mqsc(f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(SVR) CONNAME('127.0.0.1({qmb.port})') "
                 f"XMITQ(QMB) {TIMERS}")
    put_remote(connect(qma), "IN.B", "QMB", [b"one", b"two"])
    qma.run_mqsc(f"START CHANNEL({CHANNEL})")
    assert [body for _, body in receive(connect(qmb), "IN.B", 2)] == [b"one", b"two"]
    wait_for(lambda: depth(connect(qma), "QMB") == 0, what="the batch committed")
    assert _chltype(qma) == "SVR" and _chltype(qmb) == "RQSTR"
    assert channel_status(qma, CHANNEL) == channel_status(qmb, CHANNEL) == "RUNNING"


def test_a_requester_starts_a_server_without_conname_over_its_own_connection(pair):
    """Requester-server: START CHANNEL on the requester; the server, which has no CONNAME
    and so cannot start itself (START CHANNEL on it is refused), sends its transmission
    queue's messages back over the requester's connection. The books carry on across
    sessions (sequence numbers follow on at both ends: SAVED LSTSEQNO)."""
    qma, qmb = pair
    # HBINT(1): an idle server notices within a heartbeat that its requester has gone
    qma.run_mqsc(f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(SVR) XMITQ(QMB) BATCHSZ(5) HBINT(1)")
    _requester(qmb, qma)
    with pytest.raises(embedded.EmbeddedQueueManagerError, match="CONNAME"):
        qma.run_mqsc(f"START CHANNEL({CHANNEL})")
    put_remote(connect(qma), "IN.B", "QMB", [b"m%d" % n for n in range(7)])
    qmb.run_mqsc(f"START CHANNEL({CHANNEL})")
    assert len(receive(connect(qmb), "IN.B", 7)) == 7
    wait_for(lambda: depth(connect(qma), "QMB") == 0, what="the batches committed")
    assert _chltype(qma) == "SVR" and _chltype(qmb) == "RQSTR"
    wait_for(lambda: _lstseqno(qma) == 7, what="the server's books")
    assert _lstseqno(qmb) == 7
    qmb.run_mqsc(f"STOP CHANNEL({CHANNEL})")
    wait_for(lambda: channel_status(qma, CHANNEL) in ("", "INACTIVE"), what="the server ended")
    put_remote(connect(qma), "IN.B", "QMB", [b"again"])
    qmb.run_mqsc(f"START CHANNEL({CHANNEL})")
    assert [body for _, body in receive(connect(qmb), "IN.B", 1)] == [b"again"]
    wait_for(lambda: _lstseqno(qma) == 8, what="sequence number 8 follows on")
    assert _lstseqno(qmb) == 8


def test_a_requester_asking_a_sender_is_called_back(pair):
    """Requester-sender callback: the sender "disconnects and restarts the channel as a
    sender-receiver pair" to its own CONNAME (IBM docs); the requester receives it."""
    qma, qmb = pair
    _requester(qmb, qma)
    qma.run_mqsc(f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(SDR) CONNAME('127.0.0.1({qmb.port})') "
                 f"XMITQ(QMB) {TIMERS}")
    put_remote(connect(qma), "IN.B", "QMB", [b"called back"])
    assert channel_status(qma, CHANNEL) == ""            # not triggered: nothing started it
    qmb.run_mqsc(f"START CHANNEL({CHANNEL})")
    assert [body for _, body in receive(connect(qmb), "IN.B", 1)] == [b"called back"]
    assert _chltype(qma) == "SDR" and _chltype(qmb) == "RQSTR"
    assert "RQMNAME(QMA)" in qmb.run_mqsc(f"DISPLAY CHSTATUS({CHANNEL}) ALL")


@pytest.mark.parametrize("server_side", ["STOP CHANNEL(QMA.TO.QMB)", ""])
def test_a_stopped_or_missing_server_refuses_the_requester(pair, server_side):
    """The serving end admits a requester as any inbound channel: a STOPPED channel refuses
    it (MQRC_CHANNEL_STOPPED_BY_USER), and so does a queue manager without that channel;
    the requester is STOPPED and the messages stay where they are."""
    qma, qmb = pair
    if server_side:
        qma.run_mqsc(f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(SVR) XMITQ(QMB)\n{server_side}")
    _requester(qmb, qma)
    put_remote(connect(qma), "IN.B", "QMB", [b"stays"])
    qmb.run_mqsc(f"START CHANNEL({CHANNEL})")
    wait_for(lambda: channel_status(qmb, CHANNEL) == "STOPPED", what="the requester refused")
    assert depth(connect(qma), "QMB") == 1
    assert receive(connect(qmb), "IN.B", 1, seconds=1) == []


def test_pcf_defines_and_displays_server_and_requester_channels(pair):
    """PCF Create/Inquire Channel with MQCHT_SERVER and MQCHT_REQUESTER."""
    qma, _ = pair
    pcf = ibmmq.PCFExecute(connect(qma), response_wait_interval=10000)
    try:
        pcf.MQCMD_CREATE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"A.SVR",
                                  CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_SERVER,
                                  CMQCFC.MQCACH_XMIT_Q_NAME: b"QMB"})
        pcf.MQCMD_CREATE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"A.RQSTR",
                                  CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_REQUESTER,
                                  CMQCFC.MQCACH_CONNECTION_NAME: b"host(1414)"})
        [server] = pcf.MQCMD_INQUIRE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"A.SVR"})
        [requester] = pcf.MQCMD_INQUIRE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"A.RQSTR"})
    finally:
        pcf.disconnect()
    assert server[CMQCFC.MQIACH_CHANNEL_TYPE] == CMQXC.MQCHT_SERVER
    assert server[CMQCFC.MQCACH_XMIT_Q_NAME].strip() == b"QMB"
    assert requester[CMQCFC.MQIACH_CHANNEL_TYPE] == CMQXC.MQCHT_REQUESTER
    assert requester[CMQCFC.MQCACH_CONNECTION_NAME].strip() == b"host(1414)"
    assert "CHLTYPE(RQSTR)" in qma.run_mqsc("DISPLAY CHANNEL(A.RQSTR) CHLTYPE(RQSTR)")


def test_a_secured_server_admits_a_requester_only_through_its_chlauth_rules(tmp_path):
    """The doors of an inbound channel hold for a requester: IBM's developer configuration
    refuses every channel its rules do not name (the back-stop ADDRESSMAP NOACCESS), so the
    requester is refused (2035) and STOPPED with the messages kept; a QMGRMAP rule naming
    the requester's queue manager lets it in (IBM docs, "Channel authentication records")."""
    qma = embedded.EmbeddedQueueManager(str(tmp_path / "QMA"), name="QMA",
                                        users={"app": "passw0rd", "admin": "adminpw"}).start()
    qmb = start(tmp_path, "QMB", mqsc="DEFINE QLOCAL(IN.B)\n")
    try:
        qma.run_mqsc("DEFINE QLOCAL(QMB) USAGE(XMITQ)\n"
                     f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(SVR) XMITQ(QMB) MCAUSER('app')")
        _requester(qmb, qma)
        a = ibmmq.connect("QMA", "DEV.ADMIN.SVRCONN", qma.conn_name, user="admin",
                          password="adminpw")
        put_remote(a, "IN.B", "QMB", [b"let me in"])
        qmb.run_mqsc(f"START CHANNEL({CHANNEL})")
        wait_for(lambda: channel_status(qmb, CHANNEL) == "STOPPED", what="refused, STOPPED")
        assert "2035" in (tmp_path / "QMB" / "qmgr.log").read_text()
        assert depth(a, "QMB") == 1
        # the server's agent gets from its transmission queue as its MCAUSER
        qma.run_mqsc(f"SET CHLAUTH('{CHANNEL}') TYPE(QMGRMAP) QMNAME('QMB') USERSRC(CHANNEL)\n"
                     "SET AUTHREC PROFILE('QMB') OBJTYPE(QUEUE) PRINCIPAL('app') "
                     "AUTHADD(GET, BROWSE, INQ)")
        qmb.run_mqsc(f"START CHANNEL({CHANNEL})")
        assert [body for _, body in receive(connect(qmb), "IN.B", 1)] == [b"let me in"]
    finally:
        qma.stop()
        qmb.stop()


def _tls_manager(tmp_path: Path, name: str, ca: tuple[str, str],
                 mqsc: str = "") -> embedded.EmbeddedQueueManager:
    """A queue manager whose key repository holds CN=name by the network's CA."""
    (tmp_path / "keys" / name).mkdir(parents=True)
    stem = str(tmp_path / "keys" / name / "key")
    make_certificate(stem, f"/O=Spark/CN={name}", ca)
    shutil.copy(ca[0], stem + ".ca.pem")
    return embedded.EmbeddedQueueManager(str(tmp_path / name / "data"), name=name,
                                         mqsc=mqsc or None, tls_key_repository=stem).start()


@pytest.mark.parametrize("requester_peer, arrives", [("CN=QMA,O=Spark", True),
                                                     ("CN=SOMEONE.ELSE,O=Spark", False)])
def test_a_requester_reaches_its_server_over_tls_both_ends_checked(tmp_path, requester_peer,
                                                                   arrives):
    """Requester-server over TLS (IBM docs, "SSLPEER"): the requester checks the server's
    certificate against its SSLPEER, and the server the requester's against its own; a
    server whose DN does not match is not received from, and the messages stay."""
    (tmp_path / "ca").mkdir()
    ca = make_ca(str(tmp_path / "ca"), "NetworkCA")
    qma = _tls_manager(tmp_path, "QMA", ca, "DEFINE QLOCAL(QMB) USAGE(XMITQ)\n")
    qmb = _tls_manager(tmp_path, "QMB", ca, "DEFINE QLOCAL(IN.B)\n")
    try:
        qma.run_mqsc(f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(SVR) XMITQ(QMB) "
                     "SSLCIPH(ANY_TLS12_OR_HIGHER) SSLPEER('CN=QMB,O=Spark')")
        qmb.run_mqsc(f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(RQSTR) CONNAME('127.0.0.1({qma.port})') "
                     f"SSLCIPH(ANY_TLS12_OR_HIGHER) SSLPEER('{requester_peer}')")
        put_remote(connect(qma), "IN.B", "QMB", [b"secret"])
        qmb.run_mqsc(f"START CHANNEL({CHANNEL})")
        if arrives:
            assert [body for _, body in receive(connect(qmb), "IN.B", 1)] == [b"secret"]
        else:
            wait_for(lambda: channel_status(qmb, CHANNEL) == "STOPPED", what="refused")
            assert depth(connect(qma), "QMB") == 1
    finally:
        qma.stop()
        qmb.stop()
