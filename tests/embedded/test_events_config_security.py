"""Configuration events of security records, through IBM's ibmmq API from
SYSTEM.ADMIN.CONFIG.EVENT (IBM docs "Channel authentication attributes", "Create object",
"Change object", "Delete object" for SET CHLAUTH; "Authority configuration events",
"Change Authority Record", "Delete Authority Record", "Authority Record attributes" for
SET and DELETE AUTHREC), by MQSC and by PCF. A real queue-manager process."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

import spark_mq.embedded as embedded
from support import config_event_client, events_on

CONFIG = "SYSTEM.ADMIN.CONFIG.EVENT"
#: IBM's cmqzc.h EntityType values, which ibmmq's CMQCFC does not carry
MQZAET_PRINCIPAL, MQZAET_GROUP = 1, 2


@pytest.fixture(scope="module")
def manager(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmcfgsec")),
                                       name="QMCFGSEC") as started:
        yield started


@pytest.fixture
def client(manager):
    yield from config_event_client(manager)


def config_events(conn) -> list[tuple[object, int, dict]]:
    found = []
    for md, header, values in events_on(conn, CONFIG):
        assert (header.Type, header.Command) == (CMQCFC.MQCFT_EVENT, CMQCFC.MQCMD_CONFIG_EVENT)
        found.append((md, header.Reason, values))
    return found


def test_set_chlauth_creates_changes_and_deletes_records(manager, client):
    """A SET CHLAUTH that makes a rule is a Create object, ObjectType MQOT_CHLAUTH, named by
    ChannelProfile, with ChannelAuthType, Warning and, for a mapping type, MCAUser,
    ConnectionName and UserSource; one that changes a BLOCKADDR list a Change object
    (before, after); ACTION(REMOVE) of a rule a Delete object."""
    manager.run_mqsc("SET CHLAUTH('CFG.SVRCONN') TYPE(ADDRESSMAP) ADDRESS('10.1.2.3') "
                     "USERSRC(MAP) MCAUSER('mapped') ACTION(ADD)")
    [(_, reason, created)] = config_events(client)
    assert reason == CMQC.MQRC_CONFIG_CREATE_OBJECT
    assert created[CMQCFC.MQIACF_OBJECT_TYPE] == CMQC.MQOT_CHLAUTH
    assert created[CMQCFC.MQCACH_CHANNEL_NAME] == "CFG.SVRCONN"
    assert created[CMQCFC.MQIACF_CHLAUTH_TYPE] == CMQCFC.MQCAUT_ADDRESSMAP
    assert created[CMQCFC.MQIACH_WARNING] == CMQC.MQWARN_NO
    assert created[CMQCFC.MQCACH_MCA_USER_ID] == "mapped"
    assert created[CMQCFC.MQCACH_CONNECTION_NAME] == "10.1.2.3"
    assert created[CMQCFC.MQIACH_USER_SOURCE] == CMQC.MQUSRC_MAP
    assert CMQCFC.MQCACH_CONNECTION_NAME_LIST not in created

    manager.run_mqsc("SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('10.9.9.1') ACTION(ADD)")
    [(_, reason, blocked)] = config_events(client)
    assert reason == CMQC.MQRC_CONFIG_CREATE_OBJECT
    assert blocked[CMQCFC.MQCACH_CONNECTION_NAME_LIST] == ["10.9.9.1"]
    manager.run_mqsc("SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('10.9.9.2') ACTION(ADD)")
    [(before_md, first, before), (after_md, second, after)] = config_events(client)
    assert (first, second) == (CMQC.MQRC_CONFIG_CHANGE_OBJECT, CMQC.MQRC_CONFIG_CHANGE_OBJECT)
    assert before_md.CorrelId == after_md.CorrelId
    assert before[CMQCFC.MQCACH_CONNECTION_NAME_LIST] == ["10.9.9.1"]
    assert after[CMQCFC.MQCACH_CONNECTION_NAME_LIST] == ["10.9.9.1", "10.9.9.2"]

    manager.run_mqsc("SET CHLAUTH('CFG.SVRCONN') TYPE(ADDRESSMAP) ADDRESS('10.1.2.3') "
                     "ACTION(REMOVE)")
    [(_, reason, deleted)] = config_events(client)
    assert reason == CMQC.MQRC_CONFIG_DELETE_OBJECT
    assert deleted[CMQCFC.MQCACH_MCA_USER_ID] == "mapped"
    manager.run_mqsc("SET CHLAUTH('*') TYPE(BLOCKADDR) ACTION(REMOVEALL)")
    [(_, reason, _)] = config_events(client)
    assert reason == CMQC.MQRC_CONFIG_DELETE_OBJECT


def test_set_chlauth_by_pcf_names_its_message_origin(manager, client):
    """The same event for PCF Set Channel Authentication Record, EventOrigin MQEVO_MSG."""
    pcf = ibmmq.PCFExecute(client, response_wait_interval=10000)
    try:
        pcf.MQCMD_SET_CHLAUTH_REC({CMQCFC.MQCACH_CHANNEL_NAME: b"CFG.PCF",
                                   CMQCFC.MQIACF_CHLAUTH_TYPE: CMQCFC.MQCAUT_BLOCKUSER,
                                   CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_ADD,
                                   CMQCFC.MQCACH_MCA_USER_ID_LIST: [b"intruder"]})
    finally:
        pcf.disconnect()
    [(_, reason, created)] = [event for event in config_events(client)
                              if event[2].get(CMQCFC.MQIACF_OBJECT_TYPE) == CMQC.MQOT_CHLAUTH]
    assert reason == CMQC.MQRC_CONFIG_CREATE_OBJECT
    assert created[CMQCFC.MQIACF_EVENT_ORIGIN] == CMQCFC.MQEVO_MSG
    assert created[CMQCFC.MQIACF_CHLAUTH_TYPE] == CMQCFC.MQCAUT_BLOCKUSER
    assert created[CMQCFC.MQCACH_MCA_USER_ID_LIST] == ["intruder"]
    manager.run_mqsc("SET CHLAUTH('CFG.PCF') TYPE(BLOCKUSER) ACTION(REMOVEALL)")


def test_set_and_delete_authrec(manager, client):
    """"Change Authority Record" for every SET AUTHREC (IBM has no Create Authority Record):
    before (no authority yet) and after, ObjectType MQOT_AUTH_REC, ProfileName, no
    Disposition, AuthorityRecordType, AuthorizationList, EntityName, EntityType; "Delete
    Authority Record" for DELETE AUTHREC, the record as it was. Nothing with CONFIGEV off."""
    manager.run_mqsc("SET AUTHREC PROFILE('CFG.**') OBJTYPE(QUEUE) PRINCIPAL('carol') "
                     "AUTHADD(PUT,GET)")
    [(before_md, first, before), (after_md, second, after)] = config_events(client)
    assert (first, second) == (CMQC.MQRC_CONFIG_CHANGE_OBJECT, CMQC.MQRC_CONFIG_CHANGE_OBJECT)
    assert before_md.CorrelId == after_md.CorrelId
    for record in (before, after):
        assert record[CMQCFC.MQIACF_OBJECT_TYPE] == CMQC.MQOT_AUTH_REC
        assert record[CMQCFC.MQCACF_AUTH_PROFILE_NAME] == "CFG.**"
        assert record[CMQCFC.MQIACF_AUTH_REC_TYPE] == CMQC.MQOT_Q
        assert record[CMQCFC.MQCACF_ENTITY_NAME] == "carol"
        assert record[CMQCFC.MQIACF_ENTITY_TYPE] == MQZAET_PRINCIPAL
        assert CMQC.MQIA_QSG_DISP not in record
    assert before[CMQCFC.MQIACF_AUTHORIZATION_LIST] == []
    assert sorted(after[CMQCFC.MQIACF_AUTHORIZATION_LIST]) == sorted(
        [CMQCFC.MQAUTH_OUTPUT, CMQCFC.MQAUTH_INPUT])

    manager.run_mqsc("SET AUTHREC PROFILE('CFG.**') OBJTYPE(QUEUE) PRINCIPAL('carol') "
                     "AUTHRMV(GET)")
    [(_, _, before), (_, _, after)] = config_events(client)
    assert len(before[CMQCFC.MQIACF_AUTHORIZATION_LIST]) == 2
    assert after[CMQCFC.MQIACF_AUTHORIZATION_LIST] == [CMQCFC.MQAUTH_OUTPUT]

    manager.run_mqsc("DELETE AUTHREC PROFILE('CFG.**') OBJTYPE(QUEUE) PRINCIPAL('carol')")
    [(_, reason, deleted)] = config_events(client)
    assert reason == CMQC.MQRC_CONFIG_DELETE_OBJECT
    assert deleted[CMQCFC.MQCACF_AUTH_PROFILE_NAME] == "CFG.**"
    assert deleted[CMQCFC.MQIACF_AUTHORIZATION_LIST] == [CMQCFC.MQAUTH_OUTPUT]

    manager.run_mqsc("ALTER QMGR CONFIGEV(DISABLED)")
    config_events(client)                  # the queue manager's own change, switching it off
    manager.run_mqsc("SET AUTHREC PROFILE('CFG.**') OBJTYPE(QUEUE) PRINCIPAL('carol') "
                     "AUTHADD(PUT)\nSET CHLAUTH('CFG.OFF') TYPE(BLOCKUSER) USERLIST('x')")
    assert config_events(client) == []


