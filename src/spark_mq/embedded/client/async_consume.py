"""Asynchronous consume: MQCB and MQCTL (application's process, part of the module installed
as `ibmmq.ibmmqc`, see transport.py).

Design. As in IBM's client, callbacks run in the application's process: `ibmmq` hands
MQCBINIT its proxy (`mqcallback._internal_cb`), and this module calls it with
(hconn, md, gmo, buffer, MQCBC) whenever a consumer or the event handler is due.

* One `_Consumption` per connection holds its callbacks (consumers by object handle, at
  most one event handler) and its state, STOPPED / STARTED / SUSPENDED, as MQCTL moves it.
* The loop that delivers runs on its own daemon thread after MQOP_START, or on the caller's
  thread for MQOP_START_WAIT. It is the only user of the connection while it is started:
  every other thread's MQI call fails with MQRC_HCONN_ASYNC_ACTIVE (`serialised_verbs`
  wraps the verbs transport.py exposes), callbacks themselves may call anything (MQCMIT of a
  syncpoint get included), and MQCTL STOP/SUSPEND and MQDISC may come from anywhere.
* The loop asks the queue manager for messages over the connection's own socket with one
  CBWAIT (server/verbs/consumers.py): the queue manager tries each started consumer's get in
  turn and waits, for all of them at once, for the first message. So gets under syncpoint
  land in the connection's unit of work, exactly as MQGETs would. A CBWAIT waits at most
  _SLICE seconds: the socket carries one call at a time, and MQCTL STOP/SUSPEND from
  another thread must be taken up soon; between two waits the loop checks for them.
* A consumer's WaitInterval is kept here: when it passes without a message the consumer is
  called with MQCBCT_EVENT_CALL and MQRC_NO_MSG_AVAILABLE, and again after each interval.
  Without MQGMO_WAIT a consumer simply waits.
* Read-ahead: a consumer on a read-ahead handle (MQOO_READ_AHEAD, DEFREADA) that gets
  outside syncpoint, whole messages, any message, is given up to get.READ_AHEAD_COUNT
  non-persistent messages per CBWAIT; the rest wait in the handle's read-ahead buffer (the
  one MQGET uses), so a consumer deregistered with messages buffered leaves them to MQGET,
  and MQCLOSE(MQCO_QUIESCE) sees them (MQRC_READ_AHEAD_MSGS; the last one is then delivered
  with MQCBCF_READA_BUFFER_EMPTY, and the consumer is told MQRC_HOBJ_QUIESCED_NO_MSGS).
* Failures: a broken connection (MQRC_CONNECTION_BROKEN) or a quiescing queue manager is
  an event for the event handler and every consumer (MQCS_STOPPED), and ends consumption.
  A consumer's own failure (MQRC_GET_INHIBITED, a truncated message ...) is reported to
  that consumer alone, which is suspended (for a while only, when the condition is
  temporary), as MQCBC.State tells it.

Two deviations, both forced by `ibmmq`, which stashes a callback function only after MQCB
returns and forgets it as soon as MQCB(DEREGISTER) returns: MQCBCT_REGISTER_CALL is made
when the loop next runs (at MQCTL START, or when the registering callback returns), and
MQCBCT_DEREGISTER_CALL is made during MQCB itself; an implicit deregistration by MQCLOSE
passes the handle's own number, not MQHO_UNUSABLE_HOBJ, which `ibmmq` could not look up
(ibmmqc does the same: it stashes the Hobj in MQCBD.CallbackArea at MQCB and puts it back
into MQCBC.Hobj whenever MQ passes one below 1).
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from spark_mq.embedded.client.connection import FAILED, NONE, OK, WARNING, Connection, connection_of
from spark_mq.embedded.client.get import READ_AHEAD_COUNT
from spark_mq.embedded.client.message_handles import fill_handle, is_message_handle
from spark_mq.embedded.client.packed import (
    DEFAULT_MATCH,
    GMO_OPTIONS_AT,
    INT,
    MD_CORRELID,
    MD_MSGID,
    NONE_ID,
    error,
    md_ok,
    read_gmo,
)
from spark_mq.embedded.wire_verbs import CBWAIT
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import GMO, Layout

log = logging.getLogger("spark_mq.embedded")

CBD = Layout("StrucId:4s Version:i CallbackType:i Options:i CallbackArea:P CallbackFunction:P "
             "CallbackName:128s MaxMsgLength:i Reserved1:i")
CBC = Layout("StrucId:4s Version:i CallType:i Hobj:i CallbackArea:P ConnectionArea:P "
             "CompCode:i Reason:i State:i DataLength:i BufferLength:i Flags:i ReconnectDelay:i "
             "Reserved1:i")
CTLO = Layout("StrucId:4s Version:i Options:i Reserved:i ConnectionArea:P")
assert CBD.size == 168 and CTLO.size == 24 and CBC.size == 64  # as ibmmq packs them

_SLICE = 0.1            # longest CBWAIT: how soon MQCTL STOP/SUSPEND from another thread is seen
_RETRY_AFTER = 1.0      # a consumer suspended for a temporary condition is tried again after this
_FULL_LENGTH = 0x7FFFFFFF
_STOPPED, _STARTED, _SUSPENDED = "stopped", "started", "suspended"
_CBDO_KNOWN = (CMQC.MQCBDO_START_CALL | CMQC.MQCBDO_STOP_CALL | CMQC.MQCBDO_REGISTER_CALL
               | CMQC.MQCBDO_DEREGISTER_CALL | CMQC.MQCBDO_FAIL_IF_QUIESCING
               | CMQC.MQCBDO_EVENT_CALL | CMQC.MQCBDO_MC_EVENT_CALL)
_CTLO_KNOWN = CMQC.MQCTLO_THREAD_AFFINITY | CMQC.MQCTLO_FAIL_IF_QUIESCING
_SUSPEND_RESUME = CMQC.MQOP_SUSPEND | CMQC.MQOP_RESUME
_BROWSE = (CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_BROWSE_NEXT
           | CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR)
# get options a read-ahead batch cannot serve (see get.py: the same list for MQGET)
_NOT_READ_AHEAD = (_BROWSE | CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_MSG_UNDER_CURSOR | CMQC.MQGMO_LOCK
                   | CMQC.MQGMO_UNLOCK | CMQC.MQGMO_SET_SIGNAL | CMQC.MQGMO_MARK_SKIP_BACKOUT
                   | CMQC.MQGMO_LOGICAL_ORDER | CMQC.MQGMO_CONVERT | CMQC.MQGMO_COMPLETE_MSG
                   | CMQC.MQGMO_ALL_MSGS_AVAILABLE | CMQC.MQGMO_ALL_SEGMENTS_AVAILABLE)
# what ends consumption for the whole connection, rather than for one consumer
_CONNECTION_REASONS = frozenset({
    CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_Q_MGR_QUIESCING, CMQC.MQRC_Q_MGR_STOPPING,
    CMQC.MQRC_CONNECTION_QUIESCING, CMQC.MQRC_CONNECTION_STOPPING, CMQC.MQRC_HCONN_ERROR})
# a consumer's own failures that may clear by themselves (MQCS_SUSPENDED_TEMPORARY)
_TEMPORARY_REASONS = frozenset({CMQC.MQRC_GET_INHIBITED})

_proxy: Callable | None = None   # ibmmq's callback proxy, from MQCBINIT
_local = threading.local()       # .in_callback: this thread is running a callback


def MQCBINIT(function: Callable) -> None:
    global _proxy
    _proxy = function


@dataclass
class _Callback:
    """One registered consumer (hobj > 0) or event handler (hobj == MQHO_NONE)."""
    hobj: int
    options: int                  # MQCBDO_*
    max_length: int = _FULL_LENGTH
    md: bytes = b""
    gmo: bytes = b""
    gmo_options: int = 0
    hmsg: int = 0
    wait_interval: float | None = None   # seconds; None: wait for ever
    batch: int = 1                # > 1: read-ahead
    suspended: bool = False
    retry_at: float = 0.0         # temporarily suspended until then
    deadline: float | None = None  # when MQRC_NO_MSG_AVAILABLE is due
    register_pending: bool = False
    start_pending: bool = False
    quiesced: bool = False        # MQCLOSE(MQCO_QUIESCE) found read-ahead messages

    @property
    def is_handler(self) -> bool:
        return self.hobj == CMQC.MQHO_NONE

    def restart_wait(self, now: float) -> None:
        self.deadline = None if self.wait_interval is None else now + self.wait_interval

    def set_options(self, options: int) -> None:
        self.gmo_options = options
        self.gmo = self.gmo[:GMO_OPTIONS_AT] + INT.pack(options) + self.gmo[GMO_OPTIONS_AT + 4:]


class _Consumption:
    """A connection's callbacks and the loop that delivers to them (see the module docstring)."""

    def __init__(self, hconn: int):
        self.hconn = hconn
        self.state = _STOPPED
        self.consumers: dict[int, _Callback] = {}
        self.handler: _Callback | None = None
        self.cond = threading.Condition()
        self.loop_thread: threading.Thread | None = None
        self.request: str | None = None   # _STOPPED or _SUSPENDED, asked while started
        self.wait_mode = False            # started with MQOP_START_WAIT
        self.next_first = 0               # the consumer CBWAIT tries first: round robin

    def owned_elsewhere(self) -> bool:
        """Started, and this thread is not the one delivering: MQRC_HCONN_ASYNC_ACTIVE."""
        return self.state == _STARTED and threading.current_thread() is not self.loop_thread

    def on_loop_thread(self) -> bool:
        return self.loop_thread is not None and threading.current_thread() is self.loop_thread

    # --- calling back ----------------------------------------------------------------------
    def call(self, cb: _Callback, call_type: int, comp_code: int = OK, reason: int = NONE,
             state: int = CMQC.MQCS_NONE, md: bytes | None = None, gmo: bytes | None = None,
             data: bytes | None = None, total: int = 0, flags: int = 0) -> None:
        if _proxy is None:
            return
        cbc = CBC.pack([b"CBC ", CMQC.MQCBC_VERSION_2, call_type, cb.hobj, 0, 0, comp_code,
                        reason, state, total, len(data) if data is not None else 0, flags, 0, 0])
        outer = getattr(_local, "in_callback", False)
        _local.in_callback = True
        try:
            # ibmmqc hands over the buffer only when BufferLength > 0: an empty message
            # reaches the callback as msg=None, not b""
            _proxy(self.hconn, md, gmo, data or None, cbc)
        except Exception:  # a failing callback must not end consumption for the others
            log.exception("an asynchronous-consume callback raised")
        finally:
            _local.in_callback = outer

    def control_calls(self) -> None:
        """REGISTER and START calls owed (see the module docstring for why they wait)."""
        for cb in [self.handler, *self.consumers.values()]:
            if cb is None:
                continue
            if cb.register_pending:
                cb.register_pending = False
                self.call(cb, CMQC.MQCBCT_REGISTER_CALL)
            if cb.start_pending:
                cb.start_pending = False
                if cb.options & CMQC.MQCBDO_START_CALL and not cb.is_handler:
                    self.call(cb, CMQC.MQCBCT_START_CALL)

    def event(self, reason: int) -> None:
        """What ends consumption for the connection: the event handler and every consumer."""
        handler = self.handler
        if handler is not None and not handler.suspended and (
                handler.options & CMQC.MQCBDO_EVENT_CALL
                or not handler.options & CMQC.MQCBDO_MC_EVENT_CALL):
            self.call(handler, CMQC.MQCBCT_EVENT_CALL, FAILED, reason, CMQC.MQCS_STOPPED)
        for cb in list(self.consumers.values()):
            told = reason
            if reason == CMQC.MQRC_Q_MGR_QUIESCING and not cb.gmo_options & CMQC.MQGMO_FAIL_IF_QUIESCING:
                told = CMQC.MQRC_Q_MGR_STOPPING
            self.call(cb, CMQC.MQCBCT_EVENT_CALL, FAILED, told, CMQC.MQCS_STOPPED)

    # --- the loop --------------------------------------------------------------------------
    def run(self, starting: bool = True) -> tuple[int, int]:
        """Deliver until stopped; the outcome MQOP_START_WAIT returns. `starting`: MQCTL
        START, not a RESUME, so consumers that asked for it get MQCBCT_START_CALL."""
        try:
            return self.loop(starting)
        except Exception:  # a bug here must not leave MQCTL STOP waiting for ever
            log.exception("asynchronous consume ended by an unexpected error")
            return self.finish((FAILED, CMQC.MQRC_UNEXPECTED_ERROR), stop_calls=False)

    def loop(self, starting: bool) -> tuple[int, int]:
        now = time.monotonic()
        for cb in self.consumers.values():
            cb.start_pending = starting
            cb.restart_wait(now)
        outcome = (OK, NONE)
        while True:
            with self.cond:
                if self.request == _SUSPENDED:
                    self.request = None
                    self.state = _SUSPENDED
                    self.cond.notify_all()
                    if self.wait_mode:  # MQOP_START_WAIT returns; MQOP_RESUME runs the loop again
                        self.loop_thread = None
                        return (WARNING, CMQC.MQRC_CONNECTION_SUSPENDED)
                    while self.state == _SUSPENDED and self.request != _STOPPED:
                        self.cond.wait()
                    if self.state == _STARTED:
                        now = time.monotonic()
                        for cb in self.consumers.values():
                            cb.restart_wait(now)
                if self.request == _STOPPED:
                    break
            self.control_calls()
            conn = connection_of(self.hconn)
            if conn is None:
                break
            ended = self.step(conn)
            if ended is not None:
                outcome = ended
                if ended[1] != CMQC.MQRC_NO_CALLBACKS_ACTIVE:
                    return self.finish(outcome, stop_calls=False)
                break
        return self.finish(outcome, stop_calls=True)

    def finish(self, outcome: tuple[int, int], stop_calls: bool) -> tuple[int, int]:
        if stop_calls:
            for cb in list(self.consumers.values()):
                if cb.options & CMQC.MQCBDO_STOP_CALL:
                    self.call(cb, CMQC.MQCBCT_STOP_CALL)
        with self.cond:
            self.state = _STOPPED
            self.request = None
            self.loop_thread = None
            self.cond.notify_all()
        return outcome

    def step(self, conn: Connection) -> tuple[int, int] | None:
        """One delivery, one wait, or nothing to do; an outcome when consumption ends."""
        now = time.monotonic()
        active = [cb for cb in self.consumers.values() if not cb.suspended and cb.retry_at <= now]
        if self.wait_mode and not any(not cb.suspended for cb in self.consumers.values()):
            return (FAILED, CMQC.MQRC_NO_CALLBACKS_ACTIVE)
        # with no consumer to serve, CBWAIT still waits: it is what notices a broken
        # connection or a quiescing queue manager, for the event handler
        retries = [cb.retry_at - now for cb in self.consumers.values()
                   if not cb.suspended and cb.retry_at > now]
        for cb in active:
            handle = conn.handles.get(cb.hobj)
            if handle is not None and handle.buffer:
                self.deliver(cb, handle.buffer.popleft(), buffered_left=len(handle.buffer))
                return None
            if cb.quiesced:  # MQCLOSE(MQCO_QUIESCE) waits for the buffer, which is now empty
                cb.suspended = True
                self.call(cb, CMQC.MQCBCT_EVENT_CALL, FAILED, CMQC.MQRC_HOBJ_QUIESCED_NO_MSGS,
                          CMQC.MQCS_SUSPENDED, flags=CMQC.MQCBCF_READA_BUFFER_EMPTY)
                return None
        deadlines = [cb.deadline for cb in active if cb.deadline is not None]
        wait = min([_SLICE, *retries, *(deadline - now for deadline in deadlines)])
        first = self.next_first % len(active) if active else 0
        reply = conn.call(CBWAIT, [[cb.hobj, cb.md, cb.gmo, cb.max_length, bool(cb.hmsg),
                                      cb.batch] for cb in active],
                          max(0, int(wait * 1000)), first)
        if reply[0] == FAILED and len(reply) == 2:
            reason = reply[1]
            self.event(reason if reason in _CONNECTION_REASONS else CMQC.MQRC_CONNECTION_BROKEN)
            return (FAILED, reason)
        index, results = reply[2], reply[3]
        if index < 0:
            now = time.monotonic()
            for cb in active:
                if cb.deadline is not None and cb.deadline <= now:
                    cb.restart_wait(now)
                    self.call(cb, CMQC.MQCBCT_EVENT_CALL, FAILED, CMQC.MQRC_NO_MSG_AVAILABLE)
            return None
        self.next_first = first + 1
        cb = active[index]
        if len(results[0]) == 2:
            self.consumer_failed(cb, results[0][0], results[0][1])
            return None
        handle = conn.handles.get(cb.hobj)
        if handle is not None and len(results) > 1:
            handle.buffer.extend(results[1:])
        self.deliver(cb, results[0], buffered_left=len(results) - 1)
        return None

    def deliver(self, cb: _Callback, result: list, buffered_left: int) -> None:
        comp_code, reason, md, gmo, data, total, props = result
        cb.restart_wait(time.monotonic())
        if cb.hmsg and reason != CMQC.MQRC_TRUNCATED_MSG_FAILED:
            fill_handle(cb.hmsg, props)
        not_removed = cb.gmo_options & _BROWSE or reason == CMQC.MQRC_TRUNCATED_MSG_FAILED
        state = CMQC.MQCS_NONE
        if reason == CMQC.MQRC_TRUNCATED_MSG_FAILED:
            # the message stays on the queue, and would come back at once: the consumer must
            # register a larger MaxMsgLength (or take the message by its MsgToken) and resume
            cb.suspended = True
            state = CMQC.MQCS_SUSPENDED_USER_ACTION
        if cb.gmo_options & CMQC.MQGMO_BROWSE_FIRST:
            cb.set_options((cb.gmo_options & ~CMQC.MQGMO_BROWSE_FIRST) | CMQC.MQGMO_BROWSE_NEXT)
        flags = CMQC.MQCBCF_READA_BUFFER_EMPTY if cb.quiesced and not buffered_left else 0
        self.call(cb, CMQC.MQCBCT_MSG_NOT_REMOVED if not_removed else CMQC.MQCBCT_MSG_REMOVED,
                  comp_code, reason, state, md, gmo, data, total, flags)

    def consumer_failed(self, cb: _Callback, comp_code: int, reason: int) -> None:
        if reason in _TEMPORARY_REASONS:
            cb.retry_at = time.monotonic() + _RETRY_AFTER
            state = CMQC.MQCS_SUSPENDED_TEMPORARY
        else:
            cb.suspended = True
            state = CMQC.MQCS_SUSPENDED
        self.call(cb, CMQC.MQCBCT_EVENT_CALL, comp_code, reason, state)

    # --- MQCTL from another thread ---------------------------------------------------------
    def ask(self, request: str) -> None:
        """Stop or suspend from outside the loop: returns once the loop has done so."""
        with self.cond:
            if self.state == _STOPPED or (request == _SUSPENDED and self.state == _SUSPENDED):
                return
            if self.loop_thread is not None:
                self.request = request
                self.cond.notify_all()
                while self.loop_thread is not None and (
                        self.state == _STARTED or (request == _STOPPED and self.state != _STOPPED)):
                    self.cond.wait()
                return
            if request == _SUSPENDED:
                return
        # suspended after MQOP_START_WAIT returned: no loop runs, the stop is made here
        self.finish((OK, NONE), stop_calls=True)


