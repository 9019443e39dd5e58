"""The fuzz lane: every parser a peer's bytes reach, fed random, valid and mutated input
(tests/fuzz/targets.py), must answer or fail with its own documented error; anything else
(an IndexError, a RecursionError, a MemoryError under conftest's cap, a hang past the
deadline) fails the test with the input that caused it."""
from __future__ import annotations

from hypothesis import given

from fuzz.targets import (
    Chain,
    check_convert,
    check_end_frame,
    check_frame,
    check_hello,
    check_message_frame,
    check_mqsc,
    check_pcf,
    check_request,
    check_rfh2,
    check_stored_record,
    check_unwrap,
    check_wire_record,
    decoded_requests,
    end_frames,
    frame_bodies,
    header_chains,
    hellos,
    message_frames,
    mqsc_texts,
    pcf_messages,
    requests,
    rfh2_data,
    stored_records,
    transmission_data,
    wire_records,
)
from spark_mq.embedded import wire


@given(frame_bodies)
def test_wire_decoder_answers_or_raises_protocol_error(body: bytes) -> None:
    check_frame(body)


@given(decoded_requests)
def test_request_check_answers_or_raises_protocol_error(value: object) -> None:
    check_request(value)


@given(requests)
def test_wire_round_trips_every_request(request: list) -> None:
    assert wire.decode(wire.encode(request)) == _as_lists(request)


@given(mqsc_texts)
def test_mqsc_parser_answers_or_raises_mqsc_error(text: str) -> None:
    check_mqsc(text)


@given(pcf_messages)
def test_pcf_parser_answers_or_raises_pcf_error(data: bytes) -> None:
    check_pcf(data)


@given(rfh2_data)
def test_rfh2_decoder_answers_or_raises_property_error(data: bytes) -> None:
    check_rfh2(data)


@given(header_chains())
def test_convert_answers_an_mq_reason_for_any_header_chain(chain: Chain) -> None:
    check_convert(chain)


@given(hellos)
def test_channel_hello_check_answers_or_raises_protocol_error(args: list) -> None:
    check_hello(args)


@given(message_frames)
def test_channel_message_check_answers_or_raises_protocol_error(value: list) -> None:
    check_message_frame(value)


@given(end_frames)
def test_channel_batch_end_check_answers_or_raises_protocol_error(value: list) -> None:
    check_end_frame(value)


@given(wire_records)
def test_a_hello_answers_sync_record_parses_or_raises_value_error(value: object) -> None:
    check_wire_record(value)


@given(stored_records)
def test_a_stored_sync_record_parses_or_raises_value_error(data: bytes) -> None:
    check_stored_record(data)


@given(transmission_data)
def test_unwrap_answers_none_or_a_packable_mqmd(data: bytes) -> None:
    check_unwrap(data)


def _as_lists(value: object) -> object:
    if isinstance(value, (list, tuple)):
        return [_as_lists(item) for item in value]
    return value
