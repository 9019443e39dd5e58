"""Queue manager events on SYSTEM.ADMIN.QMGR.EVENT (IBM docs "Queue manager events" and the
page of each event: "Unknown Object Name", "Unknown Alias Base Queue", "Unknown Remote Queue
Manager", "Unknown Transmission Queue", "Transmission Queue Usage Error", "Get Inhibited",
"Put Inhibited", "Not Authorized (type 1)", "(type 2)", "(type 4)", "(type 5)", "Queue
Manager Active", "Queue Manager Not Active"): each family only while its ALTER QMGR switch is ENABLED, read
through ibmmq and parsed as PCF. Real queue-manager processes, IBM's ibmmq API."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

import spark_mq.embedded as embedded
from support import events_on

EVENTS = "SYSTEM.ADMIN.QMGR.EVENT"
SWITCHES = "AUTHOREV INHIBTEV LOCALEV REMOTEEV STRSTPEV"


@pytest.fixture(scope="module")
def manager(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmev")), name="QMEV") as started:
        started.run_mqsc("DEFINE QLOCAL(INHIBITED.Q) PUT(DISABLED) GET(DISABLED)\n"
                         "DEFINE QALIAS(LOST.ALIAS) TARGET(NOWHERE.Q)\n"
                         "DEFINE QLOCAL(NOT.XMITQ)\n"
                         "DEFINE QREMOTE(BAD.XMITQ.REMOTE) RNAME(Q) RQMNAME(FAR) XMITQ(NO.SUCH.XMITQ)\n"
                         "DEFINE QREMOTE(USAGE.REMOTE) RNAME(Q) RQMNAME(FAR) XMITQ(NOT.XMITQ)")
        yield started


@pytest.fixture
def client(manager):
    manager.run_mqsc(f"ALTER QMGR {' '.join(f'{s}(DISABLED)' for s in SWITCHES.split())}")
    connection = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
    events_on(connection, EVENTS)      # what an earlier test (or the start) left
    yield connection
    connection.disconnect()


def open_fails(conn, name: str, options: int = CMQC.MQOO_OUTPUT, qmgr: str = "") -> int:
    od = ibmmq.OD(ObjectName=name.encode(), ObjectQMgrName=qmgr.encode())
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.Queue(conn, od, options)
    return exc.value.reason


def one_event(conn, reason: int) -> dict:
    [(md, header, values)] = events_on(conn, EVENTS)
    assert md.Format == CMQC.MQFMT_EVENT and md.PutApplType == CMQC.MQAT_QMGR
    assert (header.Type, header.Command, header.CompCode, header.Reason) == (
        CMQCFC.MQCFT_EVENT, CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQCC_WARNING, reason)
    assert (header.MsgSeqNumber, header.Control) == (1, CMQCFC.MQCFC_LAST)
    return values


def test_the_switches_answer_mqinq_and_pcf(manager, client):
    selectors = (CMQC.MQIA_AUTHORITY_EVENT, CMQC.MQIA_INHIBIT_EVENT, CMQC.MQIA_LOCAL_EVENT,
                 CMQC.MQIA_REMOTE_EVENT, CMQC.MQIA_START_STOP_EVENT,
                 CMQC.MQIA_CONFIGURATION_EVENT, CMQC.MQIA_COMMAND_EVENT)
    assert [client.inquire(s) for s in selectors[:5]] == [CMQCFC.MQEVR_DISABLED] * 5
    pcf = ibmmq.PCFExecute(client)
    try:
        pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_LOCAL_EVENT: CMQCFC.MQEVR_ENABLED,
                                CMQC.MQIA_COMMAND_EVENT: CMQCFC.MQEVR_NO_DISPLAY})
        [answer] = pcf.MQCMD_INQUIRE_Q_MGR({CMQCFC.MQIACF_Q_MGR_ATTRS: list(selectors)})
    finally:
        pcf.disconnect()
    assert answer[CMQC.MQIA_LOCAL_EVENT] == CMQCFC.MQEVR_ENABLED
    assert answer[CMQC.MQIA_COMMAND_EVENT] == CMQCFC.MQEVR_NO_DISPLAY
    assert "LOCALEV(ENABLED)" in manager.run_mqsc("DISPLAY QMGR LOCALEV")
    manager.run_mqsc("ALTER QMGR CMDEV(DISABLED)")


def test_nothing_while_the_switches_are_off(manager, client):
    assert open_fails(client, "NO.SUCH.Q") == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert open_fails(client, "Q", qmgr="NO.SUCH.QMGR") == CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR
    queue = ibmmq.Queue(client, "INHIBITED.Q", CMQC.MQOO_OUTPUT)
    with pytest.raises(ibmmq.MQMIError):
        queue.put(b"m")
    queue.close()
    assert events_on(client, EVENTS) == []


def test_unknown_object_name(manager, client):
    """IBM "Unknown Object Name": QMgrName, ApplType, ApplName, QName."""
    manager.run_mqsc("ALTER QMGR LOCALEV(ENABLED)")
    assert open_fails(client, "NO.SUCH.Q", CMQC.MQOO_INPUT_SHARED) == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    values = one_event(client, CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    assert values[CMQC.MQCA_Q_MGR_NAME] == manager.name
    assert values[CMQC.MQCA_Q_NAME] == "NO.SUCH.Q"
    assert values[CMQC.MQIA_APPL_TYPE] == CMQC.MQAT_DEFAULT
    assert values[CMQCFC.MQCACF_APPL_NAME]
    assert CMQCFC.MQCACF_OBJECT_Q_MGR_NAME not in values     # the MQOD named no other


def test_unknown_object_name_on_mqput1_and_an_unknown_alias_base(manager, client):
    manager.run_mqsc("ALTER QMGR LOCALEV(ENABLED)")
    with pytest.raises(ibmmq.MQMIError) as exc:
        client.put1("NOT.THERE", b"m")
    assert exc.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert one_event(client, CMQC.MQRC_UNKNOWN_OBJECT_NAME)[CMQC.MQCA_Q_NAME] == "NOT.THERE"
    assert open_fails(client, "LOST.ALIAS") == CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q
    values = one_event(client, CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q)
    assert (values[CMQC.MQCA_Q_NAME], values[CMQC.MQCA_BASE_OBJECT_NAME]) == (
        "LOST.ALIAS", "NOWHERE.Q")


def test_remote_events(manager, client):
    """IBM "Unknown Remote Queue Manager", "Unknown Transmission Queue", "Transmission Queue
    Usage Error": QMgrName, QName, XmitQName (the transmission queue ones), ApplType,
    ApplName, ObjectQMgrName (when the MQOD named another queue manager)."""
    manager.run_mqsc("ALTER QMGR REMOTEEV(ENABLED)")
    assert open_fails(client, "Q", qmgr="NO.SUCH.QMGR") == CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR
    values = one_event(client, CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR)
    assert values[CMQC.MQCA_Q_NAME] == "Q"
    assert values[CMQCFC.MQCACF_OBJECT_Q_MGR_NAME] == "NO.SUCH.QMGR"
    assert open_fails(client, "BAD.XMITQ.REMOTE") == CMQC.MQRC_UNKNOWN_XMIT_Q
    values = one_event(client, CMQC.MQRC_UNKNOWN_XMIT_Q)
    assert (values[CMQC.MQCA_Q_NAME], values[CMQC.MQCA_XMIT_Q_NAME]) == (
        "BAD.XMITQ.REMOTE", "NO.SUCH.XMITQ")
    assert open_fails(client, "USAGE.REMOTE") == CMQC.MQRC_XMIT_Q_USAGE_ERROR
    values = one_event(client, CMQC.MQRC_XMIT_Q_USAGE_ERROR)
    assert values[CMQC.MQCA_XMIT_Q_NAME] == "NOT.XMITQ"
    # a local failure is not a remote event
    assert open_fails(client, "NO.SUCH.Q") == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert events_on(client, EVENTS) == []


def test_put_and_get_inhibited(manager, client):
    """IBM "Put Inhibited" (MQPUT and MQPUT1) and "Get Inhibited": QMgrName, QName, ApplType,
    ApplName."""
    manager.run_mqsc("ALTER QMGR INHIBTEV(ENABLED)")
    queue = ibmmq.Queue(client, "INHIBITED.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    try:
        with pytest.raises(ibmmq.MQMIError) as exc:
            queue.put(b"m")
        assert exc.value.reason == CMQC.MQRC_PUT_INHIBITED
        values = one_event(client, CMQC.MQRC_PUT_INHIBITED)
        assert (values[CMQC.MQCA_Q_MGR_NAME], values[CMQC.MQCA_Q_NAME]) == (
            manager.name, "INHIBITED.Q")
        assert values[CMQC.MQIA_APPL_TYPE] == CMQC.MQAT_DEFAULT
        with pytest.raises(ibmmq.MQMIError) as exc:
            queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))
        assert exc.value.reason == CMQC.MQRC_GET_INHIBITED
        assert one_event(client, CMQC.MQRC_GET_INHIBITED)[CMQC.MQCA_Q_NAME] == "INHIBITED.Q"
    finally:
        queue.close()
    with pytest.raises(ibmmq.MQMIError):
        client.put1("INHIBITED.Q", b"m")
    one_event(client, CMQC.MQRC_PUT_INHIBITED)


def test_queue_manager_active_and_not_active(tmp_path):
    """IBM "Queue Manager Active" at each start and "Queue Manager Not Active" (qualifier
    MQRQ_Q_MGR_STOPPING) at a clean stop, STRSTPEV being ENABLED by default as on IBM MQ;
    the event queue made persistent here so that the stop's event outlives the stop."""
    qm = embedded.EmbeddedQueueManager(str(tmp_path / "qm"), name="QMSTART").start()
    try:
        qm.run_mqsc(f"ALTER QLOCAL({EVENTS}) DEFPSIST(YES)")
        qm.stop()
        qm.start()
        conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
        # the first start's Active was non-persistent, and went with the stop
        found = [(header.Reason, values) for _, header, values in events_on(conn, EVENTS)]
        assert [reason for reason, _ in found] == [CMQC.MQRC_Q_MGR_NOT_ACTIVE,
                                                   CMQC.MQRC_Q_MGR_ACTIVE]
        assert found[0][1] == {CMQC.MQCA_Q_MGR_NAME: "QMSTART",
                               CMQCFC.MQIACF_REASON_QUALIFIER: CMQCFC.MQRQ_Q_MGR_STOPPING}
        qm.run_mqsc("ALTER QMGR STRSTPEV(DISABLED)")
        conn.disconnect()
        qm.stop()
        qm.start()
        conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
        assert events_on(conn, EVENTS) == []
        conn.disconnect()
    finally:
        qm.stop()


