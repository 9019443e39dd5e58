"""Client connection configuration as IBM MQ's client does it (issue 10), through the ibmmq API:
server-connection channels (DEFINE/ALTER/DELETE/DISPLAY CHANNEL, MQRC_UNKNOWN_CHANNEL_NAME),
the JSON CCDT (MQCCDTURL, MQCNO.CCDTUrl), MQSERVER, queue manager groups (`*QM1`),
connection-name lists and the reasons an unreachable endpoint gives."""
from __future__ import annotations

import json
import os
import random
import socket
import threading

import ibmmq
import pytest
from ibmmq import CMQC

import spark_mq.embedded as embedded
from spark_mq.embedded import EmbeddedQueueManagerError
from spark_mq.embedded.client import ccdt
from spark_mq.embedded.client import connection as client_connection

NOTHING_LISTENS = "127.0.0.1(1)"


def reason(excinfo) -> int:
    return excinfo.value.reason


def qm_name_of(connection) -> bytes:
    return connection.inquire(CMQC.MQCA_Q_MGR_NAME).strip()


def unique(prefix: str) -> str:
    unique.counter = getattr(unique, "counter", 0) + 1
    return f"{prefix}.{os.getpid() % 1000}.{unique.counter}"[:20]


@pytest.fixture
def client_only(monkeypatch):
    """As a client installation: no queue manager of this process is reachable without a
    channel, and no client configuration comes from the environment unless a test sets it."""
    monkeypatch.setattr(client_connection, "local_queue_managers", {})
    monkeypatch.setattr(client_connection, "local_bindings", {})
    for name in ("MQSERVER", "MQCCDTURL", "MQCHLLIB", "MQCHLTAB"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def write_ccdt(path, *channels) -> str:
    path.write_text(json.dumps({"channel": list(channels)}))
    return str(path)


def entry(name: str, queue_manager: str, *conn_names: str, **extra) -> dict:
    connections = []
    for conn_name in conn_names:
        host, port = conn_name.rstrip(")").split("(")
        connections.append({"host": host, "port": int(port)})
    value = {"name": name, "type": "clientConnection",
             "clientConnection": {"connection": connections, "queueManager": queue_manager}}
    value.update(extra)
    return value


class OneShotServer:
    """A TCP endpoint that is not a queue manager: it accepts each connection, writes
    `answer` (if any) and closes it."""

    def __init__(self, answer: bytes = b""):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.answer = answer
        self.conn_name = f"127.0.0.1({self.sock.getsockname()[1]})"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            with client:
                if self.answer:
                    client.sendall(self.answer)

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def http_server():
    server = OneShotServer(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
    yield server
    server.close()


@pytest.fixture
def closing_server():
    server = OneShotServer()
    yield server
    server.close()


# --- channels ----------------------------------------------------------------------------------

def test_a_new_queue_manager_has_the_system_and_developer_channels(qm):
    output = qm.run_mqsc("DISPLAY CHANNEL(*) ALL")
    for name in ("SYSTEM.DEF.SVRCONN", "SYSTEM.AUTO.SVRCONN", "DEV.ADMIN.SVRCONN", "DEV.APP.SVRCONN"):
        assert f"CHANNEL({name})" in output
    app = qm.run_mqsc("DISPLAY CHANNEL(DEV.APP.SVRCONN)")
    assert app.startswith("AMQ8414I: Display Channel details.")
    assert "CHLTYPE(SVRCONN)" in app.splitlines()[1]   # the type right after the name
    assert "MCAUSER(app)" in app and "TRPTYPE(TCP)" in app and "HBINT(300)" in app
    assert "MAXMSGL(4194304)" in app and "SHARECNV(10)" in app


def test_both_developer_channels_take_client_connections(qm):
    for channel in ("DEV.APP.SVRCONN", "DEV.ADMIN.SVRCONN"):
        connection = ibmmq.connect(qm.name, channel, qm.conn_name)
        assert qm_name_of(connection) == qm.name.encode()
        connection.disconnect()


def test_an_undefined_channel_is_2540(qm):
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect(qm.name, "NO.SUCH.SVRCONN", qm.conn_name)
    assert reason(exc) == CMQC.MQRC_UNKNOWN_CHANNEL_NAME
    with pytest.raises(ibmmq.MQMIError) as exc:   # channel names are case-sensitive
        ibmmq.connect(qm.name, "dev.app.svrconn", qm.conn_name)
    assert reason(exc) == CMQC.MQRC_UNKNOWN_CHANNEL_NAME


def test_the_channel_is_checked_before_the_queue_manager_name(qm):
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect("NOT.THIS.QM", "NO.SUCH.SVRCONN", qm.conn_name)
    assert reason(exc) == CMQC.MQRC_UNKNOWN_CHANNEL_NAME


def test_define_alter_display_delete_a_svrconn_channel(qm):
    name = unique("APP.CHL")
    output = qm.run_mqsc(f"DEFINE CHANNEL('{name}') CHLTYPE(SVRCONN) TRPTYPE(TCP) MCAUSER('alice') "
                         "DESCR('for tests') HBINT(60) MAXMSGL(65536) SHARECNV(1) "
                         "SSLCIPH('ANY_TLS12') SSLCAUTH(OPTIONAL)")
    assert "AMQ8014I" in output
    with pytest.raises(ibmmq.MQMIError) as exc:   # SSLCIPH: a plain client is refused (test_tls.py)
        ibmmq.connect(qm.name, name, qm.conn_name)
    assert reason(exc) == CMQC.MQRC_SSL_INITIALIZATION_ERROR
    shown = qm.run_mqsc(f"DISPLAY CHANNEL({name}) MCAUSER HBINT")
    assert "MCAUSER(alice)" in shown and "HBINT(60)" in shown and "MAXMSGL" not in shown
    everything = qm.run_mqsc(f"DISPLAY CHANNEL({name})")
    for shown_value in ("DESCR(for tests)", "MAXMSGL(65536)", "SHARECNV(1)", "SSLCIPH(ANY_TLS12)",
                        "SSLCAUTH(OPTIONAL)"):
        assert shown_value in everything
    assert "AMQ8016I" in qm.run_mqsc(f"ALTER CHANNEL({name}) CHLTYPE(SVRCONN) HBINT(30)")
    assert "HBINT(30)" in qm.run_mqsc(f"DISPLAY CHANNEL({name}) HBINT")
    assert "AMQ8015I" in qm.run_mqsc(f"DELETE CHANNEL({name})")
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect(qm.name, name, qm.conn_name)
    assert reason(exc) == CMQC.MQRC_UNKNOWN_CHANNEL_NAME
    with pytest.raises(EmbeddedQueueManagerError, match="not found"):
        qm.run_mqsc(f"DISPLAY CHANNEL({name})")


@pytest.mark.parametrize("command,message", [
    ("DEFINE CHANNEL(DEV.APP.SVRCONN) CHLTYPE(SVRCONN)", "already defined"),
    ("DEFINE CHANNEL(BAD.HBINT) CHLTYPE(SVRCONN) HBINT(1000000)", "(valid: 0 to 999999)"),
    ("DEFINE CHANNEL(BAD.TRP) CHLTYPE(SVRCONN) TRPTYPE(UDP)", "(valid: TCP, LU62, NETBIOS, SPX)"),
    ("DEFINE CHANNEL(BAD.ATTR) CHLTYPE(SVRCONN) CONNAME('x(1)')", "unknown for a SVRCONN channel"),
    ("DEFINE CHANNEL(NO.TYPE)", "CHLTYPE is required"),
    ("DEFINE CHANNEL(A.NAME.LONGER.THAN.20) CHLTYPE(SVRCONN)", "is not valid"),
    ("ALTER CHANNEL(NO.SUCH.CHL) CHLTYPE(SVRCONN) HBINT(5)", "not found"),
    ("DELETE CHANNEL(NO.SUCH.CHL)", "not found"),
])
def test_channel_commands_that_fail_say_why(qm, command, message):
    with pytest.raises(EmbeddedQueueManagerError) as exc:
        qm.run_mqsc(command)
    assert message in str(exc.value)


def test_define_replace_keeps_the_channel_usable(qm):
    assert "AMQ8014I" in qm.run_mqsc("DEFINE CHANNEL('DEV.APP.SVRCONN') CHLTYPE(SVRCONN) "
                                     "MCAUSER('app') REPLACE")
    connection = ibmmq.connect(qm.name, "DEV.APP.SVRCONN", qm.conn_name)
    connection.disconnect()


def test_other_channel_types_are_accepted_but_carry_no_clients(qm):
    qm.run_mqsc("DEFINE CHANNEL(TO.QM2) CHLTYPE(SDR) CONNAME('qm2(1414)') XMITQ(QM2) REPLACE\n"
                "DEFINE CHANNEL(CLIENT.ONLY) CHLTYPE(CLNTCONN) CONNAME('x(1)') QMNAME(QM1)\n"
                "START CHANNEL(TO.QM2)")
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect(qm.name, "CLIENT.ONLY", qm.conn_name)
    assert reason(exc) == CMQC.MQRC_UNKNOWN_CHANNEL_NAME


def test_channels_survive_a_restart_and_start_up_scripts_may_define_them_again(tmp_path):
    script = "DEFINE CHANNEL(SCRIPT.SVRCONN) CHLTYPE(SVRCONN) MCAUSER('bob')\n"
    manager = embedded.EmbeddedQueueManager(str(tmp_path / "data"), name="QMCHL", mqsc=script)
    with manager:
        manager.run_mqsc("DEFINE CHANNEL(LATER.SVRCONN) CHLTYPE(SVRCONN) HBINT(42)\n"
                         "DELETE CHANNEL(DEV.ADMIN.SVRCONN)")
        manager.stop()
        manager.start()   # runs the script again: the existing channel is no failure
        later = manager.run_mqsc("DISPLAY CHANNEL(LATER.SVRCONN)")
        assert "HBINT(42)" in later
        assert "MCAUSER(bob)" in manager.run_mqsc("DISPLAY CHANNEL(SCRIPT.SVRCONN)")
        for channel in ("LATER.SVRCONN", "SCRIPT.SVRCONN", "DEV.APP.SVRCONN"):
            ibmmq.connect(manager.name, channel, manager.conn_name).disconnect()
        with pytest.raises(ibmmq.MQMIError) as exc:
            ibmmq.connect(manager.name, "DEV.ADMIN.SVRCONN", manager.conn_name)
        assert reason(exc) == CMQC.MQRC_UNKNOWN_CHANNEL_NAME


# --- unreachable endpoints and connection-name lists -----------------------------------------

def test_an_unresolvable_host_is_2538(qm):
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect(qm.name, qm.channel, "localhost.invalid(1414)")
    assert reason(exc) == CMQC.MQRC_HOST_NOT_AVAILABLE


def test_a_listener_that_is_not_a_queue_manager_is_2059(qm, http_server, closing_server):
    for server in (http_server, closing_server):
        with pytest.raises(ibmmq.MQMIError) as exc:
            ibmmq.connect(qm.name, qm.channel, server.conn_name)
        assert reason(exc) == CMQC.MQRC_Q_MGR_NOT_AVAILABLE


def test_a_connection_name_list_skips_what_refuses_or_does_not_speak_mq(qm, http_server,
                                                                        closing_server):
    conn_names = ",".join([NOTHING_LISTENS, http_server.conn_name, closing_server.conn_name,
                           qm.conn_name])
    connection = ibmmq.connect(qm.name, qm.channel, conn_names)
    assert qm_name_of(connection) == qm.name.encode()
    connection.disconnect()


def test_a_list_where_nothing_answers_gives_the_last_endpoints_reason(qm, http_server):
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect(qm.name, qm.channel, f"{http_server.conn_name},{NOTHING_LISTENS}")
    assert reason(exc) == CMQC.MQRC_HOST_NOT_AVAILABLE
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect(qm.name, qm.channel, f"{NOTHING_LISTENS},{http_server.conn_name}")
    assert reason(exc) == CMQC.MQRC_Q_MGR_NOT_AVAILABLE


def test_a_refusal_from_a_queue_manager_is_final(qm, tmp_path):
    with embedded.EmbeddedQueueManager(str(tmp_path), name="QMSEC", users={"app": "pw"}) as secured:
        with pytest.raises(ibmmq.MQMIError) as exc:   # 2035 from the first: the second is not tried
            ibmmq.connect(secured.name, qm.channel, f"{secured.conn_name},{qm.conn_name}",
                          user="app", password="wrong")
        assert reason(exc) == CMQC.MQRC_NOT_AUTHORIZED


# --- MQSERVER ------------------------------------------------------------------------------

def test_mqserver_names_the_channel_and_address(qm, client_only):
    client_only.setenv("MQSERVER", f"DEV.APP.SVRCONN/TCP/'{NOTHING_LISTENS},{qm.conn_name}'")
    connection = ibmmq.connect(qm.name)
    assert qm_name_of(connection) == qm.name.encode()
    connection.disconnect()


@pytest.mark.parametrize("value,expected", [
    ("NO.SUCH.SVRCONN/TCP/{conn_name}", CMQC.MQRC_UNKNOWN_CHANNEL_NAME),
    ("DEV.APP.SVRCONN/LU62/{conn_name}", CMQC.MQRC_Q_MGR_NAME_ERROR),
    ("DEV.APP.SVRCONN/{conn_name}", CMQC.MQRC_Q_MGR_NAME_ERROR),
    ("DEV.APP.SVRCONN/TCP/" + NOTHING_LISTENS, CMQC.MQRC_HOST_NOT_AVAILABLE),
])
def test_mqserver_problems(qm, client_only, value, expected):
    client_only.setenv("MQSERVER", value.format(conn_name=qm.conn_name))
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect(qm.name)
    assert reason(exc) == expected


def test_an_mqcd_takes_priority_over_mqserver(qm, client_only):
    client_only.setenv("MQSERVER", f"DEV.APP.SVRCONN/TCP/{NOTHING_LISTENS}")
    connection = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    connection.disconnect()


def test_no_channel_definition_anywhere_is_2058(qm, client_only):
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect(qm.name)
    assert reason(exc) == CMQC.MQRC_Q_MGR_NAME_ERROR


def test_a_queue_manager_this_process_started_needs_no_channel(qm):
    connection = ibmmq.connect(qm.name)   # bindings-style, as on a server installation
    assert qm_name_of(connection) == qm.name.encode()
    connection.disconnect()


# --- CCDT ----------------------------------------------------------------------------------

def test_mqccdturl_file_url_and_plain_path(qm, client_only, tmp_path):
    path = write_ccdt(tmp_path / "ccdt.json", entry("DEV.APP.SVRCONN", qm.name, qm.conn_name))
    for url in (f"file://{path}", path):
        client_only.setenv("MQCCDTURL", url)
        connection = ibmmq.connect(qm.name)
        assert qm_name_of(connection) == qm.name.encode()
        connection.disconnect()


def test_mqchllib_and_mqchltab_name_the_ccdt(qm, client_only, tmp_path):
    write_ccdt(tmp_path / "client.json", entry("DEV.APP.SVRCONN", qm.name, qm.conn_name))
    client_only.setenv("MQCHLLIB", str(tmp_path))
    client_only.setenv("MQCHLTAB", "client.json")
    ibmmq.connect(qm.name).disconnect()


def test_mqserver_takes_priority_over_mqccdturl(qm, client_only, tmp_path):
    path = write_ccdt(tmp_path / "ccdt.json", entry("DEV.APP.SVRCONN", qm.name, NOTHING_LISTENS))
    client_only.setenv("MQCCDTURL", path)
    client_only.setenv("MQSERVER", f"DEV.APP.SVRCONN/TCP/{qm.conn_name}")
    ibmmq.connect(qm.name).disconnect()


def test_the_mqcno_ccdt_url_takes_priority_over_mqserver(qm, client_only, tmp_path):
    path = write_ccdt(tmp_path / "ccdt.json", entry("DEV.APP.SVRCONN", qm.name, qm.conn_name))
    client_only.setenv("MQSERVER", f"DEV.APP.SVRCONN/TCP/{NOTHING_LISTENS}")
    cno = ibmmq.CNO(Version=CMQC.MQCNO_VERSION_6)
    cno.CCDTUrl = f"file://{path}".encode()
    qmgr = ibmmq.QueueManager(None)
    qmgr.connect_with_options(qm.name, cno=cno)
    assert qm_name_of(qmgr) == qm.name.encode()
    qmgr.disconnect()
    # an MQCNO before version 6 has no CCDTUrl field, but ibmmq's C extension raises every
    # MQCNO to version 7 before MQCONNX: the URL is used all the same
    old = ibmmq.CNO(Version=CMQC.MQCNO_VERSION_5)
    old.CCDTUrl = f"file://{path}".encode()
    qmgr = ibmmq.QueueManager(None)
    qmgr.connect_with_options(qm.name, cno=old)
    assert qm_name_of(qmgr) == qm.name.encode()
    qmgr.disconnect()


def test_a_queue_manager_group_reaches_any_queue_manager_of_the_group(qm, client_only, tmp_path,
                                                                      http_server):
    # as IBM's mq-dev-patterns ccdt.json and env.json: QMNAME is the group, "*QMGroupA" asks for it
    path = write_ccdt(tmp_path / "ccdt.json",
                      entry("DEV.APP.SVRCONN", "QMGroupA", NOTHING_LISTENS, http_server.conn_name,
                            qm.conn_name),
                      entry("DEV.APP.SVRCONN", "QMGroupB", NOTHING_LISTENS))
    client_only.setenv("MQCCDTURL", path)
    connection = ibmmq.connect("*QMGroupA")
    assert qm_name_of(connection) == qm.name.encode()   # the real name, not the group's
    queue = ibmmq.Queue(connection, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT)
    md = ibmmq.MD()
    queue.put(b"via a group", md)
    assert md.MsgId.startswith(b"AMQ " + qm.name.encode())
    queue.close()
    ibmmq.Queue(connection, "DEV.QUEUE.1", CMQC.MQOO_INPUT_SHARED).get(None, ibmmq.MD())
    connection.disconnect()
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect("*QMGroupB")
    assert reason(exc) == CMQC.MQRC_HOST_NOT_AVAILABLE
    # without the asterisk the queue manager's name must be QMGroupA: none is, so none is available
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect("QMGroupA")
    assert reason(exc) == CMQC.MQRC_Q_MGR_NOT_AVAILABLE


def test_a_group_name_with_an_mqcd_accepts_whichever_queue_manager_answers(qm):
    for name in (f"*{qm.name}", "*ANY.GROUP", "*"):
        connection = ibmmq.connect(name, qm.channel, qm.conn_name)
        assert qm_name_of(connection) == qm.name.encode()
        connection.disconnect()


def test_ccdt_entries_are_tried_until_one_connects(qm, client_only, tmp_path):
    path = write_ccdt(tmp_path / "ccdt.json",
                      entry("A.FIRST", qm.name, NOTHING_LISTENS),
                      entry("B.UNKNOWN", qm.name, qm.conn_name),   # no such channel there
                      entry("DEV.APP.SVRCONN", qm.name, qm.conn_name))
    client_only.setenv("MQCCDTURL", path)
    ibmmq.connect(qm.name).disconnect()


@pytest.mark.parametrize("content,expected", [
    (None, CMQC.MQRC_CLIENT_CONN_ERROR),                           # no such file
    (b"\x00\x01binary AMQCLCHL.TAB", CMQC.MQRC_CLIENT_CONN_ERROR),  # not JSON
    (b'{"channels": []}', CMQC.MQRC_CLIENT_CONN_ERROR),             # not a CCDT
    (json.dumps({"channel": [entry("DEV.APP.SVRCONN", "OTHER", "x(1)")]}).encode(),
     CMQC.MQRC_Q_MGR_NAME_ERROR),                                  # no channel for this name
])
def test_ccdt_problems(qm, client_only, tmp_path, content, expected):
    path = tmp_path / "ccdt.json"
    if content is not None:
        path.write_bytes(content)
    client_only.setenv("MQCCDTURL", str(path))
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect(qm.name)
    assert reason(exc) == expected


def test_a_ccdt_channel_with_tls_and_no_key_repository_is_refused_not_sent_in_clear(
        qm, client_only, tmp_path):
    path = write_ccdt(tmp_path / "ccdt.json", entry(
        "DEV.APP.SVRCONN", qm.name, qm.conn_name,
        transmissionSecurity={"cipherSpecification": "TLS_RSA_WITH_AES_128_CBC_SHA256"}))
    client_only.setenv("MQCCDTURL", path)
    client_only.delenv("MQSSLKEYR", raising=False)
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect(qm.name)
    assert reason(exc) == CMQC.MQRC_KEY_REPOSITORY_ERROR


def test_ibms_example_ccdt_of_mq_dev_patterns_is_read(tmp_path):
    text = """{"channel": [{"name": "DEV.APP.SVRCONN",
        "clientConnection": {"connection": [{"host": "127.0.0.1", "port": 1414},
                                            {"host": "127.0.0.1", "port": 1416}],
                             "queueManager": "QMGroupA"}, "type": "clientConnection"},
      {"name": "DEV.APP.SVRCONN", "clientConnection": {
          "connection": [{"host": "127.0.0.1", "port": 1415}], "queueManager": "QM1TLS"},
       "transmissionSecurity": {"cipherSpecification": "TLS_RSA_WITH_AES_128_CBC_SHA256"},
       "type": "clientConnection"},
      {"name": "TO.QM2", "type": "sender"}]}"""
    (tmp_path / "ccdt.json").write_text(text)
    channels = ccdt.read(str(tmp_path / "ccdt.json"))
    assert [(c.name, c.queue_manager, c.conn_name, c.cipher_spec) for c in channels] == [
        ("DEV.APP.SVRCONN", "QMGroupA", "127.0.0.1(1414),127.0.0.1(1416)", ""),
        ("DEV.APP.SVRCONN", "QM1TLS", "127.0.0.1(1415)", "TLS_RSA_WITH_AES_128_CBC_SHA256"),
    ]


def test_a_ccdt_entrys_transmission_security_fields_are_read(tmp_path):
    path = write_ccdt(tmp_path / "ccdt.json", entry(
        "TLS.CHL", "QM1", "127.0.0.1(1414)", transmissionSecurity={
            "cipherSpecification": "ANY_TLS12_OR_HIGHER", "certificateLabel": "app",
            "certificatePeerName": "CN=QM1,O=IBM"}), entry("PLAIN.CHL", "QM1", "127.0.0.1(1414)"))
    tls_entry, plain = ccdt.read(path)
    assert (tls_entry.cipher_spec, tls_entry.certificate_label, tls_entry.peer_name) == \
        ("ANY_TLS12_OR_HIGHER", "app", "CN=QM1,O=IBM")
    assert (plain.cipher_spec, plain.certificate_label, plain.peer_name) == ("", "", "")


@pytest.mark.parametrize("security", [["ANY"], {"certificateLabel": 5}, {"certificatePeerName": None}])
def test_a_malformed_transmission_security_is_a_ccdt_error(tmp_path, security):
    path = write_ccdt(tmp_path / "ccdt.json", entry("TLS.CHL", "QM1", "127.0.0.1(1414)",
                                                    transmissionSecurity=security))
    with pytest.raises(ccdt.CCDTError, match="transmissionSecurity"):
        ccdt.read(path)


def test_candidates_come_unweighted_in_name_order_then_by_weight():
    channels = [ccdt.ClientChannel("C", "QM", "c(1)"), ccdt.ClientChannel("A", "QM", "a1(1)"),
                ccdt.ClientChannel("W.HEAVY", "QM", "w(1)", weight=99),
                ccdt.ClientChannel("A", "QM", "a2(1)"), ccdt.ClientChannel("B", "OTHER", "b(1)"),
                ccdt.ClientChannel("W.LIGHT", "QM", "l(1)", weight=1)]
    order = [c.conn_name for c in ccdt.candidates(channels, "*QM", random.Random(1))]
    assert order[:3] == ["a1(1)", "a2(1)", "c(1)"]   # file order among equal names
    assert sorted(order[3:]) == ["l(1)", "w(1)"]
    heavy_first = sum(ccdt.candidates(channels, "QM", random.Random(seed))[3].name == "W.HEAVY"
                      for seed in range(200))
    assert heavy_first > 180
    assert ccdt.candidates(channels, "NONE") == []
