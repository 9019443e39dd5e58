"""Unit tests of the MQSC parser for process definitions (DEFINE/ALTER/DELETE/DISPLAY
PROCESS, typed by admin/named_object_mqsc.py): every refusal names the keyword, the bad value and what
is valid."""
from __future__ import annotations

import pytest

from spark_mq.embedded.server.core.mqsc_command import MQSCCommand
from support import mqsc_error as error
from support import mqsc_one as one


def test_define_process_types_its_attributes_and_keeps_quoted_case():
    cmd = one("DEF PRO(RUN.JOB) APPLICID('/opt/jobs/run.sh --queue IN') APPLTYPE(unix) "
              "ENVRDATA('&') USERDATA(folded) DESCR('My job') REPLACE")
    assert cmd == MQSCCommand("DEFINE", "PROCESS", "RUN.JOB", {
        "APPLICID": "/opt/jobs/run.sh --queue IN", "APPLTYPE": "UNIX", "ENVRDATA": "&",
        "USERDATA": "FOLDED", "DESCR": "My job"}, frozenset({"REPLACE"}), 1)


@pytest.mark.parametrize("written, kept", [("DEF", "UNIX"), ("WINDOWSNT", "WINDOWSNT"),
                                           ("6", "UNIX"), ("65536", "65536")])
def test_appltype_keywords_and_numbers(written, kept):
    assert one(f"ALTER PROCESS(P) APPLTYPE({written})").attributes == {"APPLTYPE": kept}


def test_display_takes_a_generic_name_and_requested_attributes():
    cmd = one("DIS PROCESS(RUN.*) APPLICID")
    assert (cmd.verb, cmd.name, cmd.flags) == ("DISPLAY", "RUN.*", frozenset({"APPLICID"}))


@pytest.mark.parametrize("text, attribute, said", [
    ("DEFINE PROCESS(P) TARGET(X)", "TARGET", "valid: APPLICID, APPLTYPE, DESCR, ENVRDATA, LIKE"),
    ("DELETE PROCESS(P) APPLICID(X)", "APPLICID", "valid: none"),
    ("ALTER PROCESS(P) LIKE(X)", "LIKE", "valid: APPLICID"),
    ("DEFINE PROCESS(P) APPLTYPE(BEOS)", "APPLTYPE", "value 'BEOS' is not valid (valid: DEF, UNIX"),
    ("DEFINE PROCESS(P) APPLTYPE(70000000000)", "APPLTYPE", "or a user type 65536 to 999999999"),
    ("DEFINE PROCESS(P) APPLICID('" + "x" * 257 + "')", "APPLICID", "at most 256 characters"),
    ("DEFINE PROCESS(P) ENVRDATA('" + "x" * 129 + "')", "ENVRDATA", "at most 128 characters"),
    ("DEFINE PROCESS(P) APPLICID", "APPLICID", "needs a value"),
])
def test_invalid_attributes_are_refused_naming_what_is_valid(text, attribute, said):
    refused = error(text)
    assert refused.attribute == attribute and said in str(refused)


def test_a_process_needs_a_valid_name():
    assert "needs a name" in str(error("DEFINE PROCESS APPLICID('x')"))
    assert "process name 'A*' is not valid" in str(error("DEFINE PROCESS(A*) APPLICID('x')"))
    assert "not valid (valid: DEFINE, ALTER, DELETE, DISPLAY)" in str(error("CLEAR PROCESS(P)"))
