"""The reader's options, parsed once from Spark's (case-insensitive) options and validated.

    queue                  (required) the queue to read
    selector               an MQ message selector (SQL92 subset), e.g. "colour = 'red'"
    delivery               exactlyOnce (default) | atLeastOnce | atMostOnce
    maxMessagesPerTrigger  messages per microbatch (default 10000); also capped below the
                           queue manager's MAXUMSGS because a batch is one unit of work
    maxBytesPerTrigger     payload bytes per microbatch (default 64 MiB); a batch always
                           takes at least one message, so one message may pass the limit
    waitIntervalMs         how long a trigger waits for the first message of a batch when
                           the queue is empty (default 500)
    readAhead              atMostOnce only: MQOO_READ_AHEAD on the queue (default true)
    backoutThreshold       BackoutCount at which a message is poison (default: the
                           queue's BOTHRESH; 0 = never)
    backoutQueue           where poison messages go (default: the queue's BOQNAME, else the
                           queue manager's dead-letter queue, with an MQDLH)
    numPartitions          Spark partitions a microbatch is split into (default 2)
    prefetch               get the next microbatch (on a second connection, in its own
                           unit of work) while Spark runs the current one (default true)

exactlyOnce needs no state queue: the message ids of each microbatch travel inside Spark's
own offset log (see spark_mq/reader.py for the protocol).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from spark_mq.connection_options import (
    MQ_NAME_RULE,
    ConnectionOptions,
    parse_bool,
    parse_choice,
    parse_int,
    parse_name,
)
from spark_mq.errors import MQOptionError

DELIVERY_MODES = ("exactlyOnce", "atLeastOnce", "atMostOnce")
_MAX_INT = 2**31 - 1
_MAX_LONG = 2**63 - 1


@dataclass(frozen=True)
class ReadOptions:
    connection: ConnectionOptions
    queue: str
    selector: str | None = None
    delivery: str = "exactlyOnce"
    max_messages: int = 10000
    max_bytes: int = 64 << 20
    wait_interval_ms: int = 500
    read_ahead: bool = True
    backout_threshold: int | None = None   # None: the queue's BOTHRESH
    backout_queue: str | None = None       # None: the queue's BOQNAME, else the DLQ
    num_partitions: int = 2
    prefetch: bool = True

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> ReadOptions:
        opts = {k.lower(): v for k, v in options.items()}
        connection = ConnectionOptions.parse(opts)
        queue = parse_name(opts, "queue", None, "queue", "the name of a local queue: ")
        if queue is None:
            raise MQOptionError("queue", None, f"the name of a local queue: {MQ_NAME_RULE}")
        selector = opts.get("selector")
        if selector is not None and not selector.strip():
            raise MQOptionError("selector", selector, "a non-empty MQ selector, e.g. \"colour = 'red'\"")
        if selector is not None:
            _check_selector(selector)
        backout_queue = parse_name(opts, "backoutqueue", None, "backoutQueue", "the name of a queue: ")
        delivery = parse_choice(opts, "delivery", "exactlyOnce", DELIVERY_MODES)
        read_ahead = parse_bool(opts, "readahead", True, "readAhead")
        if "readahead" in opts and read_ahead and delivery != "atMostOnce":
            raise MQOptionError("readAhead", opts["readahead"],
                                "false, or true only with delivery atMostOnce (read-ahead works "
                                "only outside syncpoint)")
        return cls(
            connection=connection,
            queue=queue.strip(),
            selector=selector.strip() if selector else None,
            delivery=delivery,
            max_messages=parse_int(opts, "maxmessagespertrigger", 10000, 1, _MAX_INT,
                                   "maxMessagesPerTrigger"),
            max_bytes=parse_int(opts, "maxbytespertrigger", 64 << 20, 1, _MAX_LONG,
                                "maxBytesPerTrigger"),
            wait_interval_ms=parse_int(opts, "waitintervalms", 500, 0, 3_600_000, "waitIntervalMs"),
            read_ahead=read_ahead,
            backout_threshold=parse_int(opts, "backoutthreshold", None, 0, 999_999_999,
                                        "backoutThreshold"),
            backout_queue=backout_queue.strip() if backout_queue else None,
            num_partitions=parse_int(opts, "numpartitions", 2, 1, 1024, "numPartitions"),
            prefetch=parse_bool(opts, "prefetch", True),
        )

    @property
    def exactly_once(self) -> bool:
        return self.delivery == "exactlyOnce"

    @property
    def syncpoint(self) -> bool:
        return self.delivery != "atMostOnce"


def _check_selector(selector: str) -> None:
    """Fail at query start with MQ's reason code and the position of the error (MQOPEN
    would only give the reason code, and only once a batch runs)."""
    from spark_mq.mqi.constants import reason_name
    from spark_mq.mqi.selector import SelectorError, compile_selector
    try:
        compile_selector(selector)
    except SelectorError as exc:
        raise MQOptionError(
            "selector", selector,
            f"an MQ message selector (SQL92 subset); this one fails with MQ reason "
            f"{exc.reason} {reason_name(exc.reason)} at position {exc.position}: {exc}") from None