USERS = {"admin": "adminpw", "app": "apppw"}


@pytest.fixture(scope="module")
def secured(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmauthev")), name="QMAUTHEV",
                                       users=USERS) as started:
        started.run_mqsc("DEFINE QLOCAL(PRIVATE.Q)\n"
                         "SET AUTHREC PRINCIPAL('app') OBJTYPE(QMGR) AUTHADD(CONNECT,INQ)\n"
                         "SET AUTHREC PROFILE('SYSTEM.ADMIN.COMMAND.QUEUE') PRINCIPAL('app') "
                         "OBJTYPE(QUEUE) AUTHADD(PUT)\n"
                         f"SET AUTHREC PROFILE('{EVENTS}') PRINCIPAL('app') OBJTYPE(QUEUE) "
                         "AUTHADD(GET,INQ)\n"
                         "SET AUTHREC PROFILE('SYSTEM.DEFAULT.MODEL.QUEUE') PRINCIPAL('app') "
                         "OBJTYPE(QUEUE) AUTHADD(GET,PUT,DSP)")
        yield started


def admin_events(qm) -> list:
    conn = ibmmq.connect(qm.name, "DEV.ADMIN.SVRCONN", qm.conn_name, user="admin",
                         password="adminpw")
    try:
        return events_on(conn, EVENTS)
    finally:
        conn.disconnect()


