"""Conformance: model queues, temporary and permanent dynamic queues, and the SYSTEM objects,
through IBM's ibmmq API against a real embedded queue manager process."""
from __future__ import annotations

import os
import re
import socket

import ibmmq
import pytest
from ibmmq import CMQC

import spark_mq.embedded as embedded
from spark_mq.embedded import EmbeddedQueueManagerError

DEFAULT_MODEL = "SYSTEM.DEFAULT.MODEL.QUEUE"
INPUT = CMQC.MQOO_INPUT_EXCLUSIVE | CMQC.MQOO_INQUIRE
OUTPUT = CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE
NO_WAIT = CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
NON_PERSISTENT = {"Persistence": CMQC.MQPER_NOT_PERSISTENT}
SUFFIX = r"[0-9A-F]{16}"  # the unique part a '*' becomes


def unique(prefix: str = "DYN") -> str:
    unique.counter = getattr(unique, "counter", 0) + 1
    return f"{prefix}.{os.getpid()}.{unique.counter}"


def model(qm, attributes: str = "") -> str:
    name = unique("MODEL")
    qm.run_mqsc(f"DEFINE QMODEL({name}) {attributes}")
    return name


def open_model(conn, model_name: str, dynamic_name: str | None = None,
               options: int = INPUT) -> tuple[ibmmq.Queue, str]:
    """MQOPEN of a model, as IBM's PCFExecute does it: the name comes back in the caller's OD."""
    od = ibmmq.OD(ObjectName=model_name.encode())
    if dynamic_name is not None:
        od.DynamicQName = dynamic_name.encode()
    queue = ibmmq.Queue(conn, od, options)
    return queue, od.ObjectName.decode().strip()


def reason_of(call, *args, **kwargs) -> int:
    with pytest.raises(ibmmq.MQMIError) as exc:
        call(*args, **kwargs)
    return exc.value.reason


def inquire(conn, name: str, selector: int):
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_INQUIRE)
    try:
        return queue.inquire(selector)
    finally:
        queue.close()


def exists(conn, name: str) -> bool:
    try:
        ibmmq.Queue(conn, name, CMQC.MQOO_INQUIRE).close()
    except ibmmq.MQMIError as exc:
        assert exc.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
        return False
    return True


def put(queue, body: bytes, **md) -> None:
    queue.put(body, ibmmq.MD(**(md or NON_PERSISTENT)))


def get(queue) -> bytes:
    return queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=NO_WAIT))


# --- the objects a new queue manager has --------------------------------------------------------

def test_a_new_queue_manager_has_the_system_queues_and_the_developer_model(qm, conn):
    shown = qm.run_mqsc("DISPLAY QUEUE(SYSTEM.*) TYPE DEFTYPE\nDISPLAY QMODEL(DEV.APP.MODEL.QUEUE) DEFTYPE")
    for name, kind in (("SYSTEM.DEFAULT.MODEL.QUEUE", "QMODEL"), ("SYSTEM.DEFAULT.LOCAL.QUEUE", "QLOCAL"),
                       ("SYSTEM.DEAD.LETTER.QUEUE", "QLOCAL"), ("SYSTEM.ADMIN.COMMAND.QUEUE", "QLOCAL"),
                       ("DEV.APP.MODEL.QUEUE", "QMODEL"), ("SYSTEM.DURABLE.MODEL.QUEUE", "QMODEL"),
                       ("SYSTEM.NDURABLE.MODEL.QUEUE", "QMODEL")):
        assert re.search(rf"QUEUE\({re.escape(name)}\)\s+TYPE\({kind}\)", shown), name
    # the default models, MQSC's reply model and the non-durable subscriptions' make
    # temporary queues, the durable subscriptions' and the cluster-senders' transmission
    # queues' (SYSTEM.CLUSTER.TRANSMIT.MODEL.QUEUE) models permanent ones. The queue manager is
    # the session's: other tests' managed durable queues (SYSTEM.MANAGED.DURABLE.*, PERMDYN)
    # may be there too, so only the models are counted
    models = shown.split("AMQ8409I")
    models = [block for block in models if "TYPE(QMODEL)" in block]
    assert sum("DEFTYPE(TEMPDYN)" in block for block in models) == 4
    assert sum("DEFTYPE(PERMDYN)" in block for block in models) == 2
    assert "DEFTYPE(PREDEFINED)" in shown    # the local queues were defined
    assert conn.inquire(CMQC.MQCA_COMMAND_INPUT_Q_NAME).strip() == b"SYSTEM.ADMIN.COMMAND.QUEUE"


