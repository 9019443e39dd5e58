"""Attack: claiming bindings mode. A connection without a channel is a bindings connection, and
only the Unix-domain socket in the (0700) data directory takes one, with the user the OS gives
for the process at the other end (SO_PEERCRED); over TCP, loopback included, a channel is
always needed. CHCKLOCL applies to bindings connections. Real processes, raw frames."""
from __future__ import annotations

import os
import pwd
import socket
import stat

import ibmmq
import pytest
from ibmmq import CMQC

import spark_mq.embedded as embedded
from spark_mq.embedded import wire, wire_verbs
from spark_mq.embedded.client import connection as client_connection

USERS = {"app": "passw0rd", "admin": "adminpw"}
ME = pwd.getpwuid(os.getuid()).pw_name


def raw_tcp(qm) -> socket.socket:
    return socket.create_connection((qm.host, qm.port), timeout=10)


def raw_bindings(qm) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    client_connection.connect_unix(sock, qm.bindings_socket)
    return sock


@pytest.fixture(scope="module")
def sqm(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmbind")), name="QMBIND",
                                       users=USERS) as manager:
        yield manager


# --- TCP ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("user,password", [("", ""), ("app", "passw0rd"), ("admin", "adminpw")])
def test_a_tcp_conn_without_a_channel_is_refused_even_from_loopback(qm, sqm, user, password):
    for manager in (qm, sqm):   # open or secured alike
        sock = raw_tcp(manager)
        try:
            sock.sendall(wire.frame(["CONN", manager.name, user, password, "attack", None]))
            assert wire.recv_frame(sock) == [CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_CHANNEL_NAME]
        finally:
            sock.close()


def test_a_refused_tcp_conn_leaves_no_connection_to_use(qm, make_queue):
    name = make_queue()
    sock = raw_tcp(qm)
    try:
        sock.sendall(wire.frame(["CONN", qm.name, "", "", "attack", None]))
        wire.recv_frame(sock)
        sock.sendall(wire.frame(["OPEN", CMQC.MQOT_Q, name, CMQC.MQOO_OUTPUT, None, "", "", ""]))
        assert wire.recv_frame(sock) == [CMQC.MQCC_FAILED, CMQC.MQRC_HCONN_ERROR]
    finally:
        sock.close()


# --- the bindings socket -----------------------------------------------------------------------
def test_the_socket_is_the_owners_only(qm):
    directory = os.stat(qm.data_dir)
    assert stat.S_IMODE(directory.st_mode) == 0o700
    found = os.stat(qm.bindings_socket)
    assert stat.S_ISSOCK(found.st_mode) and stat.S_IMODE(found.st_mode) == 0o600
    assert found.st_uid == os.getuid()


def test_a_bindings_connection_runs_as_the_peers_os_user(qm, make_queue):
    name = make_queue()
    sock = raw_bindings(qm)
    try:
        # whatever user the client claims without a password, the OS names it
        sock.sendall(wire.frame(["CONN", qm.name, "", "", "attack", None]))
        assert wire.recv_frame(sock)[:2] == [CMQC.MQCC_OK, CMQC.MQRC_NONE]
    finally:
        sock.close()
    connection = ibmmq.connect(qm.name)     # a connect without a channel: the socket
    try:
        connection.put1(name, b"who")
        md = ibmmq.MD()
        ibmmq.Queue(connection, name, CMQC.MQOO_INPUT_SHARED).get(None, md)
    finally:
        connection.disconnect()
    assert md.UserIdentifier.decode().strip() == ME[:12]


def test_a_second_queue_manager_of_the_same_name_gives_the_name_back_when_it_stops(
        qm, make_queue, tmp_path):
    """A connect without a channel reaches the queue manager of that name this process
    started last, and the one before it again once that one stops."""
    mine = make_queue()
    with embedded.EmbeddedQueueManager(str(tmp_path / "second"), name=qm.name) as second:
        second.run_mqsc("DEFINE QLOCAL(ONLY.ON.THE.SECOND)")
        connection = ibmmq.connect(qm.name)
        try:
            ibmmq.Queue(connection, "ONLY.ON.THE.SECOND", CMQC.MQOO_OUTPUT).close()
        finally:
            connection.disconnect()
    connection = ibmmq.connect(qm.name)
    try:
        ibmmq.Queue(connection, mine, CMQC.MQOO_OUTPUT).close()
        with pytest.raises(ibmmq.MQMIError) as refused:
            ibmmq.Queue(connection, "ONLY.ON.THE.SECOND", CMQC.MQOO_OUTPUT)
        assert refused.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    finally:
        connection.disconnect()


