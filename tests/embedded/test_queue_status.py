"""Queue monitoring as IBM MQ does it with MONQ: DISPLAY QSTATUS and PCF Inquire Queue
Status give MSGAGE, QTIME, LPUTDATE/LPUTTIME and LGETDATE/LGETTIME when monitoring is on
for the queue (its MONQ, or the queue manager's), blank / MQMON_NOT_AVAILABLE when it is
off; the ages come from the queue manager's own clock, or from the MQMD for a message read
back from the store (a restart, a queue deeper than its memory)."""
from __future__ import annotations

import itertools
import re
import time

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

import spark_mq.embedded as embedded
from spark_mq.embedded.server.events.statistics import LONG_WEIGHT, SHORT_WEIGHT, QueueStatistics

_names = itertools.count(1)


@pytest.fixture
def manager(tmp_path):
    with embedded.EmbeddedQueueManager(str(tmp_path / "qm"), name="QMMON", queue_memory=4) as started:
        yield started


@pytest.fixture
def client(manager):
    connection = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
    yield connection
    try:
        connection.disconnect()
    except ibmmq.MQMIError:
        pass    # a test restarted the queue manager under it


def define(manager, attributes: str = "") -> str:
    name = f"MON.Q{next(_names)}"
    manager.run_mqsc(f"DEFINE QLOCAL({name}) {attributes}")
    return name


def put(conn, name: str, payloads, **md_fields) -> None:
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)
    options = CMQC.MQPMO_NO_SYNCPOINT | (CMQC.MQPMO_SET_ALL_CONTEXT if md_fields else 0)
    for payload in payloads:
        queue.put(payload, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT, **md_fields),
                  ibmmq.PMO(Options=options))
    queue.close()


def get(conn, name: str, count: int, syncpoint: bool = False) -> list[bytes]:
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_SHARED)
    options = CMQC.MQGMO_SYNCPOINT if syncpoint else CMQC.MQGMO_NO_SYNCPOINT
    got = [queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=options)) for _ in range(count)]
    queue.close()
    return got


def qstatus(manager, name: str, what: str = "ALL") -> dict[str, str]:
    """DISPLAY QSTATUS's values, keyword -> text in the parentheses."""
    output = manager.run_mqsc(f"DISPLAY QSTATUS({name}) {what}")
    assert "AMQ8450I: Display queue status details." in output
    return dict(re.findall(r"(\w+)\(([^)]*)\)", output))


def pcf_status(conn, name: str) -> dict:
    return ibmmq.PCFExecute(conn).MQCMD_INQUIRE_Q_STATUS({CMQC.MQCA_Q_NAME: name.encode()})[0]


def hours_ago(hours: float) -> dict:
    """MQMD PutDate/PutTime (GMT) of `hours` ago."""
    stamp = time.gmtime(time.time() - hours * 3600)
    return {"PutDate": time.strftime("%Y%m%d", stamp).encode(),
            "PutTime": time.strftime("%H%M%S00", stamp).encode()}


def test_monitoring_off_shows_blanks_as_ibm_mq(manager, client):
    name = define(manager)
    put(client, name, [b"a", b"b"])
    get(client, name, 1)
    shown = qstatus(manager, name)
    assert shown["MONQ"] == "OFF" and shown["CURDEPTH"] == "1"
    for key in ("LGETDATE", "LGETTIME", "LPUTDATE", "LPUTTIME", "MSGAGE"):
        assert shown[key] == " ", key
    assert shown["QTIME"] == " , "
    status = pcf_status(client, name)
    assert status[CMQCFC.MQIACF_OLDEST_MSG_AGE] == CMQC.MQMON_NOT_AVAILABLE
    assert status[CMQCFC.MQIACF_Q_TIME_INDICATOR] == [CMQC.MQMON_NOT_AVAILABLE] * 2
    assert status[CMQCFC.MQCACF_LAST_PUT_DATE].strip() == b""
    assert status[CMQC.MQIA_MONITORING_Q] == CMQC.MQMON_OFF
    # without ALL, runmqsc shows the depth only
    assert set(qstatus(manager, name, "")) == {"QUEUE", "TYPE", "CURDEPTH"}


def test_monitoring_on_shows_last_put_get_qtime_and_age(manager, client):
    manager.run_mqsc("ALTER QMGR MONQ(MEDIUM)")
    name = define(manager)
    before = time.time()
    put(client, name, [b"a" * 10, b"b" * 10, b"c" * 10])
    got = get(client, name, 2)
    after = time.time()
    assert got == [b"a" * 10, b"b" * 10]
    shown = qstatus(manager, name, "MONITOR")
    assert shown["MONQ"] == "MEDIUM"
    today = {time.strftime("%Y-%m-%d", time.localtime(t)) for t in (before, after)}
    assert shown["LPUTDATE"] in today and shown["LGETDATE"] in today
    assert re.fullmatch(r"\d\d\.\d\d\.\d\d", shown["LPUTTIME"])
    assert re.fullmatch(r"\d\d\.\d\d\.\d\d", shown["LGETTIME"])
    short, long = (int(v) for v in shown["QTIME"].split(","))
    assert 0 <= short <= (after - before) * 1e6 and 0 <= long <= (after - before) * 1e6
    assert 0 <= int(shown["MSGAGE"]) <= time.time() - before + 1
    status = pcf_status(client, name)
    assert status[CMQC.MQIA_MONITORING_Q] == CMQC.MQMON_MEDIUM
    assert status[CMQCFC.MQIACF_Q_TIME_INDICATOR] == [short, long]
    assert status[CMQCFC.MQCACF_LAST_GET_DATE].strip().decode() in today
    # the last message gone: an empty queue's MSGAGE is 0
    get(client, name, 1)
    assert qstatus(manager, name)["MSGAGE"] == "0"