def test_pcfexecute_creates_its_reply_queue_from_the_default_model(conn):
    pcf = ibmmq.PCFExecute(conn)  # IBM's own pattern: OD(ObjectName=model, DynamicQName='PYMQPCF.*')
    name = pcf.reply_queue_name.decode()
    assert re.fullmatch(rf"PYMQPCF\.{SUFFIX}", name)
    assert inquire(conn, name, CMQC.MQIA_DEFINITION_TYPE) == CMQC.MQQDT_TEMPORARY_DYNAMIC
    assert inquire(conn, name, CMQC.MQIA_Q_TYPE) == CMQC.MQQT_LOCAL
    pcf.disconnect()  # closes the reply queue: a temporary queue goes with its creator's handle
    assert not exists(conn, name)


# --- MQOPEN of a model queue ---------------------------------------------------------------------

def test_the_od_shows_the_created_queue_and_its_queue_manager(qm, conn):
    od = ibmmq.OD(ObjectName=DEFAULT_MODEL.encode())
    assert od.DynamicQName.strip() == b"AMQ.*"  # MQ's default, which is what the server gets
    queue = ibmmq.Queue(conn, od, INPUT)
    name = od.ObjectName.decode().strip()
    assert re.fullmatch(rf"AMQ\.{SUFFIX}", name)
    assert od.ObjectQMgrName.decode().strip() == qm.name
    assert od.ResolvedQName.decode().strip() == name
    assert queue.inquire(CMQC.MQCA_Q_NAME).decode().strip() == name
    writer = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT)
    put(writer, b"reply")
    writer.close()
    assert get(queue) == b"reply"
    queue.close()


def test_a_dynamic_queue_takes_the_model_attributes(qm, conn):
    name = model(qm, "DEFTYPE(PERMDYN) MAXDEPTH(7) DEFPRTY(3) MSGDLVSQ(FIFO) DESCR('from a model') "
                     "DEFSOPT(SHARED) SHARE")
    queue, created = open_model(conn, name, unique("FULL"))
    assert queue.inquire(CMQC.MQIA_MAX_Q_DEPTH) == 7
    assert queue.inquire(CMQC.MQIA_DEF_PRIORITY) == 3
    assert queue.inquire(CMQC.MQIA_MSG_DELIVERY_SEQUENCE) == CMQC.MQMDS_FIFO
    assert queue.inquire(CMQC.MQCA_Q_DESC).strip() == b"from a model"
    assert queue.inquire(CMQC.MQIA_DEFINITION_TYPE) == CMQC.MQQDT_PERMANENT_DYNAMIC
    assert queue.inquire(CMQC.MQIA_SHAREABILITY) == CMQC.MQQA_SHAREABLE
    assert "DEFTYPE(PERMDYN)" in qm.run_mqsc(f"DISPLAY QLOCAL({created}) DEFTYPE")
    queue.close(CMQC.MQCO_DELETE)


def test_the_default_model_makes_exclusive_unshareable_queues(conn):
    queue, name = open_model(conn, DEFAULT_MODEL, options=CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INQUIRE)
    assert queue.inquire(CMQC.MQIA_DEF_INPUT_OPEN_OPTION) == CMQC.MQOO_INPUT_EXCLUSIVE
    assert queue.inquire(CMQC.MQIA_SHAREABILITY) == CMQC.MQQA_NOT_SHAREABLE
    assert reason_of(ibmmq.Queue, conn, name, CMQC.MQOO_INPUT_SHARED) == CMQC.MQRC_OBJECT_IN_USE
    queue.close()


