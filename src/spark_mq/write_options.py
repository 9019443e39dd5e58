"""The writer's options, parsed once from Spark's (case-insensitive) options.

    df.writeStream.format("mq")
      .option("connName", "localhost(1414)").option("queue", "DEV.QUEUE.1")
      .option("persistence", "persistent")      # persistent | nonPersistent | asQueueDef
      .option("asyncPut", "true")               # MQPMO_ASYNC_RESPONSE, checked with MQSTAT
      .option("commitEvery", "1000")            # rows per unit of work (< MAXUMSGS)
      .option("delivery", "exactlyOnce")        # exactlyOnce (streams) | atLeastOnce (batch)
      .option("segmentation", "true")           # let the queue manager segment large payloads
      .option("largeMessageThreshold", "4194304")  # bytes: payloads with properties past this
                                                 # use the reference/data pattern
      .option("stateQueue", "SPARK.MQ.WRITER.STATE")  # exactly-once markers
      .option("writerId", "...")                # exactly-once identity (default: the query id)
      .option("context", "auto")                # auto: context columns set MQMD context | none
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from spark_mq.connection_options import ConnectionOptions, parse_bool, parse_choice, parse_int, parse_name
from spark_mq.errors import MQOptionError

PERSISTENCE = ("persistent", "nonPersistent", "asQueueDef")
DELIVERY = ("exactlyOnce", "atLeastOnce")
CONTEXT = ("auto", "none")
DEFAULT_STATE_QUEUE = "SPARK.MQ.WRITER.STATE"
DEFAULT_COMMIT_EVERY = 2000
DEFAULT_LARGE_MESSAGE_THRESHOLD = 4 * 1024 * 1024
_MAX_MESSAGE = 100 * 1024 * 1024          # MQ's largest MAXMSGL


@dataclass(frozen=True)
class WriteOptions:
    connection: ConnectionOptions
    queue: str | None
    persistence: str = "persistent"
    async_put: bool = True
    commit_every: int = DEFAULT_COMMIT_EVERY
    commit_every_given: bool = False
    delivery: str = "exactlyOnce"
    segmentation: bool = True
    large_message_threshold: int = DEFAULT_LARGE_MESSAGE_THRESHOLD
    state_queue: str = DEFAULT_STATE_QUEUE
    writer_id: str | None = None
    context: str = "auto"

    @property
    def exactly_once(self) -> bool:
        return self.delivery == "exactlyOnce"

    @classmethod
    def parse(cls, options: Mapping[str, str], streaming: bool) -> WriteOptions:
        """Streams default to exactlyOnce; batch writes to atLeastOnce (a batch job has no
        batch id to replay, only task retries, which exactlyOnce also covers when asked)."""
        opts = {k.lower(): v for k, v in options.items()}
        connection = ConnectionOptions.parse(opts)
        queue = parse_name(opts, "queue", None, "queue")
        state_queue = parse_name(opts, "statequeue", DEFAULT_STATE_QUEUE, "stateQueue")
        writer_id = opts.get("writerid")
        if writer_id is not None and not 1 <= len(writer_id.strip()) <= 200:
            raise MQOptionError("writerId", writer_id, "a non-empty string of up to 200 characters")
        return cls(
            connection=connection,
            queue=queue,
            persistence=parse_choice(opts, "persistence", "persistent", PERSISTENCE),
            async_put=parse_bool(opts, "asyncput", True, "asyncPut"),
            commit_every=parse_int(opts, "commitevery", DEFAULT_COMMIT_EVERY, 1, 999_999_999,
                                   "commitEvery"),
            commit_every_given="commitevery" in opts,
            delivery=parse_choice(opts, "delivery", "exactlyOnce" if streaming else "atLeastOnce",
                                  DELIVERY),
            segmentation=parse_bool(opts, "segmentation", True),
            large_message_threshold=parse_int(opts, "largemessagethreshold",
                                              DEFAULT_LARGE_MESSAGE_THRESHOLD, 1, _MAX_MESSAGE,
                                              "largeMessageThreshold"),
            state_queue=state_queue,
            writer_id=writer_id.strip() if writer_id else None,
            context=parse_choice(opts, "context", "auto", CONTEXT),
        )

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
