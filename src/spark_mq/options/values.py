"""One option value at a time: each parser takes the option's name (for the error) and the
value as given, and returns the value the connector uses or raises MQOptionError naming the
option, the value and what is valid. The spec (spark_mq/options/spec.py) says which parser
each option goes through; rules that look at two options at once are not here but in the
reader's and the writer's named checks.

`ccsid` and `encoding` have one parser each, used by the reader and the writer alike: a
CCSID this process has a code page for (the writer encodes text in it, the reader's `text`
column decodes converted messages with it, so a CCSID without one would fail or null every
message), and an MQENC value whose integer, decimal and float parts are ones MQ defines.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from spark_mq.mq.credentials import split_name
from spark_mq.mq.exceptions import MQOptionError
from spark_mq.mqi.codepages import code_page
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import MAX_TOKEN_LENGTH

#: (option name, value as given) -> the value the connector uses
Parser = Callable[[str, Any], Any]

MQ_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")
MQ_NAME_RULE = "1 to 48 characters of A-Z a-z 0-9 . / _ %"
_CONN_NAME = re.compile(r"^\s*[^\s(),]+\(\d{1,5}\)\s*(,\s*[^\s(),]+\(\d{1,5}\)\s*)*$")
#: what a topic string may be: MQ's limit on MQCHARV topic strings
MAX_TOPIC_LENGTH = 10240
_CCSID_EXAMPLES = ("1208 (UTF-8), 37, 273, 500, 1047, 1140 (EBCDIC), 939 (EBCDIC Japanese), "
                   "819 (ISO 8859-1), 1252 (Windows), 1200 (UTF-16); every one: "
                   "docs/mainframe-and-jms.md, \"Code pages\"")
#: the names `report` takes (IBM's MQRO_ constants without the prefix): the reports a
#: message asks the queue manager for, and how they are made. PAN and NAN are left out: the
#: application that gets the message sends those, and the writer cannot ask it to
REPORT_OPTIONS = {name: getattr(CMQC, "MQRO_" + name) for name in (
    "COA", "COA_WITH_DATA", "COA_WITH_FULL_DATA", "COD", "COD_WITH_DATA", "COD_WITH_FULL_DATA",
    "EXCEPTION", "EXCEPTION_WITH_DATA", "EXCEPTION_WITH_FULL_DATA", "EXPIRATION",
    "EXPIRATION_WITH_DATA", "EXPIRATION_WITH_FULL_DATA", "PASS_MSG_ID", "PASS_CORREL_ID",
    "PASS_DISCARD_AND_EXPIRY", "DISCARD_MSG")}
_REPORT_RULE = ("none, or a comma-separated list of " + ", ".join(REPORT_OPTIONS)
                + " (MQRO_ names), or the MQRO_ bits as a decimal integer")
#: MQENC's parts (cmqc.h): integer 0x00F (1 normal, 2 reversed), packed decimal 0x0F0 (0x10
#: normal, 0x20 reversed), float 0xF00 (0x100 IEEE normal, 0x200 IEEE reversed, 0x300 S/390,
#: 0x400 TNS); 0 in a part leaves it undefined
_ENCODING_PARTS = ((0x00F, (0, 1, 2)), (0x0F0, (0, 0x10, 0x20)),
                   (0xF00, (0, 0x100, 0x200, 0x300, 0x400)))


def text(label: str, value: Any) -> str:
    """Taken as it is (a channel name, a user, a path the connection layer checks)."""
    return str(value)


def callable_name(label: str, value: Any) -> str:
    """"module:function" or "module.function": only its form is checked here; it is imported
    where a connection is made (spark_mq.mq.credentials)."""
    split_name(str(value))
    return str(value).strip()


def boolean(label: str, value: Any) -> bool:
    lowered = str(value).strip().lower()
    if lowered in ("true", "yes", "1"):
        return True
    if lowered in ("false", "no", "0"):
        return False
    raise MQOptionError(label, value, "true | false")


def integer(low: int, high: int) -> Parser:
    def parse(label: str, value: Any) -> int:
        try:
            number: int | None = int(str(value).strip())
        except ValueError:
            number = None
        if number is None or not low <= number <= high:
            raise MQOptionError(label, value, f"an integer from {low} to {high}")
        return number
    return parse


_DURATION_UNITS_MS = {"ms": 1, "s": 1000, "m": 60_000, "min": 60_000, "h": 3_600_000,
                      "d": 86_400_000}
DURATION_RULE = ("a duration such as 15m, 30s or 500ms (units ms, s, m, h, d; a bare number "
                 "is milliseconds), at most 1d")


def duration_ms(label: str, value: Any) -> int:
    """Spark's time strings, as Kafka's maxTriggerDelay takes them ("15m", "30s")."""
    found = re.fullmatch(r"\s*(\d+)\s*(ms|s|min|m|h|d)?\s*", str(value).lower())
    if found is None:
        raise MQOptionError(label, value, DURATION_RULE)
    milliseconds = int(found.group(1)) * _DURATION_UNITS_MS[found.group(2) or "ms"]
    if milliseconds > _DURATION_UNITS_MS["d"]:
        raise MQOptionError(label, value, DURATION_RULE)
    return milliseconds


RECONNECT_RULE = "an integer from 0 to 86400000 (milliseconds), or never (also -1): no limit"


def reconnect_timeout_ms(label: str, value: Any) -> int:
    """A finite wait in ms, or -1 (spelt `never` or `-1`) for a reconnect that never gives up."""
    given = str(value).strip().lower()
    if given in ("never", "-1"):
        return -1
    try:
        return integer(0, 86_400_000)(label, value)
    except MQOptionError:
        raise MQOptionError(label, value, RECONNECT_RULE) from None


def choice(*choices: str) -> Parser:
    """Case-insensitive; gives the canonical spelling."""
    def parse(label: str, value: Any) -> str:
        for option in choices:
            if str(value).strip().lower() == option.lower():
                return option
        raise MQOptionError(label, value, " | ".join(choices))
    return parse


def mq_name(what: str = "") -> Parser:
    """An MQ object name (queue, queue manager, topic object), blanks around it ignored."""
    def parse(label: str, value: Any) -> str:
        if not MQ_NAME.fullmatch(str(value).strip()):
            raise MQOptionError(label, value, f"{what}{MQ_NAME_RULE}")
        return str(value).strip()
    return parse


def non_empty(valid: str, longest: int | None = None) -> Parser:
    """A string with something in it (blanks around it dropped); `valid` says what it is."""
    def parse(label: str, value: Any) -> str:
        stripped = str(value).strip()
        if not stripped or (longest is not None and len(stripped) > longest):
            raise MQOptionError(label, value, valid)
        return stripped
    return parse


_JWS = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")


def token(label: str, value: Any) -> str:
    """An authentication token: a JWS in compact form (three base64url parts joined by dots)
    of up to IBM's 8192 characters. The error names its length and form, never its text: a
    token is a credential."""
    stripped = str(value).strip()
    if len(stripped) <= MAX_TOKEN_LENGTH and _JWS.fullmatch(stripped):
        return stripped
    raise MQOptionError(label, f"<{len(stripped)} characters, not shown>",
                        f"a JWT as the token issuer gives it: three base64url parts joined by "
                        f"dots, at most {MAX_TOKEN_LENGTH} characters, no 'Bearer ' in front")


def topic_string(label: str, value: Any) -> str:
    if not str(value).strip() or len(str(value).encode()) > MAX_TOPIC_LENGTH:
        raise MQOptionError(label, value, f"a non-empty topic string of up to "
                                          f"{MAX_TOPIC_LENGTH} bytes, e.g. orders/eu/#")
    return str(value).strip()


def conn_name(label: str, value: Any) -> str:
    if not _CONN_NAME.match(str(value)):
        raise MQOptionError(label, value,
                            "host(port), comma-separated for multi-instance, e.g. localhost(1414)")
    return str(value).replace(" ", "")


def queue_manager(label: str, value: Any) -> str:
    """A name, or `*` and a group's name (`*QM1`: any queue manager of the group, as MQCONN
    takes it, e.g. with a ccdtUrl)."""
    if str(value).strip().startswith("*"):
        group = str(value).strip()[1:]
        if group and not MQ_NAME.fullmatch(group):
            raise MQOptionError(label, value, f"{MQ_NAME_RULE}, after a * for a queue manager group")
        return "*" + group
    return str(mq_name()(label, value))


def ccsid(label: str, value: Any) -> int:
    """A CCSID this process has a code page for (spark_mq.mqi.codepages)."""
    try:
        number: int | None = int(str(value).strip())
    except ValueError:
        number = None
    if number is None or not 1 <= number <= 65535 or code_page(number) is None:
        raise MQOptionError(label, value, "a CCSID this process has a code page for (an integer "
                                          f"from 1 to 65535), e.g. {_CCSID_EXAMPLES}")
    return number


def encoding(label: str, value: Any) -> int:
    """An MQENC value, decimal or 0x hexadecimal."""
    raw = str(value).strip()
    try:
        number: int | None = int(raw, 16) if raw.lower().startswith("0x") else int(raw)
    except ValueError:
        number = None
    if (number is None or not 0 <= number <= 0xFFF
            or any(number & mask not in allowed for mask, allowed in _ENCODING_PARTS)):
        raise MQOptionError(label, value, "an MQENC value: 546 (native, little-endian), 273 "
                                          "(big-endian: Java, AIX), 785 (z/OS); its integer "
                                          "part 1 or 2, decimal part 0x10 or 0x20, float part "
                                          "0x100 to 0x400")
    return number


def mq_format(label: str, value: Any) -> str:
    value = str(value)
    if len(value.rstrip()) > 8 or not value.isascii() or not value.isprintable():
        raise MQOptionError(label, value, "an MQ format name of up to 8 ASCII characters, "
                                          "e.g. MQSTR, or blank for MQFMT_NONE (binary data)")
    return value.rstrip()


def report(label: str, value: Any) -> int:
    """MQMD Report options by name, comma-separated (`COA,COD_WITH_DATA,PASS_MSG_ID`; the
    MQRO_ prefix and case are optional), `none`, or the MQRO_ bits as a decimal integer;
    each report type at most once."""
    raw = str(value).strip()
    if raw.isdigit():
        return int(raw)
    names = [part.strip().upper() for part in raw.split(",") if part.strip()]
    if names == ["NONE"]:
        return 0
    bits, kinds = 0, set()
    for name in names:
        bare = name[5:] if name.startswith("MQRO_") else name
        if bare not in REPORT_OPTIONS:
            raise MQOptionError(label, value, _REPORT_RULE)
        kind = bare.split("_WITH_")[0]
        if kind in kinds:
            raise MQOptionError(label, value, f"{kind} once (with or without _WITH_DATA / "
                                              "_WITH_FULL_DATA), not twice")
        kinds.add(kind)
        bits |= REPORT_OPTIONS[bare]
    if not names:
        raise MQOptionError(label, value, _REPORT_RULE)
    return bits


QUEUE_MANAGERS_RULE = ("comma-separated entries NAME@host(port), e.g. QM1@mq1(1414),QM2@mq2(1414) "
                       "(a multi-instance queue manager: QM1@a(1414),b(1414)), or NAME alone "
                       "when option ccdtUrl gives its address; each queue manager once")
_ADDRESS = re.compile(r"[^\s(),@]+\(\d{1,5}\)")


def queue_managers(label: str, value: Any) -> tuple[tuple[str, str | None], ...]:
    """queueManagers: ((name, connName or None), ...) in the order given. An entry is
    NAME@host(port) or NAME; a bare host(port) after an entry is another address of that
    entry's (multi-instance) queue manager, as connName lists them."""
    entries: list[tuple[str, list[str]]] = []
    for item in (part.strip() for part in str(value).split(",")):
        name, at, address = item.partition("@")
        if not at and _ADDRESS.fullmatch(item) and entries and entries[-1][1]:
            entries[-1][1].append(item)       # another instance of the entry before
        elif MQ_NAME.fullmatch(name.strip()) and (not at or _ADDRESS.fullmatch(address.strip())):
            entries.append((name.strip(), [address.strip()] if at else []))
        else:
            raise MQOptionError(label, item, f"{QUEUE_MANAGERS_RULE} (in {str(value)!r})")
    names = [name for name, _ in entries]
    for name in names:
        if names.count(name) > 1:
            raise MQOptionError(label, name, f"{QUEUE_MANAGERS_RULE}: {name} is named "
                                             f"{names.count(name)} times in {str(value)!r}")
    return tuple((name, ",".join(addresses) or None) for name, addresses in entries)
