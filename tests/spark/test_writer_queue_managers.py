"""The writer in a cluster: the options `queueManagers` (each Spark partition writes to one of
several queue managers) and `bind` (the MQOO_BIND_* of the writer's opens), with real Spark
and real embedded queue managers. Every row is counted where it landed: each once in total,
each partition's rows on the queue manager `partition % n` of the list; through a kill of
the driver mid-batch and a member that dies at its first commit. The bind the writer asks
for is read from the queue manager's API trace; a cluster of three queue managers takes a
clustered write with bind=open, and one with bind=notFixed whose plain rows the queue
manager spreads over the instances while a group's rows and a reference/data pair stay whole
(the embedded queue manager's workload algorithm and binds: branch h-clwl, merged here)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from contextlib import contextmanager
from pathlib import Path

import pytest
from ibmmq import CMQC

from channel_topology import cluster_senders_ready, connect, fresh_queue, members, start, wait_for
from cluster_topology import shop
from spark_mq.embedded import EmbeddedQueueManagerError
from spark_mq.errors import MQOptionError
from spark_mq.options import WriteOptions
from support import depth, drain, kill_tree, write_json

STATE_QUEUE = "SPARK.MQ.WRITER.STATE"
_BIND_BITS = CMQC.MQOO_BIND_ON_OPEN | CMQC.MQOO_BIND_NOT_FIXED | CMQC.MQOO_BIND_ON_GROUP
BINDS = {"asQueueDef": CMQC.MQOO_BIND_AS_Q_DEF, "open": CMQC.MQOO_BIND_ON_OPEN,
         "notFixed": CMQC.MQOO_BIND_NOT_FIXED, "group": CMQC.MQOO_BIND_ON_GROUP}


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """QMA and QMB, each its own process."""
    folder = tmp_path_factory.mktemp("pair")
    managers = {name: start(folder, name) for name in ("QMA", "QMB")}
    yield managers
    for manager in managers.values():
        manager.stop()




def on(manager, queue: str) -> list[tuple[str, dict]]:
    """Every message on the queue (taken off it): (payload, properties)."""
    conn = connect(manager)
    try:
        return [(bytes(body).decode(), props) for _, body, props in drain(conn, queue)]
    finally:
        conn.disconnect()


def depth_of(manager, queue: str) -> int:
    conn = connect(manager)
    try:
        return depth(conn, queue)
    finally:
        conn.disconnect()


# --- the options ---------------------------------------------------------------------------
def test_each_partition_writes_to_its_entry_of_queue_managers_modulo_their_number():
    options = WriteOptions.parse({"queueManagers": "QMA@host1(1414),QMB@host2(1415)",
                                  "queue": "OUT", "channel": "APP.SVRCONN"}, streaming=True)
    found = [(options.member(p).connection.queue_manager, options.member(p).connection.conn_name)
             for p in range(4)]
    assert found == [("QMA", "host1(1414)"), ("QMB", "host2(1415)")] * 2
    assert all(options.member(p).connection.channel == "APP.SVRCONN" for p in range(4))
    assert all(not m.queue_managers for m in options.members())


@pytest.mark.parametrize("extra, named", [
    ({"connName": "host(1414)"}, ("'queueManagers'", "'connName'")),
    ({"queueManager": "QM1"}, ("'queueManagers'", "'queueManager'")),
])
def test_queue_managers_beside_conn_name_or_queue_manager_is_an_error_naming_both(extra, named):
    with pytest.raises(MQOptionError) as refused:
        WriteOptions.parse({"queueManagers": "QMA@host(1414)", "queue": "OUT", **extra},
                           streaming=True)
    assert all(name in str(refused.value) for name in named)


def test_queue_managers_malformed_or_with_a_topic_is_refused():
    with pytest.raises(MQOptionError) as refused:
        WriteOptions.parse({"queueManagers": "QMA@host(1414),QMB@host", "queue": "OUT"},
                           streaming=True)
    assert "invalid value 'QMB@host'" in str(refused.value)
    assert "NAME@host(port)" in str(refused.value)
    with pytest.raises(MQOptionError) as refused:
        WriteOptions.parse({"queueManagers": "QMA@host(1414)", "topic": "orders/eu"},
                           streaming=True)
    assert "'queueManagers'" in str(refused.value) and "option topic" in str(refused.value)


def test_bind_takes_the_four_binds_and_names_them_for_a_bad_value():
    for given, canonical in [("open", "open"), ("NOTFIXED", "notFixed"), ("group", "group"),
                             ("asqueuedef", "asQueueDef")]:
        options = WriteOptions.parse({"connName": "h(1)", "queue": "OUT", "bind": given},
                                     streaming=True)
        assert options.bind == canonical
    assert WriteOptions.parse({"connName": "h(1)", "queue": "OUT"}, streaming=True).bind == \
        "asQueueDef"
    with pytest.raises(MQOptionError) as refused:
        WriteOptions.parse({"connName": "h(1)", "queue": "OUT", "bind": "onOpen"},
                           streaming=True)
    message = str(refused.value)
    assert "'bind'" in message and "'onOpen'" in message
    assert all(name in message for name in BINDS)
    with pytest.raises(MQOptionError) as refused:
        WriteOptions.parse({"connName": "h(1)", "topic": "orders/eu", "bind": "open"},
                           streaming=True)
    assert "'bind'" in str(refused.value) and "'topic'" in str(refused.value)


# --- bind: what the writer asks the queue manager for --------------------------------------
@contextmanager
def traced_opens(qm, queue: str, opens: list):
    """The options of each MQOPEN of `queue` the queue manager's API trace records while the
    block runs."""
    trace = Path(qm.data_dir) / "trace"
    qm.run_mqsc(f"START TRACE TYPE(API) QUEUE({queue})")
    try:
        yield
    finally:
        qm.run_mqsc("STOP TRACE")
        for path in sorted(trace.glob("AMQ*.TR[CS]")):
            opens += [record["options"] for record in map(json.loads, path.read_text().splitlines())
                      if record.get("verb") == "OPEN" and record.get("object") == queue]
            path.unlink()


def write_batch(spark, options: dict, rows: list[tuple], schema: str, partitions: int) -> None:
    (spark.createDataFrame(rows, schema).repartition(partitions)
     .write.format("mq").options(**options).mode("append").save())


@pytest.mark.parametrize("bind", list(BINDS))
def test_the_writer_opens_the_queue_with_the_bind_asked_for(pair, spark, bind):
    qma = pair["QMA"]
    queue = fresh_queue(qma, prefix="OUT")
    opens: list[int] = []
    options = {"connName": qma.conn_name, "queueManager": "QMA", "queue": queue,
               "transport": "embedded", "bind": bind}
    with traced_opens(qma, queue, opens):
        write_batch(spark, options, [(f"row-{n}",) for n in range(3)], "payload string", 1)
    puts = [o for o in opens if o & CMQC.MQOO_FAIL_IF_QUIESCING]   # the tasks' (the driver's
    assert puts, opens                                               # check only tries OUTPUT)
    assert {o & _BIND_BITS for o in puts} == {BINDS[bind]}
    assert sorted(p for p, _ in on(qma, queue)) == ["row-0", "row-1", "row-2"]


@pytest.mark.parametrize("bind, kept_apart", [("notFixed", True), ("open", False)])
def test_rows_of_a_group_are_put_through_a_handle_bound_on_open(pair, spark, bind, kept_apart):
    """Rows that carry a group_id must not be spread over a cluster queue's instances: with a
    bind that may spread them they go through a second handle opened MQOO_BIND_ON_OPEN."""
    qma = pair["QMA"]
    queue = fresh_queue(qma, prefix="OUT")
    opens: list[int] = []
    options = {"connName": qma.conn_name, "queueManager": "QMA", "queue": queue,
               "transport": "embedded", "bind": bind}
    rows = [("alone", None), ("first", "G1"), ("second", "G1")]
    with traced_opens(qma, queue, opens):
        write_batch(spark, options, rows, "payload string, group_id string", 1)
    binds = {o & _BIND_BITS for o in opens if o & CMQC.MQOO_FAIL_IF_QUIESCING}
    expected = {BINDS[bind], CMQC.MQOO_BIND_ON_OPEN} if kept_apart else {BINDS[bind]}
    assert binds == expected
    assert sorted(p for p, _ in on(qma, queue)) == ["alone", "first", "second"]


def test_a_reference_data_pair_is_put_through_a_handle_bound_on_open(pair, spark):
    """A payload with properties past largeMessageThreshold travels as two messages the reader
    joins again: with notFixed they go through the MQOO_BIND_ON_OPEN handle too."""
    qma = pair["QMA"]
    queue = fresh_queue(qma, prefix="OUT")
    opens: list[int] = []
    options = {"connName": qma.conn_name, "queueManager": "QMA", "queue": queue,
               "transport": "embedded", "bind": "notFixed", "largeMessageThreshold": "100"}
    with traced_opens(qma, queue, opens):
        write_batch(spark, options, [("x" * 200, "big")], "payload string, region string", 1)
    binds = {o & _BIND_BITS for o in opens if o & CMQC.MQOO_FAIL_IF_QUIESCING}
    # the row's target is opened NOT_FIXED (its MAXMSGL decides the pair); the pair's handle
    # is opened only for what must stay together
    assert binds == {CMQC.MQOO_BIND_NOT_FIXED, CMQC.MQOO_BIND_ON_OPEN}
    conn = connect(qma)
    try:
        formats = sorted(md.Format.strip() for md, _, _ in drain(conn, queue))
    finally:
        conn.disconnect()
    assert formats == [b"SPKMQDAT", b"SPKMQREF"]


# --- a cluster: FR1 and FR2 full repositories, PR a partial one -----------------------------
_ATTRIBUTE = re.compile(r"([A-Z0-9]+)\(((?:[^()]|\([^()]*\))*)\)")


def _instances(qm, queue: str) -> set[str]:
    """The queue managers DISPLAY QCLUSTER on `qm` shows an instance of `queue` on."""
    try:
        output = qm.run_mqsc(f"DISPLAY QCLUSTER({queue}) CLUSQMGR")
    except EmbeddedQueueManagerError:
        return set()
    return {dict(_ATTRIBUTE.findall(block)).get("CLUSQMGR", "").strip()
            for block in output.split("AMQ8409I")[1:]}


@pytest.fixture
def cluster(tmp_path):
    with shop(tmp_path) as qms:
        yield qms


@pytest.mark.timeout(600)
def test_a_clustered_write_with_bind_open_from_two_members_puts_every_row_once(cluster, spark):
    """SHOP.ORDERS has instances on FR2 and PR; the write goes through FR1 (which chooses an
    instance at each open) and FR2 (its own instance), each partition to one of them."""
    from pyspark.sql import functions as F
    fr1, fr2, pr = cluster["FR1"], cluster["FR2"], cluster["PR"]
    for qm in (fr2, pr):
        qm.run_mqsc("DEFINE QLOCAL(SHOP.ORDERS) CLUSTER(SHOP) MAXDEPTH(999999) REPLACE")
    wait_for(lambda: _instances(fr1, "SHOP.ORDERS") == {"FR2", "PR"},
             what="FR1 knows both instances of SHOP.ORDERS")
    cluster_senders_ready(fr1, {"FR2", "PR"})   # a retrying channel's instance comes last
    options = {"queueManagers": members(fr1, fr2), "queue": "SHOP.ORDERS",
               "transport": "embedded", "bind": "open", "delivery": "exactlyOnce"}
    rows = [(f"row-{n:03d}", n) for n in range(80)]
    (spark.createDataFrame(rows, "payload string, n int").repartition(4, "n")
     .withColumn("part", F.spark_partition_id())
     .write.format("mq").options(**options).mode("append").save())
    wait_for(lambda: depth_of(fr2, "SHOP.ORDERS") + depth_of(pr, "SHOP.ORDERS") >= 80,
             what="every row at an instance of SHOP.ORDERS")
    found = on(fr2, "SHOP.ORDERS") + on(pr, "SHOP.ORDERS")
    assert sorted(payload for payload, _ in found) == [payload for payload, _ in rows]
    # FR2's partitions (the odd ones) went to its own instance (CLWLUSEQ LOCAL)
    assert all(props["part"] % 2 == 0 for payload, props in on(pr, "SHOP.ORDERS"))
    assert depth_of(fr1, STATE_QUEUE) == 0 and depth_of(fr2, STATE_QUEUE) == 0


@pytest.mark.timeout(600)
def test_bind_not_fixed_spreads_the_rows_and_keeps_a_group_and_a_pair_on_one_instance(cluster,
                                                                                    spark):
    """One task through FR1, bind=notFixed: its plain rows go round the instances on FR2 and
    PR, while the rows of group G1 and the two messages of a reference/data pair each land
    whole on one of them."""
    fr1, fr2, pr = cluster["FR1"], cluster["FR2"], cluster["PR"]
    for qm in (fr2, pr):
        qm.run_mqsc("DEFINE QLOCAL(SHOP.LOOSE) CLUSTER(SHOP) MAXDEPTH(999999) REPLACE")
    wait_for(lambda: _instances(fr1, "SHOP.LOOSE") == {"FR2", "PR"},
             what="FR1 knows both instances of SHOP.LOOSE")
    cluster_senders_ready(fr1, {"FR2", "PR"})   # a retrying channel's instance comes last
    options = {"connName": fr1.conn_name, "queueManager": "FR1", "queue": "SHOP.LOOSE",
               "transport": "embedded", "bind": "notFixed", "largeMessageThreshold": "100"}
    rows = [(f"plain-{n}", None, None) for n in range(3)]
    rows += [(f"grouped-{n}", "G1", None) for n in range(4)]
    rows += [("x" * 200, None, "big")]
    rows += [(f"plain-{n}", None, None) for n in range(3, 6)]
    write_batch(spark, options, rows, "payload string, group_id string, region string", 1)
    wait_for(lambda: depth_of(fr2, "SHOP.LOOSE") + depth_of(pr, "SHOP.LOOSE") == 12,
             what="the 11 rows (the pair two messages) at the instances")
    where: dict[str, set[str]] = {}
    for qm in (fr2, pr):
        conn = connect(qm)
        try:
            for md, body, _ in drain(conn, "SHOP.LOOSE"):
                text = bytes(body).decode()
                kind = ("pair" if md.Format.strip() in (b"SPKMQREF", b"SPKMQDAT")
                        else "group" if text.startswith("grouped-") else text)
                where.setdefault(kind, set()).add(qm.name)
        finally:
            conn.disconnect()
    assert len(where["group"]) == 1 and len(where["pair"]) == 1
    plain = {kind: hosts for kind, hosts in where.items() if kind.startswith("plain-")}
    assert len(plain) == 6 and all(len(hosts) == 1 for hosts in plain.values())
    assert set().union(*plain.values()) == {"FR2", "PR"}    # spread: each put chose


# --- queueManagers: a batch write -----------------------------------------------------------
def test_a_batch_write_spreads_the_partitions_over_the_queue_managers(pair, spark):
    from pyspark.sql import functions as F
    qma, qmb = pair["QMA"], pair["QMB"]
    queue = fresh_queue(qma, qmb, prefix="OUT")
    options = {"queueManagers": members(qma, qmb), "queue": queue, "transport": "embedded",
               "delivery": "exactlyOnce"}
    (spark.range(0, 40, numPartitions=4)
     .select(F.format_string("row-%02d", "id").alias("payload"), F.col("id").alias("n"),
             F.spark_partition_id().alias("part"))
     .write.format("mq").options(**options).mode("append").save())
    found = {"QMA": on(qma, queue), "QMB": on(qmb, queue)}
    # spark.range puts ids 10p..10p+9 in partition p: QMA has partitions 0 and 2, QMB 1 and 3
    assert sorted(props["n"] for _, props in found["QMA"]) == [*range(0, 10), *range(20, 30)]
    assert sorted(props["n"] for _, props in found["QMB"]) == [*range(10, 20), *range(30, 40)]
    assert {props["part"] for _, props in found["QMA"]} == {0, 2}
    assert {props["part"] for _, props in found["QMB"]} == {1, 3}
    # the job removed each partition's marker on the queue manager it wrote to
    assert depth_of(qma, STATE_QUEUE) == 0 and depth_of(qmb, STATE_QUEUE) == 0


def test_a_batch_write_with_a_queue_manager_down_fails_at_the_start_naming_it(pair, spark,
                                                                             tmp_path):
    down = start(tmp_path, "QMD")
    queue = fresh_queue(pair["QMA"], down, prefix="OUT")
    down.stop()
    options = {"queueManagers": members(pair["QMA"], down), "queue": queue,
               "transport": "embedded", "reconnectTimeoutMs": "0"}
    with pytest.raises(Exception) as failed:
        write_batch(spark, options, [("row",)], "payload string", 2)
    assert "queue manager QMD" in str(failed.value)
    assert depth_of(pair["QMA"], queue) == 0     # nothing written before the check


# --- queueManagers: a stream, through a kill of the driver and a member's death -------------
JOB = textwrap.dedent("""
    import json, os, sys
    os.environ["PYSPARK_PYTHON"] = sys.executable
    import spark_mq.embedded
    spark_mq.embedded.install()
    from pyspark.sql import SparkSession, functions as F
    spark = (SparkSession.builder.master("local[2]").appName("writer-queue-managers")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.files.maxPartitionBytes", "2048").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    import spark_mq
    spark_mq.register(spark)
    options, source, checkpoint, delay = json.loads(sys.argv[1])
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "10")

    def slow(n):
        import time
        time.sleep(delay)          # slow rows: the parent has time to kill us mid-batch
        return f"row-{n}"

    query = (spark.readStream.schema("n int").json(source)
             .select(F.udf(slow, "string")("n").alias("payload"), "n",
                     F.spark_partition_id().alias("part"))
             .writeStream.format("mq").options(**options)
             .option("commitEvery", "20").option("checkpointLocation", checkpoint)
             .trigger(availableNow=True).start())
    try:
        query.awaitTermination()
        failure = None
    except Exception as exc:
        failure = str(exc)
    print("RESULT " + json.dumps({"exception": failure}), flush=True)
