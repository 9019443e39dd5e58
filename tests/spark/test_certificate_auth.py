"""Certificate-only client authentication: a TLS SVRCONN with SSLCAUTH(REQUIRED) behind IBM's
back-stop ADDRESSMAP('*') NOACCESS, where a CHLAUTH SSLPEERMAP rule maps the client
certificate's DN to a user. The connector's `certificateLabel` picks the certificate; with no
`user` and no `password` the connection runs as the mapped user (the MQMD UserIdentifier of
its puts says so), a Spark batch read works with only the certificate, and a certificate
no rule maps, or none at all, is refused."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import spark_mq.embedded as embedded
from spark_mq.mq.connecting import ConnectionOptions, connect
from spark_mq.mq.exceptions import MQConnectorError
from support import put_messages
from tls_keys import KeyRepositories

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")

CIPHER = "ANY_TLS12_OR_HIGHER"
MQSC = f"""
DEFINE CHANNEL(APP.CERT) CHLTYPE(SVRCONN) SSLCIPH({CIPHER}) SSLCAUTH(REQUIRED)
SET CHLAUTH('APP.CERT') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(NOACCESS)
SET CHLAUTH('APP.CERT') TYPE(SSLPEERMAP) SSLPEER('CN=app,OU=Payments,O=Spark') USERSRC(MAP) MCAUSER('app')
DEFINE QLOCAL(APP.CERT.Q)
SET AUTHREC PROFILE('APP.CERT.Q') OBJTYPE(QUEUE) PRINCIPAL('app') AUTHADD(PUT,GET,BROWSE,INQ)
"""


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> KeyRepositories:
    return KeyRepositories(str(tmp_path_factory.mktemp("keys")))


@pytest.fixture(scope="module")
def cert_qm(tmp_path_factory, keys):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("certqm")), name="QMCERT",
                                       mqsc=MQSC, tls_key_repository=keys.qm,
                                       users={"app": "an-unused-password"}) as manager:
        yield manager


def log_of(qm) -> str:
    return (Path(qm.data_dir) / "qmgr.log").read_text(encoding="utf-8")


def options(qm, keys, **extra) -> dict:
    return {"queueManager": qm.name, "connName": qm.conn_name, "channel": "APP.CERT",
            "transport": "embedded", "cipherSpec": CIPHER, "keyRepository": keys.client, **extra}


def connection(qm, keys, label: str | None) -> ConnectionOptions:
    return ConnectionOptions(queue_manager=qm.name, conn_name=qm.conn_name, channel="APP.CERT",
                             transport="embedded", cipher_spec=CIPHER,
                             key_repository=keys.client, certificate_label=label)


def test_a_spark_read_authenticates_with_only_a_certificate(spark, cert_qm, keys):
    qmgr = connect(connection(cert_qm, keys, "app"))
    try:
        put_messages(qmgr, "APP.CERT.Q", [b"one", b"two"])
    finally:
        qmgr.disconnect()
    rows = (spark.read.format("mq")
            .options(**options(cert_qm, keys, queue="APP.CERT.Q", certificateLabel="app",
                               includeContext="true"))
            .load().select("payload", "user_id").collect())
    assert sorted(bytes(row.payload) for row in rows) == [b"one", b"two"]
    assert {row.user_id.strip() for row in rows} == {"app"}, "the puts ran as the mapped user"


def test_a_certificate_no_sslpeermap_rule_maps_is_refused(cert_qm, keys):
    """CN=rogue is signed by the trusted CA, so TLS admits it; only the back-stop rule
    applies to it."""
    with pytest.raises(MQConnectorError, match="2035 MQRC_NOT_AUTHORIZED") as failure:
        connect(connection(cert_qm, keys, "rogue"))
    assert ("(1) no CHLAUTH TYPE(SSLPEERMAP) rule on channel 'APP.CERT' that maps the DN of "
            "certificate 'rogue' to a user") in str(failure.value)


def test_without_a_certificate_the_channel_refuses_the_handshake(cert_qm, keys):
    with pytest.raises(MQConnectorError, match="2393 MQRC_SSL_INITIALIZATION_ERROR"):
        connect(connection(cert_qm, keys, None))
    assert "AMQ9637E: channel 'APP.CERT' is lacking a certificate" in log_of(cert_qm)


def test_a_certificate_label_the_repository_lacks_is_refused(cert_qm, keys):
    with pytest.raises(MQConnectorError, match="2381 MQRC_KEY_REPOSITORY_ERROR"):
        connect(connection(cert_qm, keys, "nosuchlabel"))


def test_runcheck_shows_the_sslpeermap_rule_a_client_certificate_meets(cert_qm):
    shown = cert_qm.run_mqsc("DISPLAY CHLAUTH('APP.CERT') MATCH(RUNCHECK) ADDRESS('127.0.0.1') "
                             "CLNTUSER('someone') SSLPEER('CN=app,OU=Payments,O=Spark')")
    assert "TYPE(SSLPEERMAP)" in shown and "MCAUSER(app)" in shown, shown
    other = cert_qm.run_mqsc("DISPLAY CHLAUTH('APP.CERT') MATCH(RUNCHECK) ADDRESS('127.0.0.1') "
                             "CLNTUSER('someone') SSLPEER('CN=rogue,O=Elsewhere')")
    assert "TYPE(ADDRESSMAP)" in other and "USERSRC(NOACCESS)" in other, other


def test_through_a_ccdt_the_certificate_label_and_repository_still_reach_the_client(
        cert_qm, keys, tmp_path):
    """With a CCDT the CipherSpec comes from the table and no cipherSpec option is given: the
    MQSCO still carries keyRepository and certificateLabel."""
    host, port = cert_qm.conn_name.rstrip(")").split("(")
    table = tmp_path / "ccdt.json"
    table.write_text(json.dumps({"channel": [{
        "name": "APP.CERT", "type": "clientConnection",
        "clientConnection": {"connection": [{"host": host, "port": int(port)}],
                             "queueManager": cert_qm.name},
        "transmissionSecurity": {"cipherSpecification": CIPHER}}]}))
    qmgr = connect(ConnectionOptions(queue_manager=cert_qm.name, ccdt_url=f"file://{table}",
                                     transport="embedded", key_repository=keys.client,
                                     certificate_label="app"))
    qmgr.disconnect()
