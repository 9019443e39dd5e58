"""The PCF command server: answers PCF commands put to SYSTEM.ADMIN.COMMAND.QUEUE, as MQ's
command server (amqpcsea) does, so that IBM's `ibmmq.PCFExecute` and other PCF tools
administer the embedded queue manager (runs in the queue-manager process).

A thread with its own connection to the queue manager gets each request through the
queue manager's verbs (qmgr.QueueManager.get, which waits without holding the lock), runs
the command under the lock (commands.py) and puts the replies with MQPUT1 to the request's
ReplyToQ (with the requester's authority, see below):

* MQMD: MsgType MQMT_REPLY, Format MQFMT_ADMIN, the request's persistence and priority;
  CorrelId is the request's MsgId, or its CorrelId with MQRO_PASS_CORREL_ID; MsgId is new,
  or the request's with MQRO_PASS_MSG_ID; with MQRO_PASS_DISCARD_AND_EXPIRY the reply keeps
  the request's remaining expiry and MQRO_DISCARD_MSG.
* data: an MQCFH of type MQCFT_RESPONSE with the request's command, then the parameters;
  one message per object for inquiries, MsgSeqNumber counting from 1, every one but the
  last with MQCFC_NOT_LAST. A failure is one message with MQCC_FAILED and MQ's reason
  (MQRCCF_* or MQRC_*) in the MQCFH, plus MQIACF_PARAMETER_ID where MQ names the parameter.

Each command runs with the authority of the user its request's MQMD UserIdentifier names
(admin/security/command_checks.py, on a queue manager started with users); one it may not run is
answered with MQRC_NOT_AUTHORIZED. Every command that may change something, done or refused,
is logged with that user, where its requester connected from and what it asked
(admin.log_command); a request that a receiving channel delivered is logged with that
channel, its partner's address and the MCA user that put it (message_channels/receiver.py),
as its UserIdentifier is only what the partner sent (vouched for by that MCA user's +setall
on the command queue). This is the only administrative door from outside the process: MQSC
clients send their commands here in Escape messages (client/admin.py).

The replies go to ReplyToQ at ReplyToQMgr (blank: this queue manager), resolved as an
MQOPEN of that pair would be: another queue manager's name reaches its transmission queue
(resolution/), so a request that came over a channel is answered over the channel back. Each
reply is put with MQPMO_ALTERNATE_USER_AUTHORITY for the request's UserIdentifier, so the
requester needs PUT on the reply queue (or on the remote queue manager's rqmname profile), as
if it put the reply itself: a temporary dynamic queue it made holds it, another user's queue,
an initiation queue or SYSTEM.AUTH.DATA.QUEUE does not. A reply the requester may not put is
discarded, not dead-lettered (the dead-letter queue would hand a display's output to whoever
reads it), with a warning in the log next to the AMQ8077W line naming the missing authority;
the command itself has run or been refused as it would be anyway.

A request that is not a PCF command (Format not MQFMT_ADMIN) is answered with
MQRCCF_MD_FORMAT_ERROR; one without a ReplyToQ is run and its replies dropped, as MQ
cannot send them either. Requests are taken outside syncpoint.
"""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from spark_mq.embedded.server import events
from spark_mq.embedded.server.admin import mqsc_apply as admin
from spark_mq.embedded.server.admin.command_server import commands, pcf
from spark_mq.embedded.server.admin.command_server.pcf import PCFError
from spark_mq.embedded.server.admin.command_server.request import Reply, Request
from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.qmgr_attributes import COMMAND_QUEUE
from spark_mq.embedded.server.core.security import admission
from spark_mq.embedded.server.core.security.security_state import security_of
from spark_mq.embedded.server.core.state import QMGR_CCSID, Connection
from spark_mq.embedded.server.verbs.qmgr import QueueManager
from spark_mq.mqi.constants import CMQC, CMQCFC
from spark_mq.mqi.structs import GMO, MD, default_md, text

log = logging.getLogger(__name__)

_MDI = MD.index
_MAX_REQUEST = 104_857_600  # MQ's largest message
# how long one get waits: a stopping command server is noticed this soon
_WAIT_MS = 250
_GET_OPTIONS = CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING
_STOPPING = frozenset({CMQC.MQRC_Q_MGR_QUIESCING, CMQC.MQRC_Q_MGR_STOPPING,
                       CMQC.MQRC_CONNECTION_BROKEN})
_ANY_MD = MD.pack(default_md())
# a reply is put with the requester's authority: the command server's own (mqm) would let
# anyone who may send a command put a message on any queue
_PUT_OPTIONS = (CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_FAIL_IF_QUIESCING
                | CMQC.MQPMO_ALTERNATE_USER_AUTHORITY)
_GMO = GMO.pack([
    b"GMO ", CMQC.MQGMO_VERSION_4, _GET_OPTIONS, _WAIT_MS, 0, 0, b"", CMQC.MQMO_NONE,
    ord(" "), ord(" "), ord(" "), b" ", b"", CMQC.MQRL_UNDEFINED, 0, 0])


