"""Attacks on a channel's books (issue 31): a stranger on the receiver's port, speaking
link.py's frames, claims the real sender's queue-manager name. Before, a batch it committed
made the real sender drop the messages it listed at its next start; a sequence number of
any value was taken. Now the receiver checks every sequence number, batch and END, and the
sender removes from its transmission queue only its own in-doubt batch, when the
receiver's record names that batch: a record it cannot reconcile stops it (AMQ9526) until
RESET CHANNEL. After every attack every message is counted on both queue managers: none
lost, none twice. Two real queue managers (tests/channel_topology.py)."""
from __future__ import annotations

import socket
from pathlib import Path

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

import spark_mq.embedded as embedded
from channel_topology import (
    channel_status,
    connect,
    depth,
    free_port,
    link,
    put_remote,
    receive,
    start,
    wait_for,
)
from spark_mq.embedded import wire

DLQ = "DEV.DEAD.LETTER.QUEUE"
LUWID = "0123456789ABCDEF"      # a well-formed batch id of the attacker's choosing


@pytest.fixture
def pair(tmp_path):
    """QMA -> QMB (BATCHSZ 10), the sender STOPPED and 3 persistent messages waiting on its
    transmission queue; (qma, qmb, channel, the transmission messages as an attacker who
    saw them would replay them: [(MsgId, data)], the messages' own MsgIds)."""
    qmb = start(tmp_path, "QMB", mqsc="DEFINE QLOCAL(IN.B)\n")
    qma = start(tmp_path, "QMA")
    try:
        name = link(qma, qmb, "BATCHSZ(10)")
        qma.run_mqsc(f"STOP CHANNEL({name})")
        sent = put_remote(connect(qma), "IN.B", "QMB", [b"pay %d" % n for n in range(3)])
        yield qma, qmb, name, browse(connect(qma), "QMB"), sent
    finally:
        qma.stop()
        qmb.stop()


def browse(conn: ibmmq.QueueManager, queue: str) -> list[tuple[bytes, bytes]]:
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_BROWSE)
    found = []
    try:
        while True:
            md = ibmmq.MD()
            try:
                data = handle.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_BROWSE_NEXT
                                                      | CMQC.MQGMO_NO_WAIT))
            except ibmmq.MQMIError as exc:
                if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return found
                raise
            found.append((md.MsgId, data))
    finally:
        handle.close()


class Stranger:
    """A peer on the receiver's port that says it is queue manager `claims`."""

    def __init__(self, receiver: embedded.EmbeddedQueueManager, channel: str,
                 claims: str = "QMA", batch_size: int = 10) -> None:
        self.sock = socket.create_connection(("127.0.0.1", receiver.port), timeout=30)
        self.reader = wire.FrameReader(self.sock)
        self.send("CHL", channel, claims, batch_size, False, 0, 4_194_304)
        self.answer = self.reader.read_reply()
        assert self.answer[0] == CMQC.MQCC_OK, self.answer

    def send(self, *values: object) -> None:
        self.sock.sendall(wire.frame(list(values)))

    def ended(self) -> bool:
        """The receiver closed the channel (nothing more arrives)."""
        try:
            return self.sock.recv(65536) == b""
        except ConnectionResetError:
            return True

    def close(self) -> None:
        self.sock.close()


def log_of(qm: embedded.EmbeddedQueueManager) -> str:
    return Path(qm.data_dir, "qmgr.log").read_text(errors="replace")


def assert_untouched(qma, qmb, count: int) -> None:
    """Nothing of an attack committed: the messages all still wait on QMA, none on QMB."""
    assert depth(connect(qma), "QMB") == count
    b = connect(qmb)
    assert depth(b, "IN.B") == 0 and depth(b, DLQ) == 0


def assert_each_arrives_once(qma, qmb, sent: list[bytes]) -> None:
    b = connect(qmb)
    got = receive(b, "IN.B", len(sent))
    assert sorted(md.MsgId for md, _ in got) == sorted(sent)
    assert receive(b, "IN.B", 1, seconds=2) == []                      # nothing twice
    wait_for(lambda: depth(connect(qma), "QMB") == 0, what="the transmission queue drained")


