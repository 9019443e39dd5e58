"""A batch read whose queue does not open in the task leaves no connection behind.

spark.read checks the queue on the driver (spark_mq.reader.start, remembered for a minute), and
the task then opens it again to browse. When that second open fails (the queue was deleted in
between, or the user may open it for input, which the check asks, but not browse it), the
task's connection must be disconnected with the error, not left to the garbage collector: the
queue manager counts it (its metrics endpoint's ibmmq_qmgr_connection_count) while the
failure and its traceback are still held, as Spark's worker holds them while it reports them.
The reader is driven here as Spark drives it (MQDataSource.reader, then read in the task),
in this process, so that the count is the task's alone.
"""
from __future__ import annotations

import pytest
from ibmmq import CMQC
from pyspark.sql.datasource import InputPartition
from pyspark.sql.types import BinaryType, StructField, StructType

import spark_mq.embedded as embedded
from spark_mq.errors import MQConnectorError
from spark_mq.source import MQDataSource
from support import connection_count as connections
from support import reader_options


@pytest.fixture(scope="module")
def manager(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qm")), name="QMBATCH",
                                       metrics_port=0) as started:
        yield started


def test_a_queue_gone_since_the_start_check_leaves_no_connection(manager):
    manager.run_mqsc("DEFINE QLOCAL(GOING.Q)")
    schema = StructType([StructField("payload", BinaryType())])
    reader = MQDataSource(reader_options(manager, "GOING.Q")).reader(schema)   # checks: there
    manager.run_mqsc("DELETE QLOCAL(GOING.Q)")
    before = connections(manager)
    with pytest.raises(MQConnectorError) as failure:
        list(reader.read(InputPartition(0)))
    assert failure.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME, failure.value
    assert "GOING.Q" in str(failure.value)
    assert connections(manager) == before


def test_a_batch_read_that_works_disconnects_too(manager):
    manager.run_mqsc("DEFINE QLOCAL(STAYING.Q)")
    schema = StructType([StructField("payload", BinaryType())])
    reader = MQDataSource(reader_options(manager, "STAYING.Q")).reader(schema)
    before = connections(manager)
    assert list(reader.read(InputPartition(0))) == []
    assert connections(manager) == before
