"""The connector across queue managers, with real embedded queue managers joined by channels
and a real local[2] Spark session: the writer routes rows to queues on other queue managers
(a `queue_manager` column, or option targetQueueManager), and the request/reply bridge
answers each request at its ReplyToQ on its ReplyToQMgr, through the channel back."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC

from channel_topology import connect, depth, link, receive, start, wait_for
from spark_mq.jobs.request_reply_bridge import replies


@pytest.fixture(scope="module")
def network(tmp_path_factory):
    """QMA with channels to QMB and QMC, and QMB with a channel back to QMA."""
    folder = tmp_path_factory.mktemp("network")
    qmb = start(folder, "QMB", mqsc="DEFINE QLOCAL(ORDERS)\nDEFINE QLOCAL(REQUESTS)\n")
    qmc = start(folder, "QMC", mqsc="DEFINE QLOCAL(ORDERS)\n")
    qma = start(folder, "QMA", mqsc="DEFINE QLOCAL(ORDERS)\nDEFINE QLOCAL(REPLIES)\n")
    for sender, receiver in ((qma, qmb), (qma, qmc), (qmb, qma)):
        link(sender, receiver)
    yield {"QMA": qma, "QMB": qmb, "QMC": qmc}
    for manager in (qma, qmb, qmc):
        manager.stop()


def options(qm, **extra: str) -> dict[str, str]:
    return {"connName": qm.conn_name, "queueManager": qm.name, "channel": "DEV.APP.SVRCONN",
            **extra}


def test_a_queue_manager_column_routes_each_row_through_the_channels(spark, network):
    rows = [(f"order {n}", "ORDERS", ("QMB", "QMC", None)[n % 3]) for n in range(30)]
    frame = spark.createDataFrame(rows, "payload string, queue string, queue_manager string")
    frame.write.format("mq").options(**options(network["QMA"])).mode("append").save()
    for name, wanted in (("QMB", range(0, 30, 3)), ("QMC", range(1, 30, 3)),
                         ("QMA", range(2, 30, 3))):
        got = receive(connect(network[name]), "ORDERS", len(wanted))
        assert sorted(body.decode() for _, body in got) == sorted(f"order {n}" for n in wanted)


def test_option_target_queue_manager_wins_over_the_column(spark, network):
    frame = spark.createDataFrame([("to C", "ORDERS", "QMB")],
                                  "payload string, queue string, queue_manager string")
    frame.write.format("mq").options(**options(network["QMA"], targetQueueManager="QMC")) \
        .mode("append").save()
    assert [body for _, body in receive(connect(network["QMC"]), "ORDERS", 1)] == [b"to C"]


def test_an_unknown_queue_manager_fails_with_mq_s_reason_and_what_to_do(spark, network):
    frame = spark.createDataFrame([("lost?", "ORDERS")], "payload string, queue string")
    with pytest.raises(Exception) as failed:
        frame.write.format("mq").options(**options(network["QMA"], queue="ORDERS",
                                                   targetQueueManager="NOWHERE")) \
            .mode("append").save()
    message = str(failed.value)
    assert "2087 MQRC_UNKNOWN_REMOTE_Q_MGR" in message and "targetQueueManager" in message


def test_the_bridge_answers_at_the_requesters_queue_manager(spark, network):
    """A requester on QMA sends to REQUESTS on QMB; the bridge reads QMB and answers at
    ReplyToQ REPLIES on ReplyToQMgr QMA (which QMA filled in), back through the channel."""
    a = connect(network["QMA"])
    out = ibmmq.Queue(a, ibmmq.OD(ObjectName="REQUESTS", ObjectQMgrName="QMB"), CMQC.MQOO_OUTPUT)
    sent = []
    for n in range(5):
        md = ibmmq.MD(ReplyToQ=b"REPLIES", MsgType=CMQC.MQMT_REQUEST,
                      Persistence=CMQC.MQPER_PERSISTENT, Format=CMQC.MQFMT_STRING)
        out.put(f"question {n}".encode(), md)
        sent.append(md.MsgId)
    out.close()
    b = connect(network["QMB"])
    wait_for(lambda: depth(b, "REQUESTS") == 5, what="the requests crossed to QMB")
    requests = spark.read.format("mq").options(**options(network["QMB"], queue="REQUESTS")).load()
    answers = replies(requests, "upper", "NO.REPLY", [])
    answers.write.format("mq").options(**options(network["QMB"])).mode("append").save()
    got = receive(a, "REPLIES", 5)
    assert sorted(md.CorrelId for md, _ in got) == sorted(sent)
    assert sorted(body for _, body in got) == [f"QUESTION {n}".encode() for n in range(5)]
    assert all(md.MsgType == CMQC.MQMT_REPLY for md, _ in got)


def test_a_read_names_its_queue_manager_and_written_on_keeps_that_meaning(spark, network):
    """A read's `queue` and `queue_manager` say where each message was. Written on with a
    `queue` option, the rows go to that queue on the connected queue manager, not back where
    they were read; without one, the pair routes each row back to its queue on its queue
    manager, through the channel."""
    qma, qmb = network["QMA"], network["QMB"]
    for manager in (qma, qmb):
        manager.run_mqsc("DEFINE QLOCAL(COPIES) REPLACE")
    out = ibmmq.Queue(connect(qma), "COPIES", CMQC.MQOO_OUTPUT)
    for body in (b"one", b"two"):
        out.put(body, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
    out.close()
    read = spark.read.format("mq").options(**options(qma, queue="COPIES")).load()   # browses
    assert sorted((r.payload, r.queue, r.queue_manager) for r in read.collect()) == [
        (b"one", "COPIES", "QMA"), (b"two", "COPIES", "QMA")]
    read.write.format("mq").options(**options(qmb, queue="COPIES")).mode("append").save()
    assert sorted(body for _, body in receive(connect(qmb), "COPIES", 2)) == [b"one", b"two"]
    read.write.format("mq").options(**options(qmb)).mode("append").save()
    got = receive(connect(qma), "COPIES", 4)
    assert sorted(body for _, body in got) == [b"one", b"one", b"two", b"two"]
