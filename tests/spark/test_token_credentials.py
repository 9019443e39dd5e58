"""The `token` option through Spark: a batch read from an embedded queue manager whose qm.ini
trusts the test's token issuer (tests/token_issuer.py) and whose application channel requires
credentials. The reader's planning and its tasks connect with the token alone (no user, no
password), and the token shows neither in the plan nor in an error."""
from __future__ import annotations

import ibmmq
import pytest

import spark_mq.embedded as embedded
from support import mq_options, put_messages
from token_issuer import TokenIssuer


@pytest.fixture(scope="module")
def issuer(tmp_path_factory) -> TokenIssuer:
    return TokenIssuer(tmp_path_factory.mktemp("issuer"))


@pytest.fixture(scope="module")
def tqm(tmp_path_factory, issuer):
    data_dir = tmp_path_factory.mktemp("qmtokens")
    (data_dir / "qm.ini").write_text(issuer.qm_ini())
    with embedded.EmbeddedQueueManager(str(data_dir), name="QMTOKENS",
                                       users={"app": "passw0rd"}) as manager:
        yield manager


def test_a_batch_read_with_only_a_token(spark, tqm, issuer):
    conn = ibmmq.connect(tqm.name, tqm.channel, tqm.conn_name, user="app", password="passw0rd")
    try:
        put_messages(conn, "DEV.QUEUE.1", [b"one", b"two", b"three"])
    finally:
        conn.disconnect()
    token = issuer.token(sub="app")
    read = spark.read.format("mq").options(**mq_options(tqm, queue="DEV.QUEUE.1",
                                                        token=token)).load()
    rows = read.select("payload").collect()
    assert sorted(bytes(row.payload) for row in rows) == [b"one", b"three", b"two"]
    assert token not in read._jdf.queryExecution().toString()


def test_a_token_from_another_issuer_fails_the_read_without_showing_it(spark, tqm, issuer):
    token = issuer.token(sub="app", key=issuer.rogue)
    with pytest.raises(Exception) as failure:
        spark.read.format("mq").options(**mq_options(tqm, queue="DEV.QUEUE.1",
                                                     token=token)).load().collect()
    text = str(failure.value)
    assert "MQ reason 2035 MQRC_NOT_AUTHORIZED" in text, text
    assert "a token the queue manager refused" in text, text
    assert token not in text