def test_the_bindings_socket_takes_no_channel(qm):
    sock = raw_bindings(qm)
    try:
        sock.sendall(wire.frame(["CONN", qm.name, "", "", "attack", "DEV.APP.SVRCONN"]))
        assert wire.recv_frame(sock) == [CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_CHANNEL_NAME]
    finally:
        sock.close()


def bindings_conn(qm, user: str, password: str) -> list:
    conn, reply = client_connection.connect_bindings(qm.bindings_socket, qm.name, user, password,
                                                     "attack")
    if conn is not None:
        conn.call(wire_verbs.DISC)
        conn.sock.close()
    return reply[:2]


def test_a_bindings_connection_has_the_authority_of_its_os_user(sqm):
    """Without a password a bindings connection runs as the process's OS user: that user, not
    one the client names, needs CONNECT (and is no administrator: no command queue)."""
    refused = [CMQC.MQCC_FAILED, CMQC.MQRC_NOT_AUTHORIZED]
    assert bindings_conn(sqm, "", "") == refused
    sqm.run_mqsc(f"SET AUTHREC PRINCIPAL('{ME}') OBJTYPE(QMGR) AUTHADD(CONNECT)")
    try:
        conn, reply = client_connection.connect_bindings(sqm.bindings_socket, sqm.name, "", "",
                                                         "attack")
        assert conn is not None, reply
        try:
            reply = conn.call(wire_verbs.OPEN, CMQC.MQOT_Q, "SYSTEM.ADMIN.COMMAND.QUEUE",
                              CMQC.MQOO_OUTPUT, None, "", "", "")
            assert reply[:2] == refused
        finally:
            conn.call(wire_verbs.DISC)
            conn.sock.close()
    finally:
        sqm.run_mqsc(f"SET AUTHREC PRINCIPAL('{ME}') OBJTYPE(QMGR) AUTHRMV(CONNECT)")
    assert bindings_conn(sqm, "", "") == refused


def test_chcklocl_applies_to_bindings_connections(sqm):
    ok = [CMQC.MQCC_OK, CMQC.MQRC_NONE]
    refused = [CMQC.MQCC_FAILED, CMQC.MQRC_NOT_AUTHORIZED]
    sqm.run_mqsc(f"SET AUTHREC PRINCIPAL('{ME}') OBJTYPE(QMGR) AUTHADD(CONNECT)")
    try:
        assert bindings_conn(sqm, "", "") == ok                 # CHCKLOCL(OPTIONAL)
        assert bindings_conn(sqm, "app", "wrong") == refused    # a password given is checked
        sqm.run_mqsc("ALTER AUTHINFO(DEV.AUTHINFO) AUTHTYPE(IDPWOS) CHCKLOCL(REQUIRED)\n"
                     "REFRESH SECURITY TYPE(CONNAUTH)")
        try:
            assert bindings_conn(sqm, "", "") == refused
            assert bindings_conn(sqm, "app", "passw0rd") == ok
        finally:
            sqm.run_mqsc("ALTER AUTHINFO(DEV.AUTHINFO) AUTHTYPE(IDPWOS) CHCKLOCL(OPTIONAL)\n"
                         "REFRESH SECURITY TYPE(CONNAUTH)")
    finally:
        sqm.run_mqsc(f"SET AUTHREC PRINCIPAL('{ME}') OBJTYPE(QMGR) AUTHRMV(CONNECT)")


def test_chlauth_does_not_apply_to_bindings(sqm):
    sqm.run_mqsc("SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('127.0.0.*') ACTION(REPLACE)")
    try:
        assert bindings_conn(sqm, "app", "passw0rd") == [CMQC.MQCC_OK, CMQC.MQRC_NONE]
        with pytest.raises(ibmmq.MQMIError) as exc:
            ibmmq.connect(sqm.name, "DEV.APP.SVRCONN", sqm.conn_name, user="app",
                          password="passw0rd")
        assert exc.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    finally:
        sqm.run_mqsc("SET CHLAUTH('*') TYPE(BLOCKADDR) ACTION(REMOVE)")
