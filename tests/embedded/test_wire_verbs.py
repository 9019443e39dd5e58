"""One verb table for both ends of the embedded transport (embedded/wire_verbs.py): the
client spells no verb itself, the queue manager binds every verb to a handler and refuses a
table that does not match its handlers, and a real queue manager holds a peer's frames to
the table's shapes and rules (what may come before MQCONN, what is answered)."""
from __future__ import annotations

import ast
import socket
from pathlib import Path

import pytest

from attack_qm import QueueManagerProcess, closed_within
from spark_mq.embedded import client, wire, wire_verbs
from spark_mq.embedded.server.message_channels import link
from spark_mq.embedded.server.network import mqi_session as session
from spark_mq.embedded.wire_verbs import TABLE, Verb, VerbTableError, bind
from spark_mq.mqi.constants import CMQC


def _spelt_verbs(path: Path) -> list[str]:
    """Where a module spells a verb of the table as a string."""
    tree = ast.parse(path.read_text(), str(path))
    return [f"{path.name}:{node.lineno}: {node.value!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in TABLE]


def test_the_client_spells_no_verb_as_a_string():
    modules = sorted(Path(client.__file__).parent.glob("*.py"))
    assert len(modules) > 5
    assert [where for path in modules for where in _spelt_verbs(path)] == []


def test_the_channel_hello_is_the_tables_verb():
    assert link.HELLO == wire_verbs.CHL.name
    assert link.check_hello(["TO.QMB", "QMA", 50, False, 0, 4194304]) == (
        "TO.QMB", "QMA", 50, False, 4194304)


def _handlers(leave_out: Verb | None = None) -> dict[Verb, object]:
    return {verb: (lambda *args: []) for verb in TABLE.values() if verb is not leave_out}


def test_the_queue_managers_binding_serves_every_verb_of_the_table():
    # mqi_session.py binds at import: the queue manager would not have started otherwise
    assert session._DISPATCH.keys() == TABLE.keys()


def test_a_verb_without_a_handler_is_refused_naming_it():
    with pytest.raises(VerbTableError, match=r"verbs without a handler: CBWAIT\b"):
        bind(_handlers(leave_out=wire_verbs.CBWAIT))


def test_a_handler_without_a_verb_is_refused_naming_it():
    def v_forgotten() -> list:
        return []
    handlers = _handlers()
    with pytest.raises(VerbTableError, match="handlers without a verb: .*v_forgotten"):
        bind(handlers, offered=[*handlers.values(), v_forgotten])


def test_a_verb_that_is_not_the_tables_is_refused_naming_it():
    look_alike = Verb("PING", ())
    handlers = {**_handlers(leave_out=wire_verbs.PING), look_alike: lambda: []}
    with pytest.raises(VerbTableError, match="verbs not in the table: PING.*without a handler: PING"):
        bind(handlers)


def test_every_verb_checks_its_arguments_by_the_table():
    for verb in TABLE.values():
        with pytest.raises(wire.ProtocolError, match=f"{verb.name} takes {len(verb.arguments)} arguments"):
            wire_verbs.check_request([verb.name, *([0] * (len(verb.arguments) + 1))])


def test_the_fixed_frames_decode_to_the_tables_verbs():
    md, gmo = bytes(wire.MD_SIZE), bytes(wire.GMO_SIZE)
    for data in (wire.put_request(1, md, 0, 0, b"x", False), wire.put_request(1, md, 0, 0, b"x", True),
                 wire.get_request(1, md, gmo, 100, False)):
        verb, args = wire_verbs.check_request(wire.decode(data[4:]))
        assert verb in (wire_verbs.PUT, wire_verbs.PUTA, wire_verbs.GET)


# --- a real queue manager ----------------------------------------------------------------
@pytest.fixture(scope="module")
def qm(tmp_path_factory):
    with QueueManagerProcess(tmp_path_factory.mktemp("verbs"), "--connect-timeout", "10") as manager:
        yield manager


def _ping(sock: socket.socket, qm: QueueManagerProcess) -> None:
    sock.sendall(wire_verbs.request(wire_verbs.PING))
    assert wire.FrameReader(sock).read_reply() == [CMQC.MQCC_OK, CMQC.MQRC_NONE, qm.name]


@pytest.mark.parametrize("name", sorted(TABLE))
def test_a_frame_that_does_not_fit_its_verb_ends_that_connection(qm, name):
    verb = TABLE[name]
    with qm.raw() as sock:
        sock.sendall(wire.frame([name, *([None] * (len(verb.arguments) + 1))]))
        assert closed_within(sock, 10) is not None
    qm.wait_for_log(f"bad frame: {name} takes {len(verb.arguments)} arguments, "
                    f"not {len(verb.arguments) + 1}")
    with qm.raw() as other:
        _ping(other, qm)


def test_an_unknown_verb_ends_that_connection(qm):
    with qm.raw() as sock:
        sock.sendall(wire.frame(["MQSC", "DISPLAY QMGR"]))
        assert closed_within(sock, 10) is not None
    qm.wait_for_log("bad frame: unknown verb 'MQSC'")


def test_before_mqconn_unanswered_verbs_are_dropped_and_answered_ones_refused(qm):
    md = bytes(wire.MD_SIZE)
    with qm.raw() as sock:
        sock.sendall(wire_verbs.request(wire_verbs.HB))
        sock.sendall(wire_verbs.request(wire_verbs.PUTA, 1, md, 0, 0, None, b"dropped"))
        sock.sendall(wire_verbs.request(wire_verbs.CMIT))
        reader = wire.FrameReader(sock)
        assert reader.read_reply() == [CMQC.MQCC_FAILED, CMQC.MQRC_HCONN_ERROR]
        sock.sendall(wire_verbs.request(wire_verbs.PING))
        assert reader.read_reply() == [CMQC.MQCC_OK, CMQC.MQRC_NONE, qm.name]


def test_a_channel_hello_after_mqconn_ends_the_connection(qm):
    sock, answer = qm.raw_conn()
    with sock:
        assert answer[:2] == [CMQC.MQCC_OK, CMQC.MQRC_NONE]
        sock.sendall(wire_verbs.request(wire_verbs.CHL, "TO.QMATTACK", "QMB", 50, False, 0,
                                              4194304))
        assert closed_within(sock, 10) is not None
    qm.wait_for_log("bad frame: CHL comes only before MQCONN")


def test_disc_answers_then_ends_the_connection(qm):
    sock, answer = qm.raw_conn()
    with sock:
        assert answer[:2] == [CMQC.MQCC_OK, CMQC.MQRC_NONE]
        sock.sendall(wire_verbs.request(wire_verbs.DISC))
        assert wire.FrameReader(sock).read_reply() == [CMQC.MQCC_OK, CMQC.MQRC_NONE]
        assert closed_within(sock, 10) is not None
