"""A receiver channel's hello racing STOP CHANNEL and the instance it replaces. The test
speaks the sending end (link.py's frames) to a real queue manager, QMB, and holds QMB's
receiving agent at the exact step with a pause point (core/faults.py), so each race happens
in the one order that shows it:

* a hello checked against the channel's status before a STOP CHANNEL, and admitted after
  it, started a RUNNING instance of a channel just STOPPED;
* a hello while the last instance was still STOPPING (STOP CHANNEL had cut its link, but it
  was committing its whole batch) was accepted and read the channel's sync record before
  that batch's commit: the sender, told the batch had not arrived, sent it again (each
  message twice: no longer exactly once). Now the hello is refused until the old instance
  has ended (MQRC_CHANNEL_NOT_AVAILABLE, AMQ9514 in QMB's log), as IBM MQ refuses a second
  instance of a receiver channel, and the next one reads the record the batch committed."""
from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from ibmmq import CMQC

import spark_mq.embedded as embedded
from channel_topology import channel_status, connect, depth, start, wait_for
from spark_mq.embedded import wire
from spark_mq.embedded.server.resolution.transmission import wrap
from spark_mq.mqi.structs import default_md

CHANNEL = "QMA.TO.QMB"
LUWID = "0123456789ABCDEF"
BODIES = [b"first", b"second", b"third"]


