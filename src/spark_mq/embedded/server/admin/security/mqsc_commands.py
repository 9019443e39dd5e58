"""The MQSC syntax of the security commands, checked when a script is parsed (runs in the
queue-manager process): DEFINE/ALTER/DELETE/DISPLAY AUTHINFO, SET/DISPLAY CHLAUTH,
SET/DELETE/DISPLAY AUTHREC and REFRESH SECURITY.

mqsc.py parses these as it parses any command it does not model (attributes as folded
text) and hands them to `security_command`, which checks the keywords each takes, types
their values (lists become lists of strings, enumerations are checked) and returns the
command with typed attributes; security_mqsc.py applies them. A mistake is an MQSCError, so a
script with one changes nothing, as with every other syntax error.
"""
from __future__ import annotations

import re
from dataclasses import replace

from spark_mq.embedded.server.core.mqsc_command import MQSCCommand, MQSCError
from spark_mq.embedded.server.core.security import authinfo, chlauth
from spark_mq.embedded.server.core.security.authority import AUTH_NAMES, OBJECT_TYPES
from spark_mq.embedded.tls import distinguished_names

#: the object types of the commands this module checks
OBJECT_TYPES_CHECKED = frozenset({"AUTHINFO", "CHLAUTH", "AUTHREC", "SECURITY"})

_CHLAUTH_KEYWORDS = {
    "TYPE", "ACTION", "ADDRESS", "ADDRLIST", "USERLIST", "CLNTUSER", "MCAUSER", "USERSRC",
    "CHCKCLNT", "DESCR", "WARN", "QMNAME", "SSLPEER", "SSLCERTI", "CUSTOM", "CMDSCOPE"}
_CHLAUTH_LISTS = ("USERLIST", "ADDRLIST")
_CHLAUTH_CHOICES = {"ACTION": ("ADD", "REPLACE", "REMOVE", "REMOVEALL"),
                    "USERSRC": ("MAP", "NOACCESS", "CHANNEL"),
                    "CHCKCLNT": ("ASQMGR", "REQUIRED", "REQDADM"), "WARN": ("NO", "YES")}
_AUTHREC_KEYWORDS = {"PROFILE", "OBJTYPE", "PRINCIPAL", "GROUP", "AUTHADD", "AUTHRMV",
                     "SERVCOMP", "MATCH", "ENTITY"}
_LIST_ITEM = re.compile(r"'((?:[^']|'')*)'|([^\s,']+)")


def security_command(command: MQSCCommand) -> MQSCCommand:
    """The command with its attributes checked and typed, or MQSCError."""
    kind, verb = command.object_type, command.verb
    if kind == "AUTHINFO" and verb in ("DEFINE", "ALTER", "DELETE", "DISPLAY"):
        return _authinfo(command)
    if kind == "CHLAUTH" and verb in ("SET", "DISPLAY"):
        return _chlauth(command)
    if kind == "AUTHREC" and verb in ("SET", "DELETE", "DISPLAY"):
        return _authrec(command)
    if kind == "SECURITY" and verb == "REFRESH":
        return _refresh(command)
    valid = {"AUTHINFO": "DEFINE, ALTER, DELETE, DISPLAY", "CHLAUTH": "SET, DISPLAY",
             "AUTHREC": "SET, DELETE, DISPLAY", "SECURITY": "REFRESH"}[kind]
    raise MQSCError(command.line, f"{verb} {kind} is not valid (valid: {valid})")


def split_list(text: str) -> list[str]:
    """A list value as the parser keeps it: `'a','b'` or `A,B` (quotes keep case)."""
    return [bare or quoted.replace("''", "'") for quoted, bare in _LIST_ITEM.findall(text)]


def _unknown(command: MQSCCommand, keyword: str, valid: set[str] | frozenset[str]) -> MQSCError:
    return MQSCError(command.line, f"unknown for {command.verb} {command.object_type} "
                                   f"(valid: {', '.join(sorted(valid))})", keyword)


