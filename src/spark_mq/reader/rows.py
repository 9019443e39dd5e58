"""Messages -> the rows Spark gets: the partition that carries a microbatch's messages from
the driver to an executor, and the Arrow record batches made of them."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from pyspark.sql.datasource import InputPartition
from pyspark.sql.types import StructType

from spark_mq.columns import ColumnSpec, Source, plan_columns, to_record_batch
from spark_mq.mq.message import Message

ARROW_CHUNK = 4096  # rows per Arrow record batch handed to Spark


def arrow_schema(schema: StructType) -> Any:
    from pyspark.sql.pandas.types import to_arrow_schema
    return to_arrow_schema(schema, timezone="UTC")


def column_specs(schema: StructType) -> list[ColumnSpec]:
    return plan_columns([(f.name, f.dataType.simpleString()) for f in schema.fields])


class MessagesPartition(InputPartition):
    """A slice of one microbatch's messages, carried from the driver to an executor."""

    def __init__(self, index: int, messages: list[Message], source: Source):
        super().__init__(index)
        self.messages = messages
        self.source = source      # the `queue` and `queue_manager` columns


def record_batches(messages: Sequence[Message], source: Source, specs: Sequence[ColumnSpec],
                   schema: Any) -> Iterator[Any]:
    for i in range(0, len(messages), ARROW_CHUNK):
        yield to_record_batch(messages[i:i + ARROW_CHUNK], source, specs, schema)
