"""MQSC for an embedded queue manager, as IBM's `runmqsc -c` sends it: each command in a PCF
Escape (MQCMD_ESCAPE) put to SYSTEM.ADMIN.COMMAND.QUEUE on an ordinary, authenticated
connection, and the command server's answers read from a temporary reply queue.

Runs in the application's process and speaks the wire verbs itself (CONN, OPEN, PUT, GET),
so it works whichever `ibmmq.ibmmqc` the process uses. There is no other administrative
door: the connection is admitted like any other (CHLAUTH, CONNAUTH and FAILDLAY on a
channel; CHCKLOCL on the bindings socket), and the command server checks each command
against the authority of the connection's user (server/admin/security/command_checks.py).
"""
from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from contextlib import contextmanager

from spark_mq.embedded.client.connection import Connection, connect_bindings, connect_channel
from spark_mq.embedded.data_directory import BINDINGS_SOCKET
from spark_mq.embedded.wire_verbs import CLOSE, DISC, GET, OPEN, PUT
from spark_mq.mqi.constants import CMQC, CMQCFC, reason_name
from spark_mq.mqi.mqsc_text import MQSCSyntaxError, split_mqsc
from spark_mq.mqi.structs import GMO, MD, default_md

#: the channel administrators use in IBM's developer configuration
ADMIN_CHANNEL = "DEV.ADMIN.SVRCONN"
COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"
#: the model queue runmqsc -c takes its reply queue from
REPLY_MODEL = "SYSTEM.MQSC.REPLY.QUEUE"
_APPL_NAME = "runmqsc"
_WAIT_MS = 30_000          # for the command server's answer to one command
_MAX_REPLY = 4 << 20
_HEADER = struct.Struct("=9i")    # MQCFH
_PARAMETER = struct.Struct("=3i")  # Type, StrucLength, Parameter of any structure
_CFST = struct.Struct("=5i")       # MQCFST up to StringLength
#: runmqsc's message for a command the command server refused
_NOT_AUTHORIZED = "AMQ8135E: Not authorized."
_TIMED_OUT = "AMQ8416E: MQSC timed out waiting for a response from the command server."
#: the MQCFH fields of a last, failed response, for an answer that never came
_NO_ANSWER = (CMQCFC.MQCFT_RESPONSE, CMQCFC.MQCFH_STRUC_LENGTH, CMQCFC.MQCFH_VERSION_1,
              CMQCFC.MQCMD_ESCAPE, 1, CMQCFC.MQCFC_LAST, CMQC.MQCC_FAILED,
              CMQC.MQRC_NO_MSG_AVAILABLE, 0)


class MQSCRefused(Exception):
    """The connection for MQSC was refused (e.g. 2035 for a wrong password, 2059 when
    nothing listens), or the command queue could not be used."""

    def __init__(self, reason: int) -> None:
        super().__init__(f"MQSC refused: {reason} {reason_name(reason)}")
        self.reason = reason


def first_address(conn_name: str) -> tuple[str, int]:
    """(host, port) of the first entry of an MQ connection name 'host(port)[,host(port)]'."""
    first = conn_name.split(",")[0].strip()
    host, _, port = first.partition("(")
    return host, int(port.rstrip(")"))


