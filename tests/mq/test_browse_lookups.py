"""Batch-read filter pushdown below Spark (spark_mq.reader.pushdown, the Browser's IdMatch):
on a real embedded queue manager, for each set of filters, the rows a pushed read returns,
with what stays with Spark applied afterwards, are exactly the rows of a whole browse with
every filter applied. The queue holds repeated correlation ids, a message group, a segmented
message, a reference/data pair and varied MQMD fields. Then what is pushed and what is not."""
from __future__ import annotations

import os

import ibmmq
import pytest
from ibmmq import CMQC
from pyspark.sql.datasource import (
    EqualNullSafe,
    EqualTo,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    IsNotNull,
    LessThan,
    LessThanOrEqual,
    Not,
    StringStartsWith,
)

from spark_mq.columns import DEFAULT_COLUMNS, Source, plan_columns, to_rows
from spark_mq.mq.browser import Browser
from spark_mq.mq.message import NO_ID
from spark_mq.reader.batch import browsed
from spark_mq.reader.pushdown import MAX_LOOKUPS, Pushdown, push_filters
from support import put_group, put_reference_pair

SPECS = plan_columns(DEFAULT_COLUMNS)
NAMES = [spec.name for spec in SPECS]
A, B = b"A" * 24, b"B" * 24


def put_varied(conn, queue: str) -> None:
    """12 messages whose priority, type, feedback, persistence and correlation id vary, then
    a group of three, a message the queue manager segments (correlation id A) and a
    reference/data pair."""
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
    try:
        for i in range(12):
            md = ibmmq.MD(Priority=i % 10, MsgType=CMQC.MQMT_REPLY if i % 3 == 0 else CMQC.MQMT_DATAGRAM,
                          Feedback=CMQC.MQFB_APPL_FIRST + i if i % 4 == 0 else CMQC.MQFB_NONE,
                          Persistence=i % 2, CorrelId={1: A, 4: A, 7: A, 2: B}.get(i, NO_ID))
            handle.put(b"plain-%d" % i, md)
        handle.put(b"s" * 10000, ibmmq.MD(CorrelId=A, Priority=6,
                                          MsgFlags=CMQC.MQMF_SEGMENTATION_ALLOWED))
    finally:
        handle.close()
    put_group(conn, queue, [b"g1", b"g2", b"g3"])
    put_reference_pair(conn, queue, b"r" * 9000, {"k": ("v", CMQC.MQTYPE_STRING, 1)})


def holds(item, row: dict) -> bool:
    """What Spark's filter means on one row (these columns are never null)."""
    if isinstance(item, Not):
        return not holds(item.child, row)
    value = row[item.attribute[0]]
    if isinstance(item, IsNotNull):
        return value is not None
    if isinstance(item, In):
        return value in item.value
    if isinstance(item, StringStartsWith):
        return value.startswith(item.value)
    compare = {EqualTo: lambda a, b: a == b, EqualNullSafe: lambda a, b: a == b,
               GreaterThan: lambda a, b: a > b, GreaterThanOrEqual: lambda a, b: a >= b,
               LessThan: lambda a, b: a < b, LessThanOrEqual: lambda a, b: a <= b}
    return compare[type(item)](value, item.value)


def rows_of(messages, queue: str) -> list[dict]:
    return [dict(zip(NAMES, row)) for row in to_rows(list(messages), Source(queue, "QM1"), SPECS)]


def read(qm, queue: str, pushdown: Pushdown, selector: str | None) -> list[dict]:
    if pushdown.lookups == ():
        return []
    browser = Browser(ibmmq, ibmmq.connect(qm.name, qm.channel, qm.conn_name), queue,
                      pushdown.selector or selector)
    try:
        return rows_of(browsed(browser, pushdown), queue)
    finally:
        browser.close()


def same(rows: list[dict], other: list[dict]) -> bool:
    return sorted(map(repr, rows)) == sorted(map(repr, other))


@pytest.fixture(scope="module")
def varied(qm):
    """The queue and its rows as a whole browse sees them."""
    queue = f"LOOKUPS.{os.getpid()}"
    qm.run_mqsc(f"DEFINE QLOCAL({queue}) MAXMSGL(4096) REPLACE")
    conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    try:
        put_varied(conn, queue)
    finally:
        conn.disconnect()
    rows = read(qm, queue, Pushdown(), None)
    assert len(rows) == 12 + 1 + 3 + 1       # the segments and the data message are one row each
    return queue, rows


def by_payload(rows: list[dict], payload: bytes) -> dict:
    return next(row for row in rows if row["payload"] == payload)


