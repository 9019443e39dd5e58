"""Conformance: triggering as IBM MQ does it (IBM docs "Conditions for a trigger event",
"MQTM - Trigger message", "Trigger messages and units of work"), through IBM's `ibmmq` API
on a real embedded queue manager, the trigger messages parsed with IBM's own TM class.

Each test is its own trigger monitor: it opens its initiation queue for input, as runmqtrm
does. A trigger message is made inside the MQPUT (or MQCMIT, MQOPEN, MQCLOSE, MQSET) that
causes it, so a get without wait right after that call sees it or shows there is none."""
from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager

import ibmmq
import pytest
from ibmmq import CMQC

import spark_mq.embedded as embedded

QM = "QMTRIG"
DLQ = "TRIG.DLQ"
SETUP = f"""
DEFINE QLOCAL({DLQ})
ALTER QMGR DEADQ({DLQ})
DEFINE PROCESS(TRIG.PROC) APPLICID('/opt/app/run job') APPLTYPE(UNIX) +
       ENVRDATA('ENV=1 &') USERDATA('user data') DESCR('a process')
"""
_numbers = itertools.count(1)


@pytest.fixture(scope="module")
def tqm(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmtrig")), name=QM,
                                       mqsc=SETUP) as manager:
        yield manager


@pytest.fixture
def conn(tqm):
    connection = ibmmq.connect(QM, "DEV.APP.SVRCONN", tqm.conn_name)
    yield connection
    connection.disconnect()


@pytest.fixture
def queues(tqm):
    """queues("TRIGTYPE(EVERY)") -> (application queue, its initiation queue), both new."""
    def make(attributes: str = "", process: str = "PROCESS(TRIG.PROC)",
             initq_attributes: str = "") -> tuple[str, str]:
        number = next(_numbers)
        app, initq = f"APP.{number}", f"INITQ.{number}"
        tqm.run_mqsc(f"DEFINE QLOCAL({initq}) {initq_attributes}\n"
                     f"DEFINE QLOCAL({app}) TRIGGER INITQ({initq}) {process} "
                     f"TRIGDATA('data of {app}') {attributes}")
        return app, initq
    return make


@contextmanager
def monitor(conn, initq: str) -> Iterator[ibmmq.Queue]:
    """The initiation queue open for input, as a trigger monitor holds it."""
    queue = ibmmq.Queue(conn, initq, CMQC.MQOO_INPUT_SHARED)
    try:
        yield queue
    finally:
        queue.close()


def trigger_messages(queue: ibmmq.Queue) -> list[tuple[ibmmq.MD, ibmmq.TM]]:
    """Every message on the (initiation) queue, as IBM's MQMD and MQTM."""
    found = []
    while True:
        md = ibmmq.MD()
        try:
            data = queue.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))
        except ibmmq.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return found
        tm = ibmmq.TM()
        tm.unpack(data)
        found.append((md, tm))


def put(conn, name: str, count: int = 1, priority: int = CMQC.MQPRI_PRIORITY_AS_Q_DEF,
        syncpoint: bool = False) -> None:
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT)
    options = CMQC.MQPMO_SYNCPOINT if syncpoint else CMQC.MQPMO_NO_SYNCPOINT
    for _ in range(count):
        queue.put(b"work", ibmmq.MD(Priority=priority), ibmmq.PMO(Options=options))
    queue.close()


def drain(conn, name: str) -> int:
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_SHARED)
    count = 0
    try:
        while True:
            queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))
            count += 1
    except ibmmq.MQMIError as exc:
        assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    finally:
        queue.close()
    return count


def trigger_control(conn, name: str) -> int:
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_INQUIRE)
    try:
        return queue.inquire(CMQC.MQIA_TRIGGER_CONTROL)
    finally:
        queue.close()


# --- the trigger message ------------------------------------------------------------------------

def test_first_writes_an_mqtm_for_the_first_message_on_an_empty_queue(conn, queues):
    app, initq = queues("TRIGTYPE(FIRST)", initq_attributes="DEFPRTY(4)")
    with monitor(conn, initq) as initiation:
        put(conn, app)
        [(md, tm)] = trigger_messages(initiation)
        put(conn, app)      # the queue was not empty: no second trigger message
        assert trigger_messages(initiation) == []
    assert md.Format == CMQC.MQFMT_TRIGGER
    assert md.Persistence == CMQC.MQPER_NOT_PERSISTENT
    assert md.Priority == 4                          # the initiation queue's DEFPRTY
    assert md.PutApplType == CMQC.MQAT_QMGR
    assert tm._StrucId == CMQC.MQTM_STRUC_ID and tm.Version == CMQC.MQTM_VERSION_1
    assert tm.QName.strip() == app.encode()
    assert tm.ProcessName.strip() == b"TRIG.PROC"
    assert tm.TriggerData.strip() == f"data of {app}".encode()
    assert tm.ApplType == CMQC.MQAT_UNIX
    assert tm.ApplId.strip() == b"/opt/app/run job"
    assert tm.EnvData.strip() == b"ENV=1 &"
    assert tm.UserData.strip() == b"user data"
    assert len(tm.ApplId) == 256 and len(tm.UserData) == 128   # blank padded, as MQ fills it


