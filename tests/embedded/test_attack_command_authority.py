"""Attack: subscriptions and the command server's replies. A monitoring user (it may connect,
display the queue manager and send commands, no more) must not remove or redirect the
administrator's subscription, subscribe itself through DEFINE SUB to a topic it may not
subscribe to, see the subscriptions it may not display, nor get a command's reply put on a
queue it may not put to. Real queue-manager process, IBM's ibmmq API (PCFExecute, MQSC in
MQCMD_ESCAPE) and the project's MQSC client."""
from __future__ import annotations

import contextlib
import struct

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

import spark_mq.embedded as embedded
from authority_records import granted as _granted
from authority_records import refused
from channel_topology import connect, link, put_remote, receive, start
from spark_mq.embedded.client import admin

ADMIN_CHANNEL = "DEV.ADMIN.SVRCONN"
APP_CHANNEL = "DEV.APP.SVRCONN"
MODEL = "DEV.APP.MODEL.QUEUE"
COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"
USERS = {"admin": "adminpw", "mon": ("monpw", ["mqclient"])}
PASSWORDS = {"admin": "adminpw", "mon": "monpw"}
#: queues `mon` may not put to: the administrator's, an initiation queue, the OAM's own
FORBIDDEN = ("ADMIN.PRIVATE", "SYSTEM.DEFAULT.INITIATION.QUEUE", "SYSTEM.AUTH.DATA.QUEUE")


@pytest.fixture(scope="module")
def sqm(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmcmdauth")),
                                       name="QMCMDAUTH", users=USERS) as manager:
        manager.run_mqsc("""
            DEFINE QLOCAL(ADMIN.DEST) REPLACE
            DEFINE QLOCAL(ADMIN.PRIVATE) REPLACE
            DEFINE QLOCAL(MON.OWN) REPLACE
            DEFINE QLOCAL(QMFAR) USAGE(XMITQ) REPLACE
            DEFINE TOPIC(SECRET.TOPIC) TOPICSTR('secret') REPLACE
            DEFINE TOPIC(MON.TOPIC) TOPICSTR('mon') REPLACE
            DEFINE SUB(ADMIN.SUB) TOPICSTR('secret/news') DEST(ADMIN.DEST)
            SET AUTHREC PROFILE('SYSTEM.ADMIN.COMMAND.QUEUE') PRINCIPAL('mon') OBJTYPE(QUEUE) +
                AUTHADD(PUT,DSP)
            SET AUTHREC PRINCIPAL('mon') OBJTYPE(QMGR) AUTHADD(CONNECT,DSP)
            SET AUTHREC PROFILE('MON.OWN') PRINCIPAL('mon') OBJTYPE(QUEUE) AUTHADD(PUT,GET,BROWSE)
        """)
        yield manager


# --- helpers --------------------------------------------------------------------------------
@contextlib.contextmanager
def connected(qm, user: str):
    channel = ADMIN_CHANNEL if user == "admin" else APP_CHANNEL
    connection = ibmmq.connect(qm.name, channel, qm.conn_name, user=user, password=PASSWORDS[user])
    try:
        yield connection
    finally:
        connection.disconnect()


@contextlib.contextmanager
def pcf_as(qm, user: str):
    with connected(qm, user) as connection:
        executor = ibmmq.PCFExecute(connection, model_queue_name=MODEL.encode(),
                                    response_wait_interval=10000)
        try:
            yield executor
        finally:
            executor.disconnect()


def granted(qm, objtype: str, authorities: str, profile: str | None = None,
            principal: str = "mon"):
    """authority_records.granted, for the display-only user `mon` unless told."""
    return _granted(qm, objtype, authorities, profile, principal)


def escape(pcf, text: str) -> list[str]:
    answers = pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC,
                                CMQCFC.MQCACF_ESCAPE_TEXT: text.encode()})
    return [a[CMQCFC.MQCACF_ESCAPE_TEXT].decode() for a in answers]


def mqsc_as(qm, user: str, text: str) -> tuple[bool, str]:
    """MQSC over a client channel, as runmqsc -c sends it (the project's client)."""
    with admin.session_on_channel(qm.host, qm.port, user, PASSWORDS[user], APP_CHANNEL,
                                  model=MODEL, qm_name=qm.name) as session:
        return admin.run_script(session, text)


def sub_names(answers) -> list[str]:
    return sorted(a[CMQCFC.MQCACF_SUB_NAME].decode().strip() for a in answers)


