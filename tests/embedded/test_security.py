"""Conformance: security as IBM's developer container has it (connection authentication,
CHLAUTH rules, authority records), through the ibmmq API against real embedded queue
managers started with users. A queue manager without users stays open (last tests)."""
from __future__ import annotations

import contextlib
import select
import socket
import time

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

import spark_mq.embedded as embedded
from spark_mq.embedded import wire  # to send a connect and read its answer later, by hand

ADMIN_CHANNEL = "DEV.ADMIN.SVRCONN"
APP_CHANNEL = "DEV.APP.SVRCONN"
USERS = {"app": "passw0rd", "admin": "adminpw", "bob": ("bobpw", ["mqclient"]),
         "carol": ("carolpw", ["devs"])}


def reason(excinfo) -> int:
    return excinfo.value.reason


@pytest.fixture(scope="module")
def sqm(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmsec")), name="QMSEC",
                                       users=USERS) as manager:
        manager.run_mqsc("""
            DEFINE QLOCAL(SEC.Q1) REPLACE
            DEFINE QLOCAL(SECQ) REPLACE
            DEFINE QLOCAL(SPEC.Q1) REPLACE
            DEFINE QALIAS(DEV.ALIAS.SEC) TARGET(SEC.Q1) REPLACE
            DEFINE CHANNEL(TEST.MAP.SVRCONN) CHLTYPE(SVRCONN) REPLACE
            SET CHLAUTH(TEST.MAP.SVRCONN) TYPE(ADDRESSMAP) ADDRESS('127.0.0.*') USERSRC(MAP) +
                MCAUSER('app') ACTION(REPLACE)
            DEFINE CHANNEL(TEST.ADM.SVRCONN) CHLTYPE(SVRCONN) MCAUSER('admin') REPLACE
            SET CHLAUTH(TEST.ADM.SVRCONN) TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) +
                ACTION(REPLACE)
            SET CHLAUTH(TEST.ADM.SVRCONN) TYPE(BLOCKUSER) USERLIST('nobody') ACTION(REPLACE)
        """)
        yield manager


def connect(qm, user=None, password=None, channel=APP_CHANNEL):
    return ibmmq.connect(qm.name, channel, qm.conn_name, user=user, password=password)


def refused(qm, user=None, password=None, channel=APP_CHANNEL) -> int:
    with pytest.raises(ibmmq.MQMIError) as exc:
        connect(qm, user, password, channel).disconnect()
    return reason(exc)


@contextlib.contextmanager
def connected(qm, user="app", password="passw0rd", channel=APP_CHANNEL):
    connection = connect(qm, user, password, channel)
    try:
        yield connection
    finally:
        connection.disconnect()


def open_reason(connection, name, options) -> int:
    try:
        ibmmq.Queue(connection, name, options).close()
    except ibmmq.MQMIError as exc:
        return exc.reason
    return CMQC.MQRC_NONE


# --- CONNAUTH ------------------------------------------------------------------------------
def test_app_with_password_connects_and_runs_as_itself(sqm):
    with connected(sqm) as connection:
        queue = ibmmq.Queue(connection, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT)
        md = ibmmq.MD()
        queue.put(b"x", md)
        queue.close()
        assert md.UserIdentifier.rstrip(b"\0 ") == b"app"


@pytest.mark.parametrize("user,password", [("app", "wrong"), ("nobody", "pw"), (None, None)])
def test_bad_or_missing_credentials_on_the_app_channel_are_2035(sqm, user, password):
    assert refused(sqm, user, password) == CMQC.MQRC_NOT_AUTHORIZED


def test_conn_auth_is_inquirable_with_mqinq_and_pcf(sqm):
    with connected(sqm, "admin", "adminpw", ADMIN_CHANNEL) as connection:
        assert connection.inquire(CMQC.MQCA_CONN_AUTH).strip() == b"DEV.AUTHINFO"
        pcf = ibmmq.PCFExecute(connection, response_wait_interval=10000)
        found = pcf.MQCMD_INQUIRE_Q_MGR({CMQCFC.MQIACF_Q_MGR_ATTRS: [CMQC.MQCA_CONN_AUTH]})
        name = found[0][CMQC.MQCA_CONN_AUTH]
        assert name.strip() == b"DEV.AUTHINFO"
        info = pcf.MQCMD_INQUIRE_AUTH_INFO({CMQC.MQCA_AUTH_INFO_NAME: name,
                                            CMQC.MQIA_AUTH_INFO_TYPE: CMQC.MQAIT_IDPW_OS,
                                            CMQCFC.MQIACF_AUTH_INFO_ATTRS: [CMQC.MQIA_CHECK_CLIENT_BINDING]})
        assert info[0][CMQC.MQIA_CHECK_CLIENT_BINDING] == CMQCFC.MQCHK_REQUIRED_ADMIN
        pcf.disconnect()