class CommandServer:
    """The command server thread of one queue manager; `start` once the command queue exists."""

    def __init__(self, qm: QueueManager) -> None:
        self.qm = qm
        self.authority = security_of(qm).authority  # shared with MQSC, checked by the verbs
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._conn: Connection | None = None
        self._hobj = 0

    def start(self) -> bool:
        """Connect, open the command queue for input and start serving; False (logged) when
        the queue is missing, as MQ's command server does not start without it."""
        qm = self.qm
        with qm.lock:
            # an internal connection: it needs no password, like MQ's own processes
            conn = Connection(next(qm.conn_ids), "mqm", "amqpcsea")
            qm.connections[conn.conn_id] = conn
        try:
            handle = qm.open(conn, CMQC.MQOT_Q, COMMAND_QUEUE,
                             CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_FAIL_IF_QUIESCING, None, "")
        except MQError as exc:
            log.error("command server not started: cannot open %s (reason %d)", COMMAND_QUEUE,
                      exc.reason)
            qm.disconnect(conn, clean=True)
            return False
        self._conn, self._hobj = conn, handle.hobj
        self._thread = threading.Thread(target=self._serve, name="command-server", daemon=True)
        self._thread.start()
        return True

    def stop(self) -> None:
        """Stop serving, close the command queue and disconnect."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._conn is not None:
            self.qm.disconnect(self._conn, clean=True)
            self._conn = None

    def _serve(self) -> None:
        conn = self._conn
        assert conn is not None
        while not self._stop.is_set():
            try:
                _, _, md, _, data, _, _ = self.qm.get(conn, self._hobj, _ANY_MD, _GMO,
                                                      _MAX_REQUEST, False)
            except MQError as exc:
                if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    continue
                if exc.reason not in _STOPPING:
                    log.error("command server stopped: MQGET on %s failed (reason %d)",
                              COMMAND_QUEUE, exc.reason)
                return
            try:
                self._answer(conn, MD.unpack(md), data)
            except Exception:  # one bad request must not end the command server
                log.exception("command server: a request failed")

    # --- one request ------------------------------------------------------------------------
    def _answer(self, conn: Connection, md: list, data: bytes) -> None:
        command = pcf.command_of(data)
        version = CMQCFC.MQCFH_VERSION_1
        if md[_MDI["Format"]] != CMQC.MQFMT_ADMIN:
            replies = [Reply(comp_code=CMQC.MQCC_FAILED, reason=CMQCFC.MQRCCF_MD_FORMAT_ERROR)]
        else:
            request: Request | None = None
            request_parameters: list = []
            try:
                header = pcf.parse_header(data)
                version = header.version
                parameters = pcf.parse_parameters(data, header.parameter_count)
                request_parameters = parameters
                request = Request(self.qm, self.authority, header.command, {},
                                  server_conn_id=conn.conn_id,
                                  user=text(md[_MDI["UserIdentifier"]]))
                origin = _origin(md)
                with self.qm.lock, events.commands_from(origin):
                    # an inquiry whose filter excluded every object still gets its last reply
                    replies = commands.run(request, parameters, header.parameter_count) or [Reply()]
                if all(reply.comp_code == CMQC.MQCC_OK for reply in replies):
                    events.command_run(self.qm, origin, replies[0].command or header.command,
                                       data[CMQCFC.MQCFH_STRUC_LENGTH:], header.parameter_count,
                                       _escape_text(parameters))
            except PCFError as err:
                found = [] if err.parameter is None else [pcf.cfin(CMQCFC.MQIACF_PARAMETER_ID,
                                                                   err.parameter)]
                replies = [Reply(found, CMQC.MQCC_FAILED, err.reason)]
            except Exception:  # a fault here: the requester is told, not left waiting
                log.exception("command server: command %d failed", command)
                replies = [Reply(comp_code=CMQC.MQCC_FAILED, reason=CMQCFC.MQRCCF_COMMAND_FAILED)]
            if request is not None:   # who did what from where: see admin.log_command
                failed = next((r for r in replies if r.comp_code != CMQC.MQCC_OK), replies[-1])
                admin.log_command(self.qm, request.user, text(md[_MDI["PutApplName"]]),
                                  text(md[_MDI["ReplyToQ"]]), request.command,
                                  _escape_text(request_parameters), failed.comp_code,
                                  failed.reason,
                                  admission.message_origin(self.qm, md[_MDI["MsgId"]],
                                                           md[_MDI["UserIdentifier"]]))
        reply_to = _ReplyTo(text(md[_MDI["ReplyToQ"]]), text(md[_MDI["ReplyToQMgr"]]),
                            text(md[_MDI["UserIdentifier"]]))
        if not reply_to.queue:
            log.warning("command server: command %d has no ReplyToQ; its replies are dropped",
                        command)
            return
        reply_md = _reply_md(md, self.qm.name)
        for seq, reply in enumerate(replies, start=1):
            body = pcf.header(command if reply.command is None else reply.command, seq,
                              seq == len(replies), reply.comp_code, reply.reason,
                              len(reply.parameters), version) + b"".join(reply.parameters)
            if not self._put(conn, reply_to, reply_md, body):
                return   # the later replies would fail the same way

    def _put(self, conn: Connection, reply_to: _ReplyTo, md: list, body: bytes) -> bool:
        """One reply, with the requester's authority; False (logged) when it is not put."""
        try:
            self._put1(conn, reply_to, md, body)
        except MQError as exc:
            if exc.comp_code == CMQC.MQCC_WARNING:
                return True
            if exc.reason == CMQC.MQRC_PERSISTENT_NOT_ALLOWED:
                # a persistent request answered on a temporary reply queue: the reply still
                # reaches its requester, non-persistent
                retry = list(md)
                retry[_MDI["Persistence"]] = CMQC.MQPER_NOT_PERSISTENT
                return self._put(conn, reply_to, retry, body)
            if exc.reason == CMQC.MQRC_NOT_AUTHORIZED:
                log.warning("command server: user '%s' may not put to the ReplyToQ %s at %s "
                            "(reason %d, MQRC_NOT_AUTHORIZED); the replies are discarded",
                            reply_to.user, reply_to.queue, reply_to.qmgr or self.qm.name,
                            exc.reason)
            else:
                log.warning("command server: cannot put a reply to %s at %s (reason %d); "
                            "dropped", reply_to.queue, reply_to.qmgr or self.qm.name, exc.reason)
            return False
        return True

    def _put1(self, conn: Connection, reply_to: _ReplyTo, md: list, body: bytes) -> None:
        self.qm.put1(conn, reply_to.queue, MD.pack(md), _PUT_OPTIONS, 0, None, body,
                     alternate_user=reply_to.user, qmgr_name=reply_to.qmgr)


