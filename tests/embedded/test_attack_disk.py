"""Faults on the store, as an operator meets them: the disk fills up under the queue manager
(RLIMIT_FSIZE on its process, which an unprivileged owner may lower and raise, stands in for
a full file system). IBM MQ answers such a put with a reason and an MQCMIT it had to back out
with 2003 MQRC_BACKED_OUT; the connection stays usable, nothing committed is lost, nothing
backed out appears, and the queue manager works again by itself when space returns."""
from __future__ import annotations

import resource

import ibmmq  # the embedded transport: tests/conftest.py installs it before any import
import pytest
from ibmmq import CMQC

from attack_qm import CHANNEL, QUEUE, QueueManagerProcess

CANNOT_WRITE = "the store cannot write"
WRITES_AGAIN = "the store writes again"
BIG = 256 * 1024          # a persistent message larger than the room left


def persistent() -> ibmmq.MD:
    return ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT)


def syncpoint() -> ibmmq.PMO:
    return ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT)


def get_all(queue: ibmmq.Queue) -> list[bytes]:
    bodies = []
    while True:
        try:
            bodies.append(queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)))
        except ibmmq.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return bodies


def fill_disk(qm: QueueManagerProcess, queue: ibmmq.Queue) -> tuple[ibmmq.MQMIError, int]:
    """Lower the file-size limit to the store's size, then put until a put fails; returns
    the failure and how many puts went through before it."""
    largest = max(path.stat().st_size for path in qm.data_dir.glob("qmgr.db*"))
    qm.set_limit(resource.RLIMIT_FSIZE, largest + 4096)
    for n in range(200):
        try:
            queue.put(b"x" * BIG, persistent())
        except ibmmq.MQMIError as exc:
            return exc, n
    raise AssertionError("200 persistent puts of 256 KiB went through a full store")


def test_a_full_disk_answers_mq_reasons_and_loses_nothing(tmp_path):
    with QueueManagerProcess(tmp_path / "qm") as qm:
        conn = ibmmq.connect(qm.name, CHANNEL, qm.conn_name)
        queue = ibmmq.Queue(conn, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
        for n in range(5):
            queue.put(f"before-{n}".encode(), persistent(), syncpoint())
        conn.commit()

        failed, big = fill_disk(qm, queue)
        assert (failed.comp, failed.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_RESOURCE_PROBLEM)
        qm.wait_for_log(CANNOT_WRITE)

        # the same connection goes on: non-persistent messages need no store
        put = ibmmq.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT)
        queue.put(b"non-persistent", put)
        assert queue.get(None, ibmmq.MD(MsgId=put.MsgId),
                         ibmmq.GMO(MatchOptions=CMQC.MQMO_MATCH_MSG_ID)) == b"non-persistent"
        # a unit of work the store cannot harden is backed out: 2003, not 2009
        queue.put(b"backed-out", persistent(), syncpoint())
        first = ibmmq.MD()
        assert queue.get(None, first, ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT)) == b"before-0"
        with pytest.raises(ibmmq.MQMIError) as commit:
            conn.commit()
        assert commit.value.reason == CMQC.MQRC_BACKED_OUT
        # a get outside syncpoint cannot remove a persistent message: it stays
        with pytest.raises(ibmmq.MQMIError) as get:
            queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
        assert get.value.reason == CMQC.MQRC_RESOURCE_PROBLEM

        qm.set_limit(resource.RLIMIT_FSIZE, resource.RLIM_INFINITY)      # space returns
        queue.put(b"after", persistent())
        qm.wait_for_log(WRITES_AGAIN)
        assert qm.log().count(CANNOT_WRITE) == 1          # once per run of failures
        again = ibmmq.MD()
        assert queue.get(None, again, ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT)) == b"before-0"
        assert again.BackoutCount == 1                    # the backed-out get counted
        conn.backout()
        queue.close()
        conn.disconnect()

    # after a restart: every committed message once, nothing of the backed-out work
    (tmp_path / "qm" / "ready.json").unlink()
    with QueueManagerProcess(tmp_path / "qm") as qm:
        conn = ibmmq.connect(qm.name, CHANNEL, qm.conn_name)
        queue = ibmmq.Queue(conn, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)
        assert sorted(get_all(queue)) == [b"after", *(f"before-{n}".encode() for n in range(5)),
                                          *[b"x" * BIG] * big]
        queue.close()
        conn.disconnect()
