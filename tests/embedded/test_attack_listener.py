"""Attacks on the listener: starving it of file descriptors and threads, and taking every
channel instance, as a hostile or careless neighbour would. The listener must never stop
accepting while the queue manager runs, and must refuse over its limits as IBM MQ does
(2537 MQRC_CHANNEL_NOT_AVAILABLE)."""
from __future__ import annotations

import resource
import socket
import time

import ibmmq  # the embedded transport: tests/conftest.py installs it before any import
import pytest
from ibmmq import CMQC, CMQCFC

from attack_qm import CHANNEL, QueueManagerProcess

STARVED = "the listener cannot accept or serve a new connection"
RECOVERED = "the listener serves new connections again"


def reason(exc: pytest.ExceptionInfo) -> int:
    return exc.value.reason


def burst(qm: QueueManagerProcess, count: int) -> list[socket.socket]:
    """`count` sockets that connect and say nothing (the kernel completes them from the
    listen backlog whether the queue manager accepts them or not)."""
    return [qm.raw() for _ in range(count)]


def close_all(sockets: list[socket.socket]) -> None:
    for sock in sockets:
        sock.close()


def test_out_of_file_descriptors_the_listener_backs_off_and_serves_again(tmp_path):
    with QueueManagerProcess(tmp_path / "qm", "--connect-timeout", "30") as qm:
        assert qm.put_get(ibmmq) == b"still serving"
        qm.set_limit(resource.RLIMIT_NOFILE, qm.open_files() + 10)
        sockets = burst(qm, 60)
        try:
            qm.wait_for_log(STARVED)
            assert "EMFILE" in qm.log()
        finally:
            close_all(sockets)
        # the held sockets end, their descriptors return, and the listener takes up again
        qm.wait_for_log(RECOVERED)
        assert qm.put_get(ibmmq, b"after the burst") == b"after the burst"
        # a second burst is a second burst: logged again, once
        sockets = burst(qm, 60)
        try:
            deadline = time.monotonic() + 20
            while qm.log().count(STARVED) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            close_all(sockets)
        deadline = time.monotonic() + 20
        while qm.log().count(RECOVERED) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        log = qm.log()
        assert log.count(STARVED) == 2 and log.count(RECOVERED) == 2, log[-3000:]
        assert qm.put_get(ibmmq, b"after two bursts") == b"after two bursts"


def test_out_of_address_space_for_thread_stacks_the_listener_carries_on(tmp_path):
    with QueueManagerProcess(tmp_path / "qm", "--connect-timeout", "30") as qm:
        assert qm.put_get(ibmmq) == b"still serving"
        mapped = qm.status("VmSize") * 1024
        # each connection's thread maps a stack of some 8 MiB: room for a few only
        qm.set_limit(resource.RLIMIT_AS, mapped + 48 * 1024 * 1024)
        sockets = burst(qm, 30)
        try:
            qm.wait_for_log(STARVED)
            assert "can't start new thread" in qm.log() or "MemoryError" in qm.log()
        finally:
            close_all(sockets)
        qm.set_limit(resource.RLIMIT_AS, resource.RLIM_INFINITY)
        qm.wait_for_log(RECOVERED)
        assert qm.put_get(ibmmq, b"after the burst") == b"after the burst"


def test_over_max_channels_new_clients_get_2537_until_one_ends(tmp_path):
    with QueueManagerProcess(tmp_path / "qm", "--max-channels", "3", "--connect-timeout", "30") as qm:
        held = burst(qm, 3)   # sockets that have not sent CONN yet are channels starting
        try:
            time.sleep(0.5)
            with pytest.raises(ibmmq.MQMIError) as exc:
                ibmmq.connect(qm.name, CHANNEL, qm.conn_name)
            assert reason(exc) == CMQC.MQRC_CHANNEL_NOT_AVAILABLE
            qm.wait_for_log("the maximum number of channels (MaxChannels 3) is reached")
            held.pop().close()
            deadline = time.monotonic() + 10
            while True:
                try:
                    assert qm.put_get(ibmmq) == b"still serving"
                    break
                except ibmmq.MQMIError as refused:
                    if refused.reason != CMQC.MQRC_CHANNEL_NOT_AVAILABLE or time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
        finally:
            close_all(held)


MAXINST_MQSC = """\
DEFINE CHANNEL(LIMITED.SVRCONN) CHLTYPE(SVRCONN) MAXINST(2) REPLACE
DEFINE CHANNEL(PERCLIENT.SVRCONN) CHLTYPE(SVRCONN) MAXINSTC(1) REPLACE
"""


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    with QueueManagerProcess(tmp_path_factory.mktemp("limits"), mqsc=MAXINST_MQSC) as qm:
        yield qm


