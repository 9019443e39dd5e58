"""Conformance: a message too big for the transmission queue it goes through, put with
MQMF_SEGMENTATION_ALLOWED, between two real embedded queue managers joined by a sender /
receiver channel, through IBM's `ibmmq` API.

IBM docs, MsgFlags: "A message can be segmented at the sending queue manager, at an
intermediate queue manager, or at the destination queue manager"; for a remote queue the
queue a put is put to is the transmission queue, so each segment is a transmission message of
its own, behind its own MQXQH (and an MQMDE with the segment's GroupId, Offset and MsgFlags),
and what must fit the transmission queue's MAXMSGL is the whole transmission message."""
from __future__ import annotations

import re

import ibmmq
import pytest
from ibmmq import CMQC

from channel_topology import connect, depth, link, receive, start, wait_for
from cluster_topology import shop, waiting_for_channel
from spark_mq.embedded import EmbeddedQueueManagerError
from spark_mq.embedded.server.resolution.transmission import unwrap
from spark_mq.mqi.structs import MD, MDE, XQH

XMITQ_MAXMSGL = 1024
BODY = bytes(range(256)) * 20        # 5120 bytes: 5x the transmission queue's MAXMSGL
HEADER = XQH.size + MDE.size         # what a segment's transmission message carries before its data
#: segments of BODY: the data of each a multiple of 16 (IBM's smallest segment) that fits
SEGMENTS = -(-len(BODY) // ((XMITQ_MAXMSGL - HEADER) // 16 * 16))
DLQ = "DEV.DEAD.LETTER.QUEUE"
MD_INDEX = MD.index


@pytest.fixture
def pair(tmp_path):
    """QMA -> QMB; on QMA the transmission queue QMB holds at most 1024 bytes and TO.B is a
    QREMOTE for IN.B at QMB; on QMB IN.B and SMALL.B (MAXMSGL 256, smaller than a segment)."""
    qmb = start(tmp_path, "QMB", mqsc="DEFINE QLOCAL(IN.B)\nDEFINE QLOCAL(SMALL.B) MAXMSGL(256)\n")
    qma = start(tmp_path, "QMA")
    link(qma, qmb)
    qma.run_mqsc(f"ALTER QLOCAL(QMB) MAXMSGL({XMITQ_MAXMSGL})\n"
                 "DEFINE QREMOTE(TO.B) RNAME(IN.B) RQMNAME(QMB) XMITQ(QMB)\n"
                 "DEFINE QREMOTE(TO.SMALL.B) RNAME(SMALL.B) RQMNAME(QMB) XMITQ(QMB)")
    yield qma, qmb
    qma.stop()
    qmb.stop()


def md2(**fields) -> ibmmq.MD:
    return ibmmq.MD(Version=CMQC.MQMD_VERSION_2, **fields)


def gmo(options: int) -> ibmmq.GMO:
    return ibmmq.GMO(Options=options | CMQC.MQGMO_WAIT, WaitInterval=60_000,
                     Version=CMQC.MQGMO_VERSION_2, MatchOptions=CMQC.MQMO_NONE)


def put(qm, queue: str, body: bytes, flags: int = CMQC.MQMF_SEGMENTATION_ALLOWED,
        persistence: int = CMQC.MQPER_PERSISTENT, options: int = CMQC.MQPMO_NO_SYNCPOINT) -> ibmmq.MD:
    md = md2(MsgFlags=flags, Persistence=persistence, Format=CMQC.MQFMT_NONE)
    ibmmq.Queue(connect(qm), queue, CMQC.MQOO_OUTPUT).put(body, md, ibmmq.PMO(Options=options))
    return md


def _complete(qm, queue: str) -> tuple[ibmmq.MD, bytes, ibmmq.GMO]:
    md, options = md2(), gmo(CMQC.MQGMO_COMPLETE_MSG | CMQC.MQGMO_SYNCPOINT)
    conn = connect(qm)
    data = ibmmq.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED).get(None, md, options)
    conn.commit()
    return md, data, options


@pytest.mark.parametrize("persistence", [CMQC.MQPER_PERSISTENT, CMQC.MQPER_NOT_PERSISTENT])
def test_a_segmented_remote_message_arrives_whole_with_complete_msg(pair, persistence):
    """Outside syncpoint, persistent or not: the getter at the destination gets it whole."""
    qma, qmb = pair
    put_md = put(qma, "TO.B", BODY, persistence=persistence)
    md, data, options = _complete(qmb, "IN.B")
    assert data == BODY
    assert md.MsgId == put_md.MsgId and md.Persistence == persistence
    assert md.Offset == 0 and not md.MsgFlags & (CMQC.MQMF_SEGMENT | CMQC.MQMF_LAST_SEGMENT)
    assert options.SegmentStatus == CMQC.MQSS_NOT_A_SEGMENT
    assert depth(connect(qmb), "IN.B") == 0