# --- AUTHINFO --------------------------------------------------------------------------------
def _authinfo(command: MQSCCommand) -> MQSCCommand:
    if not command.name:
        raise MQSCError(command.line, f"{command.verb} AUTHINFO needs a name, "
                                      "e.g. AUTHINFO('DEV.AUTHINFO')")
    if command.verb == "DISPLAY":
        return command
    typed: dict[str, object] = {}
    valid = {*authinfo.ATTRIBUTES, *authinfo.UNMODELLED}
    for key, value in command.attributes.items():
        if command.verb == "DELETE" and key not in ("AUTHTYPE", "CMDSCOPE", "QSGDISP"):
            raise _unknown(command, key, {"AUTHTYPE"})
        spec = authinfo.ATTRIBUTES.get(key)
        if spec is None:
            if key not in authinfo.UNMODELLED:
                raise _unknown(command, key, valid)
            typed[key] = value
            continue
        try:
            typed[key] = spec.coerce(str(value), quoted=True)
        except ValueError as err:
            raise MQSCError(command.line, f"{err} (valid: {spec.describe()})", key) from None
    if command.verb == "DEFINE" and "AUTHTYPE" not in typed:
        raise MQSCError(command.line, "is required on DEFINE AUTHINFO (valid: IDPWOS, IDPWLDAP, "
                                      "CRLLDAP, OCSP)", "AUTHTYPE")
    allowed = {"REPLACE", "NOREPLACE"} if command.verb == "DEFINE" else set()
    for flag in command.flags - allowed:
        raise _unknown(command, flag, allowed or {"none"})
    return replace(command, attributes=typed)


# --- CHLAUTH ---------------------------------------------------------------------------------
def _chlauth(command: MQSCCommand) -> MQSCCommand:
    if not command.name:
        raise MQSCError(command.line, f"{command.verb} CHLAUTH needs a channel profile, "
                                      "e.g. CHLAUTH('DEV.APP.SVRCONN') or CHLAUTH('*')")
    typed: dict[str, object] = {}
    keywords = _CHLAUTH_KEYWORDS | ({"MATCH"} if command.verb == "DISPLAY" else set())
    for key, value in command.attributes.items():
        if key not in keywords:
            raise _unknown(command, key, keywords)
        text = str(value)
        if key in _CHLAUTH_LISTS:
            typed[key] = split_list(text)
        elif key == "TYPE":
            if text.upper() not in (*chlauth.TYPES, "ALL"):
                raise MQSCError(command.line, f"value '{text}' is not allowed "
                                              f"(valid: {', '.join(chlauth.TYPES)})", key)
            typed[key] = text.upper()
        elif key in _CHLAUTH_CHOICES:
            if text.upper() not in _CHLAUTH_CHOICES[key]:
                raise MQSCError(command.line, f"value '{text}' is not allowed "
                                              f"(valid: {', '.join(_CHLAUTH_CHOICES[key])})", key)
            typed[key] = text.upper()
        else:
            typed[key] = text
    for flag in command.flags - {"ALL"}:
        raise _unknown(command, flag, keywords)
    if command.verb == "SET":
        _check_rule(command, typed)
    return replace(command, attributes=typed)


def _check_rule(command: MQSCCommand, attrs: dict[str, object]) -> None:
    """What each TYPE and ACTION of SET CHLAUTH needs, as runmqsc checks it."""
    line = command.line
    rule_type = attrs.get("TYPE")
    if rule_type is None or rule_type == "ALL":
        raise MQSCError(line, f"is required on SET CHLAUTH (valid: {', '.join(chlauth.TYPES)})",
                        "TYPE")
    action = attrs.setdefault("ACTION", "ADD")
    needs = {"BLOCKUSER": "USERLIST", "BLOCKADDR": "ADDRLIST", "ADDRESSMAP": "ADDRESS",
             "USERMAP": "CLNTUSER", "QMGRMAP": "QMNAME", "SSLPEERMAP": "SSLPEER"}[str(rule_type)]
    if action != "REMOVEALL" and needs not in attrs and not (
            action == "REMOVE" and rule_type in chlauth.BLOCKING_TYPES):
        raise MQSCError(line, f"is required on SET CHLAUTH TYPE({rule_type})", needs)
    mapping_only = ("CLNTUSER", "QMNAME", "SSLPEER", "SSLCERTI")
    foreign = {"BLOCKUSER": ("ADDRLIST", "ADDRESS", *mapping_only, "USERSRC", "MCAUSER"),
               "BLOCKADDR": ("USERLIST", "ADDRESS", *mapping_only, "USERSRC", "MCAUSER"),
               "ADDRESSMAP": ("USERLIST", "ADDRLIST", *mapping_only),
               "USERMAP": ("USERLIST", "ADDRLIST", "QMNAME", "SSLPEER", "SSLCERTI"),
               "QMGRMAP": ("USERLIST", "ADDRLIST", "CLNTUSER", "SSLPEER", "SSLCERTI", "CHCKCLNT"),
               "SSLPEERMAP": ("USERLIST", "ADDRLIST", "CLNTUSER", "QMNAME", "CHCKCLNT"),
               }[str(rule_type)]
    for key in foreign:
        if key in attrs:
            raise MQSCError(line, f"is not valid with TYPE({rule_type})", key)
    for key in ("SSLPEER", "SSLCERTI"):
        if attrs.get(key):
            try:
                distinguished_names.parse(str(attrs[key]))
            except distinguished_names.PeerNameError as err:
                raise MQSCError(line, f"is not a valid distinguished-name pattern ({err}), "
                                      "e.g. 'CN=QM1,O=Example'", key) from None
    if rule_type == "BLOCKADDR" and command.name != "*":
        raise MQSCError(line, "TYPE(BLOCKADDR) needs the profile '*' (it applies to every "
                              "channel)")
    if action in ("ADD", "REPLACE") and rule_type in chlauth.MAPPING_TYPES:
        if attrs.get("USERSRC", "MAP") == "MAP" and not attrs.get("MCAUSER"):
            raise MQSCError(line, "is required with USERSRC(MAP)", "MCAUSER")
        if attrs.get("USERSRC", "MAP") != "MAP" and attrs.get("MCAUSER"):
            raise MQSCError(line, "is valid only with USERSRC(MAP)", "MCAUSER")


