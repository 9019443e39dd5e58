"""Conformance: message properties through message handles, wildcard inquiry, MQRFH2 bodies
chosen by PROPCTL and the get options, and MAXPROPL."""
from __future__ import annotations

import struct

import ibmmq
import pytest
from ibmmq import CMQC

OPEN = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE


def reason(excinfo) -> int:
    return excinfo.value.reason


def handle_with(conn, values: dict) -> ibmmq.MessageHandle:
    handle = ibmmq.MessageHandle(conn)
    for name, (value, prop_type, length) in values.items():
        handle.properties.set(name, value, property_type=prop_type, value_length=length)
    return handle


def put_with(queue, conn, values: dict, body: bytes = b"body", **md_fields) -> None:
    handle = handle_with(conn, values)
    queue.put(body, ibmmq.MD(**md_fields), ibmmq.PMO(OriginalMsgHandle=handle.msg_handle))
    handle.dlt()


def get_into_handle(queue, conn, options: int = CMQC.MQGMO_PROPERTIES_IN_HANDLE):
    handle = ibmmq.MessageHandle(conn)
    md = ibmmq.MD()
    gmo = ibmmq.GMO(Options=options | CMQC.MQGMO_NO_WAIT, Version=CMQC.MQGMO_VERSION_4,
                    MsgHandle=handle.msg_handle)
    body = queue.get(None, md, gmo)
    return body, md, handle


ALL_TYPES = {
    "str": ("text ünïcode", CMQC.MQTYPE_STRING, CMQC.MQVL_NULL_TERMINATED),
    "flag": (1, CMQC.MQTYPE_BOOLEAN, 4),
    "raw": (b"\x00\x01\xff", CMQC.MQTYPE_BYTE_STRING, 3),
    "i8": (-128, CMQC.MQTYPE_INT8, 1),
    "i16": (32767, CMQC.MQTYPE_INT16, 2),
    "i32": (-2147483648, CMQC.MQTYPE_INT32, 4),
    "i64": (9223372036854775807, CMQC.MQTYPE_INT64, 8),
    "f32": (1.5, CMQC.MQTYPE_FLOAT32, 4),
    "f64": (2.718281828459045, CMQC.MQTYPE_FLOAT64, 8),
    "nothing": (None, CMQC.MQTYPE_NULL, 0),
}


@pytest.fixture
def queue(conn, make_queue):
    handle = ibmmq.Queue(conn, make_queue(), OPEN)
    yield handle
    handle.close()


def test_every_property_type_round_trips_through_a_queue(conn, queue):
    put_with(queue, conn, ALL_TYPES)
    body, _, handle = get_into_handle(queue, conn)
    assert body == b"body"
    for name, (value, prop_type, _) in ALL_TYPES.items():
        got = handle.properties.get(name, property_type=prop_type)
        if prop_type == CMQC.MQTYPE_STRING:
            assert got == value
        elif prop_type == CMQC.MQTYPE_NULL:
            assert got is None
        else:
            assert got == value, name


def test_wildcard_inquiry_lists_every_property_then_2471(conn, queue):
    put_with(queue, conn, {"alpha": ("a", CMQC.MQTYPE_STRING, -1),
                           "beta.gamma": ("b", CMQC.MQTYPE_STRING, -1),
                           "delta": (4, CMQC.MQTYPE_INT32, 4)})
    _, _, handle = get_into_handle(queue, conn)
    found = [handle.properties.get("%", impo_options=CMQC.MQIMPO_INQ_FIRST)]
    while True:
        try:
            found.append(handle.properties.get("%", impo_options=CMQC.MQIMPO_INQ_NEXT))
        except ibmmq.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_PROPERTY_NOT_AVAILABLE
            break
    names = {(name.decode() if isinstance(name, bytes) else name): value for value, name in found}
    assert names == {"alpha": "a", "beta.gamma": "b", "delta": 4}


def test_wildcard_prefix_selects_matching_names(conn, queue):
    put_with(queue, conn, {"app.one": ("1", CMQC.MQTYPE_STRING, -1),
                           "app.two": ("2", CMQC.MQTYPE_STRING, -1),
                           "other": ("x", CMQC.MQTYPE_STRING, -1)})
    _, _, handle = get_into_handle(queue, conn)
    values = [handle.properties.get("app.%", impo_options=CMQC.MQIMPO_INQ_FIRST)[0]]
    values.append(handle.properties.get("app.%", impo_options=CMQC.MQIMPO_INQ_NEXT)[0])
    with pytest.raises(ibmmq.MQMIError) as exc:
        handle.properties.get("app.%", impo_options=CMQC.MQIMPO_INQ_NEXT)
    assert reason(exc) == CMQC.MQRC_PROPERTY_NOT_AVAILABLE
    assert sorted(values) == ["1", "2"]


