"""The system queues crtmqm makes, and the four on which the queue manager keeps its records.

Runs in the queue-manager process. `ensure` defines the system queues a queue manager has
from crtmqm on (at every start, so a data directory from an older version gets the ones it
lacks, as `strmqm -c` would give them). Their descriptions follow IBM MQ's, which begin
"IBM MQ" - monitoring tools and IBM's own tests select system queues by that - except the
default queues', which new definitions copy and so stay blank.

IBM MQ keeps authority records, CHLAUTH rules, durable subscriptions, retained
publications and cluster records as messages on system queues that it holds open for exclusive input: their
depths grow and shrink with the records (monitoring tools watch them; IBM's PCF tests look
for a queue with messages on a fresh queue manager), MQOPEN for input answers
MQRC_OBJECT_IN_USE and CLEAR/DELETE are refused. The embedded queue manager keeps these
records in its store, so `hold` mirrors each kind onto its queue: one message per record,
rebuilt at start and replaced or removed with every save and delete the store sees. The
bodies are JSON (MQ's are its own binary), to read, not to write back.
"""
from __future__ import annotations

import hashlib
import json
import time
from typing import Any

from spark_mq.embedded.server.core.pubsub.storage import RETAINED, SUB
from spark_mq.embedded.server.core.queue_objects import (
    LocalQueue,
    Message,
    ModelQueue,
    QueueDefinition,
    RemoteQueue,
)
from spark_mq.embedded.server.core.state import QueueManagerState, blank
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import default_md

_LOCAL, _MODEL, _REMOTE = "QLOCAL", "QMODEL", "QREMOTE"
_CLASSES: dict[str, type[QueueDefinition]] = {
    _LOCAL: LocalQueue, _MODEL: ModelQueue, _REMOTE: RemoteQueue}
_RECORDS = {"MAXDEPTH": 999_999_999, "SHARE": "SHARE"}

#: name -> (queue type, attributes) of crtmqm's system queues on Multiplatforms, as far as
#: a queue manager without z/OS's queue sharing groups has them.
SYSTEM_QUEUES: dict[str, tuple[str, dict[str, Any]]] = {
    "SYSTEM.DEFAULT.LOCAL.QUEUE": (_LOCAL, {}),
    # the model IBM's PCFExecute and JMS temporary queues open
    "SYSTEM.DEFAULT.MODEL.QUEUE": (_MODEL, {"DEFTYPE": "TEMPDYN"}),
    "SYSTEM.DEFAULT.REMOTE.QUEUE": (_REMOTE, {}),
    "SYSTEM.DEAD.LETTER.QUEUE": (_LOCAL, {"DESCR": "IBM MQ Default Dead Letter Queue"}),
    "SYSTEM.ADMIN.COMMAND.QUEUE": (_LOCAL, {"DESCR": "IBM MQ Administration Command Queue"}),
    "SYSTEM.MQSC.REPLY.QUEUE": (_MODEL, {"DEFTYPE": "TEMPDYN",
                                         "DESCR": "IBM MQ MQSC Reply Queue"}),
    "SYSTEM.ADMIN.ACCOUNTING.QUEUE": (_LOCAL, {"DESCR": "IBM MQ Accounting Queue"}),
    "SYSTEM.ADMIN.ACTIVITY.QUEUE": (_LOCAL, {"DESCR": "IBM MQ Activity Queue"}),
    "SYSTEM.ADMIN.CHANNEL.EVENT": (_LOCAL, {"DESCR": "IBM MQ Channel Event Queue"}),
    "SYSTEM.ADMIN.COMMAND.EVENT": (_LOCAL, {"DESCR": "IBM MQ Command Event Queue"}),
    "SYSTEM.ADMIN.CONFIG.EVENT": (_LOCAL, {"DESCR": "IBM MQ Configuration Event Queue"}),
    "SYSTEM.ADMIN.LOGGER.EVENT": (_LOCAL, {"DESCR": "IBM MQ Logger Event Queue"}),
    "SYSTEM.ADMIN.PERFM.EVENT": (_LOCAL, {"DESCR": "IBM MQ Performance Event Queue"}),
    "SYSTEM.ADMIN.PUBSUB.EVENT": (_LOCAL, {"DESCR": "IBM MQ Publish/Subscribe Event Queue"}),
    "SYSTEM.ADMIN.QMGR.EVENT": (_LOCAL, {"DESCR": "IBM MQ Queue Manager Event Queue"}),
    "SYSTEM.ADMIN.STATISTICS.QUEUE": (_LOCAL, {"DESCR": "IBM MQ Statistics Queue"}),
    "SYSTEM.ADMIN.TRACE.ACTIVITY.QUEUE": (_LOCAL, {"DESCR": "IBM MQ Trace Activity Queue"}),
    "SYSTEM.ADMIN.TRACE.ROUTE.QUEUE": (_LOCAL, {"DESCR": "IBM MQ Trace Route Queue"}),
    "SYSTEM.AUTH.DATA.QUEUE": (_LOCAL, {"DESCR": "IBM MQ Authority Data Queue", **_RECORDS}),
    "SYSTEM.CHLAUTH.DATA.QUEUE": (_LOCAL, {"DESCR": "IBM MQ Channel Authentication Data Queue",
                                           **_RECORDS}),
    "SYSTEM.DURABLE.SUBSCRIBER.QUEUE": (_LOCAL, {"DESCR": "IBM MQ Durable Subscriber Queue",
                                                 **_RECORDS}),
    "SYSTEM.RETAINED.PUB.QUEUE": (_LOCAL, {"DESCR": "IBM MQ Retained Publications Queue",
                                           **_RECORDS}),
    "SYSTEM.DEFAULT.INITIATION.QUEUE": (_LOCAL, {"DESCR": "IBM MQ Default Initiation Queue"}),
    "SYSTEM.PENDING.DATA.QUEUE": (_LOCAL, {"DESCR": "IBM MQ Deferred Message Queue"}),
    # message channels (message_channels/): receivers' sync records, channel triggering
    "SYSTEM.CHANNEL.SYNCQ": (_LOCAL, {"DESCR": "IBM MQ Channel Sync Queue", "DEFPSIST": "YES",
                                      **_RECORDS}),
    "SYSTEM.CHANNEL.INITQ": (_LOCAL, {"DESCR": "IBM MQ Channel Initiation Queue"}),
    # clusters (server/clusters/): the repository manager's requests and updates, its
    # records, the transmission queue of every cluster-sender (DEFCLXQ(SCTQ)) and the model
    # of one per cluster-sender (DEFCLXQ(CHANNEL)); none may be clustered (MQRCCF 3090)
    "SYSTEM.CLUSTER.COMMAND.QUEUE": (_LOCAL, {"DESCR": "IBM MQ Cluster Command Queue"}),
    "SYSTEM.CLUSTER.REPOSITORY.QUEUE": (_LOCAL, {"DESCR": "IBM MQ Cluster Repository Queue",
                                                 "DEFPSIST": "YES", **_RECORDS}),
    "SYSTEM.CLUSTER.TRANSMIT.QUEUE": (_LOCAL, {"DESCR": "IBM MQ Cluster Transmission Queue",
                                               "USAGE": "XMITQ", "DEFPSIST": "YES",
                                               "MAXDEPTH": 999_999_999}),
    "SYSTEM.CLUSTER.TRANSMIT.MODEL.QUEUE": (_MODEL, {
        "DESCR": "IBM MQ Cluster Transmission Model Queue", "USAGE": "XMITQ",
        "DEFTYPE": "PERMDYN", "DEFPSIST": "YES", "MAXDEPTH": 999_999_999}),
    "SYSTEM.CLUSTER.HISTORY.QUEUE": (_LOCAL, {"DESCR": "IBM MQ Cluster History Queue"}),
}

