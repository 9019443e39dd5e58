"""The reader's options (`ReadOptions`): each value through its parser in the spec, then the
rules that look at two options at once, each a named check here.

exactlyOnce in readMode driver needs no state queue: the message ids of each microbatch
travel inside Spark's own offset log (see spark_mq/reader/stream.py for the protocol).

queueManagers: `queue_managers` holds each queue manager's connection (the other connection
options shared) and `members()` one ReadOptions per queue manager, each what a read of that
one queue manager would have; the batch and stream readers read each member
(spark_mq/reader/queue_managers.py). The per-trigger limits are each member's.
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from spark_mq.mq.connecting import ConnectionOptions
from spark_mq.mq.exceptions import MQOptionError
from spark_mq.mq.markers import DEFAULT_CLAIM_TIMEOUT_MS
from spark_mq.options.connection_options import parse_connection, queue_managers
from spark_mq.options.spec import (
    DEFAULT_CCSID,
    DEFAULT_ENCODING,
    DEFAULT_READER_STATE_QUEUE,
    READ,
    SUBSCRIPTION_PREFIX,
    check_side,
    lower_keys,
    parse_side,
    path_as_queue,
)

_SOURCES = ("queue", "topic", "topicObject")


def requested_read_mode(options: Mapping[str, str]) -> str:
    """The readMode asked for, without checking anything: which stream reader to make. The
    reader checks every option itself at its first call (a wrong value fails there)."""
    value = str(lower_keys(options).get("readmode", "driver")).strip().lower()
    return "executors" if value == "executors" else "driver"


def subscription_name(topic: str | None, topic_object: str | None) -> str:
    """The default durable subscription name of a topic read: the same topic (string or
    object) always gives the same name, so a restarted query resumes its subscription."""
    key = f"{topic_object or ''}\0{topic or ''}".encode()
    return SUBSCRIPTION_PREFIX + hashlib.sha256(key).hexdigest()[:16].upper()


@dataclass(frozen=True)
class ReadOptions:
    connection: ConnectionOptions
    queue: str                             # topic reads: the subscription's managed queue
    topic: str | None = None
    topic_object: str | None = None
    subscription: str | None = None        # topic reads: the durable subscription's name
    selector: str | None = None
    delivery: str = "exactlyOnce"
    max_messages: int = 10000
    max_bytes: int = 64 << 20
    min_messages: int | None = None        # None: a batch as soon as one message is there
    max_trigger_delay_ms: int = 900_000
    wait_interval_ms: int = 500
    read_ahead: bool = True
    backout_threshold: int | None = None   # None: the queue's BOTHRESH
    backout_queue: str | None = None       # None: the queue's BOQNAME, else the DLQ
    num_partitions: int = 2
    prefetch: bool = True
    orphaned_work_timeout_ms: int = 300_000
    read_mode: str = "driver"
    state_queue: str = DEFAULT_READER_STATE_QUEUE
    claim_timeout_ms: int = DEFAULT_CLAIM_TIMEOUT_MS
    stop_file: str | None = None
    convert: bool = False
    ccsid: int = DEFAULT_CCSID
    encoding: int = DEFAULT_ENCODING
    include_context: bool = False
    require_text: bool = False
    typed_properties: bool = False   # set by the data source when the schema has property_types
    #: queueManagers: one connection per queue manager; () reads `connection` alone
    queue_managers: tuple[ConnectionOptions, ...] = ()

    @classmethod
    def parse(cls, options: Mapping[str, Any]) -> ReadOptions:
        opts = lower_keys(options)
        check_side(opts, READ)
        opts = path_as_queue(opts)
        connection = parse_connection(opts)
        _check_one_source(opts)
        _check_subscription_has_topic(opts)
        found = parse_side(opts, READ)
        _check_read_mode(found)
        _check_conversion(opts, found)
        _check_require_text(opts, found)
        _check_read_ahead(opts, found)
        _check_min_messages(opts, found)
        _check_queue_managers_read_a_queue(opts)
        members = tuple(replace(connection, queue_manager=name, conn_name=address)
                        for name, address in queue_managers(opts, connection.ccdt_url))
        topic, topic_object = found["topic"], found["topicObject"]
        subscription = found["subscription"]
        if (topic or topic_object) and subscription is None:
            subscription = subscription_name(topic, topic_object)
        return cls(
            connection=connection, queue=found["queue"] or "", topic=topic,
            topic_object=topic_object, subscription=subscription, selector=found["selector"],
            delivery=found["delivery"], max_messages=found["maxMessagesPerTrigger"],
            max_bytes=found["maxBytesPerTrigger"], min_messages=found["minMessagesPerTrigger"],
            max_trigger_delay_ms=found["maxTriggerDelay"], wait_interval_ms=found["waitIntervalMs"],
            read_ahead=found["readAhead"], backout_threshold=found["backoutThreshold"],
            backout_queue=found["backoutQueue"], num_partitions=found["numPartitions"],
            prefetch=found["prefetch"], orphaned_work_timeout_ms=found["orphanedWorkTimeoutMs"],
            read_mode=found["readMode"], state_queue=found["stateQueue"],
            claim_timeout_ms=found["claimTimeoutMs"], stop_file=found["stopFile"],
            convert=found["convert"], ccsid=found["ccsid"], encoding=found["encoding"],
            include_context=found["includeContext"], require_text=found["requireText"],
            queue_managers=members,
        )

    def members(self) -> list[ReadOptions]:
        """One ReadOptions per queue manager read: each of queueManagers, else this one."""
        if not self.queue_managers:
            return [self]
        return [replace(self, connection=connection, queue_managers=())
                for connection in self.queue_managers]

    @property
    def exactly_once(self) -> bool:
        return self.delivery == "exactlyOnce"

    @property
    def conversion(self) -> tuple[int, int] | None:
        """(CCSID, Encoding) MQGMO_CONVERT converts to, or None without `convert`."""
        return (self.ccsid, self.encoding) if self.convert else None

    @property
    def reads_topic(self) -> bool:
        return bool(self.topic or self.topic_object)

    @property
    def syncpoint(self) -> bool:
        return self.delivery != "atMostOnce"


def _check_one_source(opts: Mapping[str, Any]) -> None:
    """Exactly one of queue, topic, topicObject; a topic read's queue is "" until its
    subscription's managed queue is known (spark_mq.source)."""
    given = [name for name in _SOURCES if name.lower() in opts]
    if len(given) != 1:
        shown = ", ".join(f"{name}={opts[name.lower()]!r}" for name in given) or None
        raise MQOptionError(" / ".join(given) if given else "queue", shown,
                            "exactly one of the options queue (a local queue), topic (a topic "
                            "string) and topicObject (a topic object's name)")


