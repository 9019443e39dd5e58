"""`ccsid` and `encoding`: one rule for the reader and the writer (no queue manager, no
Spark). Both take a CCSID this process has a code page for and an MQENC value whose integer,
decimal and float parts are MQ's, in decimal or 0x hexadecimal, and refuse the rest with
the same words; the reader's need convert=true; both default to UTF-8 and native."""
from __future__ import annotations

import pytest

from spark_mq.errors import MQOptionError
from spark_mq.mqi.codepages import UTF8
from spark_mq.mqi.constants import CMQC
from spark_mq.options import DEFAULT_CCSID, DEFAULT_ENCODING, ReadOptions, WriteOptions

BASE = {"connName": "localhost(1414)", "queue": "Q1"}


def read(**given: str) -> ReadOptions:
    return ReadOptions.parse({**BASE, "convert": "true", **given})


def write(**given: str) -> WriteOptions:
    return WriteOptions.parse({**BASE, **given}, streaming=True)


@pytest.mark.parametrize("given, ccsid, encoding", [
    ({"ccsid": "500", "encoding": "785"}, 500, 785),
    ({"ccsid": " 1047 ", "encoding": "0x111"}, 1047, 273),
    ({"ccsid": "1200", "encoding": "0"}, 1200, 0),
])
def test_both_sides_take_the_same_values(given, ccsid, encoding):
    reader, writer = read(**given), write(**given)
    assert reader.conversion == (ccsid, encoding)
    assert (writer.ccsid, writer.encoding) == (ccsid, encoding)


@pytest.mark.parametrize("key, value, valid", [
    ("ccsid", "4242", "a CCSID this process has a code page for"),
    ("ccsid", "0", "an integer from 1 to 65535"),
    ("ccsid", "70000", "an integer from 1 to 65535"),
    ("encoding", "7", "its integer part 1 or 2"),
    ("encoding", "0x131", "decimal part 0x10 or 0x20"),     # decimal part 0x30: no such
    ("encoding", "0x911", "float part 0x100 to 0x400"),     # float part 0x900: no such
    ("encoding", "546.0", "546 (native, little-endian)"),
])
def test_both_sides_refuse_the_same_values_with_the_same_words(key, value, valid):
    with pytest.raises(MQOptionError) as on_read:
        read(**{key: value})
    with pytest.raises(MQOptionError) as on_write:
        write(**{key: value})
    assert str(on_read.value) == str(on_write.value)
    assert on_read.value.option == key and on_read.value.value == value
    assert valid in str(on_read.value)


def test_the_readers_need_convert():
    with pytest.raises(MQOptionError, match="option 'encoding'.*convert=true"):
        ReadOptions.parse({**BASE, "encoding": "273"})


def test_one_default():
    assert (DEFAULT_CCSID, DEFAULT_ENCODING) == (UTF8, CMQC.MQENC_NATIVE) == (1208, 546)
    assert (read().ccsid, read().encoding) == (DEFAULT_CCSID, DEFAULT_ENCODING)
    assert (write().ccsid, write().encoding) == (None, None)   # decided per row, see outgoing