""")
ROWS = 400


def start_job(script: Path, arguments: list) -> subprocess.Popen:
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    return subprocess.Popen([sys.executable, str(script), json.dumps(arguments)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            start_new_session=True)


def job_result(job: subprocess.Popen) -> tuple[dict, str]:
    """The job's RESULT line, and its whole output (the task's error is in Spark's log)."""
    output, _ = job.communicate(timeout=300)
    results = [line for line in output.splitlines() if line.startswith("RESULT ")]
    assert results, output[-3000:]
    return json.loads(results[-1][7:]), output


def stream_setup(tmp_path: Path, managers, **extra) -> tuple[Path, list, str]:
    queue = fresh_queue(*managers, prefix="OUT")
    source = tmp_path / "in"
    source.mkdir()
    write_json(source / "a.json", range(ROWS))     # ~ a dozen partitions of 2 KiB
    script = tmp_path / "job.py"
    script.write_text(JOB)
    options = {"queueManagers": members(*managers), "queue": queue, "transport": "embedded",
               **{k: str(v) for k, v in extra.items()}}
    return script, [options, str(source), str(tmp_path / "chk")], queue


def check_spread(managers, queue: str) -> None:
    """Every row once in total, each partition's on its queue manager (partition % 2)."""
    found = {m.name: on(m, queue) for m in managers}
    numbers = sorted(props["n"] for messages in found.values() for _, props in messages)
    assert numbers == list(range(ROWS))
    for index, manager in enumerate(managers):
        parts = {props["part"] for _, props in found[manager.name]}
        assert parts and all(part % len(managers) == index for part in parts), (manager.name,
                                                                                parts)


