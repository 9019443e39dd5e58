"""W3C trace context through the connector: the `traceparent` and `tracestate` columns, and a
span per written batch where OpenTelemetry is installed.

IBM's ibmmq package (2.0.2+, ibmmq/mqotel.py) carries OpenTelemetry trace context in two
message properties named as the W3C headers, `traceparent` and `tracestate` (usr folder,
MQTYPE_STRING). The reader fills the columns of those names from them (null where a message
has none) and the writer sets them from the columns, so a queue -> Spark -> queue pipeline
keeps a message's trace. A null column sets no property: an empty or null `traceparent` is
not a valid W3C header, and IBM's own code leaves the property out rather than send one.
The names are matched exactly, as IBM's code does (a `TraceParent` property is not trace
context).

OpenTelemetry is an optional extra (`pip install spark-mq[otel]`): without it `batch_span`
is a no-op, and nothing here imports it until a batch is written.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any

TRACEPARENT = "traceparent"
TRACESTATE = "tracestate"
TRACE_PROPERTIES = (TRACEPARENT, TRACESTATE)
TRACER_NAME = "spark_mq"


def trace_property(properties: Mapping[str, Any], name: str) -> str | None:
    """The trace property `name` of a message as text; None where it has none."""
    value = properties.get(name)
    if value is None:
        return None
    if isinstance(value, (bytes, bytearray)):
        # a sender that wrote it as bytes still meant the header's text
        return bytes(value).decode("utf-8", "replace")
    return str(value)


def _tracer() -> Any | None:
    try:
        import opentelemetry.trace as otel_trace
    except ImportError:
        return None
    return otel_trace.get_tracer(TRACER_NAME)


@contextlib.contextmanager
def batch_span(name: str, attributes: Mapping[str, Any]) -> Iterator[Any | None]:
    """A span around one written batch (a Spark task's rows) when OpenTelemetry is
    importable (the current span while the batch is put); yields the span, or None when
    OpenTelemetry is not installed."""
    tracer = _tracer()
    if tracer is None:
        yield None
        return
    with tracer.start_as_current_span(name, attributes=dict(attributes)) as span:
        yield span
