"""Conformance: streaming queues as IBM MQ 9.3 makes them, through IBM's `ibmmq` API on real
embedded queue managers. Each test names the IBM page it follows:

- "Configuring streaming queues" (msgduphowconfig.html): STREAMQ, STRMQOS(BESTEF|MUSTDUP);
- "Streaming queues configuration" / the streamed message (configmsgdup.html): the copy keeps
  MsgId, CorrelId, context and persistence; its Expiry is the stream queue's CAPEXPRY or
  unlimited; COA, COD, expiration, exception and activity reports are off;
- "Stream queues and transactions" (stream-transactions): the copy is in the original's unit
  of work;
- "Streaming to remote and alias queues" (streamqremalias.html);
- "Streaming queue restrictions" (streaming-queue-restrictions): also which SYSTEM.* queues
  may stream (the event queues among them: event messages are streamed).
"""
from __future__ import annotations

import itertools
import re

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

import spark_mq.embedded as embedded
from channel_topology import connect, link, put_remote, receive, start
from spark_mq.embedded import EmbeddedQueueManagerError

QM = "QMSTREAM"
_numbers = itertools.count(1)


@pytest.fixture(scope="module")
def sqm(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmstream")), name=QM) as manager:
        yield manager


@pytest.fixture
def conn(sqm):
    connection = ibmmq.connect(QM, "DEV.APP.SVRCONN", sqm.conn_name)
    yield connection
    connection.disconnect()


@pytest.fixture
def streamed(sqm):
    """streamed("STRMQOS(MUSTDUP)", "MAXDEPTH(1)") -> (production queue, its stream queue)."""
    def make(source_attributes: str = "", stream_attributes: str = "") -> tuple[str, str]:
        number = next(_numbers)
        source, stream = f"PROD.{number}", f"PROD.{number}.COPY"
        sqm.run_mqsc(f"DEFINE QLOCAL({stream}) {stream_attributes}\n"
                     f"DEFINE QLOCAL({source}) STREAMQ({stream}) {source_attributes}")
        return source, stream
    return make


def put(conn, queue: str, body: bytes, options: int = CMQC.MQPMO_NO_SYNCPOINT,
        **md_fields: object) -> ibmmq.MD:
    md = ibmmq.MD(**md_fields)
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
    try:
        handle.put(body, md, ibmmq.PMO(Options=options))
    finally:
        handle.close()
    return md


def get_all(conn, queue: str) -> list[tuple[ibmmq.MD, bytes]]:
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED)
    got = []
    try:
        while True:
            md = ibmmq.MD()
            try:
                got.append((md, handle.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))))
            except ibmmq.MQMIError as exc:
                assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return got
    finally:
        handle.close()


def depth(conn, queue: str) -> int:
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_INQUIRE)
    try:
        return int(handle.inquire(CMQC.MQIA_CURRENT_Q_DEPTH))
    finally:
        handle.close()


# configmsgdup.html: "the original messages are completely unchanged"; the streamed message
# has the same MsgId, CorrelId and context, its own Expiry, and no COA/COD/... reports
def test_the_copy_is_the_original_with_unlimited_expiry_and_no_reports(conn, streamed, sqm):
    source, stream = streamed()
    reply = f"{source}.REPLY"
    sqm.run_mqsc(f"DEFINE QLOCAL({reply})")
    report = (CMQC.MQRO_COA | CMQC.MQRO_COD | CMQC.MQRO_EXCEPTION | CMQC.MQRO_EXPIRATION
              | CMQC.MQRO_ACTIVITY | CMQC.MQRO_PASS_MSG_ID | CMQC.MQRO_DISCARD_MSG)
    sent = put(conn, source, b"order 1", CorrelId=b"C" * 24, Expiry=100_000, Priority=7,
               Persistence=CMQC.MQPER_PERSISTENT, Format=CMQC.MQFMT_STRING, Report=report,
               ReplyToQ=reply, ApplIdentityData=b"app data")
    [(original, body)] = get_all(conn, source)
    [(copy, copy_body)] = get_all(conn, stream)
    assert body == copy_body == b"order 1"
    assert original.Report == report and 0 < original.Expiry <= 100_000
    assert copy.Expiry == CMQC.MQEI_UNLIMITED
    assert copy.Report == CMQC.MQRO_PASS_MSG_ID | CMQC.MQRO_DISCARD_MSG
    for field in ("MsgId", "CorrelId", "Priority", "Persistence", "Format", "UserIdentifier",
                  "ApplIdentityData", "PutApplName", "PutApplType", "PutDate", "PutTime",
                  "ReplyToQ", "ReplyToQMgr"):
        assert getattr(copy, field) == getattr(original, field), field
    assert copy.MsgId == sent.MsgId
    # the original's COA (when it was put) and COD (when it was got) come back; the copy,
    # put and got as well, asks for none
    reports = get_all(conn, reply)
    assert sorted(md.Feedback for md, _ in reports) == sorted([CMQC.MQFB_COA, CMQC.MQFB_COD])
    assert all(md.MsgType == CMQC.MQMT_REPORT and md.CorrelId == sent.MsgId for md, _ in reports)


