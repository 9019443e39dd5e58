"""Attack: a receiver channel's port on a queue manager with users, reached by someone who
speaks the channel protocol (link.py's frames) with no password and no certificate. A
receiving MCA is not an administrator: CHLAUTH admits a partner as IBM MQ does (the default
BLOCKUSER('*MQADMIN') refuses a receiver that would run as mqm, AMQ9777E), the partner's
queue-manager name is a rule input (QMGRMAP), not a credential, and every put the MCA makes
is checked for its user, +setall included for the partner's context: a forged command or
trigger message lands on the dead-letter queue with reason 2035 and nothing runs. Between
two real queue managers, a secured receiver running as a named user with the authority it
needs delivers the faithful copy, context intact."""
from __future__ import annotations

import socket
import struct
import time
import uuid
from pathlib import Path

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

import spark_mq.embedded as embedded
from channel_topology import define_sender, receive, start
from spark_mq.embedded import wire
from spark_mq.embedded.server.resolution.transmission import wrap
from spark_mq.mqi.structs import DLH, TM, default_md

USERS = {"app": "passw0rd", "admin": "adminpw"}
CHANNEL = "EVIL.TO.QMB"
DLQ = "DEV.DEAD.LETTER.QUEUE"
#: what an operator grants the MCA user so that it may pass its partner's context
SETALL_ON_DEV_QUEUE_1 = ("SET AUTHREC PROFILE('DEV.QUEUE.1') OBJTYPE(QUEUE) PRINCIPAL('app') "
                         "AUTHADD(SETALL)\n"
                         "SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('app') AUTHADD(SETALL)\n")


@pytest.fixture
def qmb(tmp_path):
    manager = embedded.EmbeddedQueueManager(str(tmp_path / "QMB"), name="QMB", users=USERS).start()
    yield manager
    manager.stop()


def _log(manager: embedded.EmbeddedQueueManager) -> str:
    return (Path(manager.data_dir) / "qmgr.log").read_text(errors="replace")


def admin(manager: embedded.EmbeddedQueueManager) -> ibmmq.QueueManager:
    return ibmmq.connect(manager.name, "DEV.ADMIN.SVRCONN", manager.conn_name, user="admin",
                         password=USERS["admin"])


class FakePeer:
    """A sender channel written by hand: the hello, then batches of transmission messages."""

    def __init__(self, manager: embedded.EmbeddedQueueManager, partner: str,
                 channel: str = CHANNEL) -> None:
        self.sock = socket.create_connection(("127.0.0.1", int(manager.port or 0)), timeout=20)
        self.reader = wire.FrameReader(self.sock)
        self.sock.sendall(wire.frame(["CHL", channel, partner, 50, False, 0, 4_194_304]))
        self.answer = self.reader.read_reply()
        self.partner = partner
        self.seq = int(self.answer[4][1]) if self.answer[0] == CMQC.MQCC_OK else 0

    def send(self, *messages: tuple[str, list, bytes]) -> list:
        """One batch of (queue, MQMD fields, data) for this queue manager; the answer to its end."""
        for queue, md, data in messages:
            self.seq += 1
            msg_id = uuid.uuid4().bytes + b"\0" * 8
            xmit_md, xmit = wrap(self.partner, queue, "QMB", md, data, msg_id,
                                 time.strftime("%Y%m%d").encode(), b"12000000")
            self.sock.sendall(wire.frame(["MSG", self.seq, msg_id, xmit, None, True]))
        self.sock.sendall(wire.frame(["END", uuid.uuid4().hex[:16], self.seq]))
        return self.reader.read(time.monotonic() + 30)

    def close(self) -> None:
        try:
            self.sock.sendall(wire.frame(["BYE"]))
        except OSError:
            pass
        self.sock.close()