def test_not_authorized_connect_open_and_command(secured):
    """IBM "Not Authorized (type 1)" (MQCONN: MQRQ_CSP_NOT_AUTHORIZED for a refused password),
    "(type 2)" (MQOPEN: the options and the queue) and "(type 4)" (a PCF command)."""
    secured.run_mqsc("ALTER QMGR AUTHOREV(DISABLED)")
    admin_events(secured)
    with pytest.raises(ibmmq.MQMIError):
        ibmmq.connect(secured.name, "DEV.APP.SVRCONN", secured.conn_name, user="app",
                      password="wrong")
    assert admin_events(secured) == []
    secured.run_mqsc("ALTER QMGR AUTHOREV(ENABLED)")
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect(secured.name, "DEV.APP.SVRCONN", secured.conn_name, user="app",
                      password="wrong")
    assert exc.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    [(_, header, values)] = admin_events(secured)
    assert (header.Command, header.Reason) == (CMQCFC.MQCMD_Q_MGR_EVENT, CMQC.MQRC_NOT_AUTHORIZED)
    assert values[CMQCFC.MQIACF_REASON_QUALIFIER] == CMQCFC.MQRQ_CSP_NOT_AUTHORIZED
    assert values[CMQCFC.MQCACF_USER_IDENTIFIER] == "app"
    assert values[CMQCFC.MQCACH_CHANNEL_NAME] == "DEV.APP.SVRCONN"
    assert values[CMQCFC.MQCACH_CONNECTION_NAME]            # the client's address

    conn = ibmmq.connect(secured.name, "DEV.APP.SVRCONN", secured.conn_name, user="app",
                         password="apppw")
    try:
        with pytest.raises(ibmmq.MQMIError) as exc:
            ibmmq.Queue(conn, "PRIVATE.Q", CMQC.MQOO_OUTPUT)
        assert exc.value.reason == CMQC.MQRC_NOT_AUTHORIZED
        [(_, header, values)] = admin_events(secured)
        assert values[CMQCFC.MQIACF_REASON_QUALIFIER] == CMQCFC.MQRQ_OPEN_NOT_AUTHORIZED
        assert values[CMQCFC.MQIACF_OPEN_OPTIONS] == CMQC.MQOO_OUTPUT
        assert values[CMQCFC.MQCACF_USER_IDENTIFIER] == "app"
        assert values[CMQC.MQCA_Q_NAME] == "PRIVATE.Q"
        # a client's: where it came from, as in type 1 (IBM lists both for types 2, 3, 5, 6)
        assert values[CMQCFC.MQCACH_CHANNEL_NAME] == "DEV.APP.SVRCONN"
        assert values[CMQCFC.MQCACH_CONNECTION_NAME] == secured.conn_name.rpartition("(")[0]

        pcf = ibmmq.PCFExecute(conn, model_queue_name=b"SYSTEM.DEFAULT.MODEL.QUEUE",
                               response_wait_interval=10000)
        try:
            with pytest.raises(ibmmq.MQMIError) as exc:
                pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: b"PRIVATE.Q"})
            with pytest.raises(ibmmq.MQMIError):     # the same as MQSC: its PCF equivalent
                pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC,
                                  CMQCFC.MQCACF_ESCAPE_TEXT: b"DELETE QLOCAL(PRIVATE.Q)"})
        finally:
            pcf.disconnect()
    finally:
        conn.disconnect()
    assert exc.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    found = [values for _, header, values in admin_events(secured)
             if values.get(CMQCFC.MQIACF_REASON_QUALIFIER) == CMQCFC.MQRQ_CMD_NOT_AUTHORIZED]
    expected = {CMQC.MQCA_Q_MGR_NAME: "QMAUTHEV",
                CMQCFC.MQIACF_REASON_QUALIFIER: CMQCFC.MQRQ_CMD_NOT_AUTHORIZED,
                CMQCFC.MQIACF_COMMAND: CMQCFC.MQCMD_DELETE_Q, CMQCFC.MQCACF_USER_IDENTIFIER: "app"}
    # app lacks +dsp on the queue manager, which every command needs: the MQSC one is
    # refused as the Escape it came in, before its text is read
    assert found == [expected, {**expected, CMQCFC.MQIACF_COMMAND: CMQCFC.MQCMD_ESCAPE}]