def test_every_writes_one_trigger_message_per_message(conn, queues):
    app, initq = queues("TRIGTYPE(EVERY)")
    with monitor(conn, initq) as initiation:
        put(conn, app, count=3)
        assert len(trigger_messages(initiation)) == 3


def test_depth_triggers_at_trigdpth_then_turns_trigger_off(conn, queues, tqm):
    app, initq = queues("TRIGTYPE(DEPTH) TRIGDPTH(3)")
    with monitor(conn, initq) as initiation:
        put(conn, app, count=2)
        assert trigger_messages(initiation) == []
        put(conn, app)
        assert len(trigger_messages(initiation)) == 1
        assert trigger_control(conn, app) == CMQC.MQTC_OFF
        assert "NOTRIGGER" in tqm.run_mqsc(f"DISPLAY QLOCAL({app}) TRIGGER").split()
        put(conn, app, count=3)
        assert trigger_messages(initiation) == []


def test_depth_rearmed_by_mqset_at_depth_triggers_at_once(conn, queues):
    app, initq = queues("TRIGTYPE(DEPTH) TRIGDPTH(2)")
    with monitor(conn, initq) as initiation:
        put(conn, app, count=2)
        assert len(trigger_messages(initiation)) == 1
        put(conn, app)
        queue = ibmmq.Queue(conn, app, CMQC.MQOO_SET)
        queue.set(CMQC.MQIA_TRIGGER_CONTROL, CMQC.MQTC_ON)    # re-armed with 3 >= 2 waiting
        queue.close()
        assert len(trigger_messages(initiation)) == 1
        assert trigger_control(conn, app) == CMQC.MQTC_OFF


def test_depth_rearmed_by_alter_below_depth_waits_for_the_depth(conn, queues, tqm):
    app, initq = queues("TRIGTYPE(DEPTH) TRIGDPTH(2)")
    with monitor(conn, initq) as initiation:
        put(conn, app, count=2)
        assert len(trigger_messages(initiation)) == 1
        assert drain(conn, app) == 2
        tqm.run_mqsc(f"ALTER QLOCAL({app}) TRIGGER")
        assert trigger_messages(initiation) == []
        put(conn, app)
        assert trigger_messages(initiation) == []
        put(conn, app)
        assert len(trigger_messages(initiation)) == 1


def test_only_messages_of_trigmpri_or_more_count(conn, queues):
    app, initq = queues("TRIGTYPE(FIRST) TRIGMPRI(5)")
    with monitor(conn, initq) as initiation:
        put(conn, app, priority=4)
        assert trigger_messages(initiation) == []
        put(conn, app, priority=5)      # the first message of priority 5 or more
        assert len(trigger_messages(initiation)) == 1
        put(conn, app, priority=9)
        assert trigger_messages(initiation) == []


@pytest.mark.parametrize("trigtype, triggered", [("FIRST", 0), ("DEPTH", 0), ("EVERY", 1)])
def test_first_and_depth_only_while_no_program_has_the_queue_open_for_input(
        conn, queues, trigtype, triggered):
    app, initq = queues(f"TRIGTYPE({trigtype}) TRIGDPTH(1)")
    with monitor(conn, initq) as initiation:
        reader = ibmmq.Queue(conn, app, CMQC.MQOO_INPUT_SHARED)
        try:
            put(conn, app)
            assert len(trigger_messages(initiation)) == triggered
        finally:
            reader.close()
        # closing the last input handle with the message still there: FIRST and DEPTH fire now
        assert len(trigger_messages(initiation)) == 1 - triggered


# --- conditions that hold no trigger message -----------------------------------------------------

def test_no_trigger_message_while_no_trigger_monitor_has_the_initq_open(conn, queues):
    app, initq = queues("TRIGTYPE(FIRST)")
    put(conn, app)
    with monitor(conn, initq) as initiation:
        # the first trigger monitor to open the initiation queue triggers the waiting queue
        assert len(trigger_messages(initiation)) == 1
        put(conn, app)
        assert trigger_messages(initiation) == []


