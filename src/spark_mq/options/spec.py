"""The options of the "mq" data source, each declared once: its name, which side takes it,
its default, the default as the docs tables show it, what it means, and its parser.

Everything about option names comes from this table: the names lists (CONNECTION_OPTIONS,
READ_OPTIONS, WRITE_OPTIONS, SPARK_OPTIONS), the unknown-name check with its suggestion,
the option list in spark_mq.options' docstring, and tests/test_option_docs.py, which holds
the docs' option tables to it. A name both sides take is declared once per side, as no two
of them mean the same on both: the two `delivery` options have different choices and
defaults, the two `ccsid` options share their parser but not their default.
"""
from __future__ import annotations

import difflib
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from spark_mq.mq.connecting import TRANSPORTS
from spark_mq.mq.exceptions import MQOptionError, UnknownOptionError
from spark_mq.mq.jms import JAVA_ENCODING
from spark_mq.mq.markers import DEFAULT_CLAIM_TIMEOUT_MS, LOCK_MODEL_QUEUE
from spark_mq.mqi.codepages import UTF8
from spark_mq.mqi.constants import CMQC
from spark_mq.options import values
from spark_mq.options.values import Parser

CONNECTION, READ, WRITE, SPARK = "connection", "read", "write", "spark"
#: how the unknown-name check names each side
USE = {READ: "reading from MQ", WRITE: "writing to MQ"}

READ_DELIVERY = ("exactlyOnce", "atLeastOnce", "atMostOnce")
WRITE_DELIVERY = ("exactlyOnce", "atLeastOnce")
READ_MODES = ("driver", "executors")
PERSISTENCE = ("persistent", "nonPersistent", "asQueueDef")
CONTEXT = ("auto", "none", "all")
JMS_MESSAGE_TYPES = ("none", "text", "bytes")
NULL_PAYLOADS = ("error", "empty")
#: the writer's `bind`: MQOO_BIND_AS_Q_DEF (the queue's DEFBIND, what IBM's applications get
#: by default), MQOO_BIND_ON_OPEN, MQOO_BIND_NOT_FIXED, MQOO_BIND_ON_GROUP
BINDS = ("asQueueDef", "open", "notFixed", "group")
DEFAULT_READER_STATE_QUEUE = "SPARK.MQ.READER.STATE"
DEFAULT_STATE_QUEUE = "SPARK.MQ.WRITER.STATE"
DEFAULT_COMMIT_EVERY = 2000
DEFAULT_LARGE_MESSAGE_THRESHOLD = 4 * 1024 * 1024
#: the CCSID and Encoding text is in when no option or column says otherwise: the reader
#: converts to them (`convert`), the writer encodes string payloads in the CCSID
DEFAULT_CCSID = UTF8
DEFAULT_ENCODING = CMQC.MQENC_NATIVE
SUBSCRIPTION_PREFIX = "SPARK.MQ."
_MAX_INT = 2**31 - 1
_MAX_LONG = 2**63 - 1
_MAX_MESSAGE = 100 * 1024 * 1024          # MQ's largest MAXMSGL
_DAY_MS = 86_400_000


@dataclass(frozen=True)
class Option:
    """One option. `default` is what an absent option gives (None: nothing, or a value the
    side decides from other options); `shown` is the default as the docs tables print it,
    derived from `default` when left out."""
    name: str
    sides: tuple[str, ...]
    meaning: str
    parse: Parser | None = values.text
    default: Any = None
    shown: str | None = None

    @property
    def key(self) -> str:
        """Spark passes option names lower-cased."""
        return self.name.lower()

    @property
    def documented_default(self) -> str:
        if self.shown is not None:
            return self.shown
        if isinstance(self.default, bool):
            return str(self.default).lower()
        return "none" if self.default is None else str(self.default)

    def value(self, options: Mapping[str, Any]) -> Any:
        """This option's value from lower-cased options: parsed, or the default."""
        given = options.get(self.key)
        if given is None or self.parse is None:
            return self.default if given is None else given
        return self.parse(self.name, given)


