"""MQSC through a running queue manager (qm.run_mqsc), checked through the ibmmq API."""
from __future__ import annotations

import os

import ibmmq
import pytest
from ibmmq import CMQC

import spark_mq.embedded as embedded
from spark_mq.embedded import EmbeddedQueueManagerError


def inquire(conn, name: str, selector: int):
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_INQUIRE)
    try:
        return queue.inquire(selector)
    finally:
        queue.close()


def unique(prefix: str = "MQSC") -> str:
    unique.counter = getattr(unique, "counter", 0) + 1
    return f"{prefix}.{os.getpid()}.{unique.counter}"


def test_define_with_attributes_is_visible_through_mqinq(qm, conn):
    name = unique()
    qm.run_mqsc(f"DEFINE QLOCAL({name}) MAXMSGL(65536) MAXDEPTH(42) DEFPSIST(YES) DEFPRTY(4) "
                f"MSGDLVSQ(FIFO) BOTHRESH(3) BOQNAME(DEV.DEAD.LETTER.QUEUE) DEFREADA(YES) "
                f"DEFPRESP(ASYNC) PROPCTL(NONE)")
    assert inquire(conn, name, CMQC.MQIA_MAX_MSG_LENGTH) == 65536
    assert inquire(conn, name, CMQC.MQIA_MAX_Q_DEPTH) == 42
    assert inquire(conn, name, CMQC.MQIA_DEF_PERSISTENCE) == CMQC.MQPER_PERSISTENT
    assert inquire(conn, name, CMQC.MQIA_DEF_PRIORITY) == 4
    assert inquire(conn, name, CMQC.MQIA_MSG_DELIVERY_SEQUENCE) == CMQC.MQMDS_FIFO
    assert inquire(conn, name, CMQC.MQIA_BACKOUT_THRESHOLD) == 3
    assert inquire(conn, name, CMQC.MQIA_PROPERTY_CONTROL) == CMQC.MQPROP_NONE


def test_define_existing_without_replace_fails_naming_the_line(qm):
    name = unique()
    qm.run_mqsc(f"DEFINE QLOCAL({name})")
    with pytest.raises(EmbeddedQueueManagerError) as exc:
        qm.run_mqsc(f"* comment\nDEFINE QLOCAL({name})")
    assert "line 2" in str(exc.value) and "REPLACE" in str(exc.value)


def test_replace_changes_the_definition_and_keeps_messages(qm, conn):
    name = unique()
    qm.run_mqsc(f"DEFINE QLOCAL({name}) MAXDEPTH(10)")
    conn.put1(name, b"kept")
    qm.run_mqsc(f"DEFINE QLOCAL({name}) MAXDEPTH(20) REPLACE")
    assert inquire(conn, name, CMQC.MQIA_MAX_Q_DEPTH) == 20
    assert inquire(conn, name, CMQC.MQIA_CURRENT_Q_DEPTH) == 1


def test_bad_attribute_value_names_the_attribute_and_valid_values(qm):
    with pytest.raises(EmbeddedQueueManagerError) as exc:
        qm.run_mqsc(f"DEFINE QLOCAL({unique()}) MAXDEPTH(lots)")
    assert "MAXDEPTH" in str(exc.value) and "lots" in str(exc.value) and "999999999" in str(exc.value)


def test_unknown_attribute_is_named(qm):
    with pytest.raises(EmbeddedQueueManagerError) as exc:
        qm.run_mqsc(f"DEFINE QLOCAL({unique()}) COLOUR(RED)")
    assert "COLOUR" in str(exc.value) and "line 1" in str(exc.value)


def test_syntax_error_changes_nothing(qm, conn):
    name = unique()
    with pytest.raises(EmbeddedQueueManagerError):
        qm.run_mqsc(f"DEFINE QLOCAL({name})\nDEFINE QLOCAL(X) MAXDEPTH(")
    with pytest.raises(ibmmq.MQMIError) as exc:
        inquire(conn, name, CMQC.MQIA_MAX_Q_DEPTH)
    assert exc.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_alter_changes_one_attribute(qm, conn):
    name = unique()
    qm.run_mqsc(f"DEFINE QLOCAL({name}) MAXDEPTH(10) DEFPRTY(2)")
    qm.run_mqsc(f"ALTER QLOCAL({name}) MAXDEPTH(11)")
    assert inquire(conn, name, CMQC.MQIA_MAX_Q_DEPTH) == 11
    assert inquire(conn, name, CMQC.MQIA_DEF_PRIORITY) == 2