class MQSCSession:
    """One authenticated connection to the command server, sending MQSC commands one by one."""

    def __init__(self, conn: Connection, model: str = REPLY_MODEL) -> None:
        self.conn = conn
        try:
            self.command_queue = self._open(COMMAND_QUEUE, CMQC.MQOO_OUTPUT, "")
            # exclusive: no other connection reads the answers meant for this one
            self.reply_queue = self._open(model, CMQC.MQOO_INPUT_EXCLUSIVE, "AMQ.MQSC.*")
        except MQSCRefused:
            self.close()
            raise

    def _open(self, name: str, options: int, dynamic_name: str) -> tuple[int, str]:
        reply = self.conn.call(OPEN, CMQC.MQOT_Q, name, options | CMQC.MQOO_FAIL_IF_QUIESCING,
                               None, dynamic_name, "", "")
        if reply[0] == CMQC.MQCC_FAILED:
            raise MQSCRefused(reply[1])
        return reply[2], reply[6]

    def command(self, text: str) -> tuple[bool, str]:
        """Run one MQSC command: (whether it succeeded, what runmqsc prints for it)."""
        hobj, _ = self.command_queue
        request = default_md(MsgType=CMQC.MQMT_REQUEST, Format=CMQC.MQFMT_ADMIN,
                             Persistence=CMQC.MQPER_NOT_PERSISTENT,
                             ReplyToQ=self.reply_queue[1].encode())
        options = CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_NEW_MSG_ID | CMQC.MQPMO_FAIL_IF_QUIESCING
        reply = self.conn.call(PUT, hobj, MD.pack(request), options, 0, None, _escape(text))
        if reply[0] == CMQC.MQCC_FAILED:
            raise MQSCRefused(reply[1])
        msgid = MD.get(reply[2], "MsgId")
        ok, blocks = True, []
        while True:
            header, texts = self._answer(msgid)
            comp_code, reason, control = header[6], header[7], header[5]
            if comp_code != CMQC.MQCC_OK:
                ok = False
                if not texts:
                    texts = [_refusal(reason)]
            blocks.extend(texts)
            if control == CMQCFC.MQCFC_LAST:
                return ok, "\n".join(block for block in blocks if block)

    def _answer(self, msgid: bytes) -> tuple[tuple[int, ...], list[str]]:
        """One response message to the request `msgid`: its MQCFH and its EscapeText."""
        hobj, _ = self.reply_queue
        md = MD.pack(default_md(CorrelId=msgid))
        gmo = GMO.pack([b"GMO ", CMQC.MQGMO_VERSION_4,
                        CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING,
                        _WAIT_MS, 0, 0, b"", CMQC.MQMO_MATCH_CORREL_ID, ord(" "), ord(" "),
                        ord(" "), b" ", b"", CMQC.MQRL_UNDEFINED, 0, 0])
        reply = self.conn.call(GET, hobj, md, gmo, _MAX_REPLY, False)
        if reply[1] == CMQC.MQRC_NO_MSG_AVAILABLE:   # the command server is not running
            return _NO_ANSWER, [_TIMED_OUT]
        if reply[0] == CMQC.MQCC_FAILED:
            raise MQSCRefused(reply[1])
        data = reply[4]
        header = _HEADER.unpack_from(data)
        return header, list(_escape_texts(data, header[8]))

    def close(self) -> None:
        try:
            for name in ("reply_queue", "command_queue"):
                opened = getattr(self, name, None)
                if opened is not None:
                    self.conn.call(CLOSE, opened[0], CMQC.MQCO_NONE)
            self.conn.call(DISC)
        finally:
            try:
                self.conn.sock.close()
            except OSError:
                pass


def _escape(text: str) -> bytes:
    """The PCF Escape request carrying one MQSC command."""
    raw = text.encode("utf-8")
    padded = raw + b" " * (-len(raw) % 4)
    escape_type = struct.pack("=4i", CMQCFC.MQCFT_INTEGER, CMQCFC.MQCFIN_STRUC_LENGTH,
                              CMQCFC.MQIACF_ESCAPE_TYPE, CMQCFC.MQET_MQSC)
    escape_text = _CFST.pack(CMQCFC.MQCFT_STRING, CMQCFC.MQCFST_STRUC_LENGTH_FIXED + len(padded),
                             CMQCFC.MQCACF_ESCAPE_TEXT, CMQC.MQCCSI_DEFAULT, len(raw)) + padded
    header = _HEADER.pack(CMQCFC.MQCFT_COMMAND, CMQCFC.MQCFH_STRUC_LENGTH, CMQCFC.MQCFH_VERSION_1,
                          CMQCFC.MQCMD_ESCAPE, 1, CMQCFC.MQCFC_LAST, CMQC.MQCC_OK, CMQC.MQRC_NONE, 2)
    return header + escape_type + escape_text