def subscriptions(qm) -> str:
    return qm.run_mqsc("DISPLAY SUB(*) SUBUSER DEST TOPICSTR")


def depth(qm, queue: str) -> int:
    with connected(qm, "admin") as connection:
        q = ibmmq.Queue(connection, queue, CMQC.MQOO_INQUIRE)
        try:
            return q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
        finally:
            q.close()


def publish(qm, topic: str, body: bytes) -> None:
    with connected(qm, "admin") as connection:
        handle = ibmmq.Topic(connection, topic_string=topic)
        handle.open(open_opts=CMQC.MQOO_OUTPUT)
        try:
            handle.pub(body)
        finally:
            handle.close()


def take(qm, user: str, queue: str) -> bytes | None:
    """The next message of `queue` (waiting for it a while), or None."""
    with connected(qm, user) as connection:
        q = ibmmq.Queue(connection, queue, CMQC.MQOO_INPUT_SHARED)
        gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=5000)
        try:
            return q.get(None, ibmmq.MD(), gmo)
        except ibmmq.MQMIError as exc:
            if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                return None
            raise
        finally:
            q.close()


def log_of(qm) -> str:
    with open(f"{qm.data_dir}/qmgr.log", encoding="utf-8") as handle:
        return handle.read()


def ping_request(reply_to: str, reply_qmgr: str = "") -> tuple[bytes, ibmmq.MD]:
    """A raw PCF Ping Queue Manager (an MQCFH and no parameters) naming any reply queue."""
    body = struct.pack("=9i", CMQCFC.MQCFT_COMMAND, CMQCFC.MQCFH_STRUC_LENGTH,
                       CMQCFC.MQCFH_VERSION_1, CMQCFC.MQCMD_PING_Q_MGR, 1, CMQCFC.MQCFC_LAST,
                       CMQC.MQCC_OK, CMQC.MQRC_NONE, 0)
    md = ibmmq.MD(Format=CMQC.MQFMT_ADMIN, MsgType=CMQC.MQMT_REQUEST, ReplyToQ=reply_to.encode(),
                  ReplyToQMgr=reply_qmgr.encode(), Persistence=CMQC.MQPER_NOT_PERSISTENT)
    return body, md


def send_then_sync(qm, user: str, reply_to: str, reply_qmgr: str = "") -> None:
    """Put a Ping naming `reply_to` as `user`, then wait until the command server has answered
    it: it serves one request at a time, in order, so once a later command of the same user
    is answered (on its own temporary queue) the first has been dealt with."""
    body, md = ping_request(reply_to, reply_qmgr)
    with connected(qm, user) as connection:
        command_queue = ibmmq.Queue(connection, COMMAND_QUEUE, CMQC.MQOO_OUTPUT)
        try:
            command_queue.put(body, md)
        finally:
            command_queue.close()
    with pcf_as(qm, user) as pcf:
        assert pcf.MQCMD_PING_Q_MGR() == []


