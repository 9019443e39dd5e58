"""The authority and inhibit events of closes, topics and subscriptions (IBM docs "Not
Authorized (type 2)" for a topic, "Not Authorized (type 3)", "Not Authorized (type 5)"
(AdminTopicNames), "Not Authorized (type 6)" and "Put Inhibited" for a topic): the refusal
the application sees, and the PCF event on SYSTEM.ADMIN.QMGR.EVENT with IBM's fields, only
while AUTHOREV / INHIBTEV is ENABLED. Real queue-manager process, IBM's ibmmq API."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

import spark_mq.embedded as embedded
from support import events_on

EVENTS = "SYSTEM.ADMIN.QMGR.EVENT"
USERS = {"admin": "adminpw", "app": "apppw"}


@pytest.fixture(scope="module")
def secured(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmauth3")), name="QMAUTH3",
                                       users=USERS) as started:
        started.run_mqsc(
            "DEFINE QMODEL(PERM.MODEL) DEFTYPE(PERMDYN)\n"
            "DEFINE QLOCAL(APP.DEST)\n"
            "DEFINE TOPIC(SECRET) TOPICSTR('secret')\n"
            "DEFINE TOPIC(OPEN) TOPICSTR('open')\n"
            "DEFINE TOPIC(CLOSED) TOPICSTR('closed') PUB(DISABLED)\n"
            "SET AUTHREC PRINCIPAL('app') OBJTYPE(QMGR) AUTHADD(CONNECT,INQ)\n"
            "SET AUTHREC PROFILE('APP.DEST') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(GET,INQ)\n"
            "SET AUTHREC PROFILE('OPEN') PRINCIPAL('app') OBJTYPE(TOPIC) AUTHADD(SUB)")
        yield started


@pytest.fixture
def admin(secured):
    secured.run_mqsc("ALTER QMGR AUTHOREV(ENABLED) INHIBTEV(ENABLED)")
    conn = ibmmq.connect(secured.name, "DEV.ADMIN.SVRCONN", secured.conn_name, user="admin",
                         password="adminpw")
    events_on(conn, EVENTS)        # what an earlier test (or the start) left
    yield conn
    conn.disconnect()


@pytest.fixture
def app(secured, admin):
    conn = ibmmq.connect(secured.name, "DEV.APP.SVRCONN", secured.conn_name, user="app",
                         password="apppw")
    yield conn
    conn.disconnect()


def refused(call, *args, **kwargs) -> int:
    with pytest.raises(ibmmq.MQMIError) as exc:
        call(*args, **kwargs)
    return exc.value.reason


def one_event(conn) -> tuple[object, dict]:
    [(md, header, values)] = events_on(conn, EVENTS)
    assert md.Format == CMQC.MQFMT_EVENT
    assert (header.Type, header.Command, header.CompCode) == (
        CMQCFC.MQCFT_EVENT, CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQCC_WARNING)
    return header, values


def client_of(qm, channel: str) -> dict:
    """IBM's ConnName and ChannelName of a client: its address (the host it connected from,
    here the queue manager's) and the server-connection channel it came in on."""
    return {CMQCFC.MQCACH_CONNECTION_NAME: qm.conn_name.rpartition("(")[0],
            CMQCFC.MQCACH_CHANNEL_NAME: channel}


def client_fields(values: dict) -> dict:
    return {key: values[key] for key in (CMQCFC.MQCACH_CONNECTION_NAME,
                                          CMQCFC.MQCACH_CHANNEL_NAME) if key in values}


def publisher(conn, topic: str) -> ibmmq.Topic:
    od = ibmmq.OD(ObjectType=CMQC.MQOT_TOPIC, Version=CMQC.MQOD_VERSION_4)
    od.set_vs("ObjectString", topic)
    handle = ibmmq.Topic(conn, topic_desc=od)
    handle.open(topic_desc=od, open_opts=CMQC.MQOO_OUTPUT)
    return handle


def subscription(conn, topic: str, queue: ibmmq.Queue) -> ibmmq.Subscription:
    sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE)
    sd.set_vs("ObjectString", topic)
    sub = ibmmq.Subscription(conn)
    sub.sub(sub_desc=sd, sub_queue=queue)
    return sub


