"""Unit tests of the MQSC parser (spark_mq.embedded.server.admin.mqsc), its attribute tables
(mqsc_attributes) and runmqsc's DISPLAY output (runmqsc_layout)."""
from __future__ import annotations

import dataclasses

import pytest

from spark_mq.embedded.server.admin.mqsc import parse_mqsc
from spark_mq.embedded.server.core.mqsc_attributes import (
    DEFAULT_MQSC,
    DEVELOPER_MQSC,
    QMGR_ATTRIBUTES,
    QUEUE_ATTRIBUTES,
    STORED_QMGR_ATTRIBUTES,
    STORED_QUEUE_ATTRIBUTES,
    default_attributes,
)
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand, MQSCError
from spark_mq.embedded.server.core.runmqsc_layout import format_display
from spark_mq.embedded.server.core.security.defaults import DEVELOPER_SECURITY_MQSC, SYSTEM_SECURITY_MQSC
from support import mqsc_error as error
from support import mqsc_one as one

# --- basic shape ------------------------------------------------------------------------

def test_define_qlocal_basic_shape():
    cmd = one("DEFINE QLOCAL(DEV.QUEUE.1) REPLACE")
    assert cmd == MQSCCommand("DEFINE", "QLOCAL", "DEV.QUEUE.1", {}, frozenset({"REPLACE"}), 1)


def test_command_is_frozen():
    cmd = one("DEFINE QLOCAL(A)")
    with pytest.raises(dataclasses.FrozenInstanceError):
        cmd.name = "B"


def test_keywords_are_case_insensitive_and_synonyms_canonical():
    cmd = one("def ql(a) maxdepth(7) defpsist(yes) replace")
    assert (cmd.verb, cmd.object_type, cmd.name) == ("DEFINE", "QLOCAL", "A")
    assert cmd.attributes == {"MAXDEPTH": 7, "DEFPSIST": "YES"}
    assert cmd.flags == {"REPLACE"}
    alias = one("DEF QA(X) TARGQ(dev.queue.1)")
    assert alias.object_type == "QALIAS"
    assert alias.attributes == {"TARGET": "DEV.QUEUE.1"}


def test_blanks_and_commas_separate_parameters():
    cmd = one("ALTER QLOCAL ('Account' ) ,, MAXDEPTH ( 1),DEFPRTY(3)")
    assert cmd.name == "Account"
    assert cmd.attributes == {"MAXDEPTH": 1, "DEFPRTY": 3}


# --- comments, blank lines, line numbers -------------------------------------------------

def test_comments_and_blank_lines_are_ignored_and_lines_counted():
    text = "* a comment\n\n   \n  * indented comment\nDEFINE QLOCAL(A)\n*\nDELETE QLOCAL(A)\n"
    commands = parse_mqsc(text)
    assert [(c.verb, c.line) for c in commands] == [("DEFINE", 5), ("DELETE", 7)]


def test_empty_script_gives_no_commands():
    assert parse_mqsc("* only comments\n\n") == []


# --- continuation ------------------------------------------------------------------------

def test_plus_continuation_strips_next_lines_leading_blanks():
    cmd = one("DEFINE QLOCAL(A) +\n      MAXDEPTH(10) +\n   DESCR('Fr+\n      ed')")
    assert cmd.attributes == {"MAXDEPTH": 10, "DESCR": "Fred"}
    assert cmd.line == 1


def test_minus_continuation_keeps_next_lines_leading_blanks():
    cmd = one("DEFINE QLOCAL(A) DESCR('Fr-\n   ed') -\nMAXDEPTH(3)")
    assert cmd.attributes == {"DESCR": "Fr   ed", "MAXDEPTH": 3}


def test_comment_lines_inside_a_continued_command_are_dropped():
    cmd = one("DEFINE QLOCAL(A) +\n* between\n\n  MAXDEPTH(4)")
    assert cmd.attributes == {"MAXDEPTH": 4}


def test_error_line_points_at_continuation_line():
    err = error("DEFINE QLOCAL(A) +\n  DESCR('ok') +\n  MAXDEPTH(abc)")
    assert err.line == 3 and err.attribute == "MAXDEPTH"


# --- semicolons --------------------------------------------------------------------------

