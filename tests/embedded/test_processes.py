"""Process definitions on a real embedded queue manager: MQSC (DEFINE/ALTER/DELETE/DISPLAY
PROCESS, kept across a restart), PCF (IBM's PCFExecute) and MQINQ on MQOT_PROCESS, through
the ibmmq API."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

import spark_mq.embedded as embedded

QM = "QMPROC"


@pytest.fixture(scope="module")
def pqm(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmproc")), name=QM) as manager:
        yield manager


@pytest.fixture
def conn(pqm):
    connection = ibmmq.connect(QM, "DEV.APP.SVRCONN", pqm.conn_name)
    yield connection
    connection.disconnect()


@pytest.fixture
def pcf(pqm):
    admin = ibmmq.connect(QM, pqm.channel, pqm.conn_name)
    executor = ibmmq.PCFExecute(admin)
    yield executor
    executor.disconnect()
    admin.disconnect()


def test_mqsc_define_display_alter_delete(pqm):
    out = pqm.run_mqsc("DEFINE PROCESS(MQSC.PROC) APPLICID('/usr/bin/env run') APPLTYPE(DEF) "
                       "ENVRDATA('&') USERDATA('u d') DESCR('a job')")
    assert "AMQ8010I: IBM MQ process created." in out
    shown = pqm.run_mqsc("DISPLAY PROCESS(MQSC.PROC)")
    assert "AMQ8407I: Display Process details." in shown
    for item in ("PROCESS(MQSC.PROC)", "APPLICID(/usr/bin/env run)", "APPLTYPE(UNIX)",
                 "ENVRDATA(&)", "USERDATA(u d)", "DESCR(a job)"):
        assert item in shown, (item, shown)
    pqm.run_mqsc("ALTER PROCESS(MQSC.PROC) USERDATA('changed')")
    shown = pqm.run_mqsc("DISPLAY PROCESS(MQSC.*) USERDATA")
    assert "USERDATA(changed)" in shown and "APPLICID" not in shown
    with pytest.raises(embedded.EmbeddedQueueManagerError, match="AMQ8150E"):
        pqm.run_mqsc("DEFINE PROCESS(MQSC.PROC)")      # no REPLACE
    pqm.run_mqsc("DEFINE PROCESS(MQSC.COPY) LIKE(MQSC.PROC)")
    assert "USERDATA(changed)" in pqm.run_mqsc("DISPLAY PROCESS(MQSC.COPY) USERDATA")
    assert "AMQ8101I" in pqm.run_mqsc("DELETE PROCESS(MQSC.PROC)")
    pqm.run_mqsc("DELETE PROCESS(MQSC.COPY)")
    with pytest.raises(embedded.EmbeddedQueueManagerError, match="AMQ8147E"):
        pqm.run_mqsc("DISPLAY PROCESS(MQSC.PROC)")


def test_a_bad_value_names_the_attribute_the_value_and_what_is_valid(pqm):
    with pytest.raises(embedded.EmbeddedQueueManagerError) as refused:
        pqm.run_mqsc("DEFINE PROCESS(BAD.PROC) APPLTYPE(AMIGA)")
    out = str(refused.value)
    assert "attribute APPLTYPE" in out and "'AMIGA'" in out and "valid: DEF, UNIX" in out


def test_processes_are_kept_across_a_restart(tmp_path):
    with embedded.EmbeddedQueueManager(str(tmp_path), name="QMPROCR") as manager:
        manager.run_mqsc("DEFINE PROCESS(KEPT.PROC) APPLICID('/bin/kept') USERDATA('kept')")
        manager.stop()
        manager.start()
        shown = manager.run_mqsc("DISPLAY PROCESS(KEPT.PROC)")
        assert "APPLICID(/bin/kept)" in shown and "USERDATA(kept)" in shown


def test_mqinq_on_a_process_object(pqm, conn):
    pqm.run_mqsc("DEFINE PROCESS(INQ.PROC) APPLICID('/bin/inq') ENVRDATA('env') "
                 "USERDATA('user') DESCR('inquired') REPLACE")
    od = ibmmq.OD(ObjectType=CMQC.MQOT_PROCESS, ObjectName=b"INQ.PROC")
    handle = ibmmq.Queue(conn, od, CMQC.MQOO_INQUIRE)
    try:
        assert handle.inquire(CMQC.MQIA_APPL_TYPE) == CMQC.MQAT_UNIX
        assert handle.inquire(CMQC.MQCA_APPL_ID) == b"/bin/inq".ljust(256)
        assert handle.inquire(CMQC.MQCA_ENV_DATA) == b"env".ljust(128)
        assert handle.inquire(CMQC.MQCA_USER_DATA) == b"user".ljust(128)
        assert handle.inquire(CMQC.MQCA_PROCESS_DESC).strip() == b"inquired"
        assert handle.inquire(CMQC.MQCA_PROCESS_NAME).strip() == b"INQ.PROC"
    finally:
        handle.close()
    with pytest.raises(ibmmq.MQMIError) as refused:
        ibmmq.Queue(conn, od, CMQC.MQOO_OUTPUT)
    assert refused.value.reason == CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE
    missing = ibmmq.OD(ObjectType=CMQC.MQOT_PROCESS, ObjectName=b"NO.SUCH.PROC")
    with pytest.raises(ibmmq.MQMIError) as refused:
        ibmmq.Queue(conn, missing, CMQC.MQOO_INQUIRE)
    assert refused.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_pcf_create_inquire_change_copy_delete(pcf, pqm):
    pcf.MQCMD_CREATE_PROCESS({CMQC.MQCA_PROCESS_NAME: "PCF.PROC", CMQC.MQCA_APPL_ID: "/bin/pcf",
                              CMQC.MQIA_APPL_TYPE: CMQC.MQAT_UNIX,
                              CMQC.MQCA_USER_DATA: "from pcf"})
    try:
        [found] = pcf.MQCMD_INQUIRE_PROCESS({CMQC.MQCA_PROCESS_NAME: "PCF.PROC"})
        assert found[CMQC.MQCA_APPL_ID].strip() == b"/bin/pcf"
        assert found[CMQC.MQIA_APPL_TYPE] == CMQC.MQAT_UNIX
        assert found[CMQC.MQCA_USER_DATA].strip() == b"from pcf"
        pcf.MQCMD_CHANGE_PROCESS({CMQC.MQCA_PROCESS_NAME: "PCF.PROC", CMQC.MQCA_ENV_DATA: "&"})
        pcf.MQCMD_COPY_PROCESS({CMQCFC.MQCACF_FROM_PROCESS_NAME: "PCF.PROC",
                                CMQCFC.MQCACF_TO_PROCESS_NAME: "PCF.COPY"})
        [names] = pcf.MQCMD_INQUIRE_PROCESS_NAMES({CMQC.MQCA_PROCESS_NAME: "PCF.*"})
        assert sorted(n.strip() for n in names[CMQCFC.MQCACF_PROCESS_NAMES]) == [
            b"PCF.COPY", b"PCF.PROC"]
        assert "ENVRDATA(&)" in pqm.run_mqsc("DISPLAY PROCESS(PCF.COPY) ENVRDATA")
        with pytest.raises(ibmmq.MQMIError) as refused:
            pcf.MQCMD_CREATE_PROCESS({CMQC.MQCA_PROCESS_NAME: "PCF.PROC"})
        assert refused.value.reason == CMQCFC.MQRCCF_OBJECT_ALREADY_EXISTS
        with pytest.raises(ibmmq.MQMIError) as refused:
            pcf.MQCMD_CHANGE_PROCESS({CMQC.MQCA_PROCESS_NAME: "PCF.PROC",
                                      CMQC.MQIA_APPL_TYPE: 12345})
        assert refused.value.reason == CMQCFC.MQRCCF_PARM_VALUE_ERROR
    finally:
        pcf.MQCMD_DELETE_PROCESS({CMQC.MQCA_PROCESS_NAME: "PCF.PROC"})
        pcf.MQCMD_DELETE_PROCESS({CMQC.MQCA_PROCESS_NAME: "PCF.COPY"})
    with pytest.raises(ibmmq.MQMIError) as refused:
        pcf.MQCMD_INQUIRE_PROCESS({CMQC.MQCA_PROCESS_NAME: "PCF.PROC"})
    assert refused.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