def test_authority_records_by_pcf(manager, client):
    """PCF Set and Delete Authority Record are the same events, EventOrigin MQEVO_MSG."""
    pcf = ibmmq.PCFExecute(client, response_wait_interval=10000)
    try:
        pcf.MQCMD_SET_AUTH_REC({CMQCFC.MQCACF_AUTH_PROFILE_NAME: b"CFG.PCF.Q",
                                CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q,
                                CMQCFC.MQCACF_GROUP_ENTITY_NAMES: [b"readers"],
                                CMQCFC.MQIACF_AUTH_ADD_AUTHS: [CMQCFC.MQAUTH_BROWSE]})
        [(_, _, before), (_, _, after)] = [
            event for event in config_events(client)
            if event[2].get(CMQCFC.MQIACF_OBJECT_TYPE) == CMQC.MQOT_AUTH_REC]
        assert after[CMQCFC.MQIACF_EVENT_ORIGIN] == CMQCFC.MQEVO_MSG
        assert after[CMQCFC.MQCACF_ENTITY_NAME] == "readers"
        assert after[CMQCFC.MQIACF_ENTITY_TYPE] == MQZAET_GROUP
        assert after[CMQCFC.MQIACF_AUTHORIZATION_LIST] == [CMQCFC.MQAUTH_BROWSE]
        pcf.MQCMD_DELETE_AUTH_REC({CMQCFC.MQCACF_AUTH_PROFILE_NAME: b"CFG.PCF.Q",
                                   CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q,
                                   CMQCFC.MQCACF_GROUP_ENTITY_NAMES: [b"readers"]})
    finally:
        pcf.disconnect()
    [(_, reason, deleted)] = [event for event in config_events(client)
                              if event[2].get(CMQCFC.MQIACF_OBJECT_TYPE) == CMQC.MQOT_AUTH_REC]
    assert reason == CMQC.MQRC_CONFIG_DELETE_OBJECT
    assert deleted[CMQCFC.MQCACF_ENTITY_NAME] == "readers"
