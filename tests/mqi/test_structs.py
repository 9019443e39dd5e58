"""Unit tests for spark_mq.mqi.structs (MQI structure layouts) and spark_mq.mqi.constants."""
from __future__ import annotations

import struct

from spark_mq.mqi.constants import CMQC, REASON_NAMES, reason_name
from spark_mq.mqi.structs import MD, MD_V1_SIZE, OD, SIMPLE, Layout, text


def test_reason_names_come_from_cmqc():
    assert REASON_NAMES[CMQC.MQRC_SELECTOR_SYNTAX_ERROR] == "MQRC_SELECTOR_SYNTAX_ERROR"
    assert reason_name(CMQC.MQRC_NONE) == "MQRC_NONE"


def test_unknown_reason_is_named_by_its_number():
    unknown = max(REASON_NAMES) + 1
    assert reason_name(unknown) == f"MQRC_{unknown}"


def test_offsets_include_alignment_padding():
    layout = Layout("A:b B:i C:q")
    assert layout.names == ["A", "B", "C"]
    assert layout.offsets == {"A": 0, "B": 4, "C": 8}
    assert layout.size == struct.calcsize("biq") == 16
    assert layout.index == {"A": 0, "B": 1, "C": 2}


def test_md_version_1_ends_before_group_id():
    assert MD_V1_SIZE == MD.offsets["GroupId"] == 324
    assert MD.offsets["MsgId"] == 48 and MD.offsets["CorrelId"] == 72


def test_pack_unpack_and_get_round_trip():
    values = MD.unpack(bytes(MD.size))          # every field zero, of its own type
    values[MD.index["StrucId"]] = CMQC.MQMD_STRUC_ID
    values[MD.index["Format"]] = CMQC.MQFMT_STRING
    values[MD.index["Priority"]] = 7
    data = MD.pack(values)
    assert len(data) == MD.size
    assert MD.unpack(data) == values
    assert MD.get(data, "Priority") == 7
    assert text(MD.get(data, "Format")) == "MQSTR"
    assert SIMPLE.unpack(SIMPLE.pack((b"DMHO", 1, 0)) + b"ignored") == [b"DMHO", 1, 0]


def test_text_stops_at_nul_and_strips_blanks():
    assert text(b"QM1   \0garbage") == "QM1"
    assert text(b"  DEV.QUEUE.1  ") == "DEV.QUEUE.1"
    assert text(b"\0" * 48) == ""
    assert text(OD.get(bytes(OD.size), "ObjectName")) == ""
