"""Conformance: publish/subscribe (topics, MQSUB, publications, retained publications, durable
subscriptions across a restart, MQSC and PCF administration), through IBM's ibmmq API
against real embedded queue manager processes."""
from __future__ import annotations

import itertools
import os

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

import spark_mq.embedded as embedded

MANAGED = CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED
DURABLE = MANAGED | CMQC.MQSO_DURABLE
WAIT = CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
_numbers = itertools.count(1)


@pytest.fixture
def root() -> str:
    """A topic string of this test's own, so that tests do not see each other's publications."""
    return f"test/{os.getpid()}/{next(_numbers)}"


def subscribe(conn, topic: str = "", options: int = MANAGED, name: str | None = None,
              queue: ibmmq.Queue | None = None, object_name: str | None = None,
              **fields) -> tuple[ibmmq.Subscription, ibmmq.SD]:
    sd = ibmmq.SD(Options=options, **fields)
    if topic:
        sd.set_vs("ObjectString", topic)
    if name:
        sd.set_vs("SubName", name)
    if object_name:
        sd.ObjectName = object_name.encode()
    sub = ibmmq.Subscription(conn)
    sub.sub(sub_desc=sd, sub_queue=queue)
    return sub, sd


def publish(conn, topic: str, body: bytes = b"hello", md: ibmmq.MD | None = None,
            pmo: ibmmq.PMO | None = None, object_name: str | None = None) -> ibmmq.MD:
    md = md or ibmmq.MD()
    od = ibmmq.OD(ObjectType=CMQC.MQOT_TOPIC, Version=CMQC.MQOD_VERSION_4,
                  ObjectName=(object_name or "").encode())
    if topic:
        od.set_vs("ObjectString", topic)
    handle = ibmmq.Topic(conn, topic_desc=od)
    handle.open(topic_desc=od, open_opts=CMQC.MQOO_OUTPUT)
    try:
        handle.pub(body, md, pmo or ibmmq.PMO())
    finally:
        handle.close()
    return md


def get(sub: ibmmq.Subscription, conn=None, wait: int = 2000):
    """(body, MD, message handle or None) of the next publication, or the MQ reason."""
    md = ibmmq.MD()
    gmo = ibmmq.GMO(Options=WAIT, WaitInterval=wait)
    handle = None
    if conn is not None:
        handle = ibmmq.MessageHandle(conn)
        gmo = ibmmq.GMO(Options=WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE, WaitInterval=wait,
                        Version=CMQC.MQGMO_VERSION_4, MsgHandle=handle.msg_handle)
    return sub.get(None, md, gmo), md, handle


def nothing_for(sub: ibmmq.Subscription) -> bool:
    return reason_of(sub.get, None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT)) \
        == CMQC.MQRC_NO_MSG_AVAILABLE


def reason_of(call, *args, **kwargs) -> int:
    with pytest.raises(ibmmq.MQMIError) as exc:
        call(*args, **kwargs)
    return exc.value.reason


# === publications ==========================================================================
def test_managed_subscription_gets_publication_with_mq_fields(conn, ibmmq, root):
    sub, sd = subscribe(conn, root)
    put_md = publish(conn, root, b"price 10", ibmmq.MD(Format=CMQC.MQFMT_STRING))
    body, md, handle = get(sub, conn)
    assert body == b"price 10"
    assert handle.properties.get("MQTopicString") == root
    assert md.MsgType == CMQC.MQMT_DATAGRAM
    assert md.Format == CMQC.MQFMT_STRING
    assert md.CorrelId == sd.SubCorrelId and md.CorrelId != CMQC.MQCI_NONE
    assert md.PutApplName.strip() == put_md.PutApplName.strip() and md.PutApplName.strip()
    assert md.MsgId != put_md.MsgId  # each subscription's copy has its own id
    assert md.Persistence == CMQC.MQPER_NOT_PERSISTENT  # SYSTEM.BASE.TOPIC: DEFPSIST(NO)
    sub.close(close_sub_queue=True)


