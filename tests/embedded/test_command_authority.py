"""Conformance: the PCF command server checks the authority of the user who sends a command
(its MQMD UserIdentifier) as IBM MQ's does, through ibmmq.PCFExecute against a real
embedded queue manager started with users (IBM's developer configuration)."""
from __future__ import annotations

import contextlib

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

import spark_mq.embedded as embedded
from authority_records import granted, refused

ADMIN_CHANNEL = "DEV.ADMIN.SVRCONN"
APP_CHANNEL = "DEV.APP.SVRCONN"
# app and bob may send commands (PUT on the command queue); bob lacks DSP on the queue
# manager, which every command needs; carol may not even send one
USERS = {"app": "passw0rd", "admin": "adminpw", "bob": ("bobpw", ["mqclient"]),
         "carol": ("carolpw", ["mqclient"])}
PASSWORDS = {"app": "passw0rd", "admin": "adminpw", "bob": "bobpw", "carol": "carolpw"}


@pytest.fixture(scope="module")
def aqm(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmauth")), name="QMAUTH",
                                       users=USERS) as manager:
        manager.run_mqsc("""
            DEFINE QLOCAL(AUTH.ONE) REPLACE
            DEFINE QLOCAL(AUTH.GEN.A) REPLACE
            DEFINE QLOCAL(AUTH.GEN.B) REPLACE
            SET AUTHREC PROFILE('SYSTEM.ADMIN.COMMAND.QUEUE') PRINCIPAL('app') OBJTYPE(QUEUE) +
                AUTHADD(PUT,DSP)
            SET AUTHREC PROFILE('SYSTEM.ADMIN.COMMAND.QUEUE') PRINCIPAL('bob') OBJTYPE(QUEUE) +
                AUTHADD(PUT,DSP)
            SET AUTHREC PRINCIPAL('app') OBJTYPE(QMGR) AUTHADD(DSP)
        """)
        yield manager


@contextlib.contextmanager
def pcf_as(qm, user: str):
    """A PCFExecute for `user`; its reply queue comes from the model queue applications
    may use in the developer configuration."""
    channel = ADMIN_CHANNEL if user == "admin" else APP_CHANNEL
    connection = ibmmq.connect(qm.name, channel, qm.conn_name, user=user, password=PASSWORDS[user])
    try:
        executor = ibmmq.PCFExecute(connection, model_queue_name=b"DEV.APP.MODEL.QUEUE",
                                    response_wait_interval=10000)
        try:
            yield executor
        finally:
            executor.disconnect()
    finally:
        connection.disconnect()




def names(items, parameter=CMQC.MQCA_Q_NAME) -> list[str]:
    return sorted(item[parameter].decode().strip() for item in items)


def inquire_q(name: str) -> dict:
    return {CMQC.MQCA_Q_NAME: name.encode()}


# --- every command ---------------------------------------------------------------------------
def test_every_command_needs_display_authority_on_the_queue_manager(aqm):
    with pcf_as(aqm, "bob") as pcf:
        assert refused(pcf.MQCMD_PING_Q_MGR) == CMQC.MQRC_NOT_AUTHORIZED
    with pcf_as(aqm, "app") as pcf:
        assert pcf.MQCMD_PING_Q_MGR() == []


def test_sending_a_command_needs_put_on_the_command_queue(aqm):
    with pcf_as(aqm, "carol") as pcf:
        assert refused(pcf.MQCMD_PING_Q_MGR) == CMQC.MQRC_NOT_AUTHORIZED


# --- inquiries -------------------------------------------------------------------------------
def test_inquiring_a_queue_needs_display_authority_on_it(aqm):
    with pcf_as(aqm, "app") as pcf:
        assert refused(pcf.MQCMD_INQUIRE_Q, inquire_q("AUTH.ONE")) == CMQC.MQRC_NOT_AUTHORIZED
        with granted(aqm, "QUEUE", "DSP", "AUTH.ONE"):
            assert names(pcf.MQCMD_INQUIRE_Q(inquire_q("AUTH.ONE"))) == ["AUTH.ONE"]
        assert refused(pcf.MQCMD_INQUIRE_Q_STATUS, inquire_q("AUTH.ONE")) \
            == CMQC.MQRC_NOT_AUTHORIZED