def _escape_texts(data: bytes, count: int) -> Iterator[str]:
    """The MQCACF_ESCAPE_TEXT strings among a response's `count` parameter structures."""
    offset = _HEADER.size
    for _ in range(count):
        kind, length, parameter = _PARAMETER.unpack_from(data, offset)
        if kind == CMQCFC.MQCFT_STRING and parameter == CMQCFC.MQCACF_ESCAPE_TEXT:
            string_length = _CFST.unpack_from(data, offset)[4]
            start = offset + _CFST.size
            yield data[start:start + string_length].decode("utf-8", "replace").rstrip()
        offset += length


def _refusal(reason: int) -> str:
    if reason == CMQC.MQRC_NOT_AUTHORIZED:
        return f"{_NOT_AUTHORIZED} (MQ reason {reason} {reason_name(reason)})"
    return f"AMQ8101S: IBM MQ error ({reason} {reason_name(reason)}) has occurred."


def run_script(session: MQSCSession, text: str) -> tuple[bool, str]:
    """Every command of an MQSC script, as runmqsc runs a file: each runs even after one
    failed, a failure names the script line its command starts on; a script whose
    structure is broken (an open quote or parenthesis) runs nothing."""
    try:
        commands = split_mqsc(text)
    except MQSCSyntaxError as exc:
        return False, f"AMQ8405E: Syntax error detected at or near end of command segment.\n{exc}"
    ok, lines = True, []
    for command in commands:
        done, output = session.command(command.text)
        if not done:
            ok = False
            output = f"MQSC line {command.line}: {output}"
        lines.append(output)
    return ok, "\n".join(line for line in lines if line)


@contextmanager
def session_on_channel(host: str, port: int, user: str | None = None,
                       password: str | None = None, channel: str = ADMIN_CHANNEL,
                       model: str = REPLY_MODEL, qm_name: str = "") -> Iterator[MQSCSession]:
    """An MQSC session over a client channel (as `runmqsc -c`); MQSCRefused when the
    connection or the command queue is refused."""
    with _session(connect_channel(host, port, channel, qm_name, user or "", password or "",
                                  _APPL_NAME), model) as session:
        yield session


@contextmanager
def session_in_bindings(socket_path: str, user: str | None = None, password: str | None = None,
                        model: str = REPLY_MODEL, qm_name: str = "") -> Iterator[MQSCSession]:
    """An MQSC session over the queue manager's bindings socket (as local `runmqsc`)."""
    with _session(connect_bindings(socket_path, qm_name, user or "", password or "", _APPL_NAME),
                  model) as session:
        yield session


@contextmanager
def _session(connected: tuple[Connection | None, list], model: str) -> Iterator[MQSCSession]:
    """A session on a connection just made ((connection or None, the CONN reply))."""
    conn, reply = connected
    if conn is None:
        raise MQSCRefused(reply[1])
    session = MQSCSession(conn, model)
    try:
        yield session
    finally:
        session.close()


def send_mqsc(host: str, port: int, text: str, user: str | None = None,
              password: str | None = None, channel: str = ADMIN_CHANNEL) -> tuple[bool, str]:
    """(whether every command succeeded, runmqsc-style output) of an MQSC script run over a
    client channel; MQSCRefused when the queue manager refuses the connection."""
    with session_on_channel(host, port, user, password, channel) as session:
        return run_script(session, text)


def run_mqsc(host: str, port: int, text: str, user: str | None = None,
             password: str | None = None, channel: str = ADMIN_CHANNEL) -> tuple[bool, str]:
    """send_mqsc, with a refusal as (False, "MQSC refused: 2035 MQRC_NOT_AUTHORIZED")."""
    try:
        return send_mqsc(host, port, text, user, password, channel)
    except MQSCRefused as exc:
        return False, str(exc)


def bindings_socket(data_dir: str) -> str:
    """The bindings socket of the queue manager whose data directory this is."""
    return os.path.join(data_dir, BINDINGS_SOCKET)
