"""Spark's reader classes for "mq": the stream reader (offsets tied to syncpoint commits; its
protocol is the docstring of spark_mq.reader.stream) and the batch reader (a browse); with
queueManagers, one stream reader per queue manager under spark_mq.reader.queue_managers."""
from spark_mq.reader.batch import MQBatchReader
from spark_mq.reader.stream import MQStreamReader

__all__ = ["MQBatchReader", "MQStreamReader"]