def test_pcf_creates_changes_and_deletes_an_authinfo(sqm):
    with connected(sqm, "admin", "adminpw", ADMIN_CHANNEL) as connection:
        pcf = ibmmq.PCFExecute(connection, response_wait_interval=10000)
        pcf.MQCMD_CREATE_AUTH_INFO({CMQC.MQCA_AUTH_INFO_NAME: b"TEST.AUTHINFO",
                                    CMQC.MQIA_AUTH_INFO_TYPE: CMQC.MQAIT_IDPW_OS,
                                    CMQC.MQIA_CHECK_CLIENT_BINDING: CMQCFC.MQCHK_OPTIONAL})
        pcf.MQCMD_CHANGE_AUTH_INFO({CMQC.MQCA_AUTH_INFO_NAME: b"TEST.AUTHINFO",
                                    CMQC.MQIA_AUTH_INFO_TYPE: CMQC.MQAIT_IDPW_OS,
                                    CMQC.MQIA_ADOPT_CONTEXT: CMQCFC.MQADPCTX_YES})
        assert "ADOPTCTX(YES)" in sqm.run_mqsc("DISPLAY AUTHINFO(TEST.AUTHINFO) ALL")
        assert "CHCKCLNT(OPTIONAL)" in sqm.run_mqsc("DISPLAY AUTHINFO(TEST.AUTHINFO) ALL")
        pcf.MQCMD_DELETE_AUTH_INFO({CMQC.MQCA_AUTH_INFO_NAME: b"TEST.AUTHINFO"})
        with pytest.raises(ibmmq.MQMIError) as exc:
            pcf.MQCMD_INQUIRE_AUTH_INFO({CMQC.MQCA_AUTH_INFO_NAME: b"TEST.AUTHINFO"})
        assert reason(exc) == CMQC.MQRC_UNKNOWN_OBJECT_NAME
        pcf.disconnect()


def test_reqdadm_refuses_an_administrator_without_a_password(sqm):
    # TEST.ADM.SVRCONN runs as admin (its MCAUSER) and lets administrators on
    assert refused(sqm, channel="TEST.ADM.SVRCONN") == CMQC.MQRC_NOT_AUTHORIZED
    connect(sqm, "admin", "adminpw", "TEST.ADM.SVRCONN").disconnect()


def test_chckclnt_required_takes_effect_at_refresh_security(sqm):
    # TEST.MAP.SVRCONN lets a client on without a password (REQDADM, not an administrator)
    connect(sqm, channel="TEST.MAP.SVRCONN").disconnect()
    sqm.run_mqsc("ALTER AUTHINFO(DEV.AUTHINFO) AUTHTYPE(IDPWOS) CHCKCLNT(REQUIRED)")
    try:
        connect(sqm, channel="TEST.MAP.SVRCONN").disconnect()   # not until REFRESH SECURITY
        sqm.run_mqsc("REFRESH SECURITY TYPE(CONNAUTH)")
        assert refused(sqm, channel="TEST.MAP.SVRCONN") == CMQC.MQRC_NOT_AUTHORIZED
        connect(sqm, "app", "passw0rd", "TEST.MAP.SVRCONN").disconnect()
    finally:
        sqm.run_mqsc("ALTER AUTHINFO(DEV.AUTHINFO) AUTHTYPE(IDPWOS) CHCKCLNT(REQDADM)\n"
                     "REFRESH SECURITY TYPE(CONNAUTH)")
    connect(sqm, channel="TEST.MAP.SVRCONN").disconnect()


# --- CHLAUTH -------------------------------------------------------------------------------
def test_administrator_is_blocked_on_the_app_channel(sqm):
    assert refused(sqm, "admin", "adminpw") == CMQC.MQRC_NOT_AUTHORIZED


