"""Unit tests of the MQSC parser for namelists (DEFINE/ALTER/DELETE/DISPLAY NAMELIST, typed
by admin/named_object_mqsc.py)."""
from __future__ import annotations

import pytest

from spark_mq.embedded.server.core.mqsc_command import MQSCCommand
from support import mqsc_error as error
from support import mqsc_one as one


def test_define_namelist_types_names_and_keeps_quoted_case():
    cmd = one("DEF NL(MY.LIST) NAMES(a, 'Bb', c) DESCR('My list') NLTYPE(Q) REPLACE")
    assert cmd == MQSCCommand("DEFINE", "NAMELIST", "MY.LIST",
                              {"NAMES": ["A", "Bb", "C"], "DESCR": "My list", "NLTYPE": "QUEUE"},
                              frozenset({"REPLACE"}), 1)


def test_empty_names_is_an_empty_list():
    assert one("ALTER NAMELIST(MY.LIST) NAMES()").attributes == {"NAMES": []}


def test_display_takes_a_generic_name_and_requested_attributes():
    cmd = one("DIS NL(MY.*) NAMES NAMCOUNT")
    assert (cmd.verb, cmd.name, cmd.flags) == ("DISPLAY", "MY.*", frozenset({"NAMES", "NAMCOUNT"}))


@pytest.mark.parametrize("text, attribute", [
    ("DEFINE NAMELIST(L) TARGET(X)", "TARGET"),
    ("DELETE NAMELIST(L) NAMES(A)", "NAMES"),
    ("DEFINE NAMELIST(L) NLTYPE(WRONG)", "NLTYPE"),
    ("DEFINE NAMELIST(L) NAMES(" + "X" * 49 + ")", "NAMES"),
    ("DEFINE NAMELIST(L) NAMES(" + ",".join(f"N{i}" for i in range(257)) + ")", "NAMES"),
])
def test_invalid_attributes_are_refused(text, attribute):
    assert error(text).attribute == attribute


def test_a_namelist_needs_a_valid_name():
    assert "needs a name" in str(error("DEFINE NAMELIST DESCR('x')"))
    assert "not valid" in str(error("DEFINE NAMELIST(A*) DESCR('x')"))
