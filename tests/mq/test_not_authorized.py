"""MQRC_NOT_AUTHORIZED (2035) told apart: at MQCONNX (a wrong password, a CHLAUTH block, no
connect authority) the hint names every cause with how to check it, and the queue manager's
log says which one it was (AMQ5534E, AMQ9776E, AMQ8077W, as IBM MQ's error log does); at
MQOPEN the connection was admitted, so the hint names the object, the authority the call
needed and the commands that grant it, and running the hint's own SET AUTHREC makes the same
open work. Against a real embedded queue manager with users."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import spark_mq.embedded as embedded
from spark_mq.errors import MQConnectorError
from spark_mq.mq.connecting import ConnectionOptions, connect, load_ibmmq
from spark_mq.mq.queues import check_input_queue

USERS = {"app": "passw0rd", "blocked": ("passw0rd", ["mqclient"]), "lonely": ("passw0rd", ["nobody"])}


@pytest.fixture(scope="module")
def sqm(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qm2035")), name="QM2035",
                                       users=USERS) as manager:
        manager.run_mqsc("""
            DEFINE QLOCAL(APP.PRIVATE) REPLACE
            DEFINE QLOCAL(APP.OUTBOX) REPLACE
            DEFINE QLOCAL(APP.BROWSED) REPLACE
            SET CHLAUTH('DEV.APP.SVRCONN') TYPE(BLOCKUSER) USERLIST('blocked') ACTION(REPLACE)
        """)
        yield manager


def connection(qm, user: str, password: str = "passw0rd") -> ConnectionOptions:
    return ConnectionOptions(queue_manager=qm.name, conn_name=qm.conn_name, user=user,
                             password=password, transport="embedded")


def refusal(action) -> str:
    with pytest.raises(MQConnectorError) as refused:
        action()
    assert refused.value.reason == 2035 and refused.value.reason_name == "MQRC_NOT_AUTHORIZED"
    return str(refused.value)


def log_lines(qm, message_id: str) -> list[str]:
    text = Path(qm.data_dir, "qmgr.log").read_text()
    return [line for line in text.splitlines() if message_id in line]


def test_a_wrong_password_names_every_cause_and_the_log_says_which(sqm):
    message = refusal(lambda: connect(connection(sqm, "app", "wrong")))
    assert "the queue manager refused the connection" in message
    assert "(1) a wrong 'user' and 'password' (the error log shows AMQ5534E for user 'app')" in message
    assert ("DISPLAY CHLAUTH('DEV.APP.SVRCONN') MATCH(RUNCHECK) ADDRESS('127.0.0.1') "
            "CLNTUSER('app')") in message
    assert "dspmqaut -m QM2035 -t qmgr -p app" in message and "qmgr.log" in message
    assert any("User ID 'app' authentication failed" in line for line in log_lines(sqm, "AMQ5534E"))


def test_a_chlauth_block_is_logged_as_one(sqm):
    message = refusal(lambda: connect(connection(sqm, "blocked")))
    assert "AMQ9776E" in message and "CLNTUSER('blocked')" in message
    lines = log_lines(sqm, "AMQ9776E")
    assert any("'DEV.APP.SVRCONN'" in line and "'blocked'" in line for line in lines), lines
    # the display the hint names shows the rule that blocks
    assert "DISPLAY CHLAUTH('DEV.APP.SVRCONN') TYPE(BLOCKUSER)" in message
    shown = sqm.run_mqsc("DISPLAY CHLAUTH('DEV.APP.SVRCONN') TYPE(BLOCKUSER)")
    assert re.search(r"USERLIST\([^)]*blocked", shown), shown


def test_no_connect_authority_is_logged_with_the_command_that_grants_it(sqm):
    refusal(lambda: connect(connection(sqm, "lonely")))
    lines = log_lines(sqm, "AMQ8077W")
    assert any("Entity 'lonely'" in line and "lacks CONNECT" in line
               and "setmqaut -m QM2035 -t qmgr -p lonely +connect" in line for line in lines), lines


def test_a_refused_open_names_the_authority_and_its_grant_which_then_works(sqm):
    options = connection(sqm, "app")
    message = refusal(lambda: check_input_queue(options, "APP.PRIVATE", None))
    assert "opening queue 'APP.PRIVATE' for input" in message
    assert "the connection was admitted, so user 'app'" in message
    assert "this call needs +get" in message
    assert "setmqaut -m QM2035 -n 'APP.PRIVATE' -t queue -p app +get" in message
    grant = re.search(r"SET AUTHREC PROFILE\('APP\.PRIVATE'\) OBJTYPE\(QUEUE\) "
                      r"PRINCIPAL\('app'\) AUTHADD\(GET\)", message)
    assert grant, message
    lines = log_lines(sqm, "AMQ8077W")
    assert any("Entity 'app'" in line and "queue 'APP.PRIVATE'" in line and "lacks GET" in line
               for line in lines), lines
    sqm.run_mqsc(grant.group(0))                       # the hint's own command
    check_input_queue(options, "APP.PRIVATE", None)    # ... is the one that was missing


def test_a_refused_put_names_put_authority(sqm):
    ibmmq = load_ibmmq("embedded")
    qmgr = connect(connection(sqm, "app"))
    try:
        from spark_mq.mq.producer import Producer, ProducerSettings
        producer = Producer(qmgr, ibmmq, ProducerSettings(), 4 * 1024 * 1024)
        message = refusal(lambda: producer.target("APP.OUTBOX"))
    finally:
        qmgr.disconnect()
    assert "lacks authority on queue 'APP.OUTBOX': this call needs +put" in message
    assert "AUTHADD(PUT)" in message


def test_a_batch_reads_check_asks_only_for_what_a_browse_needs(sqm):
    """spark.read only browses: its start check opens the queue as the browse does, so a user
    with +browse and +inq (no +get) reads, and the hint of a refusal names browse authority."""
    options = connection(sqm, "app")
    message = refusal(lambda: check_input_queue(options, "APP.BROWSED", None, browse=True))
    assert "opening queue 'APP.BROWSED' for browse" in message and "+get" not in message
    sqm.run_mqsc("SET AUTHREC PROFILE('APP.BROWSED') OBJTYPE(QUEUE) PRINCIPAL('app') "
                 "AUTHADD(BROWSE, INQ)")
    check_input_queue(options, "APP.BROWSED", None, browse=True)
    assert "this call needs +get" in refusal(lambda: check_input_queue(options, "APP.BROWSED", None))
