"""IBM MQ message selectors (the SelectionString of MQOD/MQSD), compiled once, run per message.

A selector is the SQL-92 subset IBM MQ documents under "Message selector syntax":

    colour = 'red' AND Root.MQMD.Priority > 4 AND NOT (size BETWEEN 1 AND 9)

`compile_selector` turns the text into a tree of closures in three stages -- a tokenizer, a
recursive-descent parser that builds (and type-checks) a small AST, and a compiler that folds
constant subtrees and emits one closure per node -- so `Selector.matches` never re-parses and
costs a dictionary look-up and a couple of comparisons for a selector like `colour = 'red'`.

Values are read through a caller-supplied ``lookup(name) -> value | None``. It receives
canonical names only: a message property's name (``usr.`` prefix already removed) or
``"Root.MQMD.<Field>"`` for a message-descriptor field, so one function serves both.
JMS header names (JMSPriority, JMSCorrelationID, ...) are translated here into those names
plus the value mapping IBM MQ classes for JMS apply.

Evaluation follows SQL three-valued logic: a missing property (lookup returns None) is NULL,
anything involving NULL is UNKNOWN, and a message is selected only when the whole selector is
TRUE. Values of unlike types (string against number, boolean against number, byte string
against string, ...) never compare equal or unequal: the comparison is UNKNOWN, so neither
``x = 1`` nor ``NOT (x = 1)`` selects a message whose ``x`` is a string. int and float compare
numerically; strings, booleans and byte strings allow only ``=`` and ``<>``.

Errors raise `SelectorError` carrying the MQ reason code and the 0-based character offset:
MQRC_SELECTOR_SYNTAX_ERROR for anything malformed (including invalid property names),
MQRC_SELECTOR_ALWAYS_FALSE when the selector can be proven never TRUE before any message is
seen, MQRC_SELECTION_STRING_ERROR when it is longer than MQ_SELECTOR_LENGTH bytes.
"""
from __future__ import annotations

import datetime
import math
import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from spark_mq.mqi.constants import CMQC

__all__ = ["compile_selector", "Selector", "SelectorError", "MQMD_FIELDS", "JMS_NAMES",
           "MAX_SELECTOR_LENGTH"]

Lookup = Callable[[str], Any]

#: MQ_SELECTOR_LENGTH: the longest selection string MQ accepts, in bytes (UTF-8 here)
MAX_SELECTOR_LENGTH: int = CMQC.MQ_SELECTOR_LENGTH

#: MQMD fields a selector can name as Root.MQMD.<Field>: every field except StrucId and
#: Version ("Message descriptor fields as properties"), spelt as in the C declaration.
MQMD_FIELDS: tuple[str, ...] = (
    "Report", "MsgType", "Expiry", "Feedback", "Encoding", "CodedCharSetId", "Format",
    "Priority", "Persistence", "MsgId", "CorrelId", "BackoutCount", "ReplyToQ", "ReplyToQMgr",
    "UserIdentifier", "AccountingToken", "ApplIdentityData", "PutApplType", "PutApplName",
    "PutDate", "PutTime", "ApplOriginData", "GroupId", "MsgSeqNumber", "Offset", "MsgFlags",
    "OriginalLength",
)
MQMD_PREFIX = "Root.MQMD."

# MQCHARn fields arrive blank padded (often as bytes); MQBYTEn fields are compared as bytes.
_MQMD_CHAR_FIELDS = frozenset({
    "Format", "ReplyToQ", "ReplyToQMgr", "UserIdentifier", "ApplIdentityData", "PutApplName",
    "PutDate", "PutTime", "ApplOriginData"})
_MQMD_BYTE_FIELDS = frozenset({"MsgId", "CorrelId", "AccountingToken", "GroupId"})

_KEYWORDS = frozenset({"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN",
                       "IS", "ESCAPE"})

_SYNTAX = CMQC.MQRC_SELECTOR_SYNTAX_ERROR
_ALWAYS_FALSE = CMQC.MQRC_SELECTOR_ALWAYS_FALSE
_STRING_ERROR = CMQC.MQRC_SELECTION_STRING_ERROR


class SelectorError(Exception):
    """A selection string MQ would refuse: `reason` is the MQRC, `position` a 0-based offset."""

    def __init__(self, message: str, reason: int, position: int):
        super().__init__(message)
        self.reason = reason
        self.position = position


def _syntax(position: int, detail: str) -> SelectorError:
    return SelectorError(f"selector syntax error at position {position}: {detail}",
                         _SYNTAX, position)


# --------------------------------------------------------------------------------------------
# Values: MQMD normalisation and the JMS header synonyms
# --------------------------------------------------------------------------------------------

def _char_field(raw: Any) -> Any:
    """An MQCHARn field as MQ compares it: text up to a NUL, trailing blanks dropped.

    Queue managers hand these fields back blank padded; without trimming no literal such as
    'MQSTR' could ever equal Format. Bytes are decoded (UTF-8, else Latin-1, which never fails).
    """
    if isinstance(raw, (bytes, bytearray, memoryview)):
        raw = bytes(raw)
        end = raw.find(b"\0")
        if end >= 0:
            raw = raw[:end]
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raw = raw.decode("latin-1")
        return raw.rstrip(" ")
    if isinstance(raw, str):
        end = raw.find("\0")
        return (raw[:end] if end >= 0 else raw).rstrip(" ")
    return raw


def _byte_field(raw: Any) -> Any:
    if isinstance(raw, (bytearray, memoryview)):
        return bytes(raw)
    return raw


def _mqlong(raw: Any) -> int | None:
    # the JMS mappings below do arithmetic on MQLONG fields; anything else is NULL to them
    return raw if isinstance(raw, int) and not isinstance(raw, bool) else None


def _jms_id(raw: Any) -> str | None:
    """MsgId/CorrelId/GroupId as JMS shows them: 'ID:' + lowercase hex; all zeros is NULL."""
    if isinstance(raw, str):
        return raw                  # the caller already holds the JMS form
    if not isinstance(raw, (bytes, bytearray, memoryview)):
        return None
    raw = bytes(raw)
    if not raw.strip(b"\0"):
        return None
    return "ID:" + raw.hex()


