"""The trace-context plumbing without Spark: the column plan, the OpenTelemetry guard, and
(where opentelemetry-sdk is installed, as the `test` extra installs it) a batch's span
around its puts to a real queue manager."""
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



@pytest.fixture
def recorded():
    """The spans this process records from here on (opentelemetry-sdk's in-memory exporter
    on the global tracer provider, which batch_span uses; set once per process)."""
    sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry import trace
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    provider = trace.get_tracer_provider()
    if not isinstance(provider, sdk_trace.TracerProvider):
        provider = sdk_trace.TracerProvider()
        trace.set_tracer_provider(provider)
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield exporter
    exporter.shutdown()   # a shut-down exporter takes no more spans


def _write_in_span(qm, queue: str, rows) -> object:
    from spark_mq.mq.producer import ProducerSettings
    from spark_mq.mq.sink import write_rows
    from spark_mq.options import parse_connection
    from support import mq_options
    plan = MessagePlan([Column("payload", "binary"), Column("traceparent", "string")])
    with batch_span(f"send {queue}", {"messaging.system": "ibmmq",
                                      "messaging.destination.name": queue}) as span:
        result = write_rows(rows, plan, parse_connection(mq_options(qm)), ProducerSettings(),
                            queue, commit_every=10)
        span.set_attribute("messaging.batch.message_count", result.messages)
    return span


def test_a_batch_is_one_span_around_its_puts_and_the_columns_trace_goes_on(qm, conn, make_queue,
                                                                           recorded):
    from support import drain
    queue = make_queue()
    span = _write_in_span(qm, queue, iter([(b"traced", PARENT), (b"plain", None)]))
    [finished] = recorded.get_finished_spans()
    assert finished.name == f"send {queue}" and finished.status.is_ok
    assert finished.context.span_id == span.get_span_context().span_id
    assert dict(finished.attributes) == {"messaging.system": "ibmmq",
                                         "messaging.destination.name": queue,
                                         "messaging.batch.message_count": 2}
    found = {body: props.get("traceparent") for _md, body, props in drain(conn, queue)}
    assert found == {b"traced": PARENT, b"plain": None}


def test_a_batch_that_fails_ends_its_span_with_the_error(qm, make_queue, recorded):
    def rows():
        yield (b"first", None)
        raise RuntimeError("the task's input broke")

    with pytest.raises(RuntimeError):
        _write_in_span(qm, make_queue(), rows())
    [finished] = recorded.get_finished_spans()
    assert not finished.status.is_ok
    assert [event.name for event in finished.events] == ["exception"]
