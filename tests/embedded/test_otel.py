"""IBM's OpenTelemetry instrumentation (ibmmq/mqotel.py, active when `opentelemetry` is
importable) against the embedded queue manager: a put inside a span carries the span's W3C
`traceparent` (and `tracestate`) as message properties, and a get inside a span links the
message's context to that span, as IBM promises against IBM MQ. IBM's code runs unchanged;
the embedded client transport serves the message handles and properties it uses, and on a
PROPCTL(NONE) queue the queue manager gives IBM's handle the properties, as IBM MQ does. The
tests named `test_ibms_*` pin ibmmq 2.1.2's own failures (the same against IBM MQ), which
support.ibm_otel_hooks_off steps around elsewhere. Real
queue-manager process, IBM's `ibmmq` API, an SDK tracer with an in-memory exporter."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
from opentelemetry import trace  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, TraceState  # noqa: E402

IO = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT
pytestmark = pytest.mark.skipif(ibmmq.OTelFunctions.put_trace_before is None,
                                reason="MQIPY_NOOTEL is set: ibmmq did not instrument itself")


@pytest.fixture
def exported():
    exporter = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider.get_tracer(__name__), exporter
    provider.shutdown()


def header(context: SpanContext) -> str:
    """The W3C traceparent of a span context, as IBM's hook writes it."""
    return (f"00-{trace.format_trace_id(context.trace_id)}-"
            f"{trace.format_span_id(context.span_id)}-{int(context.trace_flags):02x}")


def traceparent_of(span) -> str:
    return header(span.get_span_context())


def property_of(conn, queue, name: str):
    handle = ibmmq.MessageHandle(conn)
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_PROPERTIES_IN_HANDLE | CMQC.MQGMO_NO_WAIT,
                    Version=CMQC.MQGMO_VERSION_4, MsgHandle=handle.msg_handle)
    body = queue.get(None, ibmmq.MD(), gmo)
    try:
        return body, handle.properties.get(name)
    finally:
        handle.dlt()


def test_a_put_in_a_span_carries_its_traceparent(conn, make_queue, exported):
    tracer, exporter = exported
    queue = ibmmq.Queue(conn, make_queue(), IO)
    with tracer.start_as_current_span("send") as span:
        queue.put(b"traced")
    assert property_of(conn, queue, "traceparent") == (b"traced", traceparent_of(span))
    assert [s.name for s in exporter.get_finished_spans()] == ["send"]
    queue.close()


def linked_contexts(span) -> list[str]:
    return [header(link.context) for link in span.links]


@pytest.mark.parametrize("propctl, gmo_options", [
    ("COMPAT", 0),                                  # the usr property comes back in an MQRFH2
    ("NONE", 0),                                    # mqotel's own handle gets it
    ("COMPAT", CMQC.MQGMO_NO_PROPERTIES),           # mqotel's own handle gets it
    ("ALL", CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2),
])
def test_a_get_in_a_span_links_the_senders_context(conn, make_queue, exported, propctl,
                                                    gmo_options):
    tracer, exporter = exported
    queue = ibmmq.Queue(conn, make_queue(f"PROPCTL({propctl})"), IO)
    with tracer.start_as_current_span("send") as sender:
        queue.put(b"traced")
    with tracer.start_as_current_span("receive"):
        body = queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=gmo_options | CMQC.MQGMO_NO_WAIT))
    queue.close()
    assert body.endswith(b"traced")
    receive = next(s for s in exporter.get_finished_spans() if s.name == "receive")
    assert linked_contexts(receive) == [traceparent_of(sender)]


def test_a_put_carries_the_spans_tracestate(conn, make_queue, exported):
    tracer, _ = exported
    upstream = SpanContext(trace_id=0x4BF92F3577B34DA6A3CE929D0E0E4736, span_id=0x00F067AA0BA902B7,
                           is_remote=True, trace_flags=TraceFlags(1),
                           trace_state=TraceState([("vendor", "opaque-value")]))
    queue = ibmmq.Queue(conn, make_queue(), IO)
    with tracer.start_as_current_span(
            "send", context=trace.set_span_in_context(NonRecordingSpan(upstream))) as span:
        queue.put(b"traced")
    assert property_of(conn, queue, "tracestate") == (b"traced", "vendor=opaque-value")
    assert span.get_span_context().trace_id == upstream.trace_id
    queue.close()


