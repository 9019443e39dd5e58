"""The embedded queue manager's MQI verbs: what happens to queues, messages and units of work.

Everything runs under one lock: a server thread per connection calls these methods, and
MQ's ordering and unit-of-work rules are simplest to keep when only one verb changes state
at a time. Verbs report failures by raising `MQError(reason)`; the server turns that into
the (CompCode, Reason) pair the MQI returns.
"""
from __future__ import annotations

import itertools
import logging
import os
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from spark_mq.embedded.server.mqsc import default_attributes
from spark_mq.embedded.server.queues import (
    GROUP_FLAGS,
    I_BACKOUT,
    I_CCSID,
    I_CORRELID,
    I_ENCODING,
    I_EXPIRY,
    I_FLAGS,
    I_FORMAT,
    I_GROUPID,
    I_MSGID,
    I_OFFSET,
    I_ORIGLEN,
    I_PERSISTENCE,
    I_PRIORITY,
    I_SEQ,
    NONE_ID,
    SEGMENT_FLAGS,
    AliasQueue,
    LocalQueue,
    Message,
)
from spark_mq.embedded.server.store import Store, StoredMessage
from spark_mq.embedded.wire import decode, encode
from spark_mq.mqi import properties as props_mod
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import GMO, MD, STS, text

log = logging.getLogger("spark_mq.embedded")

FAILED, WARNING, OK = CMQC.MQCC_FAILED, CMQC.MQCC_WARNING, CMQC.MQCC_OK
_MDI, _GI = MD.index, GMO.index


_INPUT_OPTIONS = CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INPUT_EXCLUSIVE
_READ_AHEAD_OPTIONS = CMQC.MQOO_READ_AHEAD | CMQC.MQOO_NO_READ_AHEAD
_KNOWN_OPEN_OPTIONS = (
    _INPUT_OPTIONS | _READ_AHEAD_OPTIONS | CMQC.MQOO_BROWSE | CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE
    | CMQC.MQOO_SET | CMQC.MQOO_SAVE_ALL_CONTEXT | CMQC.MQOO_PASS_IDENTITY_CONTEXT
    | CMQC.MQOO_PASS_ALL_CONTEXT | CMQC.MQOO_SET_IDENTITY_CONTEXT | CMQC.MQOO_SET_ALL_CONTEXT
    | CMQC.MQOO_ALTERNATE_USER_AUTHORITY | CMQC.MQOO_FAIL_IF_QUIESCING | CMQC.MQOO_BIND_ON_OPEN
    | CMQC.MQOO_BIND_NOT_FIXED | CMQC.MQOO_BIND_ON_GROUP | CMQC.MQOO_RESOLVE_LOCAL_Q
    | CMQC.MQOO_NO_MULTICAST)
_BROWSE_GETS = (CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_BROWSE_NEXT
                | CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR)
# LOCK/UNLOCK need a browse lock, SET_SIGNAL is z/OS only, MARK_SKIP_BACKOUT is z/OS only
_UNSUPPORTED_GETS = (CMQC.MQGMO_LOCK | CMQC.MQGMO_UNLOCK | CMQC.MQGMO_SET_SIGNAL
                     | CMQC.MQGMO_MARK_SKIP_BACKOUT
                     | CMQC.MQGMO_MARK_BROWSE_HANDLE | CMQC.MQGMO_MARK_BROWSE_CO_OP
                     | CMQC.MQGMO_UNMARK_BROWSE_CO_OP | CMQC.MQGMO_UNMARK_BROWSE_HANDLE
                     | CMQC.MQGMO_UNMARKED_BROWSE_MSG)
_PROPERTY_GETS = (CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2 | CMQC.MQGMO_NO_PROPERTIES
                  | CMQC.MQGMO_PROPERTIES_IN_HANDLE | CMQC.MQGMO_PROPERTIES_COMPATIBILITY)
_CONTEXT_PUTS = (CMQC.MQPMO_NO_CONTEXT | CMQC.MQPMO_DEFAULT_CONTEXT
                 | CMQC.MQPMO_PASS_IDENTITY_CONTEXT | CMQC.MQPMO_PASS_ALL_CONTEXT
                 | CMQC.MQPMO_SET_IDENTITY_CONTEXT | CMQC.MQPMO_SET_ALL_CONTEXT)
_IDENTITY_FIELDS = ("UserIdentifier", "AccountingToken", "ApplIdentityData")
_ORIGIN_FIELDS = ("PutApplType", "PutApplName", "PutDate", "PutTime", "ApplOriginData")
_MAX_TOKEN = struct.Struct("<q8x")


class MQError(Exception):
    def __init__(self, reason: int, comp_code: int = FAILED):
        super().__init__(reason)
        self.reason = reason
        self.comp_code = comp_code


@dataclass
class Handle:
    hobj: int
    queue: LocalQueue | None          # None for the queue manager object
    name: str
    options: int
    read_ahead: bool = False
    selector: object = None
    cursor: int | None = None          # browse cursor: key of the last message browsed
    cursor_msg: Message | None = None
    get_group: tuple | None = None     # logical-order get in progress: (groupid, seq, offset)
    put_group: tuple | None = None     # logical-order put in progress:
    #                                    (groupid, next seq, next offset, in a group, syncpoint, persistence)
    saved_context: list | None = None  # MQOO_SAVE_ALL_CONTEXT: MD of the last message got
    rejected_upto: tuple | None = None  # (key, queue.reorders): head run the selector rejected


@dataclass
class Connection:
    conn_id: int
    user: str
    appl_name: str
    alive: Callable[[], bool] = lambda: True
    handles: dict[int, Handle] = field(default_factory=dict)
    uow_puts: list[Message] = field(default_factory=list)
    uow_gets: list[Message] = field(default_factory=list)
    hobj_counter: itertools.count = field(default_factory=lambda: itertools.count(101))
    # asynchronous put results since the last MQSTAT
    put_success: int = 0
    put_warning: int = 0
    put_failure: int = 0
    first_error: tuple | None = None   # (comp_code, reason, object name)

    @property
    def appl_name_field(self) -> bytes:
        return _blank(self.appl_name, 28)


