"""IBM MQ message selectors (the SelectionString of MQOD/MQSD), compiled once, run per message.

A selector is the SQL-92 subset IBM MQ documents under "Message selector syntax":

    colour = 'red' AND Root.MQMD.Priority > 4 AND NOT (size BETWEEN 1 AND 9)

`compile_selector` turns the text into a tree of closures in three stages -- a tokenizer
(`_lexer`), a recursive-descent parser that builds and type-checks a small AST (`_parser`,
`_ast`), and a compiler that folds constant subtrees and emits one closure per node
(`_compiler`) -- so `Selector.matches` never re-parses and costs a dictionary look-up and a
couple of comparisons for a selector like `colour = 'red'`. This module holds the public API;
`_values` the MQMD fields and JMS names a selector reads, `_errors` the error type.

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

from collections.abc import Callable, Iterable

from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.selector._ast import Const
from spark_mq.mqi.selector._compiler import fold, never_true_culprit, pred_fn, read_names
from spark_mq.mqi.selector._errors import ALWAYS_FALSE, STRING_ERROR, SelectorError
from spark_mq.mqi.selector._lexer import WHITESPACE
from spark_mq.mqi.selector._parser import Parser
from spark_mq.mqi.selector._values import JMS_NAMES, MQMD_FIELDS, Lookup, Predicate
from spark_mq.mqi.selector._values import MQMD_PREFIX as MQMD_PREFIX

__all__ = ["compile_selector", "Selector", "SelectorError", "MQMD_FIELDS", "JMS_NAMES",
           "MAX_SELECTOR_LENGTH"]

#: MQ_SELECTOR_LENGTH: the longest selection string MQ accepts, in bytes (UTF-8 here)
MAX_SELECTOR_LENGTH: int = CMQC.MQ_SELECTOR_LENGTH


def _always(value: bool) -> Callable[[Lookup], bool]:
    return lambda lookup: value


class Selector:
    """A compiled selection string. Immutable and safe to share between threads."""

    __slots__ = ("text", "names", "always_true", "_fn")

    def __init__(self, text: str, fn: Predicate,
                 names: Iterable[str] = (), always_true: bool = False) -> None:
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

    def __reduce__(self) -> tuple[Callable[[str], Selector], tuple[str]]:
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
                STRING_ERROR, position)


def compile_selector(text: str | bytes | bytearray) -> Selector:
    """Parse, check and compile a selection string. Raises SelectorError.

    An empty (or all-blank) string selects every message, as a NULL SelectionString does.
    Bytes are taken as UTF-8.
    """
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SelectorError(f"selection string is not valid UTF-8: {exc}", STRING_ERROR,
                                exc.start) from None
    if not isinstance(text, str):
        raise TypeError(f"a selection string is str, not {type(text).__name__}")
    _check_length(text)
    if not text.strip(WHITESPACE):
        return Selector(text, _always(True), always_true=True)
    tree = fold(Parser(text).parse())
    culprit = never_true_culprit(tree)
    if culprit is not None:
        raise SelectorError(f"selector is always false at position {culprit.pos}: no message "
                            f"can satisfy {text.strip()!r}", ALWAYS_FALSE, culprit.pos)
    if isinstance(tree, Const):                 # TRUE, 1 = 1, TRUE <> FALSE, ...
        return Selector(text, _always(True), always_true=True)
    return Selector(text, pred_fn(tree), read_names(tree))