def test_semicolon_terminates_even_after_plus():
    commands = parse_mqsc("DEFINE QLOCAL(A) +\n;\nDEFINE QLOCAL(B);")
    assert [(c.name, c.line) for c in commands] == [("A", 1), ("B", 3)]


def test_semicolons_split_commands_but_not_inside_quotes():
    commands = parse_mqsc("DEFINE QLOCAL(A) DESCR('x;y'); DEFINE QLOCAL(B)")
    assert [c.name for c in commands] == ["A", "B"]
    assert commands[0].attributes["DESCR"] == "x;y"


# --- quoting and case folding ------------------------------------------------------------

def test_unquoted_names_fold_to_upper_case_quoted_keep_case():
    assert one("DEFINE QLOCAL(dev.queue.1)").name == "DEV.QUEUE.1"
    assert one("DEFINE QLOCAL('dev.Queue.1')").name == "dev.Queue.1"


def test_doubled_quote_is_an_escaped_quote():
    cmd = one("DEFINE QLOCAL(A) DESCR('it''s ''quoted''')")
    assert cmd.attributes["DESCR"] == "it's 'quoted'"


def test_unquoted_string_values_fold_quoted_values_keep_case_and_blanks():
    cmd = one("DEFINE QLOCAL(A) DESCR(hello) BOQNAME('my.Backout ')")
    assert cmd.attributes == {"DESCR": "HELLO", "BOQNAME": "my.Backout "}


def test_unterminated_quote_is_an_error():
    err = error("\nDEFINE QLOCAL(A) DESCR('oops)")
    assert err.line == 2
    assert "unterminated quoted string" in str(err)


def test_unbalanced_parentheses_are_errors():
    assert "missing ')'" in str(error("DEFINE QLOCAL(A) MAXDEPTH(5"))
    assert "unexpected )" in str(error("DEFINE QLOCAL(A) MAXDEPTH(5))"))
    assert "unexpected '('" in str(error("DEFINE QLOCAL(A) DESCR((x))"))


# --- typed values -------------------------------------------------------------------------

def test_typed_values_for_every_qlocal_attribute():
    cmd = one(
        "DEFINE QLOCAL(A) DESCR('d') MAXMSGL(1024) MAXDEPTH(0) DEFPSIST(YES) DEFPRTY(9) "
        "MSGDLVSQ(fifo) BOTHRESH(3) BOQNAME(BO.Q) DEFREADA(DISABLED) DEFPRESP(ASYNC) "
        "PROPCTL(V6COMPAT) GET(DISABLED) PUT(ENABLED) DEFSOPT(EXCL) NOSHARE"
    )
    assert cmd.attributes == {
        "DESCR": "d", "MAXMSGL": 1024, "MAXDEPTH": 0, "DEFPSIST": "YES", "DEFPRTY": 9,
        "MSGDLVSQ": "FIFO", "BOTHRESH": 3, "BOQNAME": "BO.Q", "DEFREADA": "DISABLED",
        "DEFPRESP": "ASYNC", "PROPCTL": "V6COMPAT", "GET": "DISABLED", "PUT": "ENABLED",
        "DEFSOPT": "EXCL",
    }
    assert cmd.flags == {"NOSHARE"}


def test_define_qalias_with_target():
    cmd = one("DEFINE QALIAS('ALIAS.1') TARGET('DEV.QUEUE.1') DEFPSIST(NO) PUT(DISABLED)")
    assert cmd.attributes == {"TARGET": "DEV.QUEUE.1", "DEFPSIST": "NO", "PUT": "DISABLED"}