def cases(rows: list[dict]) -> list[tuple[str, list, str | None, bool]]:
    """(name, filters, the selector option, whether every filter is pushed)."""
    group = by_payload(rows, b"g2")["group_id"]
    plain3, plain5 = (by_payload(rows, b"plain-%d" % i)["message_id"] for i in (3, 5))
    segmented = by_payload(rows, b"s" * 10000)["message_id"]
    reference = by_payload(rows, b"r" * 9000)["message_id"]
    return [
        ("correlation id, repeated and on a segmented message", [EqualTo(("correlation_id",), A)],
         None, True),
        ("message ids, one twice, one not 24 bytes", [In(("message_id",), (plain3, plain5, b"x", plain3))],
         None, True),
        ("a group's id", [EqualTo(("group_id",), group)], None, True),
        ("a segmented message by its id", [EqualNullSafe(("message_id",), segmented)], None, True),
        ("a reference message by its id", [EqualTo(("message_id",), reference)], None, True),
        ("two id columns and two filters on one", [EqualTo(("correlation_id",), A),
                                                   In(("correlation_id",), (A, B)),
                                                   In(("message_id",), (plain3, segmented))],
         None, True),
        ("an id of zeros stays with Spark", [EqualTo(("correlation_id",), NO_ID)], None, False),
        ("no id 24 bytes long: no get at all", [EqualTo(("correlation_id",), b"short")], None, True),
        ("comparisons and NOT", [GreaterThan(("priority",), 4), Not(EqualTo(("msg_type",), 2))],
         None, True),
        ("IN and persistent", [In(("priority",), (1, 3, 5)), EqualTo(("persistent",), False)],
         None, True),
        ("bounds and feedback", [GreaterThanOrEqual(("priority",), 2), LessThan(("priority",), 8),
                                 Not(EqualTo(("feedback",), 0))], None, True),
        ("with the selector option", [LessThanOrEqual(("priority",), 6), EqualTo(("persistent",), True)],
         "Root.MQMD.MsgType = 8", True),
        ("ids and a selector together", [EqualTo(("correlation_id",), A), GreaterThan(("priority",), 3)],
         "Root.MQMD.Priority < 7", True),
        ("contradictory comparisons", [EqualTo(("priority",), 3), EqualTo(("priority",), 4)], None, True),
        ("IS NOT NULL, and a text column stays with Spark",
         [IsNotNull(("priority",)), StringStartsWith(("format",), "MQ")], None, False),
    ]


def test_a_pushed_read_returns_exactly_the_rows_of_a_filtered_whole_browse(qm, varied):
    queue, rows = varied
    for name, filters, selector, all_pushed in cases(rows):
        pushdown, rest = push_filters(filters, NAMES, selector, converting=False)
        got = [row for row in read(qm, queue, pushdown, selector)
               if all(holds(item, row) for item in rest)]
        whole = rows if selector is None else read(qm, queue, Pushdown(), selector)
        wanted = [row for row in whole if all(holds(item, row) for item in filters)]
        assert same(got, wanted), (name, pushdown, [r["payload"][:10] for r in got],
                                   [r["payload"][:10] for r in wanted])
        assert (rest == []) == all_pushed, (name, rest)
        if name.startswith("correlation id"):
            assert sorted(r["payload"][:7] for r in got) == [b"plain-1", b"plain-4", b"plain-7",
                                                             b"sssssss"]
            assert by_payload(got, b"s" * 10000)["correlation_id"] == A   # whole, first segment's ids


def test_lookups_and_selector_are_what_the_filters_say():
    m1, m2 = b"1" * 24, b"2" * 24
    pushdown, rest = push_filters([In(("message_id",), (m1, m2)), EqualTo(("correlation_id",), A),
                                   IsNotNull(("correlation_id",)), GreaterThan(("priority",), 4)],
                                  NAMES, "colour = 'red'", False)
    assert rest == []
    assert [(m.msg_id, m.correl_id, m.group_id) for m in pushdown.lookups or ()] == [
        (m1, A, None), (m2, A, None)]
    assert pushdown.selector == "(colour = 'red') AND Root.MQMD.Priority > 4"
    assert push_filters([], NAMES, "colour = 'red'", False)[0] == Pushdown(None, None)


def test_what_stays_with_spark():
    kept = [EqualTo(("correlation_id",), NO_ID),          # MQ matches every message on zeros
            Not(EqualTo(("message_id",), A)),
            GreaterThan(("correlation_id",), A),
            EqualTo(("expiry",), 5), EqualTo(("msg_flags",), 0), EqualTo(("msg_seq_number",), 1),
            EqualTo(("format",), "MQSTR"), EqualTo(("user_id",), "app"),
            EqualTo(("priority",), 4.5), EqualTo(("priority",), 1 << 40), EqualTo(("priority",), True),
            EqualNullSafe(("priority",), None), In(("priority",), (1, "2")),
            EqualTo(("persistent",), 1), Not(IsNotNull(("priority",))),
            EqualTo(("colour",), "red"), EqualTo(("payload",), b"x")]
    pushdown, rest = push_filters(kept, NAMES + ["colour"], None, False)
    assert rest == kept and pushdown == Pushdown(None, None)


def test_converted_fields_stay_with_spark_under_convert():
    filters = [EqualTo(("ccsid",), 1208), EqualTo(("encoding",), 546), EqualTo(("priority",), 1)]
    pushdown, rest = push_filters(filters, NAMES, None, converting=True)
    assert rest == filters[:2] and pushdown.selector == "Root.MQMD.Priority = 1"
    assert push_filters(filters, NAMES, None, converting=False)[1] == []


def test_too_many_lookups_leave_the_largest_id_filter_with_spark():
    many = In(("message_id",), tuple(i.to_bytes(24, "big") for i in range(1, MAX_LOOKUPS + 2)))
    few = In(("correlation_id",), (A, B))
    pushdown, rest = push_filters([many, few], NAMES, None, False)
    assert rest == [many]
    assert [m.correl_id for m in pushdown.lookups or ()] == [A, B]


def test_a_selector_past_mq_selector_length_keeps_what_fits():
    wide = In(("priority",), tuple(range(2000)))         # ~50,000 bytes as ORed equalities
    narrow = GreaterThan(("priority",), 2)
    pushdown, rest = push_filters([wide, narrow], NAMES, None, False)
    assert rest == [wide] and pushdown.selector == "Root.MQMD.Priority > 2"