def test_a_forged_batch_listing_the_senders_msgids_removes_nothing(pair):
    """The stranger commits a batch made of the real transmission MsgIds (its data is its
    own: it goes to the dead-letter queue). The real sender had no batch in doubt: it
    removes nothing, its books disagree with the receiver's (AMQ9526, STOPPED, no retry)
    until RESET CHANNEL, then every message arrives once."""
    qma, qmb, name, xmit, sent = pair
    stranger = Stranger(qmb, name)
    assert stranger.answer[4] == ["", 0]                 # the receiver's record: no MsgIds
    for seq, (msg_id, _) in enumerate(xmit, start=1):
        stranger.send("MSG", seq, msg_id, b"forged", None, True)
    stranger.send("END", LUWID, len(xmit))
    assert stranger.reader.read_reply() == ["DONE", LUWID]
    stranger.send("BYE")
    stranger.close()
    assert depth(connect(qmb), DLQ) == len(xmit)         # the forgeries, nothing else
    qma.run_mqsc(f"START CHANNEL({name})")
    wait_for(lambda: channel_status(qma, name) == "STOPPED", what="the sender STOPPED")
    assert "AMQ9526" in log_of(qma)
    assert depth(connect(qma), "QMB") == len(sent)       # nothing removed
    assert depth(connect(qmb), "IN.B") == 0
    qma.run_mqsc(f"RESET CHANNEL({name})")
    qma.run_mqsc(f"START CHANNEL({name})")
    assert_each_arrives_once(qma, qmb, sent)


def _replayed(xmit, seqs):
    return [["MSG", seq, msg_id, data, None, True] for seq, (msg_id, data) in zip(seqs, xmit)]


#: batches the receiver must refuse, each made of the real transmission messages replayed
#: (committed, they would arrive twice): frames to send after the hello
BAD_BATCHES = {
    "negative sequence number": lambda x: _replayed(x, [-1]),
    "sequence number 0": lambda x: _replayed(x, [0]),
    "sequence number 2**62": lambda x: _replayed(x, [2**62]),
    "a jump": lambda x: _replayed(x, [1, 3]),
    "a repeat": lambda x: _replayed(x, [1, 1]),
    "empty batch": lambda x: [["END", LUWID, 1]],
    "over BATCHSZ": lambda x: _replayed(x * 4, range(1, 12)) + [["END", LUWID, 11]],
    "END names another last seq": lambda x: _replayed(x, [1, 2]) + [["END", LUWID, 3]],
    "END without a batch id": lambda x: _replayed(x, [1]) + [["END", 7]],
    "END with a malformed LUWID": lambda x: _replayed(x, [1]) + [["END", "not hex", 1]],
    "END with LUWID zero": lambda x: _replayed(x, [1]) + [["END", "0" * 16, 1]],
    "END seq negative": lambda x: _replayed(x, [1]) + [["END", LUWID, -1]],
    "END with a huge seq": lambda x: _replayed(x, [1]) + [["END", LUWID, 2**62]],
}


@pytest.mark.parametrize("attack", list(BAD_BATCHES))
def test_a_bad_batch_ends_the_channel_with_nothing_committed(pair, attack):
    qma, qmb, name, xmit, sent = pair
    stranger = Stranger(qmb, name)
    for value in BAD_BATCHES[attack](xmit):
        stranger.send(*value)
    assert stranger.ended()
    stranger.close()
    assert_untouched(qma, qmb, len(sent))
    if "sequence" in attack or attack in ("a jump", "a repeat", "END names another last seq"):
        assert "AMQ9526" in log_of(qmb)
    qma.run_mqsc(f"START CHANNEL({name})")                # the real sender is still in step
    assert_each_arrives_once(qma, qmb, sent)


def test_a_hello_with_a_batch_size_out_of_range_is_refused(pair):
    qma, qmb, name, _, sent = pair
    for size in (0, -5, 10_000):
        with socket.create_connection(("127.0.0.1", qmb.port), timeout=30) as sock:
            sock.sendall(wire.frame(["CHL", name, "QMA", size, False, 0, 4_194_304]))
            assert sock.recv(65536) == b""
    qma.run_mqsc(f"START CHANNEL({name})")
    assert_each_arrives_once(qma, qmb, sent)


