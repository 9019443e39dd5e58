"""Performance events: Queue Depth High, Queue Depth Low and Queue Full messages on
SYSTEM.ADMIN.PERFM.EVENT, in IBM's PCF event format (read with ibmmq's PCF classes), with
IBM's switching of QDPHIEV, QDPLOEV and QDPMAXEV after each event; the attributes in MQSC,
MQINQ and PCF. Each test has a queue manager process of its own: PERFMEV is queue-manager
wide."""
from __future__ import annotations

import itertools

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

import spark_mq.embedded as embedded
from spark_mq.embedded import EmbeddedQueueManagerError
from support import events_on, next_event

EVENTS = "SYSTEM.ADMIN.PERFM.EVENT"
_names = itertools.count(1)


@pytest.fixture
def manager(tmp_path):
    with embedded.EmbeddedQueueManager(str(tmp_path / "qm"), name="QMPERF") as started:
        yield started


@pytest.fixture
def client(manager):
    connection = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
    yield connection
    try:
        connection.disconnect()
    except ibmmq.MQMIError:
        pass    # the queue manager was killed under it


def define(manager, attributes: str = "") -> str:
    name = f"DEPTH.Q{next(_names)}"
    manager.run_mqsc(f"DEFINE QLOCAL({name}) {attributes}")
    return name


def put(conn, name: str, count: int, options: int = CMQC.MQPMO_NO_SYNCPOINT) -> None:
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT)
    try:
        for _ in range(count):
            queue.put(b"m", ibmmq.MD(), ibmmq.PMO(Options=options))
    finally:
        queue.close()


def get(conn, name: str, count: int) -> None:
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_SHARED)
    try:
        for _ in range(count):
            queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    finally:
        queue.close()


def flags(conn, name: str) -> tuple[int, int, int]:
    """(QDPHIEV, QDPLOEV, QDPMAXEV) as MQINQ answers them (MQEVR_*)."""
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_INQUIRE)
    try:
        return tuple(queue.inquire(selector) for selector in (
            CMQC.MQIA_Q_DEPTH_HIGH_EVENT, CMQC.MQIA_Q_DEPTH_LOW_EVENT, CMQC.MQIA_Q_DEPTH_MAX_EVENT))
    finally:
        queue.close()


ON, OFF = CMQCFC.MQEVR_ENABLED, CMQCFC.MQEVR_DISABLED


# --- attributes -----------------------------------------------------------------------------

def test_defaults_are_ibms_and_show_in_display(manager):
    name = define(manager)
    shown = manager.run_mqsc(f"DISPLAY QLOCAL({name}) QDEPTHHI QDEPTHLO QDPHIEV QDPLOEV QDPMAXEV")
    for item in ("QDEPTHHI(80)", "QDEPTHLO(20)", "QDPHIEV(DISABLED)", "QDPLOEV(DISABLED)",
                 "QDPMAXEV(ENABLED)"):
        assert item in shown, shown
    shown = manager.run_mqsc("DISPLAY QMGR PERFMEV CHLEV")
    assert "PERFMEV(DISABLED)" in shown and "CHLEV(DISABLED)" in shown, shown


@pytest.mark.parametrize("command, named", [
    ("DEFINE QLOCAL(BAD.HI) QDEPTHHI(101)", ("QDEPTHHI", "101", "0 to 100")),
    ("DEFINE QLOCAL(BAD.LO) QDEPTHLO(-1)", ("QDEPTHLO", "-1", "0 to 100")),
    ("DEFINE QLOCAL(BAD.EV) QDPHIEV(MAYBE)", ("QDPHIEV", "MAYBE", "DISABLED, ENABLED")),
    ("DEFINE QLOCAL(BAD.MAX) QDPMAXEV(YES)", ("QDPMAXEV", "YES", "ENABLED, DISABLED")),
    ("DEFINE QALIAS(BAD.ALIAS) TARGET(X) QDPLOEV(ENABLED)", ("QDPLOEV", "QLOCAL and QMODEL")),
    ("ALTER QMGR PERFMEV(ON)", ("PERFMEV", "ON", "DISABLED, ENABLED")),
    ("ALTER QMGR CHLEV(SOMETIMES)", ("CHLEV", "SOMETIMES", "DISABLED, ENABLED, EXCEPTION")),
])
def test_bad_values_name_the_attribute_the_value_and_what_is_valid(manager, command, named):
    with pytest.raises(EmbeddedQueueManagerError) as exc:
        manager.run_mqsc(command)
    for part in named:
        assert part in str(exc.value), str(exc.value)