def forged(**fields: object) -> list:
    """An MQMD whose context claims to be the administrator's."""
    return default_md(UserIdentifier=b"admin".ljust(12), PutApplName=b"forged".ljust(28),
                      Persistence=CMQC.MQPER_PERSISTENT, MsgId=uuid.uuid4().bytes[:24].ljust(24),
                      **fields)


def escape(text: str) -> bytes:
    raw = text.encode()
    padded = raw + b" " * (-len(raw) % 4)
    header = struct.pack("=9i", CMQCFC.MQCFT_COMMAND, CMQCFC.MQCFH_STRUC_LENGTH,
                         CMQCFC.MQCFH_VERSION_1, CMQCFC.MQCMD_ESCAPE, 1, CMQCFC.MQCFC_LAST,
                         CMQC.MQCC_OK, CMQC.MQRC_NONE, 2)
    escape_type = struct.pack("=4i", CMQCFC.MQCFT_INTEGER, CMQCFC.MQCFIN_STRUC_LENGTH,
                              CMQCFC.MQIACF_ESCAPE_TYPE, CMQCFC.MQET_MQSC)
    escape_text = struct.pack("=5i", CMQCFC.MQCFT_STRING,
                              CMQCFC.MQCFST_STRUC_LENGTH_FIXED + len(padded),
                              CMQCFC.MQCACF_ESCAPE_TEXT, CMQC.MQCCSI_DEFAULT, len(raw)) + padded
    return header + escape_type + escape_text


def trigger_message(appl_id: str) -> bytes:
    return TM.pack([b"TM  ", CMQC.MQTM_VERSION_1, b"DEV.QUEUE.1".ljust(48), b"P".ljust(48),
                    b"".ljust(64), CMQC.MQAT_UNIX, appl_id.encode().ljust(256), b"".ljust(128),
                    b"".ljust(128)])


def dead_letters(manager: embedded.EmbeddedQueueManager, count: int) -> list[tuple[list, bytes]]:
    """(MQDLH fields, the data behind it) of `count` messages on the dead-letter queue."""
    got = receive(admin(manager), DLQ, count)
    return [(DLH.unpack(body[:DLH.size]), body[DLH.size:]) for _, body in got]


def depth(conn: ibmmq.QueueManager, queue: str) -> int:
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_INQUIRE)
    try:
        return handle.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    finally:
        handle.close()


def queue_exists(manager: embedded.EmbeddedQueueManager, name: str) -> bool:
    try:
        ibmmq.Queue(admin(manager), name, CMQC.MQOO_INQUIRE).close()
    except ibmmq.MQMIError as exc:
        assert exc.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
        return False
    return True


# --- admission ------------------------------------------------------------------------------
def test_a_receiver_with_a_blank_mcauser_would_run_as_mqm_and_is_refused(qmb):
    qmb.run_mqsc(f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(RCVR)\n"
                 f"SET CHLAUTH('{CHANNEL}') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL)")
    peer = FakePeer(qmb, "QMA")
    assert peer.answer[:2] == [CMQC.MQCC_FAILED, CMQC.MQRC_NOT_AUTHORIZED]
    peer.close()
    log = _log(qmb)
    assert "AMQ9777E" in log and f"'{CHANNEL}'" in log and "127.0.0.1" in log
    assert "'MCAUSER(mqm)'" in log


def test_a_rule_that_maps_the_partner_to_an_administrator_is_refused(qmb):
    qmb.run_mqsc(f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(RCVR) MCAUSER('app')\n"
                 f"SET CHLAUTH('{CHANNEL}') TYPE(ADDRESSMAP) ADDRESS('127.0.0.1') "
                 "USERSRC(MAP) MCAUSER('admin')")
    peer = FakePeer(qmb, "QMA")
    assert peer.answer[:2] == [CMQC.MQCC_FAILED, CMQC.MQRC_NOT_AUTHORIZED]
    peer.close()
    assert "'MCAUSER(admin)'" in _log(qmb)