def test_close_deleting_a_permanent_dynamic_queue_needs_dlt(secured, admin, app):
    """IBM "Not Authorized (type 3)": MQCLOSE with MQCO_DELETE_PURGE of a permanent dynamic
    queue through a handle that did not create it, by a user without +dlt: QMgrName,
    ReasonQualifier MQRQ_CLOSE_NOT_AUTHORIZED, UserIdentifier, ApplType, ApplName, QName,
    and for a client ConnName and ChannelName.
    The close fails and leaves the handle open; with +dlt the same close deletes it."""
    od = ibmmq.OD(ObjectName=b"PERM.MODEL", DynamicQName=b"PERM.Q")
    ibmmq.Queue(admin, od, CMQC.MQOO_INPUT_AS_Q_DEF).close()      # created, and kept
    secured.run_mqsc("SET AUTHREC PROFILE('PERM.Q') PRINCIPAL('app') OBJTYPE(QUEUE) "
                     "AUTHADD(GET,INQ)")
    queue = ibmmq.Queue(app, "PERM.Q", CMQC.MQOO_INPUT_SHARED)
    assert refused(queue.close, CMQC.MQCO_DELETE_PURGE) == CMQC.MQRC_NOT_AUTHORIZED
    header, values = one_event(admin)
    assert header.Reason == CMQC.MQRC_NOT_AUTHORIZED
    assert values == {CMQC.MQCA_Q_MGR_NAME: "QMAUTH3",
                      CMQCFC.MQIACF_REASON_QUALIFIER: CMQCFC.MQRQ_CLOSE_NOT_AUTHORIZED,
                      CMQCFC.MQCACF_USER_IDENTIFIER: "app",
                      CMQC.MQIA_APPL_TYPE: CMQC.MQAT_DEFAULT,
                      CMQCFC.MQCACF_APPL_NAME: values[CMQCFC.MQCACF_APPL_NAME],
                      CMQC.MQCA_Q_NAME: "PERM.Q", **client_of(secured, "DEV.APP.SVRCONN")}
    assert "PERM.Q" in secured.run_mqsc("DISPLAY QLOCAL(PERM.Q)")       # still there

    secured.run_mqsc("ALTER QMGR AUTHOREV(DISABLED)")
    assert refused(queue.close, CMQC.MQCO_DELETE_PURGE) == CMQC.MQRC_NOT_AUTHORIZED
    assert events_on(admin, EVENTS) == []                 # refused all the same, but quietly

    secured.run_mqsc("SET AUTHREC PROFILE('PERM.Q') PRINCIPAL('app') OBJTYPE(QUEUE) "
                     "AUTHADD(DLT)")
    queue.close(CMQC.MQCO_DELETE_PURGE)
    with pytest.raises(embedded.EmbeddedQueueManagerError):
        secured.run_mqsc("DISPLAY QLOCAL(PERM.Q)")


def test_the_creating_handle_deletes_without_dlt(secured, admin, app):
    """IBM's MQCLOSE: the handle whose MQOPEN created the queue needs no check."""
    secured.run_mqsc("SET AUTHREC PROFILE('PERM.MODEL') PRINCIPAL('app') OBJTYPE(QUEUE) "
                     "AUTHADD(GET,DSP)")
    od = ibmmq.OD(ObjectName=b"PERM.MODEL", DynamicQName=b"APP.PERM.*")
    queue = ibmmq.Queue(app, od, CMQC.MQOO_INPUT_AS_Q_DEF)
    queue.close(CMQC.MQCO_DELETE)
    assert events_on(admin, EVENTS) == []


def test_open_of_a_topic_without_pub(secured, admin, app):
    """IBM "Not Authorized (type 2)" of a topic: Options, UserIdentifier, ApplType, ApplName,
    TopicString and AdminTopicNames, the topic objects checked (nearest first); no QName."""
    assert refused(publisher, app, "secret/prices") == CMQC.MQRC_NOT_AUTHORIZED
    header, values = one_event(admin)
    assert header.Reason == CMQC.MQRC_NOT_AUTHORIZED
    assert values[CMQCFC.MQIACF_REASON_QUALIFIER] == CMQCFC.MQRQ_OPEN_NOT_AUTHORIZED
    assert values[CMQCFC.MQIACF_OPEN_OPTIONS] & CMQC.MQOO_OUTPUT
    assert values[CMQCFC.MQCACF_USER_IDENTIFIER] == "app"
    assert values[CMQC.MQCA_TOPIC_STRING] == "secret/prices"
    assert values[CMQCFC.MQCACF_ADMIN_TOPIC_NAMES] == ["SECRET", "SYSTEM.BASE.TOPIC"]
    assert CMQC.MQCA_Q_NAME not in values
    assert client_fields(values) == client_of(secured, "DEV.APP.SVRCONN")


