"""Which subscriptions a topic string matches (runs in the queue-manager process).

Two wildcard schemes, chosen per subscription by its MQSD options:

* topic-based (MQSO_WILDCARD_TOPIC, the default): '#' is any number of levels (none
  included) and '+' exactly one level, but only when the character is a whole level of the
  topic string ('a/#', '+/b'); anywhere else ('a#b') it is an ordinary character.
* character-based (MQSO_WILDCARD_CHAR, MQ's version 6 scheme): '*' is any run of characters,
  '/' included, '?' any one character and '%' makes the next character ordinary.

A topic string is split into levels at '/'; an empty level is a level like any other.
"""
from __future__ import annotations

import re
from collections.abc import Callable

MULTI_LEVEL, SINGLE_LEVEL = "#", "+"


def compile_pattern(pattern: str, char_wildcards: bool) -> Callable[[str], bool]:
    """A predicate telling the topic strings `pattern` matches."""
    if char_wildcards:
        regex = _char_regex(pattern)
        return lambda topic: regex.fullmatch(topic) is not None
    levels = pattern.split("/")
    if MULTI_LEVEL not in levels and SINGLE_LEVEL not in levels:
        return lambda topic: topic == pattern
    return lambda topic: _levels_match(levels, topic.split("/"))


def _char_regex(pattern: str) -> re.Pattern[str]:
    parts, escaped = [], False
    for char in pattern:
        if escaped:
            parts.append(re.escape(char))
            escaped = False
        elif char == "%":
            escaped = True
        elif char == "*":
            parts.append(".*")
        elif char == "?":
            parts.append(".")
        else:
            parts.append(re.escape(char))
    if escaped:  # a trailing '%' escapes nothing: it stands for itself
        parts.append(re.escape("%"))
    return re.compile("".join(parts), re.DOTALL)


def _levels_match(pattern: list[str], topic: list[str]) -> bool:
    """Level-by-level match, '#' spanning any number of levels (dynamic programming over
    the two positions, so a pattern with several '#' stays linear in practice)."""
    reachable = {0}  # positions in `topic` the pattern so far can end at
    for level in pattern:
        if not reachable:
            return False
        if level == MULTI_LEVEL:
            start = min(reachable)
            reachable = set(range(start, len(topic) + 1))
        elif level == SINGLE_LEVEL:
            reachable = {at + 1 for at in reachable if at < len(topic)}
        else:
            reachable = {at + 1 for at in reachable if at < len(topic) and topic[at] == level}
    return len(topic) in reachable


def has_wildcards(pattern: str, char_wildcards: bool) -> bool:
    if char_wildcards:
        return "*" in pattern or "?" in pattern
    levels = pattern.split("/")
    return MULTI_LEVEL in levels or SINGLE_LEVEL in levels


def fixed_prefix(pattern: str, char_wildcards: bool) -> str:
    """The levels of a subscription's topic string before its first wildcard: the node of
    the topic tree whose attributes (SUB, DURSUB, the model queues) the subscription uses."""
    kept = []
    for level in pattern.split("/"):
        if (char_wildcards and ("*" in level or "?" in level)) or (
                not char_wildcards and level in (MULTI_LEVEL, SINGLE_LEVEL)):
            break
        kept.append(level)
    return "/".join(kept)
