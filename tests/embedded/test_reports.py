"""Conformance: report messages as IBM MQ's queue manager generates them, through IBM's
`ibmmq` API. IBM docs cited per test: "Report (MQLONG)" (which reports, how much data, how
MsgId and CorrelId are set, MQRO_PASS_DISCARD_AND_EXPIRY), "Types of report message",
"Feedback (MQLONG)", "Expiry (MQLONG)" (an expired message is discarded when a get comes
across it), "MQDLH" (what cannot be delivered goes to the dead-letter queue)."""
from __future__ import annotations

import time

import ibmmq
import pytest
from ibmmq import CMQC

from channel_topology import connect, depth, link, put_remote, receive, start, wait_for

DLQ = "DEV.DEAD.LETTER.QUEUE"


@pytest.fixture
def queues(conn, make_queue):
    """(destination, reply queue) of this queue manager."""
    return make_queue(), make_queue(prefix="TEST.REPLY")


def _put(conn, queue: str, body: bytes, syncpoint: bool = False, **fields) -> ibmmq.MD:
    md = ibmmq.MD(**fields)
    options = CMQC.MQPMO_SYNCPOINT if syncpoint else CMQC.MQPMO_NO_SYNCPOINT
    conn.put1(queue, body, md, ibmmq.PMO(Options=options))
    return md


def _get(conn, queue: str, syncpoint: bool = False, correl_id: bytes = b"",
         browse: bool = False) -> tuple[ibmmq.MD, bytes] | None:
    """One message (matched by CorrelId when given), or None when there is none."""
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_BROWSE if browse else CMQC.MQOO_INPUT_SHARED)
    try:
        md = ibmmq.MD(CorrelId=correl_id) if correl_id else ibmmq.MD()
        options = CMQC.MQGMO_NO_WAIT | (
            CMQC.MQGMO_BROWSE_FIRST if browse
            else CMQC.MQGMO_SYNCPOINT if syncpoint else CMQC.MQGMO_NO_SYNCPOINT)
        gmo = ibmmq.GMO(Options=options, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID
                        if correl_id else CMQC.MQMO_NONE, Version=CMQC.MQGMO_VERSION_2)
        try:
            return md, handle.get(None, md, gmo)
        except ibmmq.MQMIError as exc:
            if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                return None
            raise
    finally:
        handle.close()


def _report(conn, reply: str, original: ibmmq.MD) -> tuple[ibmmq.MD, bytes]:
    got = _get(conn, reply, correl_id=original.MsgId)
    assert got is not None, f"no report on {reply} for MsgId {original.MsgId!r}"
    return got


def test_coa_report_fields(conn, queues):
    """"Report (MQLONG)": MQRO_COA "generated when the message is placed on the
    destination queue", no data; MQRO_NEW_MSG_ID and MQRO_COPY_MSG_ID_TO_CORREL_ID are the
    defaults; "Feedback": MQFB_COA. The report has MsgType MQMT_REPORT, the original's
    Format, priority, persistence and identity context, the queue manager's origin context,
    and (no MQRO_PASS_DISCARD_AND_EXPIRY) Report MQRO_NONE and no expiry."""
    destination, reply = queues
    original = _put(conn, destination, b"hello", Report=CMQC.MQRO_COA, ReplyToQ=reply.encode(),
                    Format=CMQC.MQFMT_STRING, Priority=7, Expiry=60000,
                    Persistence=CMQC.MQPER_PERSISTENT)
    md, data = _report(conn, reply, original)
    assert (md.MsgType, md.Feedback, data) == (CMQC.MQMT_REPORT, CMQC.MQFB_COA, b"")
    assert md.MsgId not in (original.MsgId, CMQC.MQMI_NONE)
    assert md.CorrelId == original.MsgId
    assert (md.Report, md.Expiry) == (CMQC.MQRO_NONE, CMQC.MQEI_UNLIMITED)
    assert md.Format == CMQC.MQFMT_STRING and md.Priority == 7
    assert md.Persistence == CMQC.MQPER_PERSISTENT
    assert md.UserIdentifier == original.UserIdentifier
    assert md.AccountingToken == original.AccountingToken
    assert md.PutApplType == CMQC.MQAT_QMGR and md.PutApplName.strip() == b"QM1"
    assert md.ReplyToQ.strip() == b"" and md.ReplyToQMgr.strip() == b"QM1"
    assert _get(conn, destination)[1] == b"hello"     # the message itself is where it went
    assert _get(conn, reply) is None                   # one report, no COD asked


