"""The selector tokenizer: literals (strings, byte strings, numbers), names, keywords, operators."""
from __future__ import annotations

import math
import re
import unicodedata
from typing import Any, Literal, NamedTuple, TypeAlias

from spark_mq.mqi.selector._errors import syntax_error

KEYWORDS: frozenset[str] = frozenset({"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN",
                                      "LIKE", "IN", "IS", "ESCAPE"})


_TokenKind: TypeAlias = Literal["NUM", "STR", "BYTES", "IDENT", "KW", "OP", "EOF"]


class Token(NamedTuple):
    kind: _TokenKind
    value: Any      # number, text, bytes, identifier, upper-case keyword or operator
    pos: int
    text: str       # the source text, for messages


WHITESPACE = " \t\n\r\f"
_OPERATORS = ("<>", "<=", ">=", "=", "<", ">", "+", "-", "*", "/", "(", ")", ",")
_NUMBER = re.compile(r"""
      (?P<hex> 0[xX][0-9a-fA-F]+ [lL]? )
    | (?P<approx> (?: [0-9]+ \. [0-9]* | \. [0-9]+ ) (?: [eE][+-]?[0-9]+ )? [fFdD]?
                | [0-9]+ [eE][+-]?[0-9]+ [fFdD]?
                | [0-9]+ [fFdD] )
    | (?P<exact> [0-9]+ [lL]? )
""", re.VERBOSE)
_HEX_PAIRS = re.compile(r"0[xX]((?:[0-9a-fA-F]{2})+)")
JAVA_LONG_LIMIT = 2 ** 63    # "numbers in the range of Java long"; 2**63 itself only negated
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


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in WHITESPACE:
            i += 1
        if i >= n:
            tokens.append(Token("EOF", None, n, "end of selector"))
            return tokens
        c = text[i]
        start = i
        if c == "'":
            i, string = _read_string(text, i)
            tokens.append(Token("STR", string, start, text[start:i]))
        elif c == '"':
            i, data = _read_byte_string(text, i)
            tokens.append(Token("BYTES", data, start, text[start:i]))
        elif c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
            i, number = _read_number(text, i)
            tokens.append(Token("NUM", number, start, text[start:i]))
        elif _ident_start(c):
            i += 1
            while i < n and (text[i] == "." or _ident_part(text[i])):
                i += 1
            word = text[start:i]
            _check_dots(word, start)
            if "." not in word and word.upper() in KEYWORDS:
                tokens.append(Token("KW", word.upper(), start, word))
            else:
                tokens.append(Token("IDENT", word, start, word))
        else:
            for op in _OPERATORS:
                if text.startswith(op, i):
                    if op == "=" and text.startswith("==", i):
                        raise syntax_error(i, "'==' is not valid: use a single = to test equality")
                    tokens.append(Token("OP", op, start, op))
                    i += len(op)
                    break
            else:
                for bad, hint in _FOREIGN_OPERATORS.items():
                    if text.startswith(bad, i):
                        raise syntax_error(i, f"'{bad}' is not valid in a selector: {hint}")
                raise syntax_error(i, f"unexpected character {c!r}")


def _read_string(text: str, i: int) -> tuple[int, str]:
    """A '...' literal; '' inside stands for one quote. Returns (end, value)."""
    parts: list[str] = []
    j = i + 1
    while True:
        k = text.find("'", j)
        if k < 0:
            raise syntax_error(i, "string literal has no closing quote")
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
        raise syntax_error(i, 'byte string has no closing double quote')
    body = text[i + 1:k]
    if not body.startswith(("0x", "0X")):
        raise syntax_error(i, 'double quotes enclose only byte strings such as "0x0AFC23"; '
                           "string literals take single quotes")
    match = _HEX_PAIRS.fullmatch(body)
    if match is None:
        digits = body[2:]
        if not digits:
            raise syntax_error(i, "a byte string needs at least one byte")
        if all(c in "0123456789abcdefABCDEF" for c in digits):
            raise syntax_error(i, "a byte string needs an even number of hex digits")
        raise syntax_error(i, f"byte string {text[i:k + 1]} has a character that is not a hex digit")
    return k + 1, bytes.fromhex(match.group(1))


def _read_number(text: str, i: int) -> tuple[int, int | float]:
    match = _NUMBER.match(text, i)
    if match is None:       # cannot happen: called on a digit or on '.' + digit
        raise syntax_error(i, "invalid number")
    end = match.end()
    if end < len(text) and (_ident_part(text[end]) or text[end] == "."):
        raise syntax_error(i, f"invalid numeric literal {text[i:end + 1]!r}")
    if match.group("hex"):
        value = int(match.group("hex").rstrip("lL")[2:], 16)
    elif match.group("approx"):
        approx = float(match.group("approx").rstrip("fFdD"))
        if math.isinf(approx):
            raise syntax_error(i, "approximate numeric literal is out of range")
        return end, approx
    else:
        digits = match.group("exact").rstrip("lL")
        if len(digits) > 1 and digits[0] == "0":
            # MQ reads a leading zero as octal: 0177 is 127, and 09 is a syntax error
            if any(d in "89" for d in digits):
                raise syntax_error(i, f"{digits} is not a valid octal number (a leading 0 means octal)")
            value = int(digits, 8)
        else:
            value = int(digits)
    if value > JAVA_LONG_LIMIT:
        raise syntax_error(i, "exact numeric literal is out of range")
    return end, value


def _check_dots(word: str, start: int) -> None:
    # property names use '.' to group ("usr.colour"), but not at the end and never two in a row
    if word.endswith("."):
        raise syntax_error(start + len(word) - 1, f"identifier {word!r} cannot end with '.'")
    double = word.find("..")
    if double >= 0:
        raise syntax_error(start + double + 1, f"identifier {word!r} has an empty part between dots")
