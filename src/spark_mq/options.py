"""Every option of the "mq" data source, parsed once from Spark's (case-insensitive) options
and validated: an error names the option, the bad value and what would be valid.

Connection (reader and writer):

    connName               host(port), comma-separated for multi-instance (or ccdtUrl)
    queueManager           queue manager name (default QM1)
    channel                server-connection channel (default DEV.APP.SVRCONN)
    user, password         MQCSP authentication
    transport              auto (IBM's client when its library loads, else embedded) | ibmmq
                           | embedded
    cipherSpec, keyRepository, ccdtUrl
    reconnect              MQCNO_RECONNECT_Q_MGR: IBM's client reconnects by itself
                           (multi-instance queue managers; default false)
    reconnectTimeoutMs     after a lost connection (queue manager restart, network drop):
                           how long the reader and the writer's tasks try to connect again,
                           with back-off, before the query fails (default 60000; 0: fail
                           at once)

Reader (`ReadOptions`):

    queue                  the queue to read (exactly one of queue, topic, topicObject)
    topic                  a topic string to subscribe to, wildcards allowed ("orders/eu/#")
    topicObject            an administered topic object (DEFINE TOPIC) to subscribe to
    subscription           topic reads: the name of the durable subscription the query owns
                           (default SPARK.MQ. + a hash of the topic, see `subscription_name`;
                           set it when two queries read one topic)
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
    orphanedWorkTimeoutMs  exactlyOnce, after a restart: how long to wait for an earlier
                           driver's connection to end before removing the batch it held
                           (default 300000; see spark_mq/mq/orphans.py)
    readMode               driver (default): the driver gets each microbatch and ships it to
                           the executors | executors: each of `numPartitions` tasks gets its
                           share on the executor, exactly once through claims and records on
                           a state queue (see spark_mq/reader/executors.py)
    stateQueue             readMode executors: the claims and records (default
                           SPARK.MQ.READER.STATE)
    claimTimeoutMs         readMode executors: how long a task waits for another attempt of
                           the same partition that holds its claim (default 900000)
    stopFile               a graceful stop: while this file (on the driver) exists, no new
                           microbatch is planned, so a query can then be stopped between
                           batches, without killing tasks in flight (the jobs' Ctrl-C)
    convert                MQGMO_CONVERT: the queue manager converts MQFMT_STRING data (and
                           the MQ headers in front of it) to `ccsid`/`encoding` (default
                           false); a message it cannot convert is delivered unconverted with
                           MQ's reason in the `conversion_reason` column
    ccsid                  convert: the CCSID to convert to (default 1208, UTF-8)
    encoding               convert: the MQENC encoding to convert to (default 546, native)
    includeContext         add the context columns (accounting_token, appl_origin_data,
                           put_appl_type) and `property_types` to the default schema: all
                           that a faithful copy (writer option context=all) needs
    requireText            every row is text (default false): a message whose `text` would
                           be null (Format not MQSTR: 2110; a CCSID without a table: 2111;
                           bytes not valid in its CCSID: 2119) is moved, in the batch's unit
                           of work, to the backout queue (or the dead-letter queue) behind an
                           MQDLH whose Reason says why, instead of becoming a row; not with
                           atMostOnce, which has no unit of work to move it in

exactlyOnce in readMode driver needs no state queue: the message ids of each microbatch travel inside Spark's
own offset log (see spark_mq/reader/stream.py for the protocol).

Writer (`WriteOptions`):

    queue                  target queue (or a `queue` column that names each row's queue)
    topic                  publish to this topic string instead (or a `topic` column per row)
    retain                 topics: MQPMO_RETAIN, the queue manager keeps the last publication
                           for later subscribers (default false)
    persistence            persistent (default) | nonPersistent | asQueueDef
    asyncPut               MQPMO_ASYNC_RESPONSE, checked with MQSTAT (default true)
    commitEvery            rows per unit of work (default 2000, below MAXUMSGS)
    delivery               exactlyOnce (streams' default) | atLeastOnce (batch default)
    segmentation           let the queue manager segment large payloads (default true)
    largeMessageThreshold  bytes: payloads with properties past this use the
                           reference/data pattern (default 4 MiB)
    stateQueue             exactly-once markers (default SPARK.MQ.WRITER.STATE)
    writerId               exactly-once identity (default: the query id)
    targetQueueManager     the queue manager the target queue is on (MQOD.ObjectQMgrName):
                           another one reached through this one's channels, by MQ's name
                           resolution; wins over a `queue_manager` column (default: the
                           connected queue manager, or the row's `queue_manager`)
    claimTimeoutMs         exactlyOnce: how long a task waits for another attempt of its
                           partition (a retry, a speculative copy, a cancelled task still
                           running) that holds the partition's lock (default 900000)
    modelQueue             exactlyOnce: the model queue the partition locks (temporary dynamic
                           queues) are made from (default SYSTEM.DEFAULT.MODEL.QUEUE; IBM's
                           developer configuration lets applications open DEV.APP.MODEL.QUEUE)
    context                auto (default): context columns set MQMD context | none: the
                           queue manager sets it | all: a faithful copy, every put sets all
                           context (MQOO/MQPMO_SET_ALL_CONTEXT) from the row: MsgId from
                           `message_id` (null: a new one), PutDate/PutTime from
                           `put_timestamp`, identity and origin from their columns
    ccsid                  CodedCharSetId of the messages (a `ccsid` column wins per row); a
                           string payload is encoded in it (default 1208, UTF-8); a binary
                           payload is left as it is and only labelled. Any CCSID this process
                           has a code page for (spark_mq/mqi/codepages.py: EBCDIC 37, 273, 500,
                           1047, 1140-1149, 930/939 ..., ISO, Windows, PC, UTF-8/16/32)
    encoding               MQMD Encoding (an `encoding` column wins per row), an MQENC value:
                           546 native little-endian (default), 273 big-endian (Java, AIX), 785
                           z/OS; it also gives the byte order of UTF-16 text (CCSID 1200)
    format                 MQMD Format, up to 8 characters (a `format` column wins per row;
                           default MQSTR for a string payload, blank MQFMT_NONE for binary)
    jmsMessageType         none (default): a plain MQ message | text | bytes: the message as IBM
                           MQ classes for JMS write a TextMessage / BytesMessage, with an MQRFH2
                           (mcd, jms and usr folders) from the jms_* and property columns; a
                           `jms_type` column (text | bytes | none) chooses per row
    nullPayload            error (default): a row whose payload is null fails, naming the
                           column and the row | empty: it becomes an empty message
"""
from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from spark_mq.mq.connecting import TRANSPORTS, ConnectionOptions
from spark_mq.mq.exceptions import MQOptionError, UnknownOptionError
from spark_mq.mq.markers import DEFAULT_CLAIM_TIMEOUT_MS, LOCK_MODEL_QUEUE

