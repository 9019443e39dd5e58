"""AUTHINFO objects: how the queue manager authenticates users (runs in the queue-manager
process, under its lock).

Only AUTHTYPE(IDPWOS) takes part in connecting: the user and password an application sends
in its MQCSP are checked against the queue manager's users (`--users-file`). The other types
(IDPWLDAP, CRLLDAP, OCSP) are kept and shown, so IBM's scripts load. The queue manager's
CONNAUTH attribute names the IDPWOS object in force, which is taken up at start and by
REFRESH SECURITY TYPE(CONNAUTH), as in MQ (state.refresh_connauth).

CHCKCLNT says what a client connection must give: NONE (nothing is checked, the MQCSP is
ignored), OPTIONAL (a user and password, when given, must be valid), REQDADM (also: an
administrator must give them), REQUIRED (every connection must give a valid pair).
ADOPTCTX(YES) makes the authenticated user the one the connection runs as. FAILDLAY (seconds)
delays the answer to a wrong user or password (admission.py), outside the queue manager's
lock, so that other connections go on meanwhile.
"""
from __future__ import annotations

from typing import Any

from spark_mq.embedded.server.core.mqsc_attributes import AttributeSpec
from spark_mq.embedded.server.core.security.security_state import security_of
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.mqi.constants import CMQC, CMQCFC

_AUTHINFO = frozenset({"AUTHINFO"})
_CHECKS = ("NONE", "OPTIONAL", "REQUIRED", "REQDADM")

#: the attributes of an AUTHINFO, typed, with the defaults of MQ's SYSTEM.DEFAULT.AUTHINFO.IDPWOS
ATTRIBUTES: dict[str, AttributeSpec] = {
    "AUTHTYPE": AttributeSpec("enum", "IDPWOS", _AUTHINFO,
                              choices=("IDPWOS", "IDPWLDAP", "CRLLDAP", "OCSP")),
    "DESCR": AttributeSpec("str", "", _AUTHINFO, max_length=64),
    "CHCKCLNT": AttributeSpec("enum", "REQDADM", _AUTHINFO, choices=_CHECKS),
    "CHCKLOCL": AttributeSpec("enum", "OPTIONAL", _AUTHINFO, choices=_CHECKS),
    "ADOPTCTX": AttributeSpec("enum", "NO", _AUTHINFO, choices=("NO", "YES")),
    "FAILDLAY": AttributeSpec("int", 1, _AUTHINFO, bounds=(0, 60)),
    "AUTHENMD": AttributeSpec("enum", "OS", _AUTHINFO, choices=("OS", "PAM")),
}
#: LDAP, CRL and OCSP keywords: accepted and kept as text
UNMODELLED = frozenset(
    "CONNAME LDAPUSER LDAPPWD SECCOMM BASEDNU BASEDNG CLASSUSR CLASSGRP USRFIELD SHORTUSR "
    "GRPFIELD FINDGRP AUTHORMD NESTGRP OCSPURL LIKE CMDSCOPE QSGDISP".split())

#: PCF values of the keyword attributes
CHECK_VALUES = {"NONE": CMQCFC.MQCHK_NONE, "OPTIONAL": CMQCFC.MQCHK_OPTIONAL,
                "REQUIRED": CMQCFC.MQCHK_REQUIRED, "REQDADM": CMQCFC.MQCHK_REQUIRED_ADMIN,
                "ASQMGR": CMQCFC.MQCHK_AS_Q_MGR}
TYPE_VALUES = {"IDPWOS": CMQC.MQAIT_IDPW_OS, "IDPWLDAP": CMQC.MQAIT_IDPW_LDAP,
               "CRLLDAP": CMQC.MQAIT_CRL_LDAP, "OCSP": CMQC.MQAIT_OCSP}
ADOPT_VALUES = {"NO": CMQCFC.MQADPCTX_NO, "YES": CMQCFC.MQADPCTX_YES}


def default_attributes() -> dict[str, Any]:
    return {key: spec.default for key, spec in ATTRIBUTES.items()}


def exists(qm: QueueManagerState, name: str) -> bool:
    return name in security_of(qm).authinfos


def apply(qm: QueueManagerState, verb: str, name: str, attrs: dict[str, Any],
          replace: bool) -> str:
    """DEFINE, ALTER or DELETE AUTHINFO with typed attributes; returns runmqsc's message.
    Failures are ValueErrors with the text runmqsc shows."""
    objects = security_of(qm).authinfos
    existing = objects.get(name)
    if verb == "DELETE":
        if existing is None:
            raise ValueError(f"AMQ8147E: IBM MQ object {name} not found.")
        if str(qm.attrs.get("CONNAUTH", "")).strip() == name:
            raise ValueError(f"AMQ8150E: AUTHINFO({name}) is in use: it is the queue "
                             "manager's CONNAUTH")
        del objects[name]
        qm.store.delete_object("AUTHINFO", name)
        return "AMQ8563I: IBM MQ authentication information object deleted."
    if verb == "DEFINE":
        if existing is not None and not replace:
            raise ValueError(f"AMQ8150E: IBM MQ object already exists: {name}; use REPLACE.")
        values = default_attributes()
        values.update(attrs)
        message = "AMQ8565I: IBM MQ authentication information object created."
    else:
        if existing is None:
            raise ValueError(f"AMQ8147E: IBM MQ object {name} not found.")
        values = {**existing, **attrs}
        message = "AMQ8567I: IBM MQ authentication information object changed."
    objects[name] = values
    qm.store.save_object("AUTHINFO", name, values)
    return message
