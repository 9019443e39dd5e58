"""Property names: MQ's naming rules, canonical names, RFH2 locations and MQINQMP wildcards.

`validate_name` checks a name and returns its canonical form (the form MQINQMP returns);
`location` / `name_at` map canonical names to and from the RFH2 folder and element path
that carry them; `WildcardMatcher` is MQINQMP's name matching. The choices made where the
docs leave room are listed in the package docstring.
"""
from __future__ import annotations

import unicodedata

from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.properties._base import PropertyError, show

# Properties MQ keeps in RFH2 folders other than usr, by the name MQINQMP returns for them.
_FOLDER_SYNONYMS: dict[str, tuple[str, str]] = {
    "JMSDestination": ("jms", "Dst"), "JMSExpiration": ("jms", "Exp"),
    "JMSPriority": ("jms", "Pri"), "JMSDeliveryMode": ("jms", "Dlv"),
    "JMSCorrelationID": ("jms", "Cid"), "JMSReplyTo": ("jms", "Rto"),
    "JMSTimestamp": ("jms", "Tms"), "JMSXGroupID": ("jms", "Gid"), "JMSXGroupSeq": ("jms", "Seq"),
    "JMSType": ("mcd", "Type"),
    "MQTopicString": ("mqps", "Top"), "MQSubUserData": ("mqps", "Sud"),
    "MQIsRetained": ("mqps", "Ret"), "MQPubOptions": ("mqps", "Pub"), "MQPubLevel": ("mqps", "Pbl"),
    "MQPubTime": ("mqpse", "Pts"), "MQPubSeqNum": ("mqpse", "Seq"),
    "MQPubStrIntData": ("mqpse", "Sid"), "MQPubFormat": ("mqpse", "Pfmt"),
}
_CANONICAL = {f"{folder}.{elem}": name for name, (folder, elem) in _FOLDER_SYNONYMS.items()}
# JMS names that are synonyms only for MQMD fields (IBM's table); valid, but never in an RFH2.
_JMS_MQMD_ONLY = frozenset({"JMSMessageID", "JMSRedelivered", "JMSXAppID", "JMSXDeliveryCount",
                            "JMSXUserID"})
_JMS_NAMES = frozenset(n for n in _FOLDER_SYNONYMS if n.startswith("JMS")) | _JMS_MQMD_ONLY
_MQ_NAMES = frozenset(n for n in _FOLDER_SYNONYMS if n.startswith("MQ"))
_MQ_FOLDERS = ("mqps", "mqpse", "mqext")
FOLDERS = ("mcd", "jms", "mqps", "mqpse", "mqext", "usr")  # also the order encode_rfh2 writes
_SQL_KEYWORDS = frozenset({"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN",
                           "IS", "ESCAPE"})
# Java's isJavaIdentifierStart / isJavaIdentifierPart by Unicode category ($ is Sc, _ is Pc).
_ID_START = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Sc", "Pc"})
_ID_PART = _ID_START | {"Nd", "Mn", "Mc"}


def _name_error(name: str, why: str) -> PropertyError:
    return PropertyError(CMQC.MQRC_PROPERTY_NAME_ERROR, f"property name {show(name)}: {why}")


def _length_error(name: str) -> PropertyError:
    return PropertyError(CMQC.MQRC_PROPERTY_NAME_LENGTH_ERR,
                         f"property name {show(name)}: length {len(name)} is not "
                         f"1..{CMQC.MQ_MAX_PROPERTY_NAME_LENGTH}")


def _check_syntax(name: str) -> None:
    for part in name.split("."):
        if not part:
            raise _name_error(name, "a '.' may not start or end the name or follow another '.'")
        for i, ch in enumerate(part):
            if ord(ch) > 0xFFFF:
                raise _name_error(name, "characters beyond the Basic Multilingual Plane are not allowed")
            if unicodedata.category(ch) not in (_ID_PART if i else _ID_START):
                raise _name_error(name, f"character {ch!r} is not allowed there (Java identifier rules)")


def _check_reserved(name: str, shown: str) -> None:
    if name.upper() in _SQL_KEYWORDS:
        raise _name_error(shown, "SQL keywords of selection strings are reserved")
    if name.split(".")[0] in ("Root", "Body") and not name.startswith("Root.MQMD."):
        raise _name_error(shown, "names beginning Root or Body are reserved (except Root.MQMD.*)")
    if name.startswith("JMS") and name not in _JMS_NAMES:
        raise _name_error(shown, "the JMS prefix is reserved for the defined JMS properties")
    if name[:2].lower() == "mq" and not (
            name in _MQ_NAMES or name[:6].lower() == "mq_usr"
            or (name.split(".")[0] in _MQ_FOLDERS and name.count(".") == 1)):
        raise _name_error(shown, "the mq prefix is reserved for MQ-defined properties")


def validate_name(name: str | bytes) -> str:
    """Check a property name against MQ's rules and return its canonical form."""
    if isinstance(name, (bytes, bytearray)):  # ibmmq passes names as UTF-8 bytes
        raw = bytes(name)
        try:
            name = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise _name_error(raw.decode("utf-8", "replace"), "not valid UTF-8") from None
    if not name or len(name) > CMQC.MQ_MAX_PROPERTY_NAME_LENGTH:
        raise _length_error(name)
    _check_syntax(name)
    if name.startswith("usr."):
        rest = name[4:]
        if rest.startswith("JMS"):
            raise _name_error(name, "usr.JMS* is not valid")
        if rest.split(".")[0] in FOLDERS:
            raise _name_error(name, "a folder name after usr. is ambiguous")
        _check_reserved(rest, name)
        return rest
    _check_reserved(name, name)
    return _CANONICAL.get(name, name)


def location(name: str) -> tuple[str, list[str]] | None:
    """(RFH2 folder, element path) holding a canonical name, or None if it lives in the MQMD."""
    if name in _FOLDER_SYNONYMS:
        folder, elem = _FOLDER_SYNONYMS[name]
        return folder, [elem]
    if name in _JMS_MQMD_ONLY or name.startswith("Root."):
        return None
    first, _, rest = name.partition(".")
    if rest and first in FOLDERS:
        return first, rest.split(".")
    return "usr", name.split(".")


def name_at(folder: str, path: list[str]) -> str:
    joined = ".".join(path)
    if folder == "usr":
        return joined
    return _CANONICAL.get(f"{folder}.{joined}", f"{folder}.{joined}")


class WildcardMatcher:
    """MQINQMP name matching: a trailing '%' matches any rest of the name, dots included.

    Names are compared in canonical form. A pattern that begins with a folder ("usr.%", "jms.E%")
    is compared with the folder-qualified name, so "usr.%" selects exactly the user properties.
    """

    def __init__(self, pattern: str) -> None:
        if not pattern or len(pattern) > CMQC.MQ_MAX_PROPERTY_NAME_LENGTH:
            raise _length_error(pattern)
        self.pattern = pattern
        self.wildcard = pattern.endswith("%")
        if "%" in pattern[:-1]:
            raise _name_error(pattern, "'%' is only allowed as the last character")
        if self.wildcard:
            self.prefix = pattern[:-1]
            self.by_folder = self.prefix.split(".")[0] in FOLDERS and "." in self.prefix
        else:
            self.prefix = validate_name(pattern)
            self.by_folder = False

    def matches(self, name: str) -> bool:
        if not self.wildcard:
            return name == self.prefix
        if not self.by_folder:
            return name.startswith(self.prefix)
        loc = location(name)
        return loc is not None and f"{loc[0]}.{'.'.join(loc[1])}".startswith(self.prefix)