def test_a_queue_that_does_not_exist_is_unknown_whatever_the_authority(aqm):
    with pcf_as(aqm, "app") as pcf:
        assert refused(pcf.MQCMD_INQUIRE_Q, inquire_q("AUTH.NO.SUCH")) \
            == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_a_generic_inquiry_leaves_out_the_queues_the_user_may_not_display(aqm):
    with pcf_as(aqm, "app") as pcf, granted(aqm, "QUEUE", "DSP", "AUTH.GEN.A"):
        assert names(pcf.MQCMD_INQUIRE_Q(inquire_q("AUTH.GEN.*"))) == ["AUTH.GEN.A"]
        assert names(pcf.MQCMD_INQUIRE_Q_STATUS(inquire_q("AUTH.GEN.*"))) == ["AUTH.GEN.A"]
    with pcf_as(aqm, "admin") as pcf:
        assert names(pcf.MQCMD_INQUIRE_Q(inquire_q("AUTH.GEN.*"))) == ["AUTH.GEN.A", "AUTH.GEN.B"]


def test_a_generic_channel_inquiry_shows_the_channels_the_user_may_display(aqm):
    wanted = {CMQCFC.MQCACH_CHANNEL_NAME: b"DEV.*"}
    with pcf_as(aqm, "app") as pcf, granted(aqm, "CHANNEL", "DSP", APP_CHANNEL):
        found = pcf.MQCMD_INQUIRE_CHANNEL(wanted)
        assert names(found, CMQCFC.MQCACH_CHANNEL_NAME) == [APP_CHANNEL]


def test_queue_names_are_listed_without_display_authority_on_the_queues(aqm):
    with pcf_as(aqm, "app") as pcf:
        found = pcf.MQCMD_INQUIRE_Q_NAMES(inquire_q("AUTH.GEN.*"))
        assert sorted(n.decode().strip() for n in found[0][CMQCFC.MQCACF_Q_NAMES]) \
            == ["AUTH.GEN.A", "AUTH.GEN.B"]


# --- changes ---------------------------------------------------------------------------------
def test_creating_a_queue_needs_create_authority_and_display_on_its_default(aqm):
    create = {CMQC.MQCA_Q_NAME: b"AUTH.NEW.1", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL}
    with pcf_as(aqm, "app") as pcf:
        assert refused(pcf.MQCMD_CREATE_Q, create) == CMQC.MQRC_NOT_AUTHORIZED
        with granted(aqm, "QUEUE", "CRT", "@class"):
            # a Create starts from SYSTEM.DEFAULT.LOCAL.QUEUE: DSP on it is needed too
            assert refused(pcf.MQCMD_CREATE_Q, create) == CMQC.MQRC_NOT_AUTHORIZED
            with granted(aqm, "QUEUE", "DSP", "SYSTEM.DEFAULT.LOCAL.QUEUE"):
                pcf.MQCMD_CREATE_Q(create)
        assert "AUTH.NEW.1" in aqm.run_mqsc("DISPLAY QLOCAL(AUTH.NEW.1)")
        delete = {CMQC.MQCA_Q_NAME: b"AUTH.NEW.1"}
        assert refused(pcf.MQCMD_DELETE_Q, delete) == CMQC.MQRC_NOT_AUTHORIZED
        with granted(aqm, "QUEUE", "DLT", "AUTH.NEW.*"):
            pcf.MQCMD_DELETE_Q(delete)
    with pytest.raises(embedded.EmbeddedQueueManagerError, match="AMQ8147E"):
        aqm.run_mqsc("DISPLAY QLOCAL(AUTH.NEW.1)")


def test_changing_and_clearing_a_queue_need_chg_and_clr_on_it(aqm):
    change = {CMQC.MQCA_Q_NAME: b"AUTH.ONE", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
              CMQC.MQCA_Q_DESC: b"changed by app"}
    clear = {CMQC.MQCA_Q_NAME: b"AUTH.ONE"}
    with pcf_as(aqm, "app") as pcf:
        assert refused(pcf.MQCMD_CHANGE_Q, change) == CMQC.MQRC_NOT_AUTHORIZED
        assert refused(pcf.MQCMD_CLEAR_Q, clear) == CMQC.MQRC_NOT_AUTHORIZED
        with granted(aqm, "QUEUE", "CHG,CLR", "AUTH.ONE"):
            pcf.MQCMD_CHANGE_Q(change)
            pcf.MQCMD_CLEAR_Q(clear)
    assert "changed by app" in aqm.run_mqsc("DISPLAY QLOCAL(AUTH.ONE) DESCR")