class QueueManager:
    def __init__(self, name: str, data_dir: str, users: dict[str, str] | None = None):
        self.name = name
        self.users = users
        self.lock = threading.RLock()
        self.arrived = threading.Condition(self.lock)
        self.queues: dict[str, LocalQueue | AliasQueue] = {}
        self.attrs = default_attributes("QMGR")
        self.quiescing = False
        self.store = Store(data_dir)
        self._conn_ids = itertools.count(1)
        self._msgid_prefix = b"AMQ " + name.encode()[:12].ljust(12, b" ")
        self._msgid_counter = itertools.count(time.time_ns() // 1000)
        self._seq = itertools.count(1)
        self._recover()

    # === start-up and definitions ========================================================
    def _recover(self) -> None:
        for kind, name, attrs in self.store.objects():
            if kind == "QMGR":
                self.attrs.update(attrs)
            else:
                self.queues[name] = (LocalQueue if kind == "QLOCAL" else AliasQueue)(name, attrs)
        last = 0
        for stored in self.store.messages():
            queue = self.queues.get(stored.queue)
            last = stored.seq
            if not isinstance(queue, LocalQueue):
                continue
            md = MD.unpack(stored.md)
            md[I_BACKOUT] = stored.backout
            message = Message(stored.seq, md, stored.body,
                              decode(stored.props) if stored.props else None, stored.expires_at)
            queue.insert(message)
        self._seq = itertools.count(last + 1)

    def define(self, kind: str, name: str, attrs: dict, replace: bool) -> None:
        existing = self.queues.get(name)
        if existing is not None:
            if not replace:
                raise ValueError(f"{existing.kind}({name}) already exists; use REPLACE")
            if existing.kind != kind:
                raise ValueError(f"{name} exists as {existing.kind}, not {kind}")
            existing.alter(attrs)
            queue = existing
        else:
            queue = (LocalQueue if kind == "QLOCAL" else AliasQueue)(name, attrs)
            self.queues[name] = queue
        self.store.save_object(kind, name, _saved_attrs(queue))

    def alter(self, kind: str, name: str, attrs: dict) -> None:
        queue = self._definition(kind, name)
        queue.alter(attrs)
        self.store.save_object(kind, name, _saved_attrs(queue))

    def alter_qmgr(self, attrs: dict) -> None:
        self.attrs.update(attrs)
        self.store.save_object("QMGR", self.name, self.attrs)

    def delete(self, kind: str, name: str, purge: bool) -> None:
        queue = self._definition(kind, name)
        if isinstance(queue, LocalQueue):
            if queue.input_shared or queue.input_exclusive or queue.output_count:
                raise ValueError(f"QLOCAL({name}) is open")
            if queue.depth and not purge:
                raise ValueError(f"QLOCAL({name}) is not empty; use PURGE")
            self.store.apply(purge_queue=name)
        del self.queues[name]
        self.store.delete_object(kind, name)

    def clear(self, name: str) -> int:
        queue = self._definition("QLOCAL", name)
        if queue.pending_puts or queue.input_shared or queue.input_exclusive or queue.output_count:
            raise ValueError(f"QLOCAL({name}) is open or has uncommitted work")
        count = len(queue.msgs)
        queue.clear_index()
        self.store.apply(purge_queue=name)
        return count

    def _definition(self, kind: str, name: str) -> LocalQueue | AliasQueue:
        queue = self.queues.get(name)
        if queue is None or queue.kind != kind:
            raise ValueError(f"{kind}({name}) not found")
        return queue

    # === connections =====================================================================
    def connect(self, user: str, password: str, appl_name: str,
                alive: Callable[[], bool]) -> Connection:
        if self.quiescing:
            raise MQError(CMQC.MQRC_Q_MGR_QUIESCING)
        if self.users is not None and self.users.get(user) != password:
            raise MQError(CMQC.MQRC_NOT_AUTHORIZED)
        return Connection(next(self._conn_ids), user or _os_user(), appl_name, alive)

    def disconnect(self, conn: Connection, clean: bool) -> int:
        """MQDISC commits open work; a broken connection backs it out."""
        reason = OK
        with self.lock:
            if clean:
                try:
                    self.commit(conn)
                except MQError:
                    self.backout(conn)
                    reason = CMQC.MQRC_BACKED_OUT
            else:
                self.backout(conn)
            for handle in list(conn.handles.values()):
                self._release(handle)
            conn.handles.clear()
        return reason

    # === open and close ==================================================================
    def open(self, conn: Connection, obj_type: int, name: str, options: int,
             selection: str | None) -> Handle:
        with self.lock:
            if obj_type == CMQC.MQOT_Q_MGR:
                if options & ~(CMQC.MQOO_INQUIRE | CMQC.MQOO_FAIL_IF_QUIESCING):
                    raise MQError(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)
                handle = Handle(next(conn.hobj_counter), None, self.name, options)
                conn.handles[handle.hobj] = handle
                return handle
            if obj_type != CMQC.MQOT_Q:
                raise MQError(CMQC.MQRC_FUNCTION_NOT_SUPPORTED)
            _check_open_options(options)
            queue, alias = self._resolve(name)
            self._check_open_against(queue, alias, options)
            selector = self._compile_selector(selection, options) if selection else None
            handle = Handle(next(conn.hobj_counter), queue, name, options, selector=selector)
            handle.read_ahead = self._read_ahead(alias or queue, options)
            if options & _INPUT_OPTIONS:
                exclusive = options & CMQC.MQOO_INPUT_EXCLUSIVE or (
                    options & CMQC.MQOO_INPUT_AS_Q_DEF and queue.attrs["DEFSOPT"] == "EXCL")
                if queue.input_exclusive or (exclusive and queue.input_shared):
                    raise MQError(CMQC.MQRC_OBJECT_IN_USE)
                if exclusive:
                    queue.input_exclusive += 1
                else:
                    queue.input_shared += 1
            if options & CMQC.MQOO_OUTPUT:
                queue.output_count += 1
            conn.handles[handle.hobj] = handle
            return handle

    def _resolve(self, name: str) -> tuple[LocalQueue, AliasQueue | None]:
        queue = self.queues.get(name)
        if queue is None:
            raise MQError(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
        if isinstance(queue, AliasQueue):
            target = self.queues.get(queue.attrs["TARGET"])
            if not isinstance(target, LocalQueue):
                raise MQError(CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q)
            return target, queue
        return queue, None

    @staticmethod
    def _check_open_against(queue: LocalQueue, alias: AliasQueue | None, options: int) -> None:
        definition = alias or queue
        if options & _INPUT_OPTIONS and queue.attrs.get("SHARE") == "NOSHARE" and (
                queue.input_shared or queue.input_exclusive):
            raise MQError(CMQC.MQRC_OBJECT_IN_USE)
        del definition  # inhibit checks happen at get/put time, as in MQ

    def _compile_selector(self, selection: str, options: int):
        if not options & (_INPUT_OPTIONS | CMQC.MQOO_BROWSE):
            raise MQError(CMQC.MQRC_SELECTOR_INVALID_FOR_TYPE)
        from spark_mq.mqi.selector import SelectorError, compile_selector
        try:
            return compile_selector(selection)
        except SelectorError as exc:
            raise MQError(exc.reason) from exc

    def _read_ahead(self, definition, options: int) -> bool:
        if not options & (_INPUT_OPTIONS | CMQC.MQOO_BROWSE):
            return False
        setting = definition.attrs.get("DEFREADA", "NO")
        if setting == "DISABLED" or options & CMQC.MQOO_NO_READ_AHEAD:
            return False
        return bool(options & CMQC.MQOO_READ_AHEAD) or setting == "YES"

    def close(self, conn: Connection, hobj: int) -> None:
        with self.lock:
            handle = self._handle(conn, hobj)
            del conn.handles[hobj]
            self._release(handle)
            if handle.put_group is not None:
                raise MQError(CMQC.MQRC_INCOMPLETE_GROUP, WARNING)

    @staticmethod
    def _release(handle: Handle) -> None:
        queue = handle.queue
        if queue is None:
            return
        if handle.options & _INPUT_OPTIONS:
            if queue.input_exclusive and handle.options & CMQC.MQOO_INPUT_EXCLUSIVE:
                queue.input_exclusive -= 1
            elif queue.input_shared:
                queue.input_shared -= 1
            elif queue.input_exclusive:
                queue.input_exclusive -= 1
        if handle.options & CMQC.MQOO_OUTPUT:
            queue.output_count -= 1

    @staticmethod
    def _handle(conn: Connection, hobj: int) -> Handle:
        handle = conn.handles.get(hobj)
        if handle is None:
            raise MQError(CMQC.MQRC_HOBJ_ERROR)
        return handle

    # === put =============================================================================
    def put(self, conn: Connection, hobj: int, md_bytes: bytes, pmo_options: int,
            context_hobj: int, props: list | None, body: bytes) -> bytes:
        with self.lock:
            handle = self._handle(conn, hobj)
            if not handle.options & CMQC.MQOO_OUTPUT:
                raise MQError(CMQC.MQRC_NOT_OPEN_FOR_OUTPUT)
            return self._put(conn, handle, md_bytes, pmo_options, context_hobj, props, body)

    def put1(self, conn: Connection, name: str, md_bytes: bytes, pmo_options: int,
             context_hobj: int, props: list | None, body: bytes) -> bytes:
        open_options = CMQC.MQOO_OUTPUT
        if pmo_options & CMQC.MQPMO_SET_ALL_CONTEXT:
            open_options |= CMQC.MQOO_SET_ALL_CONTEXT
        elif pmo_options & CMQC.MQPMO_SET_IDENTITY_CONTEXT:
            open_options |= CMQC.MQOO_SET_IDENTITY_CONTEXT
        if pmo_options & CMQC.MQPMO_PASS_ALL_CONTEXT:
            open_options |= CMQC.MQOO_PASS_ALL_CONTEXT
        elif pmo_options & CMQC.MQPMO_PASS_IDENTITY_CONTEXT:
            open_options |= CMQC.MQOO_PASS_IDENTITY_CONTEXT
        with self.lock:
            handle = self.open(conn, CMQC.MQOT_Q, name, open_options, None)
            try:
                return self._put(conn, handle, md_bytes, pmo_options & ~CMQC.MQPMO_LOGICAL_ORDER,
                                 context_hobj, props, body)
            finally:
                del conn.handles[handle.hobj]
                self._release(handle)

    def _put(self, conn: Connection, handle: Handle, md_bytes: bytes, options: int,
             context_hobj: int, props: list | None, body: bytes) -> bytes:
        if len(md_bytes) != MD.size:
            raise MQError(CMQC.MQRC_MD_ERROR)
        queue = handle.queue
        definition = self.queues.get(handle.name, queue)
        if definition.attrs["PUT"] == "DISABLED" or queue.attrs["PUT"] == "DISABLED":
            raise MQError(CMQC.MQRC_PUT_INHIBITED)
        if options & CMQC.MQPMO_SYNCPOINT and options & CMQC.MQPMO_NO_SYNCPOINT:
            raise MQError(CMQC.MQRC_OPTIONS_ERROR)
        if options & CMQC.MQPMO_ASYNC_RESPONSE and options & CMQC.MQPMO_SYNC_RESPONSE:
            raise MQError(CMQC.MQRC_OPTIONS_ERROR)
        md = MD.unpack(md_bytes)
        _check_md_header(md)
        if md[1] < 2:  # an MQMD version 1 has no group or segment fields
            if options & CMQC.MQPMO_LOGICAL_ORDER:
                raise MQError(CMQC.MQRC_WRONG_MD_VERSION)
            md[I_GROUPID], md[I_SEQ], md[I_OFFSET], md[I_FLAGS], md[I_ORIGLEN] = NONE_ID, 1, 0, 0, -1
        if md[I_CCSID] == CMQC.MQCCSI_Q_MGR:
            md[I_CCSID] = QMGR_CCSID  # MQ stores the queue manager's CCSID, not "as qmgr"
        warning = self._resolve_put_fields(md, definition)
        self._apply_context(conn, handle, md, options, context_hobj)
        if options & CMQC.MQPMO_NEW_MSG_ID or md[I_MSGID] == NONE_ID:
            md[I_MSGID] = self.new_msgid()
        if options & CMQC.MQPMO_NEW_CORREL_ID:
            md[I_CORRELID] = self.new_msgid()
        syncpoint = bool(options & CMQC.MQPMO_SYNCPOINT)
        next_group = self._assign_group(handle, md, options, len(body), syncpoint)
        if props:
            self._check_properties(props)
        if not body and md[I_FLAGS] & CMQC.MQMF_SEGMENT and not md[I_FLAGS] & CMQC.MQMF_LAST_SEGMENT:
            raise MQError(CMQC.MQRC_SEGMENT_LENGTH_ZERO)  # only a last segment may be empty
        pieces = self._segment(queue, md, props, body)
        if len(pieces) > 1 and not syncpoint and md[I_PERSISTENCE] == CMQC.MQPER_PERSISTENT \
                and (conn.uow_puts or conn.uow_gets):
            # segmenting a persistent message needs the queue manager's own unit of work
            raise MQError(CMQC.MQRC_UOW_NOT_AVAILABLE)
        if queue.depth + len(pieces) > queue.attrs["MAXDEPTH"]:
            raise MQError(CMQC.MQRC_Q_FULL)
        if syncpoint and len(conn.uow_puts) + len(conn.uow_gets) + len(pieces) > self.attrs["MAXUMSGS"]:
            raise MQError(CMQC.MQRC_SYNCPOINT_LIMIT_REACHED)
        expires_at = None
        if md[I_EXPIRY] > 0:
            expires_at = time.time() + md[I_EXPIRY] / 10.0
        messages = [Message(next(self._seq), piece_md, piece_body, piece_props, expires_at)
                    for piece_md, piece_body, piece_props in pieces]
        if syncpoint:
            conn.uow_puts.extend(messages)
            queue.pending_puts += len(messages)
            for message in messages:
                message.queue = queue
        else:
            self._store_new(messages, queue)
            for message in messages:
                queue.insert(message)
            self.arrived.notify_all()
        if options & CMQC.MQPMO_LOGICAL_ORDER:
            handle.put_group = next_group  # only a put that succeeded moves the group on
        if warning:
            raise _Warned(MD.pack(md), warning)
        return MD.pack(md)

    def _resolve_put_fields(self, md: list, definition) -> int:
        """Apply queue defaults and check MD values; return a warning reason or 0."""
        warning = 0
        persistence = md[I_PERSISTENCE]
        if persistence == CMQC.MQPER_PERSISTENCE_AS_Q_DEF:
            md[I_PERSISTENCE] = 1 if definition.attrs["DEFPSIST"] == "YES" else 0
        elif persistence not in (0, 1):
            raise MQError(CMQC.MQRC_PERSISTENCE_ERROR)
        priority = md[I_PRIORITY]
        if priority == CMQC.MQPRI_PRIORITY_AS_Q_DEF:
            md[I_PRIORITY] = definition.attrs["DEFPRTY"]
        elif priority < -1:
            raise MQError(CMQC.MQRC_PRIORITY_ERROR)
        elif priority > 9:
            warning = CMQC.MQRC_PRIORITY_EXCEEDS_MAXIMUM
        expiry = md[I_EXPIRY]
        if expiry != CMQC.MQEI_UNLIMITED and expiry <= 0:
            raise MQError(CMQC.MQRC_EXPIRY_ERROR)
        return warning

    def _apply_context(self, conn: Connection, handle: Handle, md: list, options: int,
                       context_hobj: int) -> None:
        chosen = options & _CONTEXT_PUTS
        if chosen & (chosen - 1):
            raise MQError(CMQC.MQRC_OPTIONS_ERROR)  # more than one context option
        if chosen == CMQC.MQPMO_NO_CONTEXT:
            for name in _IDENTITY_FIELDS + _ORIGIN_FIELDS:
                md[_MDI[name]] = 0 if name == "PutApplType" else b""
            return
        if chosen == CMQC.MQPMO_SET_ALL_CONTEXT:
            if not handle.options & CMQC.MQOO_SET_ALL_CONTEXT:
                raise MQError(CMQC.MQRC_OPTIONS_ERROR)
            return
        if chosen in (CMQC.MQPMO_PASS_IDENTITY_CONTEXT, CMQC.MQPMO_PASS_ALL_CONTEXT):
            needed = (CMQC.MQOO_PASS_ALL_CONTEXT | CMQC.MQOO_SET_ALL_CONTEXT
                      if chosen == CMQC.MQPMO_PASS_ALL_CONTEXT else
                      CMQC.MQOO_PASS_IDENTITY_CONTEXT | CMQC.MQOO_PASS_ALL_CONTEXT
                      | CMQC.MQOO_SET_IDENTITY_CONTEXT | CMQC.MQOO_SET_ALL_CONTEXT)
            if not handle.options & needed:
                raise MQError(CMQC.MQRC_OPTIONS_ERROR)
            source = conn.handles.get(context_hobj)
            if source is None or not source.options & CMQC.MQOO_SAVE_ALL_CONTEXT:
                raise MQError(CMQC.MQRC_CONTEXT_HANDLE_ERROR)
            saved = source.saved_context
            fields = _IDENTITY_FIELDS + (_ORIGIN_FIELDS if chosen == CMQC.MQPMO_PASS_ALL_CONTEXT else ())
            for name in fields:
                md[_MDI[name]] = saved[_MDI[name]] if saved else (0 if name == "PutApplType" else b"")
            if chosen == CMQC.MQPMO_PASS_ALL_CONTEXT:
                return
            self._set_origin(conn, md)
            return
        if chosen == CMQC.MQPMO_SET_IDENTITY_CONTEXT:
            if not handle.options & (CMQC.MQOO_SET_IDENTITY_CONTEXT | CMQC.MQOO_SET_ALL_CONTEXT):
                raise MQError(CMQC.MQRC_OPTIONS_ERROR)
        else:  # default context: the queue manager fills identity and origin
            md[_MDI["UserIdentifier"]] = _blank(conn.user, 12)
            md[_MDI["AccountingToken"]] = b""
            md[_MDI["ApplIdentityData"]] = b""
        self._set_origin(conn, md)

    @staticmethod
    def _set_origin(conn: Connection, md: list) -> None:
        now = time.time()
        date, hms = _put_stamp(int(now))
        md[_I_PUTAPPLTYPE] = CMQC.MQAT_UNIX
        md[_I_PUTAPPLNAME] = conn.appl_name_field
        md[_I_PUTDATE] = date
        md[_I_PUTTIME] = hms + b"%02d" % (int(now * 100) % 100)
        md[_I_APPLORIGIN] = b""

    def _assign_group(self, handle: Handle, md: list, options: int, length: int,
                      syncpoint: bool) -> tuple | None:
        """Group and segment fields of a put; returns the handle's next logical-order state."""
        flags = md[I_FLAGS]
        in_group = bool(flags & GROUP_FLAGS)
        segment = bool(flags & SEGMENT_FLAGS)
        if not options & CMQC.MQPMO_LOGICAL_ORDER:
            if md[I_OFFSET] < 0 or (md[I_OFFSET] and not segment):
                raise MQError(CMQC.MQRC_OFFSET_ERROR)
            if md[I_SEQ] < 1 or (in_group and md[I_GROUPID] == NONE_ID and md[I_SEQ] != 1):
                raise MQError(CMQC.MQRC_MSG_SEQ_NUMBER_ERROR)
            if (in_group or segment) and md[I_GROUPID] == NONE_ID:
                if segment and md[I_OFFSET]:
                    raise MQError(CMQC.MQRC_OFFSET_ERROR)  # a later segment needs its GroupId
                md[I_GROUPID] = self.new_msgid()
            return handle.put_group
        state = handle.put_group
        if state is None:
            if not (in_group or segment):
                return None
            state = (self.new_msgid(), 1, 0, in_group, syncpoint, md[I_PERSISTENCE])
        else:
            groupid, seq, offset, was_in_group, was_syncpoint, persistence = state
            if not (in_group or segment) or (was_in_group and not in_group):
                raise MQError(CMQC.MQRC_INCOMPLETE_GROUP if was_in_group else CMQC.MQRC_INCOMPLETE_MSG)
            if syncpoint != was_syncpoint:
                raise MQError(CMQC.MQRC_INCONSISTENT_UOW)
            if md[I_PERSISTENCE] != persistence:
                raise MQError(CMQC.MQRC_INCONSISTENT_PERSISTENCE)
        groupid, seq, offset, _, was_syncpoint, persistence = state
        md[I_GROUPID], md[I_SEQ], md[I_OFFSET] = groupid, seq, offset
        if segment and not flags & CMQC.MQMF_LAST_SEGMENT:
            return (groupid, seq, offset + length, in_group, was_syncpoint, persistence)
        if in_group and not flags & CMQC.MQMF_LAST_MSG_IN_GROUP:
            return (groupid, seq + 1, 0, in_group, was_syncpoint, persistence)
        return None

    def _check_properties(self, props: list) -> None:
        limit = self.attrs["MAXPROPL"]
        if limit >= 0:
            size = props_mod.properties_length([props_mod.Property(*p) for p in props])
            if size > limit:
                raise MQError(CMQC.MQRC_PROPERTIES_TOO_BIG)

    def _segment(self, queue: LocalQueue, md: list, props: list | None,
                 body: bytes) -> list[tuple[list, bytes, list | None]]:
        """Split a message the queue cannot hold whole, when the putter allows it."""
        queue_limit, qmgr_limit = queue.attrs["MAXMSGL"], self.attrs["MAXMSGL"]
        limit = min(queue_limit, qmgr_limit)
        if len(body) <= limit:
            return [(md, body, props)]
        too_big = CMQC.MQRC_MSG_TOO_BIG_FOR_Q if queue_limit <= qmgr_limit else CMQC.MQRC_MSG_TOO_BIG_FOR_Q_MGR
        # A message that carries properties cannot be segmented safely: the properties
        # travel in the first segment and push it past MAXMSGL (see DESIGN.md).
        if not md[I_FLAGS] & CMQC.MQMF_SEGMENTATION_ALLOWED or props or limit < 16:
            raise MQError(too_big)
        if md[I_FLAGS] & SEGMENT_FLAGS:
            raise MQError(too_big)  # an application segment that is itself too big
        size = limit - limit % 16
        if md[I_GROUPID] == NONE_ID:
            md[I_GROUPID] = self.new_msgid()
        pieces = []
        for offset in range(0, len(body), size):
            piece = list(md)
            last = offset + size >= len(body)
            piece[I_OFFSET] = md[I_OFFSET] + offset
            piece[I_FLAGS] = md[I_FLAGS] | (CMQC.MQMF_LAST_SEGMENT if last else CMQC.MQMF_SEGMENT)
            piece[I_ORIGLEN] = len(body)
            pieces.append((piece, body[offset:offset + size], None))
        return pieces

    def new_msgid(self) -> bytes:
        return self._msgid_prefix + next(self._msgid_counter).to_bytes(8, "big")

    def _store_new(self, messages: list[Message], queue: LocalQueue) -> None:
        rows = [_stored(m, queue.name) for m in messages if m.persistent]
        if rows:
            self.store.apply(inserts=rows)

    # === get =============================================================================
    def get(self, conn: Connection, hobj: int, md_bytes: bytes, gmo_bytes: bytes,
            max_length: int, has_handle: bool, non_persistent_only: bool = False) -> tuple:
        """One MQGET. Returns (comp_code, reason, md, gmo, data, total_length, props).
        non_persistent_only: raise _PersistentNext rather than return a persistent message."""
        if len(md_bytes) != MD.size:
            raise MQError(CMQC.MQRC_MD_ERROR)
        if len(gmo_bytes) != GMO.size:
            raise MQError(CMQC.MQRC_GMO_ERROR)
        gmo = GMO.unpack(gmo_bytes)
        md_in = MD.unpack(md_bytes)
        _check_md_header(md_in)
        if gmo[0] != b"GMO " or not 1 <= gmo[_GI_VERSION] <= 4:
            raise MQError(CMQC.MQRC_GMO_ERROR)
        if gmo[_GI_VERSION] < 2:  # no MatchOptions field before version 2: MQ's default applies
            gmo[_GI_MATCH] = CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID
        options = gmo[_GI["Options"]]
        wait = gmo[_GI["WaitInterval"]]
        with self.lock:
            handle = self._handle(conn, hobj)
            self._check_get(handle, options, wait, max_length)
            deadline = None
            if options & CMQC.MQGMO_WAIT and wait != CMQC.MQWI_UNLIMITED:
                deadline = time.monotonic() + wait / 1000.0
            while True:
                found = self._find(handle, options, gmo, md_in)
                if found is not None:
                    if non_persistent_only and found[0].persistent:
                        raise _PersistentNext()
                    return self._deliver(conn, handle, found, options, gmo, max_length, has_handle,
                                         md_in)
                if not options & CMQC.MQGMO_WAIT or options & _BROWSE_GETS and options & CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR:
                    raise MQError(CMQC.MQRC_NO_MSG_AVAILABLE)
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise MQError(CMQC.MQRC_NO_MSG_AVAILABLE)
                self.arrived.wait(0.25 if remaining is None else min(remaining, 0.25))
                if self.quiescing:  # a waiting get is told why, before the process ends
                    raise MQError(CMQC.MQRC_Q_MGR_QUIESCING if options & CMQC.MQGMO_FAIL_IF_QUIESCING
                                  else CMQC.MQRC_Q_MGR_STOPPING)
                if not conn.alive():
                    raise MQError(CMQC.MQRC_CONNECTION_BROKEN)
                if conn.handles.get(hobj) is not handle:
                    raise MQError(CMQC.MQRC_HOBJ_ERROR)
                self._check_get(handle, options, wait, max_length)

    def get_batch(self, conn: Connection, hobj: int, gmo_bytes: bytes, has_handle: bool,
                  max_count: int, max_bytes: int) -> list:
        """Read-ahead: up to max_count non-persistent messages gotten outside syncpoint.

        The first message may be waited for; the rest are only what is there already.
        Stops before a persistent message, which is left for a synchronous get: a persistent
        message must never sit in a client's buffer, where a crash would lose it."""
        empty_md = _EMPTY_MD
        with self.lock:
            try:
                first = self.get(conn, hobj, empty_md, gmo_bytes, _ANY_LENGTH, has_handle,
                                 non_persistent_only=True)
            except _PersistentNext:
                return []
            results = [first]
            total = len(first[4]) + _BATCH_OVERHEAD
            # the checks of the first get hold for the rest: the lock has not been let go since
            handle = self._handle(conn, hobj)
            gmo = GMO.unpack(gmo_bytes)
            if gmo[_GI_VERSION] < 2:
                gmo[_GI_MATCH] = CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID
            options = gmo[_GI["Options"]] & ~CMQC.MQGMO_WAIT
            md_in = MD.unpack(empty_md)
            while len(results) < max_count and total < max_bytes:
                found = self._find(handle, options, gmo, md_in)
                if found is None or found[0].persistent:
                    break
                result = self._deliver(conn, handle, found, options, gmo, _ANY_LENGTH, has_handle,
                                       md_in)
                results.append(result)
                total += len(result[4]) + _BATCH_OVERHEAD
        return results

    def _check_get(self, handle: Handle, options: int, wait: int, max_length: int) -> None:
        queue = handle.queue
        if queue is None:
            raise MQError(CMQC.MQRC_NOT_OPEN_FOR_INPUT)
        browse = options & _BROWSE_GETS
        if browse & (browse - 1):
            raise MQError(CMQC.MQRC_OPTIONS_ERROR)
        if browse:
            if not handle.options & CMQC.MQOO_BROWSE:
                raise MQError(CMQC.MQRC_NOT_OPEN_FOR_BROWSE)
        elif not handle.options & _INPUT_OPTIONS:
            raise MQError(CMQC.MQRC_NOT_OPEN_FOR_INPUT)
        if options & CMQC.MQGMO_MSG_UNDER_CURSOR and (browse or not handle.options & CMQC.MQOO_BROWSE):
            raise MQError(CMQC.MQRC_OPTIONS_ERROR if browse else CMQC.MQRC_NOT_OPEN_FOR_BROWSE)
        sync = options & (CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT)
        if browse and sync & (CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT):
            raise MQError(CMQC.MQRC_OPTIONS_ERROR)  # a browse takes nothing into a unit of work
        if sync & (sync - 1):
            raise MQError(CMQC.MQRC_OPTIONS_ERROR)
        properties = options & _PROPERTY_GETS
        if properties & (properties - 1):
            raise MQError(CMQC.MQRC_OPTIONS_ERROR)
        if options & _UNSUPPORTED_GETS:
            raise MQError(CMQC.MQRC_OPTIONS_ERROR)
        if options & CMQC.MQGMO_WAIT and wait < CMQC.MQWI_UNLIMITED:
            raise MQError(CMQC.MQRC_WAIT_INTERVAL_ERROR)
        if max_length < 0:
            raise MQError(CMQC.MQRC_BUFFER_LENGTH_ERROR)
        definition = self.queues.get(handle.name, queue)
        if not browse and (definition.attrs["GET"] == "DISABLED" or queue.attrs["GET"] == "DISABLED"):
            raise MQError(CMQC.MQRC_GET_INHIBITED)

    def _find(self, handle: Handle, options: int, gmo: list, md_in: list) -> list[Message] | None:
        """The message (or the segments of a complete logical message) this get returns."""
        queue = handle.queue
        if options & (CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR | CMQC.MQGMO_MSG_UNDER_CURSOR):
            message = handle.cursor_msg
            if message is None or not queue.available(message) or message.expired(time.time()):
                raise MQError(CMQC.MQRC_NO_MSG_UNDER_CURSOR)
            if options & CMQC.MQGMO_COMPLETE_MSG and message.flags & SEGMENT_FLAGS:
                if message.md[I_OFFSET]:
                    raise MQError(CMQC.MQRC_INVALID_MSG_UNDER_CURSOR)
                segments = queue.logical_segments(message.md[I_GROUPID], message.md[I_SEQ])
                if segments is None:
                    raise MQError(CMQC.MQRC_INCOMPLETE_MSG)
                return segments
            return [message]

        match = gmo[_GI["MatchOptions"]]
        logical = options & CMQC.MQGMO_LOGICAL_ORDER
        msgid = md_in[I_MSGID] if match & CMQC.MQMO_MATCH_MSG_ID and md_in[I_MSGID] != NONE_ID else None
        correlid = md_in[I_CORRELID] if match & CMQC.MQMO_MATCH_CORREL_ID and md_in[I_CORRELID] != NONE_ID else None
        groupid = md_in[I_GROUPID] if match & CMQC.MQMO_MATCH_GROUP_ID and md_in[I_GROUPID] != NONE_ID else None
        seq = md_in[I_SEQ] if match & CMQC.MQMO_MATCH_MSG_SEQ_NUMBER else None
        offset = md_in[I_OFFSET] if match & CMQC.MQMO_MATCH_OFFSET else None
        token = None
        if match & CMQC.MQMO_MATCH_MSG_TOKEN:
            if gmo[_GI["Version"]] < 3:
                raise MQError(CMQC.MQRC_WRONG_GMO_VERSION)
            if options & CMQC.MQGMO_WAIT:
                raise MQError(CMQC.MQRC_MSG_TOKEN_ERROR)
            token = _MAX_TOKEN.unpack(gmo[_GI["MsgToken"]])[0]
        in_progress = handle.get_group if logical else None
        if in_progress is not None:
            if groupid is not None and groupid != in_progress[0]:
                raise MQError(CMQC.MQRC_MATCH_OPTIONS_ERROR)
            groupid, seq, offset = in_progress
        cursor = handle.cursor if options & CMQC.MQGMO_BROWSE_NEXT else None
        # Messages the handle's selector rejected never match it later (the selection
        # string is fixed while the handle is open), so a scan resumes after the run of
        # rejected messages at the head of the queue instead of testing them again.
        mark = None
        if handle.selector is not None and handle.rejected_upto is not None \
                and handle.rejected_upto[1] == queue.reorders:
            mark = handle.rejected_upto[0]
        start = mark if cursor is None or (mark is not None and mark > cursor) else cursor
        whole_scan = (token is None and msgid is None and correlid is None and groupid is None
                      and seq is None and offset is None and not logical)
        if token is not None:
            keys = iter([key for key, m in queue.msgs.items() if m.seq == token
                         and (cursor is None or key > cursor)])
        else:
            keys = queue.candidate_keys(msgid, correlid, groupid, start)
        advancing = handle.selector is not None and whole_scan and start == mark
        advanced = mark
        now = time.time()
        expired = []
        found = None
        for key in keys:
            message = queue.msgs.get(key)
            if message is None:
                continue
            if message.expired(now):
                expired.append(message)
                continue
            md = message.md
            if (msgid is not None and md[I_MSGID] != msgid
                    or correlid is not None and md[I_CORRELID] != correlid
                    or groupid is not None and md[I_GROUPID] != groupid
                    or seq is not None and md[I_SEQ] != seq
                    or offset is not None and md[I_OFFSET] != offset):
                continue
            flags = md[I_FLAGS]
            if logical and in_progress is None and flags & (GROUP_FLAGS | SEGMENT_FLAGS) and (
                    md[I_SEQ] != 1 or md[I_OFFSET] != 0):
                continue
            if handle.selector is not None and not handle.selector.matches(_lookup(message)):
                if advancing:
                    advanced = key
                continue
            advancing = False
            if flags & GROUP_FLAGS and options & CMQC.MQGMO_ALL_MSGS_AVAILABLE and in_progress is None \
                    and not queue.group_complete(md[I_GROUPID]):
                continue
            if flags & SEGMENT_FLAGS:
                complete = options & CMQC.MQGMO_COMPLETE_MSG
                if complete and md[I_OFFSET] != 0:
                    continue
                if complete or options & CMQC.MQGMO_ALL_SEGMENTS_AVAILABLE and not (
                        logical and in_progress is not None):
                    segments = queue.logical_segments(md[I_GROUPID], md[I_SEQ])
                    if segments is None:
                        continue
                    if complete:
                        found = segments
                        break
            found = [message]
            break
        for message in expired:
            self._discard(message)
        if handle.selector is not None and whole_scan and advanced is not None:
            handle.rejected_upto = (advanced, queue.reorders)
        return found

    def _discard(self, message: Message) -> None:
        message.queue.remove(message)
        if message.persistent:
            self.store.apply(deletes=[message.seq])

    def _deliver(self, conn: Connection, handle: Handle, found: list[Message], options: int,
                 gmo: list, max_length: int, has_handle: bool, md_in: list | None = None) -> tuple:
        queue = handle.queue
        first = found[0]
        md = list(first.md)
        body = first.body if len(found) == 1 else b"".join(m.body for m in found)
        if len(found) > 1 or options & CMQC.MQGMO_COMPLETE_MSG and first.flags & SEGMENT_FLAGS:
            md[I_FLAGS] &= ~SEGMENT_FLAGS
            md[I_ORIGLEN] = CMQC.MQOL_UNDEFINED
            md[I_OFFSET] = 0
        if first.expires_at is not None:
            md[I_EXPIRY] = max(1, int((first.expires_at - time.time()) * 10))
        props_out, body = self._properties_for_getter(queue, handle, first.props, md, body,
                                                      options, has_handle)
        comp_code, reason = OK, OK
        if options & CMQC.MQGMO_CONVERT and md_in is not None:
            body, reason = _convert(md, body, md_in)
            comp_code = WARNING if reason else OK
        total = len(body)
        browse = options & _BROWSE_GETS
        if total > max_length:
            if not options & CMQC.MQGMO_ACCEPT_TRUNCATED_MSG:
                # the message stays where it is; the caller learns its length and MD
                return (WARNING, CMQC.MQRC_TRUNCATED_MSG_FAILED, MD.pack(md),
                        self._gmo_out(gmo, queue, first, md, options), body[:max_length], total, None)
            comp_code, reason = WARNING, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED
        if browse:
            handle.cursor = first.key
            handle.cursor_msg = first
        else:
            self._take(conn, found, options)
            if handle.cursor_msg is not None and handle.cursor_msg in found:
                handle.cursor_msg = None
            if handle.options & CMQC.MQOO_SAVE_ALL_CONTEXT:
                handle.saved_context = md
        if options & CMQC.MQGMO_LOGICAL_ORDER and not browse:
            self._advance_group(handle, found, options)
        elif options & CMQC.MQGMO_LOGICAL_ORDER and browse:
            self._advance_group(handle, found, options)
        return (comp_code, reason, MD.pack(md), self._gmo_out(gmo, queue, first, md, options),
                body[:max_length], total, props_out)

    def _take(self, conn: Connection, found: list[Message], options: int) -> None:
        queue = found[0].queue
        syncpoint = options & CMQC.MQGMO_SYNCPOINT or (
            options & CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT and found[0].persistent)
        if syncpoint and len(conn.uow_puts) + len(conn.uow_gets) + len(found) > self.attrs["MAXUMSGS"]:
            raise MQError(CMQC.MQRC_SYNCPOINT_LIMIT_REACHED)
        if not syncpoint and len(found) > 1 and found[0].persistent and (conn.uow_puts or conn.uow_gets):
            # reassembling persistent segments needs the queue manager's own unit of work
            raise MQError(CMQC.MQRC_UOW_NOT_AVAILABLE)
        for message in found:
            queue.remove(message)
        if syncpoint:
            conn.uow_gets.extend(found)
        else:
            deletes = [m.seq for m in found if m.persistent]
            if deletes:
                self.store.apply(deletes=deletes)

    @staticmethod
    def _advance_group(handle: Handle, found: list[Message], options: int) -> None:
        last = found[-1]
        md = last.md
        flags = md[I_FLAGS]
        if flags & CMQC.MQMF_SEGMENT and len(found) == 1 and not flags & CMQC.MQMF_LAST_SEGMENT:
            handle.get_group = (md[I_GROUPID], md[I_SEQ], md[I_OFFSET] + len(last.body))
        elif flags & CMQC.MQMF_MSG_IN_GROUP and not flags & CMQC.MQMF_LAST_MSG_IN_GROUP:
            handle.get_group = (md[I_GROUPID], md[I_SEQ] + 1, 0)
        else:
            handle.get_group = None

    @staticmethod
    def _gmo_out(gmo: list, queue: LocalQueue, first: Message, md: list, options: int) -> bytes:
        out = list(gmo)
        flags = md[I_FLAGS]
        out[_GI["ResolvedQName"]] = _blank(queue.name, 48)
        out[_GI["GroupStatus"]] = (CMQC.MQGS_LAST_MSG_IN_GROUP if flags & CMQC.MQMF_LAST_MSG_IN_GROUP
                                   else CMQC.MQGS_MSG_IN_GROUP if flags & CMQC.MQMF_MSG_IN_GROUP
                                   else CMQC.MQGS_NOT_IN_GROUP)
        out[_GI["SegmentStatus"]] = (CMQC.MQSS_LAST_SEGMENT if flags & CMQC.MQMF_LAST_SEGMENT
                                     else CMQC.MQSS_SEGMENT if flags & CMQC.MQMF_SEGMENT
                                     else CMQC.MQSS_NOT_A_SEGMENT)
        out[_GI["Segmentation"]] = (CMQC.MQSEG_ALLOWED if flags & CMQC.MQMF_SEGMENTATION_ALLOWED
                                    else CMQC.MQSEG_INHIBITED)
        out[_GI["MsgToken"]] = _MAX_TOKEN.pack(first.seq)
        out[_GI["ReturnedLength"]] = CMQC.MQRL_UNDEFINED
        return GMO.pack(out)

    def _properties_for_getter(self, queue: LocalQueue, handle: Handle, props: list | None,
                               md: list, body: bytes, options: int, has_handle: bool):
        """PROPCTL and the get options decide: properties to the handle, into an MQRFH2, or dropped."""
        if options & CMQC.MQGMO_PROPERTIES_IN_HANDLE and not has_handle:
            raise MQError(CMQC.MQRC_HMSG_ERROR)
        if not props:
            return None, body
        propctl = queue.attrs["PROPCTL"]
        definition = self.queues.get(handle.name)
        if isinstance(definition, AliasQueue):
            propctl = definition.attrs.get("PROPCTL", propctl)
        if options & CMQC.MQGMO_NO_PROPERTIES or propctl == "NONE":
            return None, body
        force = options & CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2 or propctl == "FORCE"
        if has_handle and not force:
            return props, body
        rfh2 = props_mod.encode_rfh2([props_mod.Property(*p) for p in props],
                                     md[I_ENCODING], md[I_CCSID], md[I_FORMAT])
        md[I_FORMAT] = CMQC.MQFMT_RF_HEADER_2
        md[I_ENCODING] = CMQC.MQENC_NATIVE
        md[I_CCSID] = 1208
        return None, rfh2 + body

    # === units of work ===================================================================
    def commit(self, conn: Connection) -> None:
        with self.lock:
            puts, gets = conn.uow_puts, conn.uow_gets
            if not puts and not gets:
                return
            inserts = [_stored(m, m.queue.name) for m in puts if m.persistent]
            deletes = [m.seq for m in gets if m.persistent]
            if inserts or deletes:
                self.store.apply(inserts=inserts, deletes=deletes)
            for message in puts:
                queue = message.queue
                queue.pending_puts -= 1
                if self.queues.get(queue.name) is queue:
                    queue.insert(message)
            conn.uow_puts, conn.uow_gets = [], []
            if puts:
                self.arrived.notify_all()

    def backout(self, conn: Connection) -> None:
        with self.lock:
            puts, gets = conn.uow_puts, conn.uow_gets
            if not puts and not gets:
                return
            for message in puts:
                message.queue.pending_puts -= 1
            hardened = []
            for message in gets:
                message.md[I_BACKOUT] += 1
                queue = message.queue
                if self.queues.get(queue.name) is queue:
                    queue.insert(message)
                    if message.persistent:
                        hardened.append((message.seq, message.md[I_BACKOUT]))
            if hardened:
                self.store.apply(backouts=hardened)
            conn.uow_puts, conn.uow_gets = [], []
            if gets:
                self.arrived.notify_all()

    # === status, inquire, set ============================================================
    def record_async(self, conn: Connection, comp_code: int, reason: int, name: str) -> None:
        if comp_code == OK:
            conn.put_success += 1
            return
        if comp_code == WARNING:
            conn.put_warning += 1
        else:
            conn.put_failure += 1
        if conn.first_error is None or (comp_code == FAILED and conn.first_error[0] == WARNING):
            conn.first_error = (comp_code, reason, name)

    def stat(self, conn: Connection, stat_type: int, sts_bytes: bytes) -> bytes:
        if stat_type != CMQC.MQSTAT_TYPE_ASYNC_ERROR:
            raise MQError(CMQC.MQRC_STAT_TYPE_ERROR)
        if len(sts_bytes) != STS.size:
            raise MQError(CMQC.MQRC_STS_ERROR)
        sts = STS.unpack(sts_bytes)
        comp_code, reason, name = conn.first_error or (OK, OK, "")
        values = {"CompCode": comp_code, "Reason": reason, "PutSuccessCount": conn.put_success,
                  "PutWarningCount": conn.put_warning, "PutFailureCount": conn.put_failure,
                  "ObjectType": CMQC.MQOT_Q, "ObjectName": _blank(name, 48),
                  "ObjectQMgrName": _blank(self.name, 48), "ResolvedObjectName": _blank(name, 48),
                  "ResolvedQMgrName": _blank(self.name, 48)}
        for key, value in values.items():
            sts[STS.index[key]] = value
        conn.put_success = conn.put_warning = conn.put_failure = 0
        conn.first_error = None
        return STS.pack(sts)

    def inquire(self, conn: Connection, hobj: int, selectors: list[int]) -> tuple[list, list]:
        with self.lock:
            handle = self._handle(conn, hobj)
            if not handle.options & CMQC.MQOO_INQUIRE:
                raise MQError(CMQC.MQRC_NOT_OPEN_FOR_INQUIRE)
            if len(selectors) > 256:
                raise MQError(CMQC.MQRC_SELECTOR_COUNT_ERROR)
            from spark_mq.embedded.server.attributes import inquire_values
            definition = self.queues.get(handle.name, handle.queue) if handle.queue else None
            return inquire_values(self, handle.queue, definition, selectors)

    def set(self, conn: Connection, hobj: int, selectors: list[int], ints: list[int],
            chars: bytes) -> None:
        with self.lock:
            handle = self._handle(conn, hobj)
            if not handle.options & CMQC.MQOO_SET:
                raise MQError(CMQC.MQRC_NOT_OPEN_FOR_SET)
            from spark_mq.embedded.server.attributes import set_values
            definition = self.queues.get(handle.name, handle.queue)
            changed = set_values(definition, selectors, ints, chars)
            self.store.save_object(definition.kind, definition.name, _saved_attrs(definition))
            del changed

    def shutdown(self, grace: float = 0.5) -> None:
        """Clean stop: waiting gets are answered (2161/2162), then the store is closed.
        Open units of work are not written, so they are backed out, as MQ does."""
        with self.lock:
            self.quiescing = True
            self.arrived.notify_all()
        time.sleep(grace)  # lets the waiting gets' answers reach their clients
        with self.lock:
            self.store.close()


QMGR_CCSID = 1208
#: CCSIDs whose text MQGMO_CONVERT can convert, with Python's codec for each
_CODECS = {1208: "utf-8", 819: "latin-1", 437: "cp437", 850: "cp850", 1252: "cp1252",
           37: "cp037", 500: "cp500", 1200: "utf-16-be", 1140: "cp1140", 367: "ascii"}


def _convert(md: list, body: bytes, md_in: list) -> tuple[bytes, int]:
    """MQGMO_CONVERT of the data to the CCSID the getter's MD asks for.

    Only MQFMT_STRING data is converted; anything that cannot be converted is returned as
    it is with MQ's warning (2110 format error, 2119 not converted), never silently."""
    wanted = md_in[I_CCSID] or QMGR_CCSID
    have = md[I_CCSID] or QMGR_CCSID
    if wanted < 0 or wanted == have:
        return body, 0
    if md[I_FORMAT] != CMQC.MQFMT_STRING:
        return body, CMQC.MQRC_FORMAT_ERROR
    source, target = _CODECS.get(have), _CODECS.get(wanted)
    if source is None or target is None:
        return body, CMQC.MQRC_NOT_CONVERTED
    try:
        converted = body.decode(source).encode(target)
    except (UnicodeDecodeError, UnicodeEncodeError):
        return body, CMQC.MQRC_NOT_CONVERTED
    md[I_CCSID] = wanted
    return converted, 0


class _PersistentNext(Exception):
    """The next message a read-ahead batch would take is persistent."""


_ANY_LENGTH = 0x7FFFFFFF
_BATCH_OVERHEAD = 400  # bytes counted per message besides its data (MD, GMO, framing)


class _Warned(MQError):
    """A put that succeeded with a warning: carries the MD to return."""

    def __init__(self, md: bytes, reason: int):
        super().__init__(reason, WARNING)
        self.md = md


_EMPTY_MD = MD.pack([b"MD  ", 2, 0, 8, -1, 0, 546, 0, b"", 0, 2, b"", b"", 0, b"", b"", b"", b"",
                     b"", 0, b"", b"", b"", b"", b"", 1, 0, 0, -1])


def _lookup(message: Message) -> Callable[[str], object]:
    """Values for a selector: message properties by name, MQMD fields as Root.MQMD.<Field>."""
    props = {p[0]: p[2] for p in message.props or ()}
    md = message.md

    def lookup(name: str):
        if name.startswith("Root.MQMD."):
            index = _MDI.get(name[10:])
            if index is None:
                return None
            value = md[index]
            if isinstance(value, bytes) and name[10:] not in (
                    "MsgId", "CorrelId", "GroupId", "AccountingToken"):
                return text(value)
            return value
        return props.get(name)
    return lookup


def _stored(message: Message, queue_name: str) -> StoredMessage:
    return StoredMessage(message.seq, queue_name, MD.pack(message.md), message.body,
                         encode(message.props) if message.props else None,
                         message.md[I_BACKOUT], message.expires_at)


def _saved_attrs(queue) -> dict:
    return {k: v for k, v in queue.attrs.items()}


def _check_open_options(options: int) -> None:
    if options & ~_KNOWN_OPEN_OPTIONS:
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)
    inputs = options & _INPUT_OPTIONS
    if inputs & (inputs - 1):
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)
    if options & _READ_AHEAD_OPTIONS == _READ_AHEAD_OPTIONS:
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)
    if not options & (_INPUT_OPTIONS | CMQC.MQOO_BROWSE | CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE
                      | CMQC.MQOO_SET):
        raise MQError(CMQC.MQRC_OPTIONS_ERROR)