class Pause:
    """One pause point of QMB's process: where its first thread to get there waits."""

    def __init__(self, directory: Path, point: str) -> None:
        self.reached = directory / f"{point}.reached"
        self.go = directory / f"{point}.go"
        os.mkfifo(self.go)
        self.released = False

    def wait(self) -> None:
        wait_for(self.reached.exists, what=f"QMB at its pause point {self.reached.stem}")

    def release(self) -> None:
        with open(self.go, "wb") as go:   # rendezvous with the paused thread's read
            go.write(b"go")
        self.released = True

    def let_go(self) -> None:
        """Release without waiting for the paused thread (a test that failed midway: it
        may be gone with its process)."""
        try:
            fd = os.open(self.go, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:   # ENXIO: no reader waits
            return
        os.write(fd, b"go")
        os.close(fd)


@pytest.fixture
def paused_receiver(request: pytest.FixtureRequest, tmp_path: Path,
                    monkeypatch: pytest.MonkeyPatch
                    ) -> Iterator[tuple[embedded.EmbeddedQueueManager, Pause]]:
    """QMB, receiver channel QMA.TO.QMB defined, whose process pauses at the point the
    test names (an indirect parameter)."""
    directory = tmp_path / "pause"
    directory.mkdir()
    pause = Pause(directory, request.param)
    monkeypatch.setenv("SPARK_MQ_PAUSE", f"{request.param}:{directory}")
    qmb = start(tmp_path, "QMB", mqsc=f"DEFINE QLOCAL(IN.B)\n"
                                       f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(RCVR)\n")
    monkeypatch.delenv("SPARK_MQ_PAUSE")
    try:
        yield qmb, pause
    finally:
        if pause.reached.exists() and not pause.released:
            pause.let_go()   # else the paused thread holds QMB's stop up
        qmb.stop()


class Sender:
    """The sending end of QMA.TO.QMB, as QMA's sender agent speaks it."""

    def __init__(self, qmb: embedded.EmbeddedQueueManager) -> None:
        self.sock = socket.create_connection(("127.0.0.1", qmb.port), timeout=30)
        self.reader = wire.FrameReader(self.sock)
        self.sock.sendall(wire.frame(["CHL", CHANNEL, "QMA", 10, False, 0, 4_194_304]))

    def answer(self) -> list:
        return self.reader.read_reply()

    def batch(self, after: int, bodies: list[bytes], luwid: str) -> None:
        """Send `bodies` for IN.B at QMB, numbered on from `after`, and the batch's END."""
        for seq, body in enumerate(bodies, start=after + 1):
            msg_id = uuid.uuid4().bytes + b"\0" * 8
            md = default_md(MsgId=msg_id, Persistence=CMQC.MQPER_PERSISTENT)
            _, xmit = wrap("QMA", "IN.B", "QMB", md, body, msg_id,
                           time.strftime("%Y%m%d").encode(), b"12000000")
            self.sock.sendall(wire.frame(["MSG", seq, msg_id, xmit, None, True]))
        self.sock.sendall(wire.frame(["END", luwid, after + len(bodies)]))

    def close(self) -> None:
        self.sock.close()


def _log(qm: embedded.EmbeddedQueueManager) -> str:
    return Path(qm.data_dir, "qmgr.log").read_text(errors="replace")


@pytest.mark.parametrize("paused_receiver", ["receiver-admitting"], indirect=True)
def test_a_hello_admitted_across_stop_channel_does_not_start_a_stopped_receiver(
        paused_receiver):
    """The hello has passed its first checks when STOP CHANNEL runs: the channel stays
    STOPPED and the hello is refused, as one that came after the STOP would be."""
    qmb, pause = paused_receiver
    sender = Sender(qmb)
    try:
        pause.wait()
        qmb.run_mqsc(f"STOP CHANNEL({CHANNEL})")
        pause.release()
        answer = sender.answer()
    finally:
        sender.close()
    assert channel_status(qmb, CHANNEL) == "STOPPED"
    assert answer[:2] == [CMQC.MQCC_FAILED, CMQC.MQRC_CHANNEL_STOPPED_BY_USER], answer


@pytest.mark.parametrize("paused_receiver", ["receiver-committing"], indirect=True)
@pytest.mark.parametrize("after", ["INACTIVE", "STOPPED"])
def test_a_batch_a_stopping_receiver_commits_arrives_once(paused_receiver, after):
    """STOP CHANNEL cuts the link while the receiver commits a whole batch; the sender,
    in doubt, says hello again at once. It is refused while the old instance is STOPPING;
    once that has ended (STATUS(STOPPED): and START CHANNEL), the next hello reads the
    record of the batch committed, so the sender sends nothing again: each message
    arrives once."""
    qmb, pause = paused_receiver
    first = Sender(qmb)
    assert first.answer()[4] == ["", 0]
    first.batch(0, BODIES, LUWID)
    pause.wait()                        # the whole batch received, not yet committed
    qmb.run_mqsc(f"STOP CHANNEL({CHANNEL}) STATUS({after})")
    assert channel_status(qmb, CHANNEL) == "STOPPING"
    again = Sender(qmb)
    while_stopping = again.answer()
    pause.release()
    first.close()
    b = connect(qmb)
    wait_for(lambda: depth(b, "IN.B") >= len(BODIES), what="the old instance's commit")
    if while_stopping[0] == CMQC.MQCC_OK:   # accepted: the sender goes by the record it read
        live, record = again, while_stopping[4]
    else:                                  # refused: the sender tries again once it ended
        again.close()
        wait_for(lambda: channel_status(qmb, CHANNEL) in ("", "STOPPED"),
                 what="the old instance ended")
        if after == "STOPPED":
            assert channel_status(qmb, CHANNEL) == "STOPPED"
            qmb.run_mqsc(f"START CHANNEL({CHANNEL})")
        live = Sender(qmb)
        answer = live.answer()
        assert answer[0] == CMQC.MQCC_OK, answer
        record = answer[4]
    try:
        if record != [LUWID, len(BODIES)]:   # not arrived, as far as the record says: again
            live.batch(int(record[1]), BODIES, "FEDCBA9876543210")
            assert live.answer() == ["DONE", "FEDCBA9876543210"]
    finally:
        live.close()
    assert depth(b, "IN.B") == len(BODIES)              # each once, none twice
    assert while_stopping[:2] == [CMQC.MQCC_FAILED, CMQC.MQRC_CHANNEL_NOT_AVAILABLE], \
        while_stopping
    assert "AMQ9514E" in _log(qmb)
