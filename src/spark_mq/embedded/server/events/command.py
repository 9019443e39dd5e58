"""Command events (IBM docs "Command events", "Command"): with ALTER QMGR CMDEV(ENABLED), one
PCF message on SYSTEM.ADMIN.COMMAND.EVENT for every command that succeeds, MQCFH Command
MQCMD_COMMAND_EVENT, Reason MQRC_COMMAND_PCF (2413) for a PCF command or MQRC_COMMAND_MQSC
(2412) for MQSC text (an MQCMD_ESCAPE); CMDEV(NODISPLAY) leaves out DISPLAY and the PCF
Inquire commands. The command server calls `command_run` after each request (runs in the
queue-manager process).

The data is two MQCFGR groups, as IBM's:
* CommandContext (MQGACF_COMMAND_CONTEXT): the origin (origin.py: EventUserId, EventOrigin
  MQEVO_MSG, EventQMgr, and the command message's AccountingToken, ApplIdentityData,
  PutApplType, PutApplName and ApplOriginData) and Command, the MQCMD_* it was (for MQSC,
  the command its text is, as the command server answers it);
* CommandData (MQGACF_COMMAND_DATA): the command's own parameters, as they came (for MQSC,
  the Escape's MQIACF_ESCAPE_TYPE and MQCACF_ESCAPE_TEXT: the command's text). IBM's
  multiplatform queue managers give PCF here for MQSC commands too.
"""
from __future__ import annotations

import struct

from spark_mq.embedded.server.core.pcf_structures import cfin
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.embedded.server.events import origin as origins
from spark_mq.embedded.server.events.event_messages import COMMAND_QUEUE, cfgr, put_event
from spark_mq.mqi.constants import CMQC, CMQCFC

_GROUP = struct.Struct("=4i")
_INQUIRIES = frozenset(value for name, value in vars(CMQCFC).items()
                       if name.startswith("MQCMD_INQUIRE") and isinstance(value, int))
_DISPLAY_WORDS = ("DISPLAY", "DIS")


def command_run(qm: QueueManagerState, origin: origins.Origin, command: int,
                parameters: bytes, count: int, escape_text: str | None) -> None:
    """A command that succeeded: `command` the MQCMD_* it was, `parameters` its `count`
    parameter structures as the request carried them, `escape_text` its MQSC (None: PCF)."""
    level = qm.attrs.get("CMDEV")
    if level not in ("ENABLED", "NODISPLAY"):
        return
    if level == "NODISPLAY" and _is_display(command, escape_text):
        return
    context = [*origins.parameters(qm, origin), cfin(CMQCFC.MQIACF_COMMAND, command)]
    data = [cfgr(CMQCFC.MQGACF_COMMAND_CONTEXT, context),
            _GROUP.pack(CMQCFC.MQCFT_GROUP, CMQCFC.MQCFGR_STRUC_LENGTH,
                        CMQCFC.MQGACF_COMMAND_DATA, count) + parameters]
    reason = CMQC.MQRC_COMMAND_PCF if escape_text is None else CMQC.MQRC_COMMAND_MQSC
    put_event(qm, COMMAND_QUEUE, CMQCFC.MQCMD_COMMAND_EVENT, reason, data)


def _is_display(command: int, escape_text: str | None) -> bool:
    words = (escape_text or "").split(None, 1)
    return command in _INQUIRIES or bool(words) and words[0].upper() in _DISPLAY_WORDS
