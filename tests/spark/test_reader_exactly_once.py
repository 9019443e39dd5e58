"""exactlyOnce under SIGKILL of the driver: a real Spark driver process (its JVM and Python
workers) is killed with SIGKILL at several points and restarted on the same checkpoint;
every message must end up in the file sink exactly once and off the queue."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from crash_driver import Driver
from support import depth, put_messages, reader_options


def _wait_until(condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.05)


def _sink_payloads(spark, out: Path) -> list[str]:
    if not (out / "_spark_metadata").is_dir():
        return []
    return [r.payload for r in spark.read.parquet(str(out)).collect()]


@pytest.mark.timeout(900)
def test_sigkill_at_several_points_loses_and_doubles_nothing(qm, conn, make_queue, spark, tmp_path):
    queue = make_queue()
    total = 240
    expected = [f"m{i:04d}" for i in range(total)]
    put_messages(conn, queue, [p.encode() for p in expected])
    driver = Driver(tmp_path, reader_options(qm, queue, maxMessagesPerTrigger=20,
                                             waitIntervalMs=200))
    try:
        # 1. killed while the first batch is in flight: Spark replays it on restart
        driver.start()
        driver.wait_for(lambda: 0 in driver.offsets())
        assert 0 not in driver.commits()
        driver.kill()
        # the held unit of work is backed out once the queue manager sees the connection go
        _wait_until(lambda: depth(conn, queue) == total)

        # 2. killed right after Spark committed a batch, before MQ did (the next trigger, which
        #    would commit it in MQ, is 15 s after the batch started: a window a loaded machine
        #    cannot miss): the batch's messages are back on the queue, not to be read again
        driver.start(interval="15 seconds")
        driver.wait_for(lambda: len(driver.commits()) >= 2)
        driver.kill()
        in_sink = len(_sink_payloads(spark, driver.out))
        assert in_sink >= 40
        # once the queue manager has seen the connection go, the batch Spark finished is back
        # on the queue as well as in the sink
        _wait_until(lambda: in_sink + depth(conn, queue) > total)

        # 3. killed with a later batch in flight
        driver.start()
        committed = max(driver.commits())
        driver.wait_for(lambda: max(driver.offsets()) > committed
                        and max(driver.offsets()) not in driver.commits())
        driver.kill()

        # 4. Trigger.AvailableNow on the same checkpoint drains the queue
        driver.start(available_now=True, row_sleep=0)
        assert driver.finish() == 0
    finally:
        if driver.process is not None and driver.process.poll() is None:
            driver.kill()
    payloads = _sink_payloads(spark, driver.out)
    assert sorted(payloads) == expected  # each message exactly once
    assert depth(conn, queue) == 0