def test_administrator_connects_on_the_admin_channel_with_full_authority(sqm):
    with connected(sqm, "admin", "adminpw", ADMIN_CHANNEL) as connection:
        assert open_reason(connection, "SYSTEM.ADMIN.COMMAND.QUEUE",
                           CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT) == CMQC.MQRC_NONE
        assert open_reason(connection, "SEC.Q1", CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_SET) \
            == CMQC.MQRC_NONE


def test_app_is_refused_on_the_admin_channel_by_the_back_stop_rule(sqm):
    assert refused(sqm, "app", "passw0rd", ADMIN_CHANNEL) == CMQC.MQRC_NOT_AUTHORIZED


def test_system_channels_are_refused(sqm):
    assert refused(sqm, "app", "passw0rd", "SYSTEM.DEF.SVRCONN") == CMQC.MQRC_NOT_AUTHORIZED


def test_usersrc_map_runs_the_connection_as_the_rules_mcauser(sqm):
    with connected(sqm, None, None, "TEST.MAP.SVRCONN") as connection:
        queue = ibmmq.Queue(connection, "DEV.QUEUE.2", CMQC.MQOO_OUTPUT)
        md = ibmmq.MD()
        queue.put(b"mapped", md)
        queue.close()
        assert md.UserIdentifier.rstrip(b"\0 ") == b"app"


def test_usersrc_noaccess_refuses(sqm):
    sqm.run_mqsc("SET CHLAUTH(TEST.MAP.SVRCONN) TYPE(ADDRESSMAP) ADDRESS('127.0.0.1') "
                 "USERSRC(NOACCESS) ACTION(REPLACE)")
    try:   # the more specific address wins over 127.0.0.*
        assert refused(sqm, "app", "passw0rd", "TEST.MAP.SVRCONN") == CMQC.MQRC_NOT_AUTHORIZED
    finally:
        sqm.run_mqsc("SET CHLAUTH(TEST.MAP.SVRCONN) TYPE(ADDRESSMAP) ADDRESS('127.0.0.1') "
                     "ACTION(REMOVE)")
    connect(sqm, "app", "passw0rd", "TEST.MAP.SVRCONN").disconnect()


def test_usermap_matches_the_adopted_user(sqm):
    sqm.run_mqsc("SET CHLAUTH(TEST.MAP.SVRCONN) TYPE(USERMAP) CLNTUSER('bob') USERSRC(NOACCESS) "
                 "ACTION(ADD)")
    try:
        assert refused(sqm, "bob", "bobpw", "TEST.MAP.SVRCONN") == CMQC.MQRC_NOT_AUTHORIZED
        connect(sqm, "app", "passw0rd", "TEST.MAP.SVRCONN").disconnect()
    finally:
        sqm.run_mqsc("SET CHLAUTH(TEST.MAP.SVRCONN) TYPE(USERMAP) CLNTUSER('bob') ACTION(REMOVE)")


def test_blockuser_refuses_the_listed_user(sqm):
    connect(sqm, "bob", "bobpw").disconnect()
    sqm.run_mqsc("SET CHLAUTH(DEV.APP.SVRCONN) TYPE(BLOCKUSER) USERLIST('bob','*MQADMIN') "
                 "ACTION(REPLACE)")
    try:
        assert refused(sqm, "bob", "bobpw") == CMQC.MQRC_NOT_AUTHORIZED
        assert refused(sqm, "admin", "adminpw") == CMQC.MQRC_NOT_AUTHORIZED
        connect(sqm, "app", "passw0rd").disconnect()
    finally:
        sqm.run_mqsc("SET CHLAUTH(DEV.APP.SVRCONN) TYPE(BLOCKUSER) ACTION(REMOVE)")
    connect(sqm, "bob", "bobpw").disconnect()


def test_blockaddr_refuses_every_connection_from_the_address(sqm):
    sqm.run_mqsc("SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('127.0.0.*') ACTION(REPLACE)")
    try:
        assert refused(sqm, "app", "passw0rd") == CMQC.MQRC_NOT_AUTHORIZED
    finally:
        sqm.run_mqsc("SET CHLAUTH('*') TYPE(BLOCKADDR) ACTION(REMOVE)")
    connect(sqm, "app", "passw0rd").disconnect()