@pytest.mark.parametrize(("report", "body", "expected"), [
    (CMQC.MQRO_COA_WITH_DATA, bytes(range(250)), bytes(range(100))),
    (CMQC.MQRO_COA_WITH_DATA, b"short", b"short"),
    (CMQC.MQRO_COA_WITH_FULL_DATA, bytes(range(250)), bytes(range(250))),
], ids=["with-data-long", "with-data-short", "with-full-data"])
def test_coa_report_data(conn, queues, report, body, expected):
    """"Report (MQLONG)": _WITH_DATA "the first 100 bytes of the application message
    data", _WITH_FULL_DATA "all of the application message data"."""
    destination, reply = queues
    original = _put(conn, destination, body, Report=report, ReplyToQ=reply.encode())
    md, data = _report(conn, reply, original)
    assert data == expected
    assert md.OriginalLength == len(body)


def test_pass_msg_id_and_pass_correl_id(conn, queues):
    """"Report (MQLONG)": MQRO_PASS_MSG_ID "the MsgId of the original message is used for the
    MsgId of the report"; MQRO_PASS_CORREL_ID "the CorrelId of the report is set from the
    CorrelId of the original message"."""
    destination, reply = queues
    correl = b"MY-CORREL".ljust(24, b"\0")
    original = _put(conn, destination, b"x", ReplyToQ=reply.encode(), CorrelId=correl,
                    Report=CMQC.MQRO_COA | CMQC.MQRO_PASS_MSG_ID | CMQC.MQRO_PASS_CORREL_ID)
    got = _get(conn, reply, correl_id=correl)
    assert got is not None
    md, _ = got
    assert (md.MsgId, md.CorrelId, md.Feedback) == (original.MsgId, correl, CMQC.MQFB_COA)


def test_pass_discard_and_expiry(conn, queues):
    """"Report (MQLONG)": with MQRO_PASS_DISCARD_AND_EXPIRY the report keeps the original's
    MQRO_DISCARD_MSG and what is left of its expiry."""
    destination, reply = queues
    original = _put(conn, destination, b"x", ReplyToQ=reply.encode(), Expiry=60000,
                    Report=CMQC.MQRO_COA | CMQC.MQRO_PASS_DISCARD_AND_EXPIRY
                    | CMQC.MQRO_DISCARD_MSG)
    md, _ = _report(conn, reply, original)
    assert md.Report == CMQC.MQRO_DISCARD_MSG
    assert 0 < md.Expiry <= 60000


def test_coa_under_syncpoint_comes_with_the_commit(conn, queues):
    """"Report (MQLONG)": a COA report is generated when the message arrives; a message put
    in a unit of work arrives when it commits, and one backed out never does."""
    destination, reply = queues
    backed_out = _put(conn, destination, b"no", syncpoint=True, Report=CMQC.MQRO_COA,
                      ReplyToQ=reply.encode())
    conn.backout()
    assert _get(conn, reply) is None
    committed = _put(conn, destination, b"yes", syncpoint=True, Report=CMQC.MQRO_COA,
                     ReplyToQ=reply.encode())
    assert _get(conn, reply) is None
    conn.commit()
    md, _ = _report(conn, reply, committed)
    assert md.Feedback == CMQC.MQFB_COA
    assert _get(conn, reply, correl_id=backed_out.MsgId) is None


