"""Configuration events of every object type IBM lists, with their attributes (IBM docs
"Create object", "Delete object", "Refresh object", "Configuration event generation"), and
the PCF command that asks for a refresh ("Refresh Queue Manager", MQCMD_REFRESH_Q_MGR with
MQRT_CONFIGURATION; REFRESH QMGR TYPE(CONFIGEV) in MQSC): read from
SYSTEM.ADMIN.CONFIG.EVENT through ibmmq and parsed as PCF. Real queue-manager processes."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC, CMQXC

import spark_mq.embedded as embedded
from support import config_event_client, events_on

CONFIG = "SYSTEM.ADMIN.CONFIG.EVENT"


@pytest.fixture(scope="module")
def manager(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmcfg2")), name="QMCFG2") as started:
        yield started


@pytest.fixture
def client(manager):
    yield from config_event_client(manager)


def config_events(conn) -> list[tuple[int, dict]]:
    found = []
    for md, header, values in events_on(conn, CONFIG):
        assert md.Format == CMQC.MQFMT_EVENT
        assert (header.Type, header.Command) == (CMQCFC.MQCFT_EVENT, CMQCFC.MQCMD_CONFIG_EVENT)
        found.append((header.Reason, values))
    return found


def test_topics_with_their_attributes(manager, client):
    """DEFINE, ALTER and DELETE TOPIC are on IBM's list: ObjectType MQOT_TOPIC, TopicName,
    then what Inquire Topic returns."""
    manager.run_mqsc("DEFINE TOPIC(CFG.TOPIC) TOPICSTR('cfg/prices') DESCR('first')")
    [(reason, created)] = config_events(client)
    assert reason == CMQC.MQRC_CONFIG_CREATE_OBJECT
    assert created[CMQCFC.MQIACF_OBJECT_TYPE] == CMQC.MQOT_TOPIC
    assert created[CMQC.MQCA_TOPIC_NAME] == "CFG.TOPIC"
    assert created[CMQC.MQCA_TOPIC_STRING] == "cfg/prices"
    assert created[CMQC.MQCA_TOPIC_DESC] == "first"
    assert created[CMQC.MQIA_TOPIC_TYPE] == CMQC.MQTOPT_LOCAL
    manager.run_mqsc("ALTER TOPIC(CFG.TOPIC) DESCR('second')")
    [(_, before), (_, after)] = config_events(client)
    assert (before[CMQC.MQCA_TOPIC_DESC], after[CMQC.MQCA_TOPIC_DESC]) == ("first", "second")
    manager.run_mqsc("DELETE TOPIC(CFG.TOPIC)")
    [(reason, deleted)] = config_events(client)
    assert (reason, deleted[CMQC.MQCA_TOPIC_NAME]) == (CMQC.MQRC_CONFIG_DELETE_OBJECT, "CFG.TOPIC")


def test_channels_namelists_processes_and_authinfo_carry_their_attributes(manager, client):
    manager.run_mqsc("DEFINE CHANNEL(CFG2.SVRCONN) CHLTYPE(SVRCONN) DESCR('clients')\n"
                     "DEFINE NAMELIST(CFG2.NL) NAMES(A, B)\n"
                     "DEFINE PROCESS(CFG2.PROC) APPLICID('/bin/true')\n"
                     "DEFINE AUTHINFO(CFG2.AI) AUTHTYPE(IDPWOS) DESCR('checks')")
    [(_, channel), (_, namelist), (_, process), (_, authinfo)] = config_events(client)
    assert channel[CMQCFC.MQIACF_OBJECT_TYPE] == CMQC.MQOT_CHANNEL
    assert channel[CMQCFC.MQCACH_CHANNEL_NAME] == "CFG2.SVRCONN"
    assert channel[CMQCFC.MQIACH_CHANNEL_TYPE] == CMQXC.MQCHT_SVRCONN
    assert channel[CMQCFC.MQCACH_DESC] == "clients"
    assert namelist[CMQCFC.MQIACF_OBJECT_TYPE] == CMQC.MQOT_NAMELIST
    assert namelist[CMQC.MQCA_NAMELIST_NAME] == "CFG2.NL"
    assert namelist[CMQC.MQCA_NAMES] == ["A", "B"]
    assert process[CMQCFC.MQIACF_OBJECT_TYPE] == CMQC.MQOT_PROCESS
    assert process[CMQC.MQCA_APPL_ID] == "/bin/true"
    assert authinfo[CMQCFC.MQIACF_OBJECT_TYPE] == CMQC.MQOT_AUTH_INFO
    assert authinfo[CMQC.MQCA_AUTH_INFO_NAME] == "CFG2.AI"
    assert authinfo[CMQC.MQIA_AUTH_INFO_TYPE] == CMQC.MQAIT_IDPW_OS
    assert authinfo[CMQC.MQCA_AUTH_INFO_DESC] == "checks"


def test_no_event_for_the_config_event_queue_nor_subscriptions(manager, client):
    """IBM: no configuration event for SYSTEM.ADMIN.CONFIG.EVENT itself (but by a refresh),
    and DEFINE SUB is not among the commands that make one."""
    manager.run_mqsc(f"ALTER QLOCAL({CONFIG}) DESCR('watched')\n"
                     "DEFINE SUB(CFG.SUB) TOPICSTR('cfg/sub') DEST(SYSTEM.DEFAULT.LOCAL.QUEUE)\n"
                     "DELETE SUB(CFG.SUB)")
    assert config_events(client) == []
    manager.run_mqsc(f"REFRESH QMGR TYPE(CONFIGEV) OBJECT(QLOCAL) NAME({CONFIG})")
    [(reason, refreshed)] = config_events(client)
    assert reason == CMQC.MQRC_CONFIG_REFRESH_OBJECT
    assert refreshed[CMQC.MQCA_Q_DESC] == "watched"


def test_mqset_is_a_change_but_not_of_a_temporary_dynamic_queue(manager, client):
    """IBM: "an MQSET call is issued, other than for a temporary dynamic queue": Change object
    before and after, EventOrigin MQEVO_MQSET, EventUserId the caller's."""
    manager.run_mqsc("DEFINE QLOCAL(SET.Q) REPLACE")
    config_events(client)
    queue = ibmmq.Queue(client, "SET.Q", CMQC.MQOO_SET)
    queue.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)
    queue.close()
    [(first, before), (second, after)] = config_events(client)
    assert first == second == CMQC.MQRC_CONFIG_CHANGE_OBJECT
    assert before[CMQCFC.MQIACF_EVENT_ORIGIN] == after[CMQCFC.MQIACF_EVENT_ORIGIN] == \
        CMQCFC.MQEVO_MQSET
    assert after[CMQCFC.MQCACF_EVENT_USER_ID]
    assert CMQCFC.MQCACF_EVENT_APPL_NAME not in after       # context only for a command message
    assert (before[CMQC.MQIA_INHIBIT_PUT], after[CMQC.MQIA_INHIBIT_PUT]) == (
        CMQC.MQQA_PUT_ALLOWED, CMQC.MQQA_PUT_INHIBITED)
    temporary = ibmmq.Queue(client, ibmmq.OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE"),
                            CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_SET)
    temporary.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)
    temporary.close()
    assert config_events(client) == []


