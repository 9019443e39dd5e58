"""Durability and safety: SIGKILL of the queue manager, hostile frames on a raw socket."""
from __future__ import annotations

import os
import random
import socket
import struct

import ibmmq
import pytest
from ibmmq import CMQC

import spark_mq.embedded as embedded
from spark_mq.embedded import wire  # the hostile-frame tests speak the wire protocol directly

OPEN = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE


def drain(queue) -> list[bytes]:
    out = []
    while True:
        try:
            out.append(queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT)))
        except ibmmq.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return out


def connect(manager):
    return ibmmq.connect(manager.name, manager.channel, manager.conn_name)


def test_kill_9_keeps_committed_persistent_and_backs_out_the_rest(tmp_path):
    with embedded.EmbeddedQueueManager(str(tmp_path), name="QMCRASH") as manager:
        conn = connect(manager)
        queue = ibmmq.Queue(conn, "DEV.QUEUE.1", OPEN)
        persistent = ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT)
        for index in range(5):
            queue.put(f"p{index}".encode(), ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        queue.put(b"np", ibmmq.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT))
        for index in range(100):  # committed under syncpoint
            queue.put(f"c{index}".encode(), ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT),
                      ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        conn.commit()
        # open unit of work at the crash: two gets and one put, none committed
        assert queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT)) == b"p0"
        assert queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT)) == b"p1"
        queue.put(b"uncommitted", persistent, ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        pid = manager.pid
        manager.kill()
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
        with pytest.raises(ibmmq.MQMIError) as exc:
            conn.commit()
        assert exc.value.reason == CMQC.MQRC_CONNECTION_BROKEN
        manager.start()
        conn = connect(manager)
        queue = ibmmq.Queue(conn, "DEV.QUEUE.1", OPEN)
        expected = ([f"p{index}".encode() for index in range(5)]
                    + [f"c{index}".encode() for index in range(100)])
        assert drain(queue) == expected
        conn.disconnect()


def test_definitions_and_attribute_changes_survive_kill_9(tmp_path):
    with embedded.EmbeddedQueueManager(str(tmp_path), name="QMDEFS") as manager:
        manager.run_mqsc("DEFINE QLOCAL(KEEP.ME) MAXDEPTH(7) DEFPSIST(YES)")
        conn = connect(manager)
        setter = ibmmq.Queue(conn, "KEEP.ME", CMQC.MQOO_SET)
        setter.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)
        manager.kill()
        manager.start()
        conn = connect(manager)
        queue = ibmmq.Queue(conn, "KEEP.ME", CMQC.MQOO_INQUIRE)
        assert queue.inquire(CMQC.MQIA_MAX_Q_DEPTH) == 7
        assert queue.inquire(CMQC.MQIA_INHIBIT_PUT) == CMQC.MQQA_PUT_INHIBITED
        conn.disconnect()