def _normalise_id_literal(text: str) -> str:
    # JMS applications copy IDs from logs in either case; the mapped value is lowercase hex.
    body = text[3:]
    if text.startswith("ID:") and body and all(c in "0123456789abcdefABCDEF" for c in body):
        return "ID:" + body.lower()
    return text


def _put_millis(lookup: Lookup) -> int | None:
    """JMSTimestamp: PutDate (YYYYMMDD) + PutTime (HHMMSSTH), GMT, as ms since the epoch."""
    date = _char_field(lookup(MQMD_PREFIX + "PutDate"))
    clock = _char_field(lookup(MQMD_PREFIX + "PutTime"))
    if not (isinstance(date, str) and isinstance(clock, str)):
        return None
    if len(date) != 8 or len(clock) < 6 or not (date + clock).isdigit():
        return None
    try:
        stamp = datetime.datetime(int(date[:4]), int(date[4:6]), int(date[6:8]),
                                  int(clock[:2]), int(clock[2:4]), int(clock[4:6]),
                                  tzinfo=datetime.timezone.utc)
    except ValueError:
        return None
    hundredths = int(clock[6:8]) if len(clock) >= 8 else 0
    return int(stamp.timestamp()) * 1000 + hundredths * 10


def _jms_expiration(lookup: Lookup) -> int | None:
    """JMSExpiration: 0 for unlimited, else put time + Expiry (tenths of a second) in ms."""
    expiry = _mqlong(lookup(MQMD_PREFIX + "Expiry"))
    if expiry is None:
        return None
    if expiry == CMQC.MQEI_UNLIMITED:
        return 0
    put = _put_millis(lookup)
    return None if put is None else put + expiry * 100


def _jms_delivery_mode(lookup: Lookup) -> str | None:
    persistence = _mqlong(lookup(MQMD_PREFIX + "Persistence"))
    if persistence == CMQC.MQPER_PERSISTENT:
        return "PERSISTENT"
    if persistence == CMQC.MQPER_NOT_PERSISTENT:
        return "NON_PERSISTENT"
    return None


def _jms_reply_to(lookup: Lookup) -> str | None:
    queue = _char_field(lookup(MQMD_PREFIX + "ReplyToQ"))
    if not queue:
        return None
    qmgr = _char_field(lookup(MQMD_PREFIX + "ReplyToQMgr")) or ""
    return f"queue://{qmgr}/{queue}"


def _jms_redelivered(lookup: Lookup) -> bool | None:
    count = _mqlong(lookup(MQMD_PREFIX + "BackoutCount"))
    return None if count is None else count > 0


def _jms_delivery_count(lookup: Lookup) -> int | None:
    count = _mqlong(lookup(MQMD_PREFIX + "BackoutCount"))
    return None if count is None else count + 1


def _field(name: str, convert: Callable[[Any], Any] | None = None) -> Callable[[Lookup], Any]:
    key = MQMD_PREFIX + name
    if convert is None:
        return lambda lookup: lookup(key)
    return lambda lookup: convert(lookup(key))


class _Synonym(NamedTuple):
    names: tuple[str, ...]          # canonical names the value is read from
    get: Callable[[Lookup], Any]
    id_like: bool = False           # value is a JMS 'ID:<hex>' string


# The synonyms IBM MQ lists under "Property name restrictions": the only names beginning with
# "JMS" an MQI application (and so a selector) may use.
_JMS_SYNONYMS: dict[str, _Synonym] = {
    "JMSCorrelationID": _Synonym(("Root.MQMD.CorrelId",), _field("CorrelId", _jms_id), True),
    "JMSMessageID": _Synonym(("Root.MQMD.MsgId",), _field("MsgId", _jms_id), True),
    "JMSDeliveryMode": _Synonym(("Root.MQMD.Persistence",), _jms_delivery_mode),
    "JMSPriority": _Synonym(("Root.MQMD.Priority",), _field("Priority")),
    "JMSTimestamp": _Synonym(("Root.MQMD.PutDate", "Root.MQMD.PutTime"), _put_millis),
    "JMSExpiration": _Synonym(("Root.MQMD.Expiry", "Root.MQMD.PutDate", "Root.MQMD.PutTime"),
                              _jms_expiration),
    "JMSRedelivered": _Synonym(("Root.MQMD.BackoutCount",), _jms_redelivered),
    "JMSReplyTo": _Synonym(("Root.MQMD.ReplyToQ", "Root.MQMD.ReplyToQMgr"), _jms_reply_to),
    "JMSType": _Synonym(("mcd.Type",), lambda lookup: lookup("mcd.Type")),
    "JMSDestination": _Synonym(("jms.Dst",), lambda lookup: lookup("jms.Dst")),
    "JMSXAppID": _Synonym(("Root.MQMD.PutApplName",), _field("PutApplName", _char_field)),
    "JMSXDeliveryCount": _Synonym(("Root.MQMD.BackoutCount",), _jms_delivery_count),
    "JMSXGroupID": _Synonym(("Root.MQMD.GroupId",), _field("GroupId", _jms_id), True),
    "JMSXGroupSeq": _Synonym(("Root.MQMD.MsgSeqNumber",), _field("MsgSeqNumber")),
    "JMSXUserID": _Synonym(("Root.MQMD.UserIdentifier",), _field("UserIdentifier", _char_field)),
}
#: JMS names a selector may use (each maps onto MQMD fields or an mcd/jms folder property)
JMS_NAMES: tuple[str, ...] = tuple(_JMS_SYNONYMS)


# --------------------------------------------------------------------------------------------
# Tokenizer
# --------------------------------------------------------------------------------------------

class _Token(NamedTuple):
    kind: str       # NUM STR BYTES IDENT KW OP EOF
    value: Any      # number, text, bytes, identifier, upper-case keyword or operator
    pos: int
    text: str       # the source text, for messages