def test_refresh_queue_manager_by_pcf(manager, client):
    """MQCMD_REFRESH_Q_MGR, RefreshType MQRT_CONFIGURATION: one Refresh object event per object
    ObjectType and (generic) ObjectName select."""
    manager.run_mqsc("DEFINE CHANNEL(REF.ONE) CHLTYPE(SVRCONN) REPLACE\n"
                     "DEFINE CHANNEL(REF.TWO) CHLTYPE(RCVR) REPLACE\n"
                     "DEFINE CHANNEL(OTHER.ONE) CHLTYPE(SVRCONN) REPLACE\n"
                     "DEFINE QLOCAL(REF.Q) REPLACE\n"
                     "DEFINE TOPIC(REF.TOPIC) TOPICSTR('ref') REPLACE")
    config_events(client)
    pcf = ibmmq.PCFExecute(client)
    try:
        pcf.MQCMD_REFRESH_Q_MGR({CMQCFC.MQIACF_REFRESH_TYPE: CMQCFC.MQRT_CONFIGURATION,
                                 CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_CHANNEL,
                                 CMQCFC.MQCACF_OBJECT_NAME: b"REF.*"})
        found = config_events(client)
        assert [(reason, values[CMQCFC.MQCACH_CHANNEL_NAME], values[CMQCFC.MQIACH_CHANNEL_TYPE])
                for reason, values in found] == [
            (CMQC.MQRC_CONFIG_REFRESH_OBJECT, "REF.ONE", CMQXC.MQCHT_SVRCONN),
            (CMQC.MQRC_CONFIG_REFRESH_OBJECT, "REF.TWO", CMQXC.MQCHT_RECEIVER)]
        pcf.MQCMD_REFRESH_Q_MGR({CMQCFC.MQIACF_REFRESH_TYPE: CMQCFC.MQRT_CONFIGURATION,
                                 CMQCFC.MQCACF_OBJECT_NAME: b"REF*"})     # every type
        named = {(values[CMQCFC.MQIACF_OBJECT_TYPE],
                  values.get(CMQCFC.MQCACH_CHANNEL_NAME) or values.get(CMQC.MQCA_Q_NAME)
                  or values.get(CMQC.MQCA_TOPIC_NAME)) for _, values in config_events(client)}
        assert named == {(CMQC.MQOT_CHANNEL, "REF.ONE"), (CMQC.MQOT_CHANNEL, "REF.TWO"),
                         (CMQC.MQOT_Q, "REF.Q"), (CMQC.MQOT_TOPIC, "REF.TOPIC")}
        with pytest.raises(ibmmq.MQMIError) as exc:      # MQRT_EXPIRY is z/OS's
            pcf.MQCMD_REFRESH_Q_MGR({CMQCFC.MQIACF_REFRESH_TYPE: CMQCFC.MQRT_EXPIRY})
        assert exc.value.reason == CMQCFC.MQRCCF_PARM_VALUE_ERROR
        manager.run_mqsc("ALTER QMGR CONFIGEV(DISABLED)")
        [(reason, _), _] = config_events(client)     # IBM: switching it off is still a change
        assert reason == CMQC.MQRC_CONFIG_CHANGE_OBJECT
        with pytest.raises(ibmmq.MQMIError) as exc:      # nothing to generate them into
            pcf.MQCMD_REFRESH_Q_MGR({CMQCFC.MQIACF_REFRESH_TYPE: CMQCFC.MQRT_CONFIGURATION})
        assert exc.value.reason == CMQCFC.MQRCCF_COMMAND_FAILED
    finally:
        pcf.disconnect()
    assert config_events(client) == []