def test_chlauth_disabled_turns_the_rules_off(sqm):
    sqm.run_mqsc("ALTER QMGR CHLAUTH(DISABLED)")
    try:
        connect(sqm, "app", "passw0rd", "SYSTEM.DEF.SVRCONN").disconnect()
    finally:
        sqm.run_mqsc("ALTER QMGR CHLAUTH(ENABLED)")
    assert refused(sqm, "app", "passw0rd", "SYSTEM.DEF.SVRCONN") == CMQC.MQRC_NOT_AUTHORIZED


def test_display_chlauth_shows_the_developer_rules(sqm):
    shown = sqm.run_mqsc("DISPLAY CHLAUTH(DEV.ADMIN.SVRCONN)")
    assert "TYPE(BLOCKUSER)" in shown and "USERLIST(nobody)" in shown
    assert "TYPE(USERMAP)" in shown and "CLNTUSER(admin)" in shown
    everything = sqm.run_mqsc("DISPLAY CHLAUTH('*')")
    assert "CHLAUTH(SYSTEM.*)" in everything and "USERSRC(NOACCESS)" in everything
    applied = sqm.run_mqsc("DISPLAY CHLAUTH(DEV.APP.SVRCONN) MATCH(RUNCHECK) ADDRESS('10.1.2.3') "
                           "CLNTUSER('x')")
    assert "CHLAUTH(DEV.APP.SVRCONN)" in applied and "USERSRC(CHANNEL)" in applied


# --- authority records ---------------------------------------------------------------------
def test_a_user_without_connect_authority_is_2035_until_granted(sqm):
    assert refused(sqm, "carol", "carolpw") == CMQC.MQRC_NOT_AUTHORIZED
    sqm.run_mqsc("SET AUTHREC GROUP('devs') OBJTYPE(QMGR) AUTHADD(CONNECT)")
    try:
        connect(sqm, "carol", "carolpw").disconnect()
    finally:
        sqm.run_mqsc("SET AUTHREC GROUP('devs') OBJTYPE(QMGR) AUTHRMV(CONNECT)")
    assert refused(sqm, "carol", "carolpw") == CMQC.MQRC_NOT_AUTHORIZED


def test_app_uses_the_dev_queues(sqm):
    with connected(sqm) as connection:
        queue = ibmmq.Queue(connection, "DEV.QUEUE.3", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED
                            | CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE)
        queue.put(b"hello")
        assert queue.get() == b"hello"
        assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 0
        queue.close()
        assert connection.inquire(CMQC.MQCA_Q_MGR_NAME).strip() == sqm.name.encode()


@pytest.mark.parametrize("options", [
    CMQC.MQOO_OUTPUT, CMQC.MQOO_INPUT_SHARED, CMQC.MQOO_BROWSE, CMQC.MQOO_INQUIRE,
])
def test_open_without_authority_is_2035(sqm, options):
    with connected(sqm) as connection:
        assert open_reason(connection, "SEC.Q1", options) == CMQC.MQRC_NOT_AUTHORIZED


@pytest.mark.parametrize("options", [
    CMQC.MQOO_SET, CMQC.MQOO_SET_IDENTITY_CONTEXT, CMQC.MQOO_SET_ALL_CONTEXT,
    CMQC.MQOO_PASS_IDENTITY_CONTEXT, CMQC.MQOO_PASS_ALL_CONTEXT,
    CMQC.MQOO_ALTERNATE_USER_AUTHORITY,
])
def test_set_context_and_alternate_user_options_need_their_authority(sqm, options):
    with connected(sqm) as connection:
        assert open_reason(connection, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT | options) \
            == CMQC.MQRC_NOT_AUTHORIZED


def test_an_alias_is_checked_by_its_own_name(sqm):
    with connected(sqm) as connection:   # DEV.** covers the alias, not its target SEC.Q1
        assert open_reason(connection, "DEV.ALIAS.SEC", CMQC.MQOO_OUTPUT) == CMQC.MQRC_NONE