# --- subscriptions ----------------------------------------------------------------------------
def test_a_display_only_user_cannot_delete_or_redirect_the_administrators_subscription(sqm):
    delete = {CMQCFC.MQCACF_SUB_NAME: b"ADMIN.SUB"}
    with pcf_as(sqm, "mon") as pcf:
        assert refused(pcf.MQCMD_DELETE_SUBSCRIPTION, delete) == CMQC.MQRC_NOT_AUTHORIZED
        assert refused(escape, pcf, "DELETE SUB(ADMIN.SUB)") == CMQC.MQRC_NOT_AUTHORIZED
        assert refused(escape, pcf, "DELETE SUB(ADMIN.*)") == CMQC.MQRC_NOT_AUTHORIZED
        # DEFINE ... REPLACE is how a subscription's destination is changed here
        redirect = "DEFINE SUB(ADMIN.SUB) TOPICSTR('secret/news') DEST(MON.OWN) REPLACE"
        assert refused(escape, pcf, redirect) == CMQC.MQRC_NOT_AUTHORIZED
        assert refused(pcf.MQCMD_CREATE_SUBSCRIPTION, {
            CMQCFC.MQCACF_SUB_NAME: b"ADMIN.SUB", CMQC.MQCA_TOPIC_STRING: b"secret/news",
            CMQCFC.MQCACF_DESTINATION: b"MON.OWN",
            CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES}) == CMQC.MQRC_NOT_AUTHORIZED
        redirect = {CMQCFC.MQCACF_SUB_NAME: b"ADMIN.SUB", CMQCFC.MQCACF_DESTINATION: b"MON.OWN"}
        assert refused(pcf.MQCMD_CHANGE_SUBSCRIPTION, redirect) == CMQC.MQRC_NOT_AUTHORIZED
        assert refused(escape, pcf, "ALTER SUB(ADMIN.SUB) DEST(MON.OWN)") \
            == CMQC.MQRC_NOT_AUTHORIZED
        # CTRL on its topic lets it administer it, but not send another user's publications
        # to its own queue (that acts for the subscription's user: ALTUSR)
        with granted(sqm, "TOPIC", "CTRL", "SECRET.TOPIC"):
            assert refused(pcf.MQCMD_CHANGE_SUBSCRIPTION, redirect) == CMQC.MQRC_NOT_AUTHORIZED
    ok, output = mqsc_as(sqm, "mon", "DELETE SUB(ADMIN.SUB)")
    assert not ok and "AMQ8135E" in output
    assert "SUB(ADMIN.SUB)" in subscriptions(sqm) and "DEST(ADMIN.DEST)" in subscriptions(sqm)
    publish(sqm, "secret/news", b"still delivered")
    assert take(sqm, "admin", "ADMIN.DEST") == b"still delivered"
    assert take(sqm, "mon", "MON.OWN") is None
    assert "AMQ8077W: Entity 'mon' has insufficient authority to access topic" in log_of(sqm)


def test_a_display_only_user_cannot_subscribe_to_everything_through_define_sub(sqm):
    spy = {CMQCFC.MQCACF_SUB_NAME: b"MON.SPY", CMQC.MQCA_TOPIC_STRING: b"#",
           CMQCFC.MQCACF_DESTINATION: b"MON.OWN"}
    with pcf_as(sqm, "mon") as pcf:
        assert refused(pcf.MQCMD_CREATE_SUBSCRIPTION, spy) == CMQC.MQRC_NOT_AUTHORIZED
        assert refused(escape, pcf, "DEFINE SUB(MON.SPY) TOPICSTR('#') DEST(MON.OWN)") \
            == CMQC.MQRC_NOT_AUTHORIZED
        # CTRL on the topic lets it administer subscriptions there, not subscribe without SUB
        with granted(sqm, "TOPIC", "CTRL", "SYSTEM.BASE.TOPIC"):
            assert refused(pcf.MQCMD_CREATE_SUBSCRIPTION, spy) == CMQC.MQRC_NOT_AUTHORIZED
            # nor in the name of a user who may (SUBUSER needs ALTUSR, as MQSUB's)
            assert refused(pcf.MQCMD_CREATE_SUBSCRIPTION,
                           {**spy, CMQCFC.MQCACF_SUB_USER_ID: b"admin"}) \
                == CMQC.MQRC_NOT_AUTHORIZED
    ok, output = mqsc_as(sqm, "mon", "DEFINE SUB(MON.SPY) TOPICSTR('#') DEST(MON.OWN)")
    assert not ok and "AMQ8135E" in output
    assert "MON.SPY" not in subscriptions(sqm)
    publish(sqm, "secret/news", b"not for mon")
    assert take(sqm, "mon", "MON.OWN") is None
    assert take(sqm, "admin", "ADMIN.DEST") == b"not for mon"