# configmsgdup.html: the streamed message's Expiry is the stream queue's CAPEXPRY
def test_the_copy_expires_as_the_stream_queues_capexpry_says(conn, streamed):
    source, stream = streamed(stream_attributes="CAPEXPRY(600)")
    put(conn, source, b"capped")
    [(original, _)] = get_all(conn, source)
    [(copy, _)] = get_all(conn, stream)
    assert original.Expiry == CMQC.MQEI_UNLIMITED
    assert 0 < copy.Expiry <= 600


# "Configuring streaming queues": every put to the queue is streamed, MQPUT1 as MQPUT
def test_mqput1_is_streamed_too(conn, streamed):
    source, stream = streamed(stream_attributes="DEFPSIST(YES) DEFPRTY(9)")
    md = ibmmq.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT)
    conn.put1(source, b"one shot", md)
    [(copy, body)] = get_all(conn, stream)
    assert (body, copy.MsgId) == (b"one shot", md.MsgId)
    # the stream queue's defaults do not apply: the copy is the message as put
    assert (copy.Persistence, copy.Priority) == (CMQC.MQPER_NOT_PERSISTENT, md.Priority)
    assert depth(conn, source) == 1


# msgduphowconfig.html, BESTEF: "If there is a problem delivering the streamed message, this
# does not affect delivery of the original message."
@pytest.mark.parametrize("problem", ["full", "put-inhibited", "missing", "too long"])
def test_best_effort_puts_the_original_when_the_copy_cannot_be_put(conn, sqm, streamed, problem):
    source, stream = streamed(stream_attributes="MAXDEPTH(1) MAXMSGL(10)")
    if problem == "full":
        put(conn, stream, b"filler")
    elif problem == "put-inhibited":
        sqm.run_mqsc(f"ALTER QLOCAL({stream}) PUT(DISABLED)")
    elif problem == "missing":
        sqm.run_mqsc(f"DELETE QLOCAL({stream})")
    put(conn, source, b"a message longer than ten bytes" if problem == "too long" else b"kept")
    assert depth(conn, source) == 1
    if problem != "missing":
        assert depth(conn, stream) == (1 if problem == "full" else 0)


# msgduphowconfig.html, MUSTDUP: "the original message is not delivered to its queue and the
# application receives MQCC_FAILED along with an appropriate reason code"
@pytest.mark.parametrize(("problem", "reason"), [
    ("full", CMQC.MQRC_Q_FULL), ("put-inhibited", CMQC.MQRC_PUT_INHIBITED),
    ("missing", CMQC.MQRC_UNKNOWN_OBJECT_NAME), ("too long", CMQC.MQRC_MSG_TOO_BIG_FOR_Q)])
def test_must_duplicate_fails_the_put_when_the_copy_cannot_be_put(conn, sqm, streamed, problem,
                                                                   reason):
    source, stream = streamed("STRMQOS(MUSTDUP)", "MAXDEPTH(1) MAXMSGL(4)")
    if problem == "full":
        put(conn, stream, b"fill")
    elif problem == "put-inhibited":
        sqm.run_mqsc(f"ALTER QLOCAL({stream}) PUT(DISABLED)")
    elif problem == "missing":
        sqm.run_mqsc(f"DELETE QLOCAL({stream})")
    with pytest.raises(ibmmq.MQMIError) as exc:
        put(conn, source, b"longer than four" if problem == "too long" else b"fine")
    assert (exc.value.comp, exc.value.reason) == (CMQC.MQCC_FAILED, reason)
    assert depth(conn, source) == 0
    if problem == "put-inhibited":   # the same put goes, with its copy, once the copy can
        sqm.run_mqsc(f"ALTER QLOCAL({stream}) PUT(ENABLED)")
        put(conn, source, b"fine")
        assert (depth(conn, source), depth(conn, stream)) == (1, 1)


