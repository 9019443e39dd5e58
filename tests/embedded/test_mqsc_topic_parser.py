"""Unit tests of the MQSC parser for topics (DEFINE/ALTER/DELETE/DISPLAY TOPIC, typed by
pubsub/topic_attributes.py) and of the topic-string matching the subscriptions use."""
from __future__ import annotations

import pytest

from spark_mq.embedded.server.core.mqsc_command import MQSCCommand
from spark_mq.embedded.server.core.pubsub.topic_attributes import (
    BASE_TOPIC_ATTRIBUTES,
    TOPIC_ATTRIBUTES,
    default_topic_attributes,
)
from spark_mq.embedded.server.core.pubsub.topic_matching import compile_pattern, fixed_prefix
from support import mqsc_error as error
from support import mqsc_one as one


def test_define_topic_keeps_quoted_topic_string_case():
    cmd = one("DEFINE TOPIC('DEV.BASE.TOPIC') TOPICSTR('dev/') REPLACE")
    assert cmd == MQSCCommand("DEFINE", "TOPIC", "DEV.BASE.TOPIC", {"TOPICSTR": "dev/"},
                              frozenset({"REPLACE"}), 1)


def test_define_topic_typed_attributes():
    cmd = one("DEF TOPIC(prices) TOPICSTR('Price/Fruit') DEFPSIST(yes) DEFPRTY(5) PUB(DISABLED) "
              "SUB(ASPARENT) DURSUB(NO) MDURMDL(MY.MODEL) NPMSGDLV(ALL) CLUSTER(C1)")
    assert cmd.name == "PRICES"
    assert cmd.attributes == {"TOPICSTR": "Price/Fruit", "DEFPSIST": "YES", "DEFPRTY": 5,
                              "PUB": "DISABLED", "SUB": "ASPARENT", "DURSUB": "NO",
                              "MDURMDL": "MY.MODEL", "NPMSGDLV": "ALL", "CLUSTER": "C1"}


def test_defprty_asparent_is_a_keyword():
    assert one("ALTER TOPIC(T) DEFPRTY(ASPARENT)").attributes == {"DEFPRTY": -2}


@pytest.mark.parametrize("text, attribute", [
    ("DEFINE TOPIC(T) DEFPSIST(YES)", "TOPICSTR"),          # required on DEFINE
    ("DEFINE TOPIC(T) TOPICSTR('a') DEFPSIST(MAYBE)", "DEFPSIST"),
    ("DEFINE TOPIC(T) TOPICSTR('a') DEFPRTY(10)", "DEFPRTY"),
    ("DEFINE TOPIC(T) TOPICSTR('a') NOSUCH(1)", "NOSUCH"),
    ("DEFINE TOPIC(T) TOPICSTR('a') PUB", "PUB"),          # needs a value
    ("ALTER TOPIC(T) TOPICSTR('b')", "TOPICSTR"),          # not alterable
    ("DELETE TOPIC(T) DEFPSIST(YES)", "DEFPSIST"),
    ("DEFINE TOPIC(T) TOPICSTR('a') TOPICSTR('b')", "TOPICSTR"),
])
def test_topic_errors_name_the_attribute(text, attribute):
    assert error(text).attribute == attribute


def test_topic_name_rules():
    assert "not valid" in error("DEFINE TOPIC('bad name') TOPICSTR('a')").message
    assert "topic object name" in error("DEFINE TOPIC TOPICSTR('a')").message
    assert one("DISPLAY TOPIC(DEV.*) ALL") == MQSCCommand("DISPLAY", "TOPIC", "DEV.*", {},
                                                          frozenset({"ALL"}), 1)
    assert error("DEFINE TOPIC(T) TOPICSTR('a') REPLACE NOREPLACE").attribute == "NOREPLACE"


def test_sub_and_tpstatus_keep_their_text():
    sub = one("DEFINE SUB('My Sub') TOPICSTR('a/#') DEST(Q1) DESTCLAS(PROVIDED)")
    assert (sub.object_type, sub.name, sub.attributes["TOPICSTR"]) == ("SUB", "My Sub", "a/#")
    status = one("DISPLAY TPSTATUS('price/+') ALL")
    assert (status.object_type, status.name) == ("TPSTATUS", "price/+")


def test_attribute_tables():
    assert set(default_topic_attributes()) == set(TOPIC_ATTRIBUTES)
    assert default_topic_attributes()["DEFPSIST"] == "ASPARENT"
    # SYSTEM.BASE.TOPIC has a real value for every inherited attribute
    assert all(BASE_TOPIC_ATTRIBUTES[key] not in ("ASPARENT", -2) for key in BASE_TOPIC_ATTRIBUTES)


@pytest.mark.parametrize("pattern, char, topic, expected", [
    ("a/#", False, "a", True), ("a/#", False, "a/b/c", True), ("#", False, "", True),
    ("a/+", False, "a", False), ("a/+", False, "a/", True), ("+/+", False, "a/b", True),
    ("a/#/z", False, "a/z", True), ("a/#/z", False, "a/b/c/z", True), ("a/#/z", False, "a/b", False),
    ("a#", False, "a#", True), ("a#", False, "ab", False),
    ("a/*", True, "a/b/c", True), ("a?c", True, "abc", True), ("a?c", True, "abbc", False),
    ("a%*", True, "a*", True), ("a%*", True, "ab", False), ("a/#", True, "a/#", True),
])
def test_topic_matching(pattern, char, topic, expected):
    assert compile_pattern(pattern, char)(topic) is expected


def test_fixed_prefix_stops_at_the_first_wildcard():
    assert fixed_prefix("a/b/+/c", False) == "a/b"
    assert fixed_prefix("a/b*/c", True) == "a"
    assert fixed_prefix("a/b", False) == "a/b"