def test_attribute_table_defaults():
    assert QUEUE_ATTRIBUTES["MAXDEPTH"].default == 5000
    assert QUEUE_ATTRIBUTES["MAXMSGL"].allowed == (0, 104857600)
    assert QUEUE_ATTRIBUTES["MSGDLVSQ"].default == "PRIORITY"
    assert QUEUE_ATTRIBUTES["TARGET"].object_types == {"QALIAS"}
    assert default_attributes("QLOCAL") == {
        "DESCR": "", "MAXMSGL": 4194304, "MAXDEPTH": 5000, "DEFPSIST": "NO", "DEFPRTY": 0,
        "MSGDLVSQ": "PRIORITY", "BOTHRESH": 0, "BOQNAME": "", "DEFREADA": "NO",
        "DEFPRESP": "SYNC", "PROPCTL": "COMPAT", "GET": "ENABLED", "PUT": "ENABLED",
        "SHARE": "SHARE", "DEFSOPT": "SHARED", "TRIGGER": "NOTRIGGER", "TRIGTYPE": "FIRST",
        "TRIGDPTH": 1, "TRIGMPRI": 0, "TRIGDATA": "", "PROCESS": "", "INITQ": "",
        "USAGE": "NORMAL", "QDEPTHHI": 80, "QDEPTHLO": 20, "QDPHIEV": "DISABLED",
        "QDPLOEV": "DISABLED", "QDPMAXEV": "ENABLED", "MONQ": "QMGR",
        **stored_defaults("QLOCAL", STORED_QUEUE_ATTRIBUTES),
    }
    assert default_attributes("QREMOTE") == {
        "DESCR": "", "DEFPSIST": "NO", "DEFPRTY": 0, "DEFPRESP": "SYNC", "PUT": "ENABLED",
        "RNAME": "", "RQMNAME": "", "XMITQ": "", "CLUSTER": "", "CLUSNL": "", "CLWLPRTY": 0,
        "CLWLRANK": 0, "SCOPE": "QMGR", "DEFBIND": "OPEN", "CUSTOM": "", "CAPEXPRY": -1}
    assert "MAXDEPTH" not in default_attributes("QA")
    assert default_attributes("QMGR") == {
        "DESCR": "", "DEADQ": "", "MAXMSGL": 4194304, "MAXPROPL": -1, "MAXUMSGS": 10000,
        "MAXHANDS": 256, "TRIGINT": 999999999, "DEFXMITQ": "", "SSLKEYR": "", "CERTLABL": "",
        "CONNAUTH": "", "CHLAUTH": "ENABLED", "PERFMEV": "DISABLED", "CHLEV": "DISABLED", "MONQ": "OFF",
        "CCSID": 1208, **stored_defaults("QMGR", STORED_QMGR_ATTRIBUTES),
    }
    assert default_attributes("QMGR")["STRSTPEV"] == "ENABLED"   # IBM's one event on by default
    assert default_attributes("QLOCAL")["HARDENBO"] == "NOHARDENBO"


def stored_defaults(kind: str, specs: dict) -> dict:
    return {key: spec.default for key, spec in specs.items() if kind in spec.object_types}


# --- validation errors ---------------------------------------------------------------------

def test_non_integer_value_error_names_line_attribute_value_and_range():
    err = error("* header\n\nDEFINE QLOCAL(A) MAXDEPTH(abc)")
    assert (err.line, err.attribute) == (3, "MAXDEPTH")
    assert str(err) == ("MQSC line 3: attribute MAXDEPTH: value 'abc' is not an integer "
                        "(valid: 0 to 999999999)")


def test_integer_out_of_range_error():
    err = error("DEFINE QLOCAL(A) DEFPRTY(10)")
    assert err.attribute == "DEFPRTY"
    assert "value 10 is out of range (valid: 0 to 9)" in str(err)


def test_enum_not_in_list_error_lists_allowed_values():
    err = error("DEFINE QLOCAL(A) DEFPSIST(MAYBE)")
    assert err.attribute == "DEFPSIST"
    assert "value 'MAYBE' is not allowed (valid: NO, YES)" in str(err)


def test_string_too_long_error():
    err = error("DEFINE QLOCAL(A) DESCR('" + "x" * 65 + "')")
    assert err.attribute == "DESCR"
    assert "65 characters long (valid: a string of at most 64 characters)" in str(err)


def test_unknown_attribute_error_lists_valid_ones():
    err = error("DEFINE QLOCAL(A) CLUSTERS(YES)")
    assert err.attribute == "CLUSTERS"
    assert "unknown attribute for QLOCAL" in str(err)
    assert "MAXDEPTH" in str(err) and "REPLACE" in str(err)


def test_attribute_not_valid_for_type_is_an_error():
    err = error("DEFINE QLOCAL(A) TARGET(B)")
    assert err.attribute == "TARGET"
    assert "applies to QALIAS only, not to QLOCAL" in str(err)
    err = error("DEFINE QALIAS(A) TARGET(B) MAXDEPTH(5)")
    assert err.attribute == "MAXDEPTH"
    assert "applies to QLOCAL and QMODEL only, not to QALIAS" in str(err)