def test_mqinq_answers_the_attributes_of_a_queue_and_of_the_queue_manager(manager, client):
    name = define(manager, "QDEPTHHI(60) QDEPTHLO(10) QDPHIEV(ENABLED)")
    queue = ibmmq.Queue(client, name, CMQC.MQOO_INQUIRE)
    assert queue.inquire(CMQC.MQIA_Q_DEPTH_HIGH_LIMIT) == 60
    assert queue.inquire(CMQC.MQIA_Q_DEPTH_LOW_LIMIT) == 10
    queue.close()
    assert flags(client, name) == (ON, OFF, ON)
    assert client.inquire(CMQC.MQIA_PERFORMANCE_EVENT) == OFF
    manager.run_mqsc("ALTER QMGR PERFMEV(ENABLED) CHLEV(EXCEPTION)")
    assert client.inquire(CMQC.MQIA_PERFORMANCE_EVENT) == ON
    assert client.inquire(CMQC.MQIA_CHANNEL_EVENT) == CMQCFC.MQEVR_EXCEPTION


def test_pcf_inquires_and_changes_them(manager, client):
    name = define(manager)
    pcf = ibmmq.PCFExecute(client)
    try:
        pcf.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: name.encode(), CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                            CMQC.MQIA_Q_DEPTH_HIGH_LIMIT: 90, CMQC.MQIA_Q_DEPTH_LOW_EVENT: ON})
        [answer] = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: name.encode(), CMQCFC.MQIACF_Q_ATTRS: [
            CMQC.MQIA_Q_DEPTH_HIGH_LIMIT, CMQC.MQIA_Q_DEPTH_LOW_LIMIT, CMQC.MQIA_Q_DEPTH_LOW_EVENT,
            CMQC.MQIA_Q_DEPTH_MAX_EVENT]})
        assert answer[CMQC.MQIA_Q_DEPTH_HIGH_LIMIT] == 90
        assert answer[CMQC.MQIA_Q_DEPTH_LOW_LIMIT] == 20
        assert answer[CMQC.MQIA_Q_DEPTH_LOW_EVENT] == ON
        assert answer[CMQC.MQIA_Q_DEPTH_MAX_EVENT] == ON
        with pytest.raises(ibmmq.MQMIError) as exc:
            pcf.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: name.encode(), CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                                CMQC.MQIA_Q_DEPTH_HIGH_LIMIT: 150})
        assert exc.value.reason == CMQCFC.MQRCCF_PARM_VALUE_ERROR
        pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_PERFORMANCE_EVENT: ON,
                                CMQC.MQIA_CHANNEL_EVENT: CMQCFC.MQEVR_EXCEPTION})
        [answer] = pcf.MQCMD_INQUIRE_Q_MGR({CMQCFC.MQIACF_Q_MGR_ATTRS: [
            CMQC.MQIA_PERFORMANCE_EVENT, CMQC.MQIA_CHANNEL_EVENT]})
        assert answer[CMQC.MQIA_PERFORMANCE_EVENT] == ON
        assert answer[CMQC.MQIA_CHANNEL_EVENT] == CMQCFC.MQEVR_EXCEPTION
        with pytest.raises(ibmmq.MQMIError) as exc:
            pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_PERFORMANCE_EVENT: 7})
        assert exc.value.reason == CMQCFC.MQRCCF_PARM_VALUE_ERROR
    finally:
        pcf.disconnect()
    assert "QDEPTHHI(90)" in manager.run_mqsc(f"DISPLAY QLOCAL({name}) QDEPTHHI")


# --- the events -----------------------------------------------------------------------------

def assert_event(event, manager, name: str, reason: int, high: int, enqueued: int,
                 dequeued: int) -> None:
    assert event is not None, "no event message"
    md, header, values = event
    assert md.Format == CMQC.MQFMT_EVENT and md.MsgType == CMQC.MQMT_DATAGRAM
    assert md.PutApplType == CMQC.MQAT_QMGR
    assert md.PutApplName.rstrip(b"\0 ") == manager.name.encode()
    assert md.Persistence == CMQC.MQPER_NOT_PERSISTENT and md.Expiry == CMQC.MQEI_UNLIMITED
    assert (header.Type, header.Command, header.CompCode, header.Reason) == (
        CMQCFC.MQCFT_EVENT, CMQCFC.MQCMD_PERFM_EVENT, CMQC.MQCC_WARNING, reason)
    assert (header.MsgSeqNumber, header.Control, header.ParameterCount) == (1, CMQCFC.MQCFC_LAST, 6)
    assert values[CMQC.MQCA_Q_MGR_NAME] == manager.name
    assert values[CMQC.MQCA_BASE_OBJECT_NAME] == name
    assert values[CMQC.MQIA_TIME_SINCE_RESET] >= 0
    assert (values[CMQC.MQIA_HIGH_Q_DEPTH], values[CMQC.MQIA_MSG_ENQ_COUNT],
            values[CMQC.MQIA_MSG_DEQ_COUNT]) == (high, enqueued, dequeued)


