"""The selector syntax tree: one node class per construct, each with a static type.

The static types let the parser reject what MQ rejects (arithmetic on strings, '<' on booleans,
a bare number as a condition) instead of silently never matching.
"""
from __future__ import annotations

import re
from typing import Any, ClassVar, Literal, TypeAlias

from spark_mq.mqi.selector._values import Getter

# "bool" is a condition or TRUE/FALSE; "any" a property, whose type is known only per message.
_StaticType: TypeAlias = Literal["num", "str", "bytes", "bool", "any"]


class Node:
    __slots__ = ("pos",)
    pos: int                # offset in the selection string, for error messages
    STYPE: ClassVar[_StaticType] = "bool"   # the static type of every node of the class

    @property
    def stype(self) -> _StaticType:
        return self.STYPE


class Const(Node):
    __slots__ = ("value",)

    def __init__(self, value: Any, pos: int) -> None:
        # a literal or folded value: bool, int, float, str, bytes, or None for UNKNOWN
        self.value, self.pos = value, pos

    @property
    def stype(self) -> _StaticType:
        v = self.value
        if v is True or v is False or v is None:
            return "bool"
        if isinstance(v, str):
            return "str"
        if isinstance(v, bytes):
            return "bytes"
        return "num"


def _reader(key: str) -> Getter:
    return lambda lookup: lookup(key)


class Ident(Node):
    __slots__ = ("name", "key", "get", "names", "id_like")
    STYPE = "any"

    def __init__(self, name: str, pos: int, source: str | Getter, names: tuple[str, ...],
                 id_like: bool = False) -> None:
        # source: the canonical name when the raw lookup value is used as is, or a function of
        # lookup when the value needs a mapping (MQMD text, JMS synonyms)
        self.name, self.pos, self.names, self.id_like = name, pos, names, id_like
        # key is set only for a raw value, so the compiler can inline lookup(key) (the fast path)
        self.key: str | None = source if isinstance(source, str) else None
        self.get: Getter = _reader(source) if isinstance(source, str) else source


class Neg(Node):
    __slots__ = ("operand",)
    STYPE = "num"

    def __init__(self, operand: Node, pos: int) -> None:
        self.operand, self.pos = operand, pos


class Arith(Node):
    __slots__ = ("op", "left", "right")
    STYPE = "num"

    def __init__(self, op: str, left: Node, right: Node, pos: int) -> None:
        self.op, self.left, self.right, self.pos = op, left, right, pos


class Compare(Node):
    __slots__ = ("op", "left", "right")

    def __init__(self, op: str, left: Node, right: Node, pos: int) -> None:
        self.op, self.left, self.right, self.pos = op, left, right, pos


class Between(Node):
    __slots__ = ("operand", "low", "high", "negated")

    def __init__(self, operand: Node, low: Node, high: Node, negated: bool, pos: int) -> None:
        self.operand, self.low, self.high, self.negated, self.pos = operand, low, high, negated, pos


class In(Node):
    __slots__ = ("operand", "values", "negated")

    def __init__(self, operand: Ident, values: frozenset[str], negated: bool, pos: int) -> None:
        self.operand, self.values, self.negated, self.pos = operand, values, negated, pos


class Like(Node):
    __slots__ = ("operand", "regex", "negated")

    def __init__(self, operand: Ident, regex: re.Pattern[str], negated: bool, pos: int) -> None:
        self.operand, self.regex, self.negated, self.pos = operand, regex, negated, pos


class IsNull(Node):
    __slots__ = ("operand", "negated")

    def __init__(self, operand: Node, negated: bool, pos: int) -> None:
        self.operand, self.negated, self.pos = operand, negated, pos


class Not(Node):
    __slots__ = ("operand",)

    def __init__(self, operand: Node, pos: int) -> None:
        self.operand, self.pos = operand, pos


class Junction(Node):
    """AND / OR over two or more conditions (flattened, so a AND b AND c is one node)."""
    __slots__ = ("items",)

    def __init__(self, items: list[Node], pos: int) -> None:
        self.items, self.pos = items, pos


class And(Junction):
    __slots__ = ()


class Or(Junction):
    __slots__ = ()