def test_clear_empties_the_queue(qm, conn):
    name = unique()
    qm.run_mqsc(f"DEFINE QLOCAL({name})")
    for _ in range(3):
        conn.put1(name, b"x")
    qm.run_mqsc(f"CLEAR QLOCAL({name})")
    assert inquire(conn, name, CMQC.MQIA_CURRENT_Q_DEPTH) == 0


def test_clear_of_an_open_queue_fails(qm, conn):
    name = unique()
    qm.run_mqsc(f"DEFINE QLOCAL({name})")
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_SHARED)
    with pytest.raises(EmbeddedQueueManagerError):
        qm.run_mqsc(f"CLEAR QLOCAL({name})")
    queue.close()


def test_delete_needs_purge_when_not_empty(qm, conn):
    name = unique()
    qm.run_mqsc(f"DEFINE QLOCAL({name})")
    conn.put1(name, b"x")
    with pytest.raises(EmbeddedQueueManagerError):
        qm.run_mqsc(f"DELETE QLOCAL({name})")
    qm.run_mqsc(f"DELETE QLOCAL({name}) PURGE")
    with pytest.raises(ibmmq.MQMIError) as exc:
        inquire(conn, name, CMQC.MQIA_CURRENT_Q_DEPTH)
    assert exc.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_qalias_define_and_target_change(qm, conn):
    first, second, alias = unique(), unique(), unique("ALIAS")
    qm.run_mqsc(f"DEFINE QLOCAL({first})\nDEFINE QLOCAL({second})\n"
                f"DEFINE QALIAS({alias}) TARGET({first})")
    conn.put1(alias, b"to first")
    qm.run_mqsc(f"ALTER QALIAS({alias}) TARGET({second})")
    conn.put1(alias, b"to second")
    assert inquire(conn, first, CMQC.MQIA_CURRENT_Q_DEPTH) == 1
    assert inquire(conn, second, CMQC.MQIA_CURRENT_Q_DEPTH) == 1


def test_qalias_without_target_is_an_error(qm):
    with pytest.raises(EmbeddedQueueManagerError) as exc:
        qm.run_mqsc(f"DEFINE QALIAS({unique('ALIAS')})")
    assert "TARGET" in str(exc.value)


def test_alias_put_inhibit_applies_through_the_alias_only(qm, conn):
    target, alias = unique(), unique("ALIAS")
    qm.run_mqsc(f"DEFINE QLOCAL({target})\nDEFINE QALIAS({alias}) TARGET({target}) PUT(DISABLED)")
    with pytest.raises(ibmmq.MQMIError) as exc:
        conn.put1(alias, b"x")
    assert exc.value.reason == CMQC.MQRC_PUT_INHIBITED
    conn.put1(target, b"x")


def test_display_shows_curdepth_and_requested_attributes(qm, conn):
    name = unique()
    qm.run_mqsc(f"DEFINE QLOCAL({name}) MAXDEPTH(77)")
    conn.put1(name, b"x")
    output = qm.run_mqsc(f"DISPLAY QLOCAL({name}) CURDEPTH MAXDEPTH")
    assert f"QUEUE({name})" in output and "CURDEPTH(1)" in output and "MAXDEPTH(77)" in output
    assert "DEFPRTY" not in output
    assert "DEFPRTY(0)" in qm.run_mqsc(f"DISPLAY QLOCAL({name}) ALL")


def test_display_with_a_generic_name(qm):
    prefix = unique("GEN")
    qm.run_mqsc(f"DEFINE QLOCAL({prefix}.A)\nDEFINE QLOCAL({prefix}.B)")
    output = qm.run_mqsc(f"DISPLAY QLOCAL({prefix}.*)")
    assert f"QUEUE({prefix}.A)" in output and f"QUEUE({prefix}.B)" in output


