"""Unit tests for spark_mq.mqi.selector: MQ message selectors, compiled and evaluated."""
from __future__ import annotations

import calendar
import pickle

import pytest

from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.selector import (
    JMS_NAMES,
    MAX_SELECTOR_LENGTH,
    MQMD_FIELDS,
    Selector,
    SelectorError,
    compile_selector,
)

SYNTAX = CMQC.MQRC_SELECTOR_SYNTAX_ERROR
ALWAYS_FALSE = CMQC.MQRC_SELECTOR_ALWAYS_FALSE
TOO_LONG = CMQC.MQRC_SELECTION_STRING_ERROR

CORREL = bytes.fromhex("414d5120514d31202020202020202020" "0102030405060708")
MSGID = bytes(range(1, 25))
NONE_ID = b"\0" * 24

# An MQMD as the embedded queue manager unpacks it: MQCHARn fields are blank-padded bytes.
MQMD = {
    "Root.MQMD.Report": 0, "Root.MQMD.MsgType": 8, "Root.MQMD.Expiry": -1,
    "Root.MQMD.Feedback": 0, "Root.MQMD.Encoding": 546, "Root.MQMD.CodedCharSetId": 1208,
    "Root.MQMD.Format": b"MQSTR   ", "Root.MQMD.Priority": 4, "Root.MQMD.Persistence": 1,
    "Root.MQMD.MsgId": MSGID, "Root.MQMD.CorrelId": CORREL, "Root.MQMD.BackoutCount": 0,
    "Root.MQMD.ReplyToQ": b"REPLY.Q".ljust(48), "Root.MQMD.ReplyToQMgr": b"QM1".ljust(48),
    "Root.MQMD.UserIdentifier": b"alice".ljust(12), "Root.MQMD.AccountingToken": b"\0" * 32,
    "Root.MQMD.ApplIdentityData": b" " * 32, "Root.MQMD.PutApplType": 6,
    "Root.MQMD.PutApplName": b"amqsput".ljust(28), "Root.MQMD.PutDate": b"20240102",
    "Root.MQMD.PutTime": b"03040506", "Root.MQMD.ApplOriginData": b"    ",
    "Root.MQMD.GroupId": NONE_ID, "Root.MQMD.MsgSeqNumber": 1, "Root.MQMD.Offset": 0,
    "Root.MQMD.MsgFlags": 0, "Root.MQMD.OriginalLength": -1,
}
PUT_MS = calendar.timegm((2024, 1, 2, 3, 4, 5)) * 1000 + 60


def lookup_for(props: dict):
    values = {**MQMD, **props}
    return values.get


def evaluate(text: str, props: dict) -> bool:
    return compile_selector(text).matches(lookup_for(props))