#: hconn -> its asynchronous consumption, created by its first MQCB or MQCTL
_consumptions: dict[int, _Consumption] = {}


def _consumption(hconn: int) -> _Consumption:
    found = _consumptions.get(hconn)
    if found is None:
        found = _consumptions[hconn] = _Consumption(hconn)
    return found


# === MQCB ==================================================================================
def MQCB(hconn: int, operation: int, cbd: bytes, hobj: int, md: bytes,
         gmo: bytes) -> tuple[int, int]:
    conn = connection_of(hconn)
    if conn is None:
        return (FAILED, CMQC.MQRC_HCONN_ERROR)
    if len(cbd) != CBD.size:
        raise error("wrong size for MQCBD")
    consumption = _consumption(hconn)
    if consumption.owned_elsewhere():
        return (FAILED, CMQC.MQRC_HCONN_ASYNC_ACTIVE)
    fields = CBD.unpack(cbd)
    if fields[0] != b"CBD " or fields[CBD.index["Version"]] != CMQC.MQCBD_VERSION_1:
        return (FAILED, CMQC.MQRC_CBD_ERROR)
    callback_type = fields[CBD.index["CallbackType"]]
    if callback_type not in (CMQC.MQCBT_MESSAGE_CONSUMER, CMQC.MQCBT_EVENT_HANDLER):
        return (FAILED, CMQC.MQRC_CALLBACK_TYPE_ERROR)
    base = operation & ~_SUSPEND_RESUME
    if (operation & _SUSPEND_RESUME == _SUSPEND_RESUME
            or base not in (0, CMQC.MQOP_REGISTER, CMQC.MQOP_DEREGISTER)
            or (base == 0 and not operation)
            or (base == CMQC.MQOP_DEREGISTER and operation & _SUSPEND_RESUME)):
        return (FAILED, CMQC.MQRC_OPERATION_ERROR)
    handler = callback_type == CMQC.MQCBT_EVENT_HANDLER
    if handler:
        hobj = CMQC.MQHO_NONE  # Hobj is ignored for the event handler
    elif hobj not in conn.handles:
        return (FAILED, CMQC.MQRC_HOBJ_ERROR)
    with consumption.cond:
        existing = consumption.handler if handler else consumption.consumers.get(hobj)
    if base == CMQC.MQOP_REGISTER:
        made = _registration(hobj, fields, md, gmo, conn, handler)
        if isinstance(made, int):
            return (FAILED, made)
        with consumption.cond:
            if existing is not None:  # a new definition replaces the old, without control calls
                made.suspended = existing.suspended
            else:
                made.register_pending = bool(made.options & CMQC.MQCBDO_REGISTER_CALL)
                made.start_pending = consumption.state != _STOPPED
            if operation & _SUSPEND_RESUME:
                made.suspended = bool(operation & CMQC.MQOP_SUSPEND)
            made.restart_wait(time.monotonic())
            if handler:
                consumption.handler = made
            else:
                consumption.consumers[hobj] = made
            consumption.cond.notify_all()
        return (OK, NONE)
    if existing is None:
        return (FAILED, CMQC.MQRC_CALLBACK_NOT_REGISTERED)
    if base == CMQC.MQOP_DEREGISTER:
        _deregister(consumption, existing)
        return (OK, NONE)
    with consumption.cond:
        existing.suspended = bool(operation & CMQC.MQOP_SUSPEND)
        existing.retry_at = 0.0
        existing.restart_wait(time.monotonic())
        consumption.cond.notify_all()
    return (OK, NONE)


