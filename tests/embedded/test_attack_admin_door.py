"""Attack: the administrative door. There is one, the command server (PCF Escape on
SYSTEM.ADMIN.COMMAND.QUEUE), reached only over an authenticated connection: the old MQSC
wire verb is gone, a configured user who is no administrator cannot grant itself authority
or lock the administrator out, wrong administrator passwords wait out FAILDLAY, and every
administrative command is logged with who, what and from where. Real processes, raw frames."""
from __future__ import annotations

import select
import socket

import ibmmq
import pytest
from ibmmq import CMQC

import spark_mq.embedded as embedded
from spark_mq.embedded import wire, wire_verbs
from spark_mq.embedded.client import admin

ADMIN_CHANNEL = "DEV.ADMIN.SVRCONN"
APP_CHANNEL = "DEV.APP.SVRCONN"
USERS = {"app": "passw0rd", "admin": "adminpw"}


@pytest.fixture(scope="module")
def sqm(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmdoor")), name="QMDOOR",
                                       users=USERS) as manager:
        # app may send commands (PUT on the command queue) and display the queue manager,
        # as in test_command_authority: what it may then do is the command server's to check
        manager.run_mqsc("""
            DEFINE QLOCAL(DOOR.SECRET) REPLACE
            SET AUTHREC PROFILE('SYSTEM.ADMIN.COMMAND.QUEUE') PRINCIPAL('app') OBJTYPE(QUEUE) +
                AUTHADD(PUT,DSP)
            SET AUTHREC PRINCIPAL('app') OBJTYPE(QMGR) AUTHADD(DSP)
        """)
        yield manager


def raw(qm) -> socket.socket:
    return socket.create_connection((qm.host, qm.port), timeout=10)


def closed_by_server(sock: socket.socket) -> bool:
    sock.settimeout(10)
    try:
        return sock.recv(65536) == b""
    except ConnectionResetError:
        return True


def app_session(qm):
    return admin.session_on_channel(qm.host, qm.port, "app", "passw0rd", APP_CHANNEL,
                                    model="DEV.APP.MODEL.QUEUE", qm_name=qm.name)


def can_browse_secret(qm) -> bool:
    connection = ibmmq.connect(qm.name, APP_CHANNEL, qm.conn_name, user="app", password="passw0rd")
    try:
        ibmmq.Queue(connection, "DOOR.SECRET", CMQC.MQOO_BROWSE).close()
        return True
    except ibmmq.MQMIError as exc:
        assert exc.reason == CMQC.MQRC_NOT_AUTHORIZED
        return False
    finally:
        connection.disconnect()


# --- the old wire verb ---------------------------------------------------------------------
@pytest.mark.parametrize("user,password", [("admin", "adminpw"), ("app", "passw0rd"), ("", "")])
def test_the_old_mqsc_verb_is_an_unknown_verb(sqm, user, password):
    sock = raw(sqm)
    try:
        sock.sendall(wire.frame(["MQSC", "DEFINE QLOCAL(DOOR.BY.VERB)", user, password]))
        assert closed_by_server(sock)   # a protocol error: the connection is dropped, nothing run
    finally:
        sock.close()
    with pytest.raises(embedded.EmbeddedQueueManagerError, match="AMQ8147E"):
        sqm.run_mqsc("DISPLAY QLOCAL(DOOR.BY.VERB)")


def test_the_old_mqsc_verb_is_unknown_after_conn_too(sqm):
    sock = raw(sqm)
    try:
        sock.sendall(wire.frame(["CONN", sqm.name, "admin", "adminpw", "attack", ADMIN_CHANNEL]))
        assert wire.recv_frame(sock)[:2] == [CMQC.MQCC_OK, CMQC.MQRC_NONE]
        sock.sendall(wire.frame(["MQSC", "DEFINE QLOCAL(DOOR.BY.VERB2)", "admin", "adminpw"]))
        assert closed_by_server(sock)
    finally:
        sock.close()
    with pytest.raises(embedded.EmbeddedQueueManagerError, match="AMQ8147E"):
        sqm.run_mqsc("DISPLAY QLOCAL(DOOR.BY.VERB2)")


# --- a user who is no administrator ----------------------------------------------------------
@pytest.mark.parametrize("command", [
    "SET AUTHREC PROFILE('DOOR.SECRET') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(ALL)",
    "SET AUTHREC PRINCIPAL('app') OBJTYPE(QMGR) AUTHADD(ALL)",
    "SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('127.0.0.*') ACTION(REPLACE)",
    "SET CHLAUTH(DEV.ADMIN.SVRCONN) TYPE(BLOCKUSER) USERLIST('admin') ACTION(REPLACE)",
    "ALTER QMGR CONNAUTH(' ')",
    "DEFINE QLOCAL(DOOR.BY.APP)",
])
def test_app_is_refused_2035_by_the_command_server(sqm, command):
    with app_session(sqm) as session:
        ok, output = session.command(command)
    assert not ok
    assert f"{CMQC.MQRC_NOT_AUTHORIZED} MQRC_NOT_AUTHORIZED" in output and "AMQ8135E" in output
    # nothing changed: app still cannot browse, the administrator still gets in
    assert not can_browse_secret(sqm)
    ok, output = admin.run_mqsc(sqm.host, sqm.port, "DISPLAY QMGR CONNAUTH CHLAUTH", "admin",
                                "adminpw")
    assert ok and "CONNAUTH(DEV.AUTHINFO)" in output and "CHLAUTH(ENABLED)" in output, output