def test_with_ctrl_and_sub_on_its_topic_the_user_subscribes_its_own_queue(sqm):
    define = "DEFINE SUB(MON.OK) TOPICSTR('mon/news') DEST(MON.OWN)"
    with pcf_as(sqm, "mon") as pcf:
        with granted(sqm, "TOPIC", "SUB", "MON.TOPIC"):
            assert refused(escape, pcf, define) == CMQC.MQRC_NOT_AUTHORIZED  # no CTRL
            with granted(sqm, "TOPIC", "CTRL", "MON.TOPIC"):
                # the destination needs PUT for the subscription's user
                assert refused(escape, pcf, "DEFINE SUB(MON.BAD) TOPICSTR('mon/news') "
                               "DEST(ADMIN.PRIVATE)") == CMQC.MQRC_NOT_AUTHORIZED
                assert "AMQ8094I" in escape(pcf, define)[0]
    try:
        assert "SUBUSER(mon)" in sqm.run_mqsc("DISPLAY SUB(MON.OK) SUBUSER")
        publish(sqm, "mon/news", b"for mon")
        assert take(sqm, "mon", "MON.OWN") == b"for mon"
        with pcf_as(sqm, "mon") as pcf:
            change = {CMQCFC.MQCACF_SUB_NAME: b"MON.OK", CMQCFC.MQCACF_SUB_USER_DATA: b"mine"}
            assert refused(pcf.MQCMD_CHANGE_SUBSCRIPTION, change) == CMQC.MQRC_NOT_AUTHORIZED
            with granted(sqm, "TOPIC", "CTRL", "MON.TOPIC"):
                pcf.MQCMD_CHANGE_SUBSCRIPTION(change)
                assert refused(escape, pcf, "ALTER SUB(MON.OK) DEST(ADMIN.PRIVATE)") \
                    == CMQC.MQRC_NOT_AUTHORIZED   # no PUT there for mon
        assert "USERDATA(mine)" in sqm.run_mqsc("DISPLAY SUB(MON.OK) USERDATA")
    finally:
        sqm.run_mqsc("DELETE SUB(MON.OK)")


def test_display_sub_shows_a_user_only_its_own_and_those_it_may_display(sqm):
    sqm.run_mqsc("DEFINE SUB(MON.MINE) TOPICSTR('mon/mine') DEST(MON.OWN) SUBUSER('mon')")
    try:
        with pcf_as(sqm, "mon") as pcf:
            every = {CMQCFC.MQCACF_SUB_NAME: b"*"}
            assert sub_names(pcf.MQCMD_INQUIRE_SUBSCRIPTION(every)) == ["MON.MINE"]
            shown = escape(pcf, "DISPLAY SUB(*) ALL")
            assert len(shown) == 1 and "SUB(MON.MINE)" in shown[0]
            assert "ADMIN.SUB" not in "".join(escape(pcf, "DISPLAY SBSTATUS(*)"))
            by_name = {CMQCFC.MQCACF_SUB_NAME: b"ADMIN.SUB"}
            assert refused(pcf.MQCMD_INQUIRE_SUBSCRIPTION, by_name) == CMQC.MQRC_NOT_AUTHORIZED
            assert refused(escape, pcf, "DISPLAY SUB(ADMIN.SUB)") == CMQC.MQRC_NOT_AUTHORIZED
            assert refused(escape, pcf, "DISPLAY SBSTATUS(ADMIN.SUB)") \
                == CMQC.MQRC_NOT_AUTHORIZED
            with granted(sqm, "TOPIC", "DSP", "SECRET.TOPIC"):
                assert sub_names(pcf.MQCMD_INQUIRE_SUBSCRIPTION(every)) == ["ADMIN.SUB",
                                                                            "MON.MINE"]
        ok, output = mqsc_as(sqm, "mon", "DISPLAY SUB(*)")
        assert ok and "MON.MINE" in output and "ADMIN.SUB" not in output
        with pcf_as(sqm, "admin") as pcf:
            assert sub_names(pcf.MQCMD_INQUIRE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: b"*"})) \
                == ["ADMIN.SUB", "MON.MINE"]
            assert len(escape(pcf, "DISPLAY SUB(*)")) == 2
    finally:
        sqm.run_mqsc("DELETE SUB(MON.MINE)")


# --- the command server's replies -----------------------------------------------------------
@pytest.mark.parametrize("queue", FORBIDDEN)
def test_a_reply_is_not_put_where_the_requester_may_not_put(sqm, queue):
    before = depth(sqm, queue)
    send_then_sync(sqm, "mon", queue)
    assert depth(sqm, queue) == before
    assert f"user 'mon' may not put to the ReplyToQ {queue}" in log_of(sqm)


def test_a_reply_goes_where_the_requester_may_put(sqm):
    send_then_sync(sqm, "mon", "MON.OWN")
    assert take(sqm, "mon", "MON.OWN") is not None
    with granted(sqm, "QUEUE", "PUT", "ADMIN.PRIVATE"):
        send_then_sync(sqm, "mon", "ADMIN.PRIVATE")
    assert take(sqm, "admin", "ADMIN.PRIVATE") is not None