def test_authadd_and_authrmv_change_what_app_may_do(sqm):
    with connected(sqm) as connection:
        sqm.run_mqsc("SET AUTHREC PROFILE('SEC.*') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(PUT)")
        try:
            assert open_reason(connection, "SEC.Q1", CMQC.MQOO_OUTPUT) == CMQC.MQRC_NONE
            assert open_reason(connection, "SEC.Q1", CMQC.MQOO_INPUT_SHARED) \
                == CMQC.MQRC_NOT_AUTHORIZED
            sqm.run_mqsc("SET AUTHREC PROFILE('SEC.*') PRINCIPAL('app') OBJTYPE(QUEUE) "
                         "AUTHADD(ALLMQI) AUTHRMV(PUT)")
            assert open_reason(connection, "SEC.Q1", CMQC.MQOO_INPUT_SHARED) == CMQC.MQRC_NONE
            assert open_reason(connection, "SEC.Q1", CMQC.MQOO_OUTPUT) == CMQC.MQRC_NOT_AUTHORIZED
            shown = sqm.run_mqsc("DISPLAY AUTHREC PROFILE('SEC.*') OBJTYPE(QUEUE)")
            assert "ENTITY(app)" in shown and "GET" in shown and ",PUT" not in shown
        finally:
            sqm.run_mqsc("DELETE AUTHREC PROFILE('SEC.*') PRINCIPAL('app') OBJTYPE(QUEUE)")
        assert open_reason(connection, "SEC.Q1", CMQC.MQOO_INPUT_SHARED) == CMQC.MQRC_NOT_AUTHORIZED


def test_generic_star_profile_covers_one_qualifier(sqm):
    sqm.run_mqsc("SET AUTHREC PROFILE('*') PRINCIPAL('bob') OBJTYPE(QUEUE) AUTHADD(BROWSE)")
    try:
        with connected(sqm, "bob", "bobpw") as connection:
            assert open_reason(connection, "SECQ", CMQC.MQOO_BROWSE) == CMQC.MQRC_NONE
            assert open_reason(connection, "SEC.Q1", CMQC.MQOO_BROWSE) == CMQC.MQRC_NOT_AUTHORIZED
    finally:
        sqm.run_mqsc("DELETE AUTHREC PROFILE('*') PRINCIPAL('bob') OBJTYPE(QUEUE)")


def test_the_most_specific_profile_counts(sqm):
    sqm.run_mqsc("SET AUTHREC PROFILE('SPEC.**') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(ALL)\n"
                 "SET AUTHREC PROFILE('SPEC.Q1') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(BROWSE)")
    try:
        with connected(sqm) as connection:
            assert open_reason(connection, "SPEC.Q1", CMQC.MQOO_BROWSE) == CMQC.MQRC_NONE
            assert open_reason(connection, "SPEC.Q1", CMQC.MQOO_OUTPUT) == CMQC.MQRC_NOT_AUTHORIZED
    finally:
        sqm.run_mqsc("DELETE AUTHREC PROFILE('SPEC.**') PRINCIPAL('app') OBJTYPE(QUEUE)\n"
                     "DELETE AUTHREC PROFILE('SPEC.Q1') PRINCIPAL('app') OBJTYPE(QUEUE)")


def test_put1_needs_put_and_its_context_authority(sqm):
    with connected(sqm) as connection:
        with pytest.raises(ibmmq.MQMIError) as exc:
            connection.put1("SEC.Q1", b"x")
        assert reason(exc) == CMQC.MQRC_NOT_AUTHORIZED
        connection.put1("DEV.QUEUE.2", b"x")
        with pytest.raises(ibmmq.MQMIError) as exc:
            connection.put1("DEV.QUEUE.2", b"x", ibmmq.MD(),
                            ibmmq.PMO(Options=CMQC.MQPMO_SET_IDENTITY_CONTEXT))
        assert reason(exc) == CMQC.MQRC_NOT_AUTHORIZED


def test_the_creator_of_a_dynamic_queue_may_use_it(sqm):
    with connected(sqm) as connection:
        od = ibmmq.OD(ObjectName=b"DEV.APP.MODEL.QUEUE", DynamicQName=b"APPREPLY.*")
        queue = ibmmq.Queue(connection, od, CMQC.MQOO_INPUT_EXCLUSIVE)
        name = od.ObjectName.rstrip(b"\0 ").decode()
        assert open_reason(connection, name, CMQC.MQOO_OUTPUT) == CMQC.MQRC_NONE
        queue.close()
    with connected(sqm, "bob", "bobpw") as other:
        assert open_reason(other, "SYSTEM.DEFAULT.MODEL.QUEUE", CMQC.MQOO_INPUT_EXCLUSIVE) \
            == CMQC.MQRC_NOT_AUTHORIZED