def test_the_partner_name_is_a_rule_input_not_a_credential(qmb):
    """A back-stop NOACCESS and a QMGRMAP for QMA: a peer that says it is QMX is refused, one
    that says QMA is admitted as the rule's user, but only from the rule's ADDRESS, and not
    while QMA's channel is running."""
    qmb.run_mqsc(f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(RCVR)\n"
                 f"SET CHLAUTH('{CHANNEL}') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(NOACCESS)\n"
                 f"SET CHLAUTH('{CHANNEL}') TYPE(QMGRMAP) QMNAME('QMA') USERSRC(MAP) "
                 "MCAUSER('app') ADDRESS('10.*')")
    peer = FakePeer(qmb, "QMA")
    assert peer.answer[1] == CMQC.MQRC_NOT_AUTHORIZED      # QMA, but not from 10.*
    peer.close()
    qmb.run_mqsc(f"SET CHLAUTH('{CHANNEL}') TYPE(QMGRMAP) QMNAME('QMA') ACTION(REMOVE) "
                 "ADDRESS('10.*')\n"
                 f"SET CHLAUTH('{CHANNEL}') TYPE(QMGRMAP) QMNAME('QMA') USERSRC(MAP) "
                 "MCAUSER('app')")
    stranger = FakePeer(qmb, "QMX")
    assert stranger.answer[1] == CMQC.MQRC_NOT_AUTHORIZED
    stranger.close()
    assert "USERSRC(NOACCESS)" in _log(qmb)
    shown = qmb.run_mqsc(f"DISPLAY CHLAUTH('{CHANNEL}') TYPE(QMGRMAP) ALL")
    assert "QMNAME(QMA)" in shown and "MCAUSER(app)" in shown
    check = f"DISPLAY CHLAUTH('{CHANNEL}') MATCH(RUNCHECK) ADDRESS('127.0.0.1') QMNAME('%s')"
    assert "TYPE(QMGRMAP)" in qmb.run_mqsc(check % "QMA")
    assert "USERSRC(NOACCESS)" in qmb.run_mqsc(check % "QMX")
    qma = FakePeer(qmb, "QMA")
    assert qma.answer[0] == CMQC.MQCC_OK
    try:
        impostor = FakePeer(qmb, "QMA")                     # QMA's channel is running
        assert impostor.answer[1] == CMQC.MQRC_CHANNEL_NOT_AVAILABLE
        impostor.close()
        qmb.run_mqsc(SETALL_ON_DEV_QUEUE_1)
        assert qma.send(("DEV.QUEUE.1", forged(), b"from QMA"))[0] == "DONE"
    finally:
        qma.close()
    got = receive(admin(qmb), "DEV.QUEUE.1", 1)
    assert got[0][1] == b"from QMA"


def test_a_partner_name_that_is_no_queue_manager_name_is_refused_before_any_rule(qmb):
    """The name is a rule input and goes into the log: a newline in it would forge a line."""
    qmb.run_mqsc(f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(RCVR) MCAUSER('app')\n"
                 f"SET CHLAUTH('{CHANNEL}') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL)")
    peer = FakePeer(qmb, "QMA\nAMQ9002I: Channel 'FORGED' is starting.")
    assert peer.answer[:2] == [CMQC.MQCC_FAILED, CMQC.MQRC_Q_MGR_NAME_ERROR]
    peer.close()
    assert not any(line.startswith("AMQ9002I") for line in _log(qmb).splitlines())


# --- the MCA user's authority -----------------------------------------------------------------
@pytest.fixture
def app_channel(qmb):
    """A receiver that runs as `app` (the developer configuration's application user: +put
    on DEV.**, nothing on SYSTEM.*), admitted from anywhere."""
    qmb.run_mqsc(f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(RCVR) MCAUSER('app')\n"
                 f"SET CHLAUTH('{CHANNEL}') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL)")
    return qmb