def test_high_full_and_low_events_and_the_flags_they_switch(manager, client):
    """IBM's "queue depth events" example: MAXDEPTH 10, limits 80% and 20%, High enabled."""
    manager.run_mqsc("ALTER QMGR PERFMEV(ENABLED)")
    name = define(manager, "MAXDEPTH(10) QDPHIEV(ENABLED) QDPLOEV(DISABLED)")
    put(client, name, 7)
    assert events_on(client, EVENTS) == []
    put(client, name, 1)                                   # depth 8: 80% of 10
    assert_event(next_event(client, EVENTS), manager, name, CMQC.MQRC_Q_DEPTH_HIGH, 8, 8, 0)
    assert flags(client, name) == (OFF, ON, ON)
    shown = manager.run_mqsc(f"DISPLAY QLOCAL({name}) QDPHIEV QDPLOEV QDPMAXEV")
    assert "QDPHIEV(DISABLED)" in shown and "QDPLOEV(ENABLED)" in shown, shown
    put(client, name, 2)                                   # full, no second High
    for _ in range(2):
        with pytest.raises(ibmmq.MQMIError) as exc:
            put(client, name, 1)
        assert exc.value.reason == CMQC.MQRC_Q_FULL
    [full] = events_on(client, EVENTS)                     # the second refusal: no event
    assert_event(full, manager, name, CMQC.MQRC_Q_FULL, 10, 2, 0)
    assert flags(client, name) == (OFF, ON, OFF)
    get(client, name, 7)                                   # depth 3: above 20%
    assert events_on(client, EVENTS) == []
    get(client, name, 1)                                   # depth 2: 20% of 10
    assert_event(next_event(client, EVENTS), manager, name, CMQC.MQRC_Q_DEPTH_LOW, 10, 0, 8)
    assert flags(client, name) == (ON, OFF, ON)
    get(client, name, 2)
    put(client, name, 7)
    assert events_on(client, EVENTS) == []
    put(client, name, 1)                                   # High again, enabled by Low
    assert_event(next_event(client, EVENTS), manager, name, CMQC.MQRC_Q_DEPTH_HIGH, 8, 8, 2)


def test_nothing_happens_while_perfmev_is_disabled(manager, client):
    name = define(manager, "MAXDEPTH(5) QDPHIEV(ENABLED) QDPLOEV(ENABLED)")
    put(client, name, 5)
    with pytest.raises(ibmmq.MQMIError):
        put(client, name, 1)
    get(client, name, 5)
    assert events_on(client, EVENTS) == []
    assert flags(client, name) == (ON, ON, ON)


def test_an_event_is_outside_the_unit_of_work_that_caused_it(manager, client):
    """A put under syncpoint counts in the depth at once (IBM's CURDEPTH): the event is there
    before the commit and stays after a backout; the flags stay switched."""
    manager.run_mqsc("ALTER QMGR PERFMEV(ENABLED)")
    name = define(manager, "MAXDEPTH(10) QDPHIEV(ENABLED)")
    put(client, name, 8, CMQC.MQPMO_SYNCPOINT)
    other = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
    try:
        assert_event(next_event(other, EVENTS), manager, name, CMQC.MQRC_Q_DEPTH_HIGH, 8, 8, 0)
    finally:
        other.disconnect()
    client.backout()
    assert flags(client, name) == (OFF, ON, ON)
    queue = ibmmq.Queue(client, name, CMQC.MQOO_INQUIRE)
    assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 0
    queue.close()


def test_a_transmission_queue_has_events_too(manager, client):
    manager.run_mqsc("ALTER QMGR PERFMEV(ENABLED)\n"
                     "DEFINE QLOCAL(TO.ELSEWHERE) USAGE(XMITQ) MAXDEPTH(4) QDPHIEV(ENABLED)\n"
                     "DEFINE QREMOTE(FAR.Q) RNAME(APP.Q) RQMNAME(ELSEWHERE) XMITQ(TO.ELSEWHERE)")
    put(client, "FAR.Q", 4)
    assert_event(next_event(client, EVENTS), manager, "TO.ELSEWHERE", CMQC.MQRC_Q_DEPTH_HIGH, 4, 4, 0)


