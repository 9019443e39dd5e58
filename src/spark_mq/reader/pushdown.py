"""Filter pushdown for batch reads: which of a query's filters MQ applies, and how.

With `spark.sql.python.filterPushdown.enabled` (Spark 4.1+, off by default) Spark offers the
batch reader the conjuncts of a query's WHERE clause, each a pyspark.sql.datasource.Filter
on one column, once at planning (DataSourceReader.pushFilters). The reader keeps the ones MQ
can apply and hands back the rest, which Spark then evaluates on the rows. Spark never checks
a kept filter again, so a filter is kept only where what MQ selects is exactly the rows the
filter keeps; everything else stays with Spark:

* lookups: `=`, `<=>` and `IN` on message_id, correlation_id and group_id (binary values)
  become browses by MQMO_MATCH_MSG_ID / MATCH_CORREL_ID / MATCH_GROUP_ID, one per value, or
  per combination of values when several of these columns are filtered, and the queue is
  not browsed whole (spark_mq.mq.browser.IdMatch). Several filters on one column keep the
  values common to all. A value that is not 24 bytes matches no row: it costs no MQGET, and
  with no value left the read makes none. An id of 24 zero bytes (MQMI_NONE, MQCI_NONE,
  MQGI_NONE) stays with Spark: MQ matches every message on it. More than MAX_LOOKUPS
  combinations: the columns with the most values stay with Spark.
* a selector: comparisons (`=`, `<=>`, `<>`, `<`, `<=`, `>`, `>=`, `IN`, `NOT`) of the
  integer MQMD columns of SELECTOR_FIELDS with integer literals, and `persistent`
  with true or false, become a message selector on Root.MQMD.<Field>, ANDed with the
  `selector` option. These columns are never null, the browse returns these fields as they
  are stored (the fields a selector sees), and a selector compares MQLONGs as Spark compares
  ints, so the selector means exactly what the filter means. `ccsid` and `encoding` not with
  `convert` (the rows then show the converted values, a selector sees the stored ones). A
  selector longer than MQ_SELECTOR_LENGTH keeps the conditions that fit; one the selector
  compiler proves never true gives no rows, as MQ would (MQRC_SELECTOR_ALWAYS_FALSE).
* `IS NOT NULL` on any of these columns (and the id columns) holds for every row: kept,
  with nothing to ask MQ for.

Not pushed, and why: the text MQMD columns (the reader trims a padded field at both ends,
a selector only trailing blanks: ' MQSTR' differs); `expiry` (a get returns the time left,
a selector sees the stored value); `msg_flags` and `msg_seq_number` (fields of groups and
segments, where what a get returns for a complete logical message and what a selector sees
on its segments may differ); `put_timestamp`; property columns (the reader
finds a property case-insensitively and converts its type to the column's, a selector does
neither); and every filter on other columns (payload, text, properties, ...).
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pyspark.sql.datasource import (
    EqualNullSafe,
    EqualTo,
    Filter,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    IsNotNull,
    LessThan,
    LessThanOrEqual,
    Not,
)

from spark_mq.mq.browser import IdMatch
from spark_mq.mq.message import NO_ID
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.selector import MAX_SELECTOR_LENGTH, SelectorError, compile_selector

#: the id columns a lookup matches on, as IdMatch's fields
ID_COLUMNS: dict[str, str] = {"message_id": "msg_id", "correlation_id": "correl_id",
                              "group_id": "group_id"}
#: integer columns -> the MQMD field a selector names (Root.MQMD.<Field>)
SELECTOR_FIELDS: dict[str, str] = {
    "priority": "Priority", "msg_type": "MsgType", "feedback": "Feedback", "report": "Report",
    "backout_count": "BackoutCount", "put_appl_type": "PutApplType",
    "ccsid": "CodedCharSetId", "encoding": "Encoding"}
#: columns whose values MQGMO_CONVERT changes: not pushed with `convert`
CONVERTED = frozenset({"ccsid", "encoding"})
#: columns no row has null in: IS NOT NULL on them holds for every row (Spark adds it beside
#: every comparison), so it is kept with nothing to ask MQ for
NEVER_NULL = frozenset({*ID_COLUMNS, *SELECTOR_FIELDS, "persistent"})
#: the most browses by id one read makes; past it a filter stays with Spark (a full browse
#: is one MQGET per message, a lookup at least one per value)
MAX_LOOKUPS = 1000
_ID_LENGTH = len(NO_ID)
_MQLONG = range(-(1 << 31), 1 << 31)
_COMPARISONS: dict[type, str] = {EqualTo: "=", EqualNullSafe: "=", GreaterThan: ">",
                                 GreaterThanOrEqual: ">=", LessThan: "<", LessThanOrEqual: "<="}


@dataclass(frozen=True)
class Pushdown:
    """What a batch read asks MQ for: `lookups` None browses the whole queue, else one browse
    per IdMatch (none: no rows); `selector` the selection string to open the queue with
    (the `selector` option ANDed with the pushed conditions; None: the option's)."""
    lookups: tuple[IdMatch, ...] | None = None
    selector: str | None = None


def push_filters(filters: Sequence[Filter], columns: Iterable[str], user_selector: str | None,
                 converting: bool) -> tuple[Pushdown, list[Filter]]:
    """The Pushdown of `filters` (ANDed) and the filters left to Spark. `columns` are the
    schema's MQ columns (not property columns); `converting`: the `convert` option is on."""
    known = frozenset(columns)
    ids: dict[str, list[Filter]] = {}
    values: dict[str, list[bytes]] = {}
    conditions: list[tuple[Filter, str | None]] = []
    rest: list[Filter] = []
    for item in filters:
        found = _id_values(item, known)
        if found is not None:
            column, wanted = found
            ids.setdefault(column, []).append(item)
            values[column] = [v for v in values[column] if v in wanted] \
                if column in values else list(dict.fromkeys(wanted))
            continue
        condition = _condition(item, known, converting)
        if condition is None:
            rest.append(item)
        else:
            conditions.append((item, condition or None))
    lookups, unmatched = _lookups(values)
    rest += [item for column in unmatched for item in ids[column]]
    selector, nothing, unselected = _selector(user_selector, conditions)
    rest += unselected
    if nothing:
        lookups = ()
    return Pushdown(lookups, selector), rest


def _column(item: Any, known: frozenset[str]) -> str | None:
    attribute = getattr(item, "attribute", None)
    if isinstance(attribute, tuple) and len(attribute) == 1 and attribute[0] in known:
        return str(attribute[0])
    return None


def _id_values(item: Filter, known: frozenset[str]) -> tuple[str, list[bytes]] | None:
    """(column, the ids a row's value must be one of) of a filter a lookup can apply, else
    None. Values that are not 24 bytes are left out: no row has them."""
    column = _column(item, known)
    if column not in ID_COLUMNS:
        return None
    if isinstance(item, (EqualTo, EqualNullSafe)):
        given: tuple[Any, ...] = (item.value,)
    elif isinstance(item, In):
        given = tuple(item.value)
    else:
        return None
    if not given or not all(isinstance(v, (bytes, bytearray)) for v in given):
        return None
    wanted = [bytes(v) for v in given]
    if NO_ID in wanted:
        return None     # MQ matches every message on an id of zeros
    return column, [v for v in wanted if len(v) == _ID_LENGTH]


def _lookups(values: dict[str, list[bytes]]) -> tuple[tuple[IdMatch, ...] | None, list[str]]:
    """The browses by id for these values per column (None: no lookup, browse the whole
    queue) and the columns left to Spark so that there are at most MAX_LOOKUPS."""
    if not values:
        return None, []
    used: list[str] = []
    count = 1
    for column in sorted(values, key=lambda c: len(values[c])):
        if count * len(values[column]) > MAX_LOOKUPS:
            break
        used.append(column)
        count *= len(values[column])
    unmatched = [column for column in values if column not in used]
    if not used:
        return None, unmatched
    combinations = itertools.product(*(values[column] for column in used))
    fields = [ID_COLUMNS[column] for column in used]
    return tuple(IdMatch(**dict(zip(fields, ids))) for ids in combinations), unmatched


def _condition(item: Filter, known: frozenset[str], converting: bool) -> str | None:
    """The selector condition that means exactly `item`, "" for a filter that holds for
    every row (IS NOT NULL on a column that is never null), None when there is none."""
    if isinstance(item, Not):
        inner = _condition(item.child, known, converting)
        return f"NOT ({inner})" if inner else None
    column = _column(item, known)
    if isinstance(item, IsNotNull):
        return "" if column in NEVER_NULL else None
    if column == "persistent":
        return _persistent(item)
    if column not in SELECTOR_FIELDS or converting and column in CONVERTED:
        return None
    name = f"Root.MQMD.{SELECTOR_FIELDS[column]}"
    if isinstance(item, In):
        numbers = tuple(item.value)
        if not numbers or not all(_is_mqlong(v) for v in numbers):
            return None
        return "(" + " OR ".join(f"{name} = {v}" for v in dict.fromkeys(numbers)) + ")"
    operator = _COMPARISONS.get(type(item))
    value = getattr(item, "value", None)
    if operator is None or not _is_mqlong(value):
        return None
    return f"{name} {operator} {value}"


def _persistent(item: Filter) -> str | None:
    # the column is Persistence == MQPER_PERSISTENT; the stored field is 0 or 1 (a put
    # resolves MQPER_PERSISTENCE_AS_Q_DEF), and `<> 1` keeps false exact whatever it holds
    if isinstance(item, (EqualTo, EqualNullSafe)) and isinstance(item.value, bool):
        return "Root.MQMD.Persistence " + ("= 1" if item.value else "<> 1")
    return None


def _is_mqlong(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value in _MQLONG


def _selector(user: str | None, conditions: list[tuple[Filter, str | None]]
              ) -> tuple[str | None, bool, list[Filter]]:
    """(the selection string, whether it can never be true, the filters it leaves to Spark)."""
    parts = [f"({user.strip()})"] if user and user.strip() else []
    given = len(parts)
    left: list[Filter] = []
    for item, condition in conditions:
        if condition is None:
            continue        # holds for every row: nothing to select on
        if len(" AND ".join(parts + [condition]).encode("utf-8")) > MAX_SELECTOR_LENGTH:
            left.append(item)
        else:
            parts.append(condition)
    if len(parts) == given:
        return None, False, left
    text = " AND ".join(parts)
    try:
        compile_selector(text)
    except SelectorError as exc:
        if exc.reason == CMQC.MQRC_SELECTOR_ALWAYS_FALSE:
            return None, True, left
        return None, False, [item for item, condition in conditions if condition]
    return text, False, left