_C, _R, _W = (CONNECTION,), (READ,), (WRITE,)

OPTIONS: tuple[Option, ...] = (
    # --- connection (reader and writer) -------------------------------------------------
    Option("connName", _C, "host(port), comma-separated for multi-instance",
           values.conn_name, shown="required (or ccdtUrl)"),
    Option("queueManager", _C, "queue manager name (`*GROUP`: any of a group)",
           values.queue_manager, "QM1"),
    Option("channel", _C, "server-connection channel", default="DEV.APP.SVRCONN"),
    Option("user", _C, "MQCSP authentication: the user"),
    Option("password", _C, "MQCSP authentication: the password"),
    Option("credentialsProvider", _C, "`module:function` returning (user, password), "
           "{user, password} or {token}, called at each connect on the driver and every "
           "executor; not with user/password/token", values.callable_name),
    Option("token", _C, "MQCSP authentication token (a JWT, MQCSP_AUTH_ID_TOKEN, IBM MQ "
           "9.3.4+) instead of user/password; not with them, credentialsProvider or reconnect",
           values.token),
    Option("transport", _C, "auto (IBM's client when its library loads, else embedded) | "
           "ibmmq | embedded", values.choice(*TRANSPORTS), "auto"),
    Option("cipherSpec", _C, "TLS: the channel's SSLCIPH"),
    Option("keyRepository", _C, "TLS: the key repository stem"),
    Option("certificateLabel", _C, "TLS: the label of the client's own certificate in the "
           "key repository (IBM's CERTLABL), sent to a channel with SSLCAUTH(REQUIRED)",
           values.non_empty("a certificate label in the key repository", 64)),
    Option("ccdtUrl", _C, "a client channel definition table instead of connName/channel"),
    Option("reconnect", _C, "true: MQCNO_RECONNECT_Q_MGR, IBM's client reconnects by itself "
           "to the same queue manager (multi-instance queue managers); false: "
           "MQCNO_RECONNECT_DISABLED", values.boolean, False),
    Option("reconnectTimeoutMs", _C, "after a lost connection: how long the reader and the "
           "writer's tasks connect again, with back-off, before the query fails (0: at once; "
           "never or -1: until the queue manager is back)", values.reconnect_timeout_ms, 60_000),
    # --- reader ---------------------------------------------------------------------------
    Option("queue", _R, "the queue to read (exactly one of queue, topic, topicObject)",
           values.mq_name("the name of a local queue: "),
           shown="one of queue, topic, topicObject"),
    Option("topic", _R, "a topic string to subscribe to, wildcards allowed (orders/eu/#)",
           values.topic_string, shown=""),
    Option("topicObject", _R, "an administered topic object (DEFINE TOPIC) to subscribe to",
           values.mq_name("the name of a topic object: "), shown=""),
    Option("queueManagers", _R, "one query over the queue on several queue managers, instead "
           "of connName/queueManager: NAME@host(port),... (NAME alone: its address from "
           "ccdtUrl); each queue manager is read in its own units of work "
           "(spark_mq/reader/queue_managers.py)", values.queue_managers),
    Option("subscription", _R, "topic reads: the durable subscription the query owns (set "
           "it when two queries read one topic; see `subscription_name`)",
           values.non_empty("a non-empty subscription name (a string)",
                            values.MAX_TOPIC_LENGTH),
           shown=f"{SUBSCRIPTION_PREFIX} + 16 hex digits of a SHA-256 of the topic"),
    Option("selector", _R, "an MQ message selector (SQL92 subset), e.g. \"colour = 'red'\"",
           values.non_empty("a non-empty MQ selector, e.g. \"colour = 'red'\"")),
    Option("delivery", _R, " | ".join(READ_DELIVERY), values.choice(*READ_DELIVERY),
           "exactlyOnce"),
    Option("maxMessagesPerTrigger", _R, "messages per microbatch (one unit of work: also "
           "kept below the queue manager's MAXUMSGS)", values.integer(1, _MAX_INT), 10000),
    Option("maxBytesPerTrigger", _R, "payload bytes per microbatch (a batch takes at least "
           "one message)", values.integer(1, _MAX_LONG), 64 << 20, "64 MiB"),
    Option("minMessagesPerTrigger", _R, "no microbatch until this many messages are on the "
           "queue or maxTriggerDelay has passed since the last one (Kafka's "
           "minOffsetsPerTrigger; ignored under Trigger.AvailableNow; readMode driver)",
           values.integer(1, _MAX_INT)),
    Option("maxTriggerDelay", _R, "with minMessagesPerTrigger: the longest wait for the "
           "minimum, a duration (15m, 30s, 500ms)", values.duration_ms, 900_000, "15m"),
    Option("waitIntervalMs", _R, "how long a trigger waits for a first message on an empty "
           "queue", values.integer(0, 3_600_000), 500),
    Option("backoutThreshold", _R, "BackoutCount at which a message is poison (0 = never)",
           values.integer(0, 999_999_999), shown="the queue's BOTHRESH"),
    Option("backoutQueue", _R, "where poison messages go (without one: the dead-letter "
           "queue, with an MQDLH)", values.mq_name("the name of a queue: "),
           shown="the queue's BOQNAME"),
    Option("readAhead", _R, "atMostOnce only: MQOO_READ_AHEAD on the queue", values.boolean,
           True),
    Option("numPartitions", _R, "Spark partitions a microbatch is split into",
           values.integer(1, 1024), 2),
    Option("prefetch", _R, "get the next microbatch (on a second connection, in its own unit "
           "of work) while Spark runs the current one", values.boolean, True),
    Option("orphanedWorkTimeoutMs", _R, "exactlyOnce, after a restart: how long to wait for "
           "an earlier driver's connection to end before removing the batch it held "
           "(spark_mq/mq/orphans.py)", values.integer(0, _DAY_MS), 300_000),
    Option("readMode", _R, "driver: the driver gets each microbatch | executors: each task "
           "gets its share on its executor (spark_mq/reader/executors.py)",
           values.choice(*READ_MODES), "driver"),
    Option("stateQueue", _R, "readMode executors: the claims and records",
           values.mq_name(), DEFAULT_READER_STATE_QUEUE),
    Option("claimTimeoutMs", _R, "readMode executors: how long a task waits for another "
           "attempt of its partition that holds its claim",
           values.integer(1000, _DAY_MS), DEFAULT_CLAIM_TIMEOUT_MS),
    Option("stopFile", _R, "a graceful stop: while this file (on the driver) exists, no new "
           "microbatch is planned (the jobs' Ctrl-C)",
           values.non_empty("the path of a file on the driver, e.g. /tmp/stop-orders: while "
                            "it exists no new microbatch is planned")),
    Option("convert", _R, "MQGMO_CONVERT: the queue manager converts MQSTR data (and the MQ "
           "headers before it) to ccsid/encoding; what it cannot convert arrives as stored, "
           "its reason in `conversion_reason`", values.boolean, False),
    Option("ccsid", _R, "with convert: the CCSID to convert to", values.ccsid, DEFAULT_CCSID),
    Option("encoding", _R, "with convert: the MQENC encoding to convert to", values.encoding,
           DEFAULT_ENCODING),
    Option("includeContext", _R, "add the context columns and `property_types` to the "
           "default schema (all a faithful copy, writer option context=all, needs)",
           values.boolean, False),
    Option("requireText", _R, "every row is text: a message whose `text` would be null is "
           "moved, behind an MQDLH saying why, to the backout (or dead-letter) queue in the "
           "batch's unit of work; not with atMostOnce", values.boolean, False),
    # --- writer ---------------------------------------------------------------------------
    Option("queue", _W, "target queue (wins over a `queue` column)", values.mq_name(),
           shown="the queue column"),
    Option("topic", _W, "publish to this topic string instead (wins over the `queue` and "
           "`topic` columns)", values.topic_string, shown="the topic column"),
    Option("retain", _W, "topics: MQPMO_RETAIN, the queue manager keeps the last publication "
           "for later subscribers", values.boolean, False),
    Option("persistence", _W, " | ".join(PERSISTENCE) + " (a `persistent` column wins per "
           "row)", values.choice(*PERSISTENCE), "persistent"),
    Option("asyncPut", _W, "MQPMO_ASYNC_RESPONSE, checked with MQSTAT before every MQCMIT",
           values.boolean, True),
    Option("commitEvery", _W, "rows per unit of work (kept below MAXUMSGS)",
           values.integer(1, 999_999_999), DEFAULT_COMMIT_EVERY),
    Option("delivery", _W, " | ".join(WRITE_DELIVERY) + ": exactly-once markers on or off",
           values.choice(*WRITE_DELIVERY), shown="exactlyOnce (streams), atLeastOnce (batch)"),
    Option("segmentation", _W, "let the queue manager segment payloads past MAXMSGL",
           values.boolean, True),
    Option("largeMessageThreshold", _W, "bytes: payloads with properties past this use the "
           "reference/data pattern", values.integer(1, _MAX_MESSAGE),
           DEFAULT_LARGE_MESSAGE_THRESHOLD, "4 MiB"),
    Option("stateQueue", _W, "exactly-once markers", values.mq_name(), DEFAULT_STATE_QUEUE),
    Option("writerId", _W, "exactly-once identity of the markers",
           values.non_empty("a non-empty string of up to 200 characters", 200),
           shown="the query id"),
    Option("claimTimeoutMs", _W, "exactlyOnce: how long a task waits while another attempt "
           "of its partition holds the partition's lock", values.integer(1000, _DAY_MS),
           DEFAULT_CLAIM_TIMEOUT_MS),
    Option("modelQueue", _W, "exactlyOnce: the model queue the partition locks (temporary "
           "dynamic queues) are made from", values.mq_name(), LOCK_MODEL_QUEUE),
    Option("targetQueueManager", _W, "the queue manager the target queue is on "
           "(MQOD.ObjectQMgrName), reached through this one's channels; wins over a "
           "`queue_manager` column", values.mq_name(),
           shown="the connected queue manager (or the row's queue_manager)"),
    Option("bind", _W, "a cluster queue: which instance the puts go to: asQueueDef (the "
           "queue's DEFBIND) | open: every put of a task's handle to one instance "
           "(MQOO_BIND_ON_OPEN) | notFixed: each put chooses (MQOO_BIND_NOT_FIXED) | group: "
           "MQOO_BIND_ON_GROUP; rows that must stay together (a `group_id`, a reference/data "
           "pair) go to one instance whatever the bind", values.choice(*BINDS), "asQueueDef"),
    Option("queueManagers", _W, "spread the partitions over several queue managers, instead "
           "of connName/queueManager: NAME@host(port),... (NAME alone: its address from "
           "ccdtUrl); partition p writes to entry p modulo their number, with its own "
           "exactly-once markers there", values.queue_managers),
    Option("context", _W, "auto: context columns set MQMD context | none: the queue manager "
           "sets it | all: a faithful copy, every put sets all context from the row",
           values.choice(*CONTEXT), "auto"),
    Option("ccsid", _W, "CodedCharSetId of the messages (a `ccsid` column wins per row): a "
           "string payload is encoded in it, a binary one only labelled", values.ccsid,
           shown=str(DEFAULT_CCSID)),
    Option("encoding", _W, "MQMD Encoding (an `encoding` column wins per row); also the byte "
           "order of UTF-16 text", values.encoding,
           shown=f"{DEFAULT_ENCODING} (JMS: {JAVA_ENCODING})"),
    Option("format", _W, "MQMD Format, up to 8 characters (a `format` column wins per row)",
           values.mq_format, shown="MQSTR for text, blank for binary"),
    Option("jmsMessageType", _W, "none: a plain MQ message | text | bytes: a JMS TextMessage "
           "/ BytesMessage as IBM MQ classes for JMS write it (a `jms_type` column chooses "
           "per row)", values.choice(*JMS_MESSAGE_TYPES), "none"),
    Option("report", _W, "MQMD Report: the report messages each message asks for, sent to "
           "its reply-to queue (a `report` column wins per row), comma-separated MQRO_ names: "
           "COA, COD, EXCEPTION, EXPIRATION (each also _WITH_DATA or _WITH_FULL_DATA), "
           "PASS_MSG_ID, PASS_CORREL_ID, PASS_DISCARD_AND_EXPIRY, DISCARD_MSG", values.report,
           0, shown="none"),
    Option("nullPayload", _W, "error: a row whose payload is null fails, naming the column "
           "and the row | empty: it becomes an empty message", values.choice(*NULL_PAYLOADS),
           "error"),
    # --- Spark's own ------------------------------------------------------------------------
    Option("path", (SPARK,), "load(path) / save(path): the queue", None),
    Option("queryName", (SPARK,), "a streaming query's name", None),
    Option("checkpointLocation", (SPARK,), "a streaming query's checkpoint", None),
)