def test_repeated_attribute_is_an_error():
    err = error("DEFINE QLOCAL(A) +\n MAXDEPTH(5) maxdepth(6)")
    assert (err.line, err.attribute) == (2, "MAXDEPTH")
    assert "more than once" in str(err)
    assert error("DEFINE QALIAS(A) TARGET(B) TARGQ(C)").attribute == "TARGET"
    assert error("DEFINE QLOCAL(A) REPLACE REPLACE").attribute == "REPLACE"


def test_missing_queue_name_is_an_error():
    for text in ("DEFINE QLOCAL", "ALTER QLOCAL() MAXDEPTH(1)", "DELETE QALIAS", "CLEAR QL"):
        assert "needs a queue name" in str(error(text)), text


def test_invalid_or_generic_queue_name_outside_display_is_an_error():
    assert "not valid" in str(error("DEFINE QLOCAL('has blank')"))
    assert "only on DISPLAY" in str(error("DELETE QLOCAL(DEV.*)"))
    assert "not valid" in str(error("DEFINE QLOCAL(" + "Q" * 49 + ")"))


def test_define_qalias_requires_target():
    err = error("\nDEFINE QALIAS(A)")
    assert (err.line, err.attribute) == (2, "TARGET")
    assert "required on DEFINE QALIAS" in str(err)


def test_attribute_without_value_and_flag_with_value_are_errors():
    err = error("DEFINE QLOCAL(A) MAXDEPTH")
    assert err.attribute == "MAXDEPTH" and "needs a value" in str(err)
    err = error("DEFINE QLOCAL(A) REPLACE(YES)")
    assert err.attribute == "REPLACE" and "takes no value" in str(err)


def test_flags_must_fit_the_verb_and_not_conflict():
    assert error("DEFINE QLOCAL(A) PURGE").attribute == "PURGE"
    assert error("DEFINE QALIAS(A) TARGET(B) NOSHARE").attribute == "NOSHARE"
    err = error("DEFINE QLOCAL(A) REPLACE NOREPLACE")
    assert "cannot both be given" in str(err)


def test_read_only_status_cannot_be_set():
    err = error("ALTER QLOCAL(A) CURDEPTH(3)")
    assert err.attribute == "CURDEPTH" and "read-only" in str(err)


def test_delete_and_clear():
    assert one("DELETE QLOCAL(A) PURGE").flags == {"PURGE"}
    assert one("DELETE QALIAS(A)").object_type == "QALIAS"
    assert one("CLEAR QLOCAL('x')").name == "x"
    err = error("DELETE QLOCAL(A) MAXDEPTH(1)")
    assert err.attribute == "MAXDEPTH" and "not valid on DELETE QLOCAL" in str(err)
    assert "CLEAR is not valid for QALIAS" in str(error("CLEAR QALIAS(A)"))


def test_unknown_verb_is_an_error_listing_valid_commands():
    err = error("DEFNE QLOCAL(A)")
    assert "unknown command 'DEFNE'" in str(err) and "DEFINE" in str(err)


# --- DISPLAY -------------------------------------------------------------------------------

def test_display_generic_names_and_requested_attributes():
    cmd = one("DIS Q(DEV.*) TYPE(QL) CURDEPTH maxdepth TARGQ")
    assert (cmd.verb, cmd.object_type, cmd.name) == ("DISPLAY", "QUEUE", "DEV.*")
    assert cmd.attributes == {"TYPE": "QLOCAL"}
    assert cmd.flags == {"CURDEPTH", "MAXDEPTH", "TARGET"}
    cmd = one("DISPLAY QLOCAL(*) ALL WHERE(curdepth GT 0)")
    assert (cmd.name, cmd.flags, cmd.attributes) == ("*", {"ALL"}, {"WHERE": "CURDEPTH GT 0"})


def test_queue_keyword_only_on_display():
    assert "DEFINE QUEUE is not valid" in str(error("DEFINE QUEUE(A)"))


