"""MQSC (runmqsc script) parser for the embedded queue manager (runs in the queue-manager process).

The embedded queue manager reads the same MQSC files as IBM MQ's developer container, so
this module follows IBM's "MQSC input file syntax" rules:

* a line whose first non-blank character is ``*`` is a comment; blank lines are ignored;
* a trailing ``+`` continues the command from the first non-blank character of the next
  line, a trailing ``-`` from the very start of the next line (its leading blanks are kept);
  comment and blank lines between continued lines are dropped;
* ``;`` ends a command (IBM allows it even after a trailing ``+``); we also accept several
  ``;``-separated commands on one line;
* keywords are case-insensitive; blanks and commas separate them; a value follows its
  keyword in parentheses; unquoted names and values fold to upper case, text in single
  quotes keeps its case and ``''`` inside it stands for one quote;
* a parameter may appear at most once.

Commands on local, alias, model and remote queues (and ``ALTER QMGR``, which refuses an
attribute it does not know) are validated against `QUEUE_ATTRIBUTES` / `QMGR_ATTRIBUTES`
(mqsc_attributes.py: every attribute dmpmqcfg writes), and the security commands
(AUTHINFO, CHLAUTH, AUTHREC, REFRESH SECURITY) by admin/security/mqsc_commands.py, NAMELIST
and PROCESS commands by named_object_mqsc.py, and TOPIC commands
against core/pubsub/topic_attributes.py.  Everything
else a real queue manager understands (channels, listeners, subscriptions, START/STOP ...) is
returned with raw string attributes, for the caller to apply (core/channel_definitions.py types those of
SVRCONN, SDR, RCVR, SVR, RQSTR, CLNTCONN, CLUSSDR and CLUSRCVR channels,
admin/pubsub/pubsub_mqsc.py those of DEFINE SUB) or to
ignore: IBM's developer-container scripts contain such commands and must load without error.
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from spark_mq.embedded.server.admin.named_object_mqsc import named_object_command
from spark_mq.embedded.server.admin.security.mqsc_commands import security_command
from spark_mq.embedded.server.core.mqsc_attributes import (
    QMGR_ATTRIBUTES,
    QUEUE_ATTRIBUTES,
    TYPE_SYNONYMS,
    AttributeValue,
    attribute_specs,
)
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand, MQSCError
from spark_mq.embedded.server.core.named_kinds import KINDS as NAMED_KINDS
from spark_mq.embedded.server.core.pubsub.topic_attributes import (
    OTHER_TOPIC_KEYWORDS,
    STORED_TOPIC_ATTRIBUTES,
    TOPIC_ATTRIBUTES,
)

_ATTRIBUTE_SYNONYMS = {"TARGQ": "TARGET"}

# Bare keywords each modelled queue command accepts; a missing pair means the verb is not
# valid for that queue type (CLEAR QALIAS, for example).
_SETTING_FLAGS = frozenset({"SHARE", "NOSHARE", "TRIGGER", "NOTRIGGER", "HARDENBO",
                            "NOHARDENBO"})
_QUEUE_FLAGS: dict[tuple[str, str], frozenset[str]] = {
    ("DEFINE", "QLOCAL"): frozenset({"REPLACE", "NOREPLACE"}) | _SETTING_FLAGS,
    ("DEFINE", "QALIAS"): frozenset({"REPLACE", "NOREPLACE"}),
    ("ALTER", "QLOCAL"): frozenset({"FORCE"}) | _SETTING_FLAGS,
    ("ALTER", "QALIAS"): frozenset({"FORCE"}),
    ("DELETE", "QLOCAL"): frozenset({"PURGE", "NOPURGE"}),
    ("DELETE", "QALIAS"): frozenset(),
    ("DEFINE", "QREMOTE"): frozenset({"REPLACE", "NOREPLACE"}),
    ("ALTER", "QREMOTE"): frozenset({"FORCE"}),
    ("DELETE", "QREMOTE"): frozenset(),
    ("DEFINE", "QMODEL"): frozenset({"REPLACE", "NOREPLACE"}) | _SETTING_FLAGS,
    ("ALTER", "QMODEL"): _SETTING_FLAGS,
    ("DELETE", "QMODEL"): frozenset(),
    ("CLEAR", "QLOCAL"): frozenset(),
}
_EXCLUSIVE_FLAGS = (("REPLACE", "NOREPLACE"), ("PURGE", "NOPURGE"), ("SHARE", "NOSHARE"),
                    ("TRIGGER", "NOTRIGGER"), ("HARDENBO", "NOHARDENBO"))

_VERB_SYNONYMS = {"DEF": "DEFINE", "DIS": "DISPLAY", "ALT": "ALTER"}
# runmqsc's command verbs; anything else is a typo that must not be silently ignored.
_MQSC_VERBS = frozenset(
    "ALTER ARCHIVE BACKUP CLEAR DEFINE DELETE DISPLAY END MOVE PING PURGE RECOVER REFRESH "
    "RESET RESOLVE RESUME RVERIFY SET START STOP SUSPEND".split()
)
_QUEUE_TYPES = frozenset({"QLOCAL", "QALIAS", "QMODEL", "QREMOTE", "QUEUE"})  # QUEUE: DISPLAY only
_QUEUE_VERBS = frozenset({"DEFINE", "ALTER", "DELETE", "CLEAR", "DISPLAY"})
_SECURITY_TYPES = frozenset({"AUTHINFO", "CHLAUTH", "AUTHREC", "SECURITY"})  # admin/security/mqsc_commands.py
_QUEUE_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")
_GENERIC_NAME = re.compile(r"[A-Za-z0-9._/%]{0,47}\*")


# --------------------------------------------------------------------------------------
# Reading lines into commands
# --------------------------------------------------------------------------------------

@dataclass
class _Source:
    """One command reassembled from its physical lines, able to map offsets to lines."""

    text: str = ""
    starts: list[int] = field(default_factory=list)   # offset where each line's part begins
    numbers: list[int] = field(default_factory=list)  # that line's 1-based number

    def add(self, part: str, number: int) -> None:
        self.starts.append(len(self.text))
        self.numbers.append(number)
        self.text += part

    def line_at(self, offset: int) -> int:
        index = bisect.bisect_right(self.starts, offset) - 1
        return self.numbers[max(index, 0)]


def _reassemble(text: str) -> Iterator[_Source]:
    """Yield each command with its continuation lines joined, per IBM's rules."""
    current: _Source | None = None
    strip_leading = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("*"):
            continue   # comments and blank lines vanish, even inside a continued command
        if strip_leading:
            line = line.lstrip()
        continuation = line[-1] if line[-1] in "+-" else ""
        if continuation:
            line = line[:-1]
        if current is None:
            current = _Source()
        current.add(line, number)
        strip_leading = continuation == "+"
        if not continuation:
            yield current
            current = None
    if current is not None:    # a script ending on a continuation: take what is there
        yield current


