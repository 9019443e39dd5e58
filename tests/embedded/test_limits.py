"""Conformance: MAXMSGL, MAXDEPTH, expiry, MQINQ and MQSET on queues and the queue manager."""
from __future__ import annotations

import time

import ibmmq
import pytest
from ibmmq import CMQC

OPEN = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE | CMQC.MQOO_BROWSE


def reason(excinfo) -> int:
    return excinfo.value.reason


def nowait(options: int = 0) -> ibmmq.GMO:
    return ibmmq.GMO(Options=options | CMQC.MQGMO_NO_WAIT)


def test_message_longer_than_maxmsgl_is_2030(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue("MAXMSGL(1000)"), OPEN)
    queue.put(b"x" * 1000)
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(b"x" * 1001)
    assert reason(exc) == CMQC.MQRC_MSG_TOO_BIG_FOR_Q


def test_full_queue_is_2053(conn, make_queue, qm):
    name = make_queue()
    qm.run_mqsc(f"ALTER QLOCAL({name}) MAXDEPTH(2)")
    queue = ibmmq.Queue(conn, name, OPEN)
    queue.put(b"1")
    queue.put(b"2", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))  # uncommitted counts
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(b"3")
    assert reason(exc) == CMQC.MQRC_Q_FULL
    conn.backout()
    queue.put(b"3")


def test_expired_message_is_never_returned_and_expiry_counts_down(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    queue.put(b"short", ibmmq.MD(Expiry=2))   # 0.2 s
    queue.put(b"long", ibmmq.MD(Expiry=600))  # 60 s
    time.sleep(0.35)
    assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 2  # expired but not yet discarded
    md = ibmmq.MD()
    assert queue.get(None, md, nowait()) == b"long"
    assert 0 < md.Expiry <= 600 and md.Expiry >= 590
    assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 0  # the get discarded the expired one


def test_expired_message_is_not_browsed(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    queue.put(b"short", ibmmq.MD(Expiry=1))
    time.sleep(0.2)
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), nowait(CMQC.MQGMO_BROWSE_FIRST))
    assert reason(exc) == CMQC.MQRC_NO_MSG_AVAILABLE


def test_unlimited_expiry_is_returned_as_unlimited(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OPEN)
    queue.put(b"x")
    md = ibmmq.MD()
    queue.get(None, md, nowait())
    assert md.Expiry == CMQC.MQEI_UNLIMITED