def _registration(hobj: int, fields: list, md: bytes, gmo: bytes, conn: Connection,
                  handler: bool) -> _Callback | int:
    """The callback an MQCB(REGISTER) defines, or the reason it fails with."""
    options = fields[CBD.index["Options"]]
    if options & ~_CBDO_KNOWN:
        return CMQC.MQRC_OPTIONS_ERROR
    max_length = fields[CBD.index["MaxMsgLength"]]
    if max_length < CMQC.MQCBD_FULL_MSG_LENGTH:
        return CMQC.MQRC_MAX_MSG_LENGTH_ERROR
    if handler:
        return _Callback(CMQC.MQHO_NONE, options)
    if not md_ok(md):
        return CMQC.MQRC_MD_ERROR
    read = read_gmo(gmo) if len(gmo) == GMO.size else None
    if read is None:
        return CMQC.MQRC_GMO_ERROR
    gmo_options, match, hmsg = read
    if hmsg and not is_message_handle(hmsg):
        return CMQC.MQRC_HMSG_ERROR
    wait_ms = INT.unpack_from(gmo, GMO.offsets["WaitInterval"])[0]
    if gmo_options & CMQC.MQGMO_WAIT and wait_ms < CMQC.MQWI_UNLIMITED:
        return CMQC.MQRC_WAIT_INTERVAL_ERROR
    if gmo_options & CMQC.MQGMO_SET_SIGNAL:
        return CMQC.MQRC_OPTIONS_ERROR
    wait_interval = (wait_ms / 1000.0 if gmo_options & CMQC.MQGMO_WAIT
                     and wait_ms != CMQC.MQWI_UNLIMITED else None)
    whole = max_length == CMQC.MQCBD_FULL_MSG_LENGTH
    handle = conn.handles[hobj]
    any_message = not match & ~DEFAULT_MATCH and (
        not match & CMQC.MQMO_MATCH_MSG_ID or md[MD_MSGID] == NONE_ID) and (
        not match & CMQC.MQMO_MATCH_CORREL_ID or md[MD_CORRELID] == NONE_ID)
    batch = (READ_AHEAD_COUNT if handle.read_ahead and whole and any_message
             and not gmo_options & _NOT_READ_AHEAD else 1)
    return _Callback(hobj, options, _FULL_LENGTH if whole else max_length, md, gmo, gmo_options,
                     hmsg, wait_interval, batch)