CASES = [
    # --- comparison operators on strings, numbers and booleans
    ("colour = 'red'", {"colour": "red"}, True),
    ("colour = 'red'", {"colour": "blue"}, False),
    ("colour <> 'red'", {"colour": "blue"}, True),
    ("colour = 'Red'", {"colour": "red"}, False),
    ("name = 'O''Brien'", {"name": "O'Brien"}, True),
    ("size > 4", {"size": 5}, True),
    ("size >= 5", {"size": 5}, True),
    ("size < 5", {"size": 5}, False),
    ("size <= 5", {"size": 5}, True),
    ("size <> 5", {"size": 5}, False),
    ("4 < size", {"size": 5}, True),
    ("size = other", {"size": 5, "other": 5.0}, True),
    ("price = 5", {"price": 5.0}, True),
    ("price > 4.5", {"price": 5}, True),
    ("ratio = 1e3", {"ratio": 1000}, True),
    ("ratio = 2.0E-2", {"ratio": 0.02}, True),
    ("ratio = 7.", {"ratio": 7}, True),
    ("ratio = .5", {"ratio": 0.5}, True),
    ("n = 0x1F", {"n": 31}, True),
    ("n = 017", {"n": 15}, True),
    ("n = 12L", {"n": 12}, True),
    ("n = -5", {"n": -5}, True),
    ("n = +62", {"n": 62}, True),
    ("flag = TRUE", {"flag": True}, True),
    ("flag = false", {"flag": False}, True),
    ("flag <> TRUE", {"flag": False}, True),
    ("flag", {"flag": True}, True),
    ("NOT flag", {"flag": False}, True),
    ("flag", {"flag": "yes"}, False),
    ("colour = 'red' and size = 5 Or NoT flag", {"colour": "red", "size": 5, "flag": True}, True),
    # --- arithmetic: precedence, associativity, numeric promotion
    ("a + b * 2 = 7", {"a": 1, "b": 3}, True),
    ("(a + b) * 2 = 8", {"a": 1, "b": 3}, True),
    ("a - b - 1 = -3", {"a": 1, "b": 3}, True),
    ("a / b = 2", {"a": 7, "b": 3}, True),
    ("a / b = 2.5", {"a": 5.0, "b": 2}, True),
    ("a / 2 = -3", {"a": -7}, True),
    ("-a = -7", {"a": 7}, True),
    ("- -a = 7", {"a": 7}, True),
    ("a * 2 + 1 > 2 * a", {"a": 3}, True),
    ("a / 0 = 1", {"a": 1}, False),
    ("NOT (a / 0 = 1)", {"a": 1}, False),
    ("a * 2 > 5", {"a": "3"}, False),
    # --- NULL and three-valued logic
    ("missing = 1", {}, False),
    ("NOT (missing = 1)", {}, False),
    ("missing <> 1", {}, False),
    ("missing + 1 = 2", {}, False),
    ("NOT (missing + 1 = 2)", {}, False),
    ("missing = 1 OR size = 5", {"size": 5}, True),
    ("missing = 1 AND size = 5", {"size": 5}, False),
    ("NOT (missing = 1 AND size = 6)", {"size": 5}, True),
    ("NOT (missing = 1 OR size = 6)", {"size": 5}, False),
    ("NOT (missing = 1 OR size = 5)", {"size": 5}, False),
    ("missing IS NULL", {}, True),
    ("missing IS NOT NULL", {}, False),
    ("size IS NOT NULL", {"size": 5}, True),
    ("size IS NULL", {"size": 5}, False),
    ("NOT (missing IS NULL)", {}, False),
    ("missing", {}, False),
    ("NOT missing", {}, False),
    # --- unlike types: UNKNOWN, so neither the test nor its negation selects
    ("colour = 1", {"colour": "1"}, False),
    ("NOT (colour = 1)", {"colour": "1"}, False),
    ("colour <> 1", {"colour": "1"}, False),
    ("flag = 1", {"flag": True}, False),
    ("size = TRUE", {"size": 1}, False),
    ("size > 4", {"size": "5"}, False),
    ("flag > 0", {"flag": True}, False),
    ("blob = 'abc'", {"blob": b"abc"}, False),
    ("colour = other", {"colour": "a", "other": b"a"}, False),
    # --- BETWEEN
    ("size BETWEEN 1 AND 5", {"size": 5}, True),
    ("size BETWEEN 6 AND 9", {"size": 5}, False),
    ("size NOT BETWEEN 6 AND 9", {"size": 5}, True),
    ("size NOT BETWEEN 1 AND 5", {"size": 5}, False),
    ("size BETWEEN 1.5 AND 5.5", {"size": 5}, True),
    ("size BETWEEN 2 * 2 AND 2 + 3", {"size": 5}, True),
    ("missing BETWEEN 1 AND 5", {}, False),
    ("missing NOT BETWEEN 1 AND 5", {}, False),
    ("size BETWEEN lo AND hi", {"size": 5, "lo": 1}, False),           # TRUE AND UNKNOWN
    ("size NOT BETWEEN lo AND hi", {"size": 5, "lo": 6}, True),        # NOT (FALSE AND UNKNOWN)
    ("size BETWEEN 1 AND 5", {"size": "3"}, False),
    ("size NOT BETWEEN 1 AND 5", {"size": "9"}, False),
    # --- IN
    ("country IN ('UK', 'US', 'France')", {"country": "UK"}, True),
    ("country IN ('UK', 'US', 'France')", {"country": "Peru"}, False),
    ("country NOT IN ('UK', 'US', 'France')", {"country": "Peru"}, True),
    ("country NOT IN ('UK', 'US', 'France')", {"country": "UK"}, False),
    ("country IN ('UK')", {}, False),
    ("country NOT IN ('UK')", {}, False),
    ("country IN ('1')", {"country": 1}, False),
    ("country NOT IN ('1')", {"country": 1}, False),
    # --- LIKE, with and without ESCAPE
    ("phone LIKE '12%3'", {"phone": "123"}, True),
    ("phone LIKE '12%3'", {"phone": "12993"}, True),
    ("phone LIKE '12%3'", {"phone": "1234"}, False),
    ("word LIKE 'l_se'", {"word": "lose"}, True),
    ("word LIKE 'l_se'", {"word": "loose"}, False),
    ("word NOT LIKE 'l_se'", {"word": "loose"}, True),
    ("word NOT LIKE 'l_se'", {"word": "lose"}, False),
    ("code LIKE 'a\\_b' ESCAPE '\\'", {"code": "a_b"}, True),
    ("code LIKE 'a\\_b' ESCAPE '\\'", {"code": "axb"}, False),
    ("code LIKE '\\_%' ESCAPE '\\'", {"code": "_foo"}, True),
    ("code LIKE '\\_%' ESCAPE '\\'", {"code": "foo"}, False),
    ("pct LIKE '100!%' ESCAPE '!'", {"pct": "100%"}, True),
    ("pct LIKE '100!%' ESCAPE '!'", {"pct": "1000"}, False),
    ("pct LIKE 'a!!b' escape '!'", {"pct": "a!b"}, True),
    ("word LIKE 'a.c'", {"word": "abc"}, False),
    ("word LIKE '%'", {"word": ""}, True),
    ("word LIKE 'a%b'", {"word": "a\nb"}, True),
    ("word LIKE 'a%'", {}, False),
    ("word NOT LIKE 'a%'", {}, False),
    ("word LIKE '1%'", {"word": 12}, False),
    # --- identifiers
    ("usr.colour = 'red'", {"colour": "red"}, True),
    ("Colour = 'red'", {"colour": "red"}, False),
    ("a.b.c = 1", {"a.b.c": 1}, True),
    ("mq_usr.a.b = 1", {"mq_usr.a.b": 1}, True),
    ("$x_1 = 1", {"$x_1": 1}, True),
    ("größe = 1", {"größe": 1}, True),
    # --- MQMD fields (Root.MQMD.<Field>), text fields compared without their padding
    ("Root.MQMD.Priority > 3", {}, True),
    ("Root.MQMD.Priority = 4 AND Root.MQMD.Persistence = 1", {}, True),
    ("Root.MQMD.MsgType = 8", {}, True),
    ("Root.MQMD.Format = 'MQSTR'", {}, True),
    ("Root.MQMD.ReplyToQ = 'REPLY.Q' AND Root.MQMD.ReplyToQMgr = 'QM1'", {}, True),
    ("Root.MQMD.PutApplName LIKE 'amqs%'", {}, True),
    ("Root.MQMD.UserIdentifier = 'alice'", {"Root.MQMD.UserIdentifier": "alice       "}, True),
    ("Root.MQMD.ApplIdentityData = ''", {}, True),
    ("Root.MQMD.PutDate >= 20240101", {}, False),                     # text, not a number
    ("Root.MQMD.CorrelId = \"0x" + CORREL.hex().upper() + "\"", {}, True),
    ("Root.MQMD.CorrelId = \"0x414d51\"", {}, False),                # lengths must be equal
    ("Root.MQMD.MsgId <> \"0x" + MSGID.hex() + "\"", {}, False),
    ("Root.MQMD.MsgId = \"0x" + MSGID.hex() + "\"",
     {"Root.MQMD.MsgId": bytearray(MSGID)}, True),
    # --- byte strings (the documented myBytes = 0AFC23 examples)
    ('myBytes = "0x0AFC23"', {"myBytes": b"\x0a\xfc\x23"}, True),
    ('myBytes = "0X0afc23"', {"myBytes": b"\x0a\xfc\x23"}, True),
    ('myBytes = "0x0AFC2300"', {"myBytes": b"\x0a\xfc\x23"}, False),
    ('myBytes = "0x000AFC23"', {"myBytes": b"\x0a\xfc\x23"}, False),
    ('myBytes = "0x23FC0A"', {"myBytes": b"\x0a\xfc\x23"}, False),
    ('myBytes <> "0x23FC0A"', {"myBytes": b"\x0a\xfc\x23"}, True),
    ("myBytes = '0x0AFC23'", {"myBytes": b"\x0a\xfc\x23"}, False),
    ("myBytes = 0x0AFC23", {"myBytes": b"\x0a\xfc\x23"}, False),    # a hex *number*
    ('myBytes = "0x0AFC23"', {"myBytes": "\x0a\xfc\x23"}, False),
    # --- JMS header synonyms
    ("JMSPriority = 4", {}, True),
    ("JMSPriority > 5", {}, False),
    ("JMSDeliveryMode = 'PERSISTENT'", {}, True),
    ("JMSDeliveryMode = 'NON_PERSISTENT'", {"Root.MQMD.Persistence": 0}, True),
    ("JMSDeliveryMode = 1", {}, False),
    ("JMSCorrelationID = 'ID:" + CORREL.hex() + "'", {}, True),
    ("JMSCorrelationID = 'ID:" + CORREL.hex().upper() + "'", {}, True),
    ("JMSCorrelationID IN ('ID:" + CORREL.hex().upper() + "')", {}, True),
    ("JMSCorrelationID LIKE 'ID:414d5120%'", {}, True),
    ("JMSCorrelationID IS NULL", {"Root.MQMD.CorrelId": NONE_ID}, True),
    ("JMSMessageID = 'ID:" + MSGID.hex() + "'", {}, True),
    ("JMSTimestamp = " + str(PUT_MS), {}, True),
    ("JMSTimestamp > 0", {"Root.MQMD.PutDate": b"        "}, False),
    ("JMSExpiration = 0", {}, True),
    ("JMSExpiration = " + str(PUT_MS + 60000), {"Root.MQMD.Expiry": 600}, True),
    ("JMSRedelivered = FALSE", {}, True),
    ("JMSRedelivered", {"Root.MQMD.BackoutCount": 2}, True),
    ("JMSXDeliveryCount = 3", {"Root.MQMD.BackoutCount": 2}, True),
    ("JMSReplyTo = 'queue://QM1/REPLY.Q'", {}, True),
    ("JMSReplyTo IS NULL", {"Root.MQMD.ReplyToQ": b" " * 48}, True),
    ("JMSType = 'car'", {"mcd.Type": "car"}, True),
    ("JMSType IS NULL", {}, True),
    ("JMSDestination = 'queue:///Q1'", {"jms.Dst": "queue:///Q1"}, True),
    ("JMSXUserID = 'alice' AND JMSXAppID LIKE 'amqs%'", {}, True),
    ("JMSXGroupSeq = 1", {}, True),
    ("JMSXGroupID IS NULL", {}, True),
    # --- constant parts that leave the selector satisfiable
    ("TRUE <> FALSE", {}, True),
    ("x = 2 OR 1 = 1", {}, True),
    ("x = 1 AND TRUE", {"x": 1}, True),
    ("x = 1 AND (2 > 1)", {"x": 2}, False),
    ("(x = 1 AND TRUE) = TRUE", {"x": 1}, True),
]