@dataclass(frozen=True)
class _Token:
    kind: str      # "word", "string", "(" or ")"
    text: str      # a string token's text is unescaped and keeps its case
    offset: int


def _read_quoted(src: _Source, start: int) -> tuple[str, int]:
    """Read a quoted string starting at ``start``; return its text and the end offset."""
    text, i, chars = src.text, start + 1, []
    while i < len(text):
        if text[i] == "'":
            if text[i + 1:i + 2] == "'":   # '' is an escaped quote
                chars.append("'")
                i += 2
                continue
            return "".join(chars), i + 1
        chars.append(text[i])
        i += 1
    raise MQSCError(src.line_at(start), f"unterminated quoted string {text[start:].strip()}")


_WORD = re.compile(r"[^\s,()';]+")


def _tokenize(src: _Source) -> list[list[_Token]]:
    """Split a command into tokens; ``;`` outside quotes starts another statement."""
    statements: list[list[_Token]] = [[]]
    text, i = src.text, 0
    while i < len(text):
        char = text[i]
        if char.isspace() or char == ",":      # blanks and commas are both separators
            i += 1
        elif char == ";":
            statements.append([])
            i += 1
        elif char in "()":
            statements[-1].append(_Token(char, char, i))
            i += 1
        elif char == "'":
            value, end = _read_quoted(src, i)
            statements[-1].append(_Token("string", value, i))
            i = end
        else:
            match = _WORD.match(text, i)
            assert match is not None  # text[i] is none of the characters _WORD stops at
            statements[-1].append(_Token("word", match.group(), i))
            i = match.end()
    return [tokens for tokens in statements if tokens]