_WHITESPACE = " \t\n\r\f"
_OPERATORS = ("<>", "<=", ">=", "=", "<", ">", "+", "-", "*", "/", "(", ")", ",")
_NUMBER = re.compile(r"""
      (?P<hex> 0[xX][0-9a-fA-F]+ [lL]? )
    | (?P<approx> (?: [0-9]+ \. [0-9]* | \. [0-9]+ ) (?: [eE][+-]?[0-9]+ )? [fFdD]?
                | [0-9]+ [eE][+-]?[0-9]+ [fFdD]?
                | [0-9]+ [fFdD] )
    | (?P<exact> [0-9]+ [lL]? )
""", re.VERBOSE)
_HEX_PAIRS = re.compile(r"0[xX]((?:[0-9a-fA-F]{2})+)")
_JAVA_LONG_LIMIT = 2 ** 63    # "numbers in the range of Java long"; 2**63 itself only negated
# operators other languages use that MQ's "rules and restrictions" page calls out as invalid
_FOREIGN_OPERATORS = {"!=": "use <> for 'not equal'", "==": "use a single = to test equality",
                      "&&": "use AND", "||": "use OR", "&": "use AND", "|": "use OR",
                      "!": "use NOT"}


def _ident_start(c: str) -> bool:
    # Java identifier start: letters, currency symbols, connecting punctuation (_), letter numbers
    if c.isascii():
        return c.isalpha() or c == "_" or c == "$"
    return unicodedata.category(c) in ("Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Sc", "Pc")


def _ident_part(c: str) -> bool:
    if c.isascii():
        return c.isalnum() or c == "_" or c == "$"
    return _ident_start(c) or unicodedata.category(c) in ("Nd", "Mn", "Mc", "Cf")


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in _WHITESPACE:
            i += 1
        if i >= n:
            tokens.append(_Token("EOF", None, n, "end of selector"))
            return tokens
        c = text[i]
        start = i
        if c == "'":
            i, value = _read_string(text, i)
            tokens.append(_Token("STR", value, start, text[start:i]))
        elif c == '"':
            i, value = _read_byte_string(text, i)
            tokens.append(_Token("BYTES", value, start, text[start:i]))
        elif c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
            i, value = _read_number(text, i)
            tokens.append(_Token("NUM", value, start, text[start:i]))
        elif _ident_start(c):
            i += 1
            while i < n and (text[i] == "." or _ident_part(text[i])):
                i += 1
            word = text[start:i]
            _check_dots(word, start)
            if "." not in word and word.upper() in _KEYWORDS:
                tokens.append(_Token("KW", word.upper(), start, word))
            else:
                tokens.append(_Token("IDENT", word, start, word))
        else:
            for op in _OPERATORS:
                if text.startswith(op, i):
                    if op == "=" and text.startswith("==", i):
                        raise _syntax(i, "'==' is not valid: use a single = to test equality")
                    tokens.append(_Token("OP", op, start, op))
                    i += len(op)
                    break
            else:
                for bad, hint in _FOREIGN_OPERATORS.items():
                    if text.startswith(bad, i):
                        raise _syntax(i, f"'{bad}' is not valid in a selector: {hint}")
                raise _syntax(i, f"unexpected character {c!r}")


def _read_string(text: str, i: int) -> tuple[int, str]:
    """A '...' literal; '' inside stands for one quote. Returns (end, value)."""
    parts = []
    j = i + 1
    while True:
        k = text.find("'", j)
        if k < 0:
            raise _syntax(i, "string literal has no closing quote")
        parts.append(text[j:k])
        if text.startswith("''", k):
            parts.append("'")
            j = k + 2
        else:
            return k + 1, "".join(parts)


def _read_byte_string(text: str, i: int) -> tuple[int, bytes]:
    """MQ's byte-string literal: "0x" + pairs of hex digits, in double quotes ("0x0AFC23").

    Double quotes enclose nothing else in a selector; an odd digit count is a syntax error
    ("0xAFC23"), and leading/trailing zero bytes are significant.
    """
    k = text.find('"', i + 1)
    if k < 0:
        raise _syntax(i, 'byte string has no closing double quote')
    body = text[i + 1:k]
    if not body.startswith(("0x", "0X")):
        raise _syntax(i, 'double quotes enclose only byte strings such as "0x0AFC23"; '
                         "string literals take single quotes")
    match = _HEX_PAIRS.fullmatch(body)
    if match is None:
        digits = body[2:]
        if not digits:
            raise _syntax(i, "a byte string needs at least one byte")
        if all(c in "0123456789abcdefABCDEF" for c in digits):
            raise _syntax(i, "a byte string needs an even number of hex digits")
        raise _syntax(i, f"byte string {text[i:k + 1]} has a character that is not a hex digit")
    return k + 1, bytes.fromhex(match.group(1))


def _read_number(text: str, i: int) -> tuple[int, Any]:
    match = _NUMBER.match(text, i)
    if match is None:       # cannot happen: called on a digit or on '.' + digit
        raise _syntax(i, "invalid number")
    end = match.end()
    if end < len(text) and (_ident_part(text[end]) or text[end] == "."):
        raise _syntax(i, f"invalid numeric literal {text[i:end + 1]!r}")
    if match.group("hex"):
        value = int(match.group("hex").rstrip("lL")[2:], 16)
    elif match.group("approx"):
        value = float(match.group("approx").rstrip("fFdD"))
        if math.isinf(value):
            raise _syntax(i, "approximate numeric literal is out of range")
        return end, value
    else:
        digits = match.group("exact").rstrip("lL")
        if len(digits) > 1 and digits[0] == "0":
            # MQ reads a leading zero as octal: 0177 is 127, and 09 is a syntax error
            if any(d in "89" for d in digits):
                raise _syntax(i, f"{digits} is not a valid octal number (a leading 0 means octal)")
            value = int(digits, 8)
        else:
            value = int(digits)
    if value > _JAVA_LONG_LIMIT:
        raise _syntax(i, "exact numeric literal is out of range")
    return end, value


def _check_dots(word: str, start: int) -> None:
    # property names use '.' to group ("usr.colour"), but not at the end and never two in a row
    if word.endswith("."):
        raise _syntax(start + len(word) - 1, f"identifier {word!r} cannot end with '.'")
    double = word.find("..")
    if double >= 0:
        raise _syntax(start + double + 1, f"identifier {word!r} has an empty part between dots")