# stream-transactions: "the duplicate message is put to the stream queue under the same unit
# of work that was started for the original put"
@pytest.mark.parametrize("qos", ["BESTEF", "MUSTDUP"])
def test_backout_removes_both_and_commit_delivers_both(conn, sqm, streamed, qos):
    source, stream = streamed(f"STRMQOS({qos})")
    put(conn, source, b"backed out", CMQC.MQPMO_SYNCPOINT, Persistence=CMQC.MQPER_PERSISTENT)
    other = ibmmq.connect(QM, "DEV.APP.SVRCONN", sqm.conn_name)
    try:
        assert get_all(other, stream) == []   # not before the commit
        conn.backout()
        assert (depth(conn, source), depth(conn, stream)) == (0, 0)
        put(conn, source, b"committed", CMQC.MQPMO_SYNCPOINT)
        conn.commit()
        assert [body for _, body in get_all(other, stream)] == [b"committed"]
        assert [body for _, body in get_all(other, source)] == [b"committed"]
    finally:
        other.disconnect()


# stream-transactions, note 1: "The additional put to the stream queue does not count towards
# the MAXUMSGS limit."
def test_the_copies_do_not_count_towards_maxumsgs(conn, sqm, streamed):
    source, stream = streamed()
    sqm.run_mqsc("ALTER QMGR MAXUMSGS(2)")
    try:
        put(conn, source, b"first", CMQC.MQPMO_SYNCPOINT)
        put(conn, source, b"second", CMQC.MQPMO_SYNCPOINT)
        with pytest.raises(ibmmq.MQMIError) as exc:
            put(conn, source, b"third", CMQC.MQPMO_SYNCPOINT)
        assert exc.value.reason == CMQC.MQRC_SYNCPOINT_LIMIT_REACHED
        conn.commit()
    finally:
        sqm.run_mqsc("ALTER QMGR MAXUMSGS(10000)")
    assert (depth(conn, source), depth(conn, stream)) == (2, 2)


# streamqremalias.html: "By streaming messages to an alias queue, it is possible to send the
# duplicate messages to the target of the alias queue"
def test_an_alias_stream_queue_delivers_the_copy_to_its_target(conn, sqm):
    sqm.run_mqsc("DEFINE QLOCAL(ALIASED.COPY)\n"
                 "DEFINE QALIAS(COPY.ALIAS) TARGET(ALIASED.COPY)\n"
                 "DEFINE QLOCAL(PROD.VIA.ALIAS) STREAMQ(COPY.ALIAS)")
    sent = put(conn, "PROD.VIA.ALIAS", b"through an alias")
    [(copy, _)] = get_all(conn, "ALIASED.COPY")
    assert copy.MsgId == sent.MsgId


# msgduphowconfig.html: local and model queues have STREAMQ; a dynamic queue is made from
# its model (restrictions: its STREAMQ cannot be modified)
def test_a_dynamic_queue_streams_as_its_model_and_cannot_change_it(conn, sqm):
    sqm.run_mqsc("DEFINE QLOCAL(DYN.COPY)\n"
                 "DEFINE QMODEL(STREAMING.MODEL) STREAMQ(DYN.COPY) DEFTYPE(PERMDYN)")
    od = ibmmq.OD(ObjectName="STREAMING.MODEL", DynamicQName="STRMDYN.*")
    dynamic = ibmmq.Queue(conn, od, CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE)
    name = od.ObjectName.decode().strip()
    try:
        dynamic.put(b"dynamic", ibmmq.MD())
        assert depth(conn, "DYN.COPY") == 1
        with pytest.raises(EmbeddedQueueManagerError, match="dynamic"):
            sqm.run_mqsc(f"ALTER QLOCAL({name}) STREAMQ(' ')")
    finally:
        dynamic.close()


# MQINQ answers MQCA_STREAM_QUEUE_NAME and MQIA_STREAM_QUEUE_QOS ("Configuring streaming
# queues" lists the PCF names)
def test_event_messages_are_streamed(conn, sqm):
    """"Streaming queue restrictions": of the SYSTEM.* queues, SYSTEM.ADMIN.QMGR.EVENT and the
    other SYSTEM.ADMIN.*.EVENT queues may have a STREAMQ; they hold only the event messages
    the queue manager puts, so those are streamed: the copy is the event message (its MsgId,
    its PCF data)."""
    number = next(_numbers)
    events, stream, inhibited = "SYSTEM.ADMIN.QMGR.EVENT", f"EVENTS.{number}.COPY", \
        f"INHIBITED.{number}"
    sqm.run_mqsc(f"DEFINE QLOCAL({stream})\nDEFINE QLOCAL({inhibited}) PUT(DISABLED)")
    get_all(conn, events)      # what an earlier test left
    sqm.run_mqsc(f"ALTER QLOCAL({events}) STREAMQ({stream})\nALTER QMGR INHIBTEV(ENABLED)")
    try:
        with pytest.raises(ibmmq.MQMIError) as exc:
            put(conn, inhibited, b"refused")
        assert exc.value.reason == CMQC.MQRC_PUT_INHIBITED
    finally:
        sqm.run_mqsc(f"ALTER QMGR INHIBTEV(DISABLED)\nALTER QLOCAL({events}) STREAMQ(' ')")
    [(event_md, event)] = get_all(conn, events)
    [(copy_md, copy)] = get_all(conn, stream)
    assert event_md.Format == CMQC.MQFMT_EVENT and inhibited.encode() in event
    assert (copy_md.MsgId, copy_md.Format, copy) == (event_md.MsgId, CMQC.MQFMT_EVENT, event)