# --- AUTHREC ---------------------------------------------------------------------------------
def _authrec(command: MQSCCommand) -> MQSCCommand:
    typed: dict[str, object] = {}
    for key, value in command.attributes.items():
        if key not in _AUTHREC_KEYWORDS:
            raise _unknown(command, key, _AUTHREC_KEYWORDS)
        text = str(value)
        if key in ("AUTHADD", "AUTHRMV"):
            if command.verb != "SET":
                raise MQSCError(command.line, "is valid on SET AUTHREC only", key)
            names = [name.upper() for name in split_list(text)]
            for name in names:
                if name not in AUTH_NAMES:
                    raise MQSCError(command.line, f"value '{name}' is not an authority (valid: "
                                                  f"{', '.join(sorted(AUTH_NAMES))})", key)
            typed[key] = names
        elif key == "OBJTYPE":
            if text.upper() not in OBJECT_TYPES:
                raise MQSCError(command.line, f"value '{text}' is not allowed "
                                              f"(valid: {', '.join(OBJECT_TYPES)})", key)
            typed[key] = text.upper()
        elif key in ("PRINCIPAL", "GROUP"):
            typed[key] = text    # user and group names keep their case when quoted
        else:
            typed[key] = text
    for flag in command.flags - {"ALL"}:
        raise _unknown(command, flag, _AUTHREC_KEYWORDS)
    if command.verb in ("SET", "DELETE"):
        if "OBJTYPE" not in typed:
            raise MQSCError(command.line, f"is required on {command.verb} AUTHREC "
                                          f"(valid: {', '.join(OBJECT_TYPES)})", "OBJTYPE")
        if typed["OBJTYPE"] != "QMGR" and not typed.get("PROFILE"):
            raise MQSCError(command.line, f"is required on {command.verb} AUTHREC for "
                                          f"OBJTYPE({typed['OBJTYPE']})", "PROFILE")
        if ("PRINCIPAL" in typed) == ("GROUP" in typed):
            raise MQSCError(command.line, f"{command.verb} AUTHREC needs one of PRINCIPAL or GROUP")
    if command.verb == "SET" and not typed.get("AUTHADD") and not typed.get("AUTHRMV"):
        raise MQSCError(command.line, "SET AUTHREC needs AUTHADD or AUTHRMV")
    return replace(command, attributes=typed)


# --- REFRESH SECURITY ------------------------------------------------------------------------
def _refresh(command: MQSCCommand) -> MQSCCommand:
    typed: dict[str, object] = {}
    for key, value in command.attributes.items():
        if key != "TYPE":
            raise _unknown(command, key, {"TYPE"})
        text = str(value).upper()
        if text not in ("CONNAUTH", "AUTHSERV", "SSL", "ALL"):
            raise MQSCError(command.line, f"value '{value}' is not allowed "
                                          "(valid: ALL, AUTHSERV, CONNAUTH, SSL)", key)
        typed[key] = text
    return replace(command, attributes=typed)
