"""Conformance: crtmqm's system queues, and the queues IBM MQ keeps its records on (authority
records, CHLAUTH rules, durable subscriptions, retained publications), through IBM's ibmmq
API against real embedded queue manager processes."""
from __future__ import annotations

import json

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

import spark_mq.embedded as embedded
from support import depth

AUTH_DATA = "SYSTEM.AUTH.DATA.QUEUE"
CHLAUTH_DATA = "SYSTEM.CHLAUTH.DATA.QUEUE"
DURABLE_SUBS = "SYSTEM.DURABLE.SUBSCRIBER.QUEUE"
RETAINED = "SYSTEM.RETAINED.PUB.QUEUE"


@pytest.fixture
def fresh(tmp_path):
    """A queue manager of this test's own, so that record counts are exact."""
    with embedded.EmbeddedQueueManager(str(tmp_path / "qm"), name="QMSYS") as manager:
        yield manager


def connect(manager) -> ibmmq.QueueManager:
    return ibmmq.connect(manager.name, manager.channel, manager.conn_name)


def displayed_count(manager, command: str, marker: str) -> int:
    return manager.run_mqsc(command).count(marker)


def browse_all(conn, name: str) -> list[dict]:
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_BROWSE)
    records, option = [], CMQC.MQGMO_BROWSE_FIRST
    try:
        while True:
            gmo = ibmmq.GMO(Options=option | CMQC.MQGMO_NO_WAIT)
            try:
                records.append(json.loads(queue.get(None, ibmmq.MD(), gmo)))
            except ibmmq.MQMIError as error:
                assert error.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return records
            option = CMQC.MQGMO_BROWSE_NEXT
    finally:
        queue.close()


def open_reason(conn, name: str, options: int) -> int:
    try:
        ibmmq.Queue(conn, name, options).close()
    except ibmmq.MQMIError as error:
        return error.reason
    return CMQC.MQRC_NONE


def test_a_new_queue_manager_has_crtmqms_system_queues_described_as_ibm_mq_describes_them(qm, conn):
    pcf = ibmmq.PCFExecute(conn, response_wait_interval=10000)
    try:
        found = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"SYSTEM.*",
                                     CMQCFC.MQIACF_Q_ATTRS: [CMQC.MQCA_Q_DESC]})
    finally:
        pcf.disconnect()
    descriptions = {item[CMQC.MQCA_Q_NAME].strip().decode(): item[CMQC.MQCA_Q_DESC].strip().decode()
                    for item in found}
    for name in ("SYSTEM.ADMIN.COMMAND.QUEUE", "SYSTEM.DEAD.LETTER.QUEUE", AUTH_DATA, CHLAUTH_DATA,
                 DURABLE_SUBS, RETAINED, "SYSTEM.ADMIN.QMGR.EVENT", "SYSTEM.ADMIN.STATISTICS.QUEUE",
                 "SYSTEM.DEFAULT.INITIATION.QUEUE", "SYSTEM.MQSC.REPLY.QUEUE"):
        assert descriptions[name].startswith("IBM MQ "), name
    # new definitions copy the default queues, so these stay blank
    assert descriptions["SYSTEM.DEFAULT.LOCAL.QUEUE"] == ""
    assert descriptions["SYSTEM.DEFAULT.MODEL.QUEUE"] == ""
    qm.run_mqsc("DEFINE QLOCAL(NEW.Q.DESCR)")
    try:
        assert "DESCR( )" in qm.run_mqsc("DISPLAY QLOCAL(NEW.Q.DESCR) DESCR")
    finally:
        qm.run_mqsc("DELETE QLOCAL(NEW.Q.DESCR)")


def test_authority_records_and_chlauth_rules_are_messages_on_their_queues(fresh):
    conn = connect(fresh)
    try:
        records = displayed_count(fresh, "DISPLAY AUTHREC", "AMQ8864I")
        rules = displayed_count(fresh, "DISPLAY CHLAUTH(*)", "AMQ8878I")
        assert records > 0 and rules > 0  # the developer configuration's
        assert depth(conn, AUTH_DATA) == records
        assert depth(conn, CHLAUTH_DATA) == rules

        fresh.run_mqsc("SET AUTHREC PROFILE('SYSQ.TEST') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(PUT)")
        assert depth(conn, AUTH_DATA) == records + 1
        fresh.run_mqsc("SET AUTHREC PROFILE('SYSQ.TEST') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(GET)")
        assert depth(conn, AUTH_DATA) == records + 1  # the same record, changed
        mine = [r for r in browse_all(conn, AUTH_DATA) if "SYSQ.TEST" in json.dumps(r)]
        assert len(mine) == 1 and mine[0]["kind"] == "AUTHREC"
        fresh.run_mqsc("DELETE AUTHREC PROFILE('SYSQ.TEST') PRINCIPAL('app') OBJTYPE(QUEUE)")
        assert depth(conn, AUTH_DATA) == records

        fresh.run_mqsc("SET CHLAUTH('SYSQ.CHL') TYPE(BLOCKUSER) USERLIST('nobody')")
        assert depth(conn, CHLAUTH_DATA) == rules + 1
        fresh.run_mqsc("SET CHLAUTH('SYSQ.CHL') TYPE(BLOCKUSER) ACTION(REMOVE)")
        assert depth(conn, CHLAUTH_DATA) == rules
    finally:
        conn.disconnect()


