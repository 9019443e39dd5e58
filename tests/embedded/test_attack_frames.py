"""Attacks with raw frames on the queue manager's port: what a peer can make it hold before
and after it authenticates. Before MQCONN a frame is small and must arrive within the
connect timeout (shortened here to 2 s); every decode is bounded in values and depth; once
connected, a frame is bounded by what MAXMSGL allows. The queue manager serves other
clients throughout (a put and a get after each attack)."""
from __future__ import annotations

import struct
import subprocess
import sys
import time

import ibmmq  # the embedded transport: tests/conftest.py installs it before any import
import pytest
from ibmmq import CMQC

from attack_qm import QueueManagerProcess, closed_within, frame_header
from spark_mq.embedded import wire

CONNECT_TIMEOUT = 2.0
MIB = 1024 * 1024


@pytest.fixture(scope="module")
def qm(tmp_path_factory):
    # MAXMSGL at IBM's largest, so that the element bound, not the size bound, is what a
    # connected client's frame of empty lists meets
    with QueueManagerProcess(tmp_path_factory.mktemp("frames"), "--connect-timeout", str(CONNECT_TIMEOUT),
                             mqsc="ALTER QMGR MAXMSGL(104857600)\n") as manager:
        yield manager


def rss_mib(qm: QueueManagerProcess) -> float:
    return qm.status("VmRSS") / 1024


def peak_mib(qm: QueueManagerProcess) -> float:
    return qm.status("VmHWM") / 1024


def empty_lists(count: int) -> bytes:
    """One list holding `count` empty lists: five bytes on the wire each, some 60 decoded."""
    return b"l" + struct.pack("<I", count) + b"l\0\0\0\0" * count


def test_a_frame_over_the_pre_conn_limit_is_refused_from_its_length(qm):
    before = rss_mib(qm)
    sockets = [qm.raw() for _ in range(4)]
    for sock in sockets:
        sock.sendall(frame_header(200 * MIB))    # announced, never to be buffered
    sent = 0
    for sock in sockets:
        try:
            for _ in range(64):                   # the body follows: up to 64 MiB a socket
                sock.sendall(b"\0" * MIB)
                sent += MIB
        except (BrokenPipeError, ConnectionResetError):
            pass
    for sock in sockets:
        assert closed_within(sock, 5) is not None
    assert sent < 4 * 64 * MIB                    # the server closed before taking it all
    assert rss_mib(qm) - before < 32, (before, rss_mib(qm))
    assert "exceeds the limit of 16384" in qm.log()
    assert qm.put_get(ibmmq) == b"still serving"


def test_a_socket_that_sends_nothing_is_dropped_after_the_connect_timeout(qm):
    sock = qm.raw()
    took = closed_within(sock, 10)
    assert took is not None and CONNECT_TIMEOUT - 0.5 <= took < CONNECT_TIMEOUT + 3, took
    assert qm.put_get(ibmmq) == b"still serving"


def test_a_frame_trickling_in_is_dropped_at_the_connect_timeout_however_it_trickles(qm):
    sock = qm.raw()
    conn_frame = wire.frame(["CONN", qm.name, "", "", "slowloris", "DEV.APP.SVRCONN"])
    start = time.monotonic()
    try:
        for byte in conn_frame[:-1]:              # never the last byte
            sock.sendall(bytes([byte]))
            time.sleep(0.1)
            if time.monotonic() - start > CONNECT_TIMEOUT + 3:
                break
    except (BrokenPipeError, ConnectionResetError):
        pass
    took = closed_within(sock, 10)
    assert took is not None and time.monotonic() - start < CONNECT_TIMEOUT + 3
    assert qm.put_get(ibmmq) == b"still serving"


