"""Channels between queue managers over TLS, with the same TLS code as client channels: a
sender with SSLCIPH reaches its partner with its queue manager's own certificate (the key
repository SSLKEYR) and checks the partner's DN against SSLPEER; the receiver checks its
SSLCIPH, SSLCAUTH and SSLPEER as for a client. A sender without TLS, or one whose peer
name does not match, is refused and retries: nothing is lost. Certificates are made with
the openssl command (tests/tls_keys.py)."""
from __future__ import annotations

import shutil
from pathlib import Path

import ibmmq
import pytest

import spark_mq.embedded as embedded
from channel_topology import (
    channel_status,
    connect,
    define_receiver,
    define_sender,
    depth,
    put_remote,
    receive,
    wait_for,
)
from tls_keys import make_ca, make_certificate

CIPHER = "ANY_TLS12_OR_HIGHER"


def repository(folder: Path, name: str, ca: tuple[str, str]) -> str:
    """`folder`/name/key.crt+.key (CN=name, by the network's CA) and key.ca.pem (that CA)."""
    (folder / name).mkdir(parents=True)
    stem = str(folder / name / "key")
    make_certificate(stem, f"/O=Spark/CN={name}", ca)
    shutil.copy(ca[0], stem + ".ca.pem")
    return stem


@pytest.fixture
def tls_pair(tmp_path):
    (tmp_path / "ca").mkdir()
    ca = make_ca(str(tmp_path / "ca"), "NetworkCA")
    managers = {}
    for name, mqsc in (("QMB", "DEFINE QLOCAL(IN.B)\n"), ("QMA", "")):
        managers[name] = embedded.EmbeddedQueueManager(
            str(tmp_path / name / "data"), name=name, mqsc=mqsc or None,
            tls_key_repository=repository(tmp_path / "keys", name, ca)).start()
    qmb, qma = managers["QMB"], managers["QMA"]
    define_receiver(qmb, "QMA")
    qmb.run_mqsc(f"ALTER CHANNEL(QMA.TO.QMB) CHLTYPE(RCVR) SSLCIPH({CIPHER}) "
                 "SSLCAUTH(REQUIRED) SSLPEER('CN=QMA,O=Spark')")
    yield qma, qmb
    qma.stop()
    qmb.stop()


def test_messages_cross_a_tls_channel_both_ends_checked(tls_pair):
    qma, qmb = tls_pair
    name = define_sender(qma, "QMB", int(qmb.port or 0),
                         f"SSLCIPH({CIPHER}) SSLPEER('CN=QMB,O=Spark')")
    sent = put_remote(connect(qma), "IN.B", "QMB", [b"secret %d" % n for n in range(10)])
    got = receive(connect(qmb), "IN.B", 10)
    assert [md.MsgId for md, _ in got] == sent
    assert "STATUS(RUNNING)" in qma.run_mqsc(f"DISPLAY CHSTATUS({name})")


def test_a_sender_without_tls_is_refused_and_keeps_its_messages(tls_pair, tmp_path):
    qma, qmb = tls_pair
    name = define_sender(qma, "QMB", int(qmb.port or 0))
    put_remote(connect(qma), "IN.B", "QMB", [b"in the clear?"])
    wait_for(lambda: channel_status(qma, name) == "RETRYING", what="RETRYING")
    assert "did not specify a CipherSpec" in (tmp_path / "QMB" / "data" / "qmgr.log").read_text()
    assert depth(connect(qma), "QMB") == 1 and depth(connect(qmb), "IN.B") == 0
    qma.run_mqsc(f"ALTER CHANNEL({name}) CHLTYPE(SDR) SSLCIPH({CIPHER})")   # the fix
    assert len(receive(connect(qmb), "IN.B", 1)) == 1


def test_a_partner_whose_dn_does_not_match_sslpeer_is_not_sent_to(tls_pair, tmp_path):
    qma, qmb = tls_pair
    name = define_sender(qma, "QMB", int(qmb.port or 0),
                         f"SSLCIPH({CIPHER}) SSLPEER('CN=SOMEONE.ELSE')")
    put_remote(connect(qma), "IN.B", "QMB", [b"for QMB only"])
    wait_for(lambda: channel_status(qma, name) == "RETRYING", what="RETRYING")
    assert "does not match CN=SOMEONE.ELSE" in (tmp_path / "QMA" / "data" / "qmgr.log").read_text()
    assert depth(connect(qma), "QMB") == 1 and depth(connect(qmb), "IN.B") == 0