def test_a_full_dynamic_name_is_used_as_given_and_only_once(conn, make_queue):
    wanted = unique("MY.REPLIES")
    queue, name = open_model(conn, DEFAULT_MODEL, wanted)
    assert name == wanted
    assert reason_of(open_model, conn, DEFAULT_MODEL, wanted) == CMQC.MQRC_OBJECT_ALREADY_EXISTS
    assert reason_of(open_model, conn, DEFAULT_MODEL, make_queue()) == CMQC.MQRC_OBJECT_ALREADY_EXISTS
    queue.close()


def test_a_star_becomes_a_unique_suffix_within_48_characters(conn):
    names = []
    for dynamic in ("APP.REPLIES.*", "APP.REPLIES.*", "*", "P" * 32 + "*"):
        queue, name = open_model(conn, DEFAULT_MODEL, dynamic)
        names.append(name)
        queue.close()
    assert re.fullmatch(rf"APP\.REPLIES\.{SUFFIX}", names[0]) and names[0] != names[1]
    assert re.fullmatch(SUFFIX, names[2])
    assert len(names[3]) == 48 and names[3].startswith("P" * 32)


@pytest.mark.parametrize("dynamic", [" ", "A*B", "A.*.*", "Q" * 33 + "*", "BAD NAME.*"])
def test_a_bad_dynamic_name_fails(conn, dynamic):
    assert reason_of(open_model, conn, DEFAULT_MODEL, dynamic) == CMQC.MQRC_DYNAMIC_Q_NAME_ERROR


def test_a_failed_open_of_a_model_creates_no_queue(conn):
    wanted = unique("NEVER")
    assert reason_of(open_model, conn, DEFAULT_MODEL, wanted, 0) == CMQC.MQRC_OPTIONS_ERROR
    assert not exists(conn, wanted)


def test_put1_and_an_alias_cannot_reach_a_model_queue(qm, conn):
    assert reason_of(conn.put1, DEFAULT_MODEL, b"x") == CMQC.MQRC_Q_TYPE_ERROR
    alias = unique("ALIAS")
    qm.run_mqsc(f"DEFINE QALIAS({alias}) TARGET({DEFAULT_MODEL})")
    assert reason_of(ibmmq.Queue, conn, alias, CMQC.MQOO_OUTPUT) == CMQC.MQRC_ALIAS_BASE_Q_TYPE_ERROR


# --- temporary dynamic queues --------------------------------------------------------------------

def test_closing_the_creating_handle_deletes_the_queue_and_its_messages(qm, conn):
    queue, name = open_model(conn, DEFAULT_MODEL)
    other = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    writer = ibmmq.Queue(other, name, OUTPUT)
    put(writer, b"left behind")
    queue.close()  # MQCO_NONE: a temporary queue goes anyway, messages and all
    assert not exists(conn, name)
    assert reason_of(put, writer, b"too late") == CMQC.MQRC_Q_DELETED
    assert reason_of(writer.inquire, CMQC.MQIA_CURRENT_Q_DEPTH) == CMQC.MQRC_Q_DELETED
    writer.close()  # the handle of a deleted queue still closes
    other.disconnect()


def test_only_the_creating_handle_deletes_a_temporary_queue(conn):
    queue, name = open_model(conn, DEFAULT_MODEL)
    writer = ibmmq.Queue(conn, name, OUTPUT)
    assert reason_of(writer.close, CMQC.MQCO_DELETE) == CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE
    put(writer, b"still open")  # a failed MQCLOSE leaves the handle open
    writer.close()
    assert get(queue) == b"still open"  # closing another handle deleted nothing
    queue.close(CMQC.MQCO_DELETE)  # allowed to the creator: the queue goes, as with MQCO_NONE
    assert not exists(conn, name)