def test_pcf_authority_records_are_the_ones_enforced(sqm):
    with connected(sqm, "admin", "adminpw", ADMIN_CHANNEL) as admin:
        pcf = ibmmq.PCFExecute(admin, response_wait_interval=10000)
        pcf.MQCMD_SET_AUTH_REC({CMQCFC.MQCACF_AUTH_PROFILE_NAME: b"SEC.Q1",
                                CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q,
                                CMQCFC.MQIACF_AUTH_ADD_AUTHS: [CMQCFC.MQAUTH_BROWSE],
                                CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES: [b"app"]})
        try:
            assert "PROFILE(SEC.Q1)" in sqm.run_mqsc("DISPLAY AUTHREC PROFILE(SEC.Q1) OBJTYPE(QUEUE)")
            with connected(sqm) as connection:
                assert open_reason(connection, "SEC.Q1", CMQC.MQOO_BROWSE) == CMQC.MQRC_NONE
        finally:
            pcf.MQCMD_DELETE_AUTH_REC({CMQCFC.MQCACF_AUTH_PROFILE_NAME: b"SEC.Q1",
                                       CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q,
                                       CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES: [b"app"]})
        with connected(sqm) as connection:
            assert open_reason(connection, "SEC.Q1", CMQC.MQOO_BROWSE) == CMQC.MQRC_NOT_AUTHORIZED
        pcf.disconnect()


def test_security_definitions_survive_a_restart(tmp_path):
    manager = embedded.EmbeddedQueueManager(str(tmp_path), name="QMSECR", users={"app": "pw"})
    with manager:
        manager.run_mqsc("DEFINE QLOCAL(KEPT.Q)\n"
                         "SET AUTHREC PROFILE('KEPT.*') GROUP('mqclient') OBJTYPE(QUEUE) AUTHADD(PUT)\n"
                         "SET CHLAUTH(DEV.APP.SVRCONN) TYPE(BLOCKUSER) USERLIST('eve') ACTION(ADD)")
        manager.stop()
        manager.start()
        with connected(manager, "app", "pw") as connection:
            assert open_reason(connection, "KEPT.Q", CMQC.MQOO_OUTPUT) == CMQC.MQRC_NONE
        assert "USERLIST(eve)" in manager.run_mqsc("DISPLAY CHLAUTH(DEV.APP.SVRCONN) TYPE(BLOCKUSER)")
        assert "CONNAUTH(DEV.AUTHINFO)" in manager.run_mqsc("DISPLAY QMGR CONNAUTH")


# --- without users: no security at all -------------------------------------------------------
def test_without_users_every_channel_and_queue_is_open(qm):
    connection = ibmmq.connect(qm.name, "SYSTEM.DEF.SVRCONN", qm.conn_name)
    try:
        assert open_reason(connection, "SYSTEM.ADMIN.COMMAND.QUEUE",
                           CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT) == CMQC.MQRC_NONE
    finally:
        connection.disconnect()
    connection = ibmmq.connect(qm.name, qm.channel, qm.conn_name, user="anyone", password="x")
    connection.disconnect()


# --- alternate user authority (MQOD/MQSD AlternateUserId) ----------------------------------
@contextlib.contextmanager
def granted(qm, *records: str):
    """SET AUTHREC ... AUTHADD(...) for the test, removed afterwards (AUTHADD -> AUTHRMV)."""
    qm.run_mqsc("\n".join(records))
    try:
        yield
    finally:
        qm.run_mqsc("\n".join(record.replace("AUTHADD", "AUTHRMV") for record in records))


APP_ALTUSR = "SET AUTHREC PRINCIPAL('app') OBJTYPE(QMGR) AUTHADD(ALTUSR)"


def open_as(connection, name, options, alternate_user, object_type=CMQC.MQOT_Q) -> int:
    od = ibmmq.OD(ObjectType=object_type, ObjectName=name.encode(),
                  AlternateUserId=alternate_user.encode())
    return open_reason(connection, od, options)