# --------------------------------------------------------------------------------------------
# AST
# --------------------------------------------------------------------------------------------
# Static types: "num", "str", "bytes", "bool" (a condition or TRUE/FALSE), "any" (a property,
# known only per message). They let the parser reject what MQ rejects (arithmetic on strings,
# '<' on booleans, a bare number as a condition) instead of silently never matching.

class _Node:
    __slots__ = ("pos",)
    stype = "bool"


class _Const(_Node):
    __slots__ = ("value",)

    def __init__(self, value: Any, pos: int):
        self.value, self.pos = value, pos

    @property
    def stype(self) -> str:  # type: ignore[override]
        v = self.value
        if v is True or v is False or v is None:
            return "bool"
        if isinstance(v, str):
            return "str"
        if isinstance(v, bytes):
            return "bytes"
        return "num"


class _Ident(_Node):
    __slots__ = ("name", "key", "get", "names", "id_like")
    stype = "any"

    def __init__(self, name: str, pos: int, key: str | None, get: Callable | None,
                 names: tuple[str, ...], id_like: bool = False):
        # key: the canonical name when the raw lookup value is used as is (the fast path);
        # get: a function of lookup when the value needs a mapping (MQMD text, JMS synonyms)
        self.name, self.pos, self.key, self.get = name, pos, key, get
        self.names, self.id_like = names, id_like


class _Neg(_Node):
    __slots__ = ("operand",)
    stype = "num"

    def __init__(self, operand: _Node, pos: int):
        self.operand, self.pos = operand, pos


class _Arith(_Node):
    __slots__ = ("op", "left", "right")
    stype = "num"

    def __init__(self, op: str, left: _Node, right: _Node, pos: int):
        self.op, self.left, self.right, self.pos = op, left, right, pos


class _Compare(_Node):
    __slots__ = ("op", "left", "right")

    def __init__(self, op: str, left: _Node, right: _Node, pos: int):
        self.op, self.left, self.right, self.pos = op, left, right, pos


class _Between(_Node):
    __slots__ = ("operand", "low", "high", "negated")

    def __init__(self, operand: _Node, low: _Node, high: _Node, negated: bool, pos: int):
        self.operand, self.low, self.high, self.negated, self.pos = operand, low, high, negated, pos


class _In(_Node):
    __slots__ = ("operand", "values", "negated")

    def __init__(self, operand: _Ident, values: frozenset, negated: bool, pos: int):
        self.operand, self.values, self.negated, self.pos = operand, values, negated, pos


class _Like(_Node):
    __slots__ = ("operand", "regex", "negated")

    def __init__(self, operand: _Ident, regex: re.Pattern, negated: bool, pos: int):
        self.operand, self.regex, self.negated, self.pos = operand, regex, negated, pos


class _IsNull(_Node):
    __slots__ = ("operand", "negated")

    def __init__(self, operand: _Node, negated: bool, pos: int):
        self.operand, self.negated, self.pos = operand, negated, pos


class _Not(_Node):
    __slots__ = ("operand",)

    def __init__(self, operand: _Node, pos: int):
        self.operand, self.pos = operand, pos


class _Junction(_Node):
    """AND / OR over two or more conditions (flattened, so a AND b AND c is one node)."""
    __slots__ = ("items",)

    def __init__(self, items: list[_Node], pos: int):
        self.items, self.pos = items, pos


class _And(_Junction):
    __slots__ = ()


class _Or(_Junction):
    __slots__ = ()


# --------------------------------------------------------------------------------------------
# Parser
# --------------------------------------------------------------------------------------------
#   selector  := or EOF
#   or        := and (OR and)*
#   and       := not (AND not)*
#   not       := NOT not | predicate
#   predicate := sum [ cmp-op sum | [NOT] BETWEEN sum AND sum | [NOT] IN '(' str {, str} ')'
#                    | [NOT] LIKE str [ESCAPE str] | IS [NOT] NULL ]
#   sum       := term (('+' | '-') term)*
#   term      := unary (('*' | '/') unary)*
#   unary     := ('+' | '-') unary | primary
#   primary   := NUM | STR | BYTES | TRUE | FALSE | identifier | '(' or ')'

_COMPARISONS = frozenset({"=", "<>", "<", ">", "<=", ">="})