def test_not_authorized_subscribe(secured):
    """IBM "Not Authorized (type 5)": MQSUB to a topic the user may not subscribe to:
    ReasonQualifier MQRQ_SUB_NOT_AUTHORIZED, the MQSUB Options, UserIdentifier, ApplType,
    ApplName, TopicString."""
    secured.run_mqsc("ALTER QMGR AUTHOREV(ENABLED)")
    admin_events(secured)
    conn = ibmmq.connect(secured.name, "DEV.APP.SVRCONN", secured.conn_name, user="app",
                         password="apppw")
    options = CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_NON_DURABLE
    try:
        sd = ibmmq.SD(Options=options)
        sd.set_vs("ObjectString", "secret/prices")
        with pytest.raises(ibmmq.MQMIError) as exc:
            ibmmq.Subscription(conn).sub(sub_desc=sd)
    finally:
        conn.disconnect()
    assert exc.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    [(_, header, values)] = admin_events(secured)
    assert header.Reason == CMQC.MQRC_NOT_AUTHORIZED
    assert values[CMQCFC.MQIACF_REASON_QUALIFIER] == CMQCFC.MQRQ_SUB_NOT_AUTHORIZED
    assert values[CMQCFC.MQIACF_SUB_OPTIONS] & options == options
    assert values[CMQCFC.MQCACF_USER_IDENTIFIER] == "app"
    assert values[CMQC.MQCA_TOPIC_STRING] == "secret/prices"