# --- option names -----------------------------------------------------------------------------
CONNECTION_OPTIONS = ("connName", "queueManager", "channel", "user", "password", "transport",
                      "cipherSpec", "keyRepository", "ccdtUrl", "reconnect", "reconnectTimeoutMs")
READ_OPTIONS = ("queue", "topic", "topicObject", "subscription", "selector", "delivery",
                "maxMessagesPerTrigger", "maxBytesPerTrigger",
                "waitIntervalMs", "readAhead", "backoutThreshold", "backoutQueue",
                "numPartitions", "prefetch", "orphanedWorkTimeoutMs", "readMode", "stateQueue",
                "claimTimeoutMs", "stopFile", "convert", "ccsid", "encoding", "includeContext",
                "requireText")
WRITE_OPTIONS = ("queue", "topic", "retain", "persistence", "asyncPut", "commitEvery", "delivery",
                 "segmentation", "largeMessageThreshold", "stateQueue", "writerId",
                 "claimTimeoutMs", "modelQueue", "targetQueueManager", "context",
                 "ccsid", "encoding", "format", "jmsMessageType", "nullPayload")
#: what Spark itself adds: load(path) / save(path), a streaming query's name and checkpoint
SPARK_OPTIONS = ("path", "queryName", "checkpointLocation")