def _deregister(consumption: _Consumption, cb: _Callback) -> None:
    with consumption.cond:
        if cb.is_handler:
            consumption.handler = None
        else:
            consumption.consumers.pop(cb.hobj, None)
        consumption.cond.notify_all()
    # made now, while ibmmq still knows the function (see the module docstring)
    if consumption.state != _STOPPED and cb.options & CMQC.MQCBDO_STOP_CALL and not cb.is_handler:
        consumption.call(cb, CMQC.MQCBCT_STOP_CALL)
    if cb.options & CMQC.MQCBDO_DEREGISTER_CALL:
        consumption.call(cb, CMQC.MQCBCT_DEREGISTER_CALL)


# === MQCTL =================================================================================
def MQCTL(hconn: int, operation: int, ctlo: bytes) -> tuple[int, int]:
    if connection_of(hconn) is None:
        return (FAILED, CMQC.MQRC_HCONN_ERROR)
    if len(ctlo) != CTLO.size:
        raise error("wrong size for MQCTLO")
    fields = CTLO.unpack(ctlo)
    if fields[0] != b"CTLO" or fields[1] != CMQC.MQCTLO_VERSION_1:
        return (FAILED, CMQC.MQRC_CTLO_ERROR)
    if fields[2] & ~_CTLO_KNOWN:
        return (FAILED, CMQC.MQRC_OPTIONS_ERROR)
    consumption = _consumption(hconn)
    inside = consumption.on_loop_thread()
    if operation == CMQC.MQOP_START:
        return _start(consumption, inside)
    if operation == CMQC.MQOP_START_WAIT:
        return _start_wait(consumption)
    if operation == CMQC.MQOP_STOP:
        if consumption.state == _STOPPED:
            return (OK, NONE)
        if inside:  # takes effect when the callback returns
            consumption.request = _STOPPED
        else:
            consumption.ask(_STOPPED)
        return (OK, NONE)
    if operation == CMQC.MQOP_SUSPEND:
        if consumption.state == _STOPPED:
            return (FAILED, CMQC.MQRC_OPERATION_NOT_ALLOWED)
        if inside:
            consumption.request = _SUSPENDED
        elif consumption.state == _STARTED:
            consumption.ask(_SUSPENDED)
        return (OK, NONE)
    if operation == CMQC.MQOP_RESUME:
        if consumption.state == _STOPPED:
            return (FAILED, CMQC.MQRC_OPERATION_NOT_ALLOWED)
        if consumption.owned_elsewhere():
            return (FAILED, CMQC.MQRC_HCONN_ASYNC_ACTIVE)
        with consumption.cond:
            if consumption.state != _SUSPENDED:
                if inside and consumption.request == _SUSPENDED:  # cancels this callback's SUSPEND
                    consumption.request = None
                return (OK, NONE)
            if not consumption.wait_mode:
                consumption.state = _STARTED
                consumption.cond.notify_all()
                return (OK, NONE)
        return _run_here(consumption, starting=False)   # after MQOP_START_WAIT: RESUME blocks
    return (FAILED, CMQC.MQRC_OPERATION_ERROR)