# --- MQINQ -----------------------------------------------------------------------------------
def test_inquire_queue_attributes(conn, make_queue):
    name = make_queue("MAXMSGL(2048) DEFPRTY(3) BOTHRESH(5) BOQNAME(DEV.DEAD.LETTER.QUEUE) "
                      "DEFREADA(YES) DEFPRESP(ASYNC) MSGDLVSQ(FIFO) PROPCTL(ALL) DEFPSIST(YES)")
    queue = ibmmq.Queue(conn, name, OPEN)
    queue.put(b"a")
    values = queue.inquire([CMQC.MQIA_CURRENT_Q_DEPTH, CMQC.MQIA_MAX_MSG_LENGTH,
                            CMQC.MQIA_MAX_Q_DEPTH, CMQC.MQIA_DEF_PRIORITY,
                            CMQC.MQIA_BACKOUT_THRESHOLD, CMQC.MQCA_BACKOUT_REQ_Q_NAME,
                            CMQC.MQIA_DEF_READ_AHEAD, CMQC.MQIA_DEF_PUT_RESPONSE_TYPE,
                            CMQC.MQIA_MSG_DELIVERY_SEQUENCE, CMQC.MQIA_PROPERTY_CONTROL,
                            CMQC.MQIA_DEF_PERSISTENCE, CMQC.MQCA_Q_NAME, CMQC.MQIA_Q_TYPE,
                            CMQC.MQIA_OPEN_INPUT_COUNT, CMQC.MQIA_OPEN_OUTPUT_COUNT,
                            CMQC.MQIA_INHIBIT_GET, CMQC.MQIA_INHIBIT_PUT])
    assert values[CMQC.MQIA_CURRENT_Q_DEPTH] == 1
    assert values[CMQC.MQIA_MAX_MSG_LENGTH] == 2048
    assert values[CMQC.MQIA_MAX_Q_DEPTH] == 999999999
    assert values[CMQC.MQIA_DEF_PRIORITY] == 3
    assert values[CMQC.MQIA_BACKOUT_THRESHOLD] == 5
    assert values[CMQC.MQCA_BACKOUT_REQ_Q_NAME].strip() == b"DEV.DEAD.LETTER.QUEUE"
    assert values[CMQC.MQIA_DEF_READ_AHEAD] == CMQC.MQREADA_YES
    assert values[CMQC.MQIA_DEF_PUT_RESPONSE_TYPE] == CMQC.MQPRT_ASYNC_RESPONSE
    assert values[CMQC.MQIA_MSG_DELIVERY_SEQUENCE] == CMQC.MQMDS_FIFO
    assert values[CMQC.MQIA_PROPERTY_CONTROL] == CMQC.MQPROP_ALL
    assert values[CMQC.MQIA_DEF_PERSISTENCE] == CMQC.MQPER_PERSISTENT
    assert values[CMQC.MQCA_Q_NAME].strip() == name.encode()
    assert values[CMQC.MQIA_Q_TYPE] == CMQC.MQQT_LOCAL
    assert values[CMQC.MQIA_OPEN_INPUT_COUNT] == 1 and values[CMQC.MQIA_OPEN_OUTPUT_COUNT] == 1
    assert values[CMQC.MQIA_INHIBIT_GET] == CMQC.MQQA_GET_ALLOWED
    assert values[CMQC.MQIA_INHIBIT_PUT] == CMQC.MQQA_PUT_ALLOWED
    queue.close()


def test_inquire_queue_manager_attributes(conn):
    values = conn.inquire([CMQC.MQCA_Q_MGR_NAME, CMQC.MQIA_MAX_MSG_LENGTH,
                           CMQC.MQIA_MAX_UNCOMMITTED_MSGS, CMQC.MQIA_MAX_PROPERTIES_LENGTH,
                           CMQC.MQIA_SYNCPOINT, CMQC.MQIA_MAX_PRIORITY, CMQC.MQIA_COMMAND_LEVEL,
                           CMQC.MQCA_DEAD_LETTER_Q_NAME])
    assert values[CMQC.MQCA_Q_MGR_NAME].strip() == b"QM1"
    assert values[CMQC.MQIA_MAX_MSG_LENGTH] == 4194304
    assert values[CMQC.MQIA_MAX_UNCOMMITTED_MSGS] == 10000
    assert values[CMQC.MQIA_MAX_PROPERTIES_LENGTH] == -1  # NOLIMIT
    assert values[CMQC.MQIA_SYNCPOINT] == CMQC.MQSP_AVAILABLE
    assert values[CMQC.MQIA_MAX_PRIORITY] == 9
    assert values[CMQC.MQCA_DEAD_LETTER_Q_NAME].strip() == b"DEV.DEAD.LETTER.QUEUE"


def test_inquire_alias_queue(conn, qm, make_queue):
    target = make_queue()
    alias = target + ".AL"
    qm.run_mqsc(f"DEFINE QALIAS({alias}) TARGET({target}) REPLACE")
    queue = ibmmq.Queue(conn, alias, CMQC.MQOO_INQUIRE)
    assert queue.inquire(CMQC.MQIA_Q_TYPE) == CMQC.MQQT_ALIAS
    assert queue.inquire(CMQC.MQCA_BASE_Q_NAME).strip() == target.encode()


