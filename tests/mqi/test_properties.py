"""Unit tests for spark_mq.mqi.properties (MQ message-property semantics)."""
import math
import struct
import sys
import types

import pytest

from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.properties import (
    MQFMT_RF_HEADER_2,
    RFH2_STRUC_ID,
    Property,
    PropertyError,
    WildcardMatcher,
    coerce_value,
    convert_for_inquiry,
    decode_rfh2,
    encode_rfh2,
    properties_length,
    validate_name,
)


@pytest.fixture(scope="module")
def ibmmq():
    """The ibmmq package, for its own RFH2 class. Its Python layer needs the C extension only to
    import, so a minimal stand-in is installed when nothing has imported ibmmq yet; whatever this
    fixture added to sys.modules / sys.path is removed again so other tests see the session as
    it was."""
    if "ibmmq" in sys.modules:
        yield sys.modules["ibmmq"]
        return
    modules_before, path_before = set(sys.modules), list(sys.path)
    if "ibmmq.ibmmqc" not in sys.modules:
        stub = types.ModuleType("ibmmq.ibmmqc")
        stub.__version__ = "2.1.2"
        stub.__cmdlevel__ = 1001
        stub.__mqbuild__ = "common"
        stub.__strucversions__ = dict(gmo=4, pmo=3, od=4, sts=2, cno=8, csp=3, sco=7, cd=13)
        stub.error = type("error", (Exception,), {})
        stub.MQCBINIT = lambda f: None
        sys.modules["ibmmq.ibmmqc"] = stub
    try:
        import ibmmq as package
        yield package
    finally:
        for name in set(sys.modules) - modules_before:
            del sys.modules[name]
        sys.path[:] = path_before


T = CMQC
NAME_ERR = CMQC.MQRC_PROPERTY_NAME_ERROR
NAME_LEN_ERR = CMQC.MQRC_PROPERTY_NAME_LENGTH_ERR
TYPE_ERR = CMQC.MQRC_PROPERTY_TYPE_ERROR
CONV_ERR = CMQC.MQRC_PROP_CONV_NOT_SUPPORTED
NUMBER_ERR = CMQC.MQRC_PROP_NUMBER_FORMAT_ERROR
RFH_ERR = CMQC.MQRC_RFH_ERROR


def reason_of(fn, *args, **kwargs) -> int:
    with pytest.raises(PropertyError) as info:
        fn(*args, **kwargs)
    return info.value.reason


