"""The recursive-descent selector parser: tokens -> type-checked syntax tree.

It also resolves each name to what the lookup is asked for (enforcing MQ's property-name
rules) and turns LIKE patterns into regular expressions.
"""
from __future__ import annotations

import re

from spark_mq.mqi.selector._ast import (
    And,
    Arith,
    Between,
    Compare,
    Const,
    Ident,
    In,
    IsNull,
    Like,
    Neg,
    Node,
    Not,
    Or,
)
from spark_mq.mqi.selector._errors import syntax_error
from spark_mq.mqi.selector._lexer import JAVA_LONG_LIMIT, KEYWORDS, Token, tokenize
from spark_mq.mqi.selector._values import (
    JMS_NAMES,
    JMS_SYNONYMS,
    MQMD_BYTE_FIELDS,
    MQMD_CHAR_FIELDS,
    MQMD_FIELDS,
    MQMD_PREFIX,
    byte_field,
    char_field,
    mqmd_field,
    normalise_id_literal,
)

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


class Parser:
    def __init__(self, text: str) -> None:
        self.tokens = tokenize(text)
        self.i = 0

    # token helpers
    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def advance(self) -> Token:
        tok = self.tokens[self.i]
        if tok.kind != "EOF":
            self.i += 1
        return tok

    def at_kw(self, word: str, offset: int = 0) -> bool:
        tok = self.tokens[min(self.i + offset, len(self.tokens) - 1)]
        return tok.kind == "KW" and tok.value == word

    def at_op(self, op: str) -> bool:
        return self.tok.kind == "OP" and self.tok.value == op

    def expect_op(self, op: str, context: str) -> Token:
        if not self.at_op(op):
            raise syntax_error(self.tok.pos, f"expected '{op}' {context} but found {self.tok.text!r}")
        return self.advance()

    def expect_kw(self, word: str, context: str) -> Token:
        if not self.at_kw(word):
            raise syntax_error(self.tok.pos, f"expected {word} {context} but found {self.tok.text!r}")
        return self.advance()

    # grammar
    def parse(self) -> Node:
        node = self.condition(self.parse_or())
        if self.tok.kind != "EOF":
            raise syntax_error(self.tok.pos, f"unexpected {self.tok.text!r} after a complete condition")
        return node

    def condition(self, node: Node) -> Node:
        # AND/OR/NOT and the selector itself need TRUE/FALSE/UNKNOWN; a property may hold a
        # boolean, but a number or string literal (or arithmetic) never can.
        if node.stype not in ("bool", "any"):
            raise syntax_error(node.pos, "expected a condition (such as a comparison), not a value")
        return node

    def parse_or(self) -> Node:
        first = self.parse_and()
        if not self.at_kw("OR"):
            return first
        items = [self.condition(first)]
        while self.at_kw("OR"):
            self.advance()
            items.append(self.condition(self.parse_and()))
        return Or(items, first.pos)

    def parse_and(self) -> Node:
        first = self.parse_not()
        if not self.at_kw("AND"):
            return first
        items = [self.condition(first)]
        while self.at_kw("AND"):
            self.advance()
            items.append(self.condition(self.parse_not()))
        return And(items, first.pos)

    def parse_not(self) -> Node:
        if self.at_kw("NOT"):
            pos = self.advance().pos
            return Not(self.condition(self.parse_not()), pos)
        return self.parse_predicate()

    def parse_predicate(self) -> Node:
        left = self.parse_sum()
        tok = self.tok
        if tok.kind == "OP" and tok.value in _COMPARISONS:
            self.advance()
            right = self.parse_sum()
            node = self.make_compare(tok.value, left, right, left.pos)
            nxt = self.tok
            if nxt.kind == "OP" and nxt.value in _COMPARISONS:
                raise syntax_error(nxt.pos, "comparisons cannot be chained (write 20 < b AND b < 30)")
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
            return IsNull(left, is_not, left.pos)
        return left

    def numeric(self, node: Node, what: str) -> Node:
        if node.stype not in ("num", "any"):
            kind = {"str": "a string", "bytes": "a byte string", "bool": "a condition or boolean"}
            raise syntax_error(node.pos, f"{what} needs numbers, not {kind[node.stype]}")
        return node

    def make_compare(self, op: str, left: Node, right: Node, pos: int) -> Node:
        if op not in ("=", "<>"):
            # "String and Boolean comparison is restricted to = and <>"
            self.numeric(left, f"'{op}'")
            self.numeric(right, f"'{op}'")
        left, right = _normalise_id_operands(left, right)
        return Compare(op, left, right, pos)

    def parse_between(self, operand: Node, negated: bool) -> Node:
        self.advance()
        low = self.parse_sum()
        self.expect_kw("AND", "between the BETWEEN bounds")
        high = self.parse_sum()
        for node in (operand, low, high):
            self.numeric(node, "BETWEEN")
        return Between(operand, low, high, negated, operand.pos)

    def require_identifier(self, node: Node, what: str) -> Ident:
        if not isinstance(node, Ident):
            raise syntax_error(node.pos, f"{what} needs a property name on its left")
        return node

    def parse_in(self, operand: Node, negated: bool) -> Node:
        self.advance()
        ident = self.require_identifier(operand, "IN")
        self.expect_op("(", "after IN")
        values: list[str] = []
        while True:
            tok = self.tok
            if tok.kind != "STR":
                raise syntax_error(tok.pos, f"IN lists take string literals only, found {tok.text!r}")
            self.advance()
            values.append(normalise_id_literal(tok.value) if ident.id_like else tok.value)
            if self.at_op(","):
                self.advance()
                continue
            self.expect_op(")", "to close the IN list")
            return In(ident, frozenset(values), negated, ident.pos)

    def parse_like(self, operand: Node, negated: bool) -> Node:
        self.advance()
        ident = self.require_identifier(operand, "LIKE")
        pattern = self.tok
        if pattern.kind != "STR":
            raise syntax_error(pattern.pos, f"LIKE needs a string pattern, found {pattern.text!r}")
        self.advance()
        escape: str | None = None
        if self.at_kw("ESCAPE"):
            self.advance()
            tok = self.tok
            if tok.kind != "STR" or len(tok.value) != 1:
                raise syntax_error(tok.pos, "ESCAPE needs a string literal of exactly one character")
            self.advance()
            escape = tok.value
        return Like(ident, _like_regex(pattern.value, escape, pattern.pos), negated, ident.pos)

    def parse_sum(self) -> Node:
        node = self.parse_term()
        while self.tok.kind == "OP" and self.tok.value in ("+", "-"):
            tok = self.advance()
            right = self.parse_term()
            node = Arith(tok.value, self.numeric(node, f"'{tok.value}'"),
                         self.numeric(right, f"'{tok.value}'"), node.pos)
        return node

    def parse_term(self) -> Node:
        node = self.parse_unary()
        while self.tok.kind == "OP" and self.tok.value in ("*", "/"):
            tok = self.advance()
            right = self.parse_unary()
            node = Arith(tok.value, self.numeric(node, f"'{tok.value}'"),
                         self.numeric(right, f"'{tok.value}'"), node.pos)
        return node

    def parse_unary(self) -> Node:
        if self.tok.kind == "OP" and self.tok.value in ("+", "-"):
            tok = self.advance()
            nxt = self.tok      # a local: mypy would keep self.tok.kind narrowed to "OP"
            if tok.value == "-" and nxt.kind == "NUM" and nxt.value == JAVA_LONG_LIMIT:
                self.advance()      # -9223372036854775808: the one literal valid only negated
                return Const(-JAVA_LONG_LIMIT, tok.pos)
            operand = self.numeric(self.parse_unary(), f"unary '{tok.value}'")
            if tok.value == "+":
                return operand
            if isinstance(operand, Const):      # -957 is a literal, not an operation
                return Const(-operand.value, tok.pos)
            return Neg(operand, tok.pos)
        if self.tok.kind == "NUM" and self.tok.value == JAVA_LONG_LIMIT:
            raise syntax_error(self.tok.pos, "exact numeric literal is out of range")
        return self.parse_primary()

    def parse_primary(self) -> Node:
        tok = self.tok
        if tok.kind in ("NUM", "STR", "BYTES"):
            self.advance()
            return Const(tok.value, tok.pos)
        if tok.kind == "KW":
            if tok.value in ("TRUE", "FALSE"):
                self.advance()
                return Const(tok.value == "TRUE", tok.pos)
            if tok.value == "NULL":
                raise syntax_error(tok.pos, "NULL can only be tested with IS NULL or IS NOT NULL")
            raise syntax_error(tok.pos, f"unexpected keyword {tok.text!r}; expected a value")
        if tok.kind == "IDENT":
            self.advance()
            return _identifier(tok.value, tok.pos)
        if self.at_op("("):
            self.advance()
            node = self.parse_or()
            self.expect_op(")", "to close the parenthesis")
            return node
        if tok.kind == "EOF":
            raise syntax_error(tok.pos, "selector ends where a value was expected")
        raise syntax_error(tok.pos, f"unexpected {tok.text!r}; expected a value")