def test_a_sequence_mismatch_stops_the_sender_until_reset_channel(pair):
    """RESET CHANNEL on the receiver resets only that end: the sender's next start finds
    the books disagree (AMQ9526, STOPPED, its messages kept); RESET CHANNEL on the sender
    (PCF here) resets both ends and every message arrives once."""
    qma, qmb, name, _, sent = pair
    qma.run_mqsc(f"START CHANNEL({name})")
    assert_each_arrives_once(qma, qmb, sent)
    qma.run_mqsc(f"STOP CHANNEL({name})")
    wait_for(lambda: channel_status(qmb, name) in ("", "INACTIVE"), what="receiver ended")
    qmb.run_mqsc(f"RESET CHANNEL({name}) SEQNUM(7)")
    more = put_remote(connect(qma), "IN.B", "QMB", [b"later %d" % n for n in range(4)])
    qma.run_mqsc(f"START CHANNEL({name})")
    wait_for(lambda: channel_status(qma, name) == "STOPPED", what="the sender STOPPED")
    assert "AMQ9526" in log_of(qma)
    assert_untouched(qma, qmb, len(more))
    pcf = ibmmq.PCFExecute(connect(qma), response_wait_interval=10000)
    try:
        pcf.MQCMD_RESET_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: name.encode()})
        pcf.MQCMD_START_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: name.encode()})
    finally:
        pcf.disconnect()
    assert_each_arrives_once(qma, qmb, more)


def test_reset_channel_of_a_channel_that_does_not_exist_fails(pair):
    qma = pair[0]
    with pytest.raises(embedded.EmbeddedQueueManagerError, match="AMQ8147"):
        qma.run_mqsc("RESET CHANNEL(NO.SUCH.CHANNEL)")
    pcf = ibmmq.PCFExecute(connect(qma), response_wait_interval=10000)
    try:
        with pytest.raises(ibmmq.MQMIError) as missing:
            pcf.MQCMD_RESET_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"NO.SUCH.CHANNEL"})
        assert missing.value.reason == CMQCFC.MQRCCF_CHANNEL_NOT_FOUND
        with pytest.raises(ibmmq.MQMIError) as bad:
            pcf.MQCMD_RESET_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: pair[2].encode(),
                                     CMQCFC.MQIACH_MSG_SEQUENCE_NUMBER: 0})
        assert bad.value.reason == CMQCFC.MQRCCF_MSG_SEQ_NUMBER_ERROR
    finally:
        pcf.disconnect()


# --- a sender in doubt ---------------------------------------------------------------------
@pytest.fixture
def in_doubt(tmp_path, monkeypatch, request):
    """QMA dies at fail point `request.param` in its 2nd batch of 10 (of 30 messages), its
    sender channel started by hand (no trigger: after the restart nothing starts it);
    (qma restarted, qmb, channel, sent MsgIds, the transmission messages)."""
    qmb = start(tmp_path, "QMB", port=free_port(), mqsc="DEFINE QLOCAL(IN.B)\n")
    monkeypatch.setenv("SPARK_MQ_FAULT", f"{request.param}:2")
    qma = start(tmp_path, "QMA", port=free_port())
    monkeypatch.delenv("SPARK_MQ_FAULT")
    try:
        name = link(qma, qmb, "BATCHSZ(10)")
        qma.run_mqsc(f"STOP CHANNEL({name})\nALTER QLOCAL(QMB) NOTRIGGER")
        sent = put_remote(connect(qma), "IN.B", "QMB", [b"m%02d" % n for n in range(30)])
        xmit = browse(connect(qma), "QMB")
        qma.run_mqsc(f"START CHANNEL({name})")
        wait_for(lambda: not qma.running, what=f"QMA died at {request.param}")
        qma.start()
        yield qma, qmb, name, sent, xmit
    finally:
        qma.stop()
        qmb.stop()