def test_each_segment_is_a_transmission_message_with_its_own_mqxqh(pair):
    """Held on the transmission queue (its channel not triggered), every piece starts with an
    MQXQH naming the destination, and an MQMDE with the segment's fields; each fits the
    transmission queue's MAXMSGL whole; the channel then delivers them all."""
    qma, qmb = pair
    qma.run_mqsc("ALTER QLOCAL(QMB) NOTRIGGER")
    put_md = put(qma, "TO.B", BODY)
    held = []
    browse = ibmmq.Queue(connect(qma), "QMB", CMQC.MQOO_BROWSE)
    for _ in range(depth(connect(qma), "QMB")):
        md = md2()
        held.append((md, browse.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_BROWSE_NEXT))))
    assert len(held) == SEGMENTS
    pieces = []
    for md, data in held:
        assert md.Format == CMQC.MQFMT_XMIT_Q_HEADER and len(data) <= XMITQ_MAXMSGL
        unwrapped = unwrap(data)
        assert unwrapped is not None, "a piece without its MQXQH"
        queue, qmgr, inner, body = unwrapped
        assert (queue, qmgr) == ("IN.B", "QMB") and len(data) == HEADER + len(body)
        pieces.append((inner, body))
    assert b"".join(body for _, body in pieces) == BODY
    offsets = [inner[MD_INDEX["Offset"]] for inner, _ in pieces]
    assert offsets == sorted(offsets) and offsets[0] == 0
    assert len({inner[MD_INDEX["GroupId"]] for inner, _ in pieces}) == 1
    assert {inner[MD_INDEX["MsgId"]] for inner, _ in pieces} == {put_md.MsgId}
    flags = [inner[MD_INDEX["MsgFlags"]] & (CMQC.MQMF_SEGMENT | CMQC.MQMF_LAST_SEGMENT)
             for inner, _ in pieces]
    assert flags == [CMQC.MQMF_SEGMENT] * (len(pieces) - 1) + [CMQC.MQMF_LAST_SEGMENT]
    qma.run_mqsc("START CHANNEL(QMA.TO.QMB)")
    _, data, _ = _complete(qmb, "IN.B")
    assert data == BODY


def test_the_segments_arrive_one_by_one_with_ibms_fields(pair):
    """Without MQGMO_COMPLETE_MSG, in logical order: one GroupId, ascending offsets,
    MQMF_SEGMENT on each but the last, MQMF_LAST_SEGMENT on the last."""
    qma, qmb = pair
    put_md = put(qma, "TO.B", BODY)
    source = ibmmq.Queue(connect(qmb), "IN.B", CMQC.MQOO_INPUT_SHARED)
    got, statuses = [], []
    while not statuses or statuses[-1] != CMQC.MQSS_LAST_SEGMENT:
        md, options = md2(), gmo(CMQC.MQGMO_LOGICAL_ORDER)
        got.append((md, source.get(None, md, options)))
        statuses.append(options.SegmentStatus)
    assert b"".join(data for _, data in got) == BODY
    assert len(got) == SEGMENTS and all(len(data) <= XMITQ_MAXMSGL - HEADER for _, data in got)
    assert [md.Offset for md, _ in got] == [sum(len(d) for _, d in got[:i]) for i in range(len(got))]
    assert len({md.GroupId for md, _ in got}) == 1 and got[0][0].GroupId != CMQC.MQGI_NONE
    assert {md.MsgId for md, _ in got} == {put_md.MsgId}
    assert all(md.MsgFlags & CMQC.MQMF_SEGMENT for md, _ in got[:-1])
    assert got[-1][0].MsgFlags & CMQC.MQMF_LAST_SEGMENT
    assert statuses[:-1] == [CMQC.MQSS_SEGMENT] * (len(got) - 1)


@pytest.mark.parametrize("size", [5 * XMITQ_MAXMSGL, XMITQ_MAXMSGL - XQH.size + 1])
def test_without_segmentation_allowed_a_message_too_big_for_the_xmitq_is_2030(pair, size):
    """IBM's 2030 MQRC_MSG_TOO_BIG_FOR_Q: what must fit is the transmission message, so
    even data shorter than MAXMSGL is refused when its MQXQH pushes it over."""
    qma, _ = pair
    with pytest.raises(ibmmq.MQMIError) as exc:
        put(qma, "TO.B", b"x" * size, flags=CMQC.MQMF_NONE)
    assert exc.value.reason == CMQC.MQRC_MSG_TOO_BIG_FOR_Q
    assert depth(connect(qma), "QMB") == 0