def check_known(options: Mapping[str, str], names: tuple[str, ...], use: str,
                other_names: tuple[str, ...] = (), other_use: str = "") -> None:
    """Every option name is one of `names` (or Spark's own); a misspelt one would otherwise be
    ignored without a word. One of `other_names` (the other direction's) is named as such."""
    known = {name.lower(): name for name in (*names, *CONNECTION_OPTIONS, *SPARK_OPTIONS)}
    other = {name.lower(): name for name in other_names}
    for key in options:
        if key.lower() in other and key.lower() not in known:
            raise MQOptionError(other[key.lower()], options[key],
                                f"no value: it is an option for {other_use}, not for {use}")
        if key.lower() not in known:
            close = difflib.get_close_matches(key.lower(), list(known), n=1, cutoff=0.6)
            raise UnknownOptionError(key, use, known[close[0]] if close else None,
                                     tuple(sorted(set(known.values()) - set(SPARK_OPTIONS))))


def path_as_queue(opts: dict[str, str]) -> dict[str, str]:
    """load(path) / save(path) name the queue: the path becomes the `queue` option."""
    queue, path = opts.get("queue"), opts.pop("path", None)
    if path is None:
        return opts
    if queue is not None and queue.strip() != path.strip():
        raise MQOptionError("path", path, f"the queue of option 'queue' ({queue!r}), or no path: "
                                          "load(path) and save(path) name the queue")
    return {**opts, "queue": path}

# --- values ---------------------------------------------------------------------------------
MQ_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")
MQ_NAME_RULE = "1 to 48 characters of A-Z a-z 0-9 . / _ %"
_CONN_NAME = re.compile(r"^\s*[^\s(),]+\(\d{1,5}\)\s*(,\s*[^\s(),]+\(\d{1,5}\)\s*)*$")
_MAX_INT = 2**31 - 1
_MAX_LONG = 2**63 - 1


def lower_keys(options: Mapping[str, str]) -> dict[str, str]:
    """Spark passes options with lower-cased keys; direct callers may not."""
    return {k.lower(): v for k, v in options.items()}


def parse_name(opts: Mapping[str, str], key: str, default: str | None, label: str,
               what: str = "") -> str | None:
    """An MQ object name (queue or queue manager), blanks around it ignored."""
    value = opts.get(key)
    if value is None:
        return default
    if not MQ_NAME.fullmatch(value.strip()):
        raise MQOptionError(label, value, f"{what}{MQ_NAME_RULE}")
    return value.strip()


def parse_bool(opts: Mapping[str, str], key: str, default: bool, label: str | None = None) -> bool:
    value = opts.get(key)
    if value is None:
        return default
    lowered = str(value).strip().lower()
    if lowered in ("true", "yes", "1"):
        return True
    if lowered in ("false", "no", "0"):
        return False
    raise MQOptionError(label or key, value, "true | false")


def parse_int(opts: Mapping[str, str], key: str, default: int, low: int, high: int,
              label: str | None = None) -> int:
    number = parse_optional_int(opts, key, low, high, label)
    return default if number is None else number


def parse_optional_int(opts: Mapping[str, str], key: str, low: int, high: int,
                       label: str | None = None) -> int | None:
    value = opts.get(key)
    if value is None:
        return None
    try:
        number: int | None = int(str(value).strip())
    except ValueError:
        number = None
    if number is None or not low <= number <= high:
        raise MQOptionError(label or key, value, f"an integer from {low} to {high}")
    return number


def parse_choice(opts: Mapping[str, str], key: str, default: str, choices: tuple[str, ...],
                 label: str | None = None) -> str:
    """Case-insensitive choice; returns the canonical spelling from `choices`."""
    value = opts.get(key)
    if value is None:
        return default
    for choice in choices:
        if str(value).strip().lower() == choice.lower():
            return choice
    raise MQOptionError(label or key, value, " | ".join(choices))