def test_publication_without_handle_has_no_rfh2(conn, root):
    """PROPCTL(COMPAT): MQTopicString alone does not put an MQRFH2 in front of the data."""
    sub, _ = subscribe(conn, root)
    publish(conn, root, b"plain")
    assert get(sub)[0] == b"plain"
    sub.close(close_sub_queue=True)


@pytest.mark.parametrize("pattern, topics, expected", [
    ("{r}/#", ["{r}", "{r}/a", "{r}/a/b", "{r}x"], ["{r}", "{r}/a", "{r}/a/b"]),
    ("{r}/+", ["{r}", "{r}/a", "{r}/a/b", "{r}/"], ["{r}/a", "{r}/"]),
    ("{r}/+/c", ["{r}/a/c", "{r}/b/c", "{r}/a/b/c"], ["{r}/a/c", "{r}/b/c"]),
    ("{r}/a#", ["{r}/a#", "{r}/ab"], ["{r}/a#"]),  # '#' not a whole level: a character
])
def test_topic_wildcards(conn, root, pattern, topics, expected):
    sub, _ = subscribe(conn, pattern.format(r=root))
    for topic in topics:
        publish(conn, topic.format(r=root), topic.format(r=root).encode())
    got = [get(sub, conn, 500)[2].properties.get("MQTopicString") for _ in expected]
    assert got == [topic.format(r=root) for topic in expected]
    assert nothing_for(sub)
    sub.close(close_sub_queue=True)


def test_character_wildcards(conn, root):
    """MQSO_WILDCARD_CHAR: '*' spans levels, '?' is one character, '#' is a character."""
    sub, _ = subscribe(conn, f"{root}/pr?ce*", MANAGED | CMQC.MQSO_WILDCARD_CHAR)
    for topic in ("price", "prace/x/y", "prince", "pr/ce", "prize"):
        publish(conn, f"{root}/{topic}", topic.encode())
    assert [get(sub)[0] for _ in range(3)] == [b"price", b"prace/x/y", b"pr/ce"]
    assert nothing_for(sub)
    sub.close(close_sub_queue=True)
    assert reason_of(subscribe, conn, root,
                     MANAGED | CMQC.MQSO_WILDCARD_CHAR | CMQC.MQSO_WILDCARD_TOPIC) \
        == CMQC.MQRC_OPTIONS_ERROR


def test_topic_object_and_string_combine(qm, conn, root):
    name = f"T.{os.getpid()}.{next(_numbers)}"
    qm.run_mqsc(f"DEFINE TOPIC({name}) TOPICSTR('{root}/sports')")
    sub, _ = subscribe(conn, "football", object_name=name)
    publish(conn, "", b"by object", object_name=name)               # root/sports: not matched
    publish(conn, "football", b"combined", object_name=name)         # root/sports/football
    body, _, handle = get(sub, conn)
    assert body == b"combined"
    assert handle.properties.get("MQTopicString") == f"{root}/sports/football"
    assert nothing_for(sub)
    sub.close(close_sub_queue=True)
    assert reason_of(publish, conn, "x", object_name="NO.SUCH.TOPIC") == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_provided_queue_and_set_correl_id(qm, conn, make_queue, root):
    queue = ibmmq.Queue(conn, make_queue(), CMQC.MQOO_INPUT_AS_Q_DEF)
    correl = b"MY.CORREL".ljust(24, b"\0")
    sub, _ = subscribe(conn, root, CMQC.MQSO_CREATE | CMQC.MQSO_SET_CORREL_ID, queue=queue,
                       SubCorrelId=correl)
    publish(conn, root, b"to my queue")
    body, md, _ = get(sub)
    assert (body, md.CorrelId) == (b"to my queue", correl)
    sub.close(close_sub_queue=True)
    assert reason_of(subscribe, conn, root, CMQC.MQSO_CREATE) == CMQC.MQRC_HOBJ_ERROR