def test_cod_report_on_destructive_get(conn, queues):
    """"Report (MQLONG)": MQRO_COD "generated when an application retrieves the message from
    the destination queue in a way that causes the message to be deleted": not on put, not on
    browse, on the get's commit in a unit of work (none after a backout)."""
    destination, reply = queues
    original = _put(conn, destination, b"deliver me", ReplyToQ=reply.encode(),
                    Report=CMQC.MQRO_COD_WITH_FULL_DATA)
    assert _get(conn, reply) is None
    assert _get(conn, destination, browse=True)[1] == b"deliver me"
    assert _get(conn, reply) is None
    assert _get(conn, destination, syncpoint=True)[1] == b"deliver me"
    conn.backout()
    assert _get(conn, reply) is None
    assert _get(conn, destination, syncpoint=True)[1] == b"deliver me"
    assert _get(conn, reply) is None
    conn.commit()
    md, data = _report(conn, reply, original)
    assert (md.MsgType, md.Feedback, data) == (CMQC.MQMT_REPORT, CMQC.MQFB_COD, b"deliver me")
    assert _get(conn, reply) is None


def test_cod_report_outside_syncpoint(conn, queues):
    destination, reply = queues
    original = _put(conn, destination, b"now", ReplyToQ=reply.encode(), Report=CMQC.MQRO_COD)
    assert _get(conn, destination)[1] == b"now"
    md, data = _report(conn, reply, original)
    assert (md.Feedback, data) == (CMQC.MQFB_COD, b"")


def test_expiration_report_when_a_get_discards_the_message(conn, queues):
    """"Expiry (MQLONG)": an expired message "is discarded when a browse or nonbrowse MQGET
    call occurs that would have returned the message"; "Report (MQLONG)": MQRO_EXPIRATION
    "generated if the message is discarded prior to delivery ... because its expiry time has
    passed"; "Feedback": MQFB_EXPIRATION."""
    destination, reply = queues
    original = _put(conn, destination, b"perishable", ReplyToQ=reply.encode(), Expiry=1,
                    Report=CMQC.MQRO_EXPIRATION_WITH_FULL_DATA)
    deadline = time.monotonic() + 30
    while _get(conn, destination, browse=True) is not None:   # until the queue drops it
        assert time.monotonic() < deadline, "the message never expired"
    md, data = _report(conn, reply, original)
    assert (md.MsgType, md.Feedback, data) == (CMQC.MQMT_REPORT, CMQC.MQFB_EXPIRATION,
                                               b"perishable")


def test_pan_and_nan_are_the_applications_to_send(conn, queues):
    """"Report (MQLONG)": PAN and NAN "are generated by the application that retrieves the
    message": the queue manager sends neither."""
    destination, reply = queues
    _put(conn, destination, b"act", ReplyToQ=reply.encode(), Report=CMQC.MQRO_PAN | CMQC.MQRO_NAN)
    assert _get(conn, destination)[1] == b"act"
    assert _get(conn, reply) is None


def test_no_report_without_asking(conn, queues):
    destination, reply = queues
    _put(conn, destination, b"quiet", ReplyToQ=reply.encode())
    assert _get(conn, destination)[1] == b"quiet"
    assert _get(conn, reply) is None


def test_an_undeliverable_report_goes_to_the_dead_letter_queue(conn, make_queue):
    """"MQDLH": a report the queue manager cannot put on its ReplyToQ goes to the
    dead-letter queue, its reason in the MQDLH; it is not itself reported on."""
    destination = make_queue()
    original = _put(conn, destination, b"x", ReplyToQ=b"NO.SUCH.REPLY.Q", Report=CMQC.MQRO_COA)
    got = _get(conn, DLQ, correl_id=original.MsgId)
    assert got is not None
    md, data = got
    assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER and md.MsgType == CMQC.MQMT_REPORT
    dlh = ibmmq.DLH()
    dlh.unpack(data[:CMQC.MQDLH_LENGTH_1])
    assert dlh.Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert (dlh.DestQName.strip(), dlh.DestQMgrName.strip()) == (b"NO.SUCH.REPLY.Q", b"QM1")
    assert md.Report == CMQC.MQRO_NONE


