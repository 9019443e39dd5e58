"""Applying MQSC commands to the embedded queue manager, runmqsc's DISPLAY output, and the
log of administrative changes.

Runs in the queue-manager process: the command server's MQCMD_ESCAPE (command_server/
escape_commands.py, the one administrative door from outside) and the start-up scripts of
`python -m spark_mq.embedded` (the operator's own files, as strmqm's -ic) come here. Parsing
is mqsc.py's job, the attribute tables are mqsc_attributes.py's, the layout of what DISPLAY
shows runmqsc_layout.py's; this module applies parsed commands to a `QueueManager`,
each through one of three dispatch tables, as the command server's PCF goes through its
`COMMANDS`: by verb and object type (`_BY_COMMAND`), else by object type (`_BY_TYPE`: the
modules that take every verb of theirs), else the queues' verbs (`_QUEUE_VERBS`).
"""
from __future__ import annotations

import fnmatch
import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from spark_mq.embedded.server.admin import (
    cluster_control,
    cluster_display,
    config_objects,
    move_queue,
    qstatus_mqsc,
)
from spark_mq.embedded.server.admin.mqsc import parse_mqsc
from spark_mq.embedded.server.admin.pubsub import pubsub_mqsc as pubsub_admin
from spark_mq.embedded.server.admin.security import security_mqsc as security_admin
from spark_mq.embedded.server.admin.security.mqsc_commands import OBJECT_TYPES_CHECKED as SECURITY_TYPES
from spark_mq.embedded.server.clusters import definitions as cluster_definitions
from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core import channel_status as statuses
from spark_mq.embedded.server.core import trace as tracing
from spark_mq.embedded.server.core.mqsc_attributes import default_attributes
from spark_mq.embedded.server.core.mqsc_command import MQSCCommand, MQSCError
from spark_mq.embedded.server.core.named_kinds import KINDS as NAMED_KINDS
from spark_mq.embedded.server.core.qmgr_attributes import status_attributes
from spark_mq.embedded.server.core.queue_objects import LocalQueue
from spark_mq.embedded.server.core.runmqsc_layout import format_display
from spark_mq.embedded.server.core.security import admission, authinfo
from spark_mq.embedded.server.core.security.security_state import security_of
from spark_mq.embedded.server.core.state import QMGR_CCSID
from spark_mq.embedded.server.events import configuration
from spark_mq.embedded.server.message_channels.initiator import initiator_of
from spark_mq.mqi.constants import CMQC, CMQCFC

log = logging.getLogger("spark_mq.embedded")

if TYPE_CHECKING:
    from spark_mq.embedded.server.verbs.qmgr import QueueManager

# object types that IBM's MQSC files define but the embedded queue manager has no use for
_IGNORED_TYPES = {"CHANNEL", "LISTENER", "SERVICE", "TOPIC", "SUB", "COMMINFO"}


def run_mqsc(qmgr: QueueManager, text: str, existing_ok: bool = False) -> tuple[bool, str]:
    """Run a script; returns (all succeeded, runmqsc-style output).

    Every command runs even after one fails, as with runmqsc; a syntax error stops the
    whole script before anything runs, so a half-parsed file changes nothing.
    existing_ok: a DEFINE without REPLACE of an object that exists is reported (AMQ8150E)
    but is not a failure; the start-up script runs again at every restart, as IBM's
    container runs its MQSC files at every start."""
    try:
        commands = parse_mqsc(text)
    except MQSCError as exc:
        return False, f"AMQ8405E: Syntax error detected at or near end of command segment.\n{exc}"
    lines: list[str] = []
    ok = True
    with qmgr.lock:
        for command in commands:
            if (existing_ok and command.verb == "DEFINE" and "REPLACE" not in command.flags
                    and _exists(qmgr, command)):
                lines.append(f"AMQ8150E: IBM MQ object already exists: {command.name}.")
                continue
            try:
                lines.append(_apply(qmgr, command))
            except (ValueError, MQSCError) as exc:
                ok = False
                lines.append(f"MQSC line {command.line}: {command.verb} {command.object_type}"
                             f"({command.name}) failed: {exc}")
    return ok, "\n".join(line for line in lines if line)


def apply_command(qmgr: QueueManager, command: MQSCCommand) -> str:
    """Apply one already-parsed command, as run_mqsc applies each line: the PCF command
    server (command_server/) turns DEFINE-, ALTER-, DELETE- and CLEAR-like PCF commands into
    MQSCCommands so both interfaces change objects the same way. Returns runmqsc's message;
    failures are ValueErrors with runmqsc's text."""
    with qmgr.lock:
        return _apply(qmgr, command)


