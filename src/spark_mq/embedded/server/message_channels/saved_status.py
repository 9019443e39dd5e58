"""What a channel keeps across a restart of its queue manager, as IBM MQ does (IBM docs,
"Restarting stopped channels", q015680_: "If the queue manager stops while a channel is in
RETRYING or STOPPED status, the channel status is remembered when the queue manager is
restarted"), and its saved status (DISPLAY CHSTATUS SAVED; "Displaying channel status":
saved status "applies after at least one batch of messages has been transmitted on the
channel", and is also saved when the channel stops and when the queue manager ends).

* A STOPPED channel (STOP CHANNEL, retries used up, books that do not reconcile) leaves a
  persistent state record on SYSTEM.CHANNEL.SYNCQ beside its sync records, keyed apart by
  role STATE; START CHANNEL removes it. At start the channel initiator makes a STOPPED
  status of each, so neither a trigger nor a partner starts the channel. An auto-defined
  cluster-sender's is kept too, while a member's CLUSRCVR still defines it.
* A sender that was RETRYING when the queue manager ended leaves a RETRYING record, and
  the initiator starts it again at the next start (it was going to try again anyway).
* DELETE CHANNEL erases the channel's state record and its books (`erase`): a channel
  defined again under the name is neither STOPPED after a restart nor shown with the old
  one's saved status, and counts its sequence numbers from 1 again (its partner's books then
  no longer reconcile: AMQ9526 until RESET CHANNEL). Only a sender's books with a batch in
  doubt are kept: they name messages the partner may have committed already.
* Saved status is read from the channel's books (sync.py), which every committed batch
  replaces in its own unit of work: a sender's record gives LSTSEQNO and LSTLUWID, and,
  when a batch is in doubt, CURLUWID, CURSEQNO and CURMSGS (IBM: those are "meaningful
  only if the channel instance is in doubt", else they repeat the last batch's); a
  receiver's record per partner queue manager gives one saved instance per RQMNAME, and a
  sender's RQMNAME is the partner it last committed a batch with.
  STATUS is STOPPED for a channel with a STOPPED record, else RUNNING, the status when the
  last batch was saved (unverified on a real queue manager).
"""
from __future__ import annotations

import fnmatch
import hashlib
import json
import logging
from typing import TYPE_CHECKING

from spark_mq.embedded.server.clusters import records as cluster_records
from spark_mq.embedded.server.core import channel_definitions as channels
from spark_mq.embedded.server.core import channel_status as statuses
from spark_mq.embedded.server.message_channels import sync
from spark_mq.embedded.server.verbs.local_connection import LocalConnection
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import default_md

if TYPE_CHECKING:
    from spark_mq.embedded.server.verbs.qmgr import QueueManager

log = logging.getLogger("spark_mq.embedded")

_OPEN = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_BROWSE | CMQC.MQOO_OUTPUT
_KEPT = (statuses.STOPPED, statuses.RETRYING)
_NO_LUWID = "0" * 16


def _state_key(name: str, chltype: str) -> bytes:
    return hashlib.sha256(f"STATE\0{chltype}\0{name}".encode()).digest()[:24]


def remember(qmgr: QueueManager, name: str, chltype: str, status: str) -> None:
    """Make `status` (STOPPED or RETRYING) of channel `name` outlive the queue manager."""
    if status not in _KEPT:
        raise ValueError(f"channel {name}: only {', '.join(_KEPT)} is kept across a restart, "
                         f"not {status}")
    _write(qmgr, name, chltype, status)


def forget(qmgr: QueueManager, name: str, chltype: str) -> None:
    """The channel has been started again: nothing of its old state is to come back."""
    _write(qmgr, name, chltype, None)


def erase(qmgr: QueueManager, name: str, chltype: str) -> None:
    """DELETE CHANNEL: the channel's kept state and its saved status (its books) go with its
    definition, so that a channel defined again under the name starts afresh (not STOPPED,
    sequence numbers from 1). A sender's books with a batch in doubt stay (sync.erase_books)."""
    local = LocalConnection(qmgr, "mqm", "runmqchl")
    try:
        hobj = local.open(sync.SYNC_QUEUE, _OPEN)
        local.get(hobj, CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT,
                  correl_id=_state_key(name, chltype))
        if not sync.erase_books(local, hobj, name, chltype in channels.SENDING):
            log.warning("channel %s is deleted with a batch in doubt: its books are kept, so "
                        "that a channel defined again under the name resynchronises with its "
                        "partner before it sends anything (or RESOLVE CHANNEL it)", name)
        local.commit()
    finally:
        local.close(clean=False)