#: store kind -> the queue IBM MQ keeps that kind of record on
RECORD_QUEUES: dict[str, str] = {
    "AUTHREC": "SYSTEM.AUTH.DATA.QUEUE",
    "CHLAUTH": "SYSTEM.CHLAUTH.DATA.QUEUE",
    SUB: "SYSTEM.DURABLE.SUBSCRIBER.QUEUE",
    RETAINED: "SYSTEM.RETAINED.PUB.QUEUE",
    # what the repository manager learned from the other members (clusters/records.py)
    "CLUSQMGR": "SYSTEM.CLUSTER.REPOSITORY.QUEUE",
    "CLUSQ": "SYSTEM.CLUSTER.REPOSITORY.QUEUE",
}

_RECORD_MD = {"CodedCharSetId": 1208, "Format": CMQC.MQFMT_STRING, "Priority": 0,
              "Persistence": CMQC.MQPER_NOT_PERSISTENT, "CorrelId": b"\0" * 24,
              "ReplyToQ": blank("", 48), "UserIdentifier": blank("mqm", 12),
              "AccountingToken": b"\0" * 32, "ApplIdentityData": blank("", 32),
              "PutApplType": CMQC.MQAT_QMGR, "ApplOriginData": blank("", 4), "GroupId": b"\0" * 24}


def ensure(qm: QueueManagerState) -> None:
    """Define the system queues the queue manager lacks."""
    for name, (kind, attrs) in SYSTEM_QUEUES.items():
        if name in qm.queues:
            continue
        queue = _CLASSES[kind](name, attrs)
        if isinstance(queue, LocalQueue):
            qm.back(queue)
        qm.queues[name] = queue
        qm.store.save_object(kind, name, dict(queue.attrs))


def hold(qm: QueueManagerState) -> None:
    """Open the record queues for exclusive input, fill them from the store and keep them
    in step with it (after `ensure` and recovery)."""
    for name in RECORD_QUEUES.values():
        queue = qm.queues.get(name)
        if isinstance(queue, LocalQueue):
            queue.input_exclusive += 1
    for kind, name, attrs in list(qm.store.objects()):
        if kind in RECORD_QUEUES:
            _record_changed(qm, kind, name, json.dumps(attrs))
    qm.store.watch(lambda kind, name, attrs: _record_changed(qm, kind, name, attrs))


def _record_changed(qm: QueueManagerState, kind: str, name: str, attrs: str | None) -> None:
    """Replace (or with attrs None remove) the message of one record on its queue; `attrs`
    is the record's JSON as the store keeps it, so it is not serialized twice."""
    queue = qm.queues.get(RECORD_QUEUES.get(kind, ""))
    if not isinstance(queue, LocalQueue):
        return
    msgid = hashlib.sha256(f"{kind}\0{name}".encode()).digest()[:24]
    for key in list(queue.by_msgid.get(msgid, ())):
        queue.remove(queue.msgs[key])
    if attrs is None:
        return
    now = time.gmtime()
    md = default_md(**_RECORD_MD, MsgId=msgid, ReplyToQMgr=blank(qm.name, 48),
                    PutApplName=blank(qm.name, 28), PutDate=time.strftime("%Y%m%d", now).encode(),
                    PutTime=time.strftime("%H%M%S00", now).encode())
    body = f'{{"kind": {json.dumps(kind)}, "name": {json.dumps(name)}, "attributes": {attrs}}}'
    queue.insert(Message(next(qm.seq), md, body.encode(), None, None, queue))
