"""What a user sees when a read or a write fails, through a real Spark session (local[2]) and
real embedded queue managers: bad option values at load(); with a user schema (Spark calls no
Python at load() then) at the stream's start; a missing queue, an unreachable queue manager
and 2035 as the FIRST line of the StreamingQueryException, never pyspark's UnboundLocalError;
and where Spark's planner and task workers format the error themselves, the connector's line
without a traceback (spark_mq.errors), in a message of a few lines.

What Spark adds, measured on pyspark 4.3: a stream's error is its prefix on the first line
("[STREAM_FAILED] Query [id = …, runId = …] terminated with exception: [CLASS] Failed when
Python streaming data source perform <call>: "), then the worker's text, then " SQLSTATE: …"
and the "=== Streaming Query ===" block (7 lines, with the logical plan 12). The bounds below
are those figures with a margin, far below the 31-47 lines (UnboundLocalError included) of
before.
"""
from __future__ import annotations

import pytest

import spark_mq.embedded as embedded
from support import mq_options, put_messages, reader_options

UNUSED_PORT = 16990   # in this test's port range: nothing listens there


def failure_of(action) -> str:
    with pytest.raises(Exception) as failure:
        action()
    text = str(failure.value)
    assert "UnboundLocalError" not in text, text
    return text


def stream_failure(spark, options: dict, tmp_path, schema: str | None = None) -> str:
    """The error a Trigger.AvailableNow query reading with these options ends with."""
    def run() -> None:
        reader = spark.readStream.format("mq").options(**options)
        if schema:
            reader = reader.schema(schema)
        query = (reader.load().writeStream.format("noop")
                 .option("checkpointLocation", str(tmp_path / "ckpt"))
                 .trigger(availableNow=True).start())
        query.awaitTermination(120)
        if query.exception() is not None:
            raise query.exception()
    return failure_of(run)


def first_line(text: str) -> str:
    return text.splitlines()[0]


def line_of(text: str, wanted: str) -> int:
    """The index of the first line that has `wanted`."""
    return next(i for i, line in enumerate(text.splitlines()) if wanted in line)


# --- option values: at load() ------------------------------------------------------------
@pytest.mark.parametrize("option, value, allowed", [
    ("numPartitions", "0", "an integer from 1 to 1024"),
    ("maxMessagesPerTrigger", "abc", "an integer from 1 to 2147483647"),
    ("maxMessagesPerTrigger", "-5", "an integer from 1 to 2147483647"),
    ("maxMessagesPerTrigger", "0", "an integer from 1 to 2147483647"),
    ("readMode", "bogus", "driver | executors"),
    ("delivery", "twice", "exactlyOnce | atLeastOnce | atMostOnce"),
])
def test_a_bad_option_value_fails_load_in_one_line(spark, qm, option, value, allowed):
    options = {**reader_options(qm, "DEV.QUEUE.1"), option: value}
    text = failure_of(lambda: spark.readStream.format("mq").options(**options).load())
    line = f"option '{option}': invalid value '{value}'; valid: {allowed}"
    assert line_of(text, line) <= 4 and len(text.splitlines()) <= 8, text
    text = failure_of(lambda: spark.read.format("mq").options(**options).load())   # batch too
    assert line in text


def test_options_that_cannot_work_together_fail_load(spark, qm):
    options = {**reader_options(qm, "DEV.QUEUE.1"), "readMode": "executors",
               "delivery": "atLeastOnce"}
    text = failure_of(lambda: spark.readStream.format("mq").options(**options).load())
    assert "option 'delivery': invalid value 'atLeastOnce'; valid: exactlyOnce with readMode " \
           "executors" in text


def test_with_a_user_schema_a_bad_value_fails_the_stream_first_thing(spark, qm, tmp_path):
    options = {**reader_options(qm, "DEV.QUEUE.1"), "maxMessagesPerTrigger": "-5"}
    text = stream_failure(spark, options, tmp_path, schema="payload binary")
    assert first_line(text).endswith(
        "spark_mq.mq.exceptions.MQOptionError: option 'maxMessagesPerTrigger': invalid value '-5'; "
        "valid: an integer from 1 to 2147483647"), text
    assert len(text.splitlines()) <= 25, text


def test_a_schema_the_reader_cannot_fill_names_the_types_it_can(spark, qm, tmp_path):
    text = stream_failure(spark, reader_options(qm, "DEV.QUEUE.1"), tmp_path,
                          schema="payload int")
    assert first_line(text).endswith(
        "schema column 'payload': type int is not one the reader can give it; valid: binary | "
        "string (the message data as text, decoded by each message's CCSID; null where it is "
        "not text in that CCSID)"), text


# --- failures in the source: the MQ reason first -----------------------------------------
@pytest.mark.parametrize("read_mode", ["driver", "executors"])
def test_a_missing_queue_fails_the_stream_with_its_reason_first(spark, qm, tmp_path, read_mode):
    options = reader_options(qm, "NO.SUCH.Q", readMode=read_mode)
    text = stream_failure(spark, options, tmp_path)
    line = first_line(text)
    assert "queue manager QM1 at " in line and "opening queue 'NO.SUCH.Q' for " in line, text
    assert "MQ reason 2085 MQRC_UNKNOWN_OBJECT_NAME" in line
    assert line.endswith("no such queue on this queue manager: check the queue name (MQ names "
                         "are case-sensitive)")
    # the line says all there is: no traceback of the connector's, no MQMIError chained after
    assert "Traceback" not in text and "MQMIError" not in text, text
    assert len(text.splitlines()) <= 15, text