def test_queue_monq_overrides_and_qmgr_none_switches_all_off(manager, client):
    manager.run_mqsc("ALTER QMGR MONQ(LOW)")
    on, off, own = define(manager), define(manager, "MONQ(OFF)"), define(manager, "MONQ(HIGH)")
    assert qstatus(manager, on)["MONQ"] == "LOW"
    assert qstatus(manager, off)["MONQ"] == "OFF" and qstatus(manager, off)["MSGAGE"] == " "
    assert qstatus(manager, own)["MONQ"] == "HIGH"
    manager.run_mqsc("ALTER QMGR MONQ(OFF)")
    assert qstatus(manager, on)["MONQ"] == "OFF" and qstatus(manager, own)["MONQ"] == "HIGH"
    manager.run_mqsc("ALTER QMGR MONQ(NONE)")
    assert qstatus(manager, own)["MONQ"] == "OFF"
    # the attributes themselves, as DISPLAY and PCF show them
    assert "MONQ(HIGH)" in manager.run_mqsc(f"DISPLAY QLOCAL({own}) MONQ")
    assert "MONQ(NONE)" in manager.run_mqsc("DISPLAY QMGR MONQ")
    inquired = ibmmq.PCFExecute(client).MQCMD_INQUIRE_Q(
        {CMQC.MQCA_Q_NAME: own.encode(), CMQCFC.MQIACF_Q_ATTRS: [CMQC.MQIA_MONITORING_Q]})
    assert inquired[0][CMQC.MQIA_MONITORING_Q] == CMQC.MQMON_HIGH
    ibmmq.PCFExecute(client).MQCMD_CHANGE_Q_MGR({CMQC.MQIA_MONITORING_Q: CMQC.MQMON_MEDIUM})
    assert "MONQ(MEDIUM)" in manager.run_mqsc("DISPLAY QMGR MONQ")
    with pytest.raises(embedded.EmbeddedQueueManagerError, match=r"MONQ.*valid: QMGR, OFF, LOW"):
        manager.run_mqsc(f"ALTER QLOCAL({own}) MONQ(SOMETIMES)")


def test_age_of_messages_read_back_from_the_store(manager, client):
    """After a restart the messages are in the store only: their age comes from the MQMD.
    On a PRIORITY queue the oldest message is not the first delivered: MSGAGE is the
    oldest's, as IBM MQ's."""
    manager.run_mqsc("ALTER QMGR MONQ(MEDIUM)")
    name = define(manager, "MSGDLVSQ(PRIORITY)")
    put(client, name, [b"old"], Priority=0, **hours_ago(2))
    # 6 minutes ago: QTIME shows at most 999,999,999 microseconds
    put(client, name, [b"newer"], Priority=9, **hours_ago(0.1))
    manager.stop()
    manager.start()
    age = int(qstatus(manager, name)["MSGAGE"])
    assert 2 * 3600 - 60 <= age <= 2 * 3600 + 60      # the clock's minute of slack
    conn = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
    try:
        assert get(conn, name, 1) == [b"newer"]          # priority 9 first
        # QTIME of a message the store gave back: measured from its MQMD put time
        short, _ = (int(v) for v in qstatus(manager, name)["QTIME"].split(","))
        assert 360e6 - 60e6 <= short <= 360e6 + 60e6
    finally:
        conn.disconnect()


def test_age_of_a_queue_deeper_than_its_memory_reads_the_store_in_place(manager, client):
    """With --queue-memory 4, 40 messages leave most of them in the store: MSGAGE is the
    first one's, and a get still takes them in order afterwards."""
    manager.run_mqsc("ALTER QMGR MONQ(MEDIUM)")
    name = define(manager, "MSGDLVSQ(FIFO)")
    put(client, name, [b"first"], **hours_ago(3))
    put(client, name, [f"m{i}".encode() for i in range(39)])
    manager.stop()
    manager.start()
    shown = qstatus(manager, name)
    assert shown["CURDEPTH"] == "40"
    assert 3 * 3600 - 60 <= int(shown["MSGAGE"]) <= 3 * 3600 + 60
    conn = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
    try:
        assert get(conn, name, 40) == [b"first"] + [f"m{i}".encode() for i in range(39)]
    finally:
        conn.disconnect()


def test_uncommitted_gets_and_backouts(manager, client):
    name = define(manager)
    put(client, name, [b"a", b"b"])
    get(client, name, 2, syncpoint=True)
    shown = qstatus(manager, name)
    assert shown["UNCOM"] == "2" and shown["CURDEPTH"] == "0"
    client.backout()
    shown = qstatus(manager, name)
    assert shown["UNCOM"] == "NO" and shown["CURDEPTH"] == "2"


def test_qtime_indicators_weigh_recent_messages_more():
    stats = QueueStatistics()
    for micros in (1000.0, 1000.0, 9000.0):
        stats._queue_time(micros)
    expected_short = 1000 + 8000 * SHORT_WEIGHT
    expected_long = 1000 + 8000 * LONG_WEIGHT
    assert stats.qtime_short == pytest.approx(expected_short)
    assert stats.qtime_long == pytest.approx(expected_long)
    assert stats.qtime_short > stats.qtime_long