def test_maxinst_refuses_the_instance_over_it_with_2537(limited):
    first = ibmmq.connect(limited.name, "LIMITED.SVRCONN", limited.conn_name)
    second = ibmmq.connect(limited.name, "LIMITED.SVRCONN", limited.conn_name)
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect(limited.name, "LIMITED.SVRCONN", limited.conn_name)
    assert reason(exc) == CMQC.MQRC_CHANNEL_NOT_AVAILABLE
    # the other channels are not limited by this one
    other = ibmmq.connect(limited.name, CHANNEL, limited.conn_name)
    other.disconnect()
    first.disconnect()
    third = ibmmq.connect(limited.name, "LIMITED.SVRCONN", limited.conn_name)
    second.disconnect()
    third.disconnect()


def test_maxinst_counts_connections_that_died_without_disconnecting_only_until_they_end(limited):
    held = [limited.raw_conn(channel="LIMITED.SVRCONN") for _ in range(2)]
    assert all(reply[:2] == [CMQC.MQCC_OK, CMQC.MQRC_NONE] for _, reply in held)
    _, refused = limited.raw_conn(channel="LIMITED.SVRCONN")
    assert refused == [CMQC.MQCC_FAILED, CMQC.MQRC_CHANNEL_NOT_AVAILABLE]
    for sock, _ in held:
        sock.close()  # no DISC: the socket just goes
    deadline = time.monotonic() + 10
    while True:
        sock, reply = limited.raw_conn(channel="LIMITED.SVRCONN")
        sock.close()
        if reply[:2] == [CMQC.MQCC_OK, CMQC.MQRC_NONE]:
            break
        assert time.monotonic() < deadline, reply
        time.sleep(0.1)


def test_maxinstc_limits_each_client_address_not_the_channel(limited):
    mine = ibmmq.connect(limited.name, "PERCLIENT.SVRCONN", limited.conn_name)
    try:
        with pytest.raises(ibmmq.MQMIError) as exc:
            ibmmq.connect(limited.name, "PERCLIENT.SVRCONN", limited.conn_name)
        assert reason(exc) == CMQC.MQRC_CHANNEL_NOT_AVAILABLE
        # another address on the loopback network is another client to IBM MQ
        sock, reply = limited.raw_conn(source="127.0.0.2", channel="PERCLIENT.SVRCONN")
        assert reply[:2] == [CMQC.MQCC_OK, CMQC.MQRC_NONE]
        sock.close()
    finally:
        mine.disconnect()


def test_maxinst_and_maxinstc_default_to_ibms_and_show(limited):
    shown = limited_mqsc(limited, "DISPLAY CHANNEL(DEV.APP.SVRCONN)")
    assert "MAXINST(999999999)" in shown and "MAXINSTC(999999999)" in shown
    assert "MAXINST(2)" in limited_mqsc(limited, "DISPLAY CHANNEL(LIMITED.SVRCONN) MAXINST")


def test_lowering_maxinst_ends_no_running_instance(limited):
    running = ibmmq.connect(limited.name, CHANNEL, limited.conn_name)
    try:
        limited_mqsc(limited, f"ALTER CHANNEL({CHANNEL}) CHLTYPE(SVRCONN) MAXINST(0)")
        with pytest.raises(ibmmq.MQMIError) as exc:
            ibmmq.connect(limited.name, CHANNEL, limited.conn_name)
        assert reason(exc) == CMQC.MQRC_CHANNEL_NOT_AVAILABLE
        assert running.inquire(CMQC.MQCA_Q_MGR_NAME).strip() == limited.name.encode()
    finally:
        limited_mqsc(limited, f"ALTER CHANNEL({CHANNEL}) CHLTYPE(SVRCONN) MAXINST(999999999)")
        running.disconnect()


def test_maxinst_out_of_range_is_refused_as_runmqsc_does(limited):
    output = limited_mqsc(limited, "DEFINE CHANNEL(BAD.SVRCONN) CHLTYPE(SVRCONN) MAXINST(1000000000)",
                          ok=False)
    assert "MAXINST" in output and "out of range" in output


def limited_mqsc(qm: QueueManagerProcess, text: str, ok: bool = True) -> str:
    """MQSC through IBM's admin door, MQSC in PCF on the command queue, on the admin channel."""
    conn = ibmmq.connect(qm.name, "DEV.ADMIN.SVRCONN", qm.conn_name)
    pcf = ibmmq.PCFExecute(conn, response_wait_interval=10000)
    responses: list = []
    try:
        answers = pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC,
                                    CMQCFC.MQCACF_ESCAPE_TEXT: text.encode()}, responses=responses)
        succeeded = True
    except ibmmq.MQMIError:
        answers = responses
        succeeded = False
    finally:
        pcf.disconnect()
        conn.disconnect()
    # with responses=, each answer comes as (parameters, MQCFH)
    output = "\n".join(parameters.get(CMQCFC.MQCACF_ESCAPE_TEXT, b"").decode().strip()
                       for parameters, *_ in answers)
    assert succeeded is ok, output
    return output