class _Parser:
    def __init__(self, text: str):
        self.tokens = _tokenize(text)
        self.i = 0

    # token helpers
    @property
    def tok(self) -> _Token:
        return self.tokens[self.i]

    def advance(self) -> _Token:
        tok = self.tokens[self.i]
        if tok.kind != "EOF":
            self.i += 1
        return tok

    def at_kw(self, word: str, offset: int = 0) -> bool:
        tok = self.tokens[min(self.i + offset, len(self.tokens) - 1)]
        return tok.kind == "KW" and tok.value == word

    def at_op(self, op: str) -> bool:
        return self.tok.kind == "OP" and self.tok.value == op

    def expect_op(self, op: str, context: str) -> _Token:
        if not self.at_op(op):
            raise _syntax(self.tok.pos, f"expected '{op}' {context} but found {self.tok.text!r}")
        return self.advance()

    def expect_kw(self, word: str, context: str) -> _Token:
        if not self.at_kw(word):
            raise _syntax(self.tok.pos, f"expected {word} {context} but found {self.tok.text!r}")
        return self.advance()

    # grammar
    def parse(self) -> _Node:
        node = self.condition(self.parse_or())
        if self.tok.kind != "EOF":
            raise _syntax(self.tok.pos, f"unexpected {self.tok.text!r} after a complete condition")
        return node

    def condition(self, node: _Node) -> _Node:
        # AND/OR/NOT and the selector itself need TRUE/FALSE/UNKNOWN; a property may hold a
        # boolean, but a number or string literal (or arithmetic) never can.
        if node.stype not in ("bool", "any"):
            raise _syntax(node.pos, "expected a condition (such as a comparison), not a value")
        return node

    def parse_or(self) -> _Node:
        first = self.parse_and()
        if not self.at_kw("OR"):
            return first
        items = [self.condition(first)]
        while self.at_kw("OR"):
            self.advance()
            items.append(self.condition(self.parse_and()))
        return _Or(items, first.pos)

    def parse_and(self) -> _Node:
        first = self.parse_not()
        if not self.at_kw("AND"):
            return first
        items = [self.condition(first)]
        while self.at_kw("AND"):
            self.advance()
            items.append(self.condition(self.parse_not()))
        return _And(items, first.pos)

    def parse_not(self) -> _Node:
        if self.at_kw("NOT"):
            pos = self.advance().pos
            return _Not(self.condition(self.parse_not()), pos)
        return self.parse_predicate()

    def parse_predicate(self) -> _Node:
        left = self.parse_sum()
        tok = self.tok
        if tok.kind == "OP" and tok.value in _COMPARISONS:
            self.advance()
            right = self.parse_sum()
            node = self.make_compare(tok.value, left, right, left.pos)
            nxt = self.tok
            if nxt.kind == "OP" and nxt.value in _COMPARISONS:
                raise _syntax(nxt.pos, "comparisons cannot be chained (write 20 < b AND b < 30)")
            return node
        negated = False
        if self.at_kw("NOT") and (self.at_kw("BETWEEN", 1) or self.at_kw("IN", 1)
                                  or self.at_kw("LIKE", 1)):
            self.advance()
            negated = True
        if self.at_kw("BETWEEN"):
            return self.parse_between(left, negated)
        if self.at_kw("IN"):
            return self.parse_in(left, negated)
        if self.at_kw("LIKE"):
            return self.parse_like(left, negated)
        if self.at_kw("IS"):
            self.advance()
            is_not = False
            if self.at_kw("NOT"):
                self.advance()
                is_not = True
            self.expect_kw("NULL", "after IS" + (" NOT" if is_not else ""))
            return _IsNull(left, is_not, left.pos)
        return left

    def numeric(self, node: _Node, what: str) -> _Node:
        if node.stype not in ("num", "any"):
            kind = {"str": "a string", "bytes": "a byte string", "bool": "a condition or boolean"}
            raise _syntax(node.pos, f"{what} needs numbers, not {kind[node.stype]}")
        return node

    def make_compare(self, op: str, left: _Node, right: _Node, pos: int) -> _Node:
        if op not in ("=", "<>"):
            # "String and Boolean comparison is restricted to = and <>"
            self.numeric(left, f"'{op}'")
            self.numeric(right, f"'{op}'")
        left, right = _normalise_id_operands(left, right)
        return _Compare(op, left, right, pos)

    def parse_between(self, operand: _Node, negated: bool) -> _Node:
        self.advance()
        low = self.parse_sum()
        self.expect_kw("AND", "between the BETWEEN bounds")
        high = self.parse_sum()
        for node in (operand, low, high):
            self.numeric(node, "BETWEEN")
        return _Between(operand, low, high, negated, operand.pos)

    def require_identifier(self, node: _Node, what: str) -> _Ident:
        if not isinstance(node, _Ident):
            raise _syntax(node.pos, f"{what} needs a property name on its left")
        return node

    def parse_in(self, operand: _Node, negated: bool) -> _Node:
        self.advance()
        ident = self.require_identifier(operand, "IN")
        self.expect_op("(", "after IN")
        values = []
        while True:
            tok = self.tok
            if tok.kind != "STR":
                raise _syntax(tok.pos, f"IN lists take string literals only, found {tok.text!r}")
            self.advance()
            values.append(_normalise_id_literal(tok.value) if ident.id_like else tok.value)
            if self.at_op(","):
                self.advance()
                continue
            self.expect_op(")", "to close the IN list")
            return _In(ident, frozenset(values), negated, ident.pos)

    def parse_like(self, operand: _Node, negated: bool) -> _Node:
        self.advance()
        ident = self.require_identifier(operand, "LIKE")
        pattern = self.tok
        if pattern.kind != "STR":
            raise _syntax(pattern.pos, f"LIKE needs a string pattern, found {pattern.text!r}")
        self.advance()
        escape = None
        if self.at_kw("ESCAPE"):
            self.advance()
            tok = self.tok
            if tok.kind != "STR" or len(tok.value) != 1:
                raise _syntax(tok.pos, "ESCAPE needs a string literal of exactly one character")
            self.advance()
            escape = tok.value
        return _Like(ident, _like_regex(pattern.value, escape, pattern.pos), negated, ident.pos)

    def parse_sum(self) -> _Node:
        node = self.parse_term()
        while self.tok.kind == "OP" and self.tok.value in ("+", "-"):
            tok = self.advance()
            right = self.parse_term()
            node = _Arith(tok.value, self.numeric(node, f"'{tok.value}'"),
                          self.numeric(right, f"'{tok.value}'"), node.pos)
        return node

    def parse_term(self) -> _Node:
        node = self.parse_unary()
        while self.tok.kind == "OP" and self.tok.value in ("*", "/"):
            tok = self.advance()
            right = self.parse_unary()
            node = _Arith(tok.value, self.numeric(node, f"'{tok.value}'"),
                          self.numeric(right, f"'{tok.value}'"), node.pos)
        return node

    def parse_unary(self) -> _Node:
        if self.tok.kind == "OP" and self.tok.value in ("+", "-"):
            tok = self.advance()
            if tok.value == "-" and self.tok.kind == "NUM" and self.tok.value == _JAVA_LONG_LIMIT:
                self.advance()      # -9223372036854775808: the one literal valid only negated
                return _Const(-_JAVA_LONG_LIMIT, tok.pos)
            operand = self.numeric(self.parse_unary(), f"unary '{tok.value}'")
            if tok.value == "+":
                return operand
            if isinstance(operand, _Const):      # -957 is a literal, not an operation
                return _Const(-operand.value, tok.pos)
            return _Neg(operand, tok.pos)
        if self.tok.kind == "NUM" and self.tok.value == _JAVA_LONG_LIMIT:
            raise _syntax(self.tok.pos, "exact numeric literal is out of range")
        return self.parse_primary()

    def parse_primary(self) -> _Node:
        tok = self.tok
        if tok.kind in ("NUM", "STR", "BYTES"):
            self.advance()
            return _Const(tok.value, tok.pos)
        if tok.kind == "KW":
            if tok.value in ("TRUE", "FALSE"):
                self.advance()
                return _Const(tok.value == "TRUE", tok.pos)
            if tok.value == "NULL":
                raise _syntax(tok.pos, "NULL can only be tested with IS NULL or IS NOT NULL")
            raise _syntax(tok.pos, f"unexpected keyword {tok.text!r}; expected a value")
        if tok.kind == "IDENT":
            self.advance()
            return _identifier(tok.value, tok.pos)
        if self.at_op("("):
            self.advance()
            node = self.parse_or()
            self.expect_op(")", "to close the parenthesis")
            return node
        if tok.kind == "EOF":
            raise _syntax(tok.pos, "selector ends where a value was expected")
        raise _syntax(tok.pos, f"unexpected {tok.text!r}; expected a value")