def _start(consumption: _Consumption, inside: bool) -> tuple[int, int]:
    with consumption.cond:
        if consumption.state == _STARTED:
            if not inside:
                return (FAILED, CMQC.MQRC_HCONN_ASYNC_ACTIVE)
            if consumption.request == _STOPPED:  # cancels an MQOP_STOP made in this callback
                consumption.request = None
            return (OK, NONE)
        if consumption.state == _SUSPENDED:
            return (FAILED, CMQC.MQRC_OPERATION_NOT_ALLOWED)
        thread = threading.Thread(target=consumption.run, daemon=True,
                                  name=f"embedded-mq-async-consume-{consumption.hconn:#x}")
        consumption.state = _STARTED
        consumption.wait_mode = False
        consumption.request = None
        consumption.loop_thread = thread
    thread.start()
    return (OK, NONE)


def _start_wait(consumption: _Consumption) -> tuple[int, int]:
    if getattr(_local, "in_callback", False):  # not from any callback, of any connection
        return (FAILED, CMQC.MQRC_ENVIRONMENT_ERROR)
    with consumption.cond:
        if consumption.state != _STOPPED:
            return (FAILED, CMQC.MQRC_OPERATION_NOT_ALLOWED)
        if not any(not cb.suspended for cb in consumption.consumers.values()):
            return (FAILED, CMQC.MQRC_NO_CALLBACKS_ACTIVE)
        consumption.wait_mode = True
    return _run_here(consumption)


