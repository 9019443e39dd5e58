"""Selector evaluation: the three-valued primitives, the tree -> closures compiler, constant
folding and the proof that a selector can never be TRUE (MQRC_SELECTOR_ALWAYS_FALSE)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spark_mq.mqi.selector._ast import (
    And,
    Arith,
    Between,
    Compare,
    Const,
    Ident,
    In,
    IsNull,
    Junction,
    Like,
    Neg,
    Node,
    Not,
    Or,
)
from spark_mq.mqi.selector._values import Getter, Lookup, Predicate

# --------------------------------------------------------------------------------------------
# Evaluation primitives (three-valued: True, False, None = UNKNOWN/NULL)
# --------------------------------------------------------------------------------------------

_NUM, _STR, _BOOL, _BYTES = "num", "str", "bool", "bytes"
_KINDS: dict[type, str] = {int: _NUM, float: _NUM, str: _STR, bool: _BOOL, bytes: _BYTES,
                           bytearray: _BYTES, memoryview: _BYTES}


def _kind(value: object) -> str | None:
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


_ORDER: dict[str, Callable[[Any, Any], bool]] = {
    "<": lambda a, b: a < b, ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b,
}


def _compare(op: str, a: object, b: object) -> bool | None:
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

def _value_fn(node: Node) -> Getter:
    """A function of lookup giving the node's value (None for NULL/UNKNOWN)."""
    if isinstance(node, Const):
        value = node.value
        return lambda lookup: value
    if isinstance(node, Ident):
        return node.get
    if isinstance(node, Neg):
        inner = _value_fn(node.operand)
        return lambda lookup: _negate(inner(lookup))
    if isinstance(node, Arith):
        op, left, right = node.op, _value_fn(node.left), _value_fn(node.right)
        return lambda lookup: _arith(op, left(lookup), right(lookup))
    return pred_fn(node)       # a condition used as a value, e.g. (a = 1) = TRUE


def pred_fn(node: Node) -> Predicate:
    """A function of lookup giving True, False or None (UNKNOWN)."""
    if isinstance(node, Const):
        value = node.value if node.value is True or node.value is False else None
        return lambda lookup: value
    if isinstance(node, Ident):
        get = _value_fn(node)

        def boolean_property(lookup: Lookup) -> bool | None:
            value = get(lookup)
            return value if value is True or value is False else None
        return boolean_property
    if isinstance(node, Compare):
        return _compare_fn(node)
    if isinstance(node, Between):
        return _between_fn(node)
    if isinstance(node, In):
        return _in_fn(node)
    if isinstance(node, Like):
        return _like_fn(node)
    if isinstance(node, IsNull):
        get, negated = _value_fn(node.operand), node.negated
        return lambda lookup: (get(lookup) is None) is not negated
    if isinstance(node, Not):
        inner = pred_fn(node.operand)

        def not_(lookup: Lookup) -> bool | None:
            result = inner(lookup)
            return None if result is None else not result
        return not_
    if isinstance(node, And):
        return _and_fn([pred_fn(item) for item in node.items])
    if isinstance(node, Or):
        return _or_fn([pred_fn(item) for item in node.items])
    raise AssertionError(f"not a condition: {type(node).__name__}")


_FLIPPED = {"=": "=", "<>": "<>", "<": ">", ">": "<", "<=": ">=", ">=": "<="}


def _compare_fn(node: Compare) -> Predicate:
    op, left, right = node.op, node.left, node.right
    if isinstance(left, Const) and isinstance(right, Ident):
        left, right, op = right, left, _FLIPPED[op]
    if isinstance(left, Ident) and isinstance(right, Const) and left.key is not None \
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


def _between_fn(node: Between) -> Predicate:
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


def _in_fn(node: In) -> Predicate:
    get, values, negated = _value_fn(node.operand), node.values, node.negated

    def in_(lookup: Lookup) -> bool | None:
        value = get(lookup)
        if _kind(value) != _STR:
            return None             # NULL, or not a string: UNKNOWN either way
        return (value in values) is not negated
    return in_


def _like_fn(node: Like) -> Predicate:
    get, fullmatch, negated = _value_fn(node.operand), node.regex.fullmatch, node.negated

    def like(lookup: Lookup) -> bool | None:
        value = get(lookup)
        if _kind(value) != _STR:
            return None
        return (fullmatch(value) is not None) is not negated
    return like


def _and_fn(items: list[Predicate]) -> Predicate:
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


def _or_fn(items: list[Predicate]) -> Predicate:
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

def _children(node: Node) -> list[Node]:
    if isinstance(node, (Neg, Not, IsNull, In, Like)):
        return [node.operand]
    if isinstance(node, (Arith, Compare)):
        return [node.left, node.right]
    if isinstance(node, Between):
        return [node.operand, node.low, node.high]
    if isinstance(node, Junction):
        return list(node.items)
    return []


def fold(node: Node) -> Node:
    """Replace every subtree that reads no property by its value (exact under 3VL)."""
    if isinstance(node, (Const, Ident)):
        return node
    if isinstance(node, Junction):
        items = [fold(item) for item in node.items]
        absorbing = isinstance(node, Or)       # TRUE absorbs an OR, FALSE an AND
        kept: list[Node] = []
        for item in items:
            if isinstance(item, Const):
                if item.value is absorbing:
                    return item     # keeps its position for the always-false report
                if item.value is (not absorbing):
                    continue        # the identity element drops out
            kept.append(item)
        if not kept:
            return Const(not absorbing, node.pos)
        if all(isinstance(item, Const) for item in kept):     # only UNKNOWNs are left
            return Const(None, node.pos)
        if len(kept) == 1 and not isinstance(kept[0], Ident):
            return kept[0]          # a lone property stays wrapped: AND/OR make it boolean
        return type(node)(kept, node.pos)
    # rebuild with folded children, then evaluate if nothing in it reads a property
    if isinstance(node, (Neg, Not, IsNull, In, Like)):
        node.operand = fold(node.operand)
    elif isinstance(node, (Arith, Compare)):
        node.left, node.right = fold(node.left), fold(node.right)
    elif isinstance(node, Between):
        node.operand, node.low, node.high = (fold(node.operand), fold(node.low),
                                             fold(node.high))
    if all(isinstance(child, Const) for child in _children(node)):
        value = (pred_fn(node) if node.stype == "bool" else _value_fn(node))(_no_lookup)
        return Const(value, node.pos)
    return node


def _can_be(node: Node, wanted: bool) -> bool:
    """Could this condition evaluate to `wanted` for some message?"""
    if isinstance(node, Const):
        return node.value is wanted
    if isinstance(node, Not):
        return _can_be(node.operand, not wanted)
    if isinstance(node, Junction):
        # AND is TRUE only if every item can be; it is FALSE if any item can be (OR mirrored)
        every = isinstance(node, And) == wanted
        results = (_can_be(item, wanted) for item in node.items)
        return all(results) if every else any(results)
    return True


def never_true_culprit(node: Node) -> Node | None:
    """The sub-condition that makes the selector never TRUE, or None if it might be TRUE."""
    if _can_be(node, True):
        return None
    if isinstance(node, And):
        for item in node.items:
            if not _can_be(item, True):
                return never_true_culprit(item) or item
    return node


def read_names(node: Node) -> set[str]:
    if isinstance(node, Ident):
        return set(node.names)
    found: set[str] = set()
    for child in _children(node):
        found |= read_names(child)
    return found