def test_a_partner_whose_certificate_another_ca_signed_is_refused(tls_pair, tmp_path):
    """A queue manager calling itself QMA, with a certificate for CN=QMA,O=Spark that a CA
    of its own signed: the receiver's TLS handshake fails, the sender retries, nothing is
    put."""
    _, qmb = tls_pair
    (tmp_path / "rogue-ca").mkdir()
    rogue_ca = make_ca(str(tmp_path / "rogue-ca"), "RogueCA")
    stem = repository(tmp_path / "rogue-keys", "QMA", rogue_ca)
    network_ca = str(tmp_path / "keys" / "QMB" / "key.ca.pem")
    shutil.copy(network_ca, stem + ".ca.pem")      # it trusts QMB, but QMB does not trust it
    rogue = embedded.EmbeddedQueueManager(str(tmp_path / "rogue"), name="QMA",
                                          tls_key_repository=stem).start()
    try:
        name = define_sender(rogue, "QMB", int(qmb.port or 0), f"SSLCIPH({CIPHER})")
        put_remote(connect(rogue), "IN.B", "QMB", [b"signed by my own CA"])
        wait_for(lambda: channel_status(rogue, name) == "RETRYING", what="RETRYING")
        assert "TLS handshake with" in (tmp_path / "QMB" / "data" / "qmgr.log").read_text()
        assert depth(connect(qmb), "IN.B") == 0 and depth(connect(rogue), "QMB") == 1
    finally:
        rogue.stop()


def test_an_sslpeermap_rule_admits_a_certificate_and_the_receiver_runs_as_its_user(tmp_path):
    """On a queue manager with users, behind IBM's back-stop (ADDRESSMAP('*') NOACCESS): an
    SSLPEERMAP for another DN refuses the partner (AMQ9777E); one for its DN and issuer
    admits it as the rule's MCAUSER, whose authority its puts then need: refused (dead
    letter, AMQ8077W naming that user) until it has +put and +setall."""
    (tmp_path / "ca").mkdir()
    ca = make_ca(str(tmp_path / "ca"), "NetworkCA")
    qmb = embedded.EmbeddedQueueManager(
        str(tmp_path / "QMB" / "data"), name="QMB", mqsc="DEFINE QLOCAL(IN.B)\n",
        users={"app": "passw0rd", "admin": "adminpw"},
        tls_key_repository=repository(tmp_path / "keys", "QMB", ca)).start()
    qma = embedded.EmbeddedQueueManager(
        str(tmp_path / "QMA" / "data"), name="QMA",
        tls_key_repository=repository(tmp_path / "keys", "QMA", ca)).start()
    log = tmp_path / "QMB" / "data" / "qmgr.log"
    try:
        qmb.run_mqsc(f"DEFINE CHANNEL(QMA.TO.QMB) CHLTYPE(RCVR) SSLCIPH({CIPHER})\n"
                     "SET CHLAUTH('QMA.TO.QMB') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(NOACCESS)\n"
                     "SET CHLAUTH('QMA.TO.QMB') TYPE(SSLPEERMAP) SSLPEER('CN=QMZ,O=Spark') "
                     "USERSRC(MAP) MCAUSER('app')")
        name = define_sender(qma, "QMB", int(qmb.port or 0), f"SSLCIPH({CIPHER})")
        put_remote(connect(qma), "IN.B", "QMB", [b"not yet", b"now"])
        wait_for(lambda: channel_status(qma, name) == "RETRYING", what="RETRYING")
        wait_for(lambda: "AMQ9777E" in log.read_text(), what="AMQ9777E")
        qmb.run_mqsc("SET CHLAUTH('QMA.TO.QMB') TYPE(SSLPEERMAP) SSLPEER('CN=QMA,O=Spark') "
                     "SSLCERTI('CN=NetworkCA') USERSRC(MAP) MCAUSER('app')")
        admin = ibmmq.connect("QMB", "DEV.ADMIN.SVRCONN", qmb.conn_name, user="admin",
                              password="adminpw")
        assert len(receive(admin, "DEV.DEAD.LETTER.QUEUE", 2)) == 2
        assert "AMQ8077W: Entity 'app'" in log.read_text()
        qmb.run_mqsc("SET AUTHREC PROFILE('IN.B') OBJTYPE(QUEUE) PRINCIPAL('app') "
                     "AUTHADD(PUT,SETALL)\n"
                     "SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('app') AUTHADD(SETALL)")
        sent = put_remote(connect(qma), "IN.B", "QMB", [b"as app"])
        got = receive(admin, "IN.B", 1)
        assert [md.MsgId for md, _ in got] == sent
        shown = qmb.run_mqsc("DISPLAY CHLAUTH('QMA.TO.QMB') TYPE(SSLPEERMAP) ALL")
        assert "SSLPEER(CN=QMA,O=Spark)" in shown and "SSLCERTI(CN=NetworkCA)" in shown
    finally:
        qma.stop()
        qmb.stop()
