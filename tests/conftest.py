"""Shared fixtures: a real embedded queue manager process and a real local Spark session."""
from __future__ import annotations

import itertools
import os
import signal
import sys
from pathlib import Path

import pytest

import file_seconds
import jvm_profile
import spark_mq.embedded as embedded

embedded.install()  # before anything imports ibmmq: this test process uses the embedded transport

_queue_numbers = itertools.count(1)


def pytest_xdist_auto_num_workers(config) -> int:
    """`-n auto` (pyproject.toml's addopts): two workers for the whole suite, which keeps 2
    cores busy (its Spark tests compute); three for the fast loop without Spark, whose tests
    wait on queue-manager processes and channels more than they compute (2 cores: 5 min 40 s
    with two workers, 4 min 10 s with three)."""
    return 3 if "not spark" in (config.getoption("markexpr") or "") else 2


def pytest_configure(config):
    """A pytest-xdist worker starts with Ctrl-C (SIGINT) ignored, and every process it starts
    would inherit that; the Ctrl-C tests need what a terminal's shell gives a command."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def qm(tmp_path_factory):
    """One embedded queue manager for the session (its own process, loopback port)."""
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qm1")), name="QM1") as manager:
        yield manager


@pytest.fixture(scope="session")
def ibmmq():
    import ibmmq as module
    return module


@pytest.fixture
def make_queue(qm):
    """make_queue("MAXDEPTH(10)") defines a fresh local queue and returns its name."""
    def make(attributes: str = "", prefix: str = "TEST.Q") -> str:
        name = f"{prefix}.{os.getpid()}.{next(_queue_numbers)}"
        qm.run_mqsc(f"DEFINE QLOCAL({name}) MAXDEPTH(999999999) {attributes} REPLACE")
        return name
    return make


@pytest.fixture
def conn(qm, ibmmq):
    """A client connection to the session queue manager, disconnected afterwards."""
    connection = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    yield connection
    try:
        connection.disconnect()
    except ibmmq.MQMIError:
        pass


@pytest.fixture(scope="session")
def spark():
    """A real local[2] Spark session whose Python workers run this interpreter."""
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession
    session = (SparkSession.builder.master("local[2]").appName("spark-mq-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.driver.memory", "2g")
               .getOrCreate())
    import spark_mq
    spark_mq.register(session)
    yield session
    session.stop()


_SPARK_FOLDERS = ("spark",)


def pytest_collection_modifyitems(config, items):
    """Tests under tests/spark, and every test that uses the Spark session, are `spark`
    tests (modules that start Spark in child processes mark themselves): `pytest -m "not
    spark"` is the fast loop. Then the longest files first (tests/file_seconds.py)."""
    for item in items:
        folder = item.path.parent.name
        if folder in _SPARK_FOLDERS or "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)
    longest_files_first(config, items)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before the first Spark test of this process (and before its fixtures start a Spark
    session), the JVM profile: the fast loop never makes the archive."""
    if item.get_closest_marker("spark"):
        jvm_profile.apply(spark_jvm_cache(item.config))   # at once after the first time


def spark_jvm_cache(config) -> Path:
    """Where the Spark JVM's class-data archive is kept (tests/jvm_profile.py): pytest's cache."""
    if getattr(config, "cache", None) is not None:   # None or absent: -p no:cacheprovider
        return Path(config.cache.mkdir("spark-jvm"))
    return config.rootpath / ".pytest_cache" / "d" / "spark-jvm"


def longest_files_first(config, items) -> None:
    """Each file's tests stay together and in their order; the files go longest first, so
    that the two workers end together (xdist hands files out in this order with
    --no-loadscope-reorder, pyproject.toml's addopts)."""
    seconds = file_seconds.load()
    root = config.rootpath
    spark_files = {item.path for item in items if item.get_closest_marker("spark")}

    def cost(item) -> float:
        path = item.path.relative_to(root).as_posix() if item.path.is_relative_to(root) else ""
        return seconds.get(path, file_seconds.DEFAULT_SECONDS if item.path not in spark_files
                           else file_seconds.DEFAULT_SPARK_SECONDS)
    items.sort(key=lambda item: -cost(item))   # stable: a file's own order is kept