def test_the_queue_manager_holds_its_record_queues_for_exclusive_input(fresh):
    conn = connect(fresh)
    try:
        for name in (AUTH_DATA, CHLAUTH_DATA, DURABLE_SUBS, RETAINED):
            assert open_reason(conn, name, CMQC.MQOO_INPUT_SHARED) == CMQC.MQRC_OBJECT_IN_USE
            assert open_reason(conn, name, CMQC.MQOO_INPUT_EXCLUSIVE) == CMQC.MQRC_OBJECT_IN_USE
            assert open_reason(conn, name, CMQC.MQOO_BROWSE) == CMQC.MQRC_NONE
        assert depth(conn, AUTH_DATA) > 0
        shown = fresh.run_mqsc(f"DISPLAY QLOCAL({AUTH_DATA}) IPPROCS")
        assert "IPPROCS(1)" in shown
    finally:
        conn.disconnect()
    for command in (f"CLEAR QLOCAL({AUTH_DATA})", f"DELETE QLOCAL({CHLAUTH_DATA})"):
        with pytest.raises(embedded.EmbeddedQueueManagerError):
            fresh.run_mqsc(command)


def test_a_durable_subscription_is_a_message_until_it_is_removed(fresh):
    conn = connect(fresh)
    try:
        before = depth(conn, DURABLE_SUBS)
        sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_DURABLE | CMQC.MQSO_MANAGED)
        sd.set_vs("ObjectString", "sysq/durable")
        sd.set_vs("SubName", "SYSQ.DURABLE.SUB")
        sub = ibmmq.Subscription(conn)
        sub.sub(sub_desc=sd)
        assert depth(conn, DURABLE_SUBS) == before + 1
        assert [r["name"] for r in browse_all(conn, DURABLE_SUBS)] == ["SYSQ.DURABLE.SUB"]
        sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
        assert depth(conn, DURABLE_SUBS) == before
    finally:
        conn.disconnect()


def test_record_queues_are_rebuilt_at_restart_and_missing_system_queues_come_back(fresh):
    fresh.run_mqsc("SET AUTHREC PROFILE('SYSQ.KEPT') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(PUT)")
    fresh.run_mqsc("DELETE QLOCAL(SYSTEM.ADMIN.TRACE.ROUTE.QUEUE)")  # as if from an older version
    conn = connect(fresh)
    records = depth(conn, AUTH_DATA)
    conn.disconnect()
    fresh.stop()
    fresh.start()
    conn = connect(fresh)
    try:
        assert depth(conn, AUTH_DATA) == records
        assert any("SYSQ.KEPT" in json.dumps(r) for r in browse_all(conn, AUTH_DATA))
        assert open_reason(conn, AUTH_DATA, CMQC.MQOO_INPUT_SHARED) == CMQC.MQRC_OBJECT_IN_USE
        assert depth(conn, "SYSTEM.ADMIN.TRACE.ROUTE.QUEUE") == 0
    finally:
        conn.disconnect()


def test_pcf_filters_find_system_queues_by_depth_and_description(conn):
    """What IBM's test_pcf filter tests expect of a new queue manager."""
    pcf = ibmmq.PCFExecute(conn, response_wait_interval=10000)
    try:
        deep = pcf.MQCMD_INQUIRE_Q(
            {CMQC.MQCA_Q_NAME: b"*", CMQCFC.MQIACF_Q_ATTRS: [CMQC.MQIA_CURRENT_Q_DEPTH]},
            [ibmmq.Filter(CMQC.MQIA_CURRENT_Q_DEPTH).greater(0)])
        described = pcf.MQCMD_INQUIRE_Q(
            {CMQC.MQCA_Q_NAME: b"*", CMQCFC.MQIACF_Q_ATTRS: [CMQC.MQCA_Q_DESC]},
            [ibmmq.Filter(CMQC.MQCA_Q_DESC).like(b"IBM MQ *")])
    finally:
        pcf.disconnect()
    assert AUTH_DATA in {item[CMQC.MQCA_Q_NAME].strip().decode() for item in deep}
    assert all(item[CMQC.MQIA_CURRENT_Q_DEPTH] > 0 for item in deep)
    assert "SYSTEM.ADMIN.COMMAND.QUEUE" in {item[CMQC.MQCA_Q_NAME].strip().decode() for item in described}
    assert all(item[CMQC.MQCA_Q_DESC].startswith(b"IBM MQ ") for item in described)
