"""Where the writer's rows go (spark_mq.mq.sink decides it once per partition), through the
real writer path into a real embedded queue manager, no Spark: a `queue` option takes every
row whatever its `queue` column says, a `topic` option publishes every row, without an
option each row's columns route it, and a partition without rows opens nothing."""
from __future__ import annotations

import os

import pytest
from ibmmq import CMQC

from spark_mq.mq.exceptions import MQConnectorError
from spark_mq.mq.outgoing import Column, MessagePlan
from spark_mq.mq.producer import ProducerSettings
from spark_mq.mq.sink import Topic, write_rows
from spark_mq.options import parse_connection
from support import drain, mq_options


def plan(*columns: str) -> MessagePlan:
    return MessagePlan([Column("payload", "string"), *(Column(c, "string") for c in columns)])


def bodies(conn, queue: str) -> list[bytes]:
    return [body for _md, body, _props in drain(conn, queue)]


def test_a_queue_option_takes_every_row_whatever_its_queue_column_says(qm, conn, make_queue):
    target, named = make_queue(), make_queue()
    write_rows([("a", named), ("b", None), ("c", named)], plan("queue"),
               parse_connection(mq_options(qm)), ProducerSettings(), target, 10)
    assert bodies(conn, target) == [b"a", b"b", b"c"]
    assert bodies(conn, named) == []


def test_without_an_option_each_row_goes_where_its_columns_say(qm, conn, make_queue):
    one, two = make_queue(), make_queue()
    write_rows([("a", one), ("b", two), ("c", one)], plan("queue"),
               parse_connection(mq_options(qm)), ProducerSettings(), None, 10)
    assert bodies(conn, one) == [b"a", b"c"]
    assert bodies(conn, two) == [b"b"]


def test_a_topic_option_publishes_every_row_not_to_its_queue_column(qm, conn, make_queue):
    subscriber, named = make_queue(), make_queue()
    topic = f"routing/{os.getpid()}/{subscriber}"
    qm.run_mqsc(f"DEFINE SUB({subscriber}.SUB) TOPICSTR('{topic}') DEST({subscriber})")
    write_rows([("a", named), ("b", None)], plan("queue"), parse_connection(mq_options(qm)),
               ProducerSettings(), Topic(topic), 10)
    assert bodies(conn, subscriber) == [b"a", b"b"]
    assert bodies(conn, named) == []


def test_a_partition_without_rows_opens_nothing(qm):
    connection = parse_connection(mq_options(qm))
    missing = f"NO.SUCH.QUEUE.{os.getpid()}"
    assert write_rows([], plan(), connection, ProducerSettings(), missing, 10).rows == 0
    with pytest.raises(MQConnectorError) as failure:
        write_rows([("a",)], plan(), connection, ProducerSettings(), missing, 10)
    assert failure.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
