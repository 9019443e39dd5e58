"""Configuration events (IBM docs "Configuration events", "Create object", "Change object",
"Delete object", "Refresh object"): with ALTER QMGR CONFIGEV(ENABLED), PCF messages on
SYSTEM.ADMIN.CONFIG.EVENT, MQCFH Command MQCMD_CONFIG_EVENT, for every DEFINE, ALTER and
DELETE that succeeds, by MQSC or PCF (the command server turns PCF changes into the same
MQSC commands: admin/mqsc_apply.py is the one place they are applied, and calls `watch`
before and `applied` after each). Runs in the queue-manager process, under its lock.

* Create object (2367): a DEFINE of an object that did not exist; the object after.
* Change object (2368): an ALTER, or a DEFINE REPLACE of an existing object: two messages,
  the object before (MsgSeqNumber 1, MQCFC_NOT_LAST) and after (2, MQCFC_LAST), with one
  CorrelId, as IBM's.
* Delete object (2369): a DELETE; the object as it was.
* Change object for an MQSET of a queue (not a temporary dynamic one), EventOrigin
  MQEVO_MQSET: verbs/inquire.py calls `watch_mqset` and `mqset_applied` (the queue is
  described as admin/config_objects.py told `queues_described_by`).
* Refresh object (2370): REFRESH QMGR TYPE(CONFIGEV) or PCF MQCMD_REFRESH_Q_MGR with
  MQRT_CONFIGURATION, one per object it selects; switching CONFIGEV from DISABLED to
  ENABLED refreshes every object, as IBM MQ does (admin/config_objects.py).

Each message: the origin (origin.py: EventUserId, EventOrigin, EventQMgr, and the command
message's context for a PCF or MQSC command that came as a message), ObjectType, the
object's name parameter, Disposition MQQSGD_Q_MGR, then the object's attributes as an
inquiry returns them. The attributes are described by the administration layer, which
knows their PCF names (`Described`, admin/config_objects.py): every attribute of queues,
the queue manager, channels, namelists, processes, topics and authentication
information. Which changes are events is IBM's list (admin/config_objects.py): not those
of the configuration event queue itself, nor of temporary dynamic queues or
subscriptions.

Security records (admin/security/security_events.py describes them):

* SET CHLAUTH (MQSC or PCF Set Channel Authentication Record): per record it made,
  changed or removed, Create, Change or Delete object, ObjectType MQOT_CHLAUTH, named by
  ChannelProfile, with IBM's "Channel authentication attributes" for its type.
* SET AUTHREC (MQSC or PCF Set Authority Record): per record, Change Authority Record
  (MQRC_CONFIG_CHANGE_OBJECT, before and after, even when nothing changed; a record that
  did not exist is described with an empty AuthorizationList); DELETE AUTHREC: Delete
  Authority Record per record deleted. ObjectType MQOT_AUTH_REC, ProfileName, no
  Disposition, then AuthorityRecordType, AuthorizationList, EntityName, EntityType. IBM
  says (and so it is here) that deleting an object with AUTHREC(YES) is no authority event.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from spark_mq.embedded.server.core.pcf_structures import cfin
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.embedded.server.events import origin as origins
from spark_mq.embedded.server.events.event_messages import CONFIG_QUEUE, put_event
from spark_mq.mqi.constants import CMQC, CMQCFC

#: an object's ObjectType and its parameters (its name's first), None when it does not exist
Described = tuple[int, list[bytes]] | None
Describe = Callable[[], Described]

_CHANGES = frozenset({"DEFINE", "ALTER", "DELETE"})
_QUEUE_DESCRIBER: list[Callable[[QueueManagerState, str], Described]] = []


@dataclass
class Watched:
    """A change about to be applied: what the object was, and how to describe it again."""
    verb: str
    describe: Describe
    before: Described


def watch(qm: QueueManagerState, verb: str, describe: Describe) -> Watched | None:
    """Before a command: None unless CONFIGEV is ENABLED and the command changes objects."""
    if qm.attrs.get("CONFIGEV") != "ENABLED" or verb not in _CHANGES:
        return None
    return Watched(verb, describe, describe())


def applied(qm: QueueManagerState, watched: Watched) -> None:
    """After the command succeeded: its event."""
    if watched.verb == "DELETE":
        if watched.before is not None:
            _put(qm, CMQC.MQRC_CONFIG_DELETE_OBJECT, watched.before)
        return
    after = watched.describe()
    if after is None:
        return
    if watched.before is None:
        _put(qm, CMQC.MQRC_CONFIG_CREATE_OBJECT, after)
        return
    _change(qm, watched.before, after)


def queues_described_by(describe: Callable[[QueueManagerState, str], Described]) -> None:
    """How a queue is described (admin/config_objects.py says, being above the verbs)."""
    _QUEUE_DESCRIBER[:] = [describe]


def watch_mqset(qm: QueueManagerState, queue_name: str) -> Watched | None:
    """Before an MQSET of a queue (not a temporary dynamic one: the caller knows)."""
    if qm.attrs.get("CONFIGEV") != "ENABLED" or not _QUEUE_DESCRIBER:
        return None
    describe = _QUEUE_DESCRIBER[0]
    return watch(qm, "ALTER", lambda: describe(qm, queue_name))


def mqset_applied(qm: QueueManagerState, user: str, watched: Watched) -> None:
    """After the MQSET by `user`: its Change object event, EventOrigin MQEVO_MQSET."""
    with origins.commands_from(origins.Origin(user, CMQCFC.MQEVO_MQSET)):
        applied(qm, watched)


def refresh(qm: QueueManagerState, objects: list[Described]) -> int:
    """REFRESH QMGR TYPE(CONFIGEV): a Refresh object event for each of `objects`; how many."""
    count = 0
    for described in objects:
        if described is not None:
            _put(qm, CMQC.MQRC_CONFIG_REFRESH_OBJECT, described)
            count += 1
    return count


def enabled(qm: QueueManagerState) -> bool:
    return qm.attrs.get("CONFIGEV") == "ENABLED"


def records_changed(qm: QueueManagerState, changes: list[tuple[Described, Described]]) -> None:
    """A SET CHLAUTH changed channel authentication records: for each (before, after) a
    Create object (none before), Delete object (none after) or Change object event."""
    for before, after in changes:
        if before is None and after is not None:
            _put(qm, CMQC.MQRC_CONFIG_CREATE_OBJECT, after)
        elif after is None and before is not None:
            _put(qm, CMQC.MQRC_CONFIG_DELETE_OBJECT, before)
        elif before is not None and after is not None:
            _change(qm, before, after)


def authority_set(qm: QueueManagerState, before: tuple[int, list[bytes]],
                  after: tuple[int, list[bytes]]) -> None:
    """A Set Authority Record (SET AUTHREC, setmqaut, PCF) of one record: Change Authority
    Record, before and after, even when nothing changed (IBM's "Authority configuration
    event generation"); IBM has no Create Authority Record."""
    _change(qm, before, after, disposition=False)


def authority_deleted(qm: QueueManagerState, record: tuple[int, list[bytes]]) -> None:
    """A Delete Authority Record deleted `record`: Delete Authority Record."""
    _put(qm, CMQC.MQRC_CONFIG_DELETE_OBJECT, record, disposition=False)


def _change(qm: QueueManagerState, before: tuple[int, list[bytes]],
            after: tuple[int, list[bytes]], disposition: bool = True) -> None:
    correl_id = qm.new_msgid()
    _put(qm, CMQC.MQRC_CONFIG_CHANGE_OBJECT, before, 1, False, correl_id, disposition)
    _put(qm, CMQC.MQRC_CONFIG_CHANGE_OBJECT, after, 2, True, correl_id, disposition)


def _put(qm: QueueManagerState, reason: int, described: tuple[int, list[bytes]],
         sequence: int = 1, last: bool = True, correl_id: bytes = b"\0" * 24,
         disposition: bool = True) -> None:
    object_type, attributes = described
    name, rest = attributes[0], attributes[1:]
    # an authority record's identity is its profile name and type: IBM gives no Disposition
    qsg = [cfin(CMQC.MQIA_QSG_DISP, CMQC.MQQSGD_Q_MGR)] if disposition else []
    parameters = [*origins.parameters(qm, origins.current()),
                  cfin(CMQCFC.MQIACF_OBJECT_TYPE, object_type), name, *qsg, *rest]
    put_event(qm, CONFIG_QUEUE, CMQCFC.MQCMD_CONFIG_EVENT, reason, parameters, sequence, last,
              correl_id)