def test_mqinq_answers_the_stream_queue_and_its_quality_of_service(conn, streamed):
    source, stream = streamed("STRMQOS(MUSTDUP)")
    handle = ibmmq.Queue(conn, source, CMQC.MQOO_INQUIRE)
    try:
        assert handle.inquire(CMQC.MQCA_STREAM_QUEUE_NAME).decode().strip() == stream
        assert handle.inquire(CMQC.MQIA_STREAM_QUEUE_QOS) == CMQC.MQST_MUST_DUP
    finally:
        handle.close()


# streaming-queue-restrictions: each refused configuration, with its reason in the text
@pytest.mark.parametrize(("command", "words"), [
    ("DEFINE QLOCAL(R.XMITQ) USAGE(XMITQ) STREAMQ(R.TARGET)", "USAGE(XMITQ)"),
    ("DEFINE QLOCAL(R.SELF) STREAMQ(R.SELF)", "itself"),
    ("DEFINE QLOCAL(R.SYS) STREAMQ(SYSTEM.ADMIN.COMMAND.QUEUE)", "SYSTEM.DEFAULT.LOCAL.QUEUE"),
    ("ALTER QLOCAL(SYSTEM.DEAD.LETTER.QUEUE) STREAMQ(R.TARGET)", "SYSTEM.*"),
    ("DEFINE QLOCAL(R.MODEL) STREAMQ(SYSTEM.DEFAULT.MODEL.QUEUE)", "SYSTEM"),
    ("DEFINE QLOCAL(R.TOMODEL) STREAMQ(R.A.MODEL)", "model queue"),
    ("DEFINE QLOCAL(R.CHAIN) STREAMQ(R.STREAMING)", "no chains"),
    ("ALTER QLOCAL(R.TARGET) STREAMQ(R.OTHER)", "no chains"),
])
def test_the_restricted_configurations_are_refused(sqm, command, words):
    sqm.run_mqsc("DEFINE QLOCAL(R.TARGET) REPLACE\nDEFINE QLOCAL(R.OTHER) REPLACE\n"
                 "DEFINE QMODEL(R.A.MODEL) REPLACE\n"
                 "DEFINE QLOCAL(R.STREAMING) STREAMQ(R.TARGET) REPLACE")
    with pytest.raises(EmbeddedQueueManagerError, match=re.escape(words)):
        sqm.run_mqsc(command)


# the same restrictions through PCF (Change Queue): the MQRCCF_STREAMQ_* reason codes, each
# by its name (IBM's reference lists them without saying which restriction is which)
@pytest.mark.parametrize(("queue", "stream", "reason"), [
    ("R.XMITQ.PCF", "R.TARGET", CMQCFC.MQRCCF_STREAMQ_NOT_SUPPORTED),
    ("R.PCF", "SYSTEM.ADMIN.COMMAND.QUEUE", CMQCFC.MQRCCF_STREAMQ_DEST_NOT_SUPP),
    ("R.PCF", "R.STREAMING", CMQCFC.MQRCCF_STREAMQ_DEST_CONFLICT),
    ("R.TARGET", "R.OTHER", CMQCFC.MQRCCF_STREAMQ_CONFLICT),
])
def test_pcf_refuses_them_with_the_streamq_reason_codes(conn, sqm, queue, stream, reason):
    sqm.run_mqsc("DEFINE QLOCAL(R.TARGET) REPLACE\nDEFINE QLOCAL(R.OTHER) REPLACE\n"
                 "DEFINE QLOCAL(R.PCF) REPLACE\nDEFINE QLOCAL(R.XMITQ.PCF) USAGE(XMITQ) REPLACE\n"
                 "DEFINE QLOCAL(R.STREAMING) STREAMQ(R.TARGET) REPLACE")
    pcf = ibmmq.PCFExecute(conn, response_wait_interval=10000)
    try:
        with pytest.raises(ibmmq.MQMIError) as exc:
            pcf.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: queue.encode(), CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                                CMQC.MQCA_STREAM_QUEUE_NAME: stream.encode()})
        assert exc.value.reason == reason
    finally:
        pcf.disconnect()