@pytest.mark.parametrize("process", ["PROCESS(NO.SUCH.PROCESS)", "PROCESS(' ')"])
def test_no_trigger_message_without_an_existing_process(conn, queues, process):
    app, initq = queues("TRIGTYPE(EVERY)", process=process)
    with monitor(conn, initq) as initiation:
        put(conn, app)
        assert trigger_messages(initiation) == []


def test_a_transmission_queue_triggers_without_a_process(conn, queues):
    app, initq = queues("TRIGTYPE(EVERY) USAGE(XMITQ)", process="")
    with monitor(conn, initq) as initiation:
        put(conn, app)
        [(_, tm)] = trigger_messages(initiation)
    assert tm.QName.strip() == app.encode() and tm.ProcessName.strip() == b""
    assert tm.TriggerData.strip() == f"data of {app}".encode()    # channel triggering's channel


@pytest.mark.parametrize("attributes", ["NOTRIGGER", "TRIGTYPE(NONE)", "GET(DISABLED)"])
def test_no_trigger_message_when_the_queue_may_not_trigger(conn, queues, tqm, attributes):
    app, initq = queues("TRIGTYPE(EVERY)")
    tqm.run_mqsc(f"ALTER QLOCAL({app}) {attributes}")
    with monitor(conn, initq) as initiation:
        put(conn, app)
        assert trigger_messages(initiation) == []


def test_no_trigger_message_for_an_initiation_queue_that_does_not_exist(conn, tqm, queues):
    app, initq = queues("TRIGTYPE(EVERY)")
    tqm.run_mqsc(f"ALTER QLOCAL({app}) INITQ(NO.SUCH.INITQ)")
    with monitor(conn, initq) as initiation:
        put(conn, app)
        assert trigger_messages(initiation) == []


# --- units of work ---------------------------------------------------------------------------------

def test_in_a_unit_of_work_the_trigger_message_appears_at_commit(conn, queues):
    app, initq = queues("TRIGTYPE(FIRST)")
    with monitor(conn, initq) as initiation:
        put(conn, app, syncpoint=True)
        assert trigger_messages(initiation) == []
        conn.commit()
        assert len(trigger_messages(initiation)) == 1


@pytest.mark.parametrize("trigtype, after_backout", [("FIRST", 1), ("DEPTH", 1), ("EVERY", 0)])
def test_a_backed_out_unit_of_work_shows_first_and_depth_trigger_messages(
        conn, queues, trigtype, after_backout):
    app, initq = queues(f"TRIGTYPE({trigtype}) TRIGDPTH(1)")
    with monitor(conn, initq) as initiation:
        put(conn, app, syncpoint=True)
        assert trigger_messages(initiation) == []
        conn.backout()
        assert len(trigger_messages(initiation)) == after_backout


def test_uncommitted_messages_count_for_first(conn, queues):
    app, initq = queues("TRIGTYPE(FIRST)")
    with monitor(conn, initq) as initiation:
        put(conn, app, syncpoint=True)
        put(conn, app)      # outside the unit of work: the queue already holds one message
        assert trigger_messages(initiation) == []
        conn.commit()
        assert len(trigger_messages(initiation)) == 1


# --- TRIGINT and the dead-letter queue -----------------------------------------------------------

def test_first_triggers_again_for_a_put_to_a_non_empty_queue_after_trigint(conn, queues, tqm):
    app, initq = queues("TRIGTYPE(FIRST)")
    tqm.run_mqsc("ALTER QMGR TRIGINT(0)")
    try:
        with monitor(conn, initq) as initiation:
            put(conn, app)
            put(conn, app)      # not empty, but TRIGINT (0 ms) has passed since the last one
            assert len(trigger_messages(initiation)) == 2
    finally:
        tqm.run_mqsc("ALTER QMGR TRIGINT(999999999)")


def test_a_trigger_message_the_initq_refuses_goes_to_the_dead_letter_queue(conn, queues, tqm):
    app, initq = queues("TRIGTYPE(FIRST)", initq_attributes="PUT(DISABLED)")
    with monitor(conn, initq):
        put(conn, app)
    dlq = ibmmq.Queue(conn, DLQ, CMQC.MQOO_INPUT_SHARED)
    try:
        md = ibmmq.MD()
        data = dlq.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))
    finally:
        dlq.close()
    assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER
    dlh = ibmmq.DLH().get_header(data)
    assert dlh.Reason == CMQC.MQRC_PUT_INHIBITED
    assert dlh.DestQName.strip() == initq.encode()
    assert dlh.Format == CMQC.MQFMT_TRIGGER
    tm = ibmmq.TM()
    tm.unpack(data[CMQC.MQDLH_LENGTH_1:])
    assert tm.QName.strip() == app.encode()
