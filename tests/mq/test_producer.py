"""The writer's options, its column plan and its MQ layer (no Spark), the MQ layer against a
real embedded queue manager process."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC

import spark_mq.embedded as embedded
from spark_mq.columns import COLUMN_TYPES
from spark_mq.mq import producer_pool
from spark_mq.mq.exceptions import MQOptionError
from spark_mq.mq.outgoing import IGNORED_COLUMNS, MD_COLUMNS, Column, ColumnError, MessagePlan, RowValueError
from spark_mq.mq.producer import AsyncPutError, ProducerSettings
from spark_mq.mq.sink import write_partition
from spark_mq.options import WriteOptions, parse_connection
from support import depth, drain, mq_options

BASE = {"connName": "localhost(1414)", "queue": "Q1"}


# --- options ----------------------------------------------------------------------------
def test_options_defaults_for_streams_and_batch():
    stream = WriteOptions.parse(BASE, streaming=True)
    assert (stream.persistence, stream.async_put, stream.delivery, stream.segmentation,
            stream.large_message_threshold, stream.state_queue) == (
        "persistent", True, "exactlyOnce", True, 4 * 1024 * 1024, "SPARK.MQ.WRITER.STATE")
    assert WriteOptions.parse(BASE, streaming=False).delivery == "atLeastOnce"


def test_options_are_case_insensitive_and_canonical():
    options = WriteOptions.parse({**{k.lower(): v for k, v in BASE.items()},
                                  "persistence": "NONPERSISTENT", "asyncput": "false",
                                  "commitevery": "10", "delivery": "atleastonce"}, True)
    assert (options.persistence, options.async_put, options.commit_every, options.delivery) == (
        "nonPersistent", False, 10, "atLeastOnce")


@pytest.mark.parametrize("key,value,valid", [
    ("queue", "bad queue!", "1 to 48 characters"),
    ("stateQueue", "x" * 49, "1 to 48 characters"),
    ("commitEvery", "ten", "an integer from 1"),
    ("segmentation", "perhaps", "true | false"),
    ("largeMessageThreshold", "0", "an integer from 1"),
])
def test_bad_options_name_option_value_and_valid_values(key, value, valid):
    with pytest.raises(MQOptionError) as excinfo:
        WriteOptions.parse({**BASE, key: value}, streaming=True)
    assert excinfo.value.option == key and excinfo.value.value == value
    assert valid in str(excinfo.value)


def test_commit_every_is_checked_against_maxumsgs():
    assert WriteOptions.parse(BASE, True).check_commit_every(100).commit_every == 98
    with pytest.raises(MQOptionError, match="below the queue manager's MAXUMSGS 100"):
        WriteOptions.parse({**BASE, "commitEvery": "99"}, True).check_commit_every(100)


# --- the column plan ----------------------------------------------------------------------
def test_writer_column_names_are_the_readers():
    for name in list(MD_COLUMNS) + sorted(IGNORED_COLUMNS):
        assert name in COLUMN_TYPES, name


def test_plan_maps_columns_to_md_fields_and_properties():
    plan = MessagePlan([Column("payload", "string"), Column("priority", "integer"),
                        Column("correlation_id", "string"), Column("colour", "string"),
                        Column("properties", "map<string,string>"), Column("message_id", "binary")])
    out = plan.message(("hi", 3, "abc", None, [("extra", "1"), ("colour", "map")], b"ignored"))
    assert out.payload == b"hi" and out.priority == 3
    assert out.correl_id == b"abc".ljust(24, b"\0")
    assert out.format == b"MQSTR   " and out.ccsid == 1208
    assert out.properties == [("extra", "1", "string"), ("colour", None, "string")]


@pytest.mark.parametrize("columns,expected", [
    ([Column("body", "binary")], "no 'payload' column"),
    ([Column("payload", "integer")], "column 'payload' has type integer; valid types: binary, string"),
    ([Column("payload", "binary"), Column("priority", "string")],
     "column 'priority' has type string"),
    ([Column("payload", "binary"), Column("d", "decimal")], "column 'd' of type decimal"),
    ([Column("payload", "binary"), Column("JMSbogus", "string")], "column 'JMSbogus'"),
])
def test_plan_rejects_columns_it_cannot_write(columns, expected):
    with pytest.raises(ColumnError, match=expected):
        MessagePlan(columns)


@pytest.mark.parametrize("column,type_name,value,expected", [
    ("priority", "integer", 12, "0 to 9"),
    ("correlation_id", "binary", b"x" * 25, "at most 24"),
    ("expiry", "integer", 0, "tenths of a second"),
    ("format", "string", "TOOLONGFMT", "at most 8"),
])
def test_row_values_out_of_range_name_the_column(column, type_name, value, expected):
    plan = MessagePlan([Column("payload", "binary"), Column(column, type_name)])
    with pytest.raises(RowValueError, match=expected):
        plan.message((b"x", value))


def test_a_request_row_without_a_reply_to_queue_names_the_columns():
    """IBM MQ refuses an MQMT_REQUEST put with a blank ReplyToQ (2027, IBM docs: "ReplyToQ
    (MQCHAR48)"): the writer says so for the row, naming the columns, before it puts."""
    plan = MessagePlan([Column("payload", "binary"), Column("msg_type", "integer"),
                        Column("reply_to_queue", "string")])
    with pytest.raises(RowValueError, match="column 'msg_type'.*column 'reply_to_queue'"):
        plan.message((b"x", CMQC.MQMT_REQUEST, None))
    assert plan.message((b"x", CMQC.MQMT_REQUEST, "REPLIES")).reply_to_queue == "REPLIES"
    assert plan.message((b"x", CMQC.MQMT_DATAGRAM, None)).msg_type == CMQC.MQMT_DATAGRAM


# --- the MQ layer -------------------------------------------------------------------------
def test_async_put_failure_raises_with_reason_queue_and_backs_out(qm, conn, make_queue):
    queue = make_queue()
    qm.run_mqsc(f"ALTER QLOCAL({queue}) MAXDEPTH(3)")
    options = parse_connection(mq_options(qm))
    producer, maxumsgs = producer_pool.acquire(options, ProducerSettings())
    plan = MessagePlan([Column("payload", "binary")])
    with pytest.raises(AsyncPutError) as excinfo:
        write_partition([(b"m",)] * 10, plan, producer, queue, 100, maxumsgs - 2)
    assert excinfo.value.reason == 2053 and queue in str(excinfo.value)
    assert depth(conn, queue) == 0
    producer_pool.release(options, ProducerSettings(), producer, healthy=False)


def test_a_bad_property_name_in_the_map_fails_naming_it_and_its_reason(qm, make_queue):
    queue = make_queue()
    options = parse_connection(mq_options(qm))
    producer, maxumsgs = producer_pool.acquire(options, ProducerSettings())
    plan = MessagePlan([Column("payload", "binary"), Column("properties", "map<string,string>")])
    with pytest.raises(Exception) as excinfo:
        write_partition([(b"m", [("bad name", "x")])], plan, producer, queue, 100, maxumsgs - 2)
    assert "bad name" in str(excinfo.value) and "2442" in str(excinfo.value)
    producer_pool.release(options, ProducerSettings(), producer, healthy=False)


def test_pooled_connection_survives_a_queue_manager_restart(tmp_path):
    with embedded.EmbeddedQueueManager(str(tmp_path / "qm"), name="QMW") as manager:
        manager.run_mqsc("DEFINE QLOCAL(W.Q) DEFPSIST(YES)")
        options = parse_connection(mq_options(manager))
        plan = MessagePlan([Column("payload", "binary")])
        producer, maxumsgs = producer_pool.acquire(options, ProducerSettings())
        write_partition([(b"one",)], plan, producer, "W.Q", 100, maxumsgs - 2)
        producer_pool.release(options, ProducerSettings(), producer, healthy=True)
        manager.stop()
        manager.start()
        producer, maxumsgs = producer_pool.acquire(options, ProducerSettings())
        write_partition([(b"two",)], plan, producer, "W.Q", 100, maxumsgs - 2)
        producer_pool.release(options, ProducerSettings(), producer, healthy=False)
        conn = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
        assert [body for _, body, _ in drain(conn, "W.Q")] == [b"one", b"two"]
        conn.disconnect()


def test_segments_count_towards_the_unit_of_work_limit(qm, conn, make_queue):
    """Rows of 3 segments each, 10 messages per unit of work at most: chunks of 3 rows."""
    queue = make_queue("MAXMSGL(1024)")
    options = parse_connection(mq_options(qm))
    producer, _ = producer_pool.acquire(options, ProducerSettings())
    plan = MessagePlan([Column("payload", "binary")])
    try:
        result = write_partition([(bytes([i]) * 2500,) for i in range(7)], plan, producer,
                                 queue, commit_every=100, max_messages=10)
        assert (result.rows, result.messages, result.chunks_written) == (7, 21, 3)
        assert sorted(body for _, body, _ in drain(conn, queue)) == [bytes([i]) * 2500
                                                                     for i in range(7)]
    finally:
        producer_pool.release(options, ProducerSettings(), producer, healthy=True)


def test_packed_mqmd_is_byte_for_byte_what_ibmmq_packs():
    from spark_mq.mq.packed_put import PackedPut
    packed = PackedPut.create(ibmmq)
    assert packed is not None
    fields = {"Persistence": 1, "CorrelId": b"c".ljust(24, b"\0"), "GroupId": b"g" * 24,
              "ReplyToQ": b"R.Q", "ReplyToQMgr": b"QM2", "Priority": 5, "Expiry": 100,
              "MsgType": 2, "Format": b"MQSTR   ", "CodedCharSetId": 819, "Encoding": 273,
              "Feedback": 7, "MsgFlags": CMQC.MQMF_SEGMENTATION_ALLOWED, "MsgSeqNumber": 1}
    assert packed.md(fields) == ibmmq.MD(**fields).pack()
    assert packed.md({}) == ibmmq.MD().pack()


def test_a_missing_state_queue_is_explained_and_created_on_the_embedded_queue_manager(qm, conn):
    from spark_mq.mq.exceptions import MQConnectorError
    from spark_mq.mq.markers import ensure_state_queue, open_state_queue
    name = f"TEST.NEW.STATE.{id(conn) % 100000}"
    with pytest.raises(MQConnectorError) as excinfo:
        open_state_queue(conn, ibmmq, name)
    message = str(excinfo.value)
    assert "2085" in message and f"DEFINE QLOCAL({name})" in message and "stateQueue" in message
    ensure_state_queue(conn, ibmmq, name, parse_connection(mq_options(qm)))
    open_state_queue(conn, ibmmq, name).close()
    assert depth(conn, name) == 0


def test_idle_pooled_producers_are_closed_and_release_their_queues(qm, make_queue):
    queue = make_queue()
    options = parse_connection(mq_options(qm))
    plan = MessagePlan([Column("payload", "binary")])
    producer, maxumsgs = producer_pool.acquire(options, ProducerSettings(persistence="asQueueDef"))
    write_partition([(b"x",)], plan, producer, queue, 10, maxumsgs - 2)
    producer_pool.release(options, ProducerSettings(persistence="asQueueDef"), producer, True)
    assert "OPPROCS(1)" in qm.run_mqsc(f"DISPLAY QLOCAL({queue}) OPPROCS").replace(" ", "")
    assert producer_pool.close_idle(max_idle=0) >= 1
    assert "OPPROCS(0)" in qm.run_mqsc(f"DISPLAY QLOCAL({queue}) OPPROCS").replace(" ", "")