def same_value(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if type(a) is not type(b) or a != b:
        return False
    return not isinstance(a, float) or math.copysign(1, a) == math.copysign(1, b)  # -0.0 vs 0.0


def roundtrip(props, fmt=CMQC.MQFMT_STRING, body=b"payload"):
    header = encode_rfh2(props, CMQC.MQENC_NATIVE, 1208, fmt)
    return decode_rfh2(header + body)


# --------------------------------------------------------------------------- constants / error

def test_constants():
    assert RFH2_STRUC_ID == b"RFH "
    assert MQFMT_RF_HEADER_2 == b"MQHRF2  "


def test_property_error_carries_reason_and_names_property_and_value():
    prop = Property("colour", T.MQTYPE_STRING, "abc")
    with pytest.raises(PropertyError) as info:
        convert_for_inquiry(prop, T.MQTYPE_INT32, True)
    assert info.value.reason == NUMBER_ERR
    assert "colour" in str(info.value) and "'abc'" in str(info.value)
    assert "MQRC_PROP_NUMBER_FORMAT_ERROR" in str(info.value)
    with pytest.raises(PropertyError) as info:
        coerce_value(T.MQTYPE_INT8, 300, 1, name="small")
    assert info.value.reason == TYPE_ERR and "small" in str(info.value) and "300" in str(info.value)


def test_error_messages_cut_long_values_short():
    with pytest.raises(PropertyError) as info:
        convert_for_inquiry(Property("big", T.MQTYPE_STRING, "x" * 1_000_000), T.MQTYPE_INT32, True)
    assert len(str(info.value)) < 300 and "big" in str(info.value)


# --------------------------------------------------------------------------- names

@pytest.mark.parametrize("name, canonical", [
    ("colour", "colour"),
    ("usr.colour", "colour"),
    ("usr.a.b", "a.b"),
    ("a.b.c", "a.b.c"),
    ("_x", "_x"),
    ("$cost", "$cost"),
    ("x1_2$", "x1_2$"),
    ("größe", "größe"),
    ("名前", "名前"),
    ("Nullable", "Nullable"),      # only the exact keyword is reserved
    ("usr.Incoming", "Incoming"),
    ("Jms", "Jms"),                # the JMS prefix is case-sensitive
    ("jms.Exp", "JMSExpiration"),
    ("jms.Dst", "JMSDestination"),
    ("jms.Pri", "JMSPriority"),
    ("jms.Dlv", "JMSDeliveryMode"),
    ("jms.Cid", "JMSCorrelationID"),
    ("jms.Rto", "JMSReplyTo"),
    ("jms.Tms", "JMSTimestamp"),
    ("jms.Gid", "JMSXGroupID"),
    ("jms.Seq", "JMSXGroupSeq"),
    ("mcd.Type", "JMSType"),
    ("mcd.Msd", "mcd.Msd"),        # no synonym: stays folder-qualified
    ("mqps.Top", "MQTopicString"),
    ("mqps.Sud", "MQSubUserData"),
    ("mqpse.Pts", "MQPubTime"),
    ("mqext.Arm", "mqext.Arm"),
    ("MQTopicString", "MQTopicString"),
    ("MQIsRetained", "MQIsRetained"),
    ("mq_usr.a.b", "mq_usr.a.b"),  # IBM exempts the mq_usr prefix
    ("Root.MQMD.Priority", "Root.MQMD.Priority"),
    ("JMSCorrelationID", "JMSCorrelationID"),
    ("JMSType", "JMSType"),
    ("JMSDeliveryMode", "JMSDeliveryMode"),
    ("JMSExpiration", "JMSExpiration"),
    ("JMSPriority", "JMSPriority"),
    ("JMSTimestamp", "JMSTimestamp"),
    ("JMSReplyTo", "JMSReplyTo"),
    ("JMSDestination", "JMSDestination"),
    ("JMSMessageID", "JMSMessageID"),
    ("JMSRedelivered", "JMSRedelivered"),
    ("JMSXGroupID", "JMSXGroupID"),
    ("JMSXUserID", "JMSXUserID"),
    (b"usr.colour", "colour"),     # ibmmq passes names as bytes
])
def test_valid_names_and_canonical_form(name, canonical):
    assert validate_name(name) == canonical
    assert validate_name(canonical) == canonical  # canonical names are themselves valid and fixed


@pytest.mark.parametrize("name, reason", [
    ("", NAME_LEN_ERR),
    (b"", NAME_LEN_ERR),
    ("x" * 4096, NAME_LEN_ERR),
    (".a", NAME_ERR),
    ("a.", NAME_ERR),
    ("a..b", NAME_ERR),
    (".", NAME_ERR),
    ("1abc", NAME_ERR),
    ("a.1b", NAME_ERR),            # every component becomes an XML element name
    ("a b", NAME_ERR),
    ("a\tb", NAME_ERR),
    ("a=b", NAME_ERR),
    ("a<b", NAME_ERR),
    ("a>b", NAME_ERR),
    ("a-b", NAME_ERR),
    ("a%b", NAME_ERR),
    ("a\x00b", NAME_ERR),
    ("a\U0001F600", NAME_ERR),     # beyond the BMP
    (b"\xff\xfe", NAME_ERR),
    ("JMSFoo", NAME_ERR),
    ("JMS_IBM_Format", NAME_ERR),
    ("usr.JMSType", NAME_ERR),
    ("usr.JMSFoo", NAME_ERR),
    ("usr.jms.Exp", NAME_ERR),     # folder name after usr. is ambiguous
    ("usr.usr.x", NAME_ERR),
    ("mqfoo", NAME_ERR),
    ("MQFoo", NAME_ERR),
    ("mQ", NAME_ERR),
    ("usr.mqfoo", NAME_ERR),
    ("mqps.a.b", NAME_ERR),        # MQ folders take exactly one component
    ("mqfoo.bar", NAME_ERR),
    ("Root", NAME_ERR),
    ("Root.x", NAME_ERR),
    ("Body", NAME_ERR),
    ("Body.x", NAME_ERR),
] + [(kw, NAME_ERR) for kw in ("NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE",
                               "IN", "IS", "ESCAPE", "null", "True", "eScApE", "usr.null",
                               "usr.AND")])
def test_invalid_names(name, reason):
    assert reason_of(validate_name, name) == reason


def test_name_length_limit_is_4095_characters():
    assert validate_name("x" * 4095) == "x" * 4095
    assert validate_name("é" * 4095) == "é" * 4095  # characters, not bytes


# --------------------------------------------------------------------------- coerce_value (MQSETMP)

NT = CMQC.MQVL_NULL_TERMINATED


@pytest.mark.parametrize("type_, value, length, stored", [
    (T.MQTYPE_BOOLEAN, True, 4, True),
    (T.MQTYPE_BOOLEAN, False, NT, False),
    (T.MQTYPE_BOOLEAN, 0, 4, False),
    (T.MQTYPE_BOOLEAN, 7, 4, True),
    (T.MQTYPE_INT8, -128, NT, -128),
    (T.MQTYPE_INT8, 127, 1, 127),
    (T.MQTYPE_INT16, -32768, 2, -32768),
    (T.MQTYPE_INT16, 32767, 2, 32767),
    (T.MQTYPE_INT32, -2**31, 4, -2**31),
    (T.MQTYPE_INT32, 2**31 - 1, 4, 2**31 - 1),
    (T.MQTYPE_INT64, -2**63, 8, -2**63),
    (T.MQTYPE_INT64, 2**63 - 1, 8, 2**63 - 1),
    (T.MQTYPE_INT32, True, 4, 1),
    (T.MQTYPE_FLOAT64, 0.1, 8, 0.1),
    (T.MQTYPE_FLOAT64, 3, 8, 3.0),
    (T.MQTYPE_FLOAT64, -1e308, 8, -1e308),
    (T.MQTYPE_FLOAT32, 0.5, 4, 0.5),
    (T.MQTYPE_FLOAT32, 0.1, 4, struct.unpack("f", struct.pack("f", 0.1))[0]),  # rounded to 32 bits
    (T.MQTYPE_FLOAT32, float("inf"), 4, float("inf")),
    (T.MQTYPE_STRING, "hello", NT, "hello"),
    (T.MQTYPE_STRING, "", NT, ""),
    (T.MQTYPE_STRING, "", CMQC.MQVL_EMPTY_STRING, ""),
    (T.MQTYPE_STRING, "ab\x00cd", NT, "ab"),        # null-terminated stops at the NUL
    (T.MQTYPE_STRING, "ab\x00cd", 5, "ab\x00cd"),   # an explicit length keeps it
    (T.MQTYPE_STRING, "hello", 3, "hel"),
    (T.MQTYPE_STRING, "héllo", 3, "hé"),            # the length counts UTF-8 bytes
    (T.MQTYPE_STRING, "日本\U0001F600", NT, "日本\U0001F600"),
    (T.MQTYPE_STRING, b"bytes", NT, "bytes"),
    (T.MQTYPE_STRING, "h\udcffi", NT, "hi"),         # lone surrogates dropped, as ibmmq does
    (T.MQTYPE_BYTE_STRING, b"\x00\x01\x00", 3, b"\x00\x01\x00"),
    (T.MQTYPE_BYTE_STRING, b"abc", 2, b"ab"),
    (T.MQTYPE_BYTE_STRING, bytearray(b"xy"), 2, b"xy"),
    (T.MQTYPE_BYTE_STRING, b"", 0, b""),
    (T.MQTYPE_NULL, None, 0, None),
    (T.MQTYPE_NULL, "ignored", NT, None),
])
def test_coerce_value_stores(type_, value, length, stored):
    assert same_value(coerce_value(type_, value, length), stored)


@pytest.mark.parametrize("type_, value, length, reason", [
    (T.MQTYPE_AS_SET, 1, 4, TYPE_ERR),
    (3, 1, 4, TYPE_ERR),
    (2048, "x", NT, TYPE_ERR),
    (T.MQTYPE_INT8, 300, 1, TYPE_ERR),
    (T.MQTYPE_INT8, 128, 1, TYPE_ERR),
    (T.MQTYPE_INT8, -129, 1, TYPE_ERR),
    (T.MQTYPE_INT16, 32768, 2, TYPE_ERR),
    (T.MQTYPE_INT32, 2**31, 4, TYPE_ERR),
    (T.MQTYPE_INT64, 2**63, 8, TYPE_ERR),
    (T.MQTYPE_INT64, -2**63 - 1, 8, TYPE_ERR),
    (T.MQTYPE_INT32, 1.5, 4, TYPE_ERR),
    (T.MQTYPE_INT32, "5", 4, TYPE_ERR),
    (T.MQTYPE_INT32, None, 4, TYPE_ERR),
    (T.MQTYPE_BOOLEAN, "true", 4, TYPE_ERR),
    (T.MQTYPE_FLOAT32, 1e39, 4, TYPE_ERR),
    (T.MQTYPE_FLOAT64, 10**400, 8, TYPE_ERR),
    (T.MQTYPE_FLOAT64, "1.0", 8, TYPE_ERR),
    (T.MQTYPE_STRING, 5, NT, TYPE_ERR),
    (T.MQTYPE_STRING, None, NT, TYPE_ERR),
    (T.MQTYPE_STRING, b"\xff\xfe", NT, TYPE_ERR),   # not UTF-8
    (T.MQTYPE_STRING, "é", 1, TYPE_ERR),             # length cuts a character
    (T.MQTYPE_BYTE_STRING, "text", 4, TYPE_ERR),
    (T.MQTYPE_STRING, "abc", 4, CMQC.MQRC_BUFFER_LENGTH_ERROR),   # longer than the value
    (T.MQTYPE_STRING, "abc", -2, CMQC.MQRC_BUFFER_LENGTH_ERROR),
    (T.MQTYPE_BYTE_STRING, b"abc", NT, CMQC.MQRC_BUFFER_LENGTH_ERROR),  # only strings may be NUL-terminated
    (T.MQTYPE_BYTE_STRING, b"abc", 9, CMQC.MQRC_BUFFER_LENGTH_ERROR),
])
def test_coerce_value_rejects(type_, value, length, reason):
    assert reason_of(coerce_value, type_, value, length) == reason


# --------------------------------------------------------------------------- convert_for_inquiry (MQINQMP)

def P(type_, value, name="p"):
    return Property(name, type_, value)


@pytest.mark.parametrize("prop", [
    P(T.MQTYPE_INT32, 5), P(T.MQTYPE_STRING, "x"), P(T.MQTYPE_NULL, None), P(T.MQTYPE_BYTE_STRING, b"\0"),
])
def test_as_set_and_same_type_return_the_stored_value(prop):
    for convert in (False, True):
        assert convert_for_inquiry(prop, T.MQTYPE_AS_SET, convert) == (prop.type, prop.value)
        assert convert_for_inquiry(prop, prop.type, convert) == (prop.type, prop.value)


def test_mqtype_long_is_int32():
    assert convert_for_inquiry(P(T.MQTYPE_INT32, 7), T.MQTYPE_LONG, False) == (T.MQTYPE_INT32, 7)


@pytest.mark.parametrize("prop, requested, result", [
    (P(T.MQTYPE_INT32, 123), T.MQTYPE_STRING, "123"),
    (P(T.MQTYPE_INT8, -5), T.MQTYPE_STRING, "-5"),
    (P(T.MQTYPE_INT64, -2**63), T.MQTYPE_STRING, str(-2**63)),
    (P(T.MQTYPE_INT8, 65), T.MQTYPE_STRING, "65"),   # decimal text, not chr(65)
    (P(T.MQTYPE_INT8, -128), T.MQTYPE_INT16, -128),
    (P(T.MQTYPE_INT8, 5), T.MQTYPE_INT64, 5),
    (P(T.MQTYPE_INT16, 300), T.MQTYPE_INT32, 300),
    (P(T.MQTYPE_INT32, 2**31 - 1), T.MQTYPE_INT64, 2**31 - 1),
    (P(T.MQTYPE_BOOLEAN, True), T.MQTYPE_STRING, "TRUE"),
    (P(T.MQTYPE_BOOLEAN, False), T.MQTYPE_STRING, "FALSE"),
    (P(T.MQTYPE_BOOLEAN, True), T.MQTYPE_INT32, 1),
    (P(T.MQTYPE_BOOLEAN, False), T.MQTYPE_INT8, 0),
    (P(T.MQTYPE_BYTE_STRING, b"\xf1\x12\x00\xff"), T.MQTYPE_STRING, "F11200FF"),
    (P(T.MQTYPE_BYTE_STRING, b""), T.MQTYPE_STRING, ""),
    (P(T.MQTYPE_FLOAT32, 0.5), T.MQTYPE_FLOAT64, 0.5),
    (P(T.MQTYPE_FLOAT64, 1.5), T.MQTYPE_STRING, "1.5"),
    (P(T.MQTYPE_FLOAT32, coerce_value(T.MQTYPE_FLOAT32, 0.1, 4)), T.MQTYPE_STRING, "0.1"),
    (P(T.MQTYPE_STRING, "123"), T.MQTYPE_INT32, 123),
    (P(T.MQTYPE_STRING, "  -42"), T.MQTYPE_INT64, -42),
    (P(T.MQTYPE_STRING, "+7xyz"), T.MQTYPE_INT16, 7),   # conversion stops at the first non-digit
    (P(T.MQTYPE_STRING, "-128"), T.MQTYPE_INT8, -128),
    (P(T.MQTYPE_STRING, "9223372036854775807"), T.MQTYPE_INT64, 2**63 - 1),
    (P(T.MQTYPE_STRING, "1.5e3"), T.MQTYPE_FLOAT64, 1500.0),
    (P(T.MQTYPE_STRING, " -2.25E-1kg"), T.MQTYPE_FLOAT64, -0.225),
    (P(T.MQTYPE_STRING, "0.1"), T.MQTYPE_FLOAT32, struct.unpack("f", struct.pack("f", 0.1))[0]),
    (P(T.MQTYPE_STRING, "3"), T.MQTYPE_FLOAT64, 3.0),
    (P(T.MQTYPE_STRING, "TRUE"), T.MQTYPE_BOOLEAN, True),
    (P(T.MQTYPE_STRING, "true"), T.MQTYPE_BOOLEAN, True),
    (P(T.MQTYPE_STRING, "1"), T.MQTYPE_BOOLEAN, True),
    (P(T.MQTYPE_STRING, "False"), T.MQTYPE_BOOLEAN, False),
    (P(T.MQTYPE_STRING, "0"), T.MQTYPE_BOOLEAN, False),
])
def test_supported_conversions(prop, requested, result):
    assert convert_for_inquiry(prop, requested, True) == (requested, result)
    assert same_value(convert_for_inquiry(prop, requested, True)[1], result)
    # Without MQIMPO_CONVERT_TYPE a different type is a type error.
    assert reason_of(convert_for_inquiry, prop, requested, False) == TYPE_ERR


@pytest.mark.parametrize("prop, requested", [
    (P(T.MQTYPE_STRING, "abc"), T.MQTYPE_INT32),
    (P(T.MQTYPE_STRING, ""), T.MQTYPE_INT32),
    (P(T.MQTYPE_STRING, "   "), T.MQTYPE_INT64),
    (P(T.MQTYPE_STRING, "-"), T.MQTYPE_INT64),
    (P(T.MQTYPE_STRING, "300"), T.MQTYPE_INT8),         # does not fit the requested type
    (P(T.MQTYPE_STRING, "9223372036854775808"), T.MQTYPE_INT64),
    (P(T.MQTYPE_STRING, "x1.0"), T.MQTYPE_FLOAT64),
    (P(T.MQTYPE_STRING, ".5"), T.MQTYPE_FLOAT64),        # digits must come first
    (P(T.MQTYPE_STRING, "1e39"), T.MQTYPE_FLOAT32),
    (P(T.MQTYPE_STRING, "1e999"), T.MQTYPE_FLOAT64),
    (P(T.MQTYPE_STRING, "yes"), T.MQTYPE_BOOLEAN),
    (P(T.MQTYPE_STRING, " TRUE"), T.MQTYPE_BOOLEAN),
])
def test_badly_formatted_strings(prop, requested):
    assert reason_of(convert_for_inquiry, prop, requested, True) == NUMBER_ERR


@pytest.mark.parametrize("prop, requested", [
    (P(T.MQTYPE_INT32, 5), T.MQTYPE_INT16),       # narrowing could lose data
    (P(T.MQTYPE_INT64, 5), T.MQTYPE_INT32),
    (P(T.MQTYPE_INT16, 5), T.MQTYPE_INT8),
    (P(T.MQTYPE_FLOAT64, 0.5), T.MQTYPE_FLOAT32),
    (P(T.MQTYPE_INT32, 5), T.MQTYPE_FLOAT64),
    (P(T.MQTYPE_FLOAT64, 5.0), T.MQTYPE_INT64),
    (P(T.MQTYPE_INT32, 1), T.MQTYPE_BOOLEAN),
    (P(T.MQTYPE_BOOLEAN, True), T.MQTYPE_FLOAT64),
    (P(T.MQTYPE_STRING, "00"), T.MQTYPE_BYTE_STRING),
    (P(T.MQTYPE_BYTE_STRING, b"1"), T.MQTYPE_INT32),
    (P(T.MQTYPE_NULL, None), T.MQTYPE_STRING),
    (P(T.MQTYPE_NULL, None), T.MQTYPE_INT32),
    (P(T.MQTYPE_STRING, "x"), T.MQTYPE_NULL),
])
def test_unsupported_conversions(prop, requested):
    assert reason_of(convert_for_inquiry, prop, requested, True) == CONV_ERR
    assert reason_of(convert_for_inquiry, prop, requested, False) == TYPE_ERR


@pytest.mark.parametrize("requested", [3, 2048, -1])
def test_unknown_requested_type(requested):
    assert reason_of(convert_for_inquiry, P(T.MQTYPE_INT32, 1), requested, True) == TYPE_ERR


# --------------------------------------------------------------------------- wildcards

NAMES = ["colour", "col", "a", "a.b", "a.b.c", "JMSExpiration", "JMSType", "JMSMessageID",
         "MQTopicString", "mcd.Msd", "Root.MQMD.Priority", "abc"]


@pytest.mark.parametrize("pattern, expected", [
    ("%", NAMES),
    ("usr.%", ["colour", "col", "a", "a.b", "a.b.c", "abc"]),
    ("usr.col%", ["colour", "col"]),
    ("col%", ["colour", "col"]),
    ("colour%", ["colour"]),                      # % matches zero characters
    ("a.%", ["a.b", "a.b.c"]),                    # and dots
    ("a%", ["a", "a.b", "a.b.c", "abc"]),
    ("usr.a.b%", ["a.b", "a.b.c"]),
    ("JMS%", ["JMSExpiration", "JMSType", "JMSMessageID"]),
    ("jms.%", ["JMSExpiration"]),
    ("jms.E%", ["JMSExpiration"]),
    ("mcd.%", ["JMSType", "mcd.Msd"]),
    ("mqps.%", ["MQTopicString"]),
    ("MQ%", ["MQTopicString"]),
    ("Root.MQMD.%", ["Root.MQMD.Priority"]),
    ("zzz%", []),
    ("colour", ["colour"]),                       # no wildcard: exact canonical match
    ("usr.colour", ["colour"]),
    ("jms.Exp", ["JMSExpiration"]),
    ("mcd.Type", ["JMSType"]),
])
def test_wildcard_matching(pattern, expected):
    matcher = WildcardMatcher(pattern)
    assert [n for n in NAMES if matcher.matches(n)] == expected


@pytest.mark.parametrize("pattern, reason", [
    ("%a", NAME_ERR), ("a%b", NAME_ERR), ("%%", NAME_ERR), ("usr.%.x", NAME_ERR), ("a%b%", NAME_ERR),
    ("", NAME_LEN_ERR), ("x" * 4096, NAME_LEN_ERR), ("x" * 4095 + "%", NAME_LEN_ERR),
    ("NULL", NAME_ERR), ("a..b", NAME_ERR),
])
def test_wildcard_errors(pattern, reason):
    assert reason_of(WildcardMatcher, pattern) == reason


# --------------------------------------------------------------------------- properties_length

def test_properties_length_counts_name_and_value_bytes():
    props = [
        Property("ab", T.MQTYPE_BOOLEAN, True),        # 2 + 4
        Property("c", T.MQTYPE_INT8, 1),               # 1 + 1
        Property("d", T.MQTYPE_INT16, 1),              # 1 + 2
        Property("e", T.MQTYPE_INT32, 1),              # 1 + 4
        Property("f", T.MQTYPE_INT64, 1),              # 1 + 8
        Property("g", T.MQTYPE_FLOAT32, 1.0),          # 1 + 4
        Property("h", T.MQTYPE_FLOAT64, 1.0),          # 1 + 8
        Property("ié", T.MQTYPE_STRING, "日本"),        # 3 + 6 (UTF-8 bytes)
        Property("j", T.MQTYPE_BYTE_STRING, b"\0\0\0"),  # 1 + 3
        Property("k", T.MQTYPE_NULL, None),            # 1 + 0
        Property("l", T.MQTYPE_STRING, ""),            # 1 + 0
    ]
    assert properties_length(props) == 6 + 2 + 3 + 5 + 9 + 5 + 9 + 9 + 4 + 1 + 1
    assert properties_length([]) == 0


# --------------------------------------------------------------------------- RFH2 round trips

ROUNDTRIP_VALUES = [
    (T.MQTYPE_NULL, None),
    (T.MQTYPE_BOOLEAN, True),
    (T.MQTYPE_BOOLEAN, False),
    (T.MQTYPE_INT8, -128), (T.MQTYPE_INT8, 127), (T.MQTYPE_INT8, 0),
    (T.MQTYPE_INT16, -32768), (T.MQTYPE_INT16, 32767),
    (T.MQTYPE_INT32, -2**31), (T.MQTYPE_INT32, 2**31 - 1), (T.MQTYPE_INT32, -1),
    (T.MQTYPE_INT64, -2**63), (T.MQTYPE_INT64, 2**63 - 1),
    (T.MQTYPE_FLOAT32, coerce_value(T.MQTYPE_FLOAT32, 0.1, 4)),
    (T.MQTYPE_FLOAT32, coerce_value(T.MQTYPE_FLOAT32, -3.4e38, 4)),
    (T.MQTYPE_FLOAT32, coerce_value(T.MQTYPE_FLOAT32, 1e-45, 4)),   # smallest subnormal
    (T.MQTYPE_FLOAT32, float("inf")),
    (T.MQTYPE_FLOAT32, float("nan")),
    (T.MQTYPE_FLOAT64, 0.1), (T.MQTYPE_FLOAT64, -0.0), (T.MQTYPE_FLOAT64, 1.7976931348623157e308),
    (T.MQTYPE_FLOAT64, 5e-324), (T.MQTYPE_FLOAT64, float("-inf")), (T.MQTYPE_FLOAT64, float("nan")),
    (T.MQTYPE_FLOAT64, 1e16),
    (T.MQTYPE_STRING, ""),
    (T.MQTYPE_STRING, " padded  "),
    (T.MQTYPE_STRING, "<tag attr='x'> & \"q\" &amp; ]]>"),
    (T.MQTYPE_STRING, "日本語 ünïcödé \U0001F600"),
    (T.MQTYPE_STRING, "line1\nline2\r\n\ttab\x00nul\x1f\x7f"),
    (T.MQTYPE_BYTE_STRING, b""),
    (T.MQTYPE_BYTE_STRING, b"\x00"),
    (T.MQTYPE_BYTE_STRING, b"\x00\x01\x02\xfe\xff\x00"),
]


@pytest.mark.parametrize("type_, value", ROUNDTRIP_VALUES)
@pytest.mark.parametrize("name", ["p", "grp.sub.p", "JMSCorrelationID", "mcd.Msd"])
def test_rfh2_roundtrip_every_type(name, type_, value):
    props, rest, encoding, ccsid, fmt = roundtrip([Property(name, type_, value)])
    assert len(props) == 1
    assert props[0].name == name and props[0].type == type_
    assert same_value(props[0].value, value)
    assert (rest, encoding, ccsid, fmt) == (b"payload", CMQC.MQENC_NATIVE, 1208, CMQC.MQFMT_STRING)


def test_rfh2_roundtrip_many_properties_keeps_order_within_folders():
    props = [Property(f"p{i}", t, v) for i, (t, v) in enumerate(ROUNDTRIP_VALUES)]
    props += [Property("JMSType", T.MQTYPE_STRING, "t"), Property("JMSExpiration", T.MQTYPE_INT64, 5),
              Property("MQTopicString", T.MQTYPE_STRING, "a/b"), Property("MQPubTime", T.MQTYPE_STRING, "x"),
              Property("mqext.Arm", T.MQTYPE_STRING, "arm"), Property("a.b", T.MQTYPE_INT32, 1),
              Property("a.b.c", T.MQTYPE_INT32, 2)]   # "mixed content" is still representable
    decoded, rest, *_ = roundtrip(props, body=b"")
    assert rest == b""
    assert sorted(p.name for p in decoded) == sorted(p.name for p in props)
    by_name = {p.name: p for p in decoded}
    for prop in props:
        assert by_name[prop.name].type == prop.type
        assert same_value(by_name[prop.name].value, prop.value)
    user = [p.name for p in decoded if p.name.startswith("p")]
    assert user == [p.name for p in props if p.name.startswith("p")]


def test_rfh2_roundtrip_of_coerced_values():
    """What MQSETMP stores is exactly what comes back out of an RFH2."""
    cases = [(T.MQTYPE_FLOAT32, 3.14159), (T.MQTYPE_STRING, "ab\x00cd"), (T.MQTYPE_INT16, -7),
             (T.MQTYPE_BOOLEAN, 5), (T.MQTYPE_BYTE_STRING, b"\x00z")]
    props = [Property(f"v{i}", t, coerce_value(t, v, len(v) if isinstance(v, (str, bytes)) else NT))
             for i, (t, v) in enumerate(cases)]
    decoded, *_ = roundtrip(props)
    assert decoded == props


# --------------------------------------------------------------------------- RFH2 layout

def test_rfh2_header_layout():
    props = [Property("colour", T.MQTYPE_STRING, "red"), Property("JMSType", T.MQTYPE_STRING, "t"),
             Property("JMSPriority", T.MQTYPE_INT32, 4), Property("n", T.MQTYPE_NULL, None)]
    data = encode_rfh2(props, 0x111, 819, b"MQSTR")
    (struc_id, version, struc_len, encoding, ccsid, fmt, flags, nv_ccsid) = struct.unpack(
        "=4s4i8s2i", data[:36])
    assert (struc_id, version, struc_len) == (b"RFH ", 2, len(data))
    assert (encoding, ccsid, fmt, flags, nv_ccsid) == (0x111, 819, b"MQSTR   ", 0, 1208)
    assert len(data) % 4 == 0
    folders, pos = [], 36
    while pos < len(data):
        (n,) = struct.unpack("=i", data[pos:pos + 4])
        assert n % 4 == 0
        folders.append(data[pos + 4:pos + 4 + n])
        pos += 4 + n
    assert pos == len(data)
    assert [f.rstrip(b" ") for f in folders] == [
        b"<mcd><Type>t</Type></mcd>",
        b"<jms><Pri dt='i4'>4</Pri></jms>",
        b"<usr><colour>red</colour><n xsi:nil='true'></n></usr>",
    ]


@pytest.mark.parametrize("type_, value, element", [
    (T.MQTYPE_BOOLEAN, True, b"<x dt='boolean'>1</x>"),
    (T.MQTYPE_BOOLEAN, False, b"<x dt='boolean'>0</x>"),
    (T.MQTYPE_INT8, -1, b"<x dt='i1'>-1</x>"),
    (T.MQTYPE_INT16, 2, b"<x dt='i2'>2</x>"),
    (T.MQTYPE_INT32, 3, b"<x dt='i4'>3</x>"),
    (T.MQTYPE_INT64, 4, b"<x dt='i8'>4</x>"),
    (T.MQTYPE_FLOAT32, 0.5, b"<x dt='r4'>0.5</x>"),
    (T.MQTYPE_FLOAT64, 0.25, b"<x dt='r8'>0.25</x>"),
    (T.MQTYPE_BYTE_STRING, b"\x00\xab", b"<x dt='bin.hex'>00AB</x>"),
    (T.MQTYPE_STRING, "a<&>b", b"<x>a&lt;&amp;&gt;b</x>"),
    (T.MQTYPE_STRING, "", b"<x></x>"),
    (T.MQTYPE_NULL, None, b"<x xsi:nil='true'></x>"),
])
def test_rfh2_element_per_type(type_, value, element):
    data = encode_rfh2([Property("x", type_, value)], CMQC.MQENC_NATIVE, 1208, b"")
    assert data[40:].rstrip(b" ") == b"<usr>" + element + b"</usr>"


def test_rfh2_dotted_names_become_groups():
    data = encode_rfh2([Property("a.b.c", T.MQTYPE_INT32, 1)], CMQC.MQENC_NATIVE, 1208, b"")
    assert data[40:].rstrip(b" ") == b"<usr><a><b><c dt='i4'>1</c></b></a></usr>"


def test_rfh2_without_properties_is_bare_header():
    data = encode_rfh2([], CMQC.MQENC_NATIVE, 1208, CMQC.MQFMT_NONE)
    assert len(data) == 36
    assert decode_rfh2(data) == ([], b"", CMQC.MQENC_NATIVE, 1208, CMQC.MQFMT_NONE)


def test_rfh2_leaves_out_properties_that_live_in_the_mqmd():
    props = [Property("JMSMessageID", T.MQTYPE_STRING, "ID:1"), Property("JMSXUserID", T.MQTYPE_STRING, "me"),
             Property("Root.MQMD.Priority", T.MQTYPE_INT32, 4), Property("keep", T.MQTYPE_INT32, 1)]
    decoded, *_ = roundtrip(props)
    assert decoded == [Property("keep", T.MQTYPE_INT32, 1)]


def test_rfh2_format_too_long():
    with pytest.raises(ValueError):
        encode_rfh2([], CMQC.MQENC_NATIVE, 1208, b"TOOLONGFMT")


# --------------------------------------------------------------------------- interop with ibmmq.RFH2

def test_ibmmq_rfh2_parses_our_header(ibmmq):
    props = [Property("colour", T.MQTYPE_STRING, "red & blue"), Property("n", T.MQTYPE_NULL, None),
             Property("count", T.MQTYPE_INT64, -9), Property("JMSExpiration", T.MQTYPE_INT64, 1000),
             Property("JMSType", T.MQTYPE_STRING, "order"), Property("raw", T.MQTYPE_BYTE_STRING, b"\0\1")]
    data = encode_rfh2(props, CMQC.MQENC_NATIVE, 1208, CMQC.MQFMT_STRING)
    rfh2 = ibmmq.RFH2()
    rfh2.unpack(data + b"the body")
    assert rfh2["StrucLength"] == len(data)
    assert rfh2["Version"] == CMQC.MQRFH_VERSION_2
    assert rfh2["Encoding"] == CMQC.MQENC_NATIVE
    assert rfh2["CodedCharSetId"] == 1208
    assert rfh2["Format"] == CMQC.MQFMT_STRING
    assert rfh2["NameValueCCSID"] == 1208
    assert rfh2.get_folders() == ["mcd", "jms", "usr"]
    assert rfh2["mcd"].rstrip() == b"<mcd><Type>order</Type></mcd>"
    assert rfh2["jms"].rstrip() == b"<jms><Exp dt='i8'>1000</Exp></jms>"
    assert rfh2["usr"].rstrip() == (b"<usr><colour>red &amp; blue</colour><n xsi:nil='true'></n>"
                                    b"<count dt='i8'>-9</count><raw dt='bin.hex'>0001</raw></usr>")
    assert len(rfh2["usr"]) == rfh2["usrLength"] and rfh2["usrLength"] % 4 == 0


def test_we_parse_an_ibmmq_built_header(ibmmq):
    rfh2 = ibmmq.RFH2()
    rfh2["Format"] = CMQC.MQFMT_STRING
    rfh2["CodedCharSetId"] = 1208
    rfh2.add_folder(b"<mcd><Msd>jms_text</Msd></mcd>")
    rfh2.add_folder(b"<jms><Dst>queue:///Q1</Dst><Tms>1700000000000</Tms><Dlv>2</Dlv></jms>")
    rfh2.add_folder(b'<usr><colour>blue</colour><size dt="i4">42</size><ok dt="boolean">true</ok>'
                    b"<nested><deep dt='r8'>2.5</deep></nested></usr>")
    data = rfh2.pack()  # NameValueCCSID left at 0: the queue manager's CCSID
    props, rest, encoding, ccsid, fmt = decode_rfh2(data + b"hello")
    assert props == [
        Property("mcd.Msd", T.MQTYPE_STRING, "jms_text"),
        Property("JMSDestination", T.MQTYPE_STRING, "queue:///Q1"),
        Property("JMSTimestamp", T.MQTYPE_STRING, "1700000000000"),   # no dt: a string
        Property("JMSDeliveryMode", T.MQTYPE_STRING, "2"),
        Property("colour", T.MQTYPE_STRING, "blue"),
        Property("size", T.MQTYPE_INT32, 42),
        Property("ok", T.MQTYPE_BOOLEAN, True),
        Property("nested.deep", T.MQTYPE_FLOAT64, 2.5),
    ]
    assert (rest, encoding, ccsid, fmt) == (b"hello", CMQC.MQENC_NATIVE, 1208, CMQC.MQFMT_STRING)


def test_we_parse_a_big_endian_header(ibmmq):
    folder = b"<usr><n dt='i4'>7</n></usr>"
    header = struct.pack(">4s4i8s2i", b"RFH ", 2, 36 + 4 + len(folder), 0x111, 500, b"MQSTR   ", 0, 1208)
    data = header + struct.pack(">i", len(folder)) + folder + b"rest"
    assert decode_rfh2(data) == ([Property("n", T.MQTYPE_INT32, 7)], b"rest", 0x111, 500, b"MQSTR   ")
    rfh2 = ibmmq.RFH2()
    rfh2.unpack(data)  # ibmmq agrees on the layout
    assert rfh2["usr"] == folder and rfh2["Encoding"] == 0x111


# --------------------------------------------------------------------------- decode details

def rfh2_with(*folders: bytes, nv_ccsid: int = 1208, pad: bool = True) -> bytes:
    body = b""
    for f in folders:
        if pad:
            f += b" " * (-len(f) % 4)
        body += struct.pack("<i", len(f)) + f
    return struct.pack("<4s4i8s2i", b"RFH ", 2, 36 + len(body), 546, 1208, b"MQSTR   ", 0, nv_ccsid) + body


def test_decode_xml_details():
    data = rfh2_with(
        b"<usr><a>&lt;&gt;&amp;&quot;&apos;&#65;&#x42;</a><b/><c xsi:nil=\"true\"/>"
        b"<d dt='int'>-5</d><e dt='date'>2024-01-01</e><f dt='string'> x </f>"
        b"<g dt='bin.hex'>abCD</g><h dt='r4'>Infinity</h><i dt = 'i2' >  12 </i></usr>",
        b"<other><ignored>1</ignored></other>",             # folders that are not properties
        b"<usr>\n  <grp>\n    <x>1</x>\n  </grp>\n</usr>",  # whitespace between elements
        b"",                                                 # empty NameValueData
        b"<usr><a>later</a></usr>\x00\x00",                  # a repeated name: the later one wins
    )
    props, rest, *_ = decode_rfh2(data)
    assert rest == b""
    assert props == [
        Property("b", T.MQTYPE_STRING, ""),
        Property("c", T.MQTYPE_NULL, None),
        Property("d", T.MQTYPE_INT64, -5),          # "int" is treated as i8
        Property("e", T.MQTYPE_STRING, "2024-01-01"),  # unmapped types keep their text
        Property("f", T.MQTYPE_STRING, " x "),       # blanks in a value are significant
        Property("g", T.MQTYPE_BYTE_STRING, b"\xab\xcd"),
        Property("h", T.MQTYPE_FLOAT32, float("inf")),
        Property("i", T.MQTYPE_INT16, 12),
        Property("grp.x", T.MQTYPE_STRING, "1"),
        Property("a", T.MQTYPE_STRING, "later"),
    ]


def test_decode_utf16_name_value_data():
    folder = "<usr><名前>値</名前></usr> ".encode("utf-16-le")  # padded with a UTF-16 blank
    assert len(folder) % 4 == 0
    props, *_ = decode_rfh2(rfh2_with(folder, nv_ccsid=1200))
    assert props == [Property("名前", T.MQTYPE_STRING, "値")]


GOOD = rfh2_with(b"<usr><a>1</a></usr>")


@pytest.mark.parametrize("data", [
    b"",
    b"RFH ",
    GOOD[:35],
    b"XYZ " + GOOD[4:],                                            # StrucId
    GOOD[:4] + struct.pack("<i", 1) + GOOD[8:],                    # version 1
    GOOD[:4] + struct.pack("<i", 3) + GOOD[8:],
    GOOD[:8] + struct.pack("<i", len(GOOD) + 4) + GOOD[12:],       # StrucLength past the data
    GOOD[:8] + struct.pack("<i", 20) + GOOD[12:],                  # StrucLength below 36
    GOOD[:8] + struct.pack("<i", 38) + GOOD[12:],                  # truncated NameValueLength
    GOOD[:36] + struct.pack("<i", -4) + GOOD[40:],                 # negative NameValueLength
    GOOD[:36] + struct.pack("<i", 400) + GOOD[40:],                # NameValueLength past StrucLength
    rfh2_with(b"<usr><a>1</a></usr>", nv_ccsid=500),              # unsupported NameValueCCSID
    rfh2_with(b"<usr><a>\xff</a></usr>"),                          # not UTF-8
    rfh2_with(b"<usr><a>1</a>"),                                   # folder not closed
    rfh2_with(b"<usr><a>1</b></usr>"),                             # mismatched tags
    rfh2_with(b"<usr><a>1</a></usr><usr></usr>"),                  # two folders in one NameValueData
    rfh2_with(b"junk<usr></usr>"),                                 # text outside the folder
    rfh2_with(b"<usr><a>text<b>1</b></a></usr>"),                  # mixed text and elements
    rfh2_with(b"<usr><a x=1>1</a></usr>"),                         # unquoted attribute
    rfh2_with(b"<usr><a>1</a x='1'></usr>"),                       # attribute on an end tag
    rfh2_with(b"<usr><a>1<</a></usr>"),
    rfh2_with(b"<usr><a dt='i1'>300</a></usr>"),                   # out of range for i1
    rfh2_with(b"<usr><a dt='i4'>1.5</a></usr>"),
    rfh2_with(b"<usr><a dt='i4'></a></usr>"),
    rfh2_with(b"<usr><a dt='r8'>abc</a></usr>"),
    rfh2_with(b"<usr><a dt='r4'>1e39</a></usr>"),
    rfh2_with(b"<usr><a dt='boolean'>yes</a></usr>"),
    rfh2_with(b"<usr><a dt='bin.hex'>ABC</a></usr>"),              # odd number of digits
    rfh2_with(b"<usr><a dt='bin.hex'>zz</a></usr>"),
    rfh2_with(b"<usr><a>&#x110000;</a></usr>"),                    # no such character
    rfh2_with(b"<usr><a>1</a></usr>", pad=False)[:-1],            # data cut inside a folder
])
def test_malformed_rfh2(data):
    assert reason_of(decode_rfh2, data) == RFH_ERR


def test_unpadded_folders_and_blank_folders_are_accepted():
    assert (decode_rfh2(rfh2_with(b"<usr><a>1</a></usr>", pad=False))[0]
            == [Property("a", T.MQTYPE_STRING, "1")])
    assert decode_rfh2(rfh2_with(b"    "))[0] == []


def test_decode_rfh2_result_has_named_fields():
    data = encode_rfh2([Property("a", T.MQTYPE_INT32, 1)], 0x111, 819, CMQC.MQFMT_STRING)
    decoded = decode_rfh2(data + b"body")
    assert decoded.properties == [Property("a", T.MQTYPE_INT32, 1)]
    assert (decoded.rest, decoded.encoding, decoded.ccsid, decoded.format) == (
        b"body", 0x111, 819, CMQC.MQFMT_STRING)