# --------------------------------------------------------------------------------------
# Parameters: KEYWORD or KEYWORD(value)
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Param:
    keyword: str                     # upper case
    line: int
    values: tuple[_Token, ...] | None  # tokens inside the parentheses; None if bare
    raw: str = ""                    # source text inside the parentheses

    def single(self) -> tuple[str, bool]:
        """The one value in the parentheses and whether it was quoted."""
        if not self.values:
            return "", False
        if len(self.values) > 1:
            raise MQSCError(self.line, f"expected one value, got ({self.raw.strip()})",
                            self.keyword)
        token = self.values[0]
        return token.text, token.kind == "string"

    def folded(self) -> str:
        """The value as a raw string, for commands we do not model."""
        if self.values and len(self.values) == 1:
            text, quoted = self.single()
            return text if quoted else text.upper()
        # Upper-case what is outside quotes, as MQ does, and keep quoted parts verbatim.
        parts = re.split(r"('(?:[^']|'')*')", self.raw)
        return "".join(p if i % 2 else p.upper() for i, p in enumerate(parts)).strip()


def _params(tokens: list[_Token], src: _Source) -> list[_Param]:
    params, i = [], 0
    while i < len(tokens):
        token = tokens[i]
        line = src.line_at(token.offset)
        if token.kind != "word":
            shown = f"'{token.text}'" if token.kind == "string" else token.text
            raise MQSCError(line, f"unexpected {shown} where a keyword was expected")
        i += 1
        if i < len(tokens) and tokens[i].kind == "(":
            values, close = _group(tokens, i, src)
            raw = src.text[tokens[i].offset + 1:tokens[close].offset]
            params.append(_Param(token.text.upper(), line, values, raw))
            i = close + 1
        else:
            params.append(_Param(token.text.upper(), line, None))
    return params


def _group(tokens: list[_Token], open_index: int, src: _Source) -> tuple[tuple[_Token, ...], int]:
    """The tokens between the ``(`` at open_index and its ``)``, and the ``)``'s index."""
    for j in range(open_index + 1, len(tokens)):
        if tokens[j].kind == ")":
            return tuple(tokens[open_index + 1:j]), j
        if tokens[j].kind == "(":
            raise MQSCError(src.line_at(tokens[j].offset), "unexpected '(' inside parentheses "
                                                           "(missing ')' before it?)")
    raise MQSCError(src.line_at(tokens[open_index].offset), "missing ')'")


# --------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------

def parse_mqsc(text: str) -> list[MQSCCommand]:
    """Parse an MQSC script into commands; raise MQSCError on the first error.

    Parsing stops at END, as runmqsc stops reading there.
    """
    commands: list[MQSCCommand] = []
    for src in _reassemble(text):
        for tokens in _tokenize(src):
            command = _command(_params(tokens, src), src.line_at(tokens[0].offset))
            commands.append(command)
            if command.verb == "END":
                return commands
    return commands


def _command(params: list[_Param], line: int) -> MQSCCommand:
    head = params[0]
    verb = _VERB_SYNONYMS.get(head.keyword, head.keyword)
    if verb not in _MQSC_VERBS:
        valid = ", ".join(sorted(_MQSC_VERBS))
        raise MQSCError(line, f"unknown command '{head.keyword}' (valid: {valid})")
    if head.values is not None:
        raise MQSCError(line, f"{verb} must be followed by an object type, not '('")
    if verb == "END":
        return MQSCCommand("END", "", "", {}, frozenset(), line)
    if len(params) < 2:
        raise MQSCError(line, f"{verb} needs an object type, e.g. QLOCAL or CHANNEL")
    noun = params[1]
    object_type = TYPE_SYNONYMS.get(noun.keyword, noun.keyword)
    rest = params[2:]
    if object_type == "QUEUE" and verb != "DISPLAY":
        raise MQSCError(line, f"{verb} QUEUE is not valid (valid: QLOCAL, QALIAS, QMODEL)")
    if object_type in _QUEUE_TYPES and verb in _QUEUE_VERBS:
        return _queue_command(verb, object_type, noun, rest, line)
    if object_type == "QMGR" and verb in ("ALTER", "DISPLAY"):
        return _qmgr_command(verb, noun, rest, line)
    if object_type == "TOPIC" and verb in _TOPIC_FLAGS:
        return _topic_command(verb, noun, rest, line)
    if object_type in _SECURITY_TYPES:
        return security_command(_generic_command(verb, object_type, noun, rest, line))
    if object_type in NAMED_KINDS:
        return named_object_command(_generic_command(verb, object_type, noun, rest, line))
    return _generic_command(verb, object_type, noun, rest, line)


