"""Conformance: connecting, authentication, opening and closing (ibmmq API only)."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC

import spark_mq.embedded as embedded


def reason(excinfo) -> int:
    return excinfo.value.reason


def test_connect_client_and_queue_manager_name(qm, conn):
    assert conn.inquire(CMQC.MQCA_Q_MGR_NAME).strip() == qm.name.encode()


def test_connect_with_blank_name_reaches_the_listener(qm):
    connection = ibmmq.connect("", qm.channel, qm.conn_name)
    try:
        assert connection.inquire(CMQC.MQCA_Q_MGR_NAME).strip() == qm.name.encode()
    finally:
        connection.disconnect()


def test_connect_wrong_queue_manager_name_is_2058(qm):
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect("NOSUCHQM", qm.channel, qm.conn_name)
    assert reason(exc) == CMQC.MQRC_Q_MGR_NAME_ERROR


def test_connect_nothing_listening_is_2538(qm):
    # IBM's client: the TCP connection is refused, MQRC_HOST_NOT_AVAILABLE (AMQ9202/AMQ9213)
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect(qm.name, qm.channel, "127.0.0.1(1)")
    assert reason(exc) == CMQC.MQRC_HOST_NOT_AVAILABLE


def test_default_objects_of_the_developer_container_exist(conn):
    for name in ("DEV.QUEUE.1", "DEV.QUEUE.2", "DEV.QUEUE.3", "DEV.DEAD.LETTER.QUEUE"):
        queue = ibmmq.Queue(conn, name, CMQC.MQOO_INQUIRE)
        assert queue.inquire(CMQC.MQCA_Q_NAME).strip() == name.encode()
        queue.close()


def test_calls_after_disconnect_are_2018(qm):
    connection = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    connection.disconnect()
    with pytest.raises(ibmmq.MQMIError) as exc:
        connection.commit()
    assert reason(exc) == CMQC.MQRC_HCONN_ERROR


def test_global_unit_of_work_begin_is_refused_on_a_client_connection(conn):
    # IBM's client cannot be an XA coordinator either: MQBEGIN fails with 2012
    with pytest.raises(ibmmq.MQMIError) as exc:
        conn.begin()
    assert reason(exc) == CMQC.MQRC_ENVIRONMENT_ERROR


def test_tls_without_a_key_repository_is_refused_not_sent_in_clear(qm):
    # the TLS itself is tested in test_tls.py
    cd = ibmmq.CD(ChannelName=qm.channel.encode(), ConnectionName=qm.conn_name.encode(),
                  SSLCipherSpec=b"ANY_TLS12")
    sco = ibmmq.SCO(KeyRepository=b"/nonexistent/key")
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect(qm.name, cd=cd, sco=sco, channel=qm.channel, conn_info=qm.conn_name)
    assert reason(exc) == CMQC.MQRC_KEY_REPOSITORY_ERROR


# --- authentication ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def secured_qm(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmauth")), name="QMAUTH",
                                       users={"app": "passw0rd"}) as manager:
        yield manager


def test_right_user_and_password_connects(secured_qm):
    connection = ibmmq.connect(secured_qm.name, secured_qm.channel, secured_qm.conn_name,
                               user="app", password="passw0rd")
    queue = ibmmq.Queue(connection, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT)
    md = ibmmq.MD()
    queue.put(b"x", md)
    assert md.UserIdentifier.rstrip(b"\0 ") == b"app"
    queue.close()
    connection.disconnect()


@pytest.mark.parametrize("user,password", [("app", "wrong"), ("nobody", "passw0rd"), (None, None)])
def test_wrong_or_missing_credentials_are_2035(secured_qm, user, password):
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect(secured_qm.name, secured_qm.channel, secured_qm.conn_name,
                      user=user, password=password)
    assert reason(exc) == CMQC.MQRC_NOT_AUTHORIZED


def test_mqsc_admin_path_requires_credentials_when_users_are_configured(secured_qm):
    from spark_mq.embedded.client.admin import run_mqsc
    ok, output = run_mqsc(secured_qm.host, secured_qm.port, "DISPLAY QLOCAL(DEV.QUEUE.1)")
    assert not ok and "2035" in output
    ok, output = run_mqsc(secured_qm.host, secured_qm.port, "DISPLAY QLOCAL(DEV.QUEUE.1)",
                          user="app", password="wrong")
    assert not ok and "2035" in output
    # the process handle knows the users and authenticates itself
    assert "DEV.QUEUE.1" in secured_qm.run_mqsc("DISPLAY QLOCAL(DEV.QUEUE.1)")


# --- open ------------------------------------------------------------------------------------
def test_open_unknown_queue_is_2085(conn):
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.Queue(conn, "NO.SUCH.QUEUE", CMQC.MQOO_OUTPUT)
    assert reason(exc) == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_open_with_no_access_option_is_2046(conn, make_queue):
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.Queue(conn, make_queue(), CMQC.MQOO_FAIL_IF_QUIESCING)
    assert reason(exc) == CMQC.MQRC_OPTIONS_ERROR


def test_open_with_two_input_options_is_2046(conn, make_queue):
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.Queue(conn, make_queue(), CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INPUT_EXCLUSIVE)
    assert reason(exc) == CMQC.MQRC_OPTIONS_ERROR


def test_open_read_ahead_and_no_read_ahead_together_is_2046(conn, make_queue):
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.Queue(conn, make_queue(), CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_READ_AHEAD
                    | CMQC.MQOO_NO_READ_AHEAD)
    assert reason(exc) == CMQC.MQRC_OPTIONS_ERROR


def test_exclusive_input_blocks_other_input_with_2042(qm, conn, make_queue):
    name = make_queue()
    holder = ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_EXCLUSIVE)
    other = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    try:
        with pytest.raises(ibmmq.MQMIError) as exc:
            ibmmq.Queue(other, name, CMQC.MQOO_INPUT_SHARED)
        assert reason(exc) == CMQC.MQRC_OBJECT_IN_USE
        ibmmq.Queue(other, name, CMQC.MQOO_OUTPUT).close()  # output is not affected
        holder.close()
        ibmmq.Queue(other, name, CMQC.MQOO_INPUT_EXCLUSIVE).close()  # released by MQCLOSE
    finally:
        other.disconnect()


def test_shared_input_blocks_exclusive_input_with_2042(conn, make_queue):
    name = make_queue()
    shared = ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_SHARED)
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_EXCLUSIVE)
    assert reason(exc) == CMQC.MQRC_OBJECT_IN_USE
    ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_SHARED).close()
    shared.close()


def test_input_as_q_def_follows_defsopt(qm, conn, make_queue):
    name = make_queue("DEFSOPT(EXCL)")
    first = ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_AS_Q_DEF)
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_SHARED)
    assert reason(exc) == CMQC.MQRC_OBJECT_IN_USE
    first.close()


def test_noshare_queue_allows_one_input_opener(conn, make_queue):
    name = make_queue("NOSHARE")
    first = ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_SHARED)
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_SHARED)
    assert reason(exc) == CMQC.MQRC_OBJECT_IN_USE
    first.close()


@pytest.mark.parametrize("open_option,action,expected", [
    (CMQC.MQOO_OUTPUT, "get", CMQC.MQRC_NOT_OPEN_FOR_INPUT),
    (CMQC.MQOO_INPUT_SHARED, "put", CMQC.MQRC_NOT_OPEN_FOR_OUTPUT),
    (CMQC.MQOO_INPUT_SHARED, "browse", CMQC.MQRC_NOT_OPEN_FOR_BROWSE),
    (CMQC.MQOO_OUTPUT, "inquire", CMQC.MQRC_NOT_OPEN_FOR_INQUIRE),
    (CMQC.MQOO_OUTPUT, "set", CMQC.MQRC_NOT_OPEN_FOR_SET),
])
def test_verb_needs_its_open_option(conn, make_queue, open_option, action, expected):
    queue = ibmmq.Queue(conn, make_queue(), open_option)
    with pytest.raises(ibmmq.MQMIError) as exc:
        if action == "get":
            queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))
        elif action == "put":
            queue.put(b"x")
        elif action == "browse":
            queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))
        elif action == "inquire":
            queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
        else:
            queue.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)
    assert reason(exc) == expected
    queue.close()


def test_queue_manager_object_accepts_only_inquire_2045(conn):
    od = ibmmq.OD(ObjectType=CMQC.MQOT_Q_MGR)
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.Queue(conn, od, CMQC.MQOO_OUTPUT)
    assert reason(exc) == CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE


def test_alias_queue_resolves_to_its_target(conn, qm, make_queue):
    target = make_queue()
    alias = target + ".ALIAS"
    qm.run_mqsc(f"DEFINE QALIAS({alias}) TARGET({target}) REPLACE")
    ibmmq.Queue(conn, alias, CMQC.MQOO_OUTPUT).put(b"through the alias")
    queue = ibmmq.Queue(conn, target, CMQC.MQOO_INPUT_SHARED)
    assert queue.get(None) == b"through the alias"
    queue.close()


def test_alias_with_missing_target_is_2082(conn, qm):
    qm.run_mqsc("DEFINE QALIAS(TEST.DANGLING.ALIAS) TARGET(NO.SUCH.TARGET) REPLACE")
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.Queue(conn, "TEST.DANGLING.ALIAS", CMQC.MQOO_OUTPUT)
    assert reason(exc) == CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q


def test_handle_is_invalid_after_close_2019(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), CMQC.MQOO_OUTPUT)
    handle = queue.get_handle()
    queue.close()
    md, pmo = ibmmq.MD(), ibmmq.PMO()
    result = ibmmq.ibmmqc.MQPUT(conn.get_handle(), handle, md.pack(), pmo.pack(), b"x")
    assert result[-1] == CMQC.MQRC_HOBJ_ERROR


def test_topic_object_that_does_not_exist_2085(conn):
    # publish/subscribe itself: see test_pubsub.py
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.Queue(conn, ibmmq.OD(ObjectType=CMQC.MQOT_TOPIC, ObjectName=b"FRUIT"),
                    CMQC.MQOO_OUTPUT)
    assert reason(exc) == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_queue_manager_object_cannot_be_opened_for_set_2045(conn):
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.Queue(conn, ibmmq.OD(ObjectType=CMQC.MQOT_Q_MGR), CMQC.MQOO_SET)
    assert reason(exc) == CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE


def test_asynchronous_consume_starts_and_stops_with_nothing_registered(conn):
    # MQCB/MQCTL are supported: see test_async_consume.py
    conn.ctl(CMQC.MQOP_START, ibmmq.CTLO())
    conn.ctl(CMQC.MQOP_STOP, ibmmq.CTLO())


def test_mark_skip_backout_is_not_available_on_this_platform_2046(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT)
    queue.put(b"x")
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_MARK_SKIP_BACKOUT))
    assert reason(exc) == CMQC.MQRC_OPTIONS_ERROR