def test_authority_records_need_change_authority_on_the_queue_manager(aqm):
    record = {CMQCFC.MQCACF_AUTH_PROFILE_NAME: b"AUTH.ONE", CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q,
              CMQCFC.MQIACF_AUTH_ADD_AUTHS: [CMQCFC.MQAUTH_BROWSE],
              CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES: [b"bob"]}
    with pcf_as(aqm, "app") as pcf:
        assert refused(pcf.MQCMD_SET_AUTH_REC, record) == CMQC.MQRC_NOT_AUTHORIZED
        # displaying them needs only what every command needs
        found = pcf.MQCMD_INQUIRE_AUTH_RECS({
            CMQCFC.MQIACF_AUTH_OPTIONS: CMQCFC.MQAUTHOPT_NAME_EXPLICIT,
            CMQCFC.MQCACF_AUTH_PROFILE_NAME: b"SYSTEM.ADMIN.COMMAND.QUEUE"})
        assert names(found, CMQCFC.MQCACF_ENTITY_NAME) == ["app", "bob"]
        with granted(aqm, "QMGR", "CHG"):
            pcf.MQCMD_SET_AUTH_REC(record)
            pcf.MQCMD_DELETE_AUTH_REC({k: v for k, v in record.items()
                                       if k != CMQCFC.MQIACF_AUTH_ADD_AUTHS})


def test_administrators_may_do_everything(aqm):
    with pcf_as(aqm, "admin") as pcf:
        pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"AUTH.ADMIN.Q", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
        assert names(pcf.MQCMD_INQUIRE_Q(inquire_q("AUTH.ADMIN.Q"))) == ["AUTH.ADMIN.Q"]
        pcf.MQCMD_CLEAR_Q({CMQC.MQCA_Q_NAME: b"AUTH.ADMIN.Q"})
        record = {CMQCFC.MQCACF_AUTH_PROFILE_NAME: b"AUTH.ADMIN.Q",
                  CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q,
                  CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES: [b"app"]}
        pcf.MQCMD_SET_AUTH_REC({**record, CMQCFC.MQIACF_AUTH_ADD_AUTHS: [CMQCFC.MQAUTH_DISPLAY]})
        pcf.MQCMD_DELETE_AUTH_REC(record)
        pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: b"AUTH.ADMIN.Q"})


# --- deleting a queue takes its authority records (AUTHREC(YES), MQ's default) ----------------

def records_for(qm, profile: str, objtype: str = "QUEUE") -> int:
    """The records of exactly this profile (DISPLAY shows generic profiles covering it too)."""
    try:
        shown = qm.run_mqsc(f"DISPLAY AUTHREC PROFILE('{profile}') OBJTYPE({objtype})")
    except embedded.EmbeddedQueueManagerError:   # AMQ8459E: none at all
        return 0
    return shown.count(f"PROFILE({profile})")


def test_deleting_a_queue_deletes_the_records_of_its_name_but_not_generic_ones(aqm):
    aqm.run_mqsc("""
        DEFINE QLOCAL(GONE.Q) REPLACE
        SET AUTHREC PROFILE('GONE.Q') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(PUT)
        SET AUTHREC PROFILE('GONE.*') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(GET)
    """)
    try:
        aqm.run_mqsc("DELETE QLOCAL(GONE.Q)")
        assert records_for(aqm, "GONE.Q") == 0
        assert records_for(aqm, "GONE.*") == 1
        aqm.run_mqsc("DEFINE QLOCAL(GONE.Q)")   # a new queue of that name starts without them
        assert records_for(aqm, "GONE.Q") == 0
    finally:
        aqm.run_mqsc("DELETE AUTHREC PROFILE('GONE.*') PRINCIPAL('app') OBJTYPE(QUEUE)\n"
                     "DELETE QLOCAL(GONE.Q)")


def test_authrec_no_keeps_them_in_mqsc_and_pcf(aqm):
    aqm.run_mqsc("""
        DEFINE QLOCAL(KEEP.Q1) REPLACE
        DEFINE QLOCAL(KEEP.Q2) REPLACE
        SET AUTHREC PROFILE('KEEP.Q1') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(PUT)
        SET AUTHREC PROFILE('KEEP.Q2') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(PUT)
    """)
    try:
        aqm.run_mqsc("DELETE QLOCAL(KEEP.Q1) AUTHREC(NO)")
        assert records_for(aqm, "KEEP.Q1") == 1
        with pcf_as(aqm, "admin") as pcf:
            pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: b"KEEP.Q2",
                                CMQCFC.MQIACF_REMOVE_AUTHREC: CMQCFC.MQRAR_NO})
            assert records_for(aqm, "KEEP.Q2") == 1
            with pytest.raises(ibmmq.MQMIError) as refused:
                pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: b"AUTH.ONE",
                                    CMQCFC.MQIACF_REMOVE_AUTHREC: 7})
            assert refused.value.reason == CMQCFC.MQRCCF_PARM_VALUE_ERROR
        with pytest.raises(embedded.EmbeddedQueueManagerError, match=r"AUTHREC.*valid: YES, NO"):
            aqm.run_mqsc("DELETE QLOCAL(AUTH.ONE) AUTHREC(MAYBE)")
    finally:
        aqm.run_mqsc("DELETE AUTHREC PROFILE('KEEP.Q1') PRINCIPAL('app') OBJTYPE(QUEUE)\n"
                     "DELETE AUTHREC PROFILE('KEEP.Q2') PRINCIPAL('app') OBJTYPE(QUEUE)")