def test_a_report_for_another_queue_manager_goes_through_its_transmission_queue(qm, conn,
                                                                                 make_queue):
    """"Report (MQLONG)": reports go to ReplyToQ at ReplyToQMgr, resolved as any put: a
    remote queue manager's name is the transmission queue's (IBM docs: "Queue name
    resolution")."""
    destination = make_queue()
    xmitq = f"QMR{destination.rsplit('.', 1)[-1]}"
    qm.run_mqsc(f"DEFINE QLOCAL({xmitq}) USAGE(XMITQ) REPLACE")
    try:
        _put(conn, destination, b"x", ReplyToQ=b"REPLIES", ReplyToQMgr=xmitq.encode(),
             Report=CMQC.MQRO_COA)
        got = _get(conn, xmitq)
        assert got is not None
        md, data = got
        assert md.Format == CMQC.MQFMT_XMIT_Q_HEADER
        assert data[:4] == b"XQH "
        assert (data[8:56].strip(), data[56:104].strip()) == (b"REPLIES", xmitq.encode())
    finally:
        qm.run_mqsc(f"DELETE QLOCAL({xmitq}) PURGE")


@pytest.fixture
def both_ways(tmp_path):
    """QMA <-> QMB, a channel each way: IN.B on QMB, REPLY on QMA."""
    qmb = start(tmp_path, "QMB", mqsc="DEFINE QLOCAL(IN.B)\n")
    qma = start(tmp_path, "QMA", mqsc="DEFINE QLOCAL(REPLY)\n")
    link(qma, qmb)
    link(qmb, qma)
    yield qma, qmb
    qma.stop()
    qmb.stop()


def test_reports_come_back_across_the_channels(both_ways):
    """"Report (MQLONG)": the COA of a message for another queue manager is generated where
    it arrives (by the receiving MCA) and travels back to ReplyToQ at ReplyToQMgr (the
    putter's queue manager, which MQPUT names when ReplyToQMgr is blank); MQRO_EXCEPTION:
    "A message channel agent generates this type of report when a message is sent to another
    queue manager and the message cannot be delivered to the specified destination queue",
    Feedback the reason; the message goes to the dead-letter queue (MQRO_DEAD_LETTER_Q, the
    default) or, with MQRO_DISCARD_MSG, is discarded."""
    qma, qmb = both_ways
    a, b = connect(qma), connect(qmb)
    body = bytes(range(150))
    [arrived] = put_remote(a, "IN.B", "QMB", [b"hello"], ReplyToQ=b"REPLY",
                           Report=CMQC.MQRO_COA)
    [dead] = put_remote(a, "NO.SUCH.QUEUE", "QMB", [body], ReplyToQ=b"REPLY",
                        Report=CMQC.MQRO_EXCEPTION_WITH_DATA)
    [discarded] = put_remote(a, "NO.SUCH.QUEUE", "QMB", [b"drop me"], ReplyToQ=b"REPLY",
                             Report=CMQC.MQRO_EXCEPTION_WITH_FULL_DATA | CMQC.MQRO_DISCARD_MSG)
    got = receive(a, "REPLY", 3)
    by_correl = {md.CorrelId: (md, data) for md, data in got}
    assert set(by_correl) == {arrived, dead, discarded}
    coa, _ = by_correl[arrived]
    assert (coa.MsgType, coa.Feedback) == (CMQC.MQMT_REPORT, CMQC.MQFB_COA)
    assert coa.PutApplType == CMQC.MQAT_QMGR and coa.ReplyToQMgr.strip() == b"QMB"
    exception, data = by_correl[dead]
    assert (exception.Feedback, data) == (CMQC.MQRC_UNKNOWN_OBJECT_NAME, body[:100])
    exception, data = by_correl[discarded]
    assert (exception.Feedback, data) == (CMQC.MQRC_UNKNOWN_OBJECT_NAME, b"drop me")
    [(dlq_md, _)] = receive(b, DLQ, 1)
    assert dlq_md.MsgId == dead and depth(b, DLQ) == 0   # the discarded one is not there
    assert receive(b, "IN.B", 1)[0][1] == b"hello"


