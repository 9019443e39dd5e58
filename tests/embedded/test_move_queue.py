"""MOVE QLOCAL(source) TOQLOCAL(target) [TYPE(MOVE|ADD)] (IBM MQ for z/OS's command): every
committed message moved in units of work with its MQMD and properties, IBM's refusals, and a
kill -9 of the queue manager in the middle of a move that loses and doubles nothing."""
from __future__ import annotations

import itertools
import threading

import ibmmq
import pytest
from ibmmq import CMQC

import spark_mq.embedded as embedded
from spark_mq.embedded import EmbeddedQueueManagerError
from support import drain, next_event, put_texts

_names = itertools.count(1)
BATCH = 100          # the messages of one unit of work of the move (server/move_queue.py)


def names(prefix: str = "MOVE") -> tuple[str, str]:
    number = next(_names)
    return f"{prefix}.FROM.{number}", f"{prefix}.TO.{number}"


def refused(qm, command: str) -> str:
    with pytest.raises(EmbeddedQueueManagerError) as exc:
        qm.run_mqsc(command)
    return str(exc.value)


def test_moves_every_message_with_its_descriptor_and_properties(qm, conn):
    source, target = names()
    qm.run_mqsc(f"DEFINE QLOCAL({source})\nDEFINE QLOCAL({target})")
    handle = ibmmq.MessageHandle(conn)
    handle.properties.set("region", "EU")
    md = ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT, Priority=7, CorrelId=b"C" * 24,
                  ApplIdentityData=b"identity".ljust(32), Format=CMQC.MQFMT_STRING)
    queue = ibmmq.Queue(conn, source, CMQC.MQOO_OUTPUT)
    queue.put(b"first", md, ibmmq.PMO(OriginalMsgHandle=handle.msg_handle))
    put_texts(conn, source, [f"m{n}" for n in range(250)])
    queue.close()
    answer = qm.run_mqsc(f"MOVE QLOCAL({source}) TOQLOCAL({target})")
    assert f"251 messages moved from {source} to {target}" in answer, answer
    moved = drain(conn, target)
    assert [body for _, body, _ in moved] == [b"first"] + [f"m{n}".encode() for n in range(250)]
    first, _, properties = moved[0]
    for field in ("MsgId", "CorrelId", "Priority", "Persistence", "UserIdentifier",
                  "PutApplName", "PutDate", "PutTime", "ApplIdentityData", "Format"):
        assert getattr(first, field) == getattr(md, field), field
    assert properties == {"region": "EU"}
    assert drain(conn, source) == []


def test_type_add_puts_them_after_the_targets_own(qm, conn):
    source, target = names()
    qm.run_mqsc(f"DEFINE QLOCAL({source})\nDEFINE QLOCAL({target})")
    put_texts(conn, target, ["already"])
    put_texts(conn, source, ["moved"])
    answer = qm.run_mqsc(f"MOVE QLOCAL({source}) TOQLOCAL({target}) TYPE(ADD)")
    assert f"1 messages moved from {source} to {target}" in answer, answer
    assert [body for _, body, _ in drain(conn, target)] == [b"already", b"moved"]


@pytest.mark.parametrize("command, named", [
    ("MOVE QLOCAL({s})", ("TOQLOCAL(target)", "valid: the name of a local queue")),
    ("MOVE QLOCAL({s}) TOQLOCAL({t}) TYPE(COPY)", ("TYPE(COPY)", "valid: MOVE, ADD")),
    ("MOVE QLOCAL({s}) TOQLOCAL({t}) PURGE", ("PURGE", "valid: TOQLOCAL(target)")),
    ("MOVE QLOCAL({s}) TOQLOCAL({t}) QSGDISP(SHARED)", ("QSGDISP", "valid: TOQLOCAL, TYPE")),
    ("MOVE QLOCAL({s}) TOQLOCAL(NO.SUCH.Q)", ("TOQLOCAL(NO.SUCH.Q) is not defined", "valid: a local queue")),
    ("MOVE QLOCAL(NO.SUCH.Q) TOQLOCAL({t})", ("QLOCAL(NO.SUCH.Q) is not defined",)),
    ("MOVE QLOCAL({s}) TOQLOCAL({s})", ("is the source queue itself", "valid: another local queue")),
    ("MOVE QLOCAL({s}) TOQLOCAL(SYSTEM.DEFAULT.REMOTE.QUEUE)", ("is a QREMOTE", "valid: a local queue")),
    ("MOVE QLOCAL({s}) TOQLOCAL({x})", ("USAGE(NORMAL)", "USAGE(XMITQ)", "valid: queues of the same USAGE")),
    ("MOVE QLOCAL({s}) TOQLOCAL({t})", ("holds 1 messages", "TYPE(MOVE) needs an empty target",
                                        "TYPE(ADD)")),
    ("MOVE QLOCAL({s}) TOQLOCAL({t}) TYPE(ADD)", ("cannot take them", "MAXDEPTH(2)")),
])
def test_refusals_say_what_is_wrong_and_what_is_valid(qm, conn, command, named):
    source, target = names()
    xmitq = f"{target}.X"
    qm.run_mqsc(f"DEFINE QLOCAL({source})\nDEFINE QLOCAL({target}) MAXDEPTH(2)\n"
                f"DEFINE QLOCAL({xmitq}) USAGE(XMITQ)")
    put_texts(conn, source, ["a", "b"])
    put_texts(conn, target, ["t"])
    text = refused(qm, command.format(s=source, t=target, x=xmitq))
    for part in named:
        assert part in text, text
    assert len(drain(conn, source)) == 2          # nothing moved