def test_every_matching_subscription_gets_a_copy(conn, root):
    subs = [subscribe(conn, topic)[0] for topic in (root, f"{root}/#", f"{root}/+")]
    publish(conn, root, b"one")
    assert [get(sub)[0] for sub in subs[:2]] == [b"one", b"one"]
    assert nothing_for(subs[2])
    for sub in subs:
        sub.close(close_sub_queue=True)


def test_publication_under_syncpoint_is_delivered_at_commit(conn, root):
    sub, _ = subscribe(conn, root)
    publish(conn, root, b"backed out", pmo=ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    assert nothing_for(sub)
    conn.backout()
    assert nothing_for(sub)
    publish(conn, root, b"committed", pmo=ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    assert nothing_for(sub)
    conn.commit()
    assert get(sub)[0] == b"committed"
    sub.close(close_sub_queue=True)


def test_persistence_as_topic_definition(qm, conn, root):
    name = f"T.{os.getpid()}.{next(_numbers)}"
    qm.run_mqsc(f"DEFINE TOPIC({name}) TOPICSTR('{root}') DEFPSIST(YES) DEFPRTY(7)")
    # ibmmq's MQSD asks for MQPRI_PRIORITY_AS_Q_DEF: the subscriber's queue decides
    as_queue, _ = subscribe(conn, root)
    sub, _ = subscribe(conn, f"{root}/#", PubPriority=CMQC.MQPRI_PRIORITY_AS_PUBLISHED)
    publish(conn, f"{root}/below")  # inherits from the nearest topic object above
    publish(conn, root, md=ibmmq.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT, Priority=2))
    first, second = get(sub)[1], get(sub)[1]
    assert (first.Persistence, first.Priority) == (CMQC.MQPER_PERSISTENT, 7)
    assert (second.Persistence, second.Priority) == (CMQC.MQPER_NOT_PERSISTENT, 2)
    assert get(as_queue)[1].Priority == 0
    sub.close(close_sub_queue=True)
    as_queue.close(close_sub_queue=True)


def test_put1_to_a_topic(conn, root):
    sub, _ = subscribe(conn, root)
    od = ibmmq.OD(ObjectType=CMQC.MQOT_TOPIC, Version=CMQC.MQOD_VERSION_4)
    od.set_vs("ObjectString", root)
    conn.put1(od, b"put1", ibmmq.MD(), ibmmq.PMO())
    assert get(sub)[0] == b"put1"
    sub.close(close_sub_queue=True)


def test_inhibited_topics(qm, conn, root):
    name = f"T.{os.getpid()}.{next(_numbers)}"
    qm.run_mqsc(f"DEFINE TOPIC({name}) TOPICSTR('{root}') PUB(DISABLED) SUB(DISABLED) DURSUB(NO)")
    assert reason_of(publish, conn, f"{root}/x") == CMQC.MQRC_PUT_INHIBITED
    assert reason_of(subscribe, conn, root) == CMQC.MQRC_SUB_INHIBITED
    qm.run_mqsc(f"ALTER TOPIC({name}) SUB(ENABLED)")
    assert reason_of(subscribe, conn, root, DURABLE, name=f"{name}.SUB") \
        == CMQC.MQRC_DURABILITY_NOT_ALLOWED
    topic = ibmmq.Topic(conn, topic_string=root)
    assert reason_of(topic.open, open_opts=CMQC.MQOO_INPUT_AS_Q_DEF) \
        == CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE


# === retained publications ===================================================================
def test_retained_publication(conn, root):
    publish(conn, root, b"old", pmo=ibmmq.PMO(Options=CMQC.MQPMO_RETAIN))
    publish(conn, root, b"latest", pmo=ibmmq.PMO(Options=CMQC.MQPMO_RETAIN))
    publish(conn, root, b"not retained")
    sub, _ = subscribe(conn, root)
    body, _, handle = get(sub, conn)
    assert body == b"latest"
    assert handle.properties.get("MQIsRetained") in (1, True)
    assert nothing_for(sub)
    sub.subrq()  # MQSR_ACTION_PUBLICATION: send it again
    assert get(sub)[0] == b"latest"
    sub.close(close_sub_queue=True)
    newer, _ = subscribe(conn, root, MANAGED | CMQC.MQSO_NEW_PUBLICATIONS_ONLY)
    assert nothing_for(newer)
    newer.close(close_sub_queue=True)
    other, _ = subscribe(conn, f"{root}/none")
    assert reason_of(other.subrq) == CMQC.MQRC_NO_RETAINED_MSG
    other.close(close_sub_queue=True)


# === durable subscriptions ===================================================================
def test_durable_subscription_lifecycle(qm, ibmmq, root):
    name = f"DURABLE {os.getpid()} {next(_numbers)}"
    first = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    sub, _ = subscribe(first, root, DURABLE, name=name)
    assert reason_of(subscribe, first, root, DURABLE, name=name) == CMQC.MQRC_SUB_ALREADY_EXISTS
    second = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    assert reason_of(subscribe, second, "", CMQC.MQSO_RESUME, name=name) \
        == CMQC.MQRC_SUBSCRIPTION_IN_USE
    sub.close(close_sub_queue=True)                      # MQCO_NONE: a durable one stays
    first.disconnect()
    publish(second, root, b"while away")
    resumed, _ = subscribe(second, "", CMQC.MQSO_RESUME, name=name)
    assert get(resumed)[0] == b"while away"
    resumed.close(sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
    assert reason_of(subscribe, second, "", CMQC.MQSO_RESUME, name=name) \
        == CMQC.MQRC_NO_SUBSCRIPTION
    second.disconnect()


def test_non_durable_subscription_ends_with_its_handle_and_connection(qm, ibmmq, root):
    name = f"NONDURABLE.{os.getpid()}.{next(_numbers)}"
    conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    sub, _ = subscribe(conn, root, MANAGED, name=name)
    assert f"SUB({name})" in qm.run_mqsc(f"DISPLAY SUB('{name}')")
    assert reason_of(sub.close, sub_close_options=CMQC.MQCO_KEEP_SUB) \
        == CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE
    sub.close()
    with pytest.raises(embedded.EmbeddedQueueManagerError):
        qm.run_mqsc(f"DISPLAY SUB('{name}')")
    subscribe(conn, root, MANAGED, name=name)
    conn.disconnect()
    with pytest.raises(embedded.EmbeddedQueueManagerError):
        qm.run_mqsc(f"DISPLAY SUB('{name}')")


def test_durable_subscription_survives_a_restart(tmp_path, ibmmq):
    """Publications made while the subscriber was away, before and after the restart: the
    persistent ones are there after it, the non-persistent one is not, as in MQ."""
    with embedded.EmbeddedQueueManager(str(tmp_path), name="QMR") as manager:
        conn = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
        sub, sd = subscribe(conn, "news/#", DURABLE, name="NEWS")
        correl = sd.SubCorrelId
        sub.close(sub_close_options=CMQC.MQCO_KEEP_SUB, close_sub_queue=True)
        conn.disconnect()
        conn = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
        persistent = ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT)
        publish(conn, "news/a", b"persistent before", persistent)
        publish(conn, "news/b", b"lost at restart", ibmmq.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT))
        publish(conn, "news/c", b"retained", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT),
                ibmmq.PMO(Options=CMQC.MQPMO_RETAIN))
        conn.disconnect()
        manager.stop()
        manager.start()
        conn = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
        publish(conn, "news/d", b"persistent after", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        resumed, sd = subscribe(conn, "", CMQC.MQSO_RESUME, name="NEWS")
        assert sd.SubCorrelId == correl
        bodies = [get(resumed)[0] for _ in range(3)]
        assert bodies == [b"persistent before", b"retained", b"persistent after"]
        assert nothing_for(resumed)
        assert "DURABLE(YES)" in manager.run_mqsc("DISPLAY SUB(NEWS) ALL")
        late, _ = subscribe(conn, "news/c")  # the retained publication survived too
        assert get(late)[0] == b"retained"
        late.close(close_sub_queue=True)
        resumed.close(sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
        conn.disconnect()


# === administration ==========================================================================
def test_mqsc_topic_sub_and_tpstatus(qm, conn, make_queue, root):
    name = f"T.{os.getpid()}.{next(_numbers)}"
    qm.run_mqsc(f"DEFINE TOPIC({name}) TOPICSTR('{root}') DEFPSIST(YES)")
    shown = qm.run_mqsc(f"DISPLAY TOPIC({name}) ALL")
    assert f"TOPICSTR({root})" in shown and "DEFPSIST(YES)" in shown and "DEFPRTY(ASPARENT)" in shown
    assert "MDURMDL(SYSTEM.DURABLE.MODEL.QUEUE)" in qm.run_mqsc("DISPLAY TOPIC(SYSTEM.BASE.TOPIC)")
    queue_name = make_queue()
    qm.run_mqsc(f"DEFINE SUB({name}.ADMIN) TOPICSTR('{root}/admin') DEST({queue_name})")
    assert "SUBTYPE(ADMIN)" in qm.run_mqsc(f"DISPLAY SUB({name}.ADMIN) ALL")
    publish(conn, f"{root}/admin", b"to admin sub")
    queue = ibmmq.Queue(conn, queue_name, CMQC.MQOO_INPUT_AS_Q_DEF)
    assert queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT)) == b"to admin sub"
    queue.close()
    status = qm.run_mqsc(f"DISPLAY TPSTATUS('{root}/#')")
    assert f"TOPICSTR({root}/admin)" in status and "SUBCOUNT(1)" in status
    qm.run_mqsc(f"DELETE SUB({name}.ADMIN)")
    qm.run_mqsc(f"DELETE TOPIC({name})")
    with pytest.raises(embedded.EmbeddedQueueManagerError):
        qm.run_mqsc(f"DISPLAY TOPIC({name})")


