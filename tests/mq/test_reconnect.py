"""The writer rides out a queue-manager restart (issue 14): a task whose connection is lost
connects again, with back-off, and goes on where its exactly-once marker says, so no row is
lost or doubled; when the queue manager stays away longer than reconnectTimeoutMs the task
fails with one error that says so, and writing the partition again later completes it.

Each test runs its own embedded queue manager process and SIGKILLs it at a precise row (or
right after a real MQCMIT) from inside the row iterator."""
from __future__ import annotations

from collections.abc import Callable, Iterator

import ibmmq
import pytest

from spark_mq.embedded import EmbeddedQueueManager
from spark_mq.mq.exceptions import MQConnectorError, describe
from spark_mq.mq.outgoing import Column, MessagePlan
from spark_mq.mq.producer import Producer, ProducerSettings
from spark_mq.mq.sink import Exactly, SinkResult, write_rows
from spark_mq.options import parse_connection
from support import mq_options, numbers_on

STATE = "SPARK.MQ.WRITER.STATE"
PLAN = MessagePlan([Column("payload", "binary"), Column("n", "integer")])


@pytest.fixture
def own_qm(tmp_path) -> Iterator[EmbeddedQueueManager]:
    manager = EmbeddedQueueManager(str(tmp_path / "qm"), name="QM1")
    manager.start()
    manager.run_mqsc("DEFINE QLOCAL(OUT) MAXDEPTH(999999) REPLACE\n"
                     f"DEFINE QLOCAL({STATE}) MAXDEPTH(999999) REPLACE")
    yield manager
    manager.stop()


def restart(qm: EmbeddedQueueManager) -> None:
    qm.kill()
    qm.start()


def rows(count: int, at: int | None = None, fault: Callable[[], None] | None = None):
    for n in range(count):
        if n == at and fault is not None:
            fault()
        yield (f"row-{n}".encode(), n)


def write(qm: EmbeddedQueueManager, data, exactly: bool = True, **options) -> SinkResult:
    connection = parse_connection(mq_options(qm, **options))
    return write_rows(data, PLAN, connection, ProducerSettings(), "OUT", commit_every=30,
                      exactly=Exactly(STATE, "reconnect-test", 0) if exactly else None,
                      batch_id=4)


def on_queue(qm: EmbeddedQueueManager) -> list[int]:
    conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    try:
        return numbers_on(conn, "OUT")
    finally:
        conn.disconnect()


def test_a_restart_mid_chunk_is_ridden_out_and_every_row_is_put_once(own_qm):
    """Rows 90..94 of the open chunk were put but not committed when the queue manager died:
    backed out with the connection, put again on the new one."""
    result = write(own_qm, rows(200, at=95, fault=lambda: restart(own_qm)))
    assert (result.rows, result.rows_skipped) == (200, 0)
    assert on_queue(own_qm) == list(range(200))


def test_a_commit_whose_reply_was_lost_is_not_written_again(own_qm, monkeypatch):
    """MQCMIT reached the queue manager, then the connection broke before its answer: the
    outcome is unknown to the task. The marker committed with the chunk tells it."""
    real_commit = Producer.commit
    commits = []

    def commit_then_lose_the_reply(self: Producer) -> None:
        real_commit(self)
        commits.append(1)
        if len(commits) == 3:      # rows 60..89 are committed, the task does not know it
            restart(own_qm)
            raise describe(ibmmq.MQMIError(ibmmq.CMQC.MQCC_FAILED,
                                           ibmmq.CMQC.MQRC_CONNECTION_BROKEN),
                           "committing the unit of work (MQCMIT)")

    monkeypatch.setattr(Producer, "commit", commit_then_lose_the_reply)
    result = write(own_qm, rows(200))
    assert (result.rows, result.rows_skipped) == (200, 30)
    assert on_queue(own_qm) == list(range(200))