def test_an_open_or_uncommitted_source_is_refused(qm, conn, ibmmq):
    source, target = names()
    qm.run_mqsc(f"DEFINE QLOCAL({source})\nDEFINE QLOCAL({target})")
    holder = ibmmq.Queue(conn, source, CMQC.MQOO_INPUT_SHARED)
    assert "is open (1 handles" in refused(qm, f"MOVE QLOCAL({source}) TOQLOCAL({target})")
    holder.close()
    ibmmq.Queue(conn, source, CMQC.MQOO_OUTPUT).put(
        b"in a unit of work", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    text = refused(qm, f"MOVE QLOCAL({source}) TOQLOCAL({target})")
    assert "has 1 uncommitted messages" in text, text
    conn.commit()
    assert "1 messages moved" in qm.run_mqsc(f"MOVE QLOCAL({source}) TOQLOCAL({target})")


def test_a_kill_in_the_middle_loses_and_doubles_nothing(tmp_path):
    """The move is killed (SIGKILL of the queue manager) once the target's Queue Depth High
    event says 600 messages are there: after the restart every message is on exactly one of
    the two queues, the target holding whole units of work in order, and running the move
    again finishes it."""
    total = 8000
    with embedded.EmbeddedQueueManager(str(tmp_path / "qm"), name="QMMOVE") as manager:
        manager.run_mqsc(f"ALTER QMGR PERFMEV(ENABLED)\n"
                         f"DEFINE QLOCAL(STUCK.XMITQ) USAGE(XMITQ) MAXDEPTH({total})\n"
                         f"DEFINE QLOCAL(NEW.XMITQ) USAGE(XMITQ) MAXDEPTH({total}) "
                         "QDEPTHHI(7) QDPHIEV(ENABLED)")
        conn = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
        queue = ibmmq.Queue(conn, "STUCK.XMITQ", CMQC.MQOO_OUTPUT)
        persistent = ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT)
        for number in range(total):
            queue.put(b"%05d" % number, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT), persistent)
            if number % 1000 == 999:
                conn.commit()
        queue.close()
        outcome: list[BaseException] = []

        def move() -> None:
            try:
                manager.run_mqsc("MOVE QLOCAL(STUCK.XMITQ) TOQLOCAL(NEW.XMITQ)")
            except BaseException as exc:     # the kill breaks its connection: expected
                outcome.append(exc)
        mover = threading.Thread(target=move, daemon=True)
        mover.start()
        high = next_event(conn, "SYSTEM.ADMIN.PERFM.EVENT", 60_000)   # the chosen point
        manager.kill()
        mover.join(60)
        assert high is not None and high[1].Reason == CMQC.MQRC_Q_DEPTH_HIGH
        assert outcome, "the move finished before the kill: nothing was tested"
        manager.start()
        conn = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
        moved, left = browse(conn, "NEW.XMITQ"), browse(conn, "STUCK.XMITQ")
        assert 600 <= len(moved) < total and len(moved) % BATCH == 0, len(moved)
        assert moved + left == list(range(total))       # each exactly once, in order
        answer = manager.run_mqsc("MOVE QLOCAL(STUCK.XMITQ) TOQLOCAL(NEW.XMITQ) TYPE(ADD)")
        assert f"{len(left)} messages moved" in answer, answer
        assert [int(body) for _, body, _ in drain(conn, "NEW.XMITQ")] == list(range(total))
        conn.disconnect()


def browse(conn, queue_name: str) -> list[int]:
    """The numbers of the messages on a queue, in delivery order, left where they are."""
    queue = ibmmq.Queue(conn, queue_name, CMQC.MQOO_BROWSE)
    numbers = []
    try:
        while True:
            try:
                numbers.append(int(queue.get(None, ibmmq.MD(), ibmmq.GMO(
                    Options=CMQC.MQGMO_BROWSE_NEXT | CMQC.MQGMO_NO_WAIT))))
            except ibmmq.MQMIError as exc:
                if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return numbers
                raise
    finally:
        queue.close()