# "Configuring streaming queues": the attributes are part of the queue's definition, kept
# like any other across a restart (and streaming goes on)
def test_a_restart_keeps_the_definition_and_the_streaming(tmp_path):
    manager = start(tmp_path, "QMSTRRS", mqsc="DEFINE QLOCAL(KEPT.COPY)\n"
                    "DEFINE QLOCAL(KEPT) STREAMQ(KEPT.COPY) STRMQOS(MUSTDUP)\n")
    try:
        put(connect(manager), "KEPT", b"before", Persistence=CMQC.MQPER_PERSISTENT)
        manager.stop()
        manager.start()
        shown = manager.run_mqsc("DISPLAY QLOCAL(KEPT) STREAMQ STRMQOS")
        assert "STREAMQ(KEPT.COPY)" in shown and "STRMQOS(MUSTDUP)" in shown
        conn = connect(manager)
        put(conn, "KEPT", b"after")
        assert [body for _, body in get_all(conn, "KEPT.COPY")] == [b"before", b"after"]
        conn.disconnect()
    finally:
        manager.stop()


# "Configuring streaming queues": a receiving channel's puts are puts like any other, and
# streamqremalias.html: "the duplicate messages can be sent to a queue on another queue
# manager" through a remote queue definition
def test_streaming_across_channels_both_ways(tmp_path):
    qmb = start(tmp_path, "QMSB", mqsc="DEFINE QLOCAL(IN.B.COPY)\n"
                "DEFINE QLOCAL(IN.B) STREAMQ(IN.B.COPY) STRMQOS(MUSTDUP)\n"
                "DEFINE QLOCAL(REMOTE.COPY)\n")
    qma = start(tmp_path, "QMSA")
    try:
        link(qma, qmb)
        qma.run_mqsc("DEFINE QREMOTE(COPY.AT.B) RNAME(REMOTE.COPY) RQMNAME(QMSB) XMITQ(QMSB)\n"
                     "DEFINE QLOCAL(PROD.A) STREAMQ(COPY.AT.B)")
        conn_a, conn_b = connect(qma), connect(qmb)
        [sent_in] = put_remote(conn_a, "IN.B", "QMSB", [b"over the channel"])
        sent_local = put(conn_a, "PROD.A", b"copied over the channel",
                         Persistence=CMQC.MQPER_PERSISTENT)
        [(copy_in, _)] = receive(conn_b, "IN.B.COPY", 1)
        [(original_in, _)] = receive(conn_b, "IN.B", 1)
        assert copy_in.MsgId == original_in.MsgId == sent_in
        [(remote_copy, body)] = receive(conn_b, "REMOTE.COPY", 1)
        assert (remote_copy.MsgId, body) == (sent_local.MsgId, b"copied over the channel")
        assert depth(conn_a, "PROD.A") == 1
        conn_a.disconnect()
        conn_b.disconnect()
    finally:
        qma.stop()
        qmb.stop()


# "Configuring streaming queues": the queue manager, not the application, puts the copy, so
# the putter needs authority to the production queue only
def test_the_putter_needs_no_authority_to_the_stream_queue(tmp_path):
    manager = embedded.EmbeddedQueueManager(
        str(tmp_path / "qm"), name="QMSTRSEC", users={"app": "apppw", "admin": "adminpw"},
        mqsc="DEFINE QLOCAL(PAID.COPY)\nDEFINE QLOCAL(PAID.ORDERS) STREAMQ(PAID.COPY)\n"
             "SET AUTHREC PROFILE('PAID.ORDERS') OBJTYPE(QUEUE) PRINCIPAL('app') "
             "AUTHADD(PUT)\n").start()
    try:
        app = ibmmq.connect(manager.name, "DEV.APP.SVRCONN", manager.conn_name,
                            user="app", password="apppw")
        with pytest.raises(ibmmq.MQMIError) as exc:
            ibmmq.Queue(app, "PAID.COPY", CMQC.MQOO_OUTPUT)
        assert exc.value.reason == CMQC.MQRC_NOT_AUTHORIZED
        sent = put(app, "PAID.ORDERS", b"paid")
        app.disconnect()
        admin = ibmmq.connect(manager.name, "DEV.ADMIN.SVRCONN", manager.conn_name,
                              user="admin", password="adminpw")
        [(copy, _)] = get_all(admin, "PAID.COPY")
        assert copy.MsgId == sent.MsgId
        admin.disconnect()
    finally:
        manager.stop()