def test_clean_stop_loses_non_persistent_keeps_persistent(tmp_path):
    with embedded.EmbeddedQueueManager(str(tmp_path), name="QMSTOP") as manager:
        conn = connect(manager)
        queue = ibmmq.Queue(conn, "DEV.QUEUE.2", OPEN)
        queue.put(b"np")
        queue.put(b"p", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        conn.disconnect()
        manager.stop()
        manager.stop()  # safe twice
        manager.start()
        conn = connect(manager)
        assert drain(ibmmq.Queue(conn, "DEV.QUEUE.2", OPEN)) == [b"p"]
        conn.disconnect()


def test_stop_is_safe_after_the_process_died(tmp_path):
    manager = embedded.EmbeddedQueueManager(str(tmp_path), name="QMDEAD").start()
    os.kill(manager.pid, 9)
    manager.stop()
    assert not manager.running


def test_server_listens_on_loopback_only_by_default(qm):
    assert qm.conn_name.startswith("127.0.0.1(")
    with open("/proc/net/tcp") as handle:
        rows = [line.split() for line in handle.readlines()[1:]]
    port_hex = f"{int(qm.conn_name.split('(')[1].rstrip(')')):04X}"
    listening = [row[1] for row in rows if row[1].endswith(":" + port_hex) and row[3] == "0A"]
    assert listening == ["0100007F:" + port_hex]


# --- hostile frames ---------------------------------------------------------------------------
def raw_socket(qm) -> socket.socket:
    host, port = qm.conn_name.rstrip(")").split("(")
    sock = socket.create_connection((host, int(port)), timeout=5)
    return sock


def closed_by_server(sock: socket.socket) -> bool:
    try:
        sock.settimeout(5)
        while True:
            data = sock.recv(65536)
            if not data:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False
    finally:
        sock.close()


def frame(body: bytes) -> bytes:
    return struct.pack("<I", len(body)) + body


HOSTILE = [
    frame(b"\xff"),                                   # unknown tag
    frame(b"l" + struct.pack("<I", 10**9)),           # list count past the end
    frame(b"b" + struct.pack("<I", 100) + b"x"),      # bytes length past the end
    frame(b"s\x02\x00\x00\x00\xff\xfe"),              # invalid UTF-8
    frame(b"l\x01\x00\x00\x00" * 64 + b"N"),         # nested too deeply
    frame(b"i" + b"\x00" * 8),                        # not a request list
    frame(b"l\x01\x00\x00\x00s\x04\x00\x00\x00EVIL"),  # unknown verb
    wire.frame(["CONN", "", "", "", "fuzz", None]) + wire.frame(["OPEN", 1]),  # wrong arguments
    wire.frame(["CONN", "", "", "", "fuzz", None]) + wire.frame(["PUT", "x", b"", None, [], 1.5, 2]),
    struct.pack("<I", 0xFFFFFFF0),                    # absurd frame length
    frame(b"NN"),                                     # trailing bytes
]


@pytest.mark.parametrize("payload", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_frame_closes_only_that_connection(qm, conn, make_queue, payload):
    name = make_queue()
    queue = ibmmq.Queue(conn, name, OPEN)
    queue.put(b"before")
    sock = raw_socket(qm)
    sock.sendall(payload)
    assert closed_by_server(sock)
    queue.put(b"after")  # the server, and this other connection, carry on
    assert drain(queue) == [b"before", b"after"]


def test_hostile_frame_after_connecting_backs_out_that_connections_work(qm, conn, make_queue):
    name = make_queue()
    victim = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    queue = ibmmq.Queue(victim, name, OPEN)
    queue.put(b"uncommitted", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    # write garbage on the victim's own socket, as a corrupted peer would
    ibmmq.ibmmqc._connections[victim.get_handle()].sock.sendall(frame(b"\xff"))
    reader = ibmmq.Queue(conn, name, OPEN)
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=300)
    with pytest.raises(ibmmq.MQMIError) as exc:
        reader.get(None, ibmmq.MD(), gmo)
    assert exc.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    assert reader.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 0  # backed out, not committed
    with pytest.raises(ibmmq.MQMIError) as exc:
        victim.commit()
    assert exc.value.reason == CMQC.MQRC_CONNECTION_BROKEN


def test_random_fuzz_never_takes_the_server_down(qm, conn, make_queue):
    rng = random.Random(20261122)
    name = make_queue()
    queue = ibmmq.Queue(conn, name, OPEN)
    verbs = [b"CONN", b"OPEN", b"PUT", b"GET", b"GETN", b"PUTA", b"INQ", b"SET", b"CMIT", b"MQSC", b"STAT"]
    for round_number in range(200):
        sock = raw_socket(qm)
        try:
            kind = rng.random()
            if kind < 0.3:
                sock.sendall(bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 200))))
            else:
                verb = rng.choice(verbs)
                items = [b"s" + struct.pack("<I", len(verb)) + verb]
                for _ in range(rng.randint(0, 7)):
                    tag = rng.choice(b"NTFidsbl")
                    if tag in b"id":
                        items.append(bytes([tag]) + os.urandom(8))
                    elif tag in b"sb":
                        data = os.urandom(rng.randint(0, 20))
                        items.append(bytes([tag]) + struct.pack("<I", len(data)) + data)
                    elif tag == ord("l"):
                        items.append(b"l" + struct.pack("<I", 0))
                    else:
                        items.append(bytes([tag]))
                body = b"l" + struct.pack("<I", len(items)) + b"".join(items)
                if rng.random() < 0.5:  # corrupt one byte
                    position = rng.randrange(len(body))
                    body = body[:position] + bytes([rng.getrandbits(8)]) + body[position + 1:]
                sock.sendall(frame(body))
                sock.shutdown(socket.SHUT_WR)
                sock.settimeout(5)
                while sock.recv(65536):
                    pass
        except OSError:
            pass
        finally:
            sock.close()
        if round_number % 50 == 0:
            queue.put(b"alive")
            assert drain(queue) == [b"alive"]
    queue.put(b"still alive")
    assert drain(queue) == [b"still alive"]


def test_waiting_get_is_told_the_queue_manager_is_stopping(tmp_path):
    import threading
    manager = embedded.EmbeddedQueueManager(str(tmp_path), name="QMQUIESCE").start()
    conn = connect(manager)
    queue = ibmmq.Queue(conn, "DEV.QUEUE.1", OPEN)
    outcome = {}

    def wait_forever():
        try:
            queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING,
                                                  WaitInterval=CMQC.MQWI_UNLIMITED))
        except ibmmq.MQMIError as exc:
            outcome["reason"] = exc.reason

    thread = threading.Thread(target=wait_forever)
    thread.start()
    import time
    time.sleep(0.3)
    manager.stop()
    thread.join(10)
    assert outcome["reason"] == CMQC.MQRC_Q_MGR_QUIESCING


# --- the command line --------------------------------------------------------------------------
def test_cli_runs_in_the_foreground_with_users_and_stops_cleanly_on_ctrl_c(tmp_path):
    import json
    import signal
    import subprocess
    import sys
    import time
    ready = tmp_path / "ready.json"
    import os
    process = subprocess.Popen([sys.executable, "-m", "spark_mq.embedded", "--data-dir", str(tmp_path / "d"),
                                "--port", "0", "--name", "QMCLI", "--ready-file", str(ready)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env={**os.environ, "SPARK_MQ_QMGR_USERS": "app:pw"})
    try:
        deadline = time.monotonic() + 30
        while not ready.exists():
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        port = json.loads(ready.read_text())["port"]
        conn = ibmmq.connect("QMCLI", "DEV.APP.SVRCONN", f"127.0.0.1({port})", user="app", password="pw")
        conn.put1("DEV.QUEUE.1", b"x", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        conn.disconnect()
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=20)
    finally:
        process.kill()
    assert process.returncode == 130        # Ctrl-C, as every shell tool
    assert "listening on 127.0.0.1" in output and "stopping (SIGINT)" in output


def test_cli_rejects_a_malformed_user_entry_without_echoing_it(tmp_path):
    import os
    import subprocess
    import sys
    result = subprocess.run([sys.executable, "-m", "spark_mq.embedded", "--data-dir", str(tmp_path),
                             "--users-stdin"], input="app:pw\nnopassword\n", capture_output=True,
                            text=True, timeout=60,
                            env={k: v for k, v in os.environ.items() if k != "SPARK_MQ_QMGR_USERS"})
    assert result.returncode == 2
    assert "entry 2" in result.stderr and "USER:PASSWORD" in result.stderr
    assert "nopassword" not in result.stderr