def test_the_sending_mca_reports_a_message_too_long_for_the_channel(both_ways):
    """"Report (MQLONG)": MQRO_EXCEPTION, generated by the message channel agent, Feedback
    2218 MQRC_MSG_TOO_BIG_FOR_CHANNEL; the report comes back to the putter's queue manager,
    whose sender dead-lettered the message (or discarded it: MQRO_DISCARD_MSG)."""
    qma, qmb = both_ways
    qmb.run_mqsc("ALTER CHANNEL(QMA.TO.QMB) CHLTYPE(RCVR) MAXMSGL(2000)")
    a = connect(qma)
    [dead] = put_remote(a, "IN.B", "QMB", [b"B" * 5000], ReplyToQ=b"REPLY",
                        Report=CMQC.MQRO_EXCEPTION)
    [discarded] = put_remote(a, "IN.B", "QMB", [b"D" * 5000], ReplyToQ=b"REPLY",
                             Report=CMQC.MQRO_EXCEPTION_WITH_DATA | CMQC.MQRO_DISCARD_MSG)
    got = {md.CorrelId: (md, data) for md, data in receive(a, "REPLY", 2)}
    assert set(got) == {dead, discarded}
    assert got[dead][0].Feedback == CMQC.MQRC_MSG_TOO_BIG_FOR_CHANNEL and got[dead][1] == b""
    assert got[discarded][0].Feedback == CMQC.MQRC_MSG_TOO_BIG_FOR_CHANNEL
    assert got[discarded][1] == b"D" * 100
    [(dlq_md, _)] = receive(a, DLQ, 1)
    assert dlq_md.MsgId == dead and depth(a, DLQ) == 0


@pytest.fixture
def secured(tmp_path):
    """A queue manager with users (IBM's developer configuration: app may use DEV.**)."""
    import spark_mq.embedded as embedded

    with embedded.EmbeddedQueueManager(str(tmp_path / "qmsec"), name="QMSEC",
                                       users={"app": "passw0rd", "admin": "adminpw"}) as manager:
        yield manager


def test_a_report_needs_the_original_users_authority_on_the_reply_queue(secured):
    """IBM docs, "Message context": for report messages "the user context is checked for +put
    and +passid authority on the destination of the report. Where the user context has
    insufficient authority, the report message is placed on the dead-letter queue". A user
    who may put only on DEV queues cannot have the queue manager carry its data (here a
    forged trigger message) onto the initiation queue as a report."""
    app = ibmmq.connect(secured.name, "DEV.APP.SVRCONN", secured.conn_name, user="app",
                        password="passw0rd")
    admin = ibmmq.connect(secured.name, "DEV.ADMIN.SVRCONN", secured.conn_name, user="admin",
                          password="adminpw")
    try:
        forged = _put(app, "DEV.QUEUE.1", b"TM  forged trigger", Format=CMQC.MQFMT_TRIGGER,
                      ReplyToQ=b"SYSTEM.DEFAULT.INITIATION.QUEUE",
                      Report=CMQC.MQRO_COA_WITH_FULL_DATA)
        allowed = _put(app, "DEV.QUEUE.1", b"fine", ReplyToQ=b"DEV.QUEUE.2",
                       Report=CMQC.MQRO_COA)
        assert _get(admin, "SYSTEM.DEFAULT.INITIATION.QUEUE") is None
        got = _get(admin, DLQ, correl_id=forged.MsgId)
        assert got is not None
        dlh = ibmmq.DLH()
        dlh.unpack(got[1][:CMQC.MQDLH_LENGTH_1])
        assert dlh.Reason == CMQC.MQRC_NOT_AUTHORIZED
        assert dlh.DestQName.strip() == b"SYSTEM.DEFAULT.INITIATION.QUEUE"
        md, _ = _report(app, "DEV.QUEUE.2", allowed)
        assert md.Feedback == CMQC.MQFB_COA and md.UserIdentifier.strip() == b"app"
    finally:
        app.disconnect()
        admin.disconnect()