def _queue_name(noun: _Param, verb: str, object_type: str) -> str:
    if not noun.values:
        raise MQSCError(noun.line, f"{verb} {object_type} needs a queue name, "
                                   f"e.g. {verb} {object_type}(MY.QUEUE)")
    if len(noun.values) > 1:
        raise MQSCError(noun.line, f"queue name must be one value, got ({noun.raw.strip()})")
    text, quoted = noun.single()
    name = text if quoted else text.upper()   # MQ folds unquoted names to upper case
    if verb == "DISPLAY" and _GENERIC_NAME.fullmatch(name):
        return name
    if not _QUEUE_NAME.fullmatch(name):
        generic = "; a trailing '*' only on DISPLAY" if "*" in name else ""
        raise MQSCError(noun.line, f"queue name '{name}' is not valid (valid: 1 to 48 of "
                                   f"A-Z a-z 0-9 . / _ %{generic})")
    return name


def _queue_command(verb: str, object_type: str, noun: _Param, params: list[_Param],
                   line: int) -> MQSCCommand:
    name = _queue_name(noun, verb, object_type)
    if verb == "DISPLAY":
        return _display_command(object_type, name, params, line)
    if (verb, object_type) not in _QUEUE_FLAGS:
        valid = ", ".join(t for v, t in _QUEUE_FLAGS if v == verb)
        raise MQSCError(line, f"{verb} is not valid for {object_type} (valid: {valid})")
    allowed_flags = _QUEUE_FLAGS[(verb, object_type)]
    attributes: dict[str, object] = {}
    flags: set[str] = set()
    for param in params:
        key = _ATTRIBUTE_SYNONYMS.get(param.keyword, param.keyword)
        _check_repeat(key, param, attributes, flags)
        if verb == "DELETE" and key == "AUTHREC" and param.values is not None:
            flags.add(_authrec_flag(param))
        elif param.values is None:
            flags.add(_queue_flag(key, param, verb, object_type, allowed_flags))
        else:
            attributes[key] = _queue_value(key, param, verb, object_type, allowed_flags)
    _check_exclusive(flags, line)
    if verb == "DEFINE" and object_type == "QALIAS" and "TARGET" not in attributes:
        raise MQSCError(line, "is required on DEFINE QALIAS (valid: "
                              f"{QUEUE_ATTRIBUTES['TARGET'].describe()})", "TARGET")
    return MQSCCommand(verb, object_type, name, attributes, frozenset(flags), line)


def _authrec_flag(param: _Param) -> str:
    """DELETE's AUTHREC(YES|NO): whether the object's authority records go with it."""
    value, _ = param.single()
    if value.upper() not in ("YES", "NO"):
        raise MQSCError(param.line, f"value '{value}' is not valid (valid: YES, NO)", "AUTHREC")
    return "AUTHREC" if value.upper() == "YES" else "NOAUTHREC"


def _check_repeat(key: str, param: _Param, attributes: Mapping[str, object],
                  flags: set[str]) -> None:
    if key in attributes or key in flags:
        raise MQSCError(param.line, "given more than once (each parameter may appear once)", key)


def _check_exclusive(flags: set[str], line: int) -> None:
    for one, other in _EXCLUSIVE_FLAGS:
        if one in flags and other in flags:
            raise MQSCError(line, f"{one} and {other} cannot both be given", other)


def _valid_keywords(verb: str, object_type: str, allowed_flags: frozenset[str]) -> str:
    names = set(allowed_flags)
    if verb in ("DEFINE", "ALTER"):
        names |= {k for k, s in attribute_specs(object_type).items()
                  if not s.readonly and s.kind != "flag"}
    return ", ".join(sorted(names)) or "none"


