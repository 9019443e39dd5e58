"""What the fuzz lane found, each as a regular test: the input, shrunk to what matters, and
the documented answer it must now get."""
from __future__ import annotations

import struct
import time
import tracemalloc

import pytest

from spark_mq.embedded import wire
from spark_mq.embedded.server.admin.command_server import pcf
from spark_mq.embedded.server.core.convert import MAX_HEADERS, convert_message
from spark_mq.mqi.constants import CMQC, CMQCFC
from spark_mq.mqi.structs import MDE, RFH2

COMMAND = struct.pack("=9i", CMQCFC.MQCFT_COMMAND, CMQCFC.MQCFH_STRUC_LENGTH, 1, CMQCFC.MQCMD_INQUIRE_Q,
                      1, CMQCFC.MQCFC_LAST, 0, 0, 1)
GROUP = struct.pack("=4i", CMQCFC.MQCFT_GROUP, CMQCFC.MQCFGR_STRUC_LENGTH, CMQCFC.MQGACF_Q_STATISTICS_DATA, 1)
INTEGER = struct.pack("=4i", CMQCFC.MQCFT_INTEGER, CMQCFC.MQCFIN_STRUC_LENGTH, CMQC.MQIA_Q_TYPE, 1)


def parse(data: bytes) -> list[pcf.Parameter]:
    return pcf.parse_parameters(data, pcf.parse_header(data).parameter_count)


# --- PCF ---------------------------------------------------------------------------------
def test_pcf_groups_nested_thousands_deep_are_a_pcf_error_not_a_recursion_error():
    # found: 5000 nested MQCFGRs (80 KB) ended the parse in RecursionError
    with pytest.raises(pcf.PCFError) as refused:
        parse(COMMAND + GROUP * 5000 + INTEGER)
    assert refused.value.reason == CMQCFC.MQRCCF_CFGR_PARM_COUNT_ERROR


def test_pcf_groups_nested_as_deep_as_allowed_still_parse():
    parameters = parse(COMMAND + GROUP * pcf.MAX_GROUP_DEPTH + INTEGER)
    for _ in range(pcf.MAX_GROUP_DEPTH):
        (parameters,) = [parameters[0].members]
    assert parameters[0].value == 1


def test_pcf_string_list_of_two_billion_empty_strings_is_a_count_error_at_once():
    # found: a 24-byte MQCFSL (Count 2**31-1, StringLength 0) built a list of 2**31 items:
    # a MemoryError after 20 s under a 2 GiB cap, the machine's memory without one
    cfsl = struct.pack("=6i", CMQCFC.MQCFT_STRING_LIST, CMQCFC.MQCFSL_STRUC_LENGTH_FIXED,
                       CMQCFC.MQCACF_Q_NAMES, 1208, 2**31 - 1, 0)
    start = time.monotonic()
    with pytest.raises(pcf.PCFError) as refused:
        parse(COMMAND + cfsl)
    assert refused.value.reason == CMQCFC.MQRCCF_CFSL_COUNT_ERROR
    assert time.monotonic() - start < 1


def test_pcf_string_list_of_a_few_empty_strings_still_parses():
    cfsl = struct.pack("=6i", CMQCFC.MQCFT_STRING_LIST, 28, CMQCFC.MQCACF_Q_NAMES, 1208, 3, 0) + b"\0" * 4
    assert parse(COMMAND + cfsl)[0].value == [b"", b"", b""]


# --- the wire codec ----------------------------------------------------------------------
def empty_lists(count: int) -> bytes:
    return b"l" + struct.pack("<I", count) + b"l\0\0\0\0" * count


def test_a_frame_of_millions_of_empty_lists_stops_at_the_element_bound_in_little_memory():
    # the probe's frame: 29 MiB of empty lists, +446 MiB once decoded
    body = empty_lists(6_000_000)
    tracemalloc.start()
    try:
        with pytest.raises(wire.ProtocolError, match="more values than allowed"):
            wire.decode(body, 1 << 18)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 40 * 1024 * 1024, peak


def test_the_element_bound_counts_nested_values_too():
    nested = b"l\2\0\0\0" + empty_lists(3) + empty_lists(3)   # 2 + 2 * 3 values
    assert wire.decode(nested, 8) == [[[], [], []], [[], [], []]]
    with pytest.raises(wire.ProtocolError):
        wire.decode(nested, 7)


def test_a_batch_answer_claiming_more_items_than_it_holds_is_refused_before_any_is_read():
    frame = struct.pack("<ciiI", b"n", 0, 0, 10_000) + b"\0" * 600
    with pytest.raises(wire.ProtocolError, match="batch count"):
        wire.decode(frame)


# --- MQGMO_CONVERT -----------------------------------------------------------------------
@pytest.mark.parametrize("layout", ["RFH2", "MDE"])
def test_a_chain_of_hundreds_of_headers_converts_or_answers_a_reason(layout):
    if layout == "RFH2":
        header = struct.pack("<" + RFH2.struct.format, b"RFH ", 2, 36, 546, 1208,
                             CMQC.MQFMT_RF_HEADER_2, 0, 1208)
        fmt = CMQC.MQFMT_RF_HEADER_2
    else:
        header = struct.pack("<" + MDE.struct.format, b"MDE ", 2, 72, 546, 1208,
                             CMQC.MQFMT_MD_EXTENSION, 0, b"\0" * 24, 1, 0, 0, -1)
        fmt = CMQC.MQFMT_MD_EXTENSION
    # past MAX_HEADERS the rest of the chain is answered MQRC_NOT_CONVERTED (the headers
    # before it converted, each describing what follows it, as MQ leaves a partial conversion)
    converted = convert_message(header * 400 + b"data", fmt, 1208, 546, 1208, 273)
    assert converted.reason == CMQC.MQRC_NOT_CONVERTED
    assert converted.data.endswith(header * (400 - MAX_HEADERS) + b"data")
    shorter = convert_message(header * 50 + b"data", fmt, 1208, 546, 1208, 273)
    assert shorter.reason in (0, CMQC.MQRC_FORMAT_ERROR) and shorter.encoding == 273


# --- the same inputs as an attacker sends them: on the command queue -----------------------
@pytest.mark.parametrize("parameters, reason", [
    (GROUP * 5000 + INTEGER, CMQCFC.MQRCCF_CFGR_PARM_COUNT_ERROR),
    (struct.pack("=6i", CMQCFC.MQCFT_STRING_LIST, CMQCFC.MQCFSL_STRUC_LENGTH_FIXED,
                 CMQCFC.MQCACF_Q_NAMES, 1208, 2**31 - 1, 0), CMQCFC.MQRCCF_CFSL_COUNT_ERROR),
], ids=["nested-groups", "empty-string-list"])
def test_the_command_server_answers_the_pcf_error_for_a_hostile_request(make_queue, conn, parameters,
                                                                           reason):
    import ibmmq
    reply_queue = make_queue()
    md = ibmmq.MD(Format=CMQC.MQFMT_ADMIN, MsgType=CMQC.MQMT_REQUEST, ReplyToQ=reply_queue.encode())
    conn.put1("SYSTEM.ADMIN.COMMAND.QUEUE", COMMAND + parameters, md)
    queue = ibmmq.Queue(conn, reply_queue, CMQC.MQOO_INPUT_SHARED)
    try:
        reply = queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=10000))
    finally:
        queue.close()
    answer = ibmmq.CFH()
    answer.unpack(reply[:CMQCFC.MQCFH_STRUC_LENGTH])
    assert (answer.CompCode, answer.Reason) == (CMQC.MQCC_FAILED, reason)