@pytest.mark.parametrize("in_doubt", ["sender-indoubt"], indirect=True)
def test_a_forged_record_does_not_resolve_a_batch_in_doubt(in_doubt):
    """QMA died in doubt (its END never sent: QMB committed batch 1 only). A stranger then
    commits a batch in QMA's name, numbered as the real one would be and listing the real
    MsgIds. The real sender's record names its own LUWID: the forged record is neither
    that batch nor its last committed state, so it stops (AMQ9526) and removes nothing;
    RESET is refused while it is in doubt; RESOLVE BACKOUT, RESET, START: every message
    arrives once."""
    qma, qmb, name, sent, xmit = in_doubt
    assert depth(connect(qmb), "IN.B") == 10
    stranger = Stranger(qmb, name)
    assert stranger.answer[4][1] == 10
    for seq, (msg_id, _) in enumerate(xmit[10:20], start=11):
        stranger.send("MSG", seq, msg_id, b"forged", None, True)
    stranger.send("END", LUWID, 20)
    assert stranger.reader.read_reply() == ["DONE", LUWID]
    stranger.send("BYE")
    stranger.close()
    qma.run_mqsc(f"START CHANNEL({name})")
    wait_for(lambda: channel_status(qma, name) == "STOPPED", what="the sender STOPPED")
    assert "AMQ9526" in log_of(qma)
    assert depth(connect(qma), "QMB") == 20               # nothing removed
    with pytest.raises(embedded.EmbeddedQueueManagerError, match="in doubt"):
        qma.run_mqsc(f"RESET CHANNEL({name})")
    pcf = ibmmq.PCFExecute(connect(qma), response_wait_interval=10000)
    try:
        with pytest.raises(ibmmq.MQMIError) as refused:
            pcf.MQCMD_RESET_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: name.encode()})
        assert refused.value.reason == CMQCFC.MQRCCF_CHANNEL_INDOUBT
    finally:
        pcf.disconnect()
    qma.run_mqsc(f"RESOLVE CHANNEL({name}) ACTION(BACKOUT)")
    qma.run_mqsc(f"RESET CHANNEL({name})\nSTART CHANNEL({name})")
    b = connect(qmb)
    got = receive(b, "IN.B", 30)
    assert sorted(md.MsgId for md, _ in got) == sorted(sent)
    assert receive(b, "IN.B", 1, seconds=2) == []
    assert depth(connect(qma), "QMB") == 0


@pytest.mark.parametrize("in_doubt", ["sender-indoubt"], indirect=True)
def test_a_batch_in_doubt_that_never_arrived_is_sent_again(in_doubt):
    """The receiver's record is the sender's last committed state: the batch is backed
    out and sent again (the start reconciles by itself)."""
    qma, qmb, name, sent, _ = in_doubt
    qma.run_mqsc(f"START CHANNEL({name})")
    b = connect(qmb)
    got = receive(b, "IN.B", 30)
    assert sorted(md.MsgId for md, _ in got) == sorted(sent)
    assert receive(b, "IN.B", 1, seconds=2) == []
    wait_for(lambda: depth(connect(qma), "QMB") == 0, what="the transmission queue drained")


@pytest.mark.parametrize("in_doubt", ["sender-confirmed"], indirect=True)
def test_resolve_commit_removes_exactly_the_senders_own_batch(in_doubt):
    """QMB committed batch 2, QMA died before its own commit. RESOLVE CHANNEL
    ACTION(COMMIT) removes the 10 messages the sender's record names (an application
    message with the same MsgId as one of them, put on the transmission queue meanwhile,
    stays); the next start is in step and every message arrives once."""
    qma, qmb, name, sent, xmit = in_doubt
    assert depth(connect(qmb), "IN.B") == 20
    a = connect(qma)
    twin_id, _ = xmit[12]                      # a message of the batch in doubt
    twin = ibmmq.Queue(a, "QMB", CMQC.MQOO_OUTPUT)
    twin.put(b"not the batch's", ibmmq.MD(MsgId=twin_id, Persistence=CMQC.MQPER_PERSISTENT))
    twin.close()
    assert depth(a, "QMB") == 21
    qma.run_mqsc(f"RESOLVE CHANNEL({name}) ACTION(COMMIT)")
    assert depth(a, "QMB") == 11
    assert [msg_id for msg_id, _ in browse(a, "QMB")].count(twin_id) == 1
    twin = ibmmq.Queue(a, "QMB", CMQC.MQOO_INPUT_SHARED)  # the twin is no transmission message
    twin.get(None, ibmmq.MD(MsgId=twin_id), ibmmq.GMO(MatchOptions=CMQC.MQMO_MATCH_MSG_ID))
    twin.close()
    qma.run_mqsc(f"START CHANNEL({name})")
    b = connect(qmb)
    got = receive(b, "IN.B", 30)
    assert sorted(md.MsgId for md, _ in got) == sorted(sent)
    assert receive(b, "IN.B", 1, seconds=2) == []
    wait_for(lambda: depth(connect(qma), "QMB") == 0, what="the transmission queue drained")