def _queue_flag(key: str, param: _Param, verb: str, object_type: str,
                allowed_flags: frozenset[str]) -> str:
    if key in allowed_flags:
        return key
    spec = QUEUE_ATTRIBUTES.get(key)
    if (spec is not None and spec.kind != "flag" and not spec.readonly
            and object_type in spec.object_types and verb in ("DEFINE", "ALTER")):
        raise MQSCError(param.line, f"needs a value in parentheses, e.g. {key}(...) "
                                    f"(valid: {spec.describe()})", key)
    valid = _valid_keywords(verb, object_type, allowed_flags)
    problem = "unknown keyword for" if spec is None else "not valid on"
    raise MQSCError(param.line, f"{problem} {verb} {object_type} (valid: {valid})", key)


def _queue_value(key: str, param: _Param, verb: str, object_type: str,
                 allowed_flags: frozenset[str]) -> AttributeValue:
    spec = QUEUE_ATTRIBUTES.get(key)
    valid = _valid_keywords(verb, object_type, allowed_flags)
    if key in allowed_flags or (spec is not None and spec.kind == "flag"):
        raise MQSCError(param.line, f"takes no value; write {key} on its own", key)
    if verb not in ("DEFINE", "ALTER"):
        raise MQSCError(param.line, f"not valid on {verb} {object_type} (valid: {valid})", key)
    if spec is None:
        raise MQSCError(param.line, f"unknown attribute for {object_type} (valid: {valid})", key)
    if object_type not in spec.object_types:
        owners = " and ".join(sorted(spec.object_types))
        raise MQSCError(param.line, f"applies to {owners} only, not to {object_type} "
                                    f"(valid: {valid})", key)
    if spec.readonly:
        raise MQSCError(param.line, "is read-only status and can only be displayed", key)
    text, quoted = param.single()
    try:
        return spec.coerce(text, quoted)
    except ValueError as err:
        raise MQSCError(param.line, f"{err} (valid: {spec.describe()})", key) from None


def _display_command(object_type: str, name: str, params: list[_Param],
                     line: int) -> MQSCCommand:
    """DISPLAY: bare keywords are the requested attributes; TYPE and WHERE keep values.

    Requested names are not checked against QUEUE_ATTRIBUTES: MQ's scripts ask for many
    attributes we do not model, and the caller simply has nothing to show for them.
    """
    attributes: dict[str, object] = {}
    flags: set[str] = set()
    for param in params:
        key = _ATTRIBUTE_SYNONYMS.get(param.keyword, param.keyword)
        _check_repeat(key, param, attributes, flags)
        if param.values is None:
            flags.add(key)
        elif key == "TYPE":
            value = param.folded()
            attributes[key] = TYPE_SYNONYMS.get(value, value)
        else:
            attributes[key] = param.folded()
    return MQSCCommand("DISPLAY", object_type, name, attributes, frozenset(flags), line)


def _qmgr_command(verb: str, noun: _Param, params: list[_Param], line: int) -> MQSCCommand:
    """ALTER/DISPLAY QMGR: every attribute is typed; one QMGR_ATTRIBUTES lacks is refused."""
    if noun.values is not None:
        raise MQSCError(line, f"{verb} QMGR takes no name (write {verb} QMGR ...)")
    if verb == "DISPLAY":
        return _display_command("QMGR", "", params, line)
    attributes: dict[str, object] = {}
    flags: set[str] = set()
    for param in params:
        _check_repeat(param.keyword, param, attributes, flags)
        spec = QMGR_ATTRIBUTES.get(param.keyword)
        if param.values is None:
            if spec is not None:
                raise MQSCError(param.line, f"needs a value in parentheses "
                                            f"(valid: {spec.describe()})", param.keyword)
            flags.add(param.keyword)
        elif spec is None:
            valid = ", ".join(sorted(QMGR_ATTRIBUTES))
            raise MQSCError(param.line, f"unknown attribute for ALTER QMGR (valid: {valid})",
                            param.keyword)
        else:
            # a list, SUITEB(128_BIT,192_BIT), is several values in the parentheses
            text, quoted = (param.folded(), True) if spec.kind == "list" else param.single()
            try:
                attributes[param.keyword] = spec.coerce(text, quoted)
            except ValueError as err:
                raise MQSCError(param.line, f"{err} (valid: {spec.describe()})",
                                param.keyword) from None
    return MQSCCommand("ALTER", "QMGR", "", attributes, frozenset(flags), line)