def test_subscribe_refused_names_the_topic_objects(secured, admin, app):
    """IBM "Not Authorized (type 5)": AdminTopicNames besides the topic string."""
    queue = ibmmq.Queue(app, "APP.DEST", CMQC.MQOO_INPUT_SHARED)
    try:
        assert refused(subscription, app, "secret/prices", queue) == CMQC.MQRC_NOT_AUTHORIZED
    finally:
        queue.close()
    header, values = one_event(admin)
    assert values[CMQCFC.MQIACF_REASON_QUALIFIER] == CMQCFC.MQRQ_SUB_NOT_AUTHORIZED
    assert values[CMQCFC.MQCACF_ADMIN_TOPIC_NAMES] == ["SECRET", "SYSTEM.BASE.TOPIC"]
    assert client_fields(values) == client_of(secured, "DEV.APP.SVRCONN")


def test_subscribe_to_a_destination_without_put(secured, admin, app):
    """IBM "Not Authorized (type 6)": MQSUB given the handle of a queue the user may not put
    to: Options, UserIdentifier, ApplType, ApplName, TopicString, DestQName and
    DestOpenOptions (MQCA_Q_NAME, MQIACF_OPEN_OPTIONS); with +put the same MQSUB works."""
    queue = ibmmq.Queue(app, "APP.DEST", CMQC.MQOO_INPUT_SHARED)
    try:
        assert refused(subscription, app, "open/news", queue) == CMQC.MQRC_NOT_AUTHORIZED
        header, values = one_event(admin)
        assert header.Reason == CMQC.MQRC_NOT_AUTHORIZED
        assert values[CMQCFC.MQIACF_REASON_QUALIFIER] == CMQCFC.MQRQ_SUB_DEST_NOT_AUTHORIZED
        assert values[CMQCFC.MQIACF_SUB_OPTIONS] & CMQC.MQSO_CREATE
        assert values[CMQCFC.MQCACF_USER_IDENTIFIER] == "app"
        assert values[CMQC.MQCA_TOPIC_STRING] == "open/news"
        assert values[CMQC.MQCA_Q_NAME] == "APP.DEST"
        assert values[CMQCFC.MQIACF_OPEN_OPTIONS] == CMQC.MQOO_OUTPUT
        assert CMQCFC.MQCACF_OBJECT_Q_MGR_NAME not in values      # the queue is this one's
        assert client_fields(values) == client_of(secured, "DEV.APP.SVRCONN")
        secured.run_mqsc("SET AUTHREC PROFILE('APP.DEST') PRINCIPAL('app') OBJTYPE(QUEUE) "
                         "AUTHADD(PUT)")
        sub = subscription(app, "open/news", queue)
        sub.close()
    finally:
        queue.close()
    assert events_on(admin, EVENTS) == []


def test_publication_on_a_topic_with_pub_disabled(secured, admin):
    """IBM "Put Inhibited" of a topic (InhibitPublications): QMgrName, ApplType, ApplName,
    TopicString; QName is returned only for a queue."""
    handle = publisher(admin, "closed/news")
    try:
        assert refused(handle.pub, b"m", ibmmq.MD(), ibmmq.PMO()) == CMQC.MQRC_PUT_INHIBITED
    finally:
        handle.close()
    header, values = one_event(admin)
    assert header.Reason == CMQC.MQRC_PUT_INHIBITED
    assert values == {CMQC.MQCA_Q_MGR_NAME: "QMAUTH3", CMQC.MQIA_APPL_TYPE: CMQC.MQAT_DEFAULT,
                      CMQCFC.MQCACF_APPL_NAME: values[CMQCFC.MQCACF_APPL_NAME],
                      CMQC.MQCA_TOPIC_STRING: "closed/news"}
    secured.run_mqsc("ALTER QMGR INHIBTEV(DISABLED)")
    handle = publisher(admin, "closed/news")
    try:
        assert refused(handle.pub, b"m", ibmmq.MD(), ibmmq.PMO()) == CMQC.MQRC_PUT_INHIBITED
    finally:
        handle.close()
    assert events_on(admin, EVENTS) == []