def test_persistent_messages_are_refused_by_a_temporary_queue(qm, conn):
    queue, name = open_model(conn, DEFAULT_MODEL, options=OUTPUT | CMQC.MQOO_INPUT_EXCLUSIVE)
    persistent = {"Persistence": CMQC.MQPER_PERSISTENT}
    assert reason_of(put, queue, b"p", **persistent) == CMQC.MQRC_PERSISTENT_NOT_ALLOWED
    assert reason_of(conn.put1, name, b"p", ibmmq.MD(**persistent)) == CMQC.MQRC_PERSISTENT_NOT_ALLOWED
    put(queue, b"non-persistent")
    assert get(queue) == b"non-persistent"
    queue.close()
    # DEFPSIST(YES) on a temporary model: a put that takes the queue's default fails too
    defpsist, _ = open_model(conn, model(qm, "DEFTYPE(TEMPDYN) DEFPSIST(YES)"), options=OUTPUT)
    as_default = {"Persistence": CMQC.MQPER_PERSISTENCE_AS_Q_DEF}
    assert reason_of(put, defpsist, b"p", **as_default) == CMQC.MQRC_PERSISTENT_NOT_ALLOWED
    defpsist.close()


def test_disconnect_deletes_the_connections_temporary_queues(qm, conn):
    other = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    first_queue, first = open_model(other, DEFAULT_MODEL)
    second_queue, second = open_model(other, "DEV.APP.MODEL.QUEUE", "APP.REPLIES.*")
    assert exists(conn, first) and exists(conn, second)
    other.disconnect()  # with both handles still open
    assert not exists(conn, first) and not exists(conn, second)
    del first_queue, second_queue


def test_a_lost_connection_deletes_its_temporary_queue_and_ends_waiting_gets(qm, conn):
    victim = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    creator, name = open_model(victim, DEFAULT_MODEL, options=CMQC.MQOO_OUTPUT)
    reader = ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_SHARED)
    # the victim's process dies: its socket goes away without an MQDISC
    ibmmq.ibmmqc._connections[victim.get_handle()].sock.shutdown(socket.SHUT_RDWR)
    waiting = ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=30_000)
    # whether the server has noticed yet or not, the get ends with the queue's deletion
    assert reason_of(reader.get, None, ibmmq.MD(), waiting) == CMQC.MQRC_Q_DELETED
    reader.close()
    assert not exists(conn, name)
    del creator


def test_uncommitted_work_on_a_deleted_temporary_queue_commits_to_nothing(qm, conn):
    queue, name = open_model(conn, DEFAULT_MODEL)
    other = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    writer = ibmmq.Queue(other, name, CMQC.MQOO_OUTPUT)
    writer.put(b"in flight", ibmmq.MD(**NON_PERSISTENT), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    queue.close()
    other.commit()  # MQ deletes the queue regardless of outstanding units of work
    writer.close()
    other.disconnect()
    assert not exists(conn, name)


# --- permanent dynamic queues --------------------------------------------------------------------

def test_a_permanent_queue_outlives_its_handle_until_mqco_delete(qm, conn):
    queue, name = open_model(conn, model(qm, "DEFTYPE(PERMDYN)"), options=OUTPUT | CMQC.MQOO_INPUT_SHARED)
    put(queue, b"kept")
    queue.close()
    assert exists(conn, name)
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_SHARED)  # any handle may delete it
    assert reason_of(queue.close, CMQC.MQCO_DELETE) == CMQC.MQRC_Q_NOT_EMPTY
    assert get(queue) == b"kept"  # the failed MQCLOSE left the handle open
    queue.close(CMQC.MQCO_DELETE)
    assert not exists(conn, name)


def test_delete_purge_drops_messages_but_not_uncommitted_work(qm, conn):
    queue, name = open_model(conn, model(qm, "DEFTYPE(PERMDYN)"), options=OUTPUT)
    put(queue, b"committed")
    queue.put(b"uncommitted", ibmmq.MD(**NON_PERSISTENT), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    for option in (CMQC.MQCO_DELETE, CMQC.MQCO_DELETE_PURGE):
        assert reason_of(queue.close, option) == CMQC.MQRC_Q_NOT_EMPTY
    conn.commit()
    reader = ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_SHARED)
    get(reader)
    reader.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT))
    assert reason_of(queue.close, CMQC.MQCO_DELETE_PURGE) == CMQC.MQRC_Q_NOT_EMPTY  # a get, now
    conn.backout()
    queue.close(CMQC.MQCO_DELETE_PURGE)
    assert not exists(conn, name)
    assert reason_of(get, reader) == CMQC.MQRC_Q_DELETED  # another handle's queue went
    reader.close()