@dataclass(frozen=True)
class _ReplyTo:
    """Where a request's replies go (ReplyToQ at ReplyToQMgr, blank: this queue manager) and
    whose authority puts them (the request's UserIdentifier)."""
    queue: str
    qmgr: str
    user: str


def _origin(md: list) -> events.Origin:
    """What a request's configuration and command events say caused them: its MQMD's user
    and context (events/origin.py)."""
    return events.Origin(text(md[_MDI["UserIdentifier"]]), CMQCFC.MQEVO_MSG,
                         md[_MDI["AccountingToken"]], text(md[_MDI["ApplIdentityData"]]),
                         md[_MDI["PutApplType"]], text(md[_MDI["PutApplName"]]),
                         text(md[_MDI["ApplOriginData"]]))


def _escape_text(parameters: list) -> str | None:
    """The MQSC text of an Escape request (None for other commands)."""
    for parameter in parameters:
        if getattr(parameter, "id", None) == CMQCFC.MQCACF_ESCAPE_TEXT:
            return pcf.text(parameter.value) if isinstance(parameter.value, bytes) else None
    return None


def _reply_md(request: list, qmgr_name: str) -> list:
    """The MQMD of every reply to one request (see the module docstring)."""
    md = list(request)
    report = request[_MDI["Report"]]
    md[_MDI["Report"]] = CMQC.MQRO_NONE
    md[_MDI["Expiry"]] = CMQC.MQEI_UNLIMITED
    if report & CMQC.MQRO_PASS_DISCARD_AND_EXPIRY:
        md[_MDI["Expiry"]] = request[_MDI["Expiry"]]  # what is left of it, as MQGET returned it
        md[_MDI["Report"]] = report & CMQC.MQRO_DISCARD_MSG
    md[_MDI["MsgType"]] = CMQC.MQMT_REPLY
    md[_MDI["Feedback"]] = CMQC.MQFB_NONE
    md[_MDI["Encoding"]] = CMQC.MQENC_NATIVE
    md[_MDI["CodedCharSetId"]] = QMGR_CCSID
    md[_MDI["Format"]] = CMQC.MQFMT_ADMIN
    md[_MDI["MsgId"]] = request[_MDI["MsgId"]] if report & CMQC.MQRO_PASS_MSG_ID else CMQC.MQMI_NONE
    md[_MDI["CorrelId"]] = request[_MDI["CorrelId"]] if report & CMQC.MQRO_PASS_CORREL_ID \
        else request[_MDI["MsgId"]]
    md[_MDI["BackoutCount"]] = 0
    md[_MDI["ReplyToQ"]] = b""
    md[_MDI["ReplyToQMgr"]] = qmgr_name.encode()
    md[_MDI["GroupId"]] = CMQC.MQGI_NONE
    md[_MDI["MsgSeqNumber"]] = 1
    md[_MDI["Offset"]] = 0
    md[_MDI["MsgFlags"]] = CMQC.MQMF_NONE
    md[_MDI["OriginalLength"]] = CMQC.MQOL_UNDEFINED
    return md
