"""Conformance: message selectors given on MQOPEN (MQOD SelectionString)."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC


def selector_od(name: str, selection: str) -> ibmmq.OD:
    od = ibmmq.OD(Version=CMQC.MQOD_VERSION_4, ObjectName=name.encode())
    od.set_vs("SelectionString", selection)  # ibmmq keeps the string's buffer for MQOPEN
    return od


def put(conn, name: str, body: bytes, props: dict, **md_fields) -> None:
    handle = ibmmq.MessageHandle(conn)
    for key, (value, prop_type, length) in props.items():
        handle.properties.set(key, value, property_type=prop_type, value_length=length)
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT)
    queue.put(body, ibmmq.MD(**md_fields), ibmmq.PMO(OriginalMsgHandle=handle.msg_handle))
    queue.close()


def selected(conn, name: str, selection: str, options=CMQC.MQOO_INPUT_SHARED) -> list[bytes]:
    queue = ibmmq.Queue(conn, selector_od(name, selection), options)
    out = []
    browse = CMQC.MQGMO_BROWSE_NEXT if options == CMQC.MQOO_BROWSE else 0
    while True:
        try:
            gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_PROPERTIES | browse)
            out.append(queue.get(None, ibmmq.MD(), gmo))
        except ibmmq.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            queue.close()
            return out


S, I32, F64, B = CMQC.MQTYPE_STRING, CMQC.MQTYPE_INT32, CMQC.MQTYPE_FLOAT64, CMQC.MQTYPE_BOOLEAN
MESSAGES = [
    (b"red-small", {"colour": ("red", S, -1), "size": (3, I32, 4), "ratio": (0.5, F64, 8),
                    "urgent": (1, B, 4)}, 5),
    (b"red-big", {"colour": ("red", S, -1), "size": (30, I32, 4), "ratio": (2.5, F64, 8),
                  "urgent": (0, B, 4)}, 1),
    (b"blue-mid", {"colour": ("blue", S, -1), "size": (10, I32, 4)}, 8),
    (b"none", {}, 0),
]


@pytest.fixture
def loaded(conn, make_queue):
    name = make_queue("MSGDLVSQ(FIFO)")
    for body, props, priority in MESSAGES:
        put(conn, name, body, props, Priority=priority)
    return name


@pytest.mark.parametrize("selection,expected", [
    ("colour = 'red'", [b"red-small", b"red-big"]),
    ("colour <> 'red'", [b"blue-mid"]),
    ("size > 5", [b"red-big", b"blue-mid"]),
    ("size BETWEEN 3 AND 10", [b"red-small", b"blue-mid"]),
    ("size NOT BETWEEN 3 AND 10", [b"red-big"]),
    ("colour IN ('blue', 'green')", [b"blue-mid"]),
    ("colour LIKE 'r%'", [b"red-small", b"red-big"]),
    ("colour LIKE '_lue'", [b"blue-mid"]),
    ("colour IS NULL", [b"none"]),
    ("colour IS NOT NULL AND size < 20", [b"red-small", b"blue-mid"]),
    ("ratio * 2 >= 1", [b"red-small", b"red-big"]),
    ("urgent = TRUE", [b"red-small"]),
    ("NOT (colour = 'red')", [b"blue-mid"]),
    ("colour = 'red' OR size = 10", [b"red-small", b"red-big", b"blue-mid"]),
    ("Root.MQMD.Priority > 4", [b"red-small", b"blue-mid"]),
    ("JMSPriority = 1", [b"red-big"]),
    ("size = '3'", []),  # unlike types never compare equal
])
def test_selector_table(conn, loaded, selection, expected):
    assert selected(conn, loaded, selection) == expected


def test_unselected_messages_stay_on_the_queue(conn, loaded):
    assert selected(conn, loaded, "colour = 'blue'") == [b"blue-mid"]
    assert selected(conn, loaded, "size > 0") == [b"red-small", b"red-big"]
    assert selected(conn, loaded, "colour IS NULL") == [b"none"]


def test_browse_with_a_selector(conn, loaded):
    assert selected(conn, loaded, "size < 20", CMQC.MQOO_BROWSE) == [b"red-small", b"blue-mid"]
    assert selected(conn, loaded, "size < 20", CMQC.MQOO_BROWSE) == [b"red-small", b"blue-mid"]


@pytest.mark.parametrize("selection", ["colour = ", "colour == 'red'", "size BETWEEN 1", "(a = 1",
                                       "x LIKE 5"])
def test_syntax_error_on_mqopen_is_2459(conn, loaded, selection):
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.Queue(conn, selector_od(loaded, selection), CMQC.MQOO_INPUT_SHARED)
    assert exc.value.reason == CMQC.MQRC_SELECTOR_SYNTAX_ERROR


@pytest.mark.parametrize("selection", ["1 = 2", "FALSE", "size > 5 AND 1 = 0"])
def test_always_false_selector_on_mqopen_is_2504(conn, loaded, selection):
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.Queue(conn, selector_od(loaded, selection), CMQC.MQOO_INPUT_SHARED)
    assert exc.value.reason == CMQC.MQRC_SELECTOR_ALWAYS_FALSE


def test_selector_on_an_output_only_open_is_refused(conn, loaded):
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.Queue(conn, selector_od(loaded, "size > 1"), CMQC.MQOO_OUTPUT)
    assert exc.value.reason == CMQC.MQRC_SELECTOR_INVALID_FOR_TYPE


def test_selector_is_ignored_below_od_version_4(conn, loaded):
    od = selector_od(loaded, "colour = 'blue'")
    od.Version = CMQC.MQOD_VERSION_3
    queue = ibmmq.Queue(conn, od, CMQC.MQOO_INPUT_SHARED)
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_PROPERTIES)
    assert queue.get(None, ibmmq.MD(), gmo) == b"red-small"
    queue.close()


def test_waiting_get_with_a_selector_ignores_other_messages(conn, qm, make_queue):
    import threading
    import time
    name = make_queue()
    queue = ibmmq.Queue(conn, selector_od(name, "colour = 'green'"), CMQC.MQOO_INPUT_SHARED)

    def feed():
        other = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
        time.sleep(0.1)
        put(other, name, b"red", {"colour": ("red", S, -1)})
        time.sleep(0.1)
        put(other, name, b"green", {"colour": ("green", S, -1)})
        other.disconnect()

    thread = threading.Thread(target=feed)
    thread.start()
    got = queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_PROPERTIES,
                                               WaitInterval=5000))
    thread.join()
    assert got == b"green"
    queue.close()


def test_read_ahead_with_a_selector_delivers_persistent_and_non_persistent_matches(conn, make_queue):
    name = make_queue()
    for index in range(8):
        put(conn, name, f"m{index}".encode(), {"even": (int(index % 2 == 0), B, 4)},
            Persistence=index % 3 == 0)
    queue = ibmmq.Queue(conn, selector_od(name, "even = TRUE"),
                        CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_READ_AHEAD)
    got = []
    while True:
        try:
            got.append(queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT
                                                             | CMQC.MQGMO_NO_PROPERTIES)))
        except ibmmq.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            break
    assert got == [b"m0", b"m2", b"m4", b"m6"]
    assert selected(conn, name, "even = FALSE") == [b"m1", b"m3", b"m5", b"m7"]


def test_a_selective_get_still_finds_messages_that_arrive_before_rejected_ones(conn, make_queue):
    """Rejected messages are not tested again, but a matching message that lands earlier
    in delivery order (higher priority, or backed out) must still be found."""
    name = make_queue("MSGDLVSQ(PRIORITY)")
    for index in range(20):
        put(conn, name, b"blue-%d" % index, {"colour": ("blue", S, -1)}, Priority=1)
    reader = ibmmq.Queue(conn, selector_od(name, "colour = 'red'"), CMQC.MQOO_INPUT_SHARED)
    with pytest.raises(ibmmq.MQMIError) as nothing:
        reader.get(None)
    assert nothing.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    put(conn, name, b"red-urgent", {"colour": ("red", S, -1)}, Priority=9)
    put(conn, name, b"red-late", {"colour": ("red", S, -1)}, Priority=0)
    no_props = CMQC.MQGMO_NO_PROPERTIES
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT | no_props)
    assert reader.get(None, ibmmq.MD(), gmo) == b"red-urgent"
    conn.backout()  # goes back to its place at the head of the queue
    assert reader.get(None, ibmmq.MD(), ibmmq.GMO(Options=no_props)) == b"red-urgent"
    assert reader.get(None, ibmmq.MD(), ibmmq.GMO(Options=no_props)) == b"red-late"
    reader.close()
