"""Filter pushdown of batch reads through real Spark (spark_mq.reader.pushdown): with
spark.sql.python.filterPushdown.enabled a lookup by correlation or message id returns exactly
the matches and makes one MQGET per match plus one that ends the search (counted in the queue
manager's own API trace, not a full browse of the queue); comparisons on MQMD columns become
a selector ANDed with the `selector` option; without the conf every read still works and
browses the whole queue."""
from __future__ import annotations

import json
import re
from contextlib import contextmanager
from pathlib import Path

import ibmmq
import pytest
from ibmmq import CMQC
from pyspark.sql.functions import col

from support import reader_options

pytestmark = pytest.mark.timeout(300)
CONF = "spark.sql.python.filterPushdown.enabled"
DEPTH = 30
WANTED = b"W" * 24


@contextmanager
def pushdown(spark, enabled: bool):
    spark.conf.set(CONF, "true" if enabled else "false")
    try:
        yield
    finally:
        spark.conf.unset(CONF)


@contextmanager
def traced(qm, queue: str, gets: list):
    """The queue manager's API trace of `queue` while the block runs: its MQGETs into `gets`."""
    trace = Path(qm.data_dir) / "trace"
    qm.run_mqsc(f"START TRACE TYPE(API) QUEUE({queue})")
    try:
        yield
    finally:
        qm.run_mqsc("STOP TRACE")
        for path in sorted(trace.glob("AMQ*.TR[CS]")):
            gets += [record for record in map(json.loads, path.read_text().splitlines())
                     if record.get("verb") == "GET" and record.get("object") == queue]
            path.unlink()


@pytest.fixture
def deep(conn, make_queue):
    """DEPTH messages; the 11th and the 23rd have the correlation id WANTED, each a priority."""
    queue = make_queue()
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
    try:
        for i in range(DEPTH):
            md = ibmmq.MD(Priority=i % 10, CorrelId=WANTED if i in (10, 22) else b"%024d" % i)
            handle.put(b"m%d" % i, md)
    finally:
        handle.close()
    return queue


def spark_filters(frame) -> list[str]:
    """The Filter steps of the physical plan: what Spark applies itself after the scan."""
    plan = frame._jdf.queryExecution().executedPlan().toString()
    return [line for line in plan.splitlines() if re.search(r"\bFilter\b", line)]


def bodies(frame) -> list[str]:
    return sorted(row.payload.decode() for row in frame.select("payload").collect())


def test_a_lookup_by_correlation_id_is_direct_gets_not_a_browse(spark, qm, deep):
    def lookup():     # a new DataFrame each time: a DataFrame keeps the plan it was first run with
        return (spark.read.format("mq").options(**reader_options(qm, deep)).load()
                .where(col("correlation_id") == WANTED))
    browsed: list = []
    with pushdown(spark, False), traced(qm, deep, browsed):
        assert bodies(lookup()) == ["m10", "m22"]       # Spark filtered a whole browse
    assert len(browsed) == DEPTH                         # every message (the depth at the start)
    looked_up: list = []
    with pushdown(spark, True), traced(qm, deep, looked_up):
        assert bodies(lookup()) == ["m10", "m22"]
    # BROWSE_FIRST and BROWSE_NEXT matching the id find the two, the third ends the search
    assert [get["rc"] for get in looked_up] == ["MQRC_NONE", "MQRC_NONE", "MQRC_NO_MSG_AVAILABLE"]


def test_message_ids_and_mqmd_comparisons_with_the_selector_option(spark, qm, deep):
    everything = spark.read.format("mq").options(**reader_options(qm, deep)).load().collect()
    ids = {row.payload: row.message_id for row in everything}
    read = spark.read.format("mq").options(**reader_options(qm, deep, selector="Root.MQMD.Priority < 8"))
    with pushdown(spark, True):
        by_id = read.load().where(col("message_id").isin(ids[b"m3"], ids[b"m17"], ids[b"m29"]))
        assert bodies(by_id) == ["m17", "m3"]            # m29 has priority 9: the option leaves it out
        by_priority = read.load().where((col("priority") >= 6) & (col("priority") != 7))
        assert bodies(by_priority) == ["m16", "m26", "m6"]
        assert spark_filters(by_priority) == []         # every filter pushed: none left
        with_text = read.load().where((col("correlation_id") == WANTED) & col("text").isNull())
        assert bodies(with_text) == ["m10", "m22"]       # text stays with Spark: format is not MQSTR
        [left] = spark_filters(with_text)
        assert "isnull(text" in left and "correlation_id" not in left, left
