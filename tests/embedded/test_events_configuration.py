"""Configuration events (IBM docs "Configuration events", "Create object", "Change object",
"Delete object", "Refresh object") and command events ("Command events", "Command", CMDEV
NODISPLAY): PCF messages on SYSTEM.ADMIN.CONFIG.EVENT and SYSTEM.ADMIN.COMMAND.EVENT for
MQSC (sent as MQCMD_ESCAPE, as runmqsc -c does) and PCF commands, only while CONFIGEV / CMDEV
say so. Real queue-manager process, IBM's ibmmq API."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

import spark_mq.embedded as embedded
from support import events_on

CONFIG = "SYSTEM.ADMIN.CONFIG.EVENT"
COMMANDS = "SYSTEM.ADMIN.COMMAND.EVENT"


@pytest.fixture(scope="module")
def manager(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmcfg")), name="QMCFG") as started:
        yield started


@pytest.fixture
def client(manager):
    manager.run_mqsc("ALTER QMGR CONFIGEV(DISABLED) CMDEV(DISABLED)")
    connection = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
    events_on(connection, CONFIG)
    events_on(connection, COMMANDS)
    yield connection
    connection.disconnect()


def config_events(conn) -> list[tuple[object, object, dict]]:
    found = events_on(conn, CONFIG)
    for md, header, _ in found:
        assert md.Format == CMQC.MQFMT_EVENT
        assert (header.Type, header.Command, header.CompCode) == (
            CMQCFC.MQCFT_EVENT, CMQCFC.MQCMD_CONFIG_EVENT, CMQC.MQCC_WARNING)
    return found


def test_nothing_while_configev_and_cmdev_are_disabled(manager, client):
    manager.run_mqsc("DEFINE QLOCAL(QUIET.Q)\nALTER QLOCAL(QUIET.Q) MAXDEPTH(10)\n"
                     "DELETE QLOCAL(QUIET.Q)")
    assert events_on(client, CONFIG) == [] and events_on(client, COMMANDS) == []


def test_create_change_and_delete_by_mqsc(manager, client):
    manager.run_mqsc("ALTER QMGR CONFIGEV(ENABLED)")
    config_events(client)     # the refresh that switching CONFIGEV on brings
    manager.run_mqsc("DEFINE QLOCAL(CFG.Q) MAXDEPTH(50) DESCR('first')")
    [(md, header, created)] = config_events(client)
    assert header.Reason == CMQC.MQRC_CONFIG_CREATE_OBJECT
    assert (header.MsgSeqNumber, header.Control) == (1, CMQCFC.MQCFC_LAST)
    assert created[CMQCFC.MQIACF_OBJECT_TYPE] == CMQC.MQOT_Q
    assert created[CMQC.MQCA_Q_NAME] == "CFG.Q"
    assert created[CMQC.MQIA_QSG_DISP] == CMQC.MQQSGD_Q_MGR
    assert created[CMQC.MQIA_Q_TYPE] == CMQC.MQQT_LOCAL
    assert created[CMQC.MQIA_MAX_Q_DEPTH] == 50 and created[CMQC.MQCA_Q_DESC] == "first"
    assert created[CMQCFC.MQIACF_EVENT_ORIGIN] == CMQCFC.MQEVO_MSG   # through the command queue
    assert created[CMQCFC.MQCACF_EVENT_Q_MGR] == manager.name
    assert CMQCFC.MQCACF_EVENT_USER_ID in created

    manager.run_mqsc("ALTER QLOCAL(CFG.Q) MAXDEPTH(60)")
    [(before_md, before_header, before), (after_md, after_header, after)] = config_events(client)
    assert before_header.Reason == after_header.Reason == CMQC.MQRC_CONFIG_CHANGE_OBJECT
    assert (before_header.MsgSeqNumber, before_header.Control) == (1, CMQCFC.MQCFC_NOT_LAST)
    assert (after_header.MsgSeqNumber, after_header.Control) == (2, CMQCFC.MQCFC_LAST)
    assert before_md.CorrelId == after_md.CorrelId != b"\0" * 24
    assert (before[CMQC.MQIA_MAX_Q_DEPTH], after[CMQC.MQIA_MAX_Q_DEPTH]) == (50, 60)

    manager.run_mqsc("DEFINE QLOCAL(CFG.Q) REPLACE DESCR('second')")   # REPLACE: a change
    [(_, first, _), (_, second, replaced)] = config_events(client)
    assert first.Reason == second.Reason == CMQC.MQRC_CONFIG_CHANGE_OBJECT
    assert replaced[CMQC.MQCA_Q_DESC] == "second"

    manager.run_mqsc("DELETE QLOCAL(CFG.Q)")
    [(_, header, deleted)] = config_events(client)
    assert header.Reason == CMQC.MQRC_CONFIG_DELETE_OBJECT
    assert deleted[CMQC.MQCA_Q_NAME] == "CFG.Q" and deleted[CMQC.MQCA_Q_DESC] == "second"


def test_a_failed_command_is_no_event(manager, client):
    manager.run_mqsc("ALTER QMGR CONFIGEV(ENABLED)")
    config_events(client)
    with pytest.raises(embedded.EmbeddedQueueManagerError):
        manager.run_mqsc("ALTER QLOCAL(NO.SUCH.Q) MAXDEPTH(5)")
    assert config_events(client) == []


def test_pcf_changes_and_the_queue_manager_object(manager, client):
    manager.run_mqsc("ALTER QMGR CONFIGEV(ENABLED)")
    config_events(client)
    pcf = ibmmq.PCFExecute(client)
    try:
        pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"PCF.CFG.Q", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
        pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQCA_Q_MGR_DESC: b"described"})
    finally:
        pcf.disconnect()
    found = config_events(client)
    assert [h.Reason for _, h, _ in found] == [CMQC.MQRC_CONFIG_CREATE_OBJECT,
                                               CMQC.MQRC_CONFIG_CHANGE_OBJECT,
                                               CMQC.MQRC_CONFIG_CHANGE_OBJECT]
    assert found[0][2][CMQC.MQCA_Q_NAME] == "PCF.CFG.Q"
    assert found[0][2][CMQCFC.MQCACF_EVENT_APPL_NAME]            # the command message's context
    before, after = found[1][2], found[2][2]
    assert before[CMQCFC.MQIACF_OBJECT_TYPE] == CMQC.MQOT_Q_MGR
    assert before[CMQC.MQCA_Q_MGR_NAME] == manager.name
    assert (before[CMQC.MQCA_Q_MGR_DESC], after[CMQC.MQCA_Q_MGR_DESC]) != ("described",) * 2
    assert after[CMQC.MQCA_Q_MGR_DESC] == "described"
    assert after[CMQC.MQIA_CONFIGURATION_EVENT] == CMQCFC.MQEVR_ENABLED


def test_refresh_qmgr_type_configev(manager, client):
    with pytest.raises(embedded.EmbeddedQueueManagerError) as exc:
        manager.run_mqsc("REFRESH QMGR TYPE(CONFIGEV)")
    assert "CONFIGEV" in str(exc.value) and "DISABLED" in str(exc.value)
    manager.run_mqsc("DEFINE QLOCAL(REFRESH.A) REPLACE\nDEFINE QALIAS(REFRESH.B) TARGET(REFRESH.A) "
                     "REPLACE\nALTER QMGR CONFIGEV(ENABLED)")
    config_events(client)
    manager.run_mqsc("REFRESH QMGR TYPE(CONFIGEV) OBJECT(QUEUE) NAME(REFRESH.*)")
    found = config_events(client)
    assert [(h.Reason, v[CMQC.MQCA_Q_NAME], v[CMQC.MQIA_Q_TYPE]) for _, h, v in found] == [
        (CMQC.MQRC_CONFIG_REFRESH_OBJECT, "REFRESH.A", CMQC.MQQT_LOCAL),
        (CMQC.MQRC_CONFIG_REFRESH_OBJECT, "REFRESH.B", CMQC.MQQT_ALIAS)]


# --- command events -------------------------------------------------------------------------
def command_events(conn) -> list[tuple[object, dict]]:
    found = []
    for md, header, values in events_on(conn, COMMANDS):
        assert md.Format == CMQC.MQFMT_EVENT
        assert (header.Type, header.Command, header.ParameterCount) == (
            CMQCFC.MQCFT_EVENT, CMQCFC.MQCMD_COMMAND_EVENT, 2)
        found.append((header, values))
    return found


def test_command_events_for_pcf_and_mqsc(manager, client):
    manager.run_mqsc("ALTER QMGR CMDEV(ENABLED)")
    [(header, values)] = command_events(client)            # the ALTER QMGR itself
    assert header.Reason == CMQC.MQRC_COMMAND_MQSC
    context = values[CMQCFC.MQGACF_COMMAND_CONTEXT]
    assert context[CMQCFC.MQIACF_COMMAND] == CMQCFC.MQCMD_CHANGE_Q_MGR
    assert context[CMQCFC.MQIACF_EVENT_ORIGIN] == CMQCFC.MQEVO_MSG
    assert context[CMQCFC.MQCACF_EVENT_Q_MGR] == manager.name
    assert "CMDEV(ENABLED)" in values[CMQCFC.MQGACF_COMMAND_DATA][CMQCFC.MQCACF_ESCAPE_TEXT]

    pcf = ibmmq.PCFExecute(client)
    try:
        pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"CMD.Q", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                            CMQC.MQIA_MAX_Q_DEPTH: 7})
        pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"CMD.Q"})
        with pytest.raises(ibmmq.MQMIError):
            pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: b"NO.SUCH.Q"})   # failed: no event
    finally:
        pcf.disconnect()
    found = command_events(client)
    assert [(h.Reason, v[CMQCFC.MQGACF_COMMAND_CONTEXT][CMQCFC.MQIACF_COMMAND])
            for h, v in found] == [(CMQC.MQRC_COMMAND_PCF, CMQCFC.MQCMD_CREATE_Q),
                                   (CMQC.MQRC_COMMAND_PCF, CMQCFC.MQCMD_INQUIRE_Q)]
    data = found[0][1][CMQCFC.MQGACF_COMMAND_DATA]
    assert data[CMQC.MQCA_Q_NAME] == "CMD.Q" and data[CMQC.MQIA_MAX_Q_DEPTH] == 7
    assert found[0][1][CMQCFC.MQGACF_COMMAND_CONTEXT][CMQCFC.MQCACF_EVENT_APPL_NAME]


def test_cmdev_nodisplay_leaves_out_display_and_inquire(manager, client):
    manager.run_mqsc("ALTER QMGR CMDEV(NODISPLAY)")
    command_events(client)
    manager.run_mqsc("DISPLAY QMGR DESCR")
    pcf = ibmmq.PCFExecute(client)
    try:
        pcf.MQCMD_INQUIRE_Q_MGR()
    finally:
        pcf.disconnect()
    assert command_events(client) == []
    manager.run_mqsc("DEFINE QLOCAL(NODISPLAY.Q) REPLACE")
    [(header, values)] = command_events(client)
    assert values[CMQCFC.MQGACF_COMMAND_CONTEXT][CMQCFC.MQIACF_COMMAND] in (
        CMQCFC.MQCMD_CREATE_Q, CMQCFC.MQCMD_ESCAPE)


def test_other_object_types_are_named(manager, client):
    """A channel (and namelist, process, authentication information) is reported by type and
    name, without its attributes."""
    manager.run_mqsc("ALTER QMGR CONFIGEV(ENABLED)")
    config_events(client)
    manager.run_mqsc("DEFINE CHANNEL(CFG.SVRCONN) CHLTYPE(SVRCONN)\n"
                     "DEFINE NAMELIST(CFG.NL) NAMES(A, B)\nDELETE CHANNEL(CFG.SVRCONN)")
    found = [(h.Reason, v[CMQCFC.MQIACF_OBJECT_TYPE],
              v.get(CMQCFC.MQCACH_CHANNEL_NAME) or v.get(CMQC.MQCA_NAMELIST_NAME))
             for _, h, v in config_events(client)]
    assert found == [(CMQC.MQRC_CONFIG_CREATE_OBJECT, CMQC.MQOT_CHANNEL, "CFG.SVRCONN"),
                     (CMQC.MQRC_CONFIG_CREATE_OBJECT, CMQC.MQOT_NAMELIST, "CFG.NL"),
                     (CMQC.MQRC_CONFIG_DELETE_OBJECT, CMQC.MQOT_CHANNEL, "CFG.SVRCONN")]


def test_switching_configev_on_refreshes_everything(manager, client):
    """IBM "MQCMD_REFRESH_Q_MGR": a refresh with MQRT_CONFIGURATION is generated automatically
    when ConfigurationEvent changes from disabled to enabled; not when it was enabled."""
    manager.run_mqsc("DEFINE QLOCAL(ALREADY.THERE) REPLACE\nALTER QMGR CONFIGEV(ENABLED)")
    found = config_events(client)
    assert {h.Reason for _, h, _ in found} == {CMQC.MQRC_CONFIG_REFRESH_OBJECT}
    named = {v.get(CMQC.MQCA_Q_NAME) or v.get(CMQC.MQCA_Q_MGR_NAME) for _, _, v in found}
    assert {manager.name, "ALREADY.THERE", "SYSTEM.DEFAULT.LOCAL.QUEUE", CONFIG} <= named
    manager.run_mqsc("ALTER QMGR CONFIGEV(ENABLED)")        # already on: a change, no refresh
    assert [h.Reason for _, h, _ in config_events(client)] == [CMQC.MQRC_CONFIG_CHANGE_OBJECT] * 2