def _run_here(consumption: _Consumption, starting: bool = True) -> tuple[int, int]:
    with consumption.cond:
        consumption.state = _STARTED
        consumption.request = None
        consumption.loop_thread = threading.current_thread()
    return consumption.run(starting)


# === the other verbs while consumption is started ==========================================
def _failure(name: str, args: tuple, reason: int) -> tuple:
    """The answer `name` gives when it fails with `reason` before doing anything."""
    shape = _FAILURES.get(name)
    return shape(args, reason) if shape is not None else (FAILED, reason)


_FAILURES: dict[str, Callable[[tuple, int], tuple]] = {
    "MQOPEN": lambda a, r: (0, a[1], FAILED, r),
    "MQPUT": lambda a, r: (a[2], a[3], FAILED, r),
    "MQPUT1": lambda a, r: (a[2], a[3], FAILED, r),
    "MQGET": lambda a, r: (b"", a[2], a[3], 0, FAILED, r),
    "MQINQ": lambda a, r: (a[3], b" " * a[6] if a[6] > 0 else None, FAILED, r),
    "MQSTAT": lambda a, r: (a[2], FAILED, r),
    "MQSUB": lambda a, r: (a[1], a[2], 0, FAILED, r),
    "MQSUBRQ": lambda a, r: (a[3], FAILED, r),
}
#: the verbs that use a connection: the others (message handles, MQCB/MQCTL themselves) check
_SERIALISED = ("MQOPEN", "MQCLOSE", "MQPUT", "MQPUT1", "MQGET", "MQBEGIN", "MQCMIT", "MQBACK",
               "MQINQ", "MQSET", "MQSTAT", "MQSUB", "MQSUBRQ")