@pytest.mark.timeout(600)
def test_a_stream_over_two_queue_managers_killed_mid_batch_writes_each_row_once(pair, tmp_path):
    qma, qmb = pair["QMA"], pair["QMB"]
    script, arguments, queue = stream_setup(tmp_path, [qma, qmb])
    job = start_job(script, [*arguments, 0.05])
    try:
        wait_for(lambda: job.poll() is not None
                 or depth_of(qma, queue) + depth_of(qmb, queue) >= 100, seconds=180,
                 what="a hundred rows committed")
        assert job.poll() is None, job.stdout.read()[-3000:] if job.stdout else ""
    finally:
        killed = kill_tree(job.pid)     # no worker survives to commit what it holds
        job.wait(30)
    assert len(killed) >= 3
    committed = depth_of(qma, queue) + depth_of(qmb, queue)
    assert committed < ROWS
    assert not (tmp_path / "chk" / "commits" / "0").exists()     # killed mid-batch

    assert job_result(start_job(script, [*arguments, 0]))[0] == {"exception": None}
    check_spread([qma, qmb], queue)


@pytest.mark.timeout(600)
def test_a_member_that_dies_fails_the_query_naming_it_and_the_restart_writes_each_row_once(
        tmp_path, monkeypatch):
    """QMB ends itself at its first commit that stores anything (a chunk and its marker:
    stored, so back after its restart); the task waits no time for it (reconnectTimeoutMs 0)
    and the query fails naming QMB. Restarted with QMB back, each row is there once."""
    qma = start(tmp_path, "QMA")
    monkeypatch.setenv("SPARK_MQ_FAULT", "commit-stored:1")
    qmb = start(tmp_path, "QMB")
    monkeypatch.delenv("SPARK_MQ_FAULT")
    try:
        script, arguments, queue = stream_setup(tmp_path, [qma, qmb], reconnectTimeoutMs=0)
        result, output = job_result(start_job(script, [*arguments, 0]))
        assert result["exception"], output[-3000:]
        task_errors = [line for line in output.splitlines()
                       if "MQConnectorError: writing partition" in line]
        assert task_errors, output[-3000:]
        assert all("the connection to queue manager QMB at " in line for line in task_errors)
        wait_for(lambda: not qmb.running, what="QMB reaped")
        qmb.start()
        assert job_result(start_job(script, [*arguments, 0]))[0] == {"exception": None}
        check_spread([qma, qmb], queue)
    finally:
        for manager in (qma, qmb):
            manager.stop()
