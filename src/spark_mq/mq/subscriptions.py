"""Durable subscriptions with managed queues: how a topic becomes a queue the reader reads.

A topic read owns one durable subscription (MQSO_DURABLE | MQSO_MANAGED). At query start the
driver makes it, or resumes it when it exists (MQSO_CREATE | MQSO_RESUME), learns the name of
its managed queue, and closes the subscription handle with MQCO_KEEP_SUB: from then on the
reader reads that queue by name like any other queue, and publications made while the query
is down wait there. Only `remove_subscription` (spark-mq-qmgr unsubscribe) ends it.
"""
from __future__ import annotations

from typing import Any

from spark_mq.mq.connecting import ConnectionOptions, connected, load_ibmmq
from spark_mq.mq.exceptions import MQOptionError, describe
from spark_mq.mq.refusals import open_refused
from spark_mq.mqi.constants import CMQC

_RESOLVED_ROOM = 10240   # MQ's longest topic string: the buffer for ResObjectString


def _descriptor(ibmmq: Any, options: int, name: str, topic: str | None = None,
                topic_object: str | None = None) -> Any:
    sd = ibmmq.SD(Options=options)
    sd.set_vs("SubName", name)
    if topic:
        sd.set_vs("ObjectString", topic)
    if topic_object:
        sd.ObjectName = topic_object.encode()
    # the queue manager writes the subscription's full topic string here
    sd.set_vs("ResObjectString", b"\0" * _RESOLVED_ROOM, vs_buffer_size=_RESOLVED_ROOM)
    return sd


def _resolved(descriptor: Any) -> str:
    """The ResObjectString an MQSD or MQOD came back with."""
    raw = descriptor.get_vs("ResObjectString") or b""
    return raw[:descriptor.ResObjectStringVSLength].decode("utf-8", "replace")


def _resolve_topic(ibmmq: Any, qmgr: Any, topic: str | None, topic_object: str | None) -> str:
    """The full topic string a topic object (and string) stand for, as MQOPEN resolves it."""
    od = ibmmq.OD(ObjectType=CMQC.MQOT_TOPIC, Version=CMQC.MQOD_VERSION_4,
                  ObjectName=(topic_object or "").encode())
    if topic:
        od.set_vs("ObjectString", topic)
    od.set_vs("ResObjectString", b"\0" * _RESOLVED_ROOM, vs_buffer_size=_RESOLVED_ROOM)
    try:
        handle = ibmmq.Topic(qmgr, topic_desc=od)
        handle.open(topic_desc=od, open_opts=CMQC.MQOO_OUTPUT | CMQC.MQOO_FAIL_IF_QUIESCING)
    except ibmmq.MQMIError as exc:
        raise describe(exc, f"opening topic object {topic_object!r}") from exc
    handle.close()
    return _resolved(od)


def ensure_durable_subscription(connection: ConnectionOptions, name: str, topic: str | None,
                                topic_object: str | None) -> str:
    """Create or resume durable subscription `name` on the topic; the name of its managed queue.

    A subscription of that name on another topic fails with an error naming the options."""
    ibmmq = load_ibmmq(connection.transport)
    with connected(connection, f"connecting to queue manager {connection.queue_manager} at "
                               f"{connection.conn_name} to subscribe") as qmgr:
        sd = _descriptor(ibmmq, CMQC.MQSO_CREATE | CMQC.MQSO_RESUME | CMQC.MQSO_DURABLE
                         | CMQC.MQSO_MANAGED | CMQC.MQSO_FAIL_IF_QUIESCING, name, topic,
                         topic_object)
        sub = ibmmq.Subscription(qmgr)
        try:
            sub.sub(sub_desc=sd)
        except ibmmq.MQMIError as exc:
            raise open_refused(exc, qmgr, topic or topic_object or "", 0,
                               f"subscribing (durable subscription {name!r})", "topic") from exc
        try:
            managed = sub.get_sub_queue().inquire(CMQC.MQCA_Q_NAME)
        finally:
            sub.close(sub_close_options=CMQC.MQCO_KEEP_SUB, close_sub_queue=True)
        wanted = topic if not topic_object else _resolve_topic(ibmmq, qmgr, topic, topic_object)
        existing = _resolved(sd)
        if existing and wanted and existing != wanted:
            option = "topicObject" if topic_object else "topic"
            raise MQOptionError(option, topic_object or topic,
                                f"the topic of durable subscription {name!r}, {existing!r}; or "
                                f"another 'subscription' name (that subscription is kept: "
                                f"spark-mq-qmgr unsubscribe {name!r} removes it)")
        return str(managed.decode() if isinstance(managed, bytes) else managed).strip()


def remove_subscription(ibmmq: Any, qmgr: Any, name: str) -> None:
    """Resume durable subscription `name` and close it with MQCO_REMOVE_SUB (its managed
    queue and what is on it go with it). MQRC_NO_SUBSCRIPTION (2428) when there is none."""
    sd = ibmmq.SD(Options=CMQC.MQSO_RESUME | CMQC.MQSO_FAIL_IF_QUIESCING)
    sd.set_vs("SubName", name)
    sub = ibmmq.Subscription(qmgr)
    try:
        sub.sub(sub_desc=sd)
    except ibmmq.MQMIError as exc:
        raise describe(exc, f"resuming subscription {name!r}") from exc
    try:
        sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
    except ibmmq.MQMIError as exc:
        raise describe(exc, f"removing subscription {name!r}") from exc