def _serialised(name: str, verb: Callable[..., tuple]) -> Callable[..., tuple]:
    def guarded(hconn: int, *args: object) -> tuple:
        consumption = _consumptions.get(hconn)
        if consumption is not None and consumption.owned_elsewhere():
            return _failure(name, (hconn, *args), CMQC.MQRC_HCONN_ASYNC_ACTIVE)
        return verb(hconn, *args)
    guarded.__name__ = guarded.__qualname__ = name
    guarded.__doc__ = verb.__doc__
    return guarded


def _closing(verb: Callable[..., tuple]) -> Callable[..., tuple]:
    """MQCLOSE deregisters the handle's consumer; MQCO_QUIESCE with read-ahead messages
    left marks it, so that the consumer hears when the buffer is empty."""
    def close(hconn: int, hobj: int, options: int) -> tuple:
        result = verb(hconn, hobj, options)
        consumption = _consumptions.get(hconn)
        cb = consumption.consumers.get(hobj) if consumption is not None else None
        if consumption is None or cb is None:
            return result
        if result[1] == CMQC.MQRC_READ_AHEAD_MSGS:
            cb.quiesced = True
        elif result[0] != FAILED:
            _deregister(consumption, cb)
        return result
    close.__name__ = close.__qualname__ = "MQCLOSE"
    return close