@pytest.mark.parametrize("text, props, expected", CASES, ids=[c[0][:60] for c in CASES])
def test_evaluation(text, props, expected):
    assert evaluate(text, props) is expected


ERRORS = [
    # --- malformed selectors: MQRC_SELECTOR_SYNTAX_ERROR at the offending character
    ("colour = ", SYNTAX, 9),
    ("(a = 1", SYNTAX, 6),
    ("a = 1)", SYNTAX, 5),
    ("a = 1 b = 2", SYNTAX, 6),
    ("a = 1 AND", SYNTAX, 9),
    ("f(x) = 1", SYNTAX, 1),
    ("a == 1", SYNTAX, 2),
    ("a != 1", SYNTAX, 2),
    ("a = 1 && b = 2", SYNTAX, 6),
    ("a = 1 || b = 2", SYNTAX, 6),
    ("a = 'abc", SYNTAX, 4),
    ('a = "abc"', SYNTAX, 4),
    ('b = "0xAFC23"', SYNTAX, 4),
    ('b = "0x"', SYNTAX, 4),
    ('b = "0xZZ"', SYNTAX, 4),
    ('b = "0x0A', SYNTAX, 4),
    ("n = 09", SYNTAX, 4),
    ("n = 12abc", SYNTAX, 4),
    ("n = 1.2.3", SYNTAX, 4),
    ("x = 9223372036854775808", SYNTAX, 4),
    ("x = 1e999", SYNTAX, 4),
    ("20 < b < 30", SYNTAX, 7),
    ("a = NULL", SYNTAX, 4),
    ("AND = 1", SYNTAX, 0),
    ("a IS 1", SYNTAX, 5),
    ("a IN (1, 2)", SYNTAX, 6),
    ("a IN ()", SYNTAX, 6),
    ("a IN ('x' 'y')", SYNTAX, 10),
    ("a LIKE 5", SYNTAX, 7),
    ("a LIKE 'x' ESCAPE 'ab'", SYNTAX, 18),
    ("a LIKE 'x\\' ESCAPE '\\'", SYNTAX, 7),
    ("'abc' LIKE 'a%'", SYNTAX, 0),
    ("a + 1 IN ('2')", SYNTAX, 0),
    ("a BETWEEN 1", SYNTAX, 11),
    ("a BETWEEN 'x' AND 2", SYNTAX, 10),
    ("a + 'x' = 1", SYNTAX, 4),
    ("'a' < 'b'", SYNTAX, 0),
    ("TRUE > FALSE", SYNTAX, 0),
    ("a > TRUE", SYNTAX, 4),
    ('a >= "0x01"', SYNTAX, 5),
    ("5", SYNTAX, 0),
    ("a + 1", SYNTAX, 0),
    ("a = 1 AND 'x'", SYNTAX, 10),
    ("NOT 5", SYNTAX, 4),
    ("a #= 1", SYNTAX, 2),
    # --- invalid names
    ("a..b = 1", SYNTAX, 2),
    ("a. = 1", SYNTAX, 1),
    (".a = 1", SYNTAX, 0),
    ("JMSFoo = 1", SYNTAX, 0),
    ("x = 1 AND JMS_IBM_Format = 'x'", SYNTAX, 10),
    ("usr.JMSPriority = 1", SYNTAX, 0),
    ("x = 1 AND usr.NULL = 1", SYNTAX, 10),
    ("Root.MQMD.StrucId = 'MD'", SYNTAX, 0),
    ("Root.MQMD.Version = 2", SYNTAX, 0),
    ("Root.MQMD.priority = 1", SYNTAX, 0),
    ("Root.XMLNSC.order.id = 1", SYNTAX, 0),
    ("mq.a.b = 1", SYNTAX, 0),
    # --- provably never TRUE before any message is seen: MQRC_SELECTOR_ALWAYS_FALSE
    ("1 = 2", ALWAYS_FALSE, 0),
    ("'a' = 'b'", ALWAYS_FALSE, 0),
    ("FALSE", ALWAYS_FALSE, 0),
    ("NOT TRUE", ALWAYS_FALSE, 0),
    ("1 + 1 = 3", ALWAYS_FALSE, 0),
    ("1 / 0 = 1", ALWAYS_FALSE, 0),
    ("'a' = 1", ALWAYS_FALSE, 0),
    ("1 IS NULL", ALWAYS_FALSE, 0),
    ("TRUE = FALSE OR 2 < 1", ALWAYS_FALSE, 0),
    ("x = 1 AND 1 = 2", ALWAYS_FALSE, 10),
    ("x = 1 AND 'a' = 1", ALWAYS_FALSE, 10),
    ("x = 1 AND NOT (2 = 2)", ALWAYS_FALSE, 10),
    ("(x = 1 OR 1 = 2) AND 2 < 1", ALWAYS_FALSE, 21),
    ("(x = 1 OR y = 2) AND (FALSE OR 3 = 4)", ALWAYS_FALSE, 22),
]


