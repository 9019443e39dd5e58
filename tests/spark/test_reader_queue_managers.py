"""The reader option queueManagers: one query over a queue on several real embedded queue
managers (no channels: the queue is simply defined on each), with real Spark. Every message
is counted: each once, each row's `queue_manager` naming where it was, nothing left behind;
through kills of the driver (real processes, as tests/spark/test_reader_exactly_once.py) and
of one member (a fail point ends it at its first commit, and it comes back later)."""
from __future__ import annotations

import collections
import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from channel_topology import connect, start, wait_for
from spark_mq.errors import MQOptionError
from spark_mq.options import ReadOptions
from support import depth, kill_tree, put_messages, run_available_now

_numbers = itertools.count(1)


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """QMA and QMB, each its own process."""
    folder = tmp_path_factory.mktemp("pair")
    managers = {name: start(folder, name) for name in ("QMA", "QMB")}
    yield managers
    for manager in managers.values():
        manager.stop()


def fresh_queue(*managers) -> str:
    name = f"ORDERS.{os.getpid()}.{next(_numbers)}"
    for manager in managers:
        manager.run_mqsc(f"DEFINE QLOCAL({name}) MAXDEPTH(999999) REPLACE")
    return name


def members(*managers) -> str:
    return ",".join(f"{m.name}@{m.conn_name}" for m in managers)


def multi_options(managers, queue: str, **extra) -> dict[str, str]:
    return {"queueManagers": members(*managers), "queue": queue, "transport": "embedded",
            **{k: str(v) for k, v in extra.items()}}


def put(manager, queue: str, prefix: str, count: int, first: int = 0) -> list[str]:
    payloads = [f"{prefix}{n:04d}" for n in range(first, first + count)]
    conn = connect(manager)
    try:
        put_messages(conn, queue, [p.encode() for p in payloads])
    finally:
        conn.disconnect()
    return payloads


def depth_of(manager, queue: str) -> int:
    conn = connect(manager)
    try:
        return depth(conn, queue)
    finally:
        conn.disconnect()


# --- the option --------------------------------------------------------------------------
def test_queue_managers_instead_of_conn_name_and_queue_manager():
    options = ReadOptions.parse({"queueManagers": "QMA@host1(1414), QMB@host2(1415),host3(1415)",
                                 "queue": "ORDERS", "channel": "APP.SVRCONN"})
    found = [(c.queue_manager, c.conn_name, c.channel) for c in options.queue_managers]
    assert found == [("QMA", "host1(1414)", "APP.SVRCONN"),
                     ("QMB", "host2(1415),host3(1415)", "APP.SVRCONN")]
    assert [m.connection.queue_manager for m in options.members()] == ["QMA", "QMB"]
    assert all(not m.queue_managers for m in options.members())


@pytest.mark.parametrize("extra, named", [
    ({"connName": "host(1414)"}, ("'queueManagers'", "'connName'")),
    ({"queueManager": "QM1"}, ("'queueManagers'", "'queueManager'")),
    ({"connName": "host(1414)", "queueManager": "QM1"}, ("'connName' and 'queueManager'",)),
])
def test_queue_managers_beside_conn_name_or_queue_manager_is_an_error_naming_both(extra, named):
    with pytest.raises(MQOptionError) as refused:
        ReadOptions.parse({"queueManagers": "QMA@host(1414)", "queue": "ORDERS", **extra})
    assert all(name in str(refused.value) for name in named)


@pytest.mark.parametrize("value, entry", [
    ("QMA@host(1414),QMB@host", "'QMB@host'"),
    ("QMA@host(1414),,QMB@h(1)", "''"),
    ("QMA@host(port)", "'QMA@host(port)'"),
    ("BAD NAME@h(1)", "'BAD NAME@h(1)'"),
])
def test_a_malformed_entry_is_named_with_the_valid_form(value, entry):
    with pytest.raises(MQOptionError) as refused:
        ReadOptions.parse({"queueManagers": value, "queue": "ORDERS"})
    message = str(refused.value)
    assert f"invalid value {entry}" in message and "NAME@host(port)" in message


def test_a_name_without_an_address_needs_a_ccdt_and_a_name_twice_is_refused():
    with pytest.raises(MQOptionError) as refused:
        ReadOptions.parse({"queueManagers": "QMA@h(1),QMB", "queue": "ORDERS"})
    assert "invalid value 'QMB'" in str(refused.value) and "ccdtUrl" in str(refused.value)
    with pytest.raises(MQOptionError) as refused:
        ReadOptions.parse({"queueManagers": "QMA@h(1),QMA@h(2)", "queue": "ORDERS"})
    assert "QMA is named 2 times" in str(refused.value)


def test_queue_managers_reads_a_queue_not_a_topic():
    with pytest.raises(MQOptionError) as refused:
        ReadOptions.parse({"queueManagers": "QMA@h(1)", "topic": "orders/#"})
    assert "option topic" in str(refused.value)


# --- (a) a batch read --------------------------------------------------------------------
def test_a_batch_read_browses_the_queue_on_every_queue_manager(pair, spark):
    queue = fresh_queue(*pair.values())
    wanted = {"QMA": put(pair["QMA"], queue, "A", 3), "QMB": put(pair["QMB"], queue, "B", 2)}
    rows = (spark.read.format("mq").options(**multi_options(pair.values(), queue)).load()
            .select("queue_manager", "queue", "payload").collect())
    found = collections.defaultdict(list)
    for row in rows:
        assert row.queue == queue
        found[row.queue_manager].append(bytes(row.payload).decode())
    assert {name: sorted(payloads) for name, payloads in found.items()} == wanted
    assert depth_of(pair["QMA"], queue) == 3 and depth_of(pair["QMB"], queue) == 2


def test_a_batch_read_through_a_ccdt_takes_plain_names(pair, spark, tmp_path):
    queue = fresh_queue(*pair.values())
    put(pair["QMA"], queue, "A", 1)
    put(pair["QMB"], queue, "B", 1)
    entries = [{"name": "DEV.APP.SVRCONN", "type": "clientConnection",
                "clientConnection": {"queueManager": m.name, "connection": [
                    {"host": m.conn_name.split("(")[0], "port": int(m.port)}]}}
               for m in pair.values()]
    ccdt = tmp_path / "ccdt.json"
    ccdt.write_text(json.dumps({"channel": entries}))
    options = {"queueManagers": "QMA,QMB", "ccdtUrl": f"file://{ccdt}", "queue": queue,
               "transport": "embedded"}
    rows = spark.read.format("mq").options(**options).load().select("queue_manager", "payload")
    assert sorted((r.queue_manager, bytes(r.payload)) for r in rows.collect()) == [
        ("QMA", b"A0000"), ("QMB", b"B0000")]


def test_a_batch_read_with_a_queue_manager_down_fails_naming_it(tmp_path, pair, spark):
    down = start(tmp_path, "QMD")
    queue = fresh_queue(pair["QMA"], down)
    down.stop()
    options = multi_options([pair["QMA"], down], queue)
    with pytest.raises(Exception) as failed:
        spark.read.format("mq").options(**options).load().collect()
    assert "queue manager QMD" in str(failed.value)

