"""The MQSC parser on the security commands: AUTHINFO, CHLAUTH, AUTHREC, REFRESH SECURITY
(typed and checked by security/mqsc_commands.py when a script is parsed)."""
from __future__ import annotations

import pytest

from spark_mq.embedded.server.admin.mqsc import parse_mqsc
from spark_mq.embedded.server.admin.security.mqsc_commands import split_list
from spark_mq.embedded.server.core.mqsc_command import MQSCError
from support import mqsc_error as error
from support import mqsc_one as one


def test_define_authinfo_is_typed():
    command = one("DEFINE AUTHINFO('DEV.AUTHINFO') AUTHTYPE(IDPWOS) CHCKCLNT(reqdadm) "
                  "CHCKLOCL(OPTIONAL) ADOPTCTX(YES) FAILDLAY(0) REPLACE")
    assert (command.verb, command.object_type, command.name) == ("DEFINE", "AUTHINFO", "DEV.AUTHINFO")
    assert command.attributes == {"AUTHTYPE": "IDPWOS", "CHCKCLNT": "REQDADM",
                                  "CHCKLOCL": "OPTIONAL", "ADOPTCTX": "YES", "FAILDLAY": 0}
    assert command.flags == {"REPLACE"}


@pytest.mark.parametrize("text, attribute", [
    ("DEFINE AUTHINFO(A) CHCKCLNT(REQUIRED)", "AUTHTYPE"),
    ("DEFINE AUTHINFO(A) AUTHTYPE(IDPWOS) CHCKCLNT(SOMETIMES)", "CHCKCLNT"),
    ("DEFINE AUTHINFO(A) AUTHTYPE(KERBEROS)", "AUTHTYPE"),
    ("ALTER AUTHINFO(A) AUTHTYPE(IDPWOS) ADOPTCTX(MAYBE)", "ADOPTCTX"),
    ("DEFINE AUTHINFO(A) AUTHTYPE(IDPWOS) COLOUR(RED)", "COLOUR"),
    ("DELETE AUTHINFO(A) CHCKCLNT(NONE)", "CHCKCLNT"),
])
def test_authinfo_errors_name_the_attribute(text, attribute):
    assert error(text).attribute == attribute


def test_authinfo_needs_a_name():
    assert "needs a name" in error("DEFINE AUTHINFO AUTHTYPE(IDPWOS)").message


def test_set_chlauth_rules_are_typed():
    command = one("SET CHLAUTH('DEV.ADMIN.SVRCONN') TYPE(BLOCKUSER) USERLIST('nobody','Eve', x) "
                  "DESCR('Allows admins') ACTION(REPLACE)")
    assert command.name == "DEV.ADMIN.SVRCONN"
    assert command.attributes == {"TYPE": "BLOCKUSER", "USERLIST": ["nobody", "Eve", "X"],
                                  "DESCR": "Allows admins", "ACTION": "REPLACE"}
    mapping = one("SET CHLAUTH(APP.*) TYPE(USERMAP) CLNTUSER('bob') USERSRC(MAP) MCAUSER('app')")
    assert mapping.attributes["ACTION"] == "ADD"   # runmqsc's default
    assert mapping.attributes["CLNTUSER"] == "bob"
    assert one("SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('10.0.0.*','192.168.1.1-9')"
               ).attributes["ADDRLIST"] == ["10.0.0.*", "192.168.1.1-9"]
    assert one("DISPLAY CHLAUTH(*) TYPE(ADDRESSMAP) ALL").attributes == {"TYPE": "ADDRESSMAP"}


@pytest.mark.parametrize("text, attribute", [
    ("SET CHLAUTH(C) ADDRESS('*') USERSRC(CHANNEL)", "TYPE"),
    ("SET CHLAUTH(C) TYPE(BLOCKUSER)", "USERLIST"),
    ("SET CHLAUTH(C) TYPE(ADDRESSMAP) USERSRC(CHANNEL)", "ADDRESS"),
    ("SET CHLAUTH(C) TYPE(USERMAP) USERSRC(CHANNEL)", "CLNTUSER"),
    ("SET CHLAUTH(C) TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(MAP)", "MCAUSER"),
    ("SET CHLAUTH(C) TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) MCAUSER('x')", "MCAUSER"),
    ("SET CHLAUTH(C) TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(SOMETIMES)", "USERSRC"),
    ("SET CHLAUTH(C) TYPE(BLOCKUSER) USERLIST(a) ADDRESS('*')", "ADDRESS"),
    ("SET CHLAUTH(C) TYPE(WALL) USERLIST(a)", "TYPE"),
    ("SET CHLAUTH(C) TYPE(BLOCKUSER) USERLIST(a) ACTION(MERGE)", "ACTION"),
    ("SET CHLAUTH(C) TYPE(BLOCKUSER) USERLIST(a) COLOUR(RED)", "COLOUR"),
])
def test_set_chlauth_errors_name_the_attribute(text, attribute):
    assert error(text).attribute == attribute