def test_a_client_that_connects_in_time_is_not_dropped_while_it_is_quiet(qm):
    conn = ibmmq.connect(qm.name, "DEV.APP.SVRCONN", qm.conn_name)
    time.sleep(CONNECT_TIMEOUT + 1)               # connected: the heartbeat interval applies
    queue = ibmmq.Queue(conn, "DEV.QUEUE.2", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    queue.put(b"quiet but alive")
    assert queue.get() == b"quiet but alive"
    queue.close()
    conn.disconnect()


def test_millions_of_empty_lists_before_conn_are_refused_by_size_and_bounds(qm):
    for payload in (empty_lists(5_000_000),       # 24 MiB: over the size limit
                    empty_lists(3000),            # 15 KiB: within it, over the element bound
                    b"l\1\0\0\0" * 64 + b"N"):    # 64 deep: over the depth bound
        sock = qm.raw()
        try:
            sock.sendall(struct.pack("<I", len(payload)) + payload)
        except (BrokenPipeError, ConnectionResetError):
            pass
        assert closed_within(sock, 5) is not None
    assert qm.put_get(ibmmq) == b"still serving"


def test_millions_of_empty_lists_after_conn_are_refused_by_the_element_bound(qm):
    """The probe's frame: 29 MiB of empty lists decoded to +446 MiB. Connected, under a
    MAXMSGL of 100 MiB, it is read (it is within the size a message may have) and refused
    by the element bound, at some 60 bytes of objects a value at most."""
    sock, reply = qm.raw_conn()
    assert reply[:2] == [CMQC.MQCC_OK, CMQC.MQRC_NONE]
    payload = empty_lists(6_000_000)              # 29 MiB
    peak = peak_mib(qm)
    try:
        sock.sendall(struct.pack("<I", len(payload)) + payload)
    except (BrokenPipeError, ConnectionResetError):
        pass
    assert closed_within(sock, 20) is not None
    # the frame itself is held while it is read (twice, when its pieces are joined); its
    # decode stops at 262144 values
    assert peak_mib(qm) - peak < 120, (peak, peak_mib(qm))
    assert "frame holds more values than allowed" in qm.log()
    assert qm.put_get(ibmmq) == b"still serving"


def test_a_connected_frame_over_what_maxmsgl_allows_is_refused_from_its_length(qm):
    sock, reply = qm.raw_conn()
    assert reply[:2] == [CMQC.MQCC_OK, CMQC.MQRC_NONE]
    sock.sendall(frame_header(250 * MIB))         # MAXMSGL 100 MiB: at most 201 MiB
    assert closed_within(sock, 5) is not None
    assert f"frame of {250 * MIB} bytes exceeds the limit" in qm.log()
    assert qm.put_get(ibmmq) == b"still serving"


def test_a_message_as_large_as_maxmsgl_still_goes_through(qm):
    conn = ibmmq.connect(qm.name, "DEV.APP.SVRCONN", qm.conn_name)
    queue = ibmmq.Queue(conn, "DEV.QUEUE.3",
                        CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INQUIRE)
    try:
        assert queue.inquire(CMQC.MQIA_MAX_MSG_LENGTH) == 4 * MIB
        body = b"x" * (4 * MIB)                   # as large as the queue allows
        queue.put(body)
        assert queue.get(len(body)) == body
    finally:
        queue.close()
        conn.disconnect()


def test_a_tls_hello_that_stops_is_dropped_too(qm):
    sock = qm.raw()
    sock.sendall(b"\x16\x03")                     # two bytes of a TLS record, then nothing
    took = closed_within(sock, 10)
    assert took is not None and took < CONNECT_TIMEOUT + 3, took
    assert qm.put_get(ibmmq) == b"still serving"


def test_many_silent_sockets_at_once_cost_little_and_all_go(qm):
    before = rss_mib(qm)
    sockets = [qm.raw() for _ in range(200)]
    time.sleep(0.5)
    during = rss_mib(qm)
    assert during - before < 64, (before, during)
    assert qm.put_get(ibmmq) == b"still serving"
    for sock in sockets:
        assert closed_within(sock, 10) is not None
    for sock in sockets:
        sock.close()


@pytest.mark.parametrize("option, value, valid", [
    ("--connect-timeout", "0", "valid: 0.1 to 3600"),
    ("--connect-timeout", "soon", "valid: 0.1 to 3600"),
    ("--max-channels", "0", "valid: 1 to 999999999"),
    ("--heartbeat-interval", "-5", "valid: 0.1 to 999999"),
])
def test_a_limit_out_of_range_is_refused_at_start_naming_it(tmp_path, option, value, valid):
    """A connect timeout of 0 would drop every client; a negative one would never drop any."""
    done = subprocess.run([sys.executable, "-m", "spark_mq.embedded", "--data-dir",
                           str(tmp_path), "--port", "0", option, value],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert f"argument {option}: " in done.stderr and value in done.stderr and valid in done.stderr
    assert not (tmp_path / "ready.json").exists()
