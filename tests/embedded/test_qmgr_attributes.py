"""Conformance: queue-manager attributes (MQINQ on the queue manager, DISPLAY QMGR) and the
trigger attributes of queues (MQSC, MQINQ, MQSET), as an IBM MQ 9.4 queue manager has them."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC

SET_INQ = CMQC.MQOO_SET | CMQC.MQOO_INQUIRE


def reason(excinfo) -> int:
    return excinfo.value.reason


# --- the queue manager -----------------------------------------------------------------

def test_version_is_mq_94_in_vvrrmmff_form(conn):
    assert conn.inquire(CMQC.MQCA_VERSION) == b"09040000"


def test_what_ibms_inq_set_example_asks_the_queue_manager(conn):
    attrs = conn.inquire([CMQC.MQCA_VERSION, CMQC.MQIA_COMMAND_LEVEL])
    assert attrs == {CMQC.MQCA_VERSION: b"09040000", CMQC.MQIA_COMMAND_LEVEL: 940}


@pytest.mark.parametrize("selector, value", [
    (CMQC.MQIA_COMMAND_LEVEL, 940),
    (CMQC.MQIA_PLATFORM, CMQC.MQPL_UNIX),
    (CMQC.MQIA_CODED_CHAR_SET_ID, 1208),
    (CMQC.MQIA_MAX_PRIORITY, 9),
    (CMQC.MQIA_SYNCPOINT, CMQC.MQSP_AVAILABLE),
    (CMQC.MQIA_MAX_HANDLES, 256),
    (CMQC.MQIA_TRIGGER_INTERVAL, 999999999),
    (CMQC.MQIA_MAX_MSG_LENGTH, 4194304),
    (CMQC.MQIA_DIST_LISTS, CMQC.MQDL_NOT_SUPPORTED),
    (CMQC.MQIA_CHANNEL_AUTO_DEF, CMQC.MQCHAD_DISABLED),
    (CMQC.MQIA_INHIBIT_EVENT, 0),   # MQEVR_DISABLED: no event messages
])
def test_queue_manager_integer_attributes(conn, selector, value):
    assert conn.inquire(selector) == value


def test_queue_manager_character_attributes_are_blank_padded(qm, conn):
    attrs = conn.inquire([CMQC.MQCA_Q_MGR_NAME, CMQC.MQCA_DEAD_LETTER_Q_NAME,
                          CMQC.MQCA_COMMAND_INPUT_Q_NAME, CMQC.MQCA_Q_MGR_IDENTIFIER,
                          CMQC.MQCA_Q_MGR_DESC, CMQC.MQCA_DEF_XMIT_Q_NAME])
    assert attrs[CMQC.MQCA_Q_MGR_NAME] == qm.name.encode().ljust(48)
    assert attrs[CMQC.MQCA_DEAD_LETTER_Q_NAME] == b"DEV.DEAD.LETTER.QUEUE".ljust(48)
    assert attrs[CMQC.MQCA_COMMAND_INPUT_Q_NAME] == b"SYSTEM.ADMIN.COMMAND.QUEUE".ljust(48)
    assert attrs[CMQC.MQCA_Q_MGR_IDENTIFIER].startswith(qm.name.encode() + b"_")
    assert len(attrs[CMQC.MQCA_Q_MGR_DESC]) == 64
    assert attrs[CMQC.MQCA_DEF_XMIT_Q_NAME] == b" " * 48


def test_identifier_is_the_same_on_every_connection(qm, conn, ibmmq):
    other = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    try:
        assert other.inquire(CMQC.MQCA_Q_MGR_IDENTIFIER) == conn.inquire(CMQC.MQCA_Q_MGR_IDENTIFIER)
    finally:
        other.disconnect()


def test_a_queue_attribute_on_the_queue_manager_is_warning_2068(conn):
    with pytest.raises(ibmmq.MQMIError) as exc:
        conn.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    assert (exc.value.comp, reason(exc)) == (CMQC.MQCC_WARNING, CMQC.MQRC_SELECTOR_NOT_FOR_TYPE)


def test_display_qmgr_shows_version_and_status(qm):
    shown = qm.run_mqsc("DISPLAY QMGR")
    for item in ("VERSION(09040000)", "CMDLEVEL(940)", "PLATFORM(UNIX)", "CCSID(1208)",
                 "MAXPRTY(9)", "COMMANDQ(SYSTEM.ADMIN.COMMAND.QUEUE)", "MAXHANDS(256)",
                 "TRIGINT(999999999)", "DEADQ(DEV.DEAD.LETTER.QUEUE)", "DISTL(NO)"):
        assert item in shown
    assert "SYNCPT" in shown.split()
    assert "QMID(" in shown


def test_display_qmgr_shows_only_what_is_asked(qm):
    shown = qm.run_mqsc("DISPLAY QMGR CMDLEVEL VERSION")
    assert "CMDLEVEL(940)" in shown and "VERSION(09040000)" in shown
    assert "PLATFORM" not in shown


def test_alter_qmgr_changes_what_inquire_answers(qm, conn):
    qm.run_mqsc("ALTER QMGR MAXHANDS(300) TRIGINT(60000)")
    try:
        assert conn.inquire([CMQC.MQIA_MAX_HANDLES, CMQC.MQIA_TRIGGER_INTERVAL]) == {
            CMQC.MQIA_MAX_HANDLES: 300, CMQC.MQIA_TRIGGER_INTERVAL: 60000}
    finally:
        qm.run_mqsc("ALTER QMGR MAXHANDS(256) TRIGINT(999999999)")


# --- trigger attributes of queues ------------------------------------------------------

_TRIGGER_SELECTORS = [CMQC.MQIA_TRIGGER_CONTROL, CMQC.MQIA_TRIGGER_TYPE,
                      CMQC.MQIA_TRIGGER_DEPTH, CMQC.MQIA_TRIGGER_MSG_PRIORITY,
                      CMQC.MQCA_TRIGGER_DATA, CMQC.MQCA_PROCESS_NAME, CMQC.MQCA_INITIATION_Q_NAME]


def test_trigger_defaults_of_a_local_queue(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), CMQC.MQOO_INQUIRE)
    attrs = queue.inquire(_TRIGGER_SELECTORS)
    queue.close()
    assert attrs == {
        CMQC.MQIA_TRIGGER_CONTROL: CMQC.MQTC_OFF, CMQC.MQIA_TRIGGER_TYPE: CMQC.MQTT_FIRST,
        CMQC.MQIA_TRIGGER_DEPTH: 1, CMQC.MQIA_TRIGGER_MSG_PRIORITY: 0,
        CMQC.MQCA_TRIGGER_DATA: b" " * 64, CMQC.MQCA_PROCESS_NAME: b" " * 48,
        CMQC.MQCA_INITIATION_Q_NAME: b" " * 48}


def test_trigger_attributes_defined_in_mqsc_are_inquired(conn, make_queue):
    name = make_queue("TRIGGER TRIGTYPE(DEPTH) TRIGDPTH(7) TRIGMPRI(4) TRIGDATA('go now') "
                      "PROCESS(MY.PROCESS) INITQ(MY.INITQ)")
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_INQUIRE)
    attrs = queue.inquire(_TRIGGER_SELECTORS)
    queue.close()
    assert attrs == {
        CMQC.MQIA_TRIGGER_CONTROL: CMQC.MQTC_ON, CMQC.MQIA_TRIGGER_TYPE: CMQC.MQTT_DEPTH,
        CMQC.MQIA_TRIGGER_DEPTH: 7, CMQC.MQIA_TRIGGER_MSG_PRIORITY: 4,
        CMQC.MQCA_TRIGGER_DATA: b"go now".ljust(64), CMQC.MQCA_PROCESS_NAME: b"MY.PROCESS".ljust(48),
        CMQC.MQCA_INITIATION_Q_NAME: b"MY.INITQ".ljust(48)}


def test_what_ibms_inq_set_example_sets_and_inquires(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), SET_INQ)
    queue.set({CMQC.MQCA_TRIGGER_DATA: "2024-01-01 12:00:00", CMQC.MQIA_TRIGGER_DEPTH: 42})
    attrs = queue.inquire([CMQC.MQCA_Q_DESC, CMQC.MQIA_TRIGGER_DEPTH, CMQC.MQCA_BACKOUT_REQ_Q_NAME,
                           CMQC.MQCA_TRIGGER_DATA, CMQC.MQIA_CURRENT_Q_DEPTH])
    queue.close()
    assert attrs[CMQC.MQIA_TRIGGER_DEPTH] == 42
    assert attrs[CMQC.MQCA_TRIGGER_DATA] == b"2024-01-01 12:00:00".ljust(64)
    assert attrs[CMQC.MQIA_CURRENT_Q_DEPTH] == 0


def test_set_trigger_control_type_and_priority_shows_in_display(qm, conn, make_queue):
    name = make_queue()
    queue = ibmmq.Queue(conn, name, SET_INQ)
    queue.set({CMQC.MQIA_TRIGGER_CONTROL: CMQC.MQTC_ON, CMQC.MQIA_TRIGGER_TYPE: CMQC.MQTT_EVERY,
               CMQC.MQIA_TRIGGER_MSG_PRIORITY: 9})
    assert queue.inquire(CMQC.MQIA_TRIGGER_CONTROL) == CMQC.MQTC_ON
    queue.close()
    shown = qm.run_mqsc(f"DISPLAY QLOCAL({name}) TRIGGER TRIGTYPE TRIGMPRI")
    assert "TRIGGER" in shown.split() and "TRIGTYPE(EVERY)" in shown and "TRIGMPRI(9)" in shown


@pytest.mark.parametrize("selector, value, expected", [
    (CMQC.MQIA_TRIGGER_CONTROL, 2, CMQC.MQRC_TRIGGER_CONTROL_ERROR),
    (CMQC.MQIA_TRIGGER_TYPE, 4, CMQC.MQRC_TRIGGER_TYPE_ERROR),
    (CMQC.MQIA_TRIGGER_DEPTH, 0, CMQC.MQRC_TRIGGER_DEPTH_ERROR),
    (CMQC.MQIA_TRIGGER_MSG_PRIORITY, 10, CMQC.MQRC_TRIGGER_MSG_PRIORITY_ERR),
    (CMQC.MQIA_TRIGGER_MSG_PRIORITY, -1, CMQC.MQRC_TRIGGER_MSG_PRIORITY_ERR),
    (CMQC.MQIA_INHIBIT_PUT, 7, CMQC.MQRC_INHIBIT_VALUE_ERROR),
    (CMQC.MQIA_MAX_Q_DEPTH, 10, CMQC.MQRC_SELECTOR_ERROR),   # not settable by MQSET
])
def test_set_bad_values_fail_with_mqs_reasons(conn, make_queue, selector, value, expected):
    queue = ibmmq.Queue(conn, make_queue(), SET_INQ)
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.set({selector: value})
    assert (exc.value.comp, reason(exc)) == (CMQC.MQCC_FAILED, expected)
    queue.close()


def test_a_failing_set_changes_nothing(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), SET_INQ)
    with pytest.raises(ibmmq.MQMIError):
        queue.set({CMQC.MQIA_TRIGGER_DEPTH: 5, CMQC.MQIA_TRIGGER_TYPE: 99})
    assert queue.inquire(CMQC.MQIA_TRIGGER_DEPTH) == 1
    queue.close()


def test_alias_queue_has_no_trigger_attributes(qm, conn, make_queue):
    target = make_queue()
    alias = f"{target}.ALIAS"
    qm.run_mqsc(f"DEFINE QALIAS({alias}) TARGET({target})")
    queue = ibmmq.Queue(conn, alias, SET_INQ)
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.inquire(CMQC.MQIA_TRIGGER_DEPTH)
    assert reason(exc) == CMQC.MQRC_SELECTOR_NOT_FOR_TYPE
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.set({CMQC.MQIA_TRIGGER_DEPTH: 3})
    assert reason(exc) == CMQC.MQRC_SELECTOR_ERROR
    queue.set({CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_INHIBITED})  # what an alias may set
    queue.close()


def test_dynamic_queue_takes_the_trigger_attributes_of_its_model(qm, conn, make_queue):
    model = f"{make_queue()}.MODEL"
    qm.run_mqsc(f"DEFINE QMODEL({model}) TRIGGER TRIGTYPE(EVERY) INITQ(MY.INITQ)")
    queue = ibmmq.Queue(conn, model, CMQC.MQOO_INPUT_EXCLUSIVE | CMQC.MQOO_INQUIRE)
    attrs = queue.inquire([CMQC.MQIA_TRIGGER_CONTROL, CMQC.MQIA_TRIGGER_TYPE,
                           CMQC.MQCA_INITIATION_Q_NAME])
    queue.close()
    assert attrs == {CMQC.MQIA_TRIGGER_CONTROL: CMQC.MQTC_ON,
                     CMQC.MQIA_TRIGGER_TYPE: CMQC.MQTT_EVERY,
                     CMQC.MQCA_INITIATION_Q_NAME: b"MY.INITQ".ljust(48)}