def test_a_forged_context_needs_setall_for_the_mca_user(app_channel):
    qmb = app_channel
    peer = FakePeer(qmb, "QMA")
    try:
        assert peer.send(("DEV.QUEUE.1", forged(), b"pretend admin"))[0] == "DONE"
        [(dlh, data)] = dead_letters(qmb, 1)
        assert dlh[DLH.index["Reason"]] == CMQC.MQRC_NOT_AUTHORIZED
        assert dlh[DLH.index["DestQName"]].rstrip() == b"DEV.QUEUE.1" and data == b"pretend admin"
        assert depth(admin(qmb), "DEV.QUEUE.1") == 0
        assert "AMQ8077W: Entity 'app'" in _log(qmb)
        qmb.run_mqsc(SETALL_ON_DEV_QUEUE_1)     # the operator lets app pass its partner's context
        assert peer.send(("DEV.QUEUE.1", forged(), b"vouched for"))[0] == "DONE"
    finally:
        peer.close()
    [(md, body)] = receive(admin(qmb), "DEV.QUEUE.1", 1)
    assert body == b"vouched for"
    assert md.UserIdentifier.rstrip() == b"admin" and md.PutApplName.rstrip() == b"forged"


@pytest.mark.parametrize("putaut", ["DEF", "CTX"])
def test_a_forged_command_and_trigger_message_are_dead_lettered_and_nothing_runs(
        app_channel, putaut):
    qmb = app_channel
    qmb.run_mqsc(f"ALTER CHANNEL({CHANNEL}) CHLTYPE(RCVR) PUTAUT({putaut})")
    peer = FakePeer(qmb, "QMA")
    try:
        answer = peer.send(
            ("SYSTEM.ADMIN.COMMAND.QUEUE", forged(Format=CMQC.MQFMT_ADMIN),
             escape("DEFINE QLOCAL(PWNED)")),
            ("SYSTEM.DEFAULT.INITIATION.QUEUE", forged(Format=CMQC.MQFMT_TRIGGER),
             trigger_message("/bin/touch /tmp/pwned-by-channel")))
        assert answer[0] == "DONE"
    finally:
        peer.close()
    letters = dead_letters(qmb, 2)
    assert [dlh[DLH.index["Reason"]] for dlh, _ in letters] == [CMQC.MQRC_NOT_AUTHORIZED] * 2
    assert [dlh[DLH.index["DestQName"]].rstrip() for dlh, _ in letters] == [
        b"SYSTEM.ADMIN.COMMAND.QUEUE", b"SYSTEM.DEFAULT.INITIATION.QUEUE"]
    conn = admin(qmb)
    assert depth(conn, "SYSTEM.DEFAULT.INITIATION.QUEUE") == 0
    assert not queue_exists(qmb, "PWNED")
    assert "PWNED" not in _log(qmb)


def test_a_report_cannot_carry_a_forged_command_past_the_mca_users_authority(app_channel):
    """A partner that may deliver to DEV.QUEUE.1 (app has +put and +setall there) asks for a
    COA report with full data, sent to the command queue: the report would carry its PCF
    command there with the forged administrator's UserIdentifier. The receiving MCA's reports
    are checked for its MCA user too (verbs/reports.py): the report goes to the dead-letter
    queue with 2035 and nothing runs."""
    qmb = app_channel
    qmb.run_mqsc(SETALL_ON_DEV_QUEUE_1)
    peer = FakePeer(qmb, "QMA")
    try:
        md = forged(Format=CMQC.MQFMT_ADMIN, Report=CMQC.MQRO_COA_WITH_FULL_DATA,
                    ReplyToQ=b"SYSTEM.ADMIN.COMMAND.QUEUE".ljust(48), ReplyToQMgr=b"QMB".ljust(48))
        assert peer.send(("DEV.QUEUE.1", md, escape("DEFINE QLOCAL(PWNED)")))[0] == "DONE"
    finally:
        peer.close()
    [(dlh, data)] = dead_letters(qmb, 1)
    assert dlh[DLH.index["Reason"]] == CMQC.MQRC_NOT_AUTHORIZED
    assert dlh[DLH.index["DestQName"]].rstrip() == b"SYSTEM.ADMIN.COMMAND.QUEUE"
    assert data == escape("DEFINE QLOCAL(PWNED)")
    assert [body for _, body in receive(admin(qmb), "DEV.QUEUE.1", 1)] == [
        escape("DEFINE QLOCAL(PWNED)")]
    assert not queue_exists(qmb, "PWNED")