def test_the_refusal_is_the_pcf_reason_the_command_server_answers(sqm):
    """The reply itself, as IBM's command server sends it: MQCC_FAILED, MQRC_NOT_AUTHORIZED."""
    with app_session(sqm) as session:
        hobj, _ = session.command_queue
        request = admin.default_md(MsgType=CMQC.MQMT_REQUEST, Format=CMQC.MQFMT_ADMIN,
                                   ReplyToQ=session.reply_queue[1].encode())
        reply = session.conn.call(wire_verbs.PUT, hobj, admin.MD.pack(request),
                                  CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_NEW_MSG_ID, 0, None,
                                  admin._escape("SET AUTHREC PRINCIPAL('app') OBJTYPE(QMGR) "
                                                "AUTHADD(ALL)"))
        header, texts = session._answer(admin.MD.get(reply[2], "MsgId"))
    assert header[6:8] == (CMQC.MQCC_FAILED, CMQC.MQRC_NOT_AUTHORIZED)


def test_app_without_put_on_the_command_queue_cannot_even_send(sqm):
    sqm.run_mqsc("SET AUTHREC PROFILE('SYSTEM.ADMIN.COMMAND.QUEUE') PRINCIPAL('app') "
                 "OBJTYPE(QUEUE) AUTHRMV(PUT)")
    try:
        with pytest.raises(admin.MQSCRefused) as exc:
            with app_session(sqm):
                pass
        assert exc.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    finally:
        sqm.run_mqsc("SET AUTHREC PROFILE('SYSTEM.ADMIN.COMMAND.QUEUE') PRINCIPAL('app') "
                     "OBJTYPE(QUEUE) AUTHADD(PUT)")


def test_app_on_the_admin_channel_is_refused_by_chlauth(sqm):
    ok, output = admin.run_mqsc(sqm.host, sqm.port, "DISPLAY QMGR", "app", "passw0rd")
    assert not ok and "2035" in output


def test_no_credentials_on_the_admin_channel_are_refused(sqm):
    ok, output = admin.run_mqsc(sqm.host, sqm.port, "DISPLAY QMGR")
    assert not ok and "2035" in output


# --- FAILDLAY on the administrator's password ------------------------------------------------
def test_wrong_admin_passwords_wait_out_faildlay(sqm):
    sqm.run_mqsc("ALTER AUTHINFO(DEV.AUTHINFO) AUTHTYPE(IDPWOS) FAILDLAY(3)\n"
                 "REFRESH SECURITY TYPE(CONNAUTH)")
    try:
        guesses = [raw(sqm) for _ in range(3)]
        try:
            for guess, password in zip(guesses, ("admin", "passw0rd", "123456")):
                guess.sendall(wire.frame(["CONN", sqm.name, "admin", password, "guess",
                                          ADMIN_CHANNEL]))
            # the right password, sent after every guess, is answered before any of them
            ok, output = admin.run_mqsc(sqm.host, sqm.port, "PING QMGR", "admin", "adminpw")
            assert ok, output
            readable, _, _ = select.select(guesses, [], [], 0)
            assert not readable
            for guess in guesses:
                assert wire.recv_frame(guess) == [CMQC.MQCC_FAILED, CMQC.MQRC_NOT_AUTHORIZED]
        finally:
            for guess in guesses:
                guess.close()
    finally:
        sqm.run_mqsc("ALTER AUTHINFO(DEV.AUTHINFO) AUTHTYPE(IDPWOS) FAILDLAY(1)\n"
                     "REFRESH SECURITY TYPE(CONNAUTH)")


# --- the log ---------------------------------------------------------------------------------
def test_administrative_commands_are_logged_with_who_what_and_where(sqm):
    ok, output = admin.run_mqsc(sqm.host, sqm.port, "DEFINE QLOCAL(DOOR.LOGGED) REPLACE",
                                "admin", "adminpw")
    assert ok, output
    with app_session(sqm) as session:
        session.command("DELETE QLOCAL(DOOR.LOGGED)")
    with open(f"{sqm.data_dir}/qmgr.log", encoding="utf-8") as handle:
        lines = [line for line in handle if "administrative command" in line]
    done = [line for line in lines if "DEFINE QLOCAL(DOOR.LOGGED)" in line]
    assert done and "user 'admin'" in done[-1] and "channel DEV.ADMIN.SVRCONN from 127.0.0.1" \
        in done[-1] and done[-1].rstrip().endswith("done"), done
    refused = [line for line in lines if "DELETE QLOCAL(DOOR.LOGGED)" in line]
    assert refused and "user 'app'" in refused[-1] and "channel DEV.APP.SVRCONN" in refused[-1] \
        and "reason 2035" in refused[-1], refused
    assert not [line for line in lines if "DISPLAY" in line]   # inquiries change nothing