def test_format_display_mq_style():
    text = format_display("QLOCAL", "DEV.QUEUE.1", {
        "CURDEPTH": 0, "MAXDEPTH": 5000, "DESCR": "", "SHARE": "NOSHARE", "DEFPSIST": "NO",
    })
    assert text.splitlines() == [
        "AMQ8409I: Display Queue details.",
        "   QUEUE(DEV.QUEUE.1)                      TYPE(QLOCAL)",
        "   CURDEPTH(0)                             DEFPSIST(NO)",
        "   DESCR( )                                MAXDEPTH(5000)",
        "   NOSHARE",
    ]


def test_format_display_qmgr_shows_nolimit():
    text = format_display("QMGR", "QM1", {"MAXPROPL": -1})
    assert text.splitlines() == [
        "AMQ8408I: Display Queue Manager details.",
        "   QMNAME(QM1)                             MAXPROPL(NOLIMIT)",
    ]


# --- ALTER QMGR and unmodelled commands ------------------------------------------------------

def test_alter_qmgr_types_modelled_attributes_and_keeps_others_raw():
    cmd = one("ALTER QMGR MAXMSGL(104857600) MAXPROPL(NOLIMIT) MAXUMSGS(500) "
              "CONNAUTH('DEV.AUTHINFO') CHLAUTH(DISABLED)")
    assert cmd.attributes == {
        "MAXMSGL": 104857600, "MAXPROPL": -1, "MAXUMSGS": 500,
        "CONNAUTH": "DEV.AUTHINFO", "CHLAUTH": "DISABLED",
    }
    assert one("ALTER QMGR MAXPROPL(2048)").attributes == {"MAXPROPL": 2048}
    err = error("ALTER QMGR MAXUMSGS(0)")
    assert err.attribute == "MAXUMSGS" and "(valid: 1 to 999999999)" in str(err)
    assert "or NOLIMIT" in str(error("ALTER QMGR MAXPROPL(lots)"))
    assert QMGR_ATTRIBUTES["MAXMSGL"].allowed == (32768, 104857600)


def test_unmodelled_object_types_are_returned_with_raw_attributes():
    script = """\
STOP LISTENER('SYSTEM.LISTENER.TCP.1') IGNSTATE(YES)
DEFINE TOPIC('DEV.BASE.TOPIC') TOPICSTR('dev/') REPLACE
DEFINE AUTHINFO('DEV.AUTHINFO') AUTHTYPE(IDPWOS) CHCKCLNT(REQDADM) ADOPTCTX(YES) REPLACE
REFRESH SECURITY(*) TYPE(CONNAUTH)
DEF CHL('DEV.ADMIN.SVRCONN') CHLTYPE(SVRCONN) REPLACE
SET CHLAUTH('*') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(NOACCESS) DESCR('Back-stop') ACTION(REPLACE)
SET AUTHREC PROFILE('DEV.**') GROUP('mqclient') OBJTYPE(QUEUE) AUTHADD(BROWSE,GET,inq,PUT)
DEFINE QMODEL(MY.MODEL) DEFTYPE(PERMDYN)
DEFINE QREMOTE(R) RNAME(X) RQMNAME(QM2)
START LISTENER('DEV.LISTENER.TCP')
REFRESH SECURITY
"""
    commands = parse_mqsc(script)
    summary = [(c.verb, c.object_type, c.name) for c in commands]
    assert summary == [
        ("STOP", "LISTENER", "SYSTEM.LISTENER.TCP.1"),
        ("DEFINE", "TOPIC", "DEV.BASE.TOPIC"),
        ("DEFINE", "AUTHINFO", "DEV.AUTHINFO"),
        ("REFRESH", "SECURITY", "*"),
        ("DEFINE", "CHANNEL", "DEV.ADMIN.SVRCONN"),
        ("SET", "CHLAUTH", "*"),
        ("SET", "AUTHREC", ""),
        ("DEFINE", "QMODEL", "MY.MODEL"),
        ("DEFINE", "QREMOTE", "R"),
        ("START", "LISTENER", "DEV.LISTENER.TCP"),
        ("REFRESH", "SECURITY", ""),
    ]
    authrec = commands[6]   # security commands are typed (security/mqsc_commands.py)
    assert authrec.attributes == {
        "PROFILE": "DEV.**", "GROUP": "mqclient", "OBJTYPE": "QUEUE",
        "AUTHADD": ["BROWSE", "GET", "INQ", "PUT"],
    }
    assert commands[5].attributes["DESCR"] == "Back-stop"
    assert commands[2].flags == {"REPLACE"}


