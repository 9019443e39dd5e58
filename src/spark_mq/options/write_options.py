"""The writer's options (`WriteOptions`): each value through its parser in the spec, then the
rules that look at two options at once, each a named check here. The rules that need the
DataFrame's columns too (a target at all, `retain` with a topic) are the writer's
(spark_mq/writer.py); commitEvery against MAXUMSGS needs the queue manager.

queueManagers: `queue_managers` holds each queue manager's connection (the other connection
options shared, parsed as the reader's) and `member(partition)` the WriteOptions of the one a
partition writes to: entry `partition % len(queue_managers)`, so every attempt of a
partition (a task retry, a batch Spark replays) writes to the same queue manager and finds
its exactly-once marker there."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from spark_mq.mq.connecting import ConnectionOptions
from spark_mq.mq.exceptions import MQOptionError
from spark_mq.mq.markers import DEFAULT_CLAIM_TIMEOUT_MS, LOCK_MODEL_QUEUE
from spark_mq.options.connection_options import parse_connection, queue_managers
from spark_mq.options.spec import (
    DEFAULT_COMMIT_EVERY,
    DEFAULT_LARGE_MESSAGE_THRESHOLD,
    DEFAULT_STATE_QUEUE,
    WRITE,
    check_side,
    lower_keys,
    parse_side,
    path_as_queue,
)


@dataclass(frozen=True)
class WriteOptions:
    connection: ConnectionOptions
    queue: str | None
    topic: str | None = None
    retain: bool = False
    persistence: str = "persistent"
    async_put: bool = True
    commit_every: int = DEFAULT_COMMIT_EVERY
    commit_every_given: bool = False
    delivery: str = "exactlyOnce"
    segmentation: bool = True
    large_message_threshold: int = DEFAULT_LARGE_MESSAGE_THRESHOLD
    state_queue: str = DEFAULT_STATE_QUEUE
    writer_id: str | None = None
    claim_timeout_ms: int = DEFAULT_CLAIM_TIMEOUT_MS
    model_queue: str = LOCK_MODEL_QUEUE
    target_queue_manager: str | None = None
    context: str = "auto"
    # None: what the message plan decides per row (spark_mq/mq/outgoing.py): a text or JMS
    # body in DEFAULT_CCSID, a binary one unlabelled; native Encoding (JMS: Java's);
    # Format MQSTR for text, blank for binary
    ccsid: int | None = None
    encoding: int | None = None
    format: str | None = None
    jms_message_type: str = "none"
    null_payload: str = "error"
    report: int = 0     # MQMD Report (MQRO_ bits) of every message a `report` column leaves
    bind: str = "asQueueDef"
    #: queueManagers: one connection per queue manager; () writes to `connection` alone
    queue_managers: tuple[ConnectionOptions, ...] = ()

    @property
    def exactly_once(self) -> bool:
        return self.delivery == "exactlyOnce"

    @classmethod
    def parse(cls, options: Mapping[str, Any], streaming: bool) -> WriteOptions:
        """Streams default to exactlyOnce; batch writes to atLeastOnce (a batch job has no
        batch id to replay, only task retries, which exactlyOnce also covers when asked)."""
        opts = lower_keys(options)
        check_side(opts, WRITE)
        opts = path_as_queue(opts)
        connection = parse_connection(opts)
        found = parse_side(opts, WRITE)
        _check_topic_has_no_queue_manager(opts)
        _check_queue_or_topic(opts)
        _check_topic_has_no_bind(opts)
        _check_queue_managers_write_a_queue(opts)
        members = tuple(replace(connection, queue_manager=name, conn_name=address)
                        for name, address in queue_managers(opts, connection.ccdt_url))
        return cls(
            connection=connection, queue=found["queue"], topic=found["topic"],
            retain=found["retain"], persistence=found["persistence"],
            async_put=found["asyncPut"], commit_every=found["commitEvery"],
            commit_every_given="commitevery" in opts,
            delivery=found["delivery"] or ("exactlyOnce" if streaming else "atLeastOnce"),
            segmentation=found["segmentation"],
            large_message_threshold=found["largeMessageThreshold"],
            state_queue=found["stateQueue"], writer_id=found["writerId"],
            claim_timeout_ms=found["claimTimeoutMs"], model_queue=found["modelQueue"],
            target_queue_manager=found["targetQueueManager"], context=found["context"],
            ccsid=found["ccsid"], encoding=found["encoding"], format=found["format"],
            jms_message_type=found["jmsMessageType"], null_payload=found["nullPayload"],
            report=found["report"], bind=found["bind"], queue_managers=members,
        )

    def members(self) -> list[WriteOptions]:
        """One WriteOptions per queue manager written to: each of queueManagers, else this."""
        if not self.queue_managers:
            return [self]
        return [replace(self, connection=connection, queue_managers=())
                for connection in self.queue_managers]

    def member(self, partition: int) -> WriteOptions:
        """The options of the queue manager Spark partition `partition` writes to."""
        members = self.members()
        return members[partition % len(members)]

    def check_commit_every(self, max_uncommitted: int) -> WriteOptions:
        """commitEvery against the queue manager's MAXUMSGS; the two extra messages in each
        unit of work are the exactly-once marker taken and put back."""
        room = max(1, max_uncommitted - 2)
        if self.commit_every <= room:
            return self
        if self.commit_every_given:
            raise MQOptionError("commitEvery", self.commit_every,
                                f"an integer from 1 to {room} (below the queue manager's "
                                f"MAXUMSGS {max_uncommitted})")
        return replace(self, commit_every=room)


def _check_topic_has_no_queue_manager(opts: Mapping[str, Any]) -> None:
    if "targetqueuemanager" in opts and "topic" in opts:
        raise MQOptionError("targetQueueManager", opts["targetqueuemanager"],
                            "no targetQueueManager with the 'topic' option (publications "
                            "go to the connected queue manager's topics); a queue instead")


def _check_queue_or_topic(opts: Mapping[str, Any]) -> None:
    if "queue" in opts and "topic" in opts:
        raise MQOptionError("queue / topic", f"queue={opts['queue']!r}, topic={opts['topic']!r}",
                            "one of the options queue (a queue) and topic (a topic string "
                            "to publish to), or neither and a 'queue' or 'topic' column")


def _check_topic_has_no_bind(opts: Mapping[str, Any]) -> None:
    if "bind" in opts and "topic" in opts:
        raise MQOptionError("bind", opts["bind"],
                            "no bind with the 'topic' option (bind chooses among the "
                            "instances of a cluster queue; publications go to subscribers); "
                            "a queue instead")


def _check_queue_managers_write_a_queue(opts: Mapping[str, Any]) -> None:
    """Publications spread over several queue managers would each reach only the
    subscribers of one of them: queueManagers is for a queue on each (or a cluster queue)."""
    if "queuemanagers" in opts and "topic" in opts:
        raise MQOptionError("queueManagers", opts["queuemanagers"],
                            "no value with option topic: queueManagers writes a queue (option "
                            "queue, or a 'queue' column) on each queue manager; a topic write "
                            "takes connName and queueManager")