def test_close_options_that_do_not_apply(conn, make_queue):
    queue = ibmmq.Queue(conn, make_queue(), OUTPUT)
    assert reason_of(queue.close, CMQC.MQCO_DELETE) == CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE
    assert reason_of(queue.close, CMQC.MQCO_DELETE | CMQC.MQCO_DELETE_PURGE) == CMQC.MQRC_OPTIONS_ERROR
    assert reason_of(queue.close, 0x100000) == CMQC.MQRC_OPTIONS_ERROR
    assert reason_of(queue.close, CMQC.MQCO_KEEP_SUB) == CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE
    put(queue, b"still open")
    queue.close()


# --- MQSC on model queues ------------------------------------------------------------------------

def test_mqsc_defines_displays_alters_and_deletes_a_model(qm, conn):
    name = model(qm, "DEFTYPE(PERMDYN) MAXDEPTH(12)")
    shown = qm.run_mqsc(f"DISPLAY QMODEL({name})")
    assert "TYPE(QMODEL)" in shown and "DEFTYPE(PERMDYN)" in shown and "MAXDEPTH(12)" in shown
    assert "CURDEPTH" not in shown  # a model holds no messages
    assert f"QUEUE({name})" in qm.run_mqsc(f"DISPLAY QUEUE({name}) TYPE")
    qm.run_mqsc(f"ALTER QMODEL({name}) DEFTYPE(TEMPDYN)")
    queue, _ = open_model(conn, name)
    assert queue.inquire(CMQC.MQIA_DEFINITION_TYPE) == CMQC.MQQDT_TEMPORARY_DYNAMIC
    queue.close()
    with pytest.raises(EmbeddedQueueManagerError) as exc:
        qm.run_mqsc(f"DEFINE QLOCAL({name})")  # one namespace for every kind of queue
    assert "already exists" in str(exc.value)
    qm.run_mqsc(f"DELETE QMODEL({name})")
    assert reason_of(open_model, conn, name) == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_display_shows_what_a_dynamic_queue_is(qm, conn):
    queue, name = open_model(conn, DEFAULT_MODEL)
    assert "DEFTYPE(TEMPDYN)" in qm.run_mqsc(f"DISPLAY QLOCAL({name}) DEFTYPE")
    with pytest.raises(EmbeddedQueueManagerError):
        qm.run_mqsc(f"DELETE QLOCAL({name})")  # open by its creator
    queue.close()


# --- restarts ------------------------------------------------------------------------------------

def test_a_restart_keeps_permanent_dynamic_queues_and_models_but_no_temporary_ones(tmp_path):
    with embedded.EmbeddedQueueManager(str(tmp_path), name="QMDYN") as manager:
        manager.run_mqsc("DEFINE QMODEL(KEEP.MODEL) DEFTYPE(PERMDYN) MAXDEPTH(9)")
        conn = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
        permanent, permanent_name = open_model(conn, "KEEP.MODEL", "KEPT.*", OUTPUT)
        permanent.put(b"durable", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        temporary, temporary_name = open_model(conn, DEFAULT_MODEL, "GONE.*", OUTPUT)
        put(temporary, b"volatile")
        manager.stop()  # handles still open: a restart is no MQCLOSE
        manager.start()
        conn = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
        assert not exists(conn, temporary_name)
        reader = ibmmq.Queue(conn, permanent_name, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE)
        assert reader.inquire(CMQC.MQIA_DEFINITION_TYPE) == CMQC.MQQDT_PERMANENT_DYNAMIC
        assert reader.inquire(CMQC.MQIA_MAX_Q_DEPTH) == 9
        assert get(reader) == b"durable"
        reader.close(CMQC.MQCO_DELETE)  # deleted after a restart, and for good
        model_queue, _ = open_model(conn, "KEEP.MODEL", "AGAIN.*")  # the model itself survived
        model_queue.close(CMQC.MQCO_DELETE)
        conn.disconnect()
        manager.stop()
        manager.start()
        conn = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
        assert not exists(conn, permanent_name)
        assert exists(conn, "SYSTEM.DEFAULT.LOCAL.QUEUE")  # system queues stay, not re-created
        conn.disconnect()
