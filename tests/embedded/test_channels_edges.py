"""Conformance: the edges of IBM MQ's message channels between two real embedded queue
managers, through IBM's `ibmmq` API and MQSC: what the receiving MCA does with NPMSPEED(FAST)
non-persistent messages it cannot put, the channel's negotiated MAXMSGL, and a partner's
request without a ReplyToQ (2027 is the putting application's rule)."""
from __future__ import annotations

import socket
import time
import uuid

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

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
from spark_mq.embedded import wire
from spark_mq.embedded.server.resolution.transmission import wrap
from spark_mq.mqi.structs import default_md

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


# --- MAXMSGL --------------------------------------------------------------------------------
def _chstatus(qm, name: str) -> str:
    return qm.run_mqsc(f"DISPLAY CHSTATUS({name}) ALL")


def test_a_message_longer_than_the_channels_maxmsgl_is_dead_lettered_by_the_sender(pair):
    """IBM docs, "Maximum message length (MAXMSGL)": "When a channel starts, the lower of
    the two numbers at each end of the channel is taken"; a longer message is not sent:
    the sending MCA puts it on its own dead-letter queue with 2218 MQRC_MSG_TOO_BIG_FOR_CHANNEL
    (IBM docs: "2218 (08AA) (RC2218): MQRC_MSG_TOO_BIG_FOR_CHANNEL"; "Dead-letter queue
    processing": "The message was longer than the maximum message size for the channel")
    and the channel goes on with the next message."""
    qma, qmb, name = pair
    qmb.run_mqsc(f"ALTER CHANNEL({name}) CHLTYPE(RCVR) MAXMSGL(2000)")
    a = connect(qma)
    [big] = put_remote(a, "IN.B", "QMB", [b"B" * 5000], Format=CMQC.MQFMT_STRING)
    [fast_big] = put_remote(a, "IN.B", "QMB", [b"N" * 5000], persistent=False)
    after = put_remote(a, "IN.B", "QMB", [b"small"])
    got = receive(connect(qmb), "IN.B", 1)
    assert [md.MsgId for md, _ in got] == after
    dead = receive(a, DLQ, 2)
    assert sorted(md.MsgId for md, _ in dead) == sorted([big, fast_big])
    for md, data in dead:
        dlh = ibmmq.DLH()
        dlh.unpack(data[:CMQC.MQDLH_LENGTH_1])
        assert dlh.Reason == CMQC.MQRC_MSG_TOO_BIG_FOR_CHANNEL
        assert (dlh.DestQName.strip(), dlh.DestQMgrName.strip()) == (b"IN.B", b"QMB")
        assert data[CMQC.MQDLH_LENGTH_1:] in (b"B" * 5000, b"N" * 5000)
        assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER
    assert depth(a, "QMB") == 0 and receive(connect(qmb), "IN.B", 1, seconds=1) == []
    sender_side, receiver_side = _chstatus(qma, name), _chstatus(qmb, name)
    assert "STATUS(RUNNING)" in sender_side
    assert "MAXMSGL(2000)" in sender_side and "MAXMSGL(2000)" in receiver_side


def test_the_queue_managers_maxmsgl_bounds_what_the_channel_agrees(pair):
    """A channel's MAXMSGL never exceeds its queue manager's (IBM docs, "Maximum message
    length (MAXMSGL)": a value "less than or equal to the maximum message length for the
    queue manager"; 0 means the queue manager's): the receiving queue manager's MAXMSGL is
    the limit agreed, shown by DISPLAY CHSTATUS and by PCF Inquire Channel Status."""
    qma, qmb, name = pair
    qmb.run_mqsc(f"ALTER QMGR MAXMSGL(40000)\nALTER CHANNEL({name}) CHLTYPE(RCVR) MAXMSGL(0)")
    a = connect(qma)
    [big] = put_remote(a, "IN.B", "QMB", [b"x" * 50_000])
    put_remote(a, "IN.B", "QMB", [b"fits"])
    assert [body for _, body in receive(connect(qmb), "IN.B", 1)] == [b"fits"]
    [(md, data)] = receive(a, DLQ, 1)
    assert md.MsgId == big
    assert "MAXMSGL(40000)" in _chstatus(qma, name)
    [status] = ibmmq.PCFExecute(a).MQCMD_INQUIRE_CHANNEL_STATUS(
        {CMQCFC.MQCACH_CHANNEL_NAME: name.encode()})
    assert status[CMQCFC.MQIACH_MAX_MSG_LENGTH] == 40000