def test_a_commits_reports_are_stored_with_it_so_a_kill_after_the_commit_loses_none(
        tmp_path, monkeypatch):
    """IBM MQ makes a commit's COA and COD reports part of the commit: a queue manager that dies
    once the commit is stored (fail point "commit-stored", before anything is back on a queue)
    has, after its restart, the put, the get and both persistent reports, each once."""
    monkeypatch.setenv("SPARK_MQ_FAULT", "commit-stored:2")   # the second commit: the get's
    qm = start(tmp_path, "QMR", mqsc="DEFINE QLOCAL(R.IN)\nDEFINE QLOCAL(R.OUT)\n"
                                     "DEFINE QLOCAL(R.REPLY)\n")
    monkeypatch.delenv("SPARK_MQ_FAULT")
    try:
        conn = connect(qm)
        persistent = {"Persistence": CMQC.MQPER_PERSISTENT, "ReplyToQ": b"R.REPLY"}
        got_md = _put(conn, "R.IN", b"to get", syncpoint=True, Report=CMQC.MQRO_COD, **persistent)
        arrived = _put(conn, "R.OUT", b"to stay", syncpoint=True, Report=CMQC.MQRO_COA,
                       **persistent)
        conn.commit()                                     # first commit: stored, COA with it
        assert _get(conn, "R.IN", syncpoint=True) is not None
        with pytest.raises(ibmmq.MQMIError):
            conn.commit()                                 # the queue manager dies at the point
        # the connection breaks as the process exits, a moment before it can be reaped: a
        # start() then would find the dying process still running and start nothing
        wait_for(lambda: not qm.running, what="QMR died at commit-stored")
        qm.start()
        after = connect(qm)
        coa = _report(after, "R.REPLY", arrived)[0]
        cod = _report(after, "R.REPLY", got_md)[0]
        assert (coa.Feedback, cod.Feedback) == (CMQC.MQFB_COA, CMQC.MQFB_COD)
        assert depth(after, "R.REPLY") == 0 and depth(after, "R.IN") == 0
        assert depth(after, "R.OUT") == 1
    finally:
        qm.stop()


@pytest.mark.parametrize("point", ["put-stored", "get-stored"])
def test_a_report_outside_syncpoint_is_stored_with_its_put_or_get(tmp_path, monkeypatch, point):
    """"Report (MQLONG)": MQRO_COA is generated "when the message is placed on the destination
    queue", MQRO_COD when it is retrieved destructively; a persistent message outside a unit
    of work is placed or removed by one store write, and its report is part of that write:
    a queue manager killed right after it (fail point "put-stored" / "get-stored", before
    the message reaches or leaves its queue) has, after its restart, the message placed (or
    gone) and its report on the reply queue, once."""
    monkeypatch.setenv("SPARK_MQ_FAULT", point)
    qm = start(tmp_path, "QMS", mqsc="DEFINE QLOCAL(S.IN)\nDEFINE QLOCAL(S.REPLY)\n")
    monkeypatch.delenv("SPARK_MQ_FAULT")
    try:
        conn = connect(qm)
        report = CMQC.MQRO_COA if point == "put-stored" else CMQC.MQRO_COD_WITH_FULL_DATA
        msg_id = b"STORED.ONCE".ljust(24, b"\0")   # the putter's own: a failed put returns none
        with pytest.raises(ibmmq.MQMIError):    # the queue manager dies at the point
            _put(conn, "S.IN", b"once", Report=report, ReplyToQ=b"S.REPLY", MsgId=msg_id,
                 Persistence=CMQC.MQPER_PERSISTENT)
            _get(conn, "S.IN")
        wait_for(lambda: not qm.running, what=f"QMS died at {point}")
        qm.start()
        after = connect(qm)
        md, data = _report(after, "S.REPLY", ibmmq.MD(MsgId=msg_id))
        if point == "put-stored":
            assert (md.Feedback, data) == (CMQC.MQFB_COA, b"")
            assert _get(after, "S.IN")[1] == b"once"
        else:
            assert (md.Feedback, data) == (CMQC.MQFB_COD, b"once")
            assert depth(after, "S.IN") == 0
        assert depth(after, "S.REPLY") == 0
    finally:
        qm.stop()