def _normalise_id_operands(left: Node, right: Node) -> tuple[Node, Node]:
    for ident, other in ((left, right), (right, left)):
        if isinstance(ident, Ident) and ident.id_like and isinstance(other, Const) \
                and isinstance(other.value, str):
            fixed = Const(normalise_id_literal(other.value), other.pos)
            return (ident, fixed) if ident is left else (fixed, ident)
    return left, right


def _identifier(name: str, pos: int) -> Ident:
    """Resolve a name to what the lookup is asked for, enforcing MQ's property-name rules."""
    if name.startswith(MQMD_PREFIX):
        field = name[len(MQMD_PREFIX):]
        if field not in MQMD_FIELDS:
            raise syntax_error(pos, f"{name!r} is not a selectable MQMD field (field names are "
                               f"case-sensitive; StrucId and Version are excluded)")
        if field in MQMD_CHAR_FIELDS:
            return Ident(name, pos, mqmd_field(field, char_field), (name,))
        if field in MQMD_BYTE_FIELDS:
            return Ident(name, pos, mqmd_field(field, byte_field), (name,))
        return Ident(name, pos, name, (name,))
    if name == "Root" or name.startswith("Root."):
        # Root.XMLNSC..., Root.MQRFH2...: content filtering needs an extended message
        # selection provider (IBM Integration Bus); a queue manager alone has none.
        raise syntax_error(pos, f"{name!r}: only Root.MQMD.<Field> can be selected on; selecting "
                           f"on message content is not supported")
    if name.startswith("JMS"):
        synonym = JMS_SYNONYMS.get(name)
        if synonym is None:
            raise syntax_error(pos, f"{name!r}: names beginning 'JMS' are reserved; only the JMS "
                               f"header synonyms ({', '.join(JMS_NAMES)}) can be selected on")
        return Ident(name, pos, synonym.get, synonym.names, synonym.id_like)
    prop = name
    if name.startswith("usr."):
        prop = name[4:]          # the usr folder is the default one: usr.colour is colour
        if prop.startswith("JMS"):
            raise syntax_error(pos, f"{name!r}: property names beginning 'usr.JMS' are not valid")
        if prop.upper() in KEYWORDS:
            raise syntax_error(pos, f"{name!r}: {prop} is a selector keyword, not a property name")
    if prop[:2].lower() == "mq" and prop[:6].lower() != "mq_usr" and prop.count(".") > 1:
        raise syntax_error(pos, f"{name!r}: names beginning 'mq' may contain only one '.'")
    return Ident(name, pos, prop, (prop,))


def _like_regex(pattern: str, escape: str | None, pos: int) -> re.Pattern[str]:
    """LIKE pattern -> regex: '_' is any one character, '%' any run (even empty)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == escape:
            i += 1
            if i == len(pattern):
                raise syntax_error(pos, "LIKE pattern ends with its escape character")
            out.append(re.escape(pattern[i]))
        elif c == "%":
            out.append(".*")
        elif c == "_":
            out.append(".")
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out), re.DOTALL)