def test_without_a_dead_letter_queue_a_message_too_long_stops_the_channel_and_stays(pair):
    """IBM docs, "Dead-letter queues": without a dead-letter queue, a message the MCA cannot
    move "is left on the transmission queue and the channel is stopped"; once the channel's
    MAXMSGL allows it, START CHANNEL delivers it."""
    qma, qmb, name = pair
    qma.run_mqsc("ALTER QMGR DEADQ(' ')")
    qmb.run_mqsc(f"ALTER CHANNEL({name}) CHLTYPE(RCVR) MAXMSGL(2000)")
    a = connect(qma)
    [big] = put_remote(a, "IN.B", "QMB", [b"y" * 5000])
    wait_for(lambda: channel_status(qma, name) == "STOPPED", what="the channel stopped")
    assert depth(a, "QMB") == 1
    qmb.run_mqsc(f"ALTER CHANNEL({name}) CHLTYPE(RCVR) MAXMSGL(10000)")
    qma.run_mqsc(f"START CHANNEL({name})")
    assert [md.MsgId for md, _ in receive(connect(qmb), "IN.B", 1)] == [big]


def test_a_receiver_takes_a_message_longer_than_agreed_as_a_broken_rule(pair):
    """The receiver answers the hello with the lower MAXMSGL, and a sender that then sends
    a longer message ends its channel with nothing of the batch committed (DESIGN.md: a
    channel partner is a stranger until proven otherwise)."""
    qma, qmb, name = pair
    with socket.create_connection(("127.0.0.1", qmb.port), timeout=10) as sock:
        sock.sendall(wire.frame(["CHL", name, "QMA", 50, False, 0, 100]))
        answer = wire.FrameReader(sock).read_reply()
        assert answer[0] == CMQC.MQCC_OK and answer[5] == 100
        sock.sendall(wire.frame(["MSG", 1, b"x" * 24, b"z" * 101, None, True]))
        assert sock.recv(65536) == b""
    b = connect(qmb)
    assert depth(b, DLQ) == 0 and depth(b, "IN.B") == 0
    sent = put_remote(connect(qma), "IN.B", "QMB", [b"still served"])
    assert [md.MsgId for md, _ in receive(b, "IN.B", 1)] == sent


# --- 2027 is the putting application's rule, not the channel's -------------------------------
def test_a_partners_request_without_a_reply_to_queue_does_not_stop_the_channel(pair):
    """2027 MQRC_MISSING_REPLY_TO_Q is checked where an application puts (IBM docs:
    "ReplyToQ (MQCHAR48)"); a receiving MCA delivers, or dead-letters, what its partner
    sends, so a partner's request without a ReplyToQ can neither stop the channel nor be
    lost: one for IN.B arrives, one for an unknown queue is dead-lettered with 2085."""
    qma, qmb, name = pair
    with socket.create_connection(("127.0.0.1", qmb.port), timeout=20) as sock:
        reader = wire.FrameReader(sock)
        sock.sendall(wire.frame(["CHL", name, "QMA", 50, False, 0, 4_194_304]))
        answer = reader.read_reply()
        assert answer[0] == CMQC.MQCC_OK
        seq = int(answer[4][1])
        for queue in ("IN.B", "NO.SUCH.QUEUE"):
            seq += 1
            msg_id = uuid.uuid4().bytes + b"\0" * 8
            md = default_md(MsgType=CMQC.MQMT_REQUEST, MsgId=msg_id,
                            Persistence=CMQC.MQPER_PERSISTENT)
            _, xmit = wrap("QMA", queue, "QMB", md, b"no reply-to", uuid.uuid4().bytes[:24],
                           time.strftime("%Y%m%d").encode(), b"12000000")
            sock.sendall(wire.frame(["MSG", seq, msg_id, xmit, None, True]))
        sock.sendall(wire.frame(["END", uuid.uuid4().hex[:16], seq]))
        assert reader.read(time.monotonic() + 30)[0] == "DONE"
        sock.sendall(wire.frame(["BYE"]))
    b = connect(qmb)
    [(md, body)] = receive(b, "IN.B", 1)
    assert md.MsgType == CMQC.MQMT_REQUEST and body == b"no reply-to"
    _, dlh, _ = _dead_letter(b)
    assert dlh.Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
