"""The connector's one way of ending a connection (spark_mq.mq.connecting: `connected`,
`hand_over`, `disconnect_quietly`; spark_mq.mq.consumer.open_consumer), against a real
embedded queue manager of their own: what they leave connected is counted by the queue
manager (its metrics endpoint's ibmmq_qmgr_connection_count), not inferred from Python
objects.
"""
from __future__ import annotations

import logging

import pytest
from ibmmq import CMQC

import spark_mq.embedded as embedded
from spark_mq.mq.connecting import ConnectionOptions, connect, connected, load_ibmmq
from spark_mq.mq.consumer import open_consumer
from spark_mq.mq.exceptions import MQConnectorError
from support import connection_count as connections
from support import is_connected as alive

QUEUE = "HELPERS.Q"


@pytest.fixture(scope="module")
def manager(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qm")), name="QMHELP",
                                       metrics_port=0) as started:
        started.run_mqsc(f"DEFINE QLOCAL({QUEUE})")
        yield started


def options_of(manager) -> ConnectionOptions:
    return ConnectionOptions(queue_manager=manager.name, conn_name=manager.conn_name,
                             channel=manager.channel, transport="embedded")


# --- connected ---------------------------------------------------------------------------------

def test_connected_is_connected_inside_and_disconnected_after(manager):
    before = connections(manager)
    with connected(options_of(manager)) as qmgr:
        assert connections(manager) == before + 1
        assert qmgr.inquire(CMQC.MQCA_Q_MGR_NAME).strip() == manager.name.encode()
    assert connections(manager) == before
    assert not alive(qmgr)


def test_connected_disconnects_when_the_body_fails_and_the_body_error_goes_on(manager):
    before = connections(manager)
    with pytest.raises(LookupError, match="the body's own"):
        with connected(options_of(manager)):
            raise LookupError("the body's own")
    assert connections(manager) == before


def test_an_error_on_disconnect_is_logged_with_its_reason_name_not_raised(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    with embedded.EmbeddedQueueManager(str(tmp_path / "qm"), name="QMGONE") as gone:
        with connected(options_of(gone)) as qmgr:
            gone.stop()         # the connection breaks under the body: MQDISC fails with 2009
    assert not alive(qmgr)
    logged = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG
              and "disconnecting from queue manager QMGONE" in r.getMessage()]
    assert logged and "2009 MQRC_CONNECTION_BROKEN" in logged[0], caplog.text


# --- open_consumer (hand_over) -----------------------------------------------------------------

def test_open_consumer_leaves_nothing_connected_when_the_queue_does_not_open(manager):
    before = connections(manager)
    ibmmq = load_ibmmq("embedded")
    qmgr = connect(options_of(manager))
    with pytest.raises(MQConnectorError) as failure:
        open_consumer(ibmmq, qmgr, "NO.SUCH.QUEUE", syncpoint=True)
    assert failure.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    # the caller still holds the connection object and the error's traceback: no matter
    assert connections(manager) == before
    assert not alive(qmgr)


def test_open_consumer_owns_the_connection_it_was_handed(manager):
    before = connections(manager)
    ibmmq = load_ibmmq("embedded")
    consumer = open_consumer(ibmmq, connect(options_of(manager)), QUEUE, syncpoint=True)
    assert connections(manager) == before + 1
    assert consumer.get_batch(10, 1 << 20) == []
    consumer.close()
    assert connections(manager) == before


# --- connect_options ---------------------------------------------------------------------------

@pytest.mark.parametrize("reconnect, expected", [(False, CMQC.MQCNO_RECONNECT_DISABLED),
                                                 (True, CMQC.MQCNO_RECONNECT_Q_MGR)])
def test_a_connection_is_never_reconnectable_to_another_queue_manager(manager, reconnect,
                                                                       expected):
    """Without `reconnect` the MQCNO says RECONNECT_DISABLED rather than nothing: a client
    default (DefRecon=YES, a CCDT channel's DEFRECON(YES)) must not move a connection that
    holds exactly-once state to another member of a uniform cluster; and the queue manager
    takes it."""
    import dataclasses

    from spark_mq.mq.connecting import connect_options
    options = dataclasses.replace(options_of(manager), reconnect=reconnect)
    cno = connect_options(load_ibmmq("embedded"), options)
    reconnect_bits = (CMQC.MQCNO_RECONNECT | CMQC.MQCNO_RECONNECT_Q_MGR
                      | CMQC.MQCNO_RECONNECT_DISABLED)
    assert cno.Options & reconnect_bits == expected
    with connected(options) as qmgr:
        assert qmgr.inquire(CMQC.MQCA_Q_MGR_NAME).strip().decode() == manager.name