_I_PUTAPPLTYPE, _I_PUTAPPLNAME = _MDI["PutApplType"], _MDI["PutApplName"]
_I_PUTDATE, _I_PUTTIME, _I_APPLORIGIN = _MDI["PutDate"], _MDI["PutTime"], _MDI["ApplOriginData"]
_stamp_cache: list = [None, None]


_GI_VERSION, _GI_MATCH = _GI["Version"], _GI["MatchOptions"]


def _check_md_header(md: list) -> None:
    if md[0] != b"MD  " or md[1] not in (1, 2):
        raise MQError(CMQC.MQRC_MD_ERROR)


def _put_stamp(second: int) -> tuple[bytes, bytes]:
    """PutDate and PutTime (to the second) in GMT, formatted once per second."""
    if _stamp_cache[0] != second:
        stamp = time.gmtime(second)
        _stamp_cache[1] = (time.strftime("%Y%m%d", stamp).encode(),
                           time.strftime("%H%M%S", stamp).encode())
        _stamp_cache[0] = second
    return _stamp_cache[1]


def _blank(value: str, length: int) -> bytes:
    """An MQCHAR field as MQ fills it: blank padded, not NUL padded."""
    return value.encode()[:length].ljust(length, b" ")


def _os_user() -> str:
    try:
        import pwd
        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError):
        return "mqapp"