def test_blockaddr_is_for_the_profile_star_only():
    assert "profile '*'" in error("SET CHLAUTH(C) TYPE(BLOCKADDR) ADDRLIST('1.2.3.4')").message


def test_removing_needs_only_the_rules_identity():
    assert one("SET CHLAUTH(C) TYPE(USERMAP) CLNTUSER('bob') ACTION(REMOVE)").attributes[
        "ACTION"] == "REMOVE"
    assert one("SET CHLAUTH(C) TYPE(BLOCKUSER) ACTION(REMOVE)").attributes["TYPE"] == "BLOCKUSER"
    assert one("SET CHLAUTH(C) TYPE(ADDRESSMAP) ACTION(REMOVEALL)").name == "C"


def test_set_authrec_is_typed():
    command = one("SET AUTHREC PROFILE('DEV.**') GROUP('mqclient') OBJTYPE(queue) "
                  "AUTHADD(BROWSE,get,INQ,PUT) AUTHRMV(SETALL)")
    assert command.attributes == {"PROFILE": "DEV.**", "GROUP": "mqclient", "OBJTYPE": "QUEUE",
                                  "AUTHADD": ["BROWSE", "GET", "INQ", "PUT"],
                                  "AUTHRMV": ["SETALL"]}
    qmgr = one("SET AUTHREC PRINCIPAL('app') OBJTYPE(QMGR) AUTHADD(CONNECT, INQ)")
    assert qmgr.attributes["AUTHADD"] == ["CONNECT", "INQ"]
    assert one("DELETE AUTHREC PROFILE(X) OBJTYPE(QUEUE) PRINCIPAL('app')").verb == "DELETE"
    assert one("DISPLAY AUTHREC PRINCIPAL('app') MATCH(MEMBERSHIP)").attributes["MATCH"] \
        == "MEMBERSHIP"


@pytest.mark.parametrize("text, attribute", [
    ("SET AUTHREC PROFILE(X) PRINCIPAL(a) AUTHADD(PUT)", "OBJTYPE"),
    ("SET AUTHREC PRINCIPAL(a) OBJTYPE(QUEUE) AUTHADD(PUT)", "PROFILE"),
    ("SET AUTHREC PROFILE(X) PRINCIPAL(a) OBJTYPE(QUEUE) AUTHADD(EVERYTHING)", "AUTHADD"),
    ("SET AUTHREC PROFILE(X) PRINCIPAL(a) OBJTYPE(TABLE) AUTHADD(PUT)", "OBJTYPE"),
    ("DELETE AUTHREC PROFILE(X) PRINCIPAL(a) OBJTYPE(QUEUE) AUTHADD(PUT)", "AUTHADD"),
    ("SET AUTHREC PROFILE(X) PRINCIPAL(a) OBJTYPE(QUEUE) AUTHADD(PUT) COLOUR(RED)", "COLOUR"),
])
def test_authrec_errors_name_the_attribute(text, attribute):
    assert error(text).attribute == attribute


@pytest.mark.parametrize("text, words", [
    ("SET AUTHREC PROFILE(X) OBJTYPE(QUEUE) AUTHADD(PUT)", "PRINCIPAL or GROUP"),
    ("SET AUTHREC PROFILE(X) PRINCIPAL(a) GROUP(b) OBJTYPE(QUEUE) AUTHADD(PUT)", "PRINCIPAL or GROUP"),
    ("SET AUTHREC PROFILE(X) PRINCIPAL(a) OBJTYPE(QUEUE)", "AUTHADD or AUTHRMV"),
])
def test_authrec_needs_one_entity_and_a_change(text, words):
    assert words in error(text).message


def test_refresh_security():
    command = one("REFRESH SECURITY(*) TYPE(CONNAUTH)")
    assert (command.verb, command.object_type, command.attributes) == (
        "REFRESH", "SECURITY", {"TYPE": "CONNAUTH"})
    assert one("REFRESH SECURITY").attributes == {}
    assert error("REFRESH SECURITY TYPE(EVERYTHING)").attribute == "TYPE"


def test_a_security_command_in_error_stops_the_whole_script():
    with pytest.raises(MQSCError) as exc:
        parse_mqsc("DEFINE QLOCAL(A)\nSET CHLAUTH(C) TYPE(BLOCKUSER)\n")
    assert exc.value.line == 2


def test_list_values_keep_quoted_case_and_quotes():
    assert split_list("'a','B c','it''s'") == ["a", "B c", "it's"]
    assert split_list("PUT,GET") == ["PUT", "GET"]