def _normalise_id_operands(left: _Node, right: _Node) -> tuple[_Node, _Node]:
    for ident, other in ((left, right), (right, left)):
        if isinstance(ident, _Ident) and ident.id_like and isinstance(other, _Const) \
                and isinstance(other.value, str):
            fixed = _Const(_normalise_id_literal(other.value), other.pos)
            return (ident, fixed) if ident is left else (fixed, ident)
    return left, right


def _identifier(name: str, pos: int) -> _Ident:
    """Resolve a name to what the lookup is asked for, enforcing MQ's property-name rules."""
    if name.startswith(MQMD_PREFIX):
        field = name[len(MQMD_PREFIX):]
        if field not in MQMD_FIELDS:
            raise _syntax(pos, f"{name!r} is not a selectable MQMD field (field names are "
                               f"case-sensitive; StrucId and Version are excluded)")
        if field in _MQMD_CHAR_FIELDS:
            return _Ident(name, pos, None, _field(field, _char_field), (name,))
        if field in _MQMD_BYTE_FIELDS:
            return _Ident(name, pos, None, _field(field, _byte_field), (name,))
        return _Ident(name, pos, name, None, (name,))
    if name == "Root" or name.startswith("Root."):
        # Root.XMLNSC..., Root.MQRFH2...: content filtering needs an extended message
        # selection provider (IBM Integration Bus); a queue manager alone has none.
        raise _syntax(pos, f"{name!r}: only Root.MQMD.<Field> can be selected on; selecting "
                           f"on message content is not supported")
    if name.startswith("JMS"):
        synonym = _JMS_SYNONYMS.get(name)
        if synonym is None:
            raise _syntax(pos, f"{name!r}: names beginning 'JMS' are reserved; only the JMS "
                               f"header synonyms ({', '.join(JMS_NAMES)}) can be selected on")
        return _Ident(name, pos, None, synonym.get, synonym.names, synonym.id_like)
    prop = name
    if name.startswith("usr."):
        prop = name[4:]          # the usr folder is the default one: usr.colour is colour
        if prop.startswith("JMS"):
            raise _syntax(pos, f"{name!r}: property names beginning 'usr.JMS' are not valid")
        if prop.upper() in _KEYWORDS:
            raise _syntax(pos, f"{name!r}: {prop} is a selector keyword, not a property name")
    if prop[:2].lower() == "mq" and prop[:6].lower() != "mq_usr" and prop.count(".") > 1:
        raise _syntax(pos, f"{name!r}: names beginning 'mq' may contain only one '.'")
    return _Ident(name, pos, prop, None, (prop,))


def _like_regex(pattern: str, escape: str | None, pos: int) -> re.Pattern:
    """LIKE pattern -> regex: '_' is any one character, '%' any run (even empty)."""
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == escape:
            i += 1
            if i == len(pattern):
                raise _syntax(pos, "LIKE pattern ends with its escape character")
            out.append(re.escape(pattern[i]))
        elif c == "%":
            out.append(".*")
        elif c == "_":
            out.append(".")
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out), re.DOTALL)


# --------------------------------------------------------------------------------------------
# Evaluation primitives (three-valued: True, False, None = UNKNOWN/NULL)
# --------------------------------------------------------------------------------------------

_NUM, _STR, _BOOL, _BYTES = "num", "str", "bool", "bytes"
_KINDS = {int: _NUM, float: _NUM, str: _STR, bool: _BOOL, bytes: _BYTES,
          bytearray: _BYTES, memoryview: _BYTES}


def _kind(value: Any) -> str | None:
    kind = _KINDS.get(value.__class__)
    if kind is not None:
        return kind
    # subclasses (IntEnum, numpy scalars registered as numbers, ...): bool before int
    if isinstance(value, bool):
        return _BOOL
    if isinstance(value, (int, float)):
        return _NUM
    if isinstance(value, str):
        return _STR
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _BYTES
    return None


_ORDER = {
    "<": lambda a, b: a < b, ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b,
}


def _compare(op: str, a: Any, b: Any) -> bool | None:
    if a is None or b is None:
        return None
    kind = _kind(a)
    if kind is None or kind != _kind(b):
        return None                 # unlike types: UNKNOWN, never an exception
    if op == "=":
        return a == b
    if op == "<>":
        return a != b
    if kind != _NUM:
        return None                 # ordering is defined for numbers only
    return _ORDER[op](a, b)


def _arith(op: str, a: Any, b: Any) -> Any:
    if a is None or b is None or _kind(a) != _NUM or _kind(b) != _NUM:
        return None
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        return None                 # Java would throw (long) or give Infinity: treat as UNKNOWN
    if isinstance(a, int) and isinstance(b, int):
        quotient = abs(a) // abs(b)  # Java long division truncates toward zero
        return quotient if (a < 0) == (b < 0) else -quotient
    return a / b


def _negate(a: Any) -> Any:
    return -a if a is not None and _kind(a) == _NUM else None


def _no_lookup(name: str) -> Any:
    raise AssertionError(f"constant expression asked for {name!r}")


# --------------------------------------------------------------------------------------------
# Compiler: AST -> closures
# --------------------------------------------------------------------------------------------

