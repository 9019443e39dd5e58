"""Conformance: distributed queuing's name resolution and the transmission-queue header, as
IBM MQ does them (IBM docs "Name resolution", "MQXQH", "MQMDE"), through IBM's `ibmmq` API
and its own XQH/MDE classes, on a real embedded queue manager. Which queue an MQOPEN or
MQPUT1 of (ObjectName, ObjectQMgrName) reaches, the reason when nothing does, and the bytes a
program browsing the transmission queue sees."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

import spark_mq.embedded as embedded

QM = "QMRES"
SETUP = """
DEFINE QLOCAL(QMB) USAGE(XMITQ)
DEFINE QLOCAL(XQ.OTHER) USAGE(XMITQ)
DEFINE QLOCAL(XQ.DEFAULT) USAGE(XMITQ)
DEFINE QLOCAL(NOT.XMITQ)
DEFINE QLOCAL(LOCAL.Q)
DEFINE QREMOTE(TO.B) RNAME(IN.B) RQMNAME(QMB) DEFPSIST(YES) DEFPRTY(7)
DEFINE QREMOTE(TO.B.OTHER) RNAME(IN.B) RQMNAME(QMB) XMITQ(XQ.OTHER)
DEFINE QREMOTE(QMB.ALIAS) RNAME(' ') RQMNAME(QMB) XMITQ(XQ.OTHER)
DEFINE QREMOTE(HERE.ALIAS) RNAME(' ') RQMNAME(QMRES)
DEFINE QREMOTE(REPLY.ALIAS) RNAME(REPLIES) RQMNAME(QMC)
DEFINE QREMOTE(NO.RNAME) RNAME(' ') RQMNAME(QMB)
DEFINE QREMOTE(BAD.XMITQ) RNAME(X) RQMNAME(QMB) XMITQ(NOT.XMITQ)
DEFINE QREMOTE(NO.XMITQ) RNAME(X) RQMNAME(QMB) XMITQ(MISSING.XQ)
DEFINE QREMOTE(ALIAS.XMITQ) RNAME(X) RQMNAME(QMB) XMITQ(VIA.ALIAS)
DEFINE QALIAS(VIA.ALIAS) TARGET(LOCAL.Q)
DEFINE QALIAS(ALIAS.TO.REMOTE) TARGET(TO.B)
DEFINE QREMOTE(PUT.OFF) RNAME(X) RQMNAME(QMB) PUT(DISABLED)
"""


@pytest.fixture(scope="module")
def rqm(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmres")), name=QM,
                                       mqsc=SETUP) as manager:
        yield manager


@pytest.fixture
def conn(rqm):
    connection = ibmmq.connect(QM, "DEV.APP.SVRCONN", rqm.conn_name)
    yield connection
    connection.disconnect()


def drain_xmitq(conn, name: str) -> list[tuple[ibmmq.MD, bytes]]:
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_SHARED)
    found = []
    try:
        while True:
            md = ibmmq.MD()
            found.append((md, queue.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))))
    except ibmmq.MQMIError as exc:
        assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    queue.close()
    return found


def open_reason(conn, od_or_name, options=CMQC.MQOO_OUTPUT) -> int:
    with pytest.raises(ibmmq.MQMIError) as refused:
        ibmmq.Queue(conn, od_or_name, options)
    return refused.value.reason


def remote_od(name: str, qmgr: str) -> ibmmq.OD:
    return ibmmq.OD(Version=CMQC.MQOD_VERSION_3, ObjectName=name, ObjectQMgrName=qmgr)


def test_a_remote_queue_definition_puts_behind_an_mqxqh_on_its_transmission_queue(conn):
    queue = ibmmq.Queue(conn, "TO.B", CMQC.MQOO_OUTPUT)
    put = ibmmq.MD(Format=CMQC.MQFMT_STRING, Report=CMQC.MQRO_COA | CMQC.MQRO_EXCEPTION,
                   ReplyToQ=b"LOCAL.Q")
    queue.put(b"to queue manager B", put)
    queue.close()
    [(md, data)] = drain_xmitq(conn, "QMB")     # no XMITQ: the queue named like RQMNAME
    header = ibmmq.XQH().get_header(data)
    inner = ibmmq.XQH().get_embedded_md(data)
    assert (header.RemoteQName.strip(), header.RemoteQMgrName.strip()) == (b"IN.B", b"QMB")
    assert data[CMQC.MQXQH_LENGTH_1:] == b"to queue manager B"
    # the message's own descriptor, as put (version 1), inside the header
    assert inner.Version == CMQC.MQMD_VERSION_1 and inner.Format == CMQC.MQFMT_STRING
    assert inner.MsgId == put.MsgId and inner.Persistence == CMQC.MQPER_PERSISTENT  # DEFPSIST
    assert inner.Priority == 7 and inner.ReplyToQMgr.strip() == QM.encode()
    assert inner.Report == CMQC.MQRO_COA | CMQC.MQRO_EXCEPTION
    # the transmission message's own descriptor is the queue manager's
    assert md.Format == CMQC.MQFMT_XMIT_Q_HEADER and md.CorrelId == put.MsgId
    assert md.MsgId != put.MsgId and md.PutApplType == CMQC.MQAT_QMGR
    assert md.PutApplName.strip() == QM.encode() and md.Persistence == CMQC.MQPER_PERSISTENT
    assert md.Report == CMQC.MQRO_EXCEPTION      # COA is for the destination, not the xmitq


def test_group_fields_travel_in_an_mqmde_after_the_header(conn):
    queue = ibmmq.Queue(conn, "TO.B.OTHER", CMQC.MQOO_OUTPUT)
    queue.put(b"first of a group", ibmmq.MD(GroupId=b"G" * 24, MsgSeqNumber=3,
                                            MsgFlags=CMQC.MQMF_MSG_IN_GROUP,
                                            Format=CMQC.MQFMT_STRING, CodedCharSetId=37))
    queue.close()
    [(_, data)] = drain_xmitq(conn, "XQ.OTHER")
    inner = ibmmq.XQH().get_embedded_md(data)
    assert inner.Format == CMQC.MQFMT_MD_EXTENSION
    mde = ibmmq.MDE()
    mde.unpack(data[CMQC.MQXQH_LENGTH_1:CMQC.MQXQH_LENGTH_1 + CMQC.MQMDE_LENGTH_2])
    assert (mde.GroupId, mde.MsgSeqNumber, mde.MsgFlags) == (b"G" * 24, 3, CMQC.MQMF_MSG_IN_GROUP)
    assert (mde.Format, mde.CodedCharSetId) == (CMQC.MQFMT_STRING, 37)  # describe the data
    assert data[CMQC.MQXQH_LENGTH_1 + CMQC.MQMDE_LENGTH_2:] == b"first of a group"


def test_object_qmgr_name_resolves_to_the_transmission_queue_of_that_name(conn):
    od = remote_od("ANY.QUEUE", "QMB")
    queue = ibmmq.Queue(conn, od, CMQC.MQOO_OUTPUT)
    assert (od.ResolvedQName.strip(), od.ResolvedQMgrName.strip()) == (b"ANY.QUEUE", b"QMB")
    queue.put(b"by queue-manager name")
    queue.close()
    [(_, data)] = drain_xmitq(conn, "QMB")
    header = ibmmq.XQH().get_header(data)
    assert (header.RemoteQName.strip(), header.RemoteQMgrName.strip()) == (b"ANY.QUEUE", b"QMB")


def test_a_queue_manager_alias_rewrites_the_target_and_picks_the_transmission_queue(conn):
    od = remote_od("IN.B", "QMB.ALIAS")
    ibmmq.Queue(conn, od, CMQC.MQOO_OUTPUT).put(b"through an alias")
    assert od.ResolvedQMgrName.strip() == b"QMB"
    [(_, data)] = drain_xmitq(conn, "XQ.OTHER")
    assert ibmmq.XQH().get_header(data).RemoteQMgrName.strip() == b"QMB"


def test_a_queue_manager_alias_of_this_queue_manager_is_local(conn):
    ibmmq.Queue(conn, remote_od("LOCAL.Q", "HERE.ALIAS"), CMQC.MQOO_OUTPUT).put(b"home")
    assert drain_xmitq(conn, "LOCAL.Q")[0][1] == b"home"
    # through a queue-manager name only output: input is refused even when it ends here
    assert open_reason(conn, remote_od("LOCAL.Q", "HERE.ALIAS"),
                       CMQC.MQOO_INPUT_SHARED) == CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE


def test_an_alias_may_target_a_remote_queue_definition(conn):
    od = remote_od("ALIAS.TO.REMOTE", "")
    ibmmq.Queue(conn, od, CMQC.MQOO_OUTPUT).put(b"via alias")
    assert (od.ResolvedQName.strip(), od.ResolvedQMgrName.strip()) == (b"IN.B", b"QMB")
    [(_, data)] = drain_xmitq(conn, "QMB")
    assert data.endswith(b"via alias")


def test_put1_with_object_qmgr_name_answers_the_resolved_names(conn):
    pmo = ibmmq.PMO(Version=CMQC.MQPMO_VERSION_2)
    conn.put1(remote_od("P1.Q", "QMB"), b"put1", ibmmq.MD(), pmo)
    assert (pmo.ResolvedQName.strip(), pmo.ResolvedQMgrName.strip()) == (b"P1.Q", b"QMB")
    assert drain_xmitq(conn, "QMB")[0][1].endswith(b"put1")


def test_the_default_transmission_queue_takes_what_nothing_else_names(rqm, conn):
    assert open_reason(conn, remote_od("Q", "QMZ")) == CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR
    rqm.run_mqsc("ALTER QMGR DEFXMITQ(XQ.DEFAULT)")
    try:
        ibmmq.Queue(conn, remote_od("Q", "QMZ"), CMQC.MQOO_OUTPUT).put(b"default")
        header = ibmmq.XQH().get_header(drain_xmitq(conn, "XQ.DEFAULT")[0][1])
        assert header.RemoteQMgrName.strip() == b"QMZ"
        assert conn.inquire(CMQC.MQCA_DEF_XMIT_Q_NAME).strip() == b"XQ.DEFAULT"
        rqm.run_mqsc("ALTER QMGR DEFXMITQ(NOT.XMITQ)")
        assert open_reason(conn, remote_od("Q", "QMZ")) == CMQC.MQRC_DEF_XMIT_Q_USAGE_ERROR
        rqm.run_mqsc("ALTER QMGR DEFXMITQ(VIA.ALIAS)")
        assert open_reason(conn, remote_od("Q", "QMZ")) == CMQC.MQRC_DEF_XMIT_Q_TYPE_ERROR
        rqm.run_mqsc("ALTER QMGR DEFXMITQ(GONE.XQ)")
        assert open_reason(conn, remote_od("Q", "QMZ")) == CMQC.MQRC_UNKNOWN_DEF_XMIT_Q
    finally:
        rqm.run_mqsc("ALTER QMGR DEFXMITQ(' ')")


@pytest.mark.parametrize("name, qmgr, reason", [
    ("NO.RNAME", "", CMQC.MQRC_REMOTE_Q_NAME_ERROR),        # a QM alias opened as a queue
    ("BAD.XMITQ", "", CMQC.MQRC_XMIT_Q_USAGE_ERROR),        # XMITQ is a normal queue
    ("NO.XMITQ", "", CMQC.MQRC_UNKNOWN_XMIT_Q),
    ("ALIAS.XMITQ", "", CMQC.MQRC_XMIT_Q_TYPE_ERROR),       # XMITQ is not a local queue
    ("Q", "NOT.XMITQ", CMQC.MQRC_XMIT_Q_USAGE_ERROR),       # a local queue of that name
    ("Q", "TO.B", CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR),          # a QREMOTE with an RNAME
    ("Q", "NOWHERE", CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR),
])
def test_what_does_not_resolve_answers_mq_s_reason(conn, name, qmgr, reason):
    assert open_reason(conn, remote_od(name, qmgr)) == reason


@pytest.mark.parametrize("options", [CMQC.MQOO_INPUT_SHARED, CMQC.MQOO_BROWSE, CMQC.MQOO_SET])
def test_a_queue_elsewhere_cannot_be_read_or_set(conn, options):
    assert open_reason(conn, "TO.B", options) == CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE
    assert open_reason(conn, remote_od("Q", "QMB"), options) == CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE


def test_a_remote_queue_definition_is_inquired_as_one(conn):
    queue = ibmmq.Queue(conn, "TO.B.OTHER", CMQC.MQOO_INQUIRE)
    assert queue.inquire(CMQC.MQIA_Q_TYPE) == CMQC.MQQT_REMOTE
    assert queue.inquire(CMQC.MQCA_REMOTE_Q_NAME).strip() == b"IN.B"
    assert queue.inquire(CMQC.MQCA_REMOTE_Q_MGR_NAME).strip() == b"QMB"
    assert queue.inquire(CMQC.MQCA_XMIT_Q_NAME).strip() == b"XQ.OTHER"
    with pytest.raises(ibmmq.MQMIError) as depth:
        queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    assert depth.value.reason == CMQC.MQRC_SELECTOR_NOT_FOR_TYPE
    queue.close()
    assert ibmmq.Queue(conn, "QMB", CMQC.MQOO_INQUIRE).inquire(CMQC.MQIA_USAGE) == \
        CMQC.MQUS_TRANSMISSION
    assert open_reason(conn, remote_od("Q", "QMB"), CMQC.MQOO_INQUIRE) == \
        CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE


def test_put_inhibited_on_the_definition_is_honoured(conn):
    queue = ibmmq.Queue(conn, "PUT.OFF", CMQC.MQOO_OUTPUT)
    with pytest.raises(ibmmq.MQMIError) as refused:
        queue.put(b"x")
    assert refused.value.reason == CMQC.MQRC_PUT_INHIBITED


def test_a_reply_to_queue_alias_names_the_queue_and_queue_manager_replies_go_to(conn):
    md = ibmmq.MD(ReplyToQ=b"REPLY.ALIAS")
    ibmmq.Queue(conn, "LOCAL.Q", CMQC.MQOO_OUTPUT).put(b"request", md)
    [(got, _)] = drain_xmitq(conn, "LOCAL.Q")
    assert (got.ReplyToQ.strip(), got.ReplyToQMgr.strip()) == (b"REPLIES", b"QMC")


def test_mqsc_and_pcf_define_show_and_delete_remote_queues(rqm, conn):
    output = rqm.run_mqsc("DEFINE QREMOTE(MADE.BY.MQSC) RNAME(R) RQMNAME(QMX) XMITQ(XQ.OTHER)\n"
                          "DISPLAY QREMOTE(MADE.BY.MQSC) ALL")
    assert "TYPE(QREMOTE)" in output and "RQMNAME(QMX)" in output and "XMITQ(XQ.OTHER)" in output
    pcf = ibmmq.PCFExecute(conn, response_wait_interval=10000)
    try:
        pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"MADE.BY.PCF", CMQC.MQIA_Q_TYPE: CMQC.MQQT_REMOTE,
                            CMQC.MQCA_REMOTE_Q_NAME: b"R", CMQC.MQCA_REMOTE_Q_MGR_NAME: b"QMY"})
        [found] = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"MADE.BY.PCF",
                                       CMQC.MQIA_Q_TYPE: CMQC.MQQT_REMOTE})
        assert found[CMQC.MQIA_Q_TYPE] == CMQC.MQQT_REMOTE
        assert found[CMQC.MQCA_REMOTE_Q_MGR_NAME].strip() == b"QMY"
        [xmitq] = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"QMB",
                                       CMQCFC.MQIACF_Q_ATTRS: [CMQC.MQIA_USAGE]})
        assert xmitq[CMQC.MQIA_USAGE] == CMQC.MQUS_TRANSMISSION
        pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: b"MADE.BY.PCF", CMQC.MQIA_Q_TYPE: CMQC.MQQT_REMOTE})
    finally:
        pcf.disconnect()
    assert "deleted" in rqm.run_mqsc("DELETE QREMOTE(MADE.BY.MQSC)")
