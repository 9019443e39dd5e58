"""Conformance: what IBM's C extension (`ibmmq.ibmmqc`, code/ibmmq/ibmmqc.c of
ibm-messaging/mq-mqi-python) changes in the structures and values it is handed before it
calls the MQI, and in what it hands back; the embedded transport must change them alike, so
that a program written against IBM MQ through `ibmmq` runs unchanged. Through the ibmmq API
where its Python layer lets the difference show, else through `ibmmq.ibmmqc` itself (the
boundary spark_mq's fast paths call too)."""
from __future__ import annotations

import json
import queue as queues

import ibmmq
import pytest
from ibmmq import CMQC, CMQXC

from spark_mq.embedded.client import connection as client_connection

IO = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE


def reason(excinfo) -> int:
    return excinfo.value.reason


@pytest.fixture
def client_only(monkeypatch):
    """No queue manager of this process is reachable without a channel, and no channel
    comes from the environment: only what the MQCNO says counts."""
    monkeypatch.setattr(client_connection, "local_queue_managers", {})
    monkeypatch.setattr(client_connection, "local_bindings", {})
    for name in ("MQSERVER", "MQCCDTURL", "MQCHLLIB", "MQCHLTAB", "MQSSLKEYR"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


# --- MQCONNX: structure versions ---------------------------------------------------------
def test_a_ccdt_url_in_an_mqcno_left_at_ibmmqs_default_version_is_used(qm, client_only, tmp_path):
    # ibmmq's CNO() is version 5, which has no CCDTUrl; ibmmqc raises every MQCNO to 7
    path = tmp_path / "ccdt.json"
    path.write_text(json.dumps({"channel": [{
        "name": qm.channel, "type": "clientConnection",
        "clientConnection": {"connection": [{"host": qm.conn_name.split("(")[0],
                                             "port": int(qm.conn_name.split("(")[1].rstrip(")"))}],
                             "queueManager": qm.name}}]}))
    cno = ibmmq.CNO(Options=CMQC.MQCNO_CLIENT_BINDING)
    assert cno.Version == CMQC.MQCNO_VERSION_5
    cno.CCDTUrl = f"file://{path}".encode()
    manager = ibmmq.QueueManager(None)
    manager.connect_with_options(qm.name, cno=cno)
    try:
        assert manager.inquire(CMQC.MQCA_Q_MGR_NAME).strip() == qm.name.encode()
    finally:
        manager.disconnect()


def test_quantum_safe_fields_in_an_older_mqcd_raise_it_to_version_13(qm, client_only, tmp_path):
    # ibmmq's own Python raises the MQCD version only in connect_with_options; ibmmqc does it
    # for every MQCONNX. Required without an algorithm can never be had: 2393, before any
    # handshake. Read as an MQCD of version 11 the fields would not count, and the empty
    # trust store would fail the connection with 2381 instead.
    repository = tmp_path / "key"
    (tmp_path / "key.pem").write_text("")
    cd = ibmmq.CD(ChannelName=b"TLS.ANY", ConnectionName=qm.conn_name.encode(),
                  ChannelType=CMQXC.MQCHT_CLNTCONN, TransportType=CMQXC.MQXPT_TCP,
                  SSLCipherSpec=b"ANY_TLS12_OR_HIGHER", Version=CMQXC.MQCD_VERSION_11,
                  QuantumSafeAlgorithm=CMQXC.MQQS_UNPROTECTED,
                  QuantumSafeRequired=CMQXC.MQQSR_REQUIRED)
    sco = ibmmq.SCO(KeyRepository=str(repository).encode())
    cno = ibmmq.CNO(Options=CMQC.MQCNO_CLIENT_BINDING)
    hconn, comp_code, rc = ibmmq.ibmmqc.MQCONNX(qm.name.encode(), cno.pack(), cd.pack(),
                                                ibmmq.CSP().pack(), sco.pack(), None)
    if comp_code == CMQC.MQCC_OK:
        ibmmq.ibmmqc.MQDISC(hconn)
    assert (comp_code, rc) == (CMQC.MQCC_FAILED, CMQC.MQRC_SSL_INITIALIZATION_ERROR)


# --- MQSETMP: the C casts of property values -----------------------------------------------
@pytest.mark.parametrize("prop_type, given, stored", [
    (CMQC.MQTYPE_INT8, 300, 44),
    (CMQC.MQTYPE_INT8, 200, -56),
    (CMQC.MQTYPE_INT16, 70000, 4464),
    (CMQC.MQTYPE_INT32, 1 << 31, -(1 << 31)),
])
def test_an_integer_property_is_cast_to_its_c_type(conn, prop_type, given, stored):
    handle = ibmmq.MessageHandle(conn)
    try:
        handle.properties.set("n", given, property_type=prop_type)
        assert handle.properties.get("n", property_type=prop_type) == stored
    finally:
        handle.dlt()


@pytest.mark.parametrize("given, stored", [(0.5, 0), (-0.9, 0)])
def test_a_boolean_property_goes_through_a_c_double_to_mqbool(conn, given, stored):
    handle = ibmmq.MessageHandle(conn)
    try:
        handle.properties.set("flag", given, property_type=CMQC.MQTYPE_BOOLEAN)
        assert handle.properties.get("flag", property_type=CMQC.MQTYPE_BOOLEAN) == stored
    finally:
        handle.dlt()


# --- MQINQ: the answer's shape -------------------------------------------------------------
def test_mqinq_appends_to_the_callers_list_and_gives_none_for_no_characters(conn, make_queue):
    name = make_queue("DESCR(INQ)")
    q = ibmmq.Queue(conn, name, CMQC.MQOO_INQUIRE)
    try:
        ints: list[int] = []
        answer = ibmmq.ibmmqc.MQINQ(conn.get_handle(), q.get_handle(), [CMQC.MQIA_DEF_PRIORITY],
                                    ints, 1, 0, 0)
        assert answer[2:] == (CMQC.MQCC_OK, CMQC.MQRC_NONE)
        assert answer[0] is ints and ints == [0]
        assert answer[1] is None
    finally:
        q.close()


def test_mqinq_leaves_the_integers_out_unless_the_call_is_ok(conn, make_queue):
    name = make_queue()
    q = ibmmq.Queue(conn, name, CMQC.MQOO_INQUIRE)
    try:
        ints: list[int] = []
        answer = ibmmq.ibmmqc.MQINQ(conn.get_handle(), q.get_handle(),
                                    [CMQC.MQIA_MAX_Q_DEPTH, 0x7FFF0000], ints, 2, 0, 0)
        assert answer[2] != CMQC.MQCC_OK
        assert answer[0] is ints and ints == []
    finally:
        q.close()


# --- MQCB: what the callback is handed ----------------------------------------------------
def test_an_empty_message_reaches_the_callback_as_none(conn, make_queue):
    # ibmmqc passes the buffer only when MQCBC.BufferLength > 0
    q = ibmmq.Queue(conn, make_queue(), IO)
    calls: queues.Queue = queues.Queue()

    def consumer(queue_manager, queue, md, gmo, msg, cbc):  # noqa: A002 - ibmmq's names
        if cbc.CallType == CMQC.MQCBCT_MSG_REMOVED:
            calls.put(msg)

    q.put(b"")
    cbd = ibmmq.CBD(CallbackFunction=consumer)
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)
    q.cb(operation=CMQC.MQOP_REGISTER, cbd=cbd, md=ibmmq.MD(), gmo=gmo)
    conn.ctl(CMQC.MQOP_START, ibmmq.CTLO())
    try:
        assert calls.get(timeout=10) is None
    finally:
        conn.ctl(CMQC.MQOP_STOP, ibmmq.CTLO())
        q.close()