def _check_queue_managers_read_a_queue(opts: Mapping[str, Any]) -> None:
    """A topic read's durable subscription and managed queue are per queue manager: one
    query over several is for a queue (a clustered one, or one defined on each)."""
    if "queuemanagers" in opts and "queue" not in opts:
        given = "topic" if "topic" in opts else "topicObject"
        raise MQOptionError("queueManagers", opts["queuemanagers"],
                            f"no value with option {given}: queueManagers reads a queue (option "
                            "queue) on each queue manager; a topic read takes connName and "
                            "queueManager")


def _check_subscription_has_topic(opts: Mapping[str, Any]) -> None:
    if "subscription" in opts and "queue" in opts:
        raise MQOptionError("subscription", opts["subscription"],
                            "no value: it names the durable subscription of a topic read "
                            "(option topic or topicObject)")


def _check_read_mode(found: Mapping[str, Any]) -> None:
    if found["readMode"] == "executors" and found["delivery"] != "exactlyOnce":
        raise MQOptionError("delivery", found["delivery"], "exactlyOnce with readMode executors "
                            "(the other deliveries: readMode driver)")


def _check_conversion(opts: Mapping[str, Any], found: Mapping[str, Any]) -> None:
    """ccsid and encoding say what MQGMO_CONVERT converts to: without convert they would be
    ignored without a word."""
    for given in ("ccsid", "encoding"):
        if given in opts and not found["convert"]:
            raise MQOptionError(given, opts[given], "no value without convert=true: it is the "
                                "code page MQGMO_CONVERT converts to (the `text` column decodes "
                                "each message by its own CCSID without it)")


def _check_require_text(opts: Mapping[str, Any], found: Mapping[str, Any]) -> None:
    if found["requireText"] and found["delivery"] == "atMostOnce":
        raise MQOptionError("requireText", opts["requiretext"],
                            "false with delivery atMostOnce (a message that is not text is "
                            "moved to the backout queue in the batch's unit of work, which "
                            "atMostOnce does not have), or delivery exactlyOnce/atLeastOnce")


def _check_read_ahead(opts: Mapping[str, Any], found: Mapping[str, Any]) -> None:
    if "readahead" in opts and found["readAhead"] and found["delivery"] != "atMostOnce":
        raise MQOptionError("readAhead", opts["readahead"],
                            "false, or true only with delivery atMostOnce (read-ahead works "
                            "only outside syncpoint)")


def _check_min_messages(opts: Mapping[str, Any], found: Mapping[str, Any]) -> None:
    minimum, maximum = found["minMessagesPerTrigger"], found["maxMessagesPerTrigger"]
    if minimum is None:
        return
    given = opts["minmessagespertrigger"]
    if minimum > maximum:
        raise MQOptionError("minMessagesPerTrigger", given, f"an integer from 1 to "
                            f"maxMessagesPerTrigger ({maximum}): a batch never holds more")
    if found["readMode"] != "driver":
        raise MQOptionError("minMessagesPerTrigger", given, "no value with readMode "
                            "executors (each task gets its share as it comes): readMode "
                            "driver waits for the minimum")