def _exists(qmgr: QueueManager, command: MQSCCommand) -> bool:
    """Whether the object a DEFINE names exists (channels and queues are separate namespaces)."""
    if command.object_type == "CHANNEL":
        return channels.exists(qmgr, command.name)
    if command.object_type in pubsub_admin.KINDS:
        return pubsub_admin.exists(qmgr, command)
    if command.object_type == "AUTHINFO":
        return authinfo.exists(qmgr, command.name)
    if command.object_type in NAMED_KINDS:
        return NAMED_KINDS[command.object_type].exists(qmgr, command.name)
    return command.name in qmgr.queues


def _channel(qmgr: QueueManager, command: MQSCCommand) -> str:
    if command.verb == "DISPLAY":
        return "\n".join(format_display("CHANNEL", name, _requested(attrs, command.flags),
                                        channels.ATTRIBUTES.get(str(attrs.get("CHLTYPE"))))
                         for name, attrs in channels.display(qmgr, command))
    if command.verb in ("DEFINE", "ALTER"):
        _check_cluster_channel(qmgr, command)
    if command.verb != "DELETE":
        return channels.apply(qmgr, command)
    deleted = channels.table(qmgr).channels.get(command.name, {})
    message = channels.apply(qmgr, command)
    # its kept STOPPED state and saved status must not pass to a channel defined again
    initiator_of(qmgr).channel_deleted(command.name, str(deleted.get("CHLTYPE", "")))
    return message


def _check_cluster_channel(qmgr: QueueManager, command: MQSCCommand) -> None:
    """The cluster refusals of a CLUSSDR or CLUSRCVR, on its attributes after the command."""
    chltype = str(command.attributes.get("CHLTYPE", "")).upper()
    before = channels.table(qmgr).channels.get(command.name, {}) if command.verb == "ALTER" \
        else {}
    cluster_definitions.check_channel(chltype, command.name, {**before, **command.attributes})


_STOP_STATUSES = ("STOPPED", "INACTIVE")
_RESOLVE_ACTIONS = ("COMMIT", "BACKOUT")


# START, STOP, PING, RESET, RESOLVE CHANNEL and DISPLAY CHSTATUS: the channel initiator's
def _display_chstatus(qmgr: QueueManager, command: MQSCCommand) -> str:
    """CURRENT (the default) or SAVED instances; without ALL or named fields, IBM's
    always-shown ones (channel_status.DEFAULT_FIELDS)."""
    saved = "SAVED" in command.flags
    found = initiator_of(qmgr).display_status(command.name, saved=saved)
    if not found:
        raise ValueError(f"AMQ8420I: Channel Status not found: {command.name}.")
    flags = command.flags - {"SAVED", "CURRENT"}
    if "ALL" not in flags:
        flags |= frozenset(statuses.DEFAULT_FIELDS)
    return "\n".join(format_display("CHSTATUS", name, _requested(attrs, flags))
                     for name, attrs in found)


def _start_channel(qmgr: QueueManager, command: MQSCCommand) -> str:
    return initiator_of(qmgr).start_channel(command.name)


def _stop_channel(qmgr: QueueManager, command: MQSCCommand) -> str:
    after = str(command.attributes.get("STATUS", "STOPPED")).upper()
    if after not in _STOP_STATUSES:
        raise ValueError(f"STATUS({after}) is not valid (valid: STOPPED, INACTIVE)")
    return initiator_of(qmgr).stop_channel(command.name, after)


def _ping_channel(qmgr: QueueManager, command: MQSCCommand) -> str:
    return initiator_of(qmgr).ping_channel(command.name)


def _reset_channel(qmgr: QueueManager, command: MQSCCommand) -> str:
    seq = str(command.attributes.get("SEQNUM", "1"))
    if not seq.isdigit():
        raise ValueError(f"SEQNUM({seq}) is not valid (valid: 1..SEQWRAP)")
    return initiator_of(qmgr).reset_channel(command.name, int(seq))


def _resolve_channel(qmgr: QueueManager, command: MQSCCommand) -> str:
    action = str(command.attributes.get("ACTION", "")).upper()
    if action not in _RESOLVE_ACTIONS:
        raise ValueError(f"ACTION({action}) is required and must be COMMIT or BACKOUT")
    return initiator_of(qmgr).resolve_channel(command.name, action)