def test_alter_qmgr_maxmsgl_is_visible_through_mqinq(qm, conn):
    qm.run_mqsc("ALTER QMGR MAXMSGL(8388608)")
    try:
        assert conn.inquire(CMQC.MQIA_MAX_MSG_LENGTH) == 8388608
    finally:
        qm.run_mqsc("ALTER QMGR MAXMSGL(4194304)")


def test_ibm_container_mqsc_with_channels_and_authrecs_runs(qm):
    qm.run_mqsc("""
        DEFINE CHANNEL('DEV.ADMIN.SVRCONN') CHLTYPE(SVRCONN) REPLACE
        SET CHLAUTH('DEV.APP.SVRCONN') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) CHCKCLNT(REQUIRED) +
            ACTION(REPLACE)
        SET AUTHREC PRINCIPAL('app') OBJTYPE(QMGR) AUTHADD(CONNECT,INQ)
        REFRESH SECURITY TYPE(CONNAUTH)
    """)


def test_mqsc_file_at_start_and_definitions_survive_restart(tmp_path):
    script = tmp_path / "app.mqsc"
    script.write_text("DEFINE QLOCAL(APP.IN) MAXMSGL(65536) +\n  MAXDEPTH(123)\n")
    with embedded.EmbeddedQueueManager(str(tmp_path / "data"), name="QMFILE", mqsc=str(script)) as manager:
        connection = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
        assert inquire(connection, "APP.IN", CMQC.MQIA_MAX_Q_DEPTH) == 123
        manager.run_mqsc("DEFINE QLOCAL(APP.LATER) MAXDEPTH(5)")
        connection.disconnect()
        manager.stop()
        manager.start()
        connection = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
        assert inquire(connection, "APP.LATER", CMQC.MQIA_MAX_Q_DEPTH) == 5
        assert inquire(connection, "APP.IN", CMQC.MQIA_MAX_MSG_LENGTH) == 65536
        connection.disconnect()


def test_invalid_mqsc_at_start_fails_the_start(tmp_path):
    manager = embedded.EmbeddedQueueManager(str(tmp_path), name="QMBAD",
                                            mqsc="DEFINE QLOCAL(X) MAXDEPTH(oops)\n")
    with pytest.raises(EmbeddedQueueManagerError) as exc:
        manager.start()
    assert "qmgr.log" in str(exc.value)
    manager.stop()


def test_display_queue_with_type_shows_only_that_kind(qm):
    """IBM docs, DISPLAY QUEUE: TYPE(QLOCAL|QALIAS|QMODEL|QREMOTE|ALL) selects the kind of
    queue a generic name shows; a kind outside those is refused, naming the valid ones."""
    suffix = os.getpid()
    qm.run_mqsc(f"DEFINE QLOCAL(KIND.{suffix}.L) REPLACE\n"
                f"DEFINE QALIAS(KIND.{suffix}.A) TARGET(KIND.{suffix}.L) REPLACE")
    locals_only = qm.run_mqsc(f"DISPLAY QUEUE(KIND.{suffix}.*) TYPE(QLOCAL)")
    assert f"QUEUE(KIND.{suffix}.L)" in locals_only and f"KIND.{suffix}.A" not in locals_only
    aliases = qm.run_mqsc(f"DISPLAY QUEUE(KIND.{suffix}.*) TYPE(QALIAS)")
    assert f"QUEUE(KIND.{suffix}.A)" in aliases and f"QUEUE(KIND.{suffix}.L)" not in aliases
    both = qm.run_mqsc(f"DISPLAY QUEUE(KIND.{suffix}.*) TYPE(ALL)")
    assert f"KIND.{suffix}.A" in both and f"KIND.{suffix}.L" in both
    with pytest.raises(EmbeddedQueueManagerError, match="QLOCAL, QALIAS, QMODEL, QREMOTE"):
        qm.run_mqsc(f"DISPLAY QUEUE(KIND.{suffix}.*) TYPE(QTOPIC)")