# --- connection -----------------------------------------------------------------------------
def parse_connection(options: Mapping[str, str]) -> ConnectionOptions:
    opts = lower_keys(options)
    transport = opts.get("transport", "auto").lower()
    if transport not in TRANSPORTS:
        raise MQOptionError("transport", opts.get("transport"), " | ".join(TRANSPORTS))
    conn_name = opts.get("connname")
    if conn_name is not None and not _CONN_NAME.match(conn_name):
        raise MQOptionError("connName", conn_name,
                            "host(port), comma-separated for multi-instance, e.g. localhost(1414)")
    if conn_name is None and opts.get("ccdturl") is None:
        raise MQOptionError("connName", None,
                            "host(port) of the queue manager's listener, e.g. localhost(1414), "
                            "or a ccdtUrl")
    return ConnectionOptions(
        queue_manager=_queue_manager(opts),
        conn_name=conn_name.replace(" ", "") if conn_name else None,
        channel=opts.get("channel", "DEV.APP.SVRCONN"),
        user=opts.get("user"),
        password=opts.get("password"),
        transport=transport,
        cipher_spec=opts.get("cipherspec"),
        key_repository=opts.get("keyrepository"),
        ccdt_url=opts.get("ccdturl"),
        reconnect=parse_bool(opts, "reconnect", False),
        reconnect_timeout_ms=parse_int(opts, "reconnecttimeoutms", 60_000, 0, 86_400_000,
                                       "reconnectTimeoutMs"),
    )


def _queue_manager(opts: Mapping[str, str]) -> str:
    """queueManager: a name, or `*` and a group's name (`*QM1`: any queue manager of the group,
    as MQCONN takes it, e.g. with a ccdtUrl)."""
    value = opts.get("queuemanager")
    if value is not None and value.strip().startswith("*"):
        group = value.strip()[1:]
        if group and not MQ_NAME.fullmatch(group):
            raise MQOptionError("queueManager", value,
                                f"{MQ_NAME_RULE}, after a * for a queue manager group")
        return "*" + group
    return parse_name(opts, "queuemanager", "QM1", "queueManager") or "QM1"


# --- reader ---------------------------------------------------------------------------------
DEFAULT_CCSID = 1208      # UTF-8
MQENC_NATIVE = 546        # MQENC_NATIVE on x86 and ARM: little-endian integers, IEEE floats
READ_DELIVERY = ("exactlyOnce", "atLeastOnce", "atMostOnce")
READ_MODES = ("driver", "executors")
DEFAULT_READER_STATE_QUEUE = "SPARK.MQ.READER.STATE"


def requested_read_mode(options: Mapping[str, str]) -> str:
    """The readMode asked for, without checking anything: which stream reader to make. The
    reader checks every option itself at its first call (a wrong value fails there)."""
    value = str(lower_keys(options).get("readmode", "driver")).strip().lower()
    return "executors" if value == "executors" else "driver"


#: what a topic string may be: MQ's limit on MQCHARV topic strings
MAX_TOPIC_LENGTH = 10240
SUBSCRIPTION_PREFIX = "SPARK.MQ."


def subscription_name(topic: str | None, topic_object: str | None) -> str:
    """The default durable subscription name of a topic read: the same topic (string or
    object) always gives the same name, so a restarted query resumes its subscription."""
    key = f"{topic_object or ''}\0{topic or ''}".encode()
    return SUBSCRIPTION_PREFIX + hashlib.sha256(key).hexdigest()[:16].upper()


def parse_topic(opts: Mapping[str, str], key: str = "topic") -> str | None:
    value = opts.get(key)
    if value is None:
        return None
    if not value.strip() or len(value.encode()) > MAX_TOPIC_LENGTH:
        raise MQOptionError("topic", value, f"a non-empty topic string of up to "
                                            f"{MAX_TOPIC_LENGTH} bytes, e.g. orders/eu/#")
    return value.strip()


