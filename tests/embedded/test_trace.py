"""The queue manager's trace (strmqtrc/endmqtrc-style, server/core/trace.py): off by default,
an API trace of one queue or a COMMS trace of one channel to trace/AMQ<pid>.TRC, message
data only when DATA asks, never a password, a file bounded by LIMIT, and the command refused
to a user without administrative authority. Real queue-manager processes, IBM's `ibmmq` API,
MQSC through the administrative door."""
from __future__ import annotations

import json
from pathlib import Path

import ibmmq
import pytest
from ibmmq import CMQC

import spark_mq.embedded as embedded
from channel_topology import connect, link, put_remote, receive, start
from spark_mq.embedded.client import admin

USERS = {"admin": "adminpw", "app": ("S3cret.pw", ["mqclient"])}
APP_CHANNEL, MODEL = "DEV.APP.SVRCONN", "DEV.APP.MODEL.QUEUE"


def trace_files(qm: embedded.EmbeddedQueueManager, suffix: str = "TRC") -> list[Path]:
    return sorted((Path(qm.data_dir) / "trace").glob(f"AMQ*.{suffix}"))


def records(qm: embedded.EmbeddedQueueManager) -> list[dict]:
    return [json.loads(line) for path in trace_files(qm) for line in path.read_text().splitlines()]


def put_get(conn: ibmmq.QueueManager, queue: str, body: bytes) -> bytes:
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    try:
        handle.put(body)
        return handle.get()
    finally:
        handle.close()


@pytest.fixture(scope="module")
def sqm(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmtrace")), name="QMTRACE",
                                       users=USERS) as manager:
        manager.run_mqsc("DEFINE QLOCAL(TRACED.Q)\nDEFINE QLOCAL(OTHER.Q)\n"
                         "SET AUTHREC PROFILE('TRACED.Q') PRINCIPAL('app') OBJTYPE(QUEUE) "
                         "AUTHADD(PUT,GET)\n"
                         "SET AUTHREC PROFILE('OTHER.Q') PRINCIPAL('app') OBJTYPE(QUEUE) "
                         "AUTHADD(PUT,GET)\n"
                         "SET AUTHREC PROFILE('SYSTEM.ADMIN.COMMAND.QUEUE') PRINCIPAL('app') "
                         "OBJTYPE(QUEUE) AUTHADD(PUT,DSP)\n"
                         "SET AUTHREC PROFILE('DEV.APP.MODEL.QUEUE') PRINCIPAL('app') "
                         "OBJTYPE(QUEUE) AUTHADD(GET,DSP)\n"
                         "SET AUTHREC PRINCIPAL('app') OBJTYPE(QMGR) AUTHADD(CONNECT,DSP)")
        yield manager


@pytest.fixture
def app(sqm):
    connection = ibmmq.connect(sqm.name, APP_CHANNEL, sqm.conn_name, user="app",
                               password="S3cret.pw")
    yield connection
    connection.disconnect()


@pytest.fixture(autouse=True)
def stopped(sqm):
    """Each test starts with no trace running and no trace file (the first: as started)."""
    yield
    if "RUNNING" in sqm.run_mqsc("DISPLAY TRACE"):
        sqm.run_mqsc("STOP TRACE")
    for path in trace_files(sqm) + trace_files(sqm, "TRS"):
        path.unlink()


def test_off_by_default_then_one_queue_is_traced_with_reasons_by_name(sqm, app):
    assert "STATUS(STOPPED)" in sqm.run_mqsc("DISPLAY TRACE")
    put_get(app, "TRACED.Q", b"before")
    assert trace_files(sqm) == []                    # off: no file, nothing written
    started = sqm.run_mqsc("START TRACE TYPE(API) QUEUE(TRACED.Q)")
    assert "Trace started: TYPE(API)" in started and "AMQ" in started, started
    put_get(app, "TRACED.Q", b"traced body")
    put_get(app, "OTHER.Q", b"other body")
    with pytest.raises(ibmmq.MQMIError):
        ibmmq.Queue(app, "TRACED.Q", CMQC.MQOO_BROWSE)   # app has no +browse: 2035
    sqm.run_mqsc("STOP TRACE")
    put_get(app, "TRACED.Q", b"after the stop")
    found = records(sqm)
    # IBM's OpenTelemetry instrumentation (ibmmq/mqotel.py, on when opentelemetry is
    # importable) opens a queue opened for input once more, for MQOO_INQUIRE, to learn its
    # PROPCTL: a call of the application's like any other, traced as IBM MQ traces it, and
    # refused here (app has no +inq)
    inquiry = ["OPEN"] if ibmmq.OTelFunctions.open else []
    assert [r["verb"] for r in found] == ["OPEN", *inquiry, "PUT", "GET", "CLOSE", "OPEN"]
    assert {r["object"] for r in found} == {"TRACED.Q"}
    assert {r["user"] for r in found} == {"app"}
    assert len({r["conn"] for r in found}) == 1 and all(r["pid"] and r["thread"] for r in found)
    refused = ["MQRC_NOT_AUTHORIZED"] * len(inquiry)
    assert [r["rc"] for r in found] == ["MQRC_NONE", *refused] + ["MQRC_NONE"] * 3 + [
        "MQRC_NOT_AUTHORIZED"]
    assert found[0]["options"] == CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED
    assert [r["options"] for r in found[1:1 + len(inquiry)]] == [CMQC.MQOO_INQUIRE] * len(inquiry)
    text = "".join(path.read_text() for path in trace_files(sqm))
    assert "data" not in found[1 + len(inquiry)] and b"traced body".hex() not in text