def _generic_command(verb: str, object_type: str, noun: _Param, params: list[_Param],
                     line: int) -> MQSCCommand:
    """A command the embedded queue manager does not model: keep everything as text."""
    name = noun.folded() if noun.values is not None else ""
    attributes: dict[str, object] = {}
    flags: set[str] = set()
    for param in params:
        _check_repeat(param.keyword, param, attributes, flags)
        if param.values is None:
            flags.add(param.keyword)
        else:
            attributes[param.keyword] = param.folded()
    return MQSCCommand(verb, object_type, name, attributes, frozenset(flags), line)


# --------------------------------------------------------------------------------------
# Topics (pub/sub): DEFINE/ALTER/DELETE/DISPLAY TOPIC, typed by TOPIC_ATTRIBUTES
# --------------------------------------------------------------------------------------

_TOPIC_FLAGS: dict[str, frozenset[str]] = {
    "DEFINE": frozenset({"REPLACE", "NOREPLACE"}), "ALTER": frozenset(),
    "DELETE": frozenset(), "DISPLAY": frozenset()}


def _topic_command(verb: str, noun: _Param, params: list[_Param], line: int) -> MQSCCommand:
    if not noun.values or len(noun.values) > 1:
        raise MQSCError(noun.line, f"{verb} TOPIC needs one topic object name, "
                                   f"e.g. {verb} TOPIC(PRICES)")
    text, quoted = noun.single()
    name = text if quoted else text.upper()
    if verb == "DISPLAY":
        if not (_QUEUE_NAME.fullmatch(name) or _GENERIC_NAME.fullmatch(name)):
            raise MQSCError(noun.line, f"topic name '{name}' is not valid")
        return _display_command("TOPIC", name, params, line)
    if not _QUEUE_NAME.fullmatch(name):
        raise MQSCError(noun.line, f"topic name '{name}' is not valid (valid: 1 to 48 of "
                                   "A-Z a-z 0-9 . / _ %)")
    allowed = _TOPIC_FLAGS[verb]
    attributes: dict[str, object] = {}
    flags: set[str] = set()
    for param in params:
        key = param.keyword
        _check_repeat(key, param, attributes, flags)
        spec = TOPIC_ATTRIBUTES.get(key)
        if verb == "DELETE" and key == "AUTHREC" and param.values is not None:
            flags.add(_authrec_flag(param))
        elif param.values is None:
            if key not in allowed:
                valid = ", ".join(sorted(allowed | set(TOPIC_ATTRIBUTES))) if verb != "DELETE" \
                    else ", ".join(sorted(allowed)) or "none"
                problem = "needs a value in parentheses" if spec else "unknown keyword"
                raise MQSCError(param.line, f"{problem} on {verb} TOPIC (valid: {valid})", key)
            flags.add(key)
        elif verb == "DELETE" or (spec is None and key not in OTHER_TOPIC_KEYWORDS):
            valid = ", ".join(sorted(TOPIC_ATTRIBUTES)) if verb != "DELETE" else "none"
            raise MQSCError(param.line, f"not valid on {verb} TOPIC (valid: {valid})", key)
        elif spec is None:   # an attribute MQ has and this queue manager keeps as text
            attributes[key] = _stored_topic_value(key, param)
        else:
            value, value_quoted = param.single()
            try:
                attributes[key] = spec.coerce(value, value_quoted)
            except ValueError as err:
                raise MQSCError(param.line, f"{err} (valid: {spec.describe()})", key) from None
    _check_exclusive(flags, line)
    if verb == "DEFINE" and "TOPICSTR" not in attributes:
        raise MQSCError(line, "is required on DEFINE TOPIC (valid: the topic string, "
                              "e.g. TOPICSTR('price/fruit'))", "TOPICSTR")
    if verb == "ALTER" and "TOPICSTR" in attributes:
        raise MQSCError(line, "cannot be altered (define a new topic object)", "TOPICSTR")
    return MQSCCommand(verb, "TOPIC", name, attributes, frozenset(flags), line)



def _stored_topic_value(key: str, param: _Param) -> str:
    """A kept-only topic attribute: checked against its type, kept as written (the keyword
    of a named number, e.g. CAPEXPRY(ASPARENT), stays a keyword)."""
    spec = STORED_TOPIC_ATTRIBUTES[key]
    text, quoted = param.single()
    try:
        value = spec.coerce(text, quoted)
    except ValueError as err:
        raise MQSCError(param.line, f"{err} (valid: {spec.describe()})", key) from None
    return value if isinstance(value, str) else text.strip().upper()