def _start_trace(qmgr: QueueManager, command: MQSCCommand) -> str:
    settings = tracing.parse_settings(command.attributes)
    if command.flags:
        raise ValueError(f"START TRACE does not take {', '.join(sorted(command.flags))} "
                         "(valid: TYPE, CHANNEL, QUEUE, LIMIT, DATA, each with a value)")
    path = tracing.trace_of(qmgr).start(settings)
    log.info("trace started by command: %s, to %s", settings.describe(), path)
    return f"Trace started: {settings.describe()} FILE({path})."


def _stop_trace(qmgr: QueueManager, command: MQSCCommand) -> str:
    if not tracing.trace_of(qmgr).stop():
        raise ValueError("no trace is running (START TRACE starts one)")
    log.info("trace stopped by command")
    return "Trace stopped."


def _display_trace(qmgr: QueueManager, command: MQSCCommand) -> str:
    trace = tracing.trace_of(qmgr)
    settings = trace.settings
    if settings is None:
        return "TRACE STATUS(STOPPED)"
    return f"TRACE STATUS(RUNNING) {settings.describe()} FILE({trace.path})"


def _named_object(qmgr: QueueManager, command: MQSCCommand) -> str:
    """NAMELIST and PROCESS commands, by their kind's description (core/named_kinds.py)."""
    kind = NAMED_KINDS[command.object_type]
    if command.verb == "DISPLAY":
        return str(kind.display(qmgr, command.name, command.flags))
    attrs = {k: v for k, v in command.attributes.items() if k != "LIKE"}
    like = command.attributes.get("LIKE")
    return str(kind.apply(qmgr, command.verb, command.name, attrs,
                          replace="REPLACE" in command.flags,
                          like=None if like is None else str(like)))


#: the object types whose DELETE takes AUTHREC(YES|NO), with their authority-record type
_AUTHREC_TYPES = {"QLOCAL": CMQC.MQOT_Q, "QALIAS": CMQC.MQOT_Q, "QMODEL": CMQC.MQOT_Q,
                  "QREMOTE": CMQC.MQOT_Q, "TOPIC": CMQC.MQOT_TOPIC}


def _apply(qmgr: QueueManager, command: MQSCCommand) -> str:
    watched = config_objects.watch(qmgr, command)     # None unless CONFIGEV(ENABLED)
    output = _dispatch(qmgr, command)
    config_objects.changed(qmgr, command)      # when, for REFRESH QMGR REFINT
    if watched is not None:
        configuration.applied(qmgr, watched)
    object_type = _AUTHREC_TYPES.get(command.object_type)
    if command.verb == "DELETE" and object_type is not None and "NOAUTHREC" not in command.flags:
        # AUTHREC(YES), MQ's default: the records of the object's own name go with it
        security_of(qmgr).authority.forget_object(object_type, command.name)
    return output


#: what an MQSC command is applied by: fn(queue manager, command) -> runmqsc's message
Handler = Callable[["QueueManager", MQSCCommand], str]

#: verbs that IBM's MQSC files use on objects the embedded queue manager keeps no state for
_IGNORED_VERBS = frozenset({"START", "STOP", "REFRESH", "SET", "END"})


def _dispatch(qmgr: QueueManager, command: MQSCCommand) -> str:
    """The handler of (verb, object type), else of the object type, else of the verb: the
    three tables below, in that order."""
    verb, kind = command.verb, command.object_type
    handler = _BY_COMMAND.get((verb, kind)) or _BY_TYPE.get(kind)
    if handler is None:
        if kind in _IGNORED_TYPES or verb in _IGNORED_VERBS:
            return ""
        handler = _QUEUE_VERBS.get(verb)
    if handler is None:
        raise ValueError(f"{verb} is not supported for {kind} (valid: DEFINE, ALTER, DELETE, "
                         "CLEAR, DISPLAY)")
    return handler(qmgr, command)


def _set_attributes(command: MQSCCommand) -> dict[str, object]:
    """The command's attributes, with the keywords that set one (SHARE, NOTRIGGER ...)."""
    attrs = dict(command.attributes)
    for flag in ("SHARE", "NOSHARE", "TRIGGER", "NOTRIGGER", "HARDENBO", "NOHARDENBO"):
        if flag in command.flags:
            attrs[flag.removeprefix("NO")] = flag
    return attrs