def test_unmodelled_commands_still_reject_malformed_syntax():
    assert "missing ')'" in str(error("SET CHLAUTH('*' TYPE(BLOCKUSER)"))
    assert "more than once" in str(error("DEFINE CHANNEL(C) CHLTYPE(SVRCONN) CHLTYPE(SDR)"))


def test_end_stops_parsing():
    commands = parse_mqsc("DEFINE QLOCAL(A)\nend\nthis is not MQSC (")
    assert [c.verb for c in commands] == ["DEFINE", "END"]


# --- developer container defaults --------------------------------------------------------------

def test_default_mqsc_defines_the_developer_queues():
    commands = parse_mqsc(DEVELOPER_MQSC)
    queues = [(c.name, c.flags) for c in commands if c.object_type == "QLOCAL"]
    assert queues == [
        ("DEV.QUEUE.1", {"REPLACE"}),
        ("DEV.QUEUE.2", {"REPLACE"}),
        ("DEV.QUEUE.3", {"REPLACE"}),
        ("DEV.DEAD.LETTER.QUEUE", {"REPLACE"}),
    ]
    assert all(c.verb == "DEFINE" for c in commands if c.object_type == "QLOCAL")
    channel = next(c for c in commands if c.object_type == "CHANNEL")
    assert channel.name == "DEV.APP.SVRCONN"
    assert channel.attributes["CHLTYPE"] == "SVRCONN"
    dlq = next(c for c in commands if c.object_type == "QMGR")
    assert dlq.attributes == {"DEADQ": "DEV.DEAD.LETTER.QUEUE"}
    models = [(c.name, c.flags) for c in commands if c.object_type == "QMODEL"]
    assert models == [("DEV.APP.MODEL.QUEUE", {"REPLACE"})]  # mq-dev-patterns' reply queues


def test_default_mqsc_is_the_system_security_then_the_developer_objects():
    # the system queues are not MQSC: system_queues.py defines them (test_system_queues.py)
    assert DEFAULT_MQSC.startswith(SYSTEM_SECURITY_MQSC) and DEVELOPER_MQSC in DEFAULT_MQSC
    # each followed by its security definitions (security/defaults.py)
    assert DEFAULT_MQSC.endswith(DEVELOPER_SECURITY_MQSC)
    assert DEFAULT_MQSC.index(SYSTEM_SECURITY_MQSC) < DEFAULT_MQSC.index(DEVELOPER_MQSC)


# --- model queues ------------------------------------------------------------------------------

def test_define_qmodel_takes_local_queue_attributes_and_deftype():
    command = one("DEF QM(REPLY.MODEL) DEFTYPE(permdyn) MAXDEPTH(10) DEFPSIST(YES) SHARE "
                  "DESCR('replies') REPLACE")
    assert (command.verb, command.object_type, command.name) == ("DEFINE", "QMODEL", "REPLY.MODEL")
    assert command.attributes == {"DEFTYPE": "PERMDYN", "MAXDEPTH": 10, "DEFPSIST": "YES",
                                  "DESCR": "replies"}
    assert command.flags == {"SHARE", "REPLACE"}
    assert one("ALTER QMODEL(M) DEFTYPE(TEMPDYN) NOSHARE").flags == {"NOSHARE"}
    assert one("DELETE QMODEL(M)").attributes == {}
    assert one("DISPLAY QMODEL(SYSTEM.*) DEFTYPE").flags == {"DEFTYPE"}


def test_qmodel_rejects_what_model_queues_do_not_have():
    err = error("DEFINE QMODEL(M) DEFTYPE(SHAREDYN)")
    assert err.attribute == "DEFTYPE" and "(valid: TEMPDYN, PERMDYN)" in str(err)
    err = error("DEFINE QMODEL(M) TARGET(Q)")
    assert err.attribute == "TARGET" and "applies to QALIAS only, not to QMODEL" in str(err)
    err = error("DEFINE QLOCAL(L) DEFTYPE(PERMDYN)")  # a local queue's DEFTYPE is what it was made as
    assert err.attribute == "DEFTYPE" and "applies to QMODEL only, not to QLOCAL" in str(err)
    assert "CLEAR is not valid for QMODEL" in str(error("CLEAR QMODEL(M)"))
    assert "unknown keyword for DELETE QMODEL" in str(error("DELETE QMODEL(M) PURGE"))