@pytest.mark.parametrize("text, reason, position", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(text, reason, position):
    with pytest.raises(SelectorError) as info:
        compile_selector(text)
    assert (info.value.reason, info.value.position) == (reason, position), str(info.value)
    assert isinstance(info.value, Exception)


def test_syntax_error_message_names_position_and_expectation():
    with pytest.raises(SelectorError) as info:
        compile_selector("(a = 1 AND b = 2")
    assert str(info.value).startswith("selector syntax error at position 16: expected ')'")


def test_always_false_message():
    with pytest.raises(SelectorError) as info:
        compile_selector("1 = 2")
    assert "always false" in str(info.value)


def test_length_limit_counts_bytes():
    assert MAX_SELECTOR_LENGTH == CMQC.MQ_SELECTOR_LENGTH == 10240
    head = "a = '"
    fits = head + "x" * (MAX_SELECTOR_LENGTH - len(head) - 1) + "'"
    assert len(fits.encode()) == MAX_SELECTOR_LENGTH
    assert compile_selector(fits).matches({"a": "x" * (MAX_SELECTOR_LENGTH - 6)}.get)

    with pytest.raises(SelectorError) as info:
        compile_selector(head + "x" * MAX_SELECTOR_LENGTH + "'")
    assert (info.value.reason, info.value.position) == (TOO_LONG, MAX_SELECTOR_LENGTH)

    # two-byte characters: 5 + 2 * 5118 bytes pass the limit at character 5 + 5117
    with pytest.raises(SelectorError) as info:
        compile_selector(head + "é" * 6000 + "'")
    assert (info.value.reason, info.value.position) == (TOO_LONG, 5122)


def test_empty_selector_selects_everything():
    for text in ("", "   \t\n"):
        selector = compile_selector(text)
        assert selector.always_true and selector.matches(lambda name: None)


def test_constant_true_selector_never_calls_lookup():
    def lookup(name):
        raise AssertionError(name)
    selector = compile_selector("TRUE <> FALSE OR x = 1")
    assert selector.always_true and selector.matches(lookup)


def test_public_attributes_and_names():
    selector = compile_selector("usr.colour = 'red' AND JMSTimestamp > 0 OR Root.MQMD.Priority = 1")
    assert isinstance(selector, Selector)
    assert selector.text == "usr.colour = 'red' AND JMSTimestamp > 0 OR Root.MQMD.Priority = 1"
    assert selector.names == {"colour", "Root.MQMD.PutDate", "Root.MQMD.PutTime",
                              "Root.MQMD.Priority"}
    assert not selector.always_true


def test_lookup_receives_canonical_names_only():
    asked = []

    def lookup(name):
        asked.append(name)
        return MQMD.get(name)
    selector = compile_selector("usr.colour = 'x' OR JMSPriority = 4 OR JMSType = 'a' OR n = 1")
    selector.matches(lookup)
    assert asked == ["colour", "Root.MQMD.Priority"]    # OR stops at the first TRUE


def test_pickle_round_trip():
    selector = pickle.loads(pickle.dumps(compile_selector("size BETWEEN 1 AND 5")))
    assert selector.matches({"size": 3}.get) and not selector.matches({"size": 7}.get)


def test_mqmd_and_jms_name_tables():
    for field in ("Priority", "Persistence", "MsgId", "CorrelId", "MsgType", "Expiry", "Feedback",
                  "Encoding", "CodedCharSetId", "Format", "BackoutCount", "ReplyToQ",
                  "ReplyToQMgr", "UserIdentifier", "ApplIdentityData", "PutApplType",
                  "PutApplName", "PutDate", "PutTime", "ApplOriginData", "GroupId",
                  "MsgSeqNumber", "Offset", "MsgFlags", "OriginalLength", "AccountingToken",
                  "Report"):
        assert field in MQMD_FIELDS
        compile_selector(f"Root.MQMD.{field} IS NULL")
    assert "StrucId" not in MQMD_FIELDS and "Version" not in MQMD_FIELDS
    assert isinstance(MQMD_FIELDS, tuple)
    for name in JMS_NAMES:
        compile_selector(f"{name} IS NOT NULL")


def test_min_long_literal_is_allowed_negated():
    assert evaluate("x = -9223372036854775808", {"x": -2 ** 63})


def test_whitespace_kinds_and_keyword_case():
    assert evaluate("a\t=\n1\rAnD\fb IS null", {"a": 1})


def test_compiled_selector_is_reusable_across_messages():
    selector = compile_selector("colour = 'red' AND weight > 2.5")
    messages = [{"colour": "red", "weight": 3}, {"colour": "red", "weight": 2},
                {"colour": "blue", "weight": 9}, {"weight": 9}, {"colour": "red", "weight": 2.6}]
    assert [selector.matches(m.get) for m in messages] == [True, False, False, False, True]


def test_selection_string_given_as_utf8_bytes():
    assert compile_selector("colour = 'rød'".encode()).matches({"colour": "rød"}.get)
    assert compile_selector(bytearray(b"  ")).always_true
    with pytest.raises(SelectorError) as info:
        compile_selector(b"colour = '\xff'")
    assert (info.value.reason, info.value.position) == (TOO_LONG, 10)


def test_names_other_modules_import_from_the_selector_package():
    from spark_mq.mqi.selector import MQMD_PREFIX, Lookup, Selector  # noqa: F401
    assert MQMD_PREFIX == "Root.MQMD."
    assert compile_selector("Root.MQMD.Priority > 4").names == {"Root.MQMD.Priority"}