def test_an_expiration_report_is_stored_with_the_discard_of_its_message(tmp_path, monkeypatch):
    """"Expiry (MQLONG)": an expired message "is discarded when a browse or nonbrowse MQGET
    call occurs that would have returned the message"; "Report (MQLONG)": MQRO_EXPIRATION is
    generated when it is discarded. The discard of a persistent message and its report are
    one store write: a queue manager killed right after it (fail point "expiry-stored",
    before the message leaves its queue) has, after its restart, the message gone and its
    report on the reply queue, once."""
    monkeypatch.setenv("SPARK_MQ_FAULT", "expiry-stored")
    qm = start(tmp_path, "QME", mqsc="DEFINE QLOCAL(E.IN)\nDEFINE QLOCAL(E.REPLY)\n")
    monkeypatch.delenv("SPARK_MQ_FAULT")
    try:
        conn = connect(qm)
        original = _put(conn, "E.IN", b"perishable", ReplyToQ=b"E.REPLY", Expiry=1,
                        Report=CMQC.MQRO_EXPIRATION_WITH_FULL_DATA,
                        Persistence=CMQC.MQPER_PERSISTENT)
        with pytest.raises(ibmmq.MQMIError):    # the queue manager dies at the point
            deadline = time.monotonic() + 30
            while _get(conn, "E.IN", browse=True) is not None:   # until a browse discards it
                assert time.monotonic() < deadline, "the message never expired"
        wait_for(lambda: not qm.running, what="QME died at expiry-stored")
        qm.start()
        after = connect(qm)
        md, data = _report(after, "E.REPLY", original)
        assert (md.Feedback, md.Persistence, data) == (
            CMQC.MQFB_EXPIRATION, CMQC.MQPER_PERSISTENT, b"perishable")
        assert depth(after, "E.IN") == 0 and depth(after, "E.REPLY") == 0
    finally:
        qm.stop()


def _segments_of(conn, make_queue, reply: str, syncpoint: bool, complete: bool,
                 report: int) -> tuple[ibmmq.MD, list[tuple[ibmmq.MD, bytes]]]:
    """A 250-byte message the queue manager segments (MAXMSGL(100): 96 + 96 + 58 bytes), got
    whole (MQGMO_COMPLETE_MSG) or segment by segment; (the put's MD, the reports on `reply`)."""
    queue = make_queue("MAXMSGL(100)")
    original = ibmmq.MD(Version=CMQC.MQMD_VERSION_2, Report=report, ReplyToQ=reply.encode(),
                        MsgFlags=CMQC.MQMF_SEGMENTATION_ALLOWED)
    conn.put1(queue, bytes(range(250)), original)
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED)
    options = (CMQC.MQGMO_SYNCPOINT if syncpoint else CMQC.MQGMO_NO_SYNCPOINT) | (
        CMQC.MQGMO_COMPLETE_MSG if complete else 0) | CMQC.MQGMO_NO_WAIT
    got = b""
    try:
        while len(got) < 250:
            got += handle.get(None, ibmmq.MD(Version=CMQC.MQMD_VERSION_2),
                              ibmmq.GMO(Options=options, Version=CMQC.MQGMO_VERSION_2,
                                        MatchOptions=CMQC.MQMO_NONE))
    finally:
        handle.close()
    assert got == bytes(range(250))
    if syncpoint:
        conn.commit()
    return original, _all_v2(conn, reply)


def _all_v2(conn, queue: str) -> list[tuple[ibmmq.MD, bytes]]:
    """Every message on `queue`, one by one, into a version-2 MD (Offset, MsgFlags, ...)."""
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED)
    found = []
    try:
        while True:
            md = ibmmq.MD(Version=CMQC.MQMD_VERSION_2)
            try:
                data = handle.get(None, md, ibmmq.GMO(
                    Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_SYNCPOINT,
                    Version=CMQC.MQGMO_VERSION_2, MatchOptions=CMQC.MQMO_NONE))
            except ibmmq.MQMIError as exc:
                if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return found
                raise
            found.append((md, data))
    finally:
        handle.close()


@pytest.mark.parametrize("syncpoint", [False, True], ids=["no-syncpoint", "syncpoint"])
def test_one_cod_for_a_segmented_message_got_whole(conn, make_queue, syncpoint):
    """IBM docs, "Reports and segmented messages" (q022880_): "there is only one case in which
    you can expect to receive a single report for the entire message. This is when you have
    requested only COD reports, and you have specified MQGMO_COMPLETE_MSG on the getting
    application." The one report carries the whole message's data and length, no segment
    flags."""
    reply = make_queue(prefix="TEST.REPLY")
    original, got = _segments_of(conn, make_queue, reply, syncpoint, complete=True,
                                 report=CMQC.MQRO_COD_WITH_FULL_DATA)
    [(md, data)] = got
    assert (md.Feedback, md.CorrelId, data) == (CMQC.MQFB_COD, original.MsgId, bytes(range(250)))
    assert md.OriginalLength == 250 and md.Offset == 0
    assert not md.MsgFlags & (CMQC.MQMF_SEGMENT | CMQC.MQMF_LAST_SEGMENT)


