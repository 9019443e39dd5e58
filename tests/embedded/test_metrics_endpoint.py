"""The embedded queue manager's metrics endpoint (--metrics-port): IBM's mq-metric-samples
names and labels, figures that agree with what MQ itself answers (MQINQ CURDEPTH, DISPLAY
QSTATUS), and a door that stays shut to who may not pass and open to everyone else, whatever
a bad or slow client does."""
from __future__ import annotations

import base64
import contextlib
import json
import pathlib
import re
import shutil
import socket
import ssl
import urllib.error
import urllib.request

import ibmmq
import pytest
from ibmmq import CMQC
from prometheus_client.parser import text_string_to_metric_families

import spark_mq.embedded as embedded
from spark_mq.embedded.server.metrics import families
from spark_mq.embedded.server.metrics.endpoint import MAX_CLIENTS, MAX_PENDING, MAX_REQUEST
from tls_keys import one_way_repositories

QUEUE_LABELS = {"qmgr", "platform", "queue", "usage", "description", "cluster"}


@pytest.fixture(scope="module")
def manager(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qm")), name="QMMET",
                                       metrics_port=0) as started:
        started.run_mqsc("DEFINE QLOCAL(MET.Q) DESCR('orders in') MAXDEPTH(100000)")
        yield started


@pytest.fixture
def client(manager):
    connection = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
    yield connection
    connection.disconnect()