def test_missing_property_is_2471(conn):
    handle = ibmmq.MessageHandle(conn)
    with pytest.raises(ibmmq.MQMIError) as exc:
        handle.properties.get("absent")
    assert reason(exc) == CMQC.MQRC_PROPERTY_NOT_AVAILABLE


@pytest.mark.parametrize("name", ["bad name", "1abc", "a..b", "JMS.x", "usr.", "mq.internal"])
def test_invalid_property_names_are_rejected(conn, name):
    handle = ibmmq.MessageHandle(conn)
    with pytest.raises(ibmmq.MQMIError) as exc:
        handle.properties.set(name, "v")
    assert reason(exc) in (CMQC.MQRC_PROPERTY_NAME_ERROR, CMQC.MQRC_PROPERTY_NAME_LENGTH_ERR)


def test_value_too_big_is_2469_with_its_length(conn):
    handle = ibmmq.MessageHandle(conn)
    handle.properties.set("long", "x" * 100)
    with pytest.raises(ibmmq.MQMIError) as exc:
        handle.properties.get("long")  # ibmmq's default buffer is 64
    assert reason(exc) == CMQC.MQRC_PROPERTY_VALUE_TOO_BIG
    assert handle.properties.get("long", max_value_length=100) == "x" * 100


def test_wrong_type_without_conversion_is_2473(conn):
    handle = ibmmq.MessageHandle(conn)
    handle.properties.set("n", 5, property_type=CMQC.MQTYPE_INT32, value_length=4)
    impo = ibmmq.IMPO(Options=CMQC.MQIMPO_INQ_FIRST)
    with pytest.raises(ibmmq.MQMIError) as exc:
        handle.properties.get("n", impo=impo, property_type=CMQC.MQTYPE_FLOAT64)
    assert reason(exc) == CMQC.MQRC_PROPERTY_TYPE_ERROR


def test_delete_property(conn):
    handle = ibmmq.MessageHandle(conn)
    handle.properties.set("gone", "v")
    handle.properties.dlt("gone")
    with pytest.raises(ibmmq.MQMIError) as exc:
        handle.properties.get("gone")
    assert reason(exc) == CMQC.MQRC_PROPERTY_NOT_AVAILABLE


def test_properties_in_handle_without_a_handle_is_2460(conn, queue):
    put_with(queue, conn, {"a": ("1", CMQC.MQTYPE_STRING, -1)})
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_PROPERTIES_IN_HANDLE
                                              | CMQC.MQGMO_NO_WAIT, Version=CMQC.MQGMO_VERSION_4))
    assert reason(exc) == CMQC.MQRC_HMSG_ERROR


def test_unknown_message_handle_on_put_is_2460(queue):
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(b"x", ibmmq.MD(), ibmmq.PMO(OriginalMsgHandle=987654321))
    assert reason(exc) == CMQC.MQRC_HMSG_ERROR


def parse_rfh2(data: bytes) -> tuple[bytes, bytes]:
    """(the NameValueData folders, the body after the RFH2)."""
    assert data[:4] == b"RFH "
    length = struct.unpack("=i", data[8:12])[0]
    return data[36:length], data[length:]


def test_no_handle_on_compat_queue_gives_an_rfh2_for_usr_properties(conn, queue):
    put_with(queue, conn, {"colour": ("red", CMQC.MQTYPE_STRING, -1)}, body=b"payload")
    md = ibmmq.MD()
    data = queue.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))
    assert md.Format == CMQC.MQFMT_RF_HEADER_2
    folders, body = parse_rfh2(data)
    assert b"<usr>" in folders and b"<colour>red</colour>" in folders
    assert body == b"payload"


def test_force_rfh2_ignores_the_handle(conn, queue):
    put_with(queue, conn, {"colour": ("red", CMQC.MQTYPE_STRING, -1)}, body=b"payload")
    data, md, handle = get_into_handle(queue, conn, CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2)
    assert md.Format == CMQC.MQFMT_RF_HEADER_2
    assert parse_rfh2(data)[1] == b"payload"
    with pytest.raises(ibmmq.MQMIError):
        handle.properties.get("colour")


def test_no_properties_option_drops_them(conn, queue):
    put_with(queue, conn, {"colour": ("red", CMQC.MQTYPE_STRING, -1)}, body=b"payload")
    data, md, handle = get_into_handle(queue, conn, CMQC.MQGMO_NO_PROPERTIES)
    assert data == b"payload" and md.Format != CMQC.MQFMT_RF_HEADER_2
    with pytest.raises(ibmmq.MQMIError):
        handle.properties.get("colour")