def test_segments_got_one_by_one_and_coa_report_per_segment(conn, make_queue):
    """q022880_: "In other cases your application must be prepared to deal with several
    reports; usually one for each segment": a COA for each segment placed, a COD for each
    segment got on its own, each with its segment's Offset, flags and OriginalLength (the
    length of the data it reports on), so that MQGMO_COMPLETE_MSG could reassemble them."""
    reply = make_queue(prefix="TEST.REPLY")
    _, got = _segments_of(conn, make_queue, reply, False, complete=False,
                          report=CMQC.MQRO_COA | CMQC.MQRO_COD)
    by_feedback = {feedback: sorted((md.Offset, md.OriginalLength, md.MsgFlags & (
        CMQC.MQMF_SEGMENT | CMQC.MQMF_LAST_SEGMENT)) for md, _ in got if md.Feedback == feedback)
        for feedback in (CMQC.MQFB_COA, CMQC.MQFB_COD)}
    expected = [(0, 96, CMQC.MQMF_SEGMENT), (96, 96, CMQC.MQMF_SEGMENT),
                (192, 58, CMQC.MQMF_LAST_SEGMENT)]
    assert by_feedback == {CMQC.MQFB_COA: expected, CMQC.MQFB_COD: expected}
    assert len(got) == 6


@pytest.mark.parametrize("syncpoint", [False, True], ids=["no-syncpoint", "syncpoint"])
def test_each_subscribers_copy_of_a_publication_has_its_coa(conn, make_queue, syncpoint):
    """"Report (MQLONG)": "The use of report options when putting a message to a topic can
    cause zero, one, or many report messages to be generated and sent to the application.
    This is because the publication message may be sent to zero, one, or many subscribing
    applications." A COA for each copy placed on a subscriber's queue (its CorrelId that
    copy's MsgId), at once or, under syncpoint, at the commit; none without a subscriber."""
    reply = make_queue(prefix="TEST.REPLY")
    topic = f"test/reports/{reply}"
    published = ibmmq.MD(Report=CMQC.MQRO_COA, ReplyToQ=reply.encode())
    pmo = ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT if syncpoint else CMQC.MQPMO_NO_SYNCPOINT)
    od = ibmmq.OD(ObjectType=CMQC.MQOT_TOPIC, Version=CMQC.MQOD_VERSION_4)
    od.set_vs("ObjectString", topic)
    publisher = ibmmq.Topic(conn, topic_desc=od)
    publisher.open(topic_desc=od, open_opts=CMQC.MQOO_OUTPUT)
    subs, queues = [], [make_queue(), make_queue()]
    try:
        publisher.pub(b"to nobody", ibmmq.MD(Report=CMQC.MQRO_COA, ReplyToQ=reply.encode()),
                      ibmmq.PMO())
        assert _get(conn, reply) is None                      # no subscriber: no report
        for name in queues:
            sd = ibmmq.SD(Options=CMQC.MQSO_CREATE)
            sd.set_vs("ObjectString", topic)
            sub = ibmmq.Subscription(conn)
            sub.sub(sub_desc=sd, sub_queue=ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_AS_Q_DEF))
            subs.append(sub)
        publisher.pub(b"news", published, pmo)
        if syncpoint:
            assert _get(conn, reply) is None
            conn.commit()
        copies = [_get(conn, name) for name in queues]
        assert [data for _, data in copies] == [b"news", b"news"]
        reports = _all_v2(conn, reply)
        assert sorted(md.CorrelId for md, _ in reports) == sorted(md.MsgId for md, _ in copies)
        assert {md.Feedback for md, _ in reports} == {CMQC.MQFB_COA}
    finally:
        publisher.close()
        for sub in subs:
            sub.close()
