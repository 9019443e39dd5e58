"""A channel's batch streams (issue 34 item 9): the sender writes a batch's messages back to
back, several frames to a write, and waits only for the answer to its END; the receiver
answers nothing before the END and commits the batch, with its sync record, once, there.
Real queue managers (tests/channel_topology.py) and real sockets; speed is not asserted
here (bench/bench_channels.py measures it): what is asserted is the shape of the exchange
that makes it fast."""
from __future__ import annotations

import socket
import time
import uuid

import ibmmq
import pytest
from ibmmq import CMQC

from channel_topology import connect, depth, link, put_remote, receive, start, wait_for
from spark_mq.embedded import wire
from spark_mq.embedded.server.message_channels.link import Link
from spark_mq.embedded.server.resolution.transmission import wrap
from spark_mq.mqi.structs import default_md


@pytest.fixture
def pair(tmp_path):
    qmb = start(tmp_path, "QMB", mqsc="DEFINE QLOCAL(IN.B)\n")
    qma = start(tmp_path, "QMA")
    try:
        yield qma, qmb, link(qma, qmb, "BATCHSZ(50)")
    finally:
        qma.stop()
        qmb.stop()


def _message(seq: int, body: bytes) -> list:
    msg_id = uuid.uuid4().bytes + b"\0" * 8
    md = default_md(MsgId=msg_id, Persistence=CMQC.MQPER_PERSISTENT)
    _, xmit = wrap("QMA", "IN.B", "QMB", md, body, uuid.uuid4().bytes[:24],
                   time.strftime("%Y%m%d").encode(), b"12000000")
    return ["MSG", seq, msg_id, xmit, None, True]


def test_the_receiver_answers_a_batch_only_at_its_end_and_commits_it_there(pair):
    """Five messages in one write, then a heartbeat: the receiver has read and put them all
    by the time it answers the heartbeat (frames are handled in order), and the heartbeat's
    answer is the first thing it sends: no answer per message. Nothing is visible until the
    END; then all five are, and the answer is DONE."""
    qma, qmb, name = pair
    qma.run_mqsc(f"STOP CHANNEL({name})")   # never started: the socket below plays the sender
    with socket.create_connection(("127.0.0.1", qmb.port), timeout=30) as sock:
        reader = wire.FrameReader(sock)
        sock.sendall(wire.frame(["CHL", name, "QMA", 50, False, 0, 4_194_304]))
        answer = reader.read_reply()
        assert answer[0] == CMQC.MQCC_OK, answer
        first = int(answer[4][1]) + 1
        sock.sendall(b"".join(wire.frame(_message(seq, b"streamed %d" % seq))
                              for seq in range(first, first + 5)) + wire.frame(["HB"]))
        assert reader.read(time.monotonic() + 30) == ["HB"]
        b = connect(qmb)
        assert depth(b, "IN.B") == 5                 # all five put (CURDEPTH counts them)...
        with pytest.raises(ibmmq.MQMIError) as none:  # ...none committed: the batch is open
            ibmmq.Queue(b, "IN.B", CMQC.MQOO_INPUT_SHARED).get(
                None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))
        assert none.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
        sock.sendall(wire.frame(["END", "00000000000000AB", first + 4]))
        assert reader.read(time.monotonic() + 30) == ["DONE", "00000000000000AB"]
        assert depth(b, "IN.B") == 5
        sock.sendall(wire.frame(["BYE"]))
    assert sorted(body for _, body in receive(b, "IN.B", 5)) == [
        b"streamed %d" % seq for seq in range(first, first + 5)]


def test_streamed_frames_leave_in_order_and_before_anything_waits_for_an_answer():
    """Link.stream holds small frames back (one write for many), and send or flush writes
    them first: a question never waits behind frames still held."""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        out, reader = Link(ours), wire.FrameReader(theirs)
        for n in range(3):
            out.stream("MSG", n)
        theirs.setblocking(False)
        with pytest.raises(BlockingIOError):     # held: nothing written yet
            theirs.recv(1)
        theirs.setblocking(True)
        out.send("END", 3)
        assert [reader.read(time.monotonic() + 10) for _ in range(4)] == [
            ["MSG", 0], ["MSG", 1], ["MSG", 2], ["END", 3]]
        out.stream("MSG", 4)
        out.flush()
        assert reader.read(time.monotonic() + 10) == ["MSG", 4]


def test_a_batch_larger_than_one_write_arrives_whole_and_once(pair):
    """BATCHSZ(50) of 4 KiB messages: each batch spans several of the sender's writes."""
    qma, qmb, name = pair
    qma.run_mqsc(f"STOP CHANNEL({name})")          # full batches: the queue filled first
    bodies = [b"%03d" % n + b"x" * 4096 for n in range(120)]
    sent = put_remote(connect(qma), "IN.B", "QMB", bodies)
    qma.run_mqsc(f"START CHANNEL({name})")
    b = connect(qmb)
    got = receive(b, "IN.B", 120)
    assert sorted(md.MsgId for md, _ in got) == sorted(sent)
    assert sorted(body for _, body in got) == bodies
    assert receive(b, "IN.B", 1, seconds=2) == []
    wait_for(lambda: depth(connect(qma), "QMB") == 0, what="the transmission queue drained")


def test_batchlim_ends_a_batch_after_the_message_that_reaches_it(pair):
    """BATCHLIM(1): 1 KB a batch; six 2 KiB messages waiting (BATCHSZ 50 would take them
    in one batch) cross in six batches, each ended by the message that passed the limit."""
    qma, qmb, name = pair
    qma.run_mqsc(f"STOP CHANNEL({name})\nALTER CHANNEL({name}) CHLTYPE(SDR) BATCHLIM(1)")
    sent = put_remote(connect(qma), "IN.B", "QMB", [b"%d" % n + b"y" * 2048 for n in range(6)])
    qma.run_mqsc(f"START CHANNEL({name})")
    assert sorted(md.MsgId for md, _ in receive(connect(qmb), "IN.B", 6)) == sorted(sent)
    wait_for(lambda: "MSGS(6)" in qma.run_mqsc(f"DISPLAY CHSTATUS({name}) ALL"),
             what="the sender's sixth message committed")
    assert "BATCHES(6)" in qma.run_mqsc(f"DISPLAY CHSTATUS({name}) ALL")