def test_an_unreachable_queue_manager_fails_the_stream_with_its_reason_first(spark, qm, tmp_path):
    options = {**reader_options(qm, "DEV.QUEUE.1"), "connName": f"localhost({UNUSED_PORT})",
               "reconnectTimeoutMs": "0"}
    line = first_line(stream_failure(spark, options, tmp_path))
    assert f"connecting to queue manager QM1 at localhost({UNUSED_PORT}) to read failed: MQ reason " \
           "2538 MQRC_HOST_NOT_AVAILABLE (completion code 2): nothing listens at 'connName' " \
           "(host(port)): the queue manager is not running, or listens on another port or host; " \
           "start it (the embedded one: spark-mq-qmgr start --data-dir DIR --port PORT; IBM MQ: " \
           "strmqm QMNAME), or correct 'connName'" in line, line


def test_a_batch_read_of_a_missing_queue_says_so_in_a_few_lines(spark, qm):
    text = failure_of(lambda: spark.read.format("mq").options(**reader_options(qm, "NO.SUCH.Q"))
                      .load().collect())
    line = "MQ reason 2085 MQRC_UNKNOWN_OBJECT_NAME"
    assert line_of(text, line) <= 4 and "'NO.SUCH.Q'" in text and len(text.splitlines()) <= 8, text


def test_a_write_to_a_missing_queue_says_so_in_a_few_lines(spark, qm, tmp_path):
    df = spark.createDataFrame([("x",)], "payload string")
    options = mq_options(qm, queue="NO.SUCH.Q")
    text = failure_of(lambda: df.write.format("mq").options(**options).mode("append").save())
    assert line_of(text, "MQ reason 2085 MQRC_UNKNOWN_OBJECT_NAME") <= 4, text
    assert len(text.splitlines()) <= 8, text

    def stream() -> None:
        query = (spark.readStream.format("rate").load().selectExpr("CAST(value AS STRING) AS payload")
                 .writeStream.format("mq").options(**options)
                 .option("checkpointLocation", str(tmp_path / "w")).start())
        try:
            query.awaitTermination(120)
        finally:
            query.stop()
    text = failure_of(stream)
    assert line_of(text, "MQ reason 2085 MQRC_UNKNOWN_OBJECT_NAME") <= 4, text
    assert len(text.splitlines()) <= 25, text


def test_a_task_that_fails_says_why_in_a_few_lines(spark, qm, make_queue):
    queue = make_queue()
    qm.run_mqsc(f"ALTER QLOCAL({queue}) MAXDEPTH(3)")
    df = spark.createDataFrame([(f"m{i}",) for i in range(10)], "payload string").coalesce(1)
    options = mq_options(qm, queue=queue)
    text = failure_of(lambda: df.write.format("mq").options(**options).mode("append").save())
    assert line_of(text, "MQ reason 2053 MQRC_Q_FULL") <= 5 and len(text.splitlines()) <= 8, text


# --- 2035 -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sqm(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qm-errors")), name="QMSEC",
                                       users={"app": "passw0rd"}) as manager:
        manager.run_mqsc("DEFINE QLOCAL(APP.PRIVATE) REPLACE")
        yield manager


def secured(qm, queue: str, password: str = "passw0rd") -> dict:
    return {**reader_options(qm, queue), "user": "app", "password": password}


def test_a_refused_password_fails_the_stream_naming_each_cause(spark, sqm, tmp_path):
    line = first_line(stream_failure(spark, secured(sqm, "DEV.QUEUE.1", "wrong"), tmp_path))
    assert "MQ reason 2035 MQRC_NOT_AUTHORIZED" in line and "queue manager QMSEC" in line, line
    assert "(1) a wrong 'user' and 'password' (the error log shows AMQ5534E for user 'app')" in line
    assert "(2) a CHLAUTH rule" in line and "(3) no connect authority" in line


def test_a_missing_authority_fails_the_stream_naming_it_and_its_grant(spark, sqm, tmp_path):
    line = first_line(stream_failure(spark, secured(sqm, "APP.PRIVATE"), tmp_path))
    assert "opening queue 'APP.PRIVATE' for input failed: MQ reason 2035 MQRC_NOT_AUTHORIZED" in line
    assert "user 'app'" in line and "lacks authority on queue 'APP.PRIVATE': this call needs +get" \
        in line
    assert "setmqaut -m QMSEC -n 'APP.PRIVATE' -t queue -p app +get" in line, line


def test_a_stream_that_works_reads_after_the_checks(spark, qm, conn, make_queue, tmp_path):
    """The checks moved to the first call still let a good stream through, topic columns and
    all (a control for the tests above)."""
    queue = make_queue()
    put_messages(conn, queue, [b"a", b"b"])
    reader = spark.readStream.format("mq").options(**reader_options(qm, queue)).load()
    query = (reader.selectExpr("payload", "queue").writeStream.format("memory").queryName("ok_errors")
             .option("checkpointLocation", str(tmp_path / "ok")).trigger(availableNow=True).start())
    query.awaitTermination(120)
    assert query.exception() is None
    rows = spark.sql("select * from ok_errors").collect()
    assert sorted((r.payload, r.queue) for r in rows) == [(b"a", queue), (b"b", queue)]