def test_ibms_put_hook_gives_a_put_outside_any_span_the_last_spans_traceparent(
        conn, make_queue, exported):
    """IBM's hook keeps one message handle per connection for its puts and never clears it;
    an MQPUT leaves a handle's properties as they were (IBM MQ's too): the next put with no
    span carries the last span's context. IBM's, whatever the queue manager; when IBM fixes
    it this fails."""
    tracer, _ = exported
    queue = ibmmq.Queue(conn, make_queue(), IO)
    with tracer.start_as_current_span("send") as span:
        queue.put(b"traced")
    queue.put(b"outside")
    assert property_of(conn, queue, "traceparent")[1] == traceparent_of(span)
    assert property_of(conn, queue, "traceparent") == (b"outside", traceparent_of(span))
    queue.close()


def test_ibms_get_hook_on_an_older_gmo_with_no_properties_gets_the_handle_error(conn, make_queue):
    """IBM's hook asks for MQGMO_PROPERTIES_IN_HANDLE with its own MsgHandle but leaves the
    MQGMO at version 2, where MQ ignores MsgHandle: MQRC_HMSG_ERROR, as from IBM MQ, and the
    message stays. At version 4 the same get works. (IBM's bug: support.ibm_otel_hooks_off.)"""
    queue = ibmmq.Queue(conn, make_queue(), IO)
    queue.put(b"kept")
    older = ibmmq.GMO(Options=CMQC.MQGMO_NO_PROPERTIES, Version=CMQC.MQGMO_VERSION_2)
    with pytest.raises(ibmmq.MQMIError) as excinfo:
        queue.get(None, ibmmq.MD(), older)
    assert excinfo.value.reason == CMQC.MQRC_HMSG_ERROR
    current = ibmmq.GMO(Options=CMQC.MQGMO_NO_PROPERTIES, Version=CMQC.MQGMO_VERSION_4)
    assert queue.get(None, ibmmq.MD(), current) == b"kept"
    queue.close()


def test_ibms_put_hook_fails_on_an_mqhrf2_put_before_the_queue_manager(conn, make_queue):
    """ibmmq 2.1.2's bug, whatever the queue manager: put_trace_before looks for a str in the
    bytes of an MQRFH2 folder. When IBM fixes it this fails: support.ibm_otel_hooks_off goes."""
    queue = ibmmq.Queue(conn, make_queue(), IO | CMQC.MQOO_INQUIRE)
    rfh2 = ibmmq.RFH2(Format=CMQC.MQFMT_STRING)
    rfh2.add_folder(b"<usr><colour>red</colour></usr>")
    with pytest.raises(TypeError) as excinfo:
        queue.put(rfh2.pack() + b"body", ibmmq.MD(Format=CMQC.MQFMT_RF_HEADER_2))
    assert excinfo.traceback[-1].path.name == "mqotel.py"
    assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 0
    queue.close()


def test_ibms_consumer_hook_fails_on_an_mqcb_with_no_properties(conn, make_queue):
    """ibmmq 2.1.2's bug, whatever the queue manager: on MQCB IBM passes the int hconn where
    its hook makes a MessageHandle of a QueueManager. When IBM fixes it this fails."""
    queue = ibmmq.Queue(conn, make_queue(), IO)
    cbd = ibmmq.CBD()
    cbd.CallbackFunction = lambda **_: None
    with pytest.raises(AttributeError) as excinfo:
        queue.cb(operation=CMQC.MQOP_REGISTER, cbd=cbd, md=ibmmq.MD(),
                 gmo=ibmmq.GMO(Options=CMQC.MQGMO_NO_PROPERTIES))
    assert "mqotel.py" in {entry.path.name for entry in excinfo.traceback}
    queue.close()