# --- MQSC in PCF (MQCMD_ESCAPE) is checked as the PCF command it is ---------------------------

def escape(pcf, text: str) -> list[str]:
    answers = pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC,
                                CMQCFC.MQCACF_ESCAPE_TEXT: text.encode()})
    return [a[CMQCFC.MQCACF_ESCAPE_TEXT].decode() for a in answers]


def test_escape_is_checked_as_its_pcf_equivalent(aqm):
    with pcf_as(aqm, "app") as pcf:
        assert refused(escape, pcf, "DISPLAY QLOCAL(AUTH.ONE)") == CMQC.MQRC_NOT_AUTHORIZED
        assert refused(escape, pcf, "DEFINE QLOCAL(AUTH.ESC.NEW)") == CMQC.MQRC_NOT_AUTHORIZED
        assert refused(escape, pcf, "ALTER QMGR DESCR('x')") == CMQC.MQRC_NOT_AUTHORIZED
        # no PCF equivalent: what an unlisted command needs, CHG on the queue manager
        assert refused(escape, pcf, "DEFINE LISTENER(L1) TRPTYPE(TCP)") == CMQC.MQRC_NOT_AUTHORIZED
        with granted(aqm, "QUEUE", "DSP", "AUTH.ONE"):
            assert "QUEUE(AUTH.ONE)" in escape(pcf, "DISPLAY QLOCAL(AUTH.ONE)")[0]
        with granted(aqm, "QUEUE", "DSP", "AUTH.GEN.A"):
            shown = escape(pcf, "DISPLAY QLOCAL(AUTH.GEN.*)")
            assert len(shown) == 1 and "QUEUE(AUTH.GEN.A)" in shown[0]
    with pcf_as(aqm, "admin") as pcf:
        assert len(escape(pcf, "DISPLAY QLOCAL(AUTH.GEN.*)")) == 2


def test_deleting_a_topic_takes_its_records_unless_authrec_no(aqm):
    for name in ("GONE.TOPIC", "KEPT.TOPIC", "PCF.TOPIC", "PCFKEPT.TOPIC"):
        aqm.run_mqsc(f"DEFINE TOPIC({name}) TOPICSTR('authrec/{name}') REPLACE\n"
                     f"SET AUTHREC PROFILE('{name}') PRINCIPAL('app') OBJTYPE(TOPIC) AUTHADD(PUB)")
    try:
        aqm.run_mqsc("DELETE TOPIC(GONE.TOPIC)")
        aqm.run_mqsc("DELETE TOPIC(KEPT.TOPIC) AUTHREC(NO)")
        with pcf_as(aqm, "admin") as pcf:
            pcf.MQCMD_DELETE_TOPIC({CMQC.MQCA_TOPIC_NAME: b"PCF.TOPIC"})
            pcf.MQCMD_DELETE_TOPIC({CMQC.MQCA_TOPIC_NAME: b"PCFKEPT.TOPIC",
                                    CMQCFC.MQIACF_REMOVE_AUTHREC: CMQCFC.MQRAR_NO})
            assert refused(pcf.MQCMD_DELETE_TOPIC, {CMQC.MQCA_TOPIC_NAME: b"NO.SUCH.TOPIC"}) \
                == CMQC.MQRC_UNKNOWN_OBJECT_NAME
        assert [records_for(aqm, n, "TOPIC") for n in ("GONE.TOPIC", "KEPT.TOPIC", "PCF.TOPIC",
                                                       "PCFKEPT.TOPIC")] == [0, 1, 0, 1]
    finally:
        for name in ("KEPT.TOPIC", "PCFKEPT.TOPIC"):
            aqm.run_mqsc(f"DELETE AUTHREC PROFILE('{name}') PRINCIPAL('app') OBJTYPE(TOPIC)")