def _alter_qmgr(qmgr: QueueManager, command: MQSCCommand) -> str:
    attrs = _set_attributes(command)
    ccsid = attrs.pop("CCSID", QMGR_CCSID)
    if ccsid != QMGR_CCSID:
        raise ValueError(f"CCSID({ccsid}) cannot be set: this queue manager's CCSID is fixed "
                         f"(valid: {QMGR_CCSID})")
    was = qmgr.attrs.get("CONFIGEV")
    qmgr.alter_qmgr({k: v for k, v in attrs.items() if k in default_attributes("QMGR")})
    if was != "ENABLED" and qmgr.attrs.get("CONFIGEV") == "ENABLED":
        config_objects.refresh_all(qmgr)    # as IBM MQ does when CONFIGEV is switched on
    return "AMQ8005I: IBM MQ queue manager changed."


def _display_qmgr(qmgr: QueueManager, command: MQSCCommand) -> str:
    shown = {**qmgr.attrs, **status_attributes(qmgr)}
    return format_display("QMGR", qmgr.name, _requested(shown, command.flags))


def _ping_qmgr(qmgr: QueueManager, command: MQSCCommand) -> str:
    return "AMQ8415I: Ping IBM MQ Queue Manager command complete."


def _pubsub(qmgr: QueueManager, command: MQSCCommand) -> str:
    if command.verb in _IGNORED_VERBS:   # START, STOP ... of TOPIC, SUB: nothing to keep
        return ""
    return pubsub_admin.apply(qmgr, command)


def _define_queue(qmgr: QueueManager, command: MQSCCommand) -> str:
    kind, name, attrs = command.object_type, command.name, _set_attributes(command)
    if kind == "QALIAS" and not attrs.get("TARGET"):
        raise ValueError("TARGET is required for a QALIAS (valid: the name of a local queue)")
    values = default_attributes(kind)
    values.update(attrs)
    qmgr.define(kind, name, values, replace="REPLACE" in command.flags)
    return f"AMQ8006I: IBM MQ queue created: {name}."


def _alter_queue(qmgr: QueueManager, command: MQSCCommand) -> str:
    qmgr.alter(command.object_type, command.name, _set_attributes(command))
    return f"AMQ8008I: IBM MQ queue changed: {command.name}."


def _delete_queue(qmgr: QueueManager, command: MQSCCommand) -> str:
    qmgr.delete(command.object_type, command.name, purge="PURGE" in command.flags)
    return f"AMQ8007I: IBM MQ queue deleted: {command.name}."


def _clear_queue(qmgr: QueueManager, command: MQSCCommand) -> str:
    count = qmgr.clear(command.name)
    return f"AMQ8022I: IBM MQ queue cleared: {command.name} ({count} messages)."


def _display_queue(qmgr: QueueManager, command: MQSCCommand) -> str:
    kind = str(command.attributes.get("TYPE", "ALL")).upper()
    if kind == "QCLUSTER":   # DISPLAY QUEUE(...) TYPE(QCLUSTER)
        return cluster_display.display_qcluster(qmgr, replace(command, object_type="QCLUSTER"))
    if command.object_type != "QUEUE" or kind == "ALL":
        return _display(qmgr, command.object_type, command.name, command.flags)
    if kind not in _QUEUE_TYPES:
        raise ValueError(f"DISPLAY QUEUE TYPE({kind}) is not valid: TYPE is one of ALL, "
                         f"{', '.join(_QUEUE_TYPES)} or QCLUSTER")
    return _display(qmgr, kind, command.name, command.flags)   # TYPE narrows QUEUE to one kind


_QUEUE_TYPES = ("QLOCAL", "QALIAS", "QMODEL", "QREMOTE")


#: (verb, object type) -> its handler
_BY_COMMAND: dict[tuple[str, str], Handler] = {
    ("ALTER", "QMGR"): _alter_qmgr,
    ("DISPLAY", "QMGR"): _display_qmgr,
    ("PING", "QMGR"): _ping_qmgr,
    ("REFRESH", "QMGR"): config_objects.refresh,
    ("DISPLAY", "QSTATUS"): qstatus_mqsc.display,
    **{(verb, "CHANNEL"): _channel for verb in ("DEFINE", "ALTER", "DELETE", "DISPLAY")},
    ("START", "CHANNEL"): _start_channel,
    ("STOP", "CHANNEL"): _stop_channel,
    ("PING", "CHANNEL"): _ping_channel,
    ("RESET", "CHANNEL"): _reset_channel,
    ("RESOLVE", "CHANNEL"): _resolve_channel,
    ("DISPLAY", "CHSTATUS"): _display_chstatus,
    ("MOVE", "QLOCAL"): move_queue.move,
    ("DISPLAY", "CLUSQMGR"): cluster_display.display_clusqmgr,
    ("DISPLAY", "QCLUSTER"): cluster_display.display_qcluster,
    ("SUSPEND", "QMGR"): cluster_control.suspend_or_resume,
    ("RESUME", "QMGR"): cluster_control.suspend_or_resume,
    ("REFRESH", "CLUSTER"): cluster_control.refresh_cluster,
    ("RESET", "CLUSTER"): cluster_control.reset_cluster,
    ("START", "TRACE"): _start_trace,
    ("STOP", "TRACE"): _stop_trace,
    ("DISPLAY", "TRACE"): _display_trace,
}
#: object type -> the handler of every verb on it (its module checks the verb)
_BY_TYPE: dict[str, Handler] = {
    **{kind: security_admin.apply for kind in SECURITY_TYPES},
    **{kind: _named_object for kind in NAMED_KINDS},
    **{kind: _pubsub for kind in pubsub_admin.KINDS},   # before the ignored types: TOPIC, SUB
}
#: the queues' verbs (QLOCAL, QALIAS, QMODEL, QREMOTE)
_QUEUE_VERBS: dict[str, Handler] = {
    "DEFINE": _define_queue, "ALTER": _alter_queue, "DELETE": _delete_queue,
    "CLEAR": _clear_queue, "DISPLAY": _display_queue,
}