def test_qmodel_defaults_are_the_default_model_queues():
    defaults = default_attributes("QMODEL")
    assert defaults["DEFTYPE"] == "TEMPDYN"
    assert (defaults["DEFSOPT"], defaults["SHARE"]) == ("EXCL", "NOSHARE")
    assert defaults["MAXDEPTH"] == 5000 and defaults["DEFPSIST"] == "NO"
    assert "DEFTYPE" not in default_attributes("QLOCAL")
    assert (default_attributes("QL")["DEFSOPT"], default_attributes("QL")["SHARE"]) == ("SHARED", "SHARE")


def test_unknown_bare_keyword_and_multi_value_errors():
    err = error("DEFINE QLOCAL(A) FOO")
    assert err.attribute == "FOO" and "unknown keyword for DEFINE QLOCAL" in str(err)
    err = error("DEFINE QLOCAL(A) DESCR(two words)")
    assert err.attribute == "DESCR" and "expected one value, got (two words)" in str(err)


# --- trigger attributes ------------------------------------------------------------------

def test_trigger_keywords_on_local_and_model_queues():
    cmd = one("DEFINE QLOCAL(T) TRIGGER TRIGTYPE(depth) TRIGDPTH(5) TRIGMPRI(3) "
              "TRIGDATA('some data') PROCESS(MY.PROC) INITQ(MY.INITQ)")
    assert cmd.flags == {"TRIGGER"}
    assert cmd.attributes == {"TRIGTYPE": "DEPTH", "TRIGDPTH": 5, "TRIGMPRI": 3,
                              "TRIGDATA": "some data", "PROCESS": "MY.PROC", "INITQ": "MY.INITQ"}
    assert one("ALTER QLOCAL(T) NOTRIGGER").flags == {"NOTRIGGER"}
    assert one("DEFINE QMODEL(M) TRIGGER TRIGTYPE(EVERY)").flags == {"TRIGGER"}


@pytest.mark.parametrize("text, attribute, problem", [
    ("DEFINE QLOCAL(T) TRIGDPTH(0)", "TRIGDPTH", "out of range"),
    ("DEFINE QLOCAL(T) TRIGMPRI(10)", "TRIGMPRI", "out of range"),
    ("DEFINE QLOCAL(T) TRIGTYPE(SOMETIMES)", "TRIGTYPE", "not allowed"),
    ("DEFINE QLOCAL(T) TRIGDATA('" + "x" * 65 + "')", "TRIGDATA", "65 characters"),
    ("DEFINE QLOCAL(T) TRIGGER(YES)", "TRIGGER", "takes no value"),
    ("DEFINE QLOCAL(T) TRIGGER NOTRIGGER", "NOTRIGGER", "cannot both be given"),
    ("DEFINE QALIAS(A) TARGET(B) TRIGGER", "TRIGGER", "not valid on DEFINE QALIAS"),
    ("DEFINE QALIAS(A) TARGET(B) INITQ(I)", "INITQ", "applies to QLOCAL and QMODEL only"),
])
def test_trigger_keyword_errors(text, attribute, problem):
    err = error(text)
    assert err.attribute == attribute
    assert problem in str(err)


def test_display_shows_trigger_attributes_as_runmqsc():
    shown = format_display("QLOCAL", "T", {"TRIGGER": "NOTRIGGER", "TRIGTYPE": "FIRST",
                                           "TRIGDATA": ""})
    assert "NOTRIGGER" in shown.split() and "TRIGTYPE(FIRST)" in shown
    assert "TRIGDATA( )" in shown


def test_delete_takes_authrec_yes_or_no_for_queues_and_topics():
    assert one("DELETE QLOCAL(Q) AUTHREC(NO)").flags == {"NOAUTHREC"}
    assert one("DELETE QALIAS(A) AUTHREC(yes)").flags == {"AUTHREC"}
    assert one("DELETE TOPIC(T) AUTHREC(NO)").flags == {"NOAUTHREC"}
    for text in ("DELETE QLOCAL(Q) AUTHREC(MAYBE)", "DELETE TOPIC(T) AUTHREC"):
        with pytest.raises(MQSCError, match="AUTHREC"):
            one(text)