def _value_fn(node: _Node) -> Callable[[Lookup], Any]:
    """A function of lookup giving the node's value (None for NULL/UNKNOWN)."""
    if isinstance(node, _Const):
        value = node.value
        return lambda lookup: value
    if isinstance(node, _Ident):
        if node.get is not None:
            return node.get
        key = node.key
        return lambda lookup: lookup(key)
    if isinstance(node, _Neg):
        inner = _value_fn(node.operand)
        return lambda lookup: _negate(inner(lookup))
    if isinstance(node, _Arith):
        op, left, right = node.op, _value_fn(node.left), _value_fn(node.right)
        return lambda lookup: _arith(op, left(lookup), right(lookup))
    return _pred_fn(node)       # a condition used as a value, e.g. (a = 1) = TRUE


def _pred_fn(node: _Node) -> Callable[[Lookup], bool | None]:
    """A function of lookup giving True, False or None (UNKNOWN)."""
    if isinstance(node, _Const):
        value = node.value if node.value is True or node.value is False else None
        return lambda lookup: value
    if isinstance(node, _Ident):
        get = _value_fn(node)

        def boolean_property(lookup: Lookup) -> bool | None:
            value = get(lookup)
            return value if value is True or value is False else None
        return boolean_property
    if isinstance(node, _Compare):
        return _compare_fn(node)
    if isinstance(node, _Between):
        return _between_fn(node)
    if isinstance(node, _In):
        return _in_fn(node)
    if isinstance(node, _Like):
        return _like_fn(node)
    if isinstance(node, _IsNull):
        get, negated = _value_fn(node.operand), node.negated
        return lambda lookup: (get(lookup) is None) is not negated
    if isinstance(node, _Not):
        inner = _pred_fn(node.operand)

        def not_(lookup: Lookup) -> bool | None:
            result = inner(lookup)
            return None if result is None else not result
        return not_
    if isinstance(node, _And):
        return _and_fn([_pred_fn(item) for item in node.items])
    if isinstance(node, _Or):
        return _or_fn([_pred_fn(item) for item in node.items])
    raise AssertionError(f"not a condition: {type(node).__name__}")


_FLIPPED = {"=": "=", "<>": "<>", "<": ">", ">": "<", "<=": ">=", ">=": "<="}


def _compare_fn(node: _Compare) -> Callable[[Lookup], bool | None]:
    op, left, right = node.op, node.left, node.right
    if isinstance(left, _Const) and isinstance(right, _Ident):
        left, right, op = right, left, _FLIPPED[op]
    if isinstance(left, _Ident) and isinstance(right, _Const) and left.get is None \
            and right.value is not None:
        # The hot path: property <op> literal. Read the raw value and test its exact type
        # before falling back to the general rules (subclasses, unlike types, NULL).
        key, const = left.key, right.value
        exact = type(const)
        if op in ("=", "<>"):
            equal = op == "="

            def eq_literal(lookup: Lookup) -> bool | None:
                value = lookup(key)
                if value.__class__ is exact:
                    return (value == const) is equal
                return _compare(op, value, const)
            return eq_literal
        if op in _ORDER and (exact is int or exact is float):
            order = _ORDER[op]

            def order_literal(lookup: Lookup) -> bool | None:
                value = lookup(key)
                cls = value.__class__
                if cls is int or cls is float:
                    return order(value, const)
                return _compare(op, value, const)
            return order_literal
    lf, rf = _value_fn(left), _value_fn(right)
    return lambda lookup: _compare(op, lf(lookup), rf(lookup))


def _between_fn(node: _Between) -> Callable[[Lookup], bool | None]:
    get, low, high, negated = (_value_fn(node.operand), _value_fn(node.low),
                               _value_fn(node.high), node.negated)

    def between(lookup: Lookup) -> bool | None:
        # x BETWEEN a AND b is x >= a AND x <= b, with the AND three-valued
        value = get(lookup)
        above = _compare(">=", value, low(lookup))
        if above is False:
            return negated
        below = _compare("<=", value, high(lookup))
        if below is False:
            return negated
        if above is None or below is None:
            return None
        return not negated
    return between


def _in_fn(node: _In) -> Callable[[Lookup], bool | None]:
    get, values, negated = _value_fn(node.operand), node.values, node.negated

    def in_(lookup: Lookup) -> bool | None:
        value = get(lookup)
        if _kind(value) != _STR:
            return None             # NULL, or not a string: UNKNOWN either way
        return (value in values) is not negated
    return in_


def _like_fn(node: _Like) -> Callable[[Lookup], bool | None]:
    get, fullmatch, negated = _value_fn(node.operand), node.regex.fullmatch, node.negated

    def like(lookup: Lookup) -> bool | None:
        value = get(lookup)
        if _kind(value) != _STR:
            return None
        return (fullmatch(value) is not None) is not negated
    return like


def _and_fn(items: list[Callable]) -> Callable[[Lookup], bool | None]:
    if len(items) == 2:
        first, second = items

        def and2(lookup: Lookup) -> bool | None:
            a = first(lookup)
            if a is False:
                return False
            b = second(lookup)
            if b is False:
                return False
            return None if a is None or b is None else True
        return and2

    def and_(lookup: Lookup) -> bool | None:
        result: bool | None = True
        for item in items:
            value = item(lookup)
            if value is False:
                return False
            if value is None:
                result = None
        return result
    return and_


def _or_fn(items: list[Callable]) -> Callable[[Lookup], bool | None]:
    if len(items) == 2:
        first, second = items

        def or2(lookup: Lookup) -> bool | None:
            a = first(lookup)
            if a is True:
                return True
            b = second(lookup)
            if b is True:
                return True
            return None if a is None or b is None else False
        return or2

    def or_(lookup: Lookup) -> bool | None:
        result: bool | None = False
        for item in items:
            value = item(lookup)
            if value is True:
                return True
            if value is None:
                result = None
        return result
    return or_


# --------------------------------------------------------------------------------------------
# Constant folding and the always-false proof
# --------------------------------------------------------------------------------------------