def _read_source(opts: Mapping[str, str]) -> tuple[str, str | None, str | None]:
    """(queue, topic, topicObject): exactly one is given; a topic read's queue is "" until
    its subscription's managed queue is known (spark_mq.source)."""
    given = [name for name in ("queue", "topic", "topicObject") if name.lower() in opts]
    if len(given) != 1:
        shown = ", ".join(f"{name}={opts[name.lower()]!r}" for name in given) or None
        raise MQOptionError(" / ".join(given) if given else "queue", shown,
                            "exactly one of the options queue (a local queue), topic (a topic "
                            "string) and topicObject (a topic object's name)")
    if given[0] == "topic":
        return "", parse_topic(opts), None
    if given[0] == "topicObject":
        return "", None, parse_name(opts, "topicobject", None, "topicObject",
                                    "the name of a topic object: ")
    queue = parse_name(opts, "queue", None, "queue", "the name of a local queue: ")
    return queue or "", None, None


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
    encoding: int = MQENC_NATIVE
    include_context: bool = False
    require_text: bool = False
    typed_properties: bool = False   # set by the data source when the schema has property_types

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> ReadOptions:
        opts = lower_keys(options)
        check_known(opts, READ_OPTIONS, "reading from MQ", WRITE_OPTIONS, "writing to MQ")
        opts = path_as_queue(opts)
        connection = parse_connection(opts)
        queue, topic, topic_object = _read_source(opts)
        subscription = opts.get("subscription")
        if subscription is not None and not (topic or topic_object):
            raise MQOptionError("subscription", subscription,
                                "no value: it names the durable subscription of a topic read "
                                "(option topic or topicObject)")
        if subscription is not None and not 1 <= len(subscription.strip()) <= MAX_TOPIC_LENGTH:
            raise MQOptionError("subscription", subscription,
                                "a non-empty subscription name (a string)")
        if topic or topic_object:
            subscription = (subscription.strip() if subscription
                            else subscription_name(topic, topic_object))
        selector = opts.get("selector")
        if selector is not None and not selector.strip():
            raise MQOptionError("selector", selector,
                                "a non-empty MQ selector, e.g. \"colour = 'red'\"")
        delivery = parse_choice(opts, "delivery", "exactlyOnce", READ_DELIVERY)
        read_ahead = parse_bool(opts, "readahead", True, "readAhead")
        read_mode = parse_choice(opts, "readmode", "driver", READ_MODES, "readMode")
        if read_mode == "executors" and delivery != "exactlyOnce":
            raise MQOptionError("delivery", delivery, "exactlyOnce with readMode executors (the "
                                "other deliveries: readMode driver)")
        stop_file = opts.get("stopfile")
        if stop_file is not None and not stop_file.strip():
            raise MQOptionError("stopFile", stop_file, "the path of a file on the driver, e.g. "
                                "/tmp/stop-orders: while it exists no new microbatch is planned")
        convert = parse_bool(opts, "convert", False)
        for given in ("ccsid", "encoding"):
            if given in opts and not convert:
                raise MQOptionError(given, opts[given], "no value without convert=true: it is the "
                                    "code page MQGMO_CONVERT converts to (the `text` column decodes "
                                    "each message by its own CCSID without it)")
        require_text = parse_bool(opts, "requiretext", False, "requireText")
        if require_text and delivery == "atMostOnce":
            raise MQOptionError("requireText", opts["requiretext"],
                                "false with delivery atMostOnce (a message that is not text is "
                                "moved to the backout queue in the batch's unit of work, which "
                                "atMostOnce does not have), or delivery exactlyOnce/atLeastOnce")
        if "readahead" in opts and read_ahead and delivery != "atMostOnce":
            raise MQOptionError("readAhead", opts["readahead"],
                                "false, or true only with delivery atMostOnce (read-ahead works "
                                "only outside syncpoint)")
        return cls(
            connection=connection,
            queue=queue,
            topic=topic,
            topic_object=topic_object,
            subscription=subscription,
            selector=selector.strip() if selector else None,
            delivery=delivery,
            max_messages=parse_int(opts, "maxmessagespertrigger", 10000, 1, _MAX_INT,
                                   "maxMessagesPerTrigger"),
            max_bytes=parse_int(opts, "maxbytespertrigger", 64 << 20, 1, _MAX_LONG,
                                "maxBytesPerTrigger"),
            wait_interval_ms=parse_int(opts, "waitintervalms", 500, 0, 3_600_000, "waitIntervalMs"),
            read_ahead=read_ahead,
            backout_threshold=parse_optional_int(opts, "backoutthreshold", 0, 999_999_999,
                                                 "backoutThreshold"),
            backout_queue=parse_name(opts, "backoutqueue", None, "backoutQueue",
                                     "the name of a queue: "),
            num_partitions=parse_int(opts, "numpartitions", 2, 1, 1024, "numPartitions"),
            prefetch=parse_bool(opts, "prefetch", True),
            orphaned_work_timeout_ms=parse_int(opts, "orphanedworktimeoutms", 300_000, 0,
                                               86_400_000, "orphanedWorkTimeoutMs"),
            read_mode=read_mode,
            state_queue=parse_name(opts, "statequeue", DEFAULT_READER_STATE_QUEUE, "stateQueue")
            or DEFAULT_READER_STATE_QUEUE,
            claim_timeout_ms=parse_int(opts, "claimtimeoutms", DEFAULT_CLAIM_TIMEOUT_MS, 1000, 86_400_000,
                                       "claimTimeoutMs"),
            stop_file=stop_file.strip() if stop_file else None,
            convert=convert,
            ccsid=parse_int(opts, "ccsid", DEFAULT_CCSID, 1, 65535),
            encoding=parse_int(opts, "encoding", MQENC_NATIVE, 0, 0xFFFF),
            include_context=parse_bool(opts, "includecontext", False, "includeContext"),
            require_text=require_text,
        )

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