def scrape(url: str, auth: tuple[str, str] | None = None,
           context: ssl.SSLContext | None = None) -> dict[tuple[str, frozenset], float]:
    """(metric name, labels) -> value; the labels as a frozenset of (name, value) pairs."""
    request = urllib.request.Request(url)
    if auth is not None:
        token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
    with urllib.request.urlopen(request, timeout=30, context=context) as answer:
        assert answer.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = answer.read().decode()
    return {(sample.name, frozenset(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def of_queue(samples, name: str, queue: str) -> float:
    found = [value for (metric, labels), value in samples.items()
             if metric == name and ("queue", queue) in labels]
    assert len(found) == 1, f"{name} for {queue}: {found}"
    return found[0]


def curdepth(conn, queue: str) -> int:
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_INQUIRE)
    try:
        return handle.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    finally:
        handle.close()


def status_code(url: str, **request) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, **request), timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_off_unless_asked(tmp_path):
    with embedded.EmbeddedQueueManager(str(tmp_path / "qm")) as plain:
        assert plain.metrics_port is None and plain.metrics_url is None


def test_depth_and_counts_agree_with_the_queue_during_a_run(manager, client):
    """Rounds of puts, gets, a unit of work left open and one backed out, a scrape after
    each: the depth is MQINQ's CURDEPTH every time, and the counters add up."""
    queue = ibmmq.Queue(client, "MET.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    before = scrape(manager.metrics_url)
    puts0 = of_queue(before, "ibmmq_queue_mqput_mqput1_count", "MET.Q")
    gets0 = of_queue(before, "ibmmq_queue_mqget_count", "MET.Q")
    put = got = 0
    for round_number in range(1, 6):
        for _ in range(100 * round_number):
            queue.put(b"p" * 50)
            put += 1
        for _ in range(30 * round_number):
            queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
            got += 1
        samples = scrape(manager.metrics_url)
        assert of_queue(samples, "ibmmq_queue_depth", "MET.Q") == curdepth(client, "MET.Q")
        assert of_queue(samples, "ibmmq_queue_mqput_mqput1_count", "MET.Q") == puts0 + put
        assert of_queue(samples, "ibmmq_queue_mqget_count", "MET.Q") == gets0 + got
        assert of_queue(samples, "ibmmq_queue_input_handles", "MET.Q") == 1
        assert of_queue(samples, "ibmmq_queue_output_handles", "MET.Q") == 1
    # ten gets in a unit of work: off the queue, uncommitted; then backed out
    for _ in range(10):
        queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    samples = scrape(manager.metrics_url)
    assert of_queue(samples, "ibmmq_queue_uncommitted_messages", "MET.Q") == 10
    assert of_queue(samples, "ibmmq_queue_depth", "MET.Q") == curdepth(client, "MET.Q")
    client.backout()
    samples = scrape(manager.metrics_url)
    assert of_queue(samples, "ibmmq_queue_rolled_back_mqget_count", "MET.Q") >= 10
    assert of_queue(samples, "ibmmq_queue_uncommitted_messages", "MET.Q") == 0
    assert of_queue(samples, "ibmmq_queue_depth", "MET.Q") == curdepth(client, "MET.Q") == put - got
    assert of_queue(samples, "ibmmq_queue_mqput_bytes", "MET.Q") >= 50 * put
    queue.close()


def test_names_and_labels_are_ibms(manager, client):
    samples = scrape(manager.metrics_url)
    names = {name for name, _ in samples}
    for name in ("ibmmq_queue_depth", "ibmmq_queue_oldest_message_age", "ibmmq_queue_qtime_short",
                 "ibmmq_queue_qtime_long", "ibmmq_queue_input_handles", "ibmmq_queue_output_handles",
                 "ibmmq_queue_attribute_max_depth", "ibmmq_queue_uncommitted_messages",
                 "ibmmq_queue_mqput_mqput1_count", "ibmmq_queue_mqget_count",
                 "ibmmq_qmgr_status", "ibmmq_qmgr_connection_count", "ibmmq_qmgr_uptime",
                 "ibmmq_qmgr_interval_mqput_mqput1_total_count",
                 "ibmmq_qmgr_interval_destructive_get_total_count"):
        assert name in names, name
    depth_labels = [dict(labels) for name, labels in samples if name == "ibmmq_queue_depth"]
    assert all(set(labels) == QUEUE_LABELS for labels in depth_labels)
    ours = next(labels for labels in depth_labels if labels["queue"] == "MET.Q")
    assert ours == {"qmgr": "QMMET", "platform": "UNIX", "queue": "MET.Q", "usage": "NORMAL",
                    "description": "orders in", "cluster": ""}
    # the queue manager's own queues are not there
    assert not any(labels["queue"].startswith("SYSTEM.") for labels in depth_labels)
    assert of_queue(samples, "ibmmq_queue_attribute_max_depth", "MET.Q") == 100000


def test_the_door_answers_only_metrics(manager):
    url = manager.metrics_url
    assert status_code(url.replace("/metrics", "/other")) == 404
    assert status_code(url, data=b"x", method="POST") == 405
    assert status_code(url, method="HEAD") == 200


def test_bad_and_slow_clients_stop_nobody(manager):
    """Oversized headers and garbage are answered; silent and trickling sockets, more of them
    than MAX_PENDING, neither hold a slot nor stop a scrape beside them: the oldest are
    pushed out by newer connections."""
    host, port = manager.metrics_host, manager.metrics_port
    assert _raw(host, port, b"GET /metrics HTTP/1.1\r\nX: " + b"a" * MAX_REQUEST + b"\r\n\r\n") \
        .startswith(b"HTTP/1.1 431")
    assert _raw(host, port, b"\x16\x03\x01garbage\r\n\r\n").startswith(b"HTTP/1.1 400")
    with _strangers(host, port) as (silent, _trickling):
        assert "ibmmq_queue_depth" in str(scrape(manager.metrics_url))
        assert status_code(manager.metrics_url, method="HEAD") == 200
        assert _closed_by_the_server(silent[0])      # the oldest: evicted (or at its deadline)


STRANGERS = MAX_PENDING + 50


@contextlib.contextmanager
def _strangers(host: str, port: int):
    """STRANGERS silent connections, then ten that send half a request and stop."""
    silent = [socket.create_connection((host, port), timeout=30) for _ in range(STRANGERS)]
    trickling = [socket.create_connection((host, port), timeout=30) for _ in range(10)]
    try:
        for sock in trickling:
            sock.sendall(b"GET /met")
        yield silent, trickling
    finally:
        for sock in silent + trickling:
            sock.close()


def _closed_by_the_server(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def _raw(host: str, port: int, request: bytes) -> bytes:
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def test_open_queue_manager_listens_on_loopback_only(tmp_path):
    qm = embedded.EmbeddedQueueManager(str(tmp_path / "qm"), host="0.0.0.0", insecure=True,
                                       metrics_port=0, metrics_host="0.0.0.0")
    with pytest.raises(embedded.EmbeddedQueueManagerError,
                       match=r"--metrics-host 0\.0\.0\.0 reaches beyond this machine and the "
                             r"queue manager has no users"):
        qm.start()


USERS = {"admin": ("adminpw", ("mqm",)), "app": "apppw", "watcher": ("watchpw", ("monitors",))}
GRANTS = """
SET AUTHREC GROUP('monitors') OBJTYPE(QMGR) AUTHADD(CONNECT,DSP)
SET AUTHREC PROFILE('SEEN.**') GROUP('monitors') OBJTYPE(QUEUE) AUTHADD(DSP)
DEFINE QLOCAL(SEEN.Q)
DEFINE QLOCAL(UNSEEN.Q)
"""


@pytest.fixture(scope="module")
def secured(tmp_path_factory):
    if shutil.which("openssl") is None:
        pytest.fail("the TLS test needs the openssl command")
    qm_stem, client_stem = one_way_repositories(str(tmp_path_factory.mktemp("keys")))
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qm")), name="QMSEC",
                                       users=USERS, tls_key_repository=qm_stem, mqsc=GRANTS,
                                       metrics_port=0) as started:
        context = ssl.create_default_context(cafile=client_stem + ".ca.pem")
        context.check_hostname = False     # the certificate names QM1, not 127.0.0.1
        yield started, context


def _status(url: str, context: ssl.SSLContext, auth: tuple[str, str] | None = None) -> int:
    try:
        scrape(url, auth, context)
    except urllib.error.HTTPError as exc:
        return exc.code
    return 200


def test_with_users_over_tls_a_user_with_display_authority_is_needed(secured):
    manager, context = secured
    url = manager.metrics_url
    assert url.startswith("https://")
    with pytest.raises(OSError):     # no plain HTTP beside HTTPS: the handshake fails
        scrape(url.replace("https://", "http://"))
    assert _status(url, context) == 401
    assert _status(url, context, ("admin", "wrong")) == 401
    assert _status(url, context, ("nobody", "x")) == 401
    assert _status(url, context, ("app", "apppw")) == 403      # CONNECT, INQ but no DSP
    queues = {dict(labels)["queue"] for name, labels in scrape(url, ("watcher", "watchpw"), context)
              if name == "ibmmq_queue_depth"}
    assert queues == {"SEEN.Q"}
    every = {dict(labels)["queue"] for name, labels in scrape(url, ("admin", "adminpw"), context)
             if name == "ibmmq_queue_depth"}
    assert {"SEEN.Q", "UNSEEN.Q", "DEV.QUEUE.1"} <= every


def test_over_tls_silent_sockets_and_wrong_passwords_do_not_blind_a_scraper(secured):
    """More silent TCP connections than MAX_PENDING (no ClientHello: a handshake nobody
    finishes), half requests, and more wrong passwords than MAX_CLIENTS waiting out their
    FAILDLAY: a scrape with good credentials is answered 200 beside them all."""
    manager, context = secured
    host, port = manager.metrics_host, manager.metrics_port
    guesses = []
    with _strangers(host, port) as (silent, _trickling):
        token = base64.b64encode(b"admin:guess").decode()
        for _ in range(2 * MAX_CLIENTS):
            sock = context.wrap_socket(socket.create_connection((host, port), timeout=30))
            sock.sendall(f"GET /metrics HTTP/1.1\r\nAuthorization: Basic {token}\r\n\r\n".encode())
            guesses.append(sock)
        try:
            samples = scrape(manager.metrics_url, ("watcher", "watchpw"), context)
            assert of_queue(samples, "ibmmq_queue_depth", "SEEN.Q") == 0
            assert _closed_by_the_server(silent[0])
            for sock in guesses:            # each guess is still answered, after FAILDLAY
                assert sock.recv(12) == b"HTTP/1.1 401"
        finally:
            for sock in guesses:
                sock.close()


def test_the_grafana_dashboard_reads_metrics_the_endpoint_has(manager, client):
    """docs/grafana's dashboard asks only for names the endpoint writes (channel metrics
    need a sender or receiver channel, so those are looked up in families.py's table)."""
    dashboard = pathlib.Path(__file__).parents[2] / "docs" / "grafana" / "spark-mq-queue-manager.json"
    wanted = set(re.findall(r"ibmmq_[a-z0-9_]+", json.dumps(json.loads(dashboard.read_text()))))
    written = {name for name, _ in scrape(manager.metrics_url)}
    channel_source = pathlib.Path(families.__file__).read_text()
    for name in wanted:
        if name.startswith("ibmmq_channel_"):
            assert f'"{name.removeprefix("ibmmq_channel_")}"' in channel_source, name
        else:
            assert name in written, name