def test_alternate_user_opens_are_checked_for_the_alternate_user(sqm):
    with granted(sqm, APP_ALTUSR), connected(sqm) as connection:
        # carol holds nothing on SEC.Q1 (nor does app); app itself may use DEV.QUEUE.1
        assert open_as(connection, "SEC.Q1", CMQC.MQOO_OUTPUT | CMQC.MQOO_ALTERNATE_USER_AUTHORITY,
                       "carol") == CMQC.MQRC_NOT_AUTHORIZED
        assert open_as(connection, "DEV.QUEUE.1",
                       CMQC.MQOO_OUTPUT | CMQC.MQOO_ALTERNATE_USER_AUTHORITY,
                       "carol") == CMQC.MQRC_NOT_AUTHORIZED
        with granted(sqm, "SET AUTHREC PROFILE('SEC.Q1') PRINCIPAL('carol') OBJTYPE(QUEUE) "
                          "AUTHADD(PUT)"):
            od = ibmmq.OD(ObjectName=b"SEC.Q1", AlternateUserId=b"carol")
            queue = ibmmq.Queue(connection, od, CMQC.MQOO_OUTPUT | CMQC.MQOO_ALTERNATE_USER_AUTHORITY)
            md = ibmmq.MD()
            queue.put(b"as carol", md)
            queue.close()
            # on Unix the alternate user only decides the open: the message is still app's
            assert md.UserIdentifier.rstrip(b"\0 ") == b"app"
            assert open_as(connection, "SEC.Q1",
                           CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_ALTERNATE_USER_AUTHORITY,
                           "carol") == CMQC.MQRC_NOT_AUTHORIZED
    with connected(sqm, "admin", "adminpw", ADMIN_CHANNEL) as admin:
        assert drain_bodies(admin, "SEC.Q1") == [b"as carol"]


def drain_bodies(connection, name) -> list[bytes]:
    queue = ibmmq.Queue(connection, name, CMQC.MQOO_INPUT_SHARED)
    bodies = []
    try:
        while True:
            bodies.append(queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT)))
    except ibmmq.MQMIError as exc:
        assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    finally:
        queue.close()
    return bodies


def test_alternate_user_authority_needs_altusr(sqm):
    with connected(sqm) as connection:   # admin may open anything: app may not act as admin
        assert open_as(connection, "SEC.Q1", CMQC.MQOO_OUTPUT | CMQC.MQOO_ALTERNATE_USER_AUTHORITY,
                       "admin") == CMQC.MQRC_NOT_AUTHORIZED
        with granted(sqm, APP_ALTUSR):
            assert open_as(connection, "SEC.Q1",
                           CMQC.MQOO_OUTPUT | CMQC.MQOO_ALTERNATE_USER_AUTHORITY,
                           "admin") == CMQC.MQRC_NONE
            # the queue manager object too, checked for the alternate user
            assert open_as(connection, "", CMQC.MQOO_INQUIRE | CMQC.MQOO_ALTERNATE_USER_AUTHORITY,
                           "carol", CMQC.MQOT_Q_MGR) == CMQC.MQRC_NOT_AUTHORIZED
            assert open_as(connection, "", CMQC.MQOO_INQUIRE | CMQC.MQOO_ALTERNATE_USER_AUTHORITY,
                           "bob", CMQC.MQOT_Q_MGR) == CMQC.MQRC_NONE


def test_without_the_option_the_alternate_user_id_is_ignored(sqm):
    with connected(sqm) as connection:
        assert open_as(connection, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT, "carol") == CMQC.MQRC_NONE
        assert open_as(connection, "SEC.Q1", CMQC.MQOO_OUTPUT, "admin") == CMQC.MQRC_NOT_AUTHORIZED


def test_a_blank_alternate_user_may_open_only_what_needs_no_authority(sqm):
    with granted(sqm, APP_ALTUSR), connected(sqm) as connection:
        assert open_as(connection, "DEV.QUEUE.1",
                       CMQC.MQOO_OUTPUT | CMQC.MQOO_ALTERNATE_USER_AUTHORITY,
                       "") == CMQC.MQRC_NOT_AUTHORIZED


def test_context_authority_stays_the_connections_own(sqm):
    with granted(sqm, APP_ALTUSR), connected(sqm) as connection:
        # admin holds every authority, but SETID is checked for app, which lacks it
        assert open_as(connection, "DEV.QUEUE.1",
                       CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_IDENTITY_CONTEXT
                       | CMQC.MQOO_ALTERNATE_USER_AUTHORITY, "admin") == CMQC.MQRC_NOT_AUTHORIZED