def test_inquire_selector_not_for_the_object_type_is_warning_2068(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), CMQC.MQOO_INQUIRE)
    with pytest.raises(ibmmq.MQMIError) as exc:  # ibmmq raises on the reason, even a warning
        queue.inquire([CMQC.MQIA_MAX_UNCOMMITTED_MSGS])
    assert reason(exc) == CMQC.MQRC_SELECTOR_NOT_FOR_TYPE
    assert exc.value.comp == CMQC.MQCC_WARNING


def test_inquire_invalid_selector_is_2067(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), CMQC.MQOO_INQUIRE)
    result = ibmmq.ibmmqc.MQINQ(conn.get_handle(), queue.get_handle(), [999999], [], 1, 0, 0)
    assert result[-1] == CMQC.MQRC_SELECTOR_ERROR


def test_inquire_more_than_256_selectors_is_2065(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), CMQC.MQOO_INQUIRE)
    result = ibmmq.ibmmqc.MQINQ(conn.get_handle(), queue.get_handle(),
                                [CMQC.MQIA_CURRENT_Q_DEPTH] * 257, [], 257, 0, 0)
    assert result[-1] == CMQC.MQRC_SELECTOR_COUNT_ERROR


# --- MQSET -----------------------------------------------------------------------------------
def test_set_inhibit_put_and_get(conn, make_queue):
    name = make_queue()
    setter = ibmmq.Queue(conn, name, CMQC.MQOO_SET | CMQC.MQOO_INQUIRE)
    queue = ibmmq.Queue(conn, name, OPEN)
    setter.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.put(b"x")
    assert reason(exc) == CMQC.MQRC_PUT_INHIBITED
    setter.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_ALLOWED)
    queue.put(b"x")
    setter.set({CMQC.MQIA_INHIBIT_GET: CMQC.MQQA_GET_INHIBITED})
    assert setter.inquire(CMQC.MQIA_INHIBIT_GET) == CMQC.MQQA_GET_INHIBITED
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), nowait())
    assert reason(exc) == CMQC.MQRC_GET_INHIBITED
    setter.set(CMQC.MQIA_INHIBIT_GET, CMQC.MQQA_GET_ALLOWED)
    assert queue.get(None, ibmmq.MD(), nowait()) == b"x"


def test_set_of_an_attribute_mqset_cannot_change_is_2067(conn, make_queue):
    setter = ibmmq.Queue(conn, make_queue(), CMQC.MQOO_SET)
    with pytest.raises(ibmmq.MQMIError) as exc:
        setter.set(CMQC.MQIA_MAX_Q_DEPTH, 10)
    assert reason(exc) == CMQC.MQRC_SELECTOR_ERROR


def test_set_with_an_invalid_value_is_2020(conn, make_queue):
    setter = ibmmq.Queue(conn, make_queue(), CMQC.MQOO_SET)
    with pytest.raises(ibmmq.MQMIError) as exc:
        setter.set(CMQC.MQIA_INHIBIT_PUT, 42)
    assert reason(exc) == CMQC.MQRC_INHIBIT_VALUE_ERROR


def test_get_waiting_when_gets_are_inhibited_fails_with_2016(conn, qm, make_queue):
    import threading
    name = make_queue()
    queue = ibmmq.Queue(conn, name, OPEN)

    def inhibit():
        time.sleep(0.3)
        qm.run_mqsc(f"ALTER QLOCAL({name}) GET(DISABLED)")

    thread = threading.Thread(target=inhibit)
    thread.start()
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=5000))
    thread.join()
    assert reason(exc) == CMQC.MQRC_GET_INHIBITED


def test_set_with_fewer_values_than_selectors_is_2021(conn, make_queue):
    setter = ibmmq.Queue(conn, make_queue(), CMQC.MQOO_SET)
    result = ibmmq.ibmmqc.MQSET(conn.get_handle(), setter.get_handle(),
                                [CMQC.MQIA_INHIBIT_GET, CMQC.MQIA_INHIBIT_PUT], [1], b"")
    assert result[-1] == CMQC.MQRC_INT_ATTR_COUNT_ERROR