def _requested(attrs: Mapping[str, object], flags: frozenset[str]) -> dict[str, object]:
    """DISPLAY shows the attributes asked for (all of them for ALL or none named), as runmqsc."""
    wanted = {flag for flag in flags if flag != "ALL"}
    if not wanted or "ALL" in flags:
        return dict(attrs)
    return {key: value for key, value in attrs.items() if key in wanted or key in ("TYPE", "CHLTYPE")}


def _display(qmgr: QueueManager, kind: str, pattern: str,
             flags: frozenset[str] = frozenset()) -> str:
    found = []
    for queue_name in sorted(qmgr.queues):
        queue = qmgr.queues[queue_name]
        if kind not in ("QUEUE", queue.kind) or not fnmatch.fnmatchcase(queue_name, pattern):
            continue
        attrs = dict(queue.attrs)
        attrs["TYPE"] = queue.kind
        if isinstance(queue, LocalQueue):
            attrs.update(CURDEPTH=queue.depth, IPPROCS=queue.input_shared + queue.input_exclusive,
                         OPPROCS=queue.output_count, DEFTYPE=queue.definition_type)
        found.append(format_display(queue.kind, queue_name, _requested(attrs, flags)))
    if not found:
        raise ValueError(f"no {kind} matches {pattern} (AMQ8147E: IBM MQ object not found)")
    return "\n".join(found)


# --- the log of administrative changes -------------------------------------------------------
#: commands that change nothing: not logged (MQ's command events leave out inquiries too)
_READ_ONLY_PREFIXES = ("MQCMD_INQUIRE", "MQCMD_PING")
_COMMAND_NAMES = {value: name for name, value in vars(CMQCFC).items()
                  if name.startswith("MQCMD_") and isinstance(value, int)}


def log_command(qmgr: QueueManager, user: str, appl_name: str, reply_to: str, command: int,
                escape_text: str | None, comp_code: int, reason: int, origin: str = "") -> None:
    """One line in the queue manager's log for each command that may change something: who
    (the request's user), from where (`origin`, the receiving channel, address and MCA user
    of a request that came over a message channel; else the connection that waits for the
    answer on `reply_to`: its channel and address, or the local process), what, and the
    outcome."""
    name = _COMMAND_NAMES.get(command, str(command))
    if escape_text is not None:
        if escape_text.split(None, 1)[:1] in (["DISPLAY"], ["DIS"], ["PING"]):
            return
        what = f"MQSC {' '.join(escape_text.split())!r}"
    elif name.startswith(_READ_ONLY_PREFIXES):
        return
    else:
        what = f"PCF {name}"
    outcome = "done" if comp_code == CMQC.MQCC_OK else f"refused or failed (reason {reason})"
    log.info("administrative command by user %r (application %r, %s): %s: %s", user,
             appl_name.strip(), origin or _requester(qmgr, reply_to), what, outcome)


def _requester(qmgr: QueueManager, reply_to: str) -> str:
    with qmgr.lock:
        for conn in qmgr.connections.values():
            if reply_to and any(handle.name == reply_to for handle in conn.handles.values()):
                return admission.origin_of(qmgr, conn.conn_id) or f"connection {conn.conn_id}"
    return f"reply queue {reply_to or 'none'}"


def log_script(qmgr: QueueManager, label: str) -> None:
    """A start-up script: applied in the process, by the operator who started it."""
    log.info("administrative script %s applied at start by the queue manager's operator", label)