def _children(node: _Node) -> list[_Node]:
    if isinstance(node, (_Neg, _Not, _IsNull, _In, _Like)):
        return [node.operand]
    if isinstance(node, (_Arith, _Compare)):
        return [node.left, node.right]
    if isinstance(node, _Between):
        return [node.operand, node.low, node.high]
    if isinstance(node, _Junction):
        return list(node.items)
    return []


def _fold(node: _Node) -> _Node:
    """Replace every subtree that reads no property by its value (exact under 3VL)."""
    if isinstance(node, (_Const, _Ident)):
        return node
    if isinstance(node, _Junction):
        items = [_fold(item) for item in node.items]
        absorbing = isinstance(node, _Or)       # TRUE absorbs an OR, FALSE an AND
        kept = []
        for item in items:
            if isinstance(item, _Const):
                if item.value is absorbing:
                    return item     # keeps its position for the always-false report
                if item.value is (not absorbing):
                    continue        # the identity element drops out
            kept.append(item)
        if not kept:
            return _Const(not absorbing, node.pos)
        if all(isinstance(item, _Const) for item in kept):     # only UNKNOWNs are left
            return _Const(None, node.pos)
        if len(kept) == 1 and not isinstance(kept[0], _Ident):
            return kept[0]          # a lone property stays wrapped: AND/OR make it boolean
        return type(node)(kept, node.pos)
    # rebuild with folded children, then evaluate if nothing in it reads a property
    if isinstance(node, (_Neg, _Not, _IsNull, _In, _Like)):
        node.operand = _fold(node.operand)
    elif isinstance(node, (_Arith, _Compare)):
        node.left, node.right = _fold(node.left), _fold(node.right)
    elif isinstance(node, _Between):
        node.operand, node.low, node.high = (_fold(node.operand), _fold(node.low),
                                             _fold(node.high))
    if all(isinstance(child, _Const) for child in _children(node)):
        value = (_pred_fn(node) if node.stype == "bool" else _value_fn(node))(_no_lookup)
        return _Const(value, node.pos)
    return node


def _can_be(node: _Node, wanted: bool) -> bool:
    """Could this condition evaluate to `wanted` for some message?"""
    if isinstance(node, _Const):
        return node.value is wanted
    if isinstance(node, _Not):
        return _can_be(node.operand, not wanted)
    if isinstance(node, _Junction):
        # AND is TRUE only if every item can be; it is FALSE if any item can be (OR mirrored)
        every = isinstance(node, _And) == wanted
        results = (_can_be(item, wanted) for item in node.items)
        return all(results) if every else any(results)
    return True


def _never_true_culprit(node: _Node) -> _Node | None:
    """The sub-condition that makes the selector never TRUE, or None if it might be TRUE."""
    if _can_be(node, True):
        return None
    if isinstance(node, _And):
        for item in node.items:
            if not _can_be(item, True):
                return _never_true_culprit(item) or item
    return node


def _names(node: _Node) -> set[str]:
    if isinstance(node, _Ident):
        return set(node.names)
    found: set[str] = set()
    for child in _children(node):
        found |= _names(child)
    return found


# --------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------

def _always(value: bool) -> Callable[[Lookup], bool]:
    return lambda lookup: value


class Selector:
    """A compiled selection string. Immutable and safe to share between threads."""

    __slots__ = ("text", "names", "always_true", "_fn")

    def __init__(self, text: str, fn: Callable[[Lookup], bool | None],
                 names: Iterable[str] = (), always_true: bool = False):
        #: the selection string as given
        self.text = text
        #: canonical names `matches` may pass to lookup (properties and Root.MQMD.<Field>)
        self.names: frozenset[str] = frozenset(names)
        #: True when every message matches (an empty selector, or one such as TRUE <> FALSE)
        self.always_true = always_true
        self._fn = fn

    def matches(self, lookup: Lookup) -> bool:
        """True when the selector evaluates to TRUE (not FALSE or UNKNOWN) for one message.

        lookup(name) returns the property's value (bool, int, float, str or bytes) or None
        when the message has no such property. Names are property names as the application
        set them, or "Root.MQMD.<Field>" for the message descriptor: MQCHARn fields may be
        str or blank-padded bytes, MQBYTEn fields bytes, the rest int.
        """
        return self._fn(lookup) is True

    def __repr__(self) -> str:
        return f"Selector({self.text!r})"

    def __reduce__(self):
        # closures do not pickle; the text recompiles to the same selector
        return compile_selector, (self.text,)


def _check_length(text: str) -> None:
    if len(text) * 4 <= MAX_SELECTOR_LENGTH:     # cannot exceed the limit even as UTF-8
        return
    size = 0
    for position, char in enumerate(text):
        size += len(char.encode("utf-8", "surrogatepass"))
        if size > MAX_SELECTOR_LENGTH:
            total = len(text.encode("utf-8", "surrogatepass"))
            raise SelectorError(
                f"selection string is {total} bytes, longer than MQ_SELECTOR_LENGTH "
                f"({MAX_SELECTOR_LENGTH}); the limit is passed at position {position}",
                _STRING_ERROR, position)


def compile_selector(text: str) -> Selector:
    """Parse, check and compile a selection string. Raises SelectorError.

    An empty (or all-blank) string selects every message, as a NULL SelectionString does.
    """
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SelectorError(f"selection string is not valid UTF-8: {exc}", _STRING_ERROR,
                                exc.start) from None
    if not isinstance(text, str):
        raise TypeError(f"a selection string is str, not {type(text).__name__}")
    _check_length(text)
    if not text.strip(_WHITESPACE):
        return Selector(text, _always(True), always_true=True)
    tree = _fold(_Parser(text).parse())
    culprit = _never_true_culprit(tree)
    if culprit is not None:
        raise SelectorError(f"selector is always false at position {culprit.pos}: no message "
                            f"can satisfy {text.strip()!r}", _ALWAYS_FALSE, culprit.pos)
    if isinstance(tree, _Const):                 # TRUE, 1 = 1, TRUE <> FALSE, ...
        return Selector(text, _always(True), always_true=True)
    return Selector(text, _pred_fn(tree), _names(tree))