def test_an_unavailable_event_queue_loses_the_event_not_the_put(manager, client):
    manager.run_mqsc(f"ALTER QMGR PERFMEV(ENABLED)\nALTER QLOCAL({EVENTS}) PUT(DISABLED)")
    name = define(manager, "MAXDEPTH(2) QDPHIEV(ENABLED)")
    put(client, name, 2)
    assert flags(client, name) == (OFF, ON, ON)            # switched all the same, as IBM's
    manager.run_mqsc(f"ALTER QLOCAL({EVENTS}) PUT(ENABLED)")
    assert events_on(client, EVENTS) == []
    assert "event 2224 lost: the event queue SYSTEM.ADMIN.PERFM.EVENT is put-inhibited" in (
        open(f"{manager.data_dir}/qmgr.log").read())


def test_the_switched_flags_are_kept_across_a_restart(manager, client):
    manager.run_mqsc("ALTER QMGR PERFMEV(ENABLED)")
    name = define(manager, "MAXDEPTH(1) QDPHIEV(ENABLED)")
    put(client, name, 1)
    assert flags(client, name) == (OFF, ON, ON)
    manager.kill()
    manager.start()
    again = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
    try:
        assert flags(again, name) == (OFF, ON, ON)
    finally:
        again.disconnect()


# --- queue service interval events ---------------------------------------------------------
# IBM docs "Queue service interval events" (examples 1 to 3), "Queue Service Interval High",
# "Queue Service Interval OK". QSVCINT(0) makes every put or get that finds the timer running
# late (some time always passes between two calls), QSVCINT(999999999) never: the events
# depend on the order of the calls, not on how long they take.
NEVER_LATE, ALWAYS_LATE = "QSVCINT(999999999)", "QSVCINT(0)"


def service_flag(conn, name: str) -> int:
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_INQUIRE)
    try:
        return queue.inquire(CMQC.MQIA_Q_SERVICE_INTERVAL_EVENT)
    finally:
        queue.close()


_QSIE_HIGH, _QSIE_OK = 1, 2      # IBM's MQQSIE_HIGH and MQQSIE_OK


def test_service_interval_high_then_ok(manager, client):
    """Example 1: a get after the interval is High (then OK is enabled), and with the
    interval long again, the next get within it is OK (then High is enabled)."""
    manager.run_mqsc("ALTER QMGR PERFMEV(ENABLED)")
    name = define(manager, f"QSVCIEV(HIGH) {ALWAYS_LATE}")
    put(client, name, 1)                    # starts the timer: nothing yet
    assert events_on(client, EVENTS) == []
    get(client, name, 1)                    # late: High, and the timer stops (empty)
    assert_event(next_event(client, EVENTS), manager, name, CMQC.MQRC_Q_SERVICE_INTERVAL_HIGH,
                 1, 1, 1)
    assert service_flag(client, name) == _QSIE_OK
    assert "QSVCIEV(OK)" in manager.run_mqsc(f"DISPLAY QLOCAL({name}) QSVCIEV")
    manager.run_mqsc(f"ALTER QLOCAL({name}) {NEVER_LATE}")
    put(client, name, 1)
    get(client, name, 1)                    # within the interval: OK
    assert_event(next_event(client, EVENTS), manager, name, CMQC.MQRC_Q_SERVICE_INTERVAL_OK,
                 1, 1, 1)
    assert service_flag(client, name) == _QSIE_HIGH
    put(client, name, 1)
    get(client, name, 1)                    # OK again is not enabled: nothing
    assert events_on(client, EVENTS) == []


def test_a_put_finds_the_timer_late_too(manager, client):
    """Example 3: the timer started by the first put is late at the third put: High."""
    manager.run_mqsc("ALTER QMGR PERFMEV(ENABLED)")
    name = define(manager, f"QSVCIEV(HIGH) {ALWAYS_LATE}")
    put(client, name, 1)
    assert events_on(client, EVENTS) == []
    put(client, name, 1)
    assert_event(next_event(client, EVENTS), manager, name, CMQC.MQRC_Q_SERVICE_INTERVAL_HIGH,
                 2, 2, 0)
    put(client, name, 1)                    # High is disabled now
    assert events_on(client, EVENTS) == []


def test_no_service_interval_event_when_off(manager, client):
    """QSVCIEV(NONE), IBM's default, or PERFMEV(DISABLED): nothing, and no flag moves."""
    name = define(manager, f"QSVCIEV(HIGH) {ALWAYS_LATE}")
    put(client, name, 2)
    get(client, name, 2)
    assert events_on(client, EVENTS) == [] and service_flag(client, name) == _QSIE_HIGH
    manager.run_mqsc("ALTER QMGR PERFMEV(ENABLED)")
    quiet = define(manager, ALWAYS_LATE)
    put(client, quiet, 2)
    get(client, quiet, 2)
    assert events_on(client, EVENTS) == []