def _disconnecting(verb: Callable[..., tuple]) -> Callable[..., tuple]:
    """MQDISC stops consumption first (from any thread) and deregisters every callback;
    a callback cannot disconnect its own connection."""
    def disconnect(hconn: int) -> tuple:
        consumption = _consumptions.get(hconn)
        if consumption is not None:
            if consumption.on_loop_thread():
                return (FAILED, CMQC.MQRC_ENVIRONMENT_ERROR)
            if consumption.state != _STOPPED:
                consumption.ask(_STOPPED)
            for cb in [*consumption.consumers.values(), consumption.handler]:
                if cb is not None:
                    _deregister(consumption, cb)
            _consumptions.pop(hconn, None)
        return verb(hconn)
    disconnect.__name__ = disconnect.__qualname__ = "MQDISC"
    return disconnect


def serialised_verbs(namespace: dict[str, object]) -> dict[str, Callable[..., tuple]]:
    """The verbs of `namespace` (transport.py's) as they must be while consumption may be
    started: MQRC_HCONN_ASYNC_ACTIVE from any thread but the delivering one, MQCLOSE and
    MQDISC ending the callbacks they affect."""
    out: dict[str, Callable[..., tuple]] = {}
    for name in _SERIALISED:
        verb = namespace.get(name)
        if callable(verb):
            if name == "MQCLOSE":
                verb = _closing(verb)
            out[name] = _serialised(name, verb)
    disc = namespace.get("MQDISC")
    if callable(disc):
        out["MQDISC"] = _disconnecting(disc)
    return out
