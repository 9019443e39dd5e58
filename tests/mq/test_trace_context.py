"""The trace-context plumbing without Spark: the column plan and the OpenTelemetry guard
(opentelemetry is an optional extra the suite does not install)."""
from __future__ import annotations

import sys

import pytest

from spark_mq.mq.outgoing import Column, ColumnError, MessagePlan
from spark_mq.mq.trace_context import batch_span, trace_property

PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def test_without_opentelemetry_a_batch_span_is_nothing(monkeypatch):
    monkeypatch.setitem(sys.modules, "opentelemetry", None)   # import now raises ImportError
    with batch_span("send Q1", {"messaging.system": "ibmmq"}) as span:
        assert span is None


def test_the_trace_column_wins_over_the_map_and_a_null_keeps_the_map_entry():
    plan = MessagePlan([Column("payload", "binary"), Column("properties", "map<string,string>"),
                        Column("traceparent", "string")])
    written = plan.message((b"x", [("traceparent", "from-map"), ("k", "v")], PARENT))
    assert {name: value for name, value, _ in written.properties} == {
        "traceparent": PARENT, "k": "v"}
    kept = plan.message((b"x", [("traceparent", "from-map")], None))
    assert [(name, value) for name, value, _ in kept.properties] == [("traceparent", "from-map")]


def test_a_null_trace_column_sets_no_property():
    plan = MessagePlan([Column("payload", "binary"), Column("tracestate", "string")])
    assert plan.message((b"x", None)).properties == []


def test_a_trace_column_that_is_not_a_string_fails_naming_it_and_the_valid_type():
    with pytest.raises(ColumnError, match=r"column 'traceparent' has type binary; valid types: string"):
        MessagePlan([Column("payload", "binary"), Column("traceparent", "binary")])


def test_a_bytes_property_reads_as_its_text():
    assert trace_property({"traceparent": PARENT.encode()}, "traceparent") == PARENT
    assert trace_property({}, "tracestate") is None