def _write(qmgr: QueueManager, name: str, chltype: str, status: str | None) -> None:
    key = _state_key(name, chltype)
    local = LocalConnection(qmgr, "mqm", "runmqchl")
    try:
        hobj = local.open(sync.SYNC_QUEUE, _OPEN)
        had = local.get(hobj, CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT, correl_id=key)
        if status is None and had is None:
            return
        if status is not None:
            md = default_md(CorrelId=key, Persistence=CMQC.MQPER_PERSISTENT,
                            Format=CMQC.MQFMT_STRING, CodedCharSetId=1208)
            body = {"role": "STATE", "channel": name, "chltype": chltype, "status": status}
            local.put1(sync.SYNC_QUEUE, "", md, CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_NEW_MSG_ID,
                       None, json.dumps(body).encode())
        local.commit()
    finally:
        local.close(clean=False)


def _records(qmgr: QueueManager) -> list[dict]:
    """Every record on SYSTEM.CHANNEL.SYNCQ that parses as JSON (a browse: nothing taken)."""
    local = LocalConnection(qmgr, "mqm", "runmqchl")
    try:
        found = list(sync.browse_records(local, local.open(sync.SYNC_QUEUE, CMQC.MQOO_BROWSE)))
    finally:
        local.close(clean=False)
    return found


def kept(qmgr: QueueManager) -> list[tuple[str, str, str]]:
    """(channel, CHLTYPE, STOPPED|RETRYING) of each kept state whose channel is still
    defined with that type, or still auto-defined (a CLUSSDRA, from a member's CLUSRCVR
    this queue manager knows): a deleted channel's state is not resurrected."""
    defined = channels.table(qmgr).channels
    found = []
    for record in _records(qmgr):
        name, chltype, status = (record.get("channel"), record.get("chltype"),
                                 record.get("status"))
        if (record.get("role") == "STATE" and isinstance(name, str) and status in _KEPT
                and isinstance(chltype, str) and _still_there(qmgr, defined, name, chltype)):
            found.append((name, chltype, str(status)))
    return sorted(found)


def _still_there(qmgr: QueueManager, defined: dict, name: str, chltype: str) -> bool:
    if name in defined:
        return bool(defined[name].get("CHLTYPE") == chltype)
    return chltype == channels.CLUSSDR and cluster_records.auto_sender(qmgr, name) is not None


def saved(qmgr: QueueManager, pattern: str) -> list[tuple[str, dict[str, object]]]:
    """DISPLAY CHSTATUS(pattern) SAVED: (channel, its saved status in MQSC words), one per
    sender with books and one per receiver and partner queue manager."""
    records = _records(qmgr)
    stopped = {(r.get("channel"), r.get("chltype")) for r in records
               if r.get("role") == "STATE" and r.get("status") == statuses.STOPPED}
    defined = channels.table(qmgr).channels
    found = []
    for record in records:
        name = record.get("channel")
        role = record.get("role", "RCVR")
        if (not isinstance(name, str) or role not in (channels.SENDER, channels.RECEIVER)
                or not fnmatch.fnmatchcase(name, pattern or "*")):
            continue
        try:
            book = sync.parse_record(json.dumps(record).encode())
        except ValueError:
            continue
        attrs = defined.get(name, {})
        chltype = str(attrs.get("CHLTYPE", role))   # a SVR keeps a sender's books
        shown = _common(book, attrs, statuses.STOPPED if (name, chltype) in stopped
                        else statuses.RUNNING)
        shown["CHLTYPE"] = chltype
        if role == channels.RECEIVER:   # and a RQSTR a receiver's
            shown["RQMNAME"] = str(record.get("partner", ""))
        elif isinstance(book, sync.SenderRecord):
            shown["RQMNAME"] = book.partner
        found.append((name, shown))
    return sorted(found, key=lambda item: (item[0], str(item[1]["CHLTYPE"]),
                                           str(item[1]["RQMNAME"])))


def _common(book: sync.SenderRecord | sync.SyncRecord, attrs: dict,
            status: str) -> dict[str, object]:
    """IBM's common status fields of one saved instance."""
    last = book.batch or _NO_LUWID
    shown: dict[str, object] = {
        "SAVED": True, "STATUS": status, "CONNAME": str(attrs.get("CONNAME", "")),
        "RQMNAME": "", "LSTSEQNO": book.seq, "LSTLUWID": last, "CURSEQNO": book.seq,
        "CURLUWID": last, "CURMSGS": 0, "INDOUBT": "NO"}
    if isinstance(book, sync.SenderRecord):
        shown["XMITQ"] = str(attrs.get("XMITQ", ""))
        if book.indoubt is not None:
            shown.update(CURSEQNO=book.indoubt.last, CURLUWID=book.indoubt.batch,
                         CURMSGS=len(book.indoubt.messages), INDOUBT="YES")
    return shown