def of(side: str) -> tuple[Option, ...]:
    return tuple(option for option in OPTIONS if side in option.sides)


def names(side: str) -> tuple[str, ...]:
    return tuple(option.name for option in of(side))


CONNECTION_OPTIONS = names(CONNECTION)
READ_OPTIONS = names(READ)
WRITE_OPTIONS = names(WRITE)
#: what Spark itself adds: load(path) / save(path), a streaming query's name and checkpoint
SPARK_OPTIONS = names(SPARK)


def check_known(options: Mapping[str, Any], names: tuple[str, ...], use: str,
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


def check_side(options: Mapping[str, Any], side: str) -> None:
    """check_known for the reader (READ) or the writer (WRITE)."""
    other = WRITE if side == READ else READ
    check_known(options, names(side), USE[side], names(other), USE[other])


def lower_keys(options: Mapping[str, Any]) -> dict[str, Any]:
    """Spark passes options with lower-cased keys; direct callers may not."""
    return {k.lower(): v for k, v in options.items()}


def path_as_queue(opts: dict[str, Any]) -> dict[str, Any]:
    """load(path) / save(path) name the queue: the path becomes the `queue` option."""
    queue, path = opts.get("queue"), opts.pop("path", None)
    if path is None:
        return opts
    if queue is not None and str(queue).strip() != str(path).strip():
        raise MQOptionError("path", path, f"the queue of option 'queue' ({queue!r}), or no path: "
                                          "load(path) and save(path) name the queue")
    return {**opts, "queue": path}


def parse_side(opts: Mapping[str, Any], side: str) -> dict[str, Any]:
    """Every option of one side (READ or WRITE) by name: parsed, or its default."""
    return {option.name: option.value(opts) for option in of(side)}


_HEADINGS = {CONNECTION: "Connection (reader and writer)", READ: "Reader (`ReadOptions`)",
             WRITE: "Writer (`WriteOptions`)", SPARK: "Spark's own (accepted on both sides)"}


def describe() -> str:
    """Every option, by side, with its default: the options part of the module docstring."""
    parts = []
    for side in (CONNECTION, READ, WRITE, SPARK):
        lines = [f"{_HEADINGS[side]}:", ""]
        for opt in of(side):
            shown = opt.documented_default
            text = opt.meaning + (f". Default: {shown}" if shown and side != SPARK else "")
            lines.extend(textwrap.wrap(text, 95, initial_indent=f"    {opt.name:<22} ",
                                       subsequent_indent=" " * 27))
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"