def test_a_queue_manager_that_stays_away_fails_the_task_with_one_clear_error(own_qm):
    with pytest.raises(MQConnectorError) as failure:
        write(own_qm, rows(200, at=100, fault=own_qm.kill), reconnectTimeoutMs=1500)
    message = str(failure.value)
    assert "reconnectTimeoutMs" in message and "1500 ms" in message
    assert failure.value.reason_name in ("MQRC_CONNECTION_BROKEN", "MQRC_Q_MGR_NOT_AVAILABLE",
                                         "MQRC_HOST_NOT_AVAILABLE")
    own_qm.start()
    assert on_queue(own_qm) == list(range(90))       # three whole chunks, nothing partial
    # Spark runs the task again once the queue manager is back: the marker makes it exact
    again = write(own_qm, rows(200))
    assert (again.rows, again.rows_skipped) == (200, 90)
    assert on_queue(own_qm) == list(range(90, 200))


def test_never_rides_out_an_outage_of_any_length(own_qm):
    """reconnectTimeoutMs never: the task keeps trying (outages() shows since when and how
    often) until the queue manager is back, then finishes exactly once."""
    import threading

    from spark_mq.mq.connecting import outages

    def back_after_some_attempts():
        # a deterministic wait on the task's own figures, well past a 0 ms timeout
        while not any(o.attempts >= 4 for o in outages()):
            threading.Event().wait(0.05)
        seen.extend(outages())
        own_qm.start()

    seen: list = []
    starter = threading.Thread(target=back_after_some_attempts, daemon=True)

    def kill_and_watch():
        own_qm.kill()
        starter.start()

    result = write(own_qm, rows(200, at=100, fault=kill_and_watch), reconnectTimeoutMs="never")
    starter.join(60)
    assert (result.rows, result.rows_skipped) == (200, 0)
    assert on_queue(own_qm) == list(range(200))
    assert seen and seen[0].attempts >= 4 and seen[0].since > 0 and outages() == []


def test_giving_back_makes_one_attempt_per_call_and_keeps_the_deadline_across_calls(own_qm):
    """Under giving_back() (the stream reader's triggers) each call makes the attempt that is
    due and raises OutageGoesOn: the outage goes on from call to call, with its start, count
    and reconnectTimeoutMs deadline, and past the deadline the call fails as one that waited."""
    from spark_mq.mq.connecting import (
        OutageGoesOn,
        connected,
        giving_back,
        last_outage,
        outage_now,
        retry_while_lost,
    )

    connection = parse_connection(mq_options(own_qm, reconnectTimeoutMs=1500))
    what = "connecting for test_giving_back"

    def work() -> str:
        with connected(connection):
            return "connected"

    own_qm.kill()
    seen: list[dict] = []
    with giving_back():
        while True:
            try:
                retry_while_lost(connection, work, what)
            except OutageGoesOn:
                seen.append(outage_now(what))
            except MQConnectorError as exc:
                gave_up = exc
                break
    # the call that meets the loss tries once more at once, then one attempt a call
    assert [s["attempts"] for s in seen] == list(range(2, len(seen) + 2))
    assert len({s["since"] for s in seen}) == 1 and len({s["givesUpAt"] for s in seen}) == 1
    assert seen[0]["since"] < seen[0]["givesUpAt"]
    assert seen[-1]["reasonName"] == "MQRC_HOST_NOT_AVAILABLE" and seen[-1]["reason"] == 2538
    assert "1500 ms" in str(gave_up) and "reconnectTimeoutMs" in str(gave_up)
    assert outage_now(what) is None
    assert last_outage(what)["attempts"] == len(seen) + 2 and last_outage(what)["ended"]
    own_qm.start()
    with giving_back():
        assert retry_while_lost(connection, work, what) == "connected"


def test_at_least_once_writes_the_lost_chunk_again_and_loses_nothing(own_qm):
    write(own_qm, rows(200, at=95, fault=lambda: restart(own_qm)), exactly=False)
    assert on_queue(own_qm) == list(range(200))


def test_a_bad_reconnect_timeout_names_the_option():
    from spark_mq.errors import MQOptionError
    with pytest.raises(MQOptionError, match="reconnectTimeoutMs.*'soon'.*never"):
        parse_connection({"connName": "localhost(1414)", "reconnectTimeoutMs": "soon"})
    for never in ("never", "NEVER", "-1"):
        given = {"connName": "localhost(1414)", "reconnectTimeoutMs": never}
        assert parse_connection(given).reconnect_timeout_ms == -1
    with pytest.raises(MQOptionError, match="'-2'"):
        parse_connection({"connName": "localhost(1414)", "reconnectTimeoutMs": "-2"})