def test_refresh_interval_selects_what_changed(tmp_path):
    """RefreshInterval (REFINT): only the objects changed within that many minutes; a queue
    manager counts the changes it has seen since it started."""
    qm = embedded.EmbeddedQueueManager(str(tmp_path / "qm"), name="QMREFINT").start()
    try:
        qm.run_mqsc("DEFINE QLOCAL(OLD.A)\nDEFINE QLOCAL(OLD.B)")
        qm.stop()
        qm.start()
        qm.run_mqsc("ALTER QMGR CONFIGEV(ENABLED)\nALTER QLOCAL(OLD.B) DESCR('touched')")
        conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
        try:
            events_on(conn, CONFIG)
            qm.run_mqsc("REFRESH QMGR TYPE(CONFIGEV) OBJECT(QUEUE) NAME(OLD.*) REFINT(60)")
            assert [v[CMQC.MQCA_Q_NAME] for _, v in config_events(conn)] == ["OLD.B"]
            qm.run_mqsc("REFRESH QMGR TYPE(CONFIGEV) OBJECT(QUEUE) NAME(OLD.*)")   # REFINT(0)
            assert [v[CMQC.MQCA_Q_NAME] for _, v in config_events(conn)] == ["OLD.A", "OLD.B"]
            with pytest.raises(embedded.EmbeddedQueueManagerError) as exc:
                qm.run_mqsc("REFRESH QMGR TYPE(CONFIGEV) REFINT(-1)")
            assert "REFINT(-1)" in str(exc.value)
        finally:
            conn.disconnect()
    finally:
        qm.stop()
