"""Conformance: the edges of IBM MQ's message channels between two real embedded queue
managers, through IBM's `ibmmq` API and MQSC: what the receiving MCA does with NPMSPEED(FAST)
non-persistent messages it cannot put, and the channel's negotiated MAXMSGL."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC

from channel_topology import (
    channel_status,
    connect,
    depth,
    link,
    put_remote,
    receive,
    start,
    wait_for,
)

DLQ = "DEV.DEAD.LETTER.QUEUE"


@pytest.fixture
def pair(tmp_path):
    """QMA -> QMB with a channel (NPMSPEED(FAST), IBM's default); on QMB: IN.B, a
    put-inhibited queue and a full one, and a receiver that does not retry puts."""
    qmb = start(tmp_path, "QMB", mqsc="DEFINE QLOCAL(IN.B)\nDEFINE QLOCAL(SHUT.B) PUT(DISABLED)\n"
                                      "DEFINE QLOCAL(FULL.B) MAXDEPTH(1)\n")
    qma = start(tmp_path, "QMA")
    name = link(qma, qmb)
    qmb.run_mqsc(f"ALTER CHANNEL({name}) CHLTYPE(RCVR) MRRTY(0)")
    ibmmq.Queue(connect(qmb), "FULL.B", CMQC.MQOO_OUTPUT).put(b"filler")
    yield qma, qmb, name
    qma.stop()
    qmb.stop()


def _dead_letter(conn: ibmmq.QueueManager) -> tuple[ibmmq.MD, ibmmq.DLH, bytes]:
    [(md, data)] = receive(conn, DLQ, 1)
    dlh = ibmmq.DLH()
    dlh.unpack(data[:CMQC.MQDLH_LENGTH_1])
    return md, dlh, data[CMQC.MQDLH_LENGTH_1:]


@pytest.mark.parametrize("queue, reason", [
    ("NO.SUCH.QUEUE", CMQC.MQRC_UNKNOWN_OBJECT_NAME),
    ("SHUT.B", CMQC.MQRC_PUT_INHIBITED),
    ("FULL.B", CMQC.MQRC_Q_FULL),
])
def test_a_fast_non_persistent_message_that_cannot_be_put_is_dead_lettered(pair, queue, reason):
    """IBM docs, "Safety of messages" (Fast, nonpersistent messages): "If the receiving
    channel cannot put the message to its destination queue then it is placed on the dead
    letter queue, if one has been defined. If not, the message is discarded." The MQDLH
    carries the put's reason (IBM docs: "MQDLH - Dead-letter header")."""
    qma, qmb, name = pair
    [msg_id] = put_remote(connect(qma), queue, "QMB", [b"fast"], persistent=False,
                          Format=CMQC.MQFMT_STRING)
    md, dlh, body = _dead_letter(connect(qmb))
    assert md.MsgId == msg_id and md.Persistence == CMQC.MQPER_NOT_PERSISTENT
    assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER
    assert dlh.Reason == reason
    assert (dlh.DestQName.strip(), dlh.DestQMgrName.strip()) == (queue.encode(), b"QMB")
    assert dlh.Format == CMQC.MQFMT_STRING and body == b"fast"
    assert channel_status(qma, name) == "RUNNING"


def test_without_a_dead_letter_queue_a_fast_message_is_discarded_and_the_channel_goes_on(
        pair, tmp_path):
    """IBM docs, "Dead-letter queues": "if fast, non-persistent messages cannot be delivered,
    and no dead-letter queue exists on the target system, these messages are discarded"; a
    persistent message behind it still arrives, the channel keeps running, and the receiving
    queue manager's log says what was lost."""
    qma, qmb, name = pair
    qmb.run_mqsc("ALTER QMGR DEADQ(' ')")
    a = connect(qma)
    put_remote(a, "NO.SUCH.QUEUE", "QMB", [b"lost"], persistent=False)
    put_remote(a, "IN.B", "QMB", [b"after"])
    assert [body for _, body in receive(connect(qmb), "IN.B", 1)] == [b"after"]
    assert channel_status(qma, name) == "RUNNING" and depth(a, "QMB") == 0
    log = (tmp_path / "QMB" / "qmgr.log").read_text()
    assert "AMQ9565E" in log and "NO.SUCH.QUEUE" in log and "discarded" in log


def test_a_persistent_message_without_a_dead_letter_queue_still_stops_the_channel(pair):
    """The other half of the same rule (IBM docs, "Dead-letter queues"): without a
    dead-letter queue a message inside a batch is "left on the transmission queue and the
    channel is stopped"; only FAST non-persistent messages are ever discarded."""
    qma, qmb, name = pair
    qmb.run_mqsc("ALTER QMGR DEADQ(' ')")
    a = connect(qma)
    put_remote(a, "NO.SUCH.QUEUE", "QMB", [b"kept"])
    wait_for(lambda: channel_status(qma, name) == "STOPPED", what="the channel stopped")
    assert depth(a, "QMB") == 1