@pytest.mark.parametrize("propctl,with_handle,expect_rfh2,expect_in_handle", [
    ("NONE", False, False, False),
    ("NONE", True, False, True),     # a handle overrides NONE (PropertyControl, q103350_)
    ("ALL", False, True, False),
    ("ALL", True, False, True),
    ("FORCE", True, True, False),
    ("COMPAT", True, False, True),
])
def test_propctl_decides_where_properties_go(conn, make_queue, propctl, with_handle,
                                             expect_rfh2, expect_in_handle):
    queue = ibmmq.Queue(conn, make_queue(f"PROPCTL({propctl})"), OPEN)
    put_with(queue, conn, {"colour": ("red", CMQC.MQTYPE_STRING, -1)}, body=b"payload")
    handle = ibmmq.MessageHandle(conn) if with_handle else None
    md = ibmmq.MD()
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT, Version=CMQC.MQGMO_VERSION_4,
                    MsgHandle=handle.msg_handle if handle else CMQC.MQHM_NONE)
    data = queue.get(None, md, gmo)
    assert (md.Format == CMQC.MQFMT_RF_HEADER_2) == expect_rfh2
    assert (parse_rfh2(data)[1] if expect_rfh2 else data) == b"payload"
    if handle is not None:
        if expect_in_handle:
            assert handle.properties.get("colour") == "red"
        else:
            with pytest.raises(ibmmq.MQMIError):
                handle.properties.get("colour")
    queue.close()


def test_message_without_properties_has_a_plain_body(conn, queue):
    put_with(queue, conn, {}, body=b"plain")
    md = ibmmq.MD()
    assert queue.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT)) == b"plain"
    assert md.Format != CMQC.MQFMT_RF_HEADER_2


def test_handle_is_cleared_before_a_get_fills_it(conn, queue):
    put_with(queue, conn, {"second": ("2", CMQC.MQTYPE_STRING, -1)})
    handle = ibmmq.MessageHandle(conn)
    handle.properties.set("stale", "old")
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE,
                    Version=CMQC.MQGMO_VERSION_4, MsgHandle=handle.msg_handle)
    queue.get(None, ibmmq.MD(), gmo)
    assert handle.properties.get("second") == "2"
    with pytest.raises(ibmmq.MQMIError):
        handle.properties.get("stale")


def test_properties_too_big_for_maxpropl_is_2478(qm, conn, queue):
    qm.run_mqsc("ALTER QMGR MAXPROPL(64)")
    try:
        with pytest.raises(ibmmq.MQMIError) as exc:
            put_with(queue, conn, {"big": ("x" * 100, CMQC.MQTYPE_STRING, -1)})
        assert reason(exc) == CMQC.MQRC_PROPERTIES_TOO_BIG
        put_with(queue, conn, {"small": ("x", CMQC.MQTYPE_STRING, -1)})
    finally:
        qm.run_mqsc("ALTER QMGR MAXPROPL(NOLIMIT)")


def test_persistent_message_properties_survive_a_restart(tmp_path):
    import spark_mq.embedded as embedded
    with embedded.EmbeddedQueueManager(str(tmp_path), name="QMPROP") as manager:
        connection = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
        queue = ibmmq.Queue(connection, "DEV.QUEUE.1", OPEN)
        put_with(queue, connection, ALL_TYPES, Persistence=CMQC.MQPER_PERSISTENT)
        connection.disconnect()
        manager.kill()
        manager.start()
        connection = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
        queue = ibmmq.Queue(connection, "DEV.QUEUE.1", OPEN)
        _, _, handle = get_into_handle(queue, connection)
        assert handle.properties.get("i64", property_type=CMQC.MQTYPE_INT64) == 9223372036854775807
        assert handle.properties.get("raw", property_type=CMQC.MQTYPE_BYTE_STRING) == b"\x00\x01\xff"
        connection.disconnect()


def test_string_that_is_not_a_number_cannot_be_read_as_one_2472(conn):
    handle = ibmmq.MessageHandle(conn)
    handle.properties.set("word", "abc")
    impo = ibmmq.IMPO(Options=CMQC.MQIMPO_INQ_FIRST | CMQC.MQIMPO_CONVERT_TYPE | CMQC.MQIMPO_CONVERT_VALUE)
    with pytest.raises(ibmmq.MQMIError) as exc:
        handle.properties.get("word", impo=impo, property_type=CMQC.MQTYPE_INT32)
    assert reason(exc) == CMQC.MQRC_PROP_NUMBER_FORMAT_ERROR
    handle.properties.set("number", "42")
    assert handle.properties.get("number", impo=impo, property_type=CMQC.MQTYPE_INT32) == 42


def test_conversion_mq_does_not_support_is_2470(conn):
    handle = ibmmq.MessageHandle(conn)
    handle.properties.set("raw", b"\x01\x02", property_type=CMQC.MQTYPE_BYTE_STRING, value_length=2)
    impo = ibmmq.IMPO(Options=CMQC.MQIMPO_INQ_FIRST | CMQC.MQIMPO_CONVERT_TYPE | CMQC.MQIMPO_CONVERT_VALUE)
    with pytest.raises(ibmmq.MQMIError) as exc:
        handle.properties.get("raw", impo=impo, property_type=CMQC.MQTYPE_INT32)
    assert reason(exc) == CMQC.MQRC_PROP_CONV_NOT_SUPPORTED