def test_a_reply_to_another_queue_manager_goes_to_its_transmission_queue(sqm):
    before = depth(sqm, "QMFAR")
    send_then_sync(sqm, "admin", "FAR.REPLIES", "QMFAR")
    assert depth(sqm, "QMFAR") == before + 1
    send_then_sync(sqm, "mon", "FAR.REPLIES", "QMFAR")   # no PUT on the rqmname QMFAR
    assert depth(sqm, "QMFAR") == before + 1
    with granted(sqm, "RQMNAME", "PUT", "QMFAR"):
        send_then_sync(sqm, "mon", "FAR.REPLIES", "QMFAR")
    assert depth(sqm, "QMFAR") == before + 2
    assert depth(sqm, "ADMIN.PRIVATE") == 0


def test_alter_sub_changes_what_ibm_mq_lets_change_and_nothing_else(sqm):
    sqm.run_mqsc("DEFINE SUB(ALTER.ME) TOPICSTR('secret/alter') DEST(ADMIN.DEST)")
    try:
        sqm.run_mqsc("ALTER SUB(ALTER.ME) DEST(ADMIN.PRIVATE) USERDATA('moved') PUBPRTY(4)")
        shown = sqm.run_mqsc("DISPLAY SUB(ALTER.ME) ALL")
        assert "DEST(ADMIN.PRIVATE)" in shown and "USERDATA(moved)" in shown
        assert "PUBPRTY(4)" in shown
        with pytest.raises(embedded.EmbeddedQueueManagerError, match="TOPICSTR cannot be altered"):
            sqm.run_mqsc("ALTER SUB(ALTER.ME) TOPICSTR('secret/other')")
        with pytest.raises(embedded.EmbeddedQueueManagerError, match="is not a queue"):
            sqm.run_mqsc("ALTER SUB(ALTER.ME) DEST(NO.SUCH.QUEUE)")
        with pcf_as(sqm, "admin") as pcf:
            pcf.MQCMD_CHANGE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: b"ALTER.ME",
                                           CMQCFC.MQCACF_DESTINATION: b"ADMIN.DEST",
                                           CMQCFC.MQIACF_VARIABLE_USER_ID: CMQC.MQVU_FIXED_USER})
            assert refused(pcf.MQCMD_CHANGE_SUBSCRIPTION,
                           {CMQCFC.MQCACF_SUB_NAME: b"ALTER.ME",
                            CMQCFC.MQIACF_PUB_PRIORITY: 12}) == CMQCFC.MQRCCF_PARM_VALUE_ERROR
            assert refused(pcf.MQCMD_CHANGE_SUBSCRIPTION,
                           {CMQCFC.MQCACF_SUB_NAME: b"NO.SUCH.SUB"}) == CMQC.MQRC_NO_SUBSCRIPTION
        shown = sqm.run_mqsc("DISPLAY SUB(ALTER.ME) DEST VARUSER")
        assert "DEST(ADMIN.DEST)" in shown and "VARUSER(FIXED)" in shown
        publish(sqm, "secret/alter", b"after alter")
        assert take(sqm, "admin", "ADMIN.DEST") == b"after alter"
    finally:
        sqm.run_mqsc("DELETE SUB(ALTER.ME)")


def test_a_request_from_another_queue_manager_is_answered_across_the_channel_back(tmp_path):
    """QMA's application asks QMB's command server (through QMA's channel to QMB) to answer at
    QMA: the reply takes QMB's transmission queue and channel back, as IBM MQ's does."""
    qma, qmb = start(tmp_path, "QMA"), start(tmp_path, "QMB")
    try:
        qma.run_mqsc("DEFINE QLOCAL(FAR.REPLIES) REPLACE")
        link(qma, qmb)
        link(qmb, qma)
        body, md = ping_request("FAR.REPLIES", "QMA")
        conn = connect(qma)
        try:
            put_remote(conn, COMMAND_QUEUE, "QMB", [body], persistent=False, Format=md.Format,
                       MsgType=md.MsgType, ReplyToQ=md.ReplyToQ, ReplyToQMgr=md.ReplyToQMgr)
            (reply_md, reply), = receive(conn, "FAR.REPLIES", 1)
        finally:
            conn.disconnect()
        assert reply_md.MsgType == CMQC.MQMT_REPLY and reply_md.Format == CMQC.MQFMT_ADMIN
        assert reply_md.ReplyToQMgr.decode().strip() == "QMB"
        fields = struct.unpack_from("=9i", reply)
        assert fields[3] == CMQCFC.MQCMD_PING_Q_MGR and fields[6:8] == (CMQC.MQCC_OK, 0)
    finally:
        qmb.stop()
        qma.stop()