# --- writer ---------------------------------------------------------------------------------
PERSISTENCE = ("persistent", "nonPersistent", "asQueueDef")
WRITE_DELIVERY = ("exactlyOnce", "atLeastOnce")
CONTEXT = ("auto", "none", "all")
JMS_MESSAGE_TYPES = ("none", "text", "bytes")
NULL_PAYLOADS = ("error", "empty")
DEFAULT_STATE_QUEUE = "SPARK.MQ.WRITER.STATE"
DEFAULT_COMMIT_EVERY = 2000
DEFAULT_LARGE_MESSAGE_THRESHOLD = 4 * 1024 * 1024
_MAX_MESSAGE = 100 * 1024 * 1024          # MQ's largest MAXMSGL


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
    ccsid: int | None = None           # None: 1208 for string payloads, unset for binary
    encoding: int | None = None        # None: 546 native (273 for JMS messages, as Java)
    format: str | None = None          # None: MQSTR for string payloads, blank for binary
    jms_message_type: str = "none"
    null_payload: str = "error"

    @property
    def exactly_once(self) -> bool:
        return self.delivery == "exactlyOnce"

    @classmethod
    def parse(cls, options: Mapping[str, str], streaming: bool) -> WriteOptions:
        """Streams default to exactlyOnce; batch writes to atLeastOnce (a batch job has no
        batch id to replay, only task retries, which exactlyOnce also covers when asked)."""
        opts = lower_keys(options)
        check_known(opts, WRITE_OPTIONS, "writing to MQ", READ_OPTIONS, "reading from MQ")
        opts = path_as_queue(opts)
        connection = parse_connection(opts)
        writer_id = opts.get("writerid")
        if writer_id is not None and not 1 <= len(writer_id.strip()) <= 200:
            raise MQOptionError("writerId", writer_id, "a non-empty string of up to 200 characters")
        if "targetqueuemanager" in opts and "topic" in opts:
            raise MQOptionError("targetQueueManager", opts["targetqueuemanager"],
                                "no targetQueueManager with the 'topic' option (publications "
                                "go to the connected queue manager's topics); a queue instead")
        if "queue" in opts and "topic" in opts:
            raise MQOptionError("queue / topic", f"queue={opts['queue']!r}, topic={opts['topic']!r}",
                                "one of the options queue (a queue) and topic (a topic string "
                                "to publish to), or neither and a 'queue' or 'topic' column")
        return cls(
            connection=connection,
            queue=parse_name(opts, "queue", None, "queue"),
            topic=parse_topic(opts),
            retain=parse_bool(opts, "retain", False),
            persistence=parse_choice(opts, "persistence", "persistent", PERSISTENCE),
            async_put=parse_bool(opts, "asyncput", True, "asyncPut"),
            commit_every=parse_int(opts, "commitevery", DEFAULT_COMMIT_EVERY, 1, 999_999_999,
                                   "commitEvery"),
            commit_every_given="commitevery" in opts,
            delivery=parse_choice(opts, "delivery", "exactlyOnce" if streaming else "atLeastOnce",
                                  WRITE_DELIVERY),
            segmentation=parse_bool(opts, "segmentation", True),
            large_message_threshold=parse_int(opts, "largemessagethreshold",
                                              DEFAULT_LARGE_MESSAGE_THRESHOLD, 1, _MAX_MESSAGE,
                                              "largeMessageThreshold"),
            state_queue=parse_name(opts, "statequeue", DEFAULT_STATE_QUEUE, "stateQueue")
            or DEFAULT_STATE_QUEUE,
            writer_id=writer_id.strip() if writer_id else None,
            claim_timeout_ms=parse_int(opts, "claimtimeoutms", DEFAULT_CLAIM_TIMEOUT_MS, 1000,
                                       86_400_000, "claimTimeoutMs"),
            model_queue=parse_name(opts, "modelqueue", LOCK_MODEL_QUEUE, "modelQueue")
            or LOCK_MODEL_QUEUE,
            target_queue_manager=parse_name(opts, "targetqueuemanager", None,
                                            "targetQueueManager"),
            context=parse_choice(opts, "context", "auto", CONTEXT),
            ccsid=_parse_ccsid(opts),
            encoding=_parse_encoding(opts),
            format=_parse_format(opts),
            jms_message_type=parse_choice(opts, "jmsmessagetype", "none", JMS_MESSAGE_TYPES,
                                          "jmsMessageType"),
            null_payload=parse_choice(opts, "nullpayload", "error", NULL_PAYLOADS, "nullPayload"),
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


_CCSID_EXAMPLES = ("1208 (UTF-8), 37, 273, 500, 1047, 1140 (EBCDIC), 939 (EBCDIC Japanese), "
                   "819 (ISO 8859-1), 1252 (Windows), 1200 (UTF-16); see the README's code page "
                   "table")


def _parse_ccsid(opts: Mapping[str, str]) -> int | None:
    """A CCSID this process can encode text in: rows' text is encoded in it, so an unknown one
    would fail every row (or worse, be sent unconverted under a wrong label)."""
    from spark_mq.mqi.codepages import code_page
    value = opts.get("ccsid")
    if value is None:
        return None
    try:
        ccsid: int | None = int(str(value).strip())
    except ValueError:
        ccsid = None
    if ccsid is None or ccsid <= 0 or code_page(ccsid) is None:
        raise MQOptionError("ccsid", value, f"a CCSID this process has a code page for, e.g. "
                                            f"{_CCSID_EXAMPLES}")
    return ccsid


def _parse_encoding(opts: Mapping[str, str]) -> int | None:
    value = opts.get("encoding")
    if value is None:
        return None
    try:
        encoding: int | None = int(str(value).strip(), 0)
    except ValueError:
        encoding = None
    # MQENC: integer part 0x00F (1 normal, 2 reversed), decimal 0x0F0, float 0x0F00
    if encoding is None or not 0 <= encoding <= 0xFFF or encoding & 0xF not in (0, 1, 2):
        raise MQOptionError("encoding", value, "an MQENC value: 546 (native, little-endian), "
                                               "273 (big-endian: Java, AIX), 785 (z/OS)")
    return encoding


def _parse_format(opts: Mapping[str, str]) -> str | None:
    value = opts.get("format")
    if value is None:
        return None
    if len(value.rstrip()) > 8 or not value.isascii() or not value.isprintable():
        raise MQOptionError("format", value, "an MQ format name of up to 8 ASCII characters, "
                                             "e.g. MQSTR, or blank for MQFMT_NONE (binary data)")
    return value.rstrip()