def test_pcf_subscription_commands(conn, root):
    pcf = ibmmq.PCFExecute(conn, response_wait_interval=10000)
    name = f"PCF.{os.getpid()}.{next(_numbers)}"
    with pytest.raises(ibmmq.MQMIError) as exc:
        pcf.MQCMD_INQUIRE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: f"{name}*"})
    assert exc.value.reason == CMQC.MQRC_NO_SUBSCRIPTION
    pcf.MQCMD_CREATE_SUBSCRIPTION({
        CMQCFC.MQCACF_SUB_NAME: name.encode(), CMQC.MQCA_TOPIC_STRING: root.encode(),
        CMQCFC.MQIACF_DESTINATION_CLASS: CMQC.MQDC_MANAGED, CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})
    found = pcf.MQCMD_INQUIRE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: f"{name}*"})
    assert len(found) == 1 and found[0][CMQC.MQCA_TOPIC_STRING].strip() == root.encode()
    resumed, _ = subscribe(conn, "", CMQC.MQSO_RESUME, name=name)
    publish(conn, root, b"admin managed")
    assert get(resumed)[0] == b"admin managed"
    resumed.close(close_sub_queue=True)
    pcf.MQCMD_DELETE_SUBSCRIPTION({CMQCFC.MQBACF_SUB_ID: ibmmq.ByteString(found[0][CMQCFC.MQBACF_SUB_ID])})
    with pytest.raises(ibmmq.MQMIError) as exc:
        pcf.MQCMD_INQUIRE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: name})
    assert exc.value.reason == CMQC.MQRC_NO_SUBSCRIPTION
    topics = pcf.MQCMD_INQUIRE_TOPIC({CMQC.MQCA_TOPIC_NAME: b"SYSTEM.BASE.TOPIC"})
    assert topics[0][CMQC.MQIA_DURABLE_SUB] == CMQC.MQSUB_DURABLE_ALLOWED
