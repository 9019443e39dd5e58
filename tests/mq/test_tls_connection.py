"""The connector's `cipherSpec` / `keyRepository` options end to end: the MQCD SSLCipherSpec and
the MQSCO that spark_mq.mq.connecting builds, against an embedded queue manager serving TLS."""
from __future__ import annotations

import shutil

import pytest

import spark_mq.embedded as embedded
from spark_mq.mq.connecting import ConnectionOptions, connect
from spark_mq.mq.exceptions import MQConnectorError
from spark_mq.options import parse_connection
from support import drain_payloads, put_messages
from tls_keys import KeyRepositories

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")

MQSC = """
DEFINE CHANNEL(APP.TLS) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(OPTIONAL)
DEFINE QLOCAL(APP.TLS.Q)
"""


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> KeyRepositories:
    return KeyRepositories(str(tmp_path_factory.mktemp("keys")))


@pytest.fixture(scope="module")
def tls_qm(tmp_path_factory, keys):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("tlsqm")), name="QMTLS",
                                       mqsc=MQSC, tls_key_repository=keys.qm) as manager:
        yield manager


def test_connection_options_with_a_cipher_spec_and_key_repository_put_and_get(tls_qm, keys):
    options = ConnectionOptions(queue_manager=tls_qm.name, conn_name=tls_qm.conn_name,
                                channel="APP.TLS", transport="embedded",
                                cipher_spec="ANY_TLS12_OR_HIGHER", key_repository=keys.client)
    qmgr = connect(options)
    try:
        put_messages(qmgr, "APP.TLS.Q", [b"through TLS"])
        assert [payload for payload, _ in drain_payloads(qmgr, "APP.TLS.Q")] == [b"through TLS"]
    finally:
        qmgr.disconnect()


def test_the_spark_options_reach_the_tls_channel(tls_qm, keys):
    options = parse_connection({"queueManager": tls_qm.name, "connName": tls_qm.conn_name,
                                "channel": "APP.TLS", "transport": "embedded",
                                "cipherSpec": "ECDHE_RSA_AES_256_GCM_SHA384",
                                "keyRepository": keys.client})
    connect(options).disconnect()


def test_tls_failures_are_reported_with_their_reason(tls_qm, keys):
    options = ConnectionOptions(queue_manager=tls_qm.name, conn_name=tls_qm.conn_name,
                                channel="APP.TLS", transport="embedded",
                                cipher_spec="ANY_TLS12_OR_HIGHER", key_repository="/nonexistent/key")
    with pytest.raises(MQConnectorError, match="2381 MQRC_KEY_REPOSITORY_ERROR"):
        connect(options)
    plain = ConnectionOptions(queue_manager=tls_qm.name, conn_name=tls_qm.conn_name,
                              channel="APP.TLS", transport="embedded")
    with pytest.raises(MQConnectorError, match="2393 MQRC_SSL_INITIALIZATION_ERROR"):
        connect(plain)