def test_put1_with_an_alternate_user(sqm):
    pmo = ibmmq.PMO(Options=CMQC.MQPMO_ALTERNATE_USER_AUTHORITY)
    with connected(sqm) as connection:
        od = ibmmq.OD(ObjectName=b"SEC.Q1", AlternateUserId=b"admin")
        with pytest.raises(ibmmq.MQMIError) as exc:   # app lacks ALTUSR
            connection.put1(od, b"x", ibmmq.MD(), pmo)
        assert reason(exc) == CMQC.MQRC_NOT_AUTHORIZED
        with granted(sqm, APP_ALTUSR):
            with pytest.raises(ibmmq.MQMIError) as exc:   # carol lacks PUT on SEC.Q1
                connection.put1(ibmmq.OD(ObjectName=b"SEC.Q1", AlternateUserId=b"carol"), b"x",
                                ibmmq.MD(), pmo)
            assert reason(exc) == CMQC.MQRC_NOT_AUTHORIZED
            connection.put1(od, b"as admin", ibmmq.MD(), pmo)
    with connected(sqm, "admin", "adminpw", ADMIN_CHANNEL) as admin:
        assert drain_bodies(admin, "SEC.Q1") == [b"as admin"]


def test_a_subscription_with_an_alternate_user_is_that_users(sqm):
    sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_NON_DURABLE
                  | CMQC.MQSO_ALTERNATE_USER_AUTHORITY, AlternateUserId=b"carol")
    sd.set_vs("ObjectString", "alt/user/topic")
    with granted(sqm, APP_ALTUSR), connected(sqm) as connection:
        with pytest.raises(ibmmq.MQMIError) as exc:   # carol may not subscribe
            ibmmq.Subscription(connection).sub(sub_desc=sd)
        assert reason(exc) == CMQC.MQRC_NOT_AUTHORIZED
        with granted(sqm, "SET AUTHREC PROFILE('SYSTEM.BASE.TOPIC') PRINCIPAL('carol') "
                          "OBJTYPE(TOPIC) AUTHADD(SUB)"):
            subscription = ibmmq.Subscription(connection)
            subscription.sub(sub_desc=sd)
            assert "SUBUSER(carol)" in sqm.run_mqsc("DISPLAY SBSTATUS(*) SUBUSER")
            subscription.close()


# --- FAILDLAY: a wrong password is answered late, without holding up anyone else ----------
@contextlib.contextmanager
def fail_delay(qm, seconds: int):
    qm.run_mqsc(f"ALTER AUTHINFO(DEV.AUTHINFO) AUTHTYPE(IDPWOS) FAILDLAY({seconds})\n"
                "REFRESH SECURITY TYPE(CONNAUTH)")
    try:
        yield
    finally:
        qm.run_mqsc("ALTER AUTHINFO(DEV.AUTHINFO) AUTHTYPE(IDPWOS) FAILDLAY(1)\n"
                    "REFRESH SECURITY TYPE(CONNAUTH)")


def test_a_wrong_password_is_answered_after_faildlay(sqm):
    with fail_delay(sqm, 1):
        started = time.monotonic()
        assert refused(sqm, "app", "wrong") == CMQC.MQRC_NOT_AUTHORIZED
        assert time.monotonic() - started >= 0.9   # a lower bound only: MQ waits FAILDLAY


def test_a_failed_password_does_not_hold_up_other_connections(sqm):
    with fail_delay(sqm, 3):
        # the failing connect is on the wire before the good one starts
        bad = socket.create_connection(("127.0.0.1", sqm.port))
        try:
            bad.sendall(wire.frame(["CONN", sqm.name, "app", "wrong", "faildlay", APP_CHANNEL]))
            connect(sqm, "app", "passw0rd").disconnect()
            readable, _, _ = select.select([bad], [], [], 0)
            assert not readable   # the good connect is done while the bad one still waits
            bad.settimeout(30)
            assert wire.recv_frame(bad) == [CMQC.MQCC_FAILED, CMQC.MQRC_NOT_AUTHORIZED]
        finally:
            bad.close()
