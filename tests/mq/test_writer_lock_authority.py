"""The writer's exactly-once partition locks on a secured queue manager with IBM's developer
configuration, where applications may open DEV.APP.MODEL.QUEUE but not
SYSTEM.DEFAULT.MODEL.QUEUE: the default fails at the query's start (not in its tasks) with
an error naming the option and what would be valid; option modelQueue makes it work."""
from __future__ import annotations

import ibmmq
import pytest

import spark_mq.embedded as embedded
from spark_mq.errors import MQConnectorError
from spark_mq.mq.markers import ChunkLedger
from spark_mq.options import WriteOptions
from spark_mq.writer import _check_with_queue_manager

USERS = {"app": "passw0rd", "admin": "adminpw"}
STATE = "APP.WRITER.STATE"


@pytest.fixture(scope="module")
def sqm(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmlock")), name="QMLOCK",
                                       users=USERS) as manager:
        manager.run_mqsc(f"""
            DEFINE QLOCAL({STATE}) DEFPSIST(YES) REPLACE
            SET AUTHREC PROFILE('{STATE}') PRINCIPAL('app') OBJTYPE(QUEUE) +
                AUTHADD(GET,PUT,INQ,BROWSE)
        """)
        yield manager


def options(qm, **extra: str) -> WriteOptions:
    return WriteOptions.parse({"connName": qm.conn_name, "queueManager": qm.name,
                               "channel": "DEV.APP.SVRCONN", "user": "app",
                               "password": "passw0rd", "queue": "DEV.QUEUE.1",
                               "stateQueue": STATE, **extra}, streaming=True)


def test_a_model_queue_the_user_may_not_open_fails_the_query_at_start(sqm):
    with pytest.raises(MQConnectorError) as refused:
        _check_with_queue_manager(options(sqm))
    message = str(refused.value)
    assert refused.value.reason == ibmmq.CMQC.MQRC_NOT_AUTHORIZED
    assert "SYSTEM.DEFAULT.MODEL.QUEUE (option 'modelQueue')" in message
    assert "DEV.APP.MODEL.QUEUE" in message and "delivery=atLeastOnce" in message


def test_option_model_queue_takes_the_developer_model(sqm):
    checked = _check_with_queue_manager(options(sqm, modelQueue="DEV.APP.MODEL.QUEUE"))
    assert checked.model_queue == "DEV.APP.MODEL.QUEUE"
    conn = ibmmq.connect(sqm.name, "DEV.APP.SVRCONN", sqm.conn_name, user="app",
                         password="passw0rd")
    try:
        ledger = ChunkLedger(conn, ibmmq, STATE, "w", 0, 1000, "DEV.APP.MODEL.QUEUE")
        with pytest.raises(MQConnectorError, match="claimTimeoutMs"):
            ChunkLedger(conn, ibmmq, STATE, "w", 0, 1000, "DEV.APP.MODEL.QUEUE")
        ledger.close()
        ChunkLedger(conn, ibmmq, STATE, "w", 0, 1000, "DEV.APP.MODEL.QUEUE").close()
    finally:
        conn.disconnect()