def test_a_segment_too_big_for_the_destination_queue_is_segmented_again(pair):
    """A segment that carries MQMF_SEGMENTATION_ALLOWED may be broken into smaller segments
    (IBM docs, MsgFlags), here by the destination queue manager for SMALL.B."""
    qma, qmb = pair
    put(qma, "TO.SMALL.B", BODY)
    md, data, _ = _complete(qmb, "SMALL.B")
    assert data == BODY and md.Offset == 0
    assert depth(connect(qmb), DLQ) == 0


def test_an_unsegmentable_message_too_big_for_the_destination_is_dead_lettered_2030(pair):
    """Without MQMF_SEGMENTATION_ALLOWED the receiving MCA cannot put it: the DLQ, 2030."""
    qma, qmb = pair
    put(qma, "TO.SMALL.B", b"y" * 400, flags=CMQC.MQMF_NONE)
    [(md, data)] = receive(connect(qmb), DLQ, 1)
    dlh = ibmmq.DLH()
    dlh.unpack(data[:CMQC.MQDLH_LENGTH_1])
    assert dlh.Reason == CMQC.MQRC_MSG_TOO_BIG_FOR_Q and data[CMQC.MQDLH_LENGTH_1:] == b"y" * 400
    assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER



# --- a cluster queue: the segments of one message reach one instance --------------------------

CLUSTER_XMITQ = "SYSTEM.CLUSTER.TRANSMIT.QUEUE"


@pytest.fixture
def cluster(tmp_path):
    """FR1 and FR2 full repositories of SHOP, PR a partial one (tests/cluster_topology.py)."""
    with shop(tmp_path) as qms:
        yield qms


def _host(cluster, member: str) -> None:
    """Define RETURNS on `member` and wait until FR1 knows that instance."""
    cluster[member].run_mqsc("DEFINE QLOCAL(RETURNS) CLUSTER(SHOP) REPLACE")

    def known() -> bool:
        try:
            return f"CLUSQMGR({member})" in cluster["FR1"].run_mqsc("DISPLAY QCLUSTER(RETURNS) ALL")
        except EmbeddedQueueManagerError:
            return False
    wait_for(known, what=f"FR1 knows RETURNS on {member}")




def _status(qm, channel: str) -> str:
    try:
        output = qm.run_mqsc(f"DISPLAY CHSTATUS({channel}) STATUS")
    except EmbeddedQueueManagerError:
        return ""
    found = re.search(r"STATUS\((\w+)\)", output)
    return found.group(1) if found else ""


def test_a_segmented_message_bound_not_fixed_is_not_reallocated_piece_by_piece(cluster):
    """MQOO_BIND_NOT_FIXED lets each put choose, and a message whose channel fails may go to
    another instance (IBM's reallocation); a segmented message's pieces must stay together:
    they wait for their member while a whole message put behind them on the same handle
    moves to the instance that appeared, and the member gets the message whole."""
    fr1, pr = cluster["FR1"], cluster["PR"]
    _host(cluster, "PR")
    fr1.run_mqsc(f"ALTER QLOCAL({CLUSTER_XMITQ}) MAXMSGL({XMITQ_MAXMSGL})")
    pr.stop()
    wait_for(lambda: not pr.running, what="PR reaped")
    conn = connect(fr1)
    try:
        loose = ibmmq.Queue(conn, "RETURNS", CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_NOT_FIXED)
        loose.put(BODY, md2(MsgFlags=CMQC.MQMF_SEGMENTATION_ALLOWED,
                            Persistence=CMQC.MQPER_PERSISTENT))
        # the cluster-sender may hold them, got under syncpoint, until it backs out
        wait_for(lambda: waiting_for_channel(conn, "SHOP.PR") == SEGMENTS,
                 what=f"{SEGMENTS} segments waiting for SHOP.PR")
        loose.put(b"may move", md2(Persistence=CMQC.MQPER_PERSISTENT))
        wait_for(lambda: _status(fr1, "SHOP.PR") in ("RETRYING", "BINDING"),
                 what="FR1's SHOP.PR retries")
        _host(cluster, "FR2")
        wait_for(lambda: waiting_for_channel(conn, "SHOP.PR") == SEGMENTS,
                 what="the whole message reallocated, the segments not")
        loose.close()
    finally:
        conn.disconnect()
    assert [body for _, body in receive(connect(cluster["FR2"]), "RETURNS", 1)] == [b"may move"]
    pr.start()
    _, data, _ = _complete(pr, "RETURNS")
    assert data == BODY
