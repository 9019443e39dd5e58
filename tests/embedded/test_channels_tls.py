"""Channels between queue managers over TLS, with the same TLS code as client channels: a
sender with SSLCIPH reaches its partner with its queue manager's own certificate (the key
repository SSLKEYR) and checks the partner's DN against SSLPEER; the receiver checks its
SSLCIPH, SSLCAUTH and SSLPEER as for a client. A sender without TLS, or one whose peer
name does not match, is refused and retries: nothing is lost. Certificates are made with
the openssl command (tests/tls_keys.py)."""
from __future__ import annotations

import shutil
from pathlib import Path

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