def test_a_command_that_came_over_a_channel_is_logged_with_its_channel_address_and_user(
        app_channel):
    """An operator who lets a channel's user administer (here +put and +setall on the command
    queue): the command runs as the UserIdentifier that user vouched for, and the log says
    which channel, from where, put by which MCA user."""
    qmb = app_channel
    qmb.run_mqsc("SET AUTHREC PROFILE('SYSTEM.ADMIN.COMMAND.QUEUE') OBJTYPE(QUEUE) "
                 "PRINCIPAL('app') AUTHADD(PUT,SETALL)\n"
                 "SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('app') AUTHADD(SETALL)")
    peer = FakePeer(qmb, "QMA")
    try:
        assert peer.send(("SYSTEM.ADMIN.COMMAND.QUEUE", forged(Format=CMQC.MQFMT_ADMIN),
                          escape("DEFINE QLOCAL(VIA.CHANNEL)")))[0] == "DONE"
    finally:
        peer.close()
    deadline = time.monotonic() + 30
    while "VIA.CHANNEL" not in _log(qmb) and time.monotonic() < deadline:
        time.sleep(0.05)
    line = next(line for line in _log(qmb).splitlines() if "VIA.CHANNEL" in line)
    assert "by user 'admin'" in line
    assert f"receiver channel {CHANNEL} from 127.0.0.1" in line
    assert "put by MCA user 'app'" in line and "partner queue manager 'QMA'" in line
    assert queue_exists(qmb, "VIA.CHANNEL")


# --- two real queue managers -------------------------------------------------------------------
def test_a_secured_receiver_runs_as_its_named_user_and_delivers_the_faithful_copy(tmp_path, qmb):
    """QMA (no users) sends to QMB (users): QMB's receiver is admitted for QMA by a QMGRMAP
    behind IBM's back-stop, runs as `app`, which the operator gave +setall, and the
    messages arrive with QMA's context."""
    qma = start(tmp_path, "QMA")
    try:
        name = "QMA.TO.QMB"
        qmb.run_mqsc(f"DEFINE CHANNEL({name}) CHLTYPE(RCVR)\n"
                     f"SET CHLAUTH('{name}') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(NOACCESS)\n"
                     f"SET CHLAUTH('{name}') TYPE(QMGRMAP) QMNAME('QMA') USERSRC(MAP) "
                     "MCAUSER('app')\n" + SETALL_ON_DEV_QUEUE_1)
        define_sender(qma, "QMB", int(qmb.port or 0))
        conn = ibmmq.connect(qma.name, "DEV.APP.SVRCONN", qma.conn_name)
        out = ibmmq.Queue(conn, ibmmq.OD(ObjectName="DEV.QUEUE.1", ObjectQMgrName="QMB"),
                          CMQC.MQOO_OUTPUT)
        sent = []
        for body in (b"one", b"two"):
            md = ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT, Format=CMQC.MQFMT_STRING)
            out.put(body, md)
            sent.append(md)
        out.close()
        got = receive(admin(qmb), "DEV.QUEUE.1", 2)
        for (md, _), put in zip(got, sent):
            for field in ("MsgId", "UserIdentifier", "PutApplName", "PutDate", "PutTime",
                          "Format", "Persistence"):
                assert getattr(md, field) == getattr(put, field), field
        assert [body for _, body in got] == [b"one", b"two"]
        assert "AMQ9777E" not in _log(qmb)
    finally:
        qma.stop()