def test_message_data_only_when_asked_and_never_a_password(sqm):
    sqm.run_mqsc("START TRACE TYPE(API) DATA(-1)")
    connection = ibmmq.connect(sqm.name, APP_CHANNEL, sqm.conn_name, user="app",
                               password="S3cret.pw")
    put_get(connection, "TRACED.Q", b"asked for")
    connection.disconnect()
    sqm.run_mqsc("STOP TRACE")
    found = records(sqm)
    conn = [r for r in found if r["verb"] == "CONN"]
    assert "app" in {r["user"] for r in conn}
    assert any(r.get("data") == b"asked for".hex() for r in found if r["verb"] == "PUT")
    raw = b"".join(path.read_bytes() for path in trace_files(sqm))
    assert b"S3cret" not in raw and b"S3cret".hex().encode() not in raw


def test_the_file_wraps_at_its_limit_keeping_the_older_part(sqm, app):
    limit = 2048
    sqm.run_mqsc(f"START TRACE TYPE(API) QUEUE(OTHER.Q) LIMIT({limit})")
    for number in range(20):
        put_get(app, "OTHER.Q", f"m{number}".encode())
    sqm.run_mqsc("STOP TRACE")
    [current], [older] = trace_files(sqm), trace_files(sqm, "TRS")
    assert current.stat().st_size <= limit and older.stat().st_size <= limit
    assert json.loads(current.read_text().splitlines()[-1])["verb"] == "CLOSE"


def test_a_user_without_administrative_authority_cannot_start_or_stop_a_trace(sqm):
    for command in ("START TRACE TYPE(ALL)", "STOP TRACE"):
        with admin.session_on_channel(sqm.host, sqm.port, "app", "S3cret.pw", APP_CHANNEL,
                                      model=MODEL, qm_name=sqm.name) as session:
            ok, output = admin.run_script(session, command)
        assert not ok and ("MQRC_NOT_AUTHORIZED" in output or "2035" in output), output
    assert "STATUS(STOPPED)" in sqm.run_mqsc("DISPLAY TRACE")


def test_bad_settings_are_refused_by_name(sqm):
    for command, says in (("START TRACE TYPE(EVERYTHING)", "valid: API, COMMS, ALL"),
                          ("START TRACE LIMIT(10)", "at least 1024"),
                          ("START TRACE DATA(-5)", "-1 all"),
                          ("START TRACE COLOUR(RED)", "valid: TYPE, CHANNEL, QUEUE"),
                          ("STOP TRACE", "no trace is running")):
        with pytest.raises(embedded.EmbeddedQueueManagerError) as refused:
            sqm.run_mqsc(command)
        assert says in str(refused.value), refused.value


def test_a_comms_trace_of_one_channel_shows_its_flows_and_sequence_numbers(tmp_path):
    qmb = start(tmp_path, "QMB", mqsc="DEFINE QLOCAL(IN.B)\n")
    qma = start(tmp_path, "QMA")
    try:
        channel = link(qma, qmb)
        for qm in (qma, qmb):
            qm.run_mqsc(f"START TRACE TYPE(COMMS) CHANNEL({channel}) DATA(0)")
        put_remote(connect(qma), "IN.B", "QMB", [b"one", b"two", b"three"])
        assert len(receive(connect(qmb), "IN.B", 3)) == 3
        for qm in (qma, qmb):
            qm.run_mqsc("STOP TRACE")
        sent = [r for r in records(qma) if r["type"] == "COMMS"]
        got = [r for r in records(qmb) if r["type"] == "COMMS"]
        assert {r["channel"] for r in sent + got} == {channel}
        assert [r["seq"] for r in sent if r["segment"] == "MSG" and r["dir"] == "out"] == [1, 2, 3]
        assert [r["seq"] for r in got if r["segment"] == "MSG" and r["dir"] == "in"] == [1, 2, 3]
        assert got[0]["segment"] == "CHL" and got[0]["dir"] == "in"
        assert any(r["segment"] == "END" for r in sent) and any(r["segment"] == "DONE" for r in got)
        assert all(r["size"] > 0 and "data" not in r for r in sent + got)
        assert not [r for r in records(qma) if r["type"] == "API"]
    finally:
        qma.stop()
        qmb.stop()
