"""Wiring shared by the spark-submit jobs: arguments, Spark session, queue manager, progress.

The jobs hold no logic of their own beyond wiring a pipeline together; everything they
share (connection arguments, the embedded queue manager for local runs, plain-ibmmq
loading and depth checks, progress printing, clear errors) lives here.

Every connection argument can also come from an environment variable (SPARK_MQ_CONN_NAME,
SPARK_MQ_PASSWORD, ...) so that passwords need not appear on a command line and a
container can be configured by its environment.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MQSC = os.path.join(PROJECT_ROOT, "mqsc", "spark-mq.mqsc")

# (argument, Spark option, environment variable, help)
_CONNECTION_ARGUMENTS = (
    ("--queue-manager", "queueManager", "SPARK_MQ_QUEUE_MANAGER", "queue manager name (default: QM1)"),
    ("--conn-name", "connName", "SPARK_MQ_CONN_NAME",
     "listener address in MQ syntax host(port), comma-separated for multi-instance"),
    ("--channel", "channel", "SPARK_MQ_CHANNEL", "server-connection channel (default: DEV.APP.SVRCONN)"),
    ("--user", "user", "SPARK_MQ_USER", "user id sent in the MQCSP"),
    ("--password", "password", "SPARK_MQ_PASSWORD",
     "password sent in the MQCSP (prefer the environment variable SPARK_MQ_PASSWORD)"),
    ("--transport", "transport", "SPARK_MQ_TRANSPORT",
     "auto | ibmmq | embedded (default: auto = IBM's client when libmqm_r loads, else embedded)"),
    ("--cipher-spec", "cipherSpec", "SPARK_MQ_CIPHER_SPEC", "TLS CipherSpec of the channel, e.g. ANY_TLS13"),
    ("--key-repository", "keyRepository", "SPARK_MQ_KEY_REPOSITORY",
     "TLS key repository stem (without .kdb) on every node"),
    ("--ccdt-url", "ccdtUrl", "SPARK_MQ_CCDT_URL", "client channel definition table (file:// or http(s)://)"),
)


class JobError(Exception):
    """A problem the user can fix; printed without a traceback."""


# --------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------

def new_parser(prog: str, description: str, epilog: str | None = None) -> argparse.ArgumentParser:
    return argparse.ArgumentParser(prog=prog, description=description, epilog=epilog,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)


def add_connection_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "IBM MQ connection (each also read from the environment variable in brackets)")
    for flag, _option, env, text in _CONNECTION_ARGUMENTS:
        group.add_argument(flag, default=os.environ.get(env), help=f"{text} [{env}]")
    group.add_argument("--reconnect", action="store_true",
                       default=os.environ.get("SPARK_MQ_RECONNECT", "").lower() in ("1", "true", "yes"),
                       help="reconnect automatically to a multi-instance queue manager [SPARK_MQ_RECONNECT]")


def add_embedded_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("embedded queue manager (used when no --conn-name/--ccdt-url is given)")
    group.add_argument("--data-dir", help="keep the embedded queue manager's data here (default: a temp dir)")
    group.add_argument("--mqsc", default=DEFAULT_MQSC,
                       help=f"MQSC file with the queue definitions (default: {os.path.relpath(DEFAULT_MQSC)})")


def add_extra_option_arguments(parser: argparse.ArgumentParser, *kinds: str) -> None:
    """--read-option KEY=VALUE / --write-option KEY=VALUE: any other connector option."""
    group = parser.add_argument_group("more connector options")
    for kind in kinds:
        group.add_argument(f"--{kind}-option", action="append", default=[], metavar="KEY=VALUE",
                           dest=f"{kind}_options",
                           help=f"pass an option to the {kind}er as is (repeatable), e.g. maxBytesPerTrigger=8388608")


def add_trigger_arguments(parser: argparse.ArgumentParser, default: str = "available-now") -> None:
    group = parser.add_argument_group("trigger")
    group.add_argument("--trigger", choices=("available-now", "processing-time"), default=default,
                       help="available-now: process what is on the queue now, then stop; "
                            f"processing-time: keep running (default: {default})")
    group.add_argument("--interval", default="5 seconds",
                       help="micro-batch interval for --trigger processing-time (default: '5 seconds')")
    group.add_argument("--run-seconds", type=float, default=0.0,
                       help="with --trigger processing-time: stop after this many seconds (default: 0 = run "
                            "until interrupted)")


def connection_options(args: argparse.Namespace) -> dict[str, str]:
    """The Spark options (connector names) for the connection arguments that were given."""
    options = {}
    for flag, option, _env, _text in _CONNECTION_ARGUMENTS:
        value = getattr(args, flag[2:].replace("-", "_"))
        if value not in (None, ""):
            options[option] = value
    if getattr(args, "reconnect", False):
        options["reconnect"] = "true"
    return options


def key_values(items: Iterable[str], flag: str) -> dict[str, str]:
    result = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise JobError(f"{flag}: expected KEY=VALUE, got {item!r}")
        result[key.strip()] = value
    return result


def positive(text: str) -> int:
    """argparse type: an integer of at least 1."""
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected an integer of at least 1, got {text!r}")
    return number


# --------------------------------------------------------------------------------------
# Queue manager: the given one, or an embedded one for a local run
# --------------------------------------------------------------------------------------

@contextlib.contextmanager
def queue_manager(args: argparse.Namespace, announce: bool = True) -> Iterator[dict[str, str]]:
    """Yields the connection options; starts an embedded queue manager when none is given."""
    options = connection_options(args)
    if "connName" in options or "ccdtUrl" in options:
        yield options
        return
    if not os.path.exists(args.mqsc):
        raise JobError(f"--mqsc: no such file {args.mqsc!r} (it defines the queues the job uses)")
    from spark_mq.embedded import EmbeddedQueueManager
    data_dir = args.data_dir or tempfile.mkdtemp(prefix="spark-mq-qmgr-")
    manager = EmbeddedQueueManager(data_dir, name=options.get("queueManager", "QM1"), port=0, mqsc=args.mqsc)
    manager.start()
    if announce:
        print(f"started embedded queue manager {manager.name} at {manager.conn_name} (data in {data_dir})",
              flush=True)
    try:
        yield {**options, "queueManager": manager.name, "connName": manager.conn_name,
               "channel": manager.channel, "transport": "embedded"}
    finally:
        manager.stop()
        if not args.data_dir:
            shutil.rmtree(data_dir, ignore_errors=True)


def require_connection(args: argparse.Namespace) -> dict[str, str]:
    """The connection options of a job that works on an existing queue manager."""
    options = connection_options(args)
    if "connName" not in options and "ccdtUrl" not in options:
        raise JobError("no queue manager given: pass --conn-name host(port) (or --ccdt-url), or set "
                       "SPARK_MQ_CONN_NAME; `python -m spark_mq.embedded --data-dir DIR --mqsc "
                       "mqsc/spark-mq.mqsc` runs a local one")
    return options


def csv_list(text: str | None) -> list[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


class MQ:
    """A plain ibmmq connection on the driver: loading messages, queue depths.

    Deliberately not the connector: the quickstart shows that messages put by any MQ
    application flow through Spark."""

    def __init__(self, options: dict[str, str]):
        from spark_mq.connection_options import ConnectionOptions
        from spark_mq.mq.client import connect, load_ibmmq
        parsed = ConnectionOptions.parse(options)
        self.ibmmq = load_ibmmq(parsed.transport)
        self.qmgr = connect(parsed, "connecting the job's own MQ connection")

    def put_many(self, queue: str, payloads: Iterable[bytes], commit_every: int = 1000,
                 on_progress: Callable[[int], None] | None = None) -> int:
        """Persistent puts under syncpoint, committed every `commit_every` messages."""
        ibmmq = self.ibmmq
        handle = self._open(queue, ibmmq.CMQC.MQOO_OUTPUT | ibmmq.CMQC.MQOO_FAIL_IF_QUIESCING)
        pmo = ibmmq.PMO(Options=ibmmq.CMQC.MQPMO_SYNCPOINT | ibmmq.CMQC.MQPMO_NEW_MSG_ID
                        | ibmmq.CMQC.MQPMO_ASYNC_RESPONSE | ibmmq.CMQC.MQPMO_FAIL_IF_QUIESCING)
        count = 0
        try:
            for payload in payloads:
                md = ibmmq.MD(Persistence=ibmmq.CMQC.MQPER_PERSISTENT, Format=ibmmq.CMQC.MQFMT_STRING)
                handle.put(payload, md, pmo)
                count += 1
                if count % commit_every == 0:
                    self._commit(f"committing puts to {queue}")
                    if on_progress:
                        on_progress(count)
            self._commit(f"committing puts to {queue}")
        except self.ibmmq.MQMIError as exc:
            self._backout()
            raise self._describe(exc, f"putting message {count + 1} on {queue}") from exc
        finally:
            handle.close()
        return count

    def depth(self, queue: str) -> int:
        ibmmq = self.ibmmq
        handle = self._open(queue, ibmmq.CMQC.MQOO_INQUIRE)
        try:
            return int(handle.inquire(ibmmq.CMQC.MQIA_CURRENT_Q_DEPTH))
        except ibmmq.MQMIError as exc:
            raise self._describe(exc, f"inquiring the depth of {queue}") from exc
        finally:
            handle.close()

    def close(self) -> None:
        try:
            self.qmgr.disconnect()
        except self.ibmmq.MQMIError:
            pass

    def _open(self, queue: str, options: int):
        try:
            return self.ibmmq.Queue(self.qmgr, queue, options)
        except self.ibmmq.MQMIError as exc:
            raise self._describe(exc, f"opening queue {queue}") from exc

    def _commit(self, action: str) -> None:
        try:
            self.qmgr.commit()
        except self.ibmmq.MQMIError as exc:
            raise self._describe(exc, action) from exc

    def _backout(self) -> None:
        try:
            self.qmgr.backout()
        except self.ibmmq.MQMIError:
            pass

    @staticmethod
    def _describe(exc: Exception, action: str) -> Exception:
        from spark_mq.mq.client import describe
        return describe(exc, action)

    def __enter__(self) -> MQ:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


# --------------------------------------------------------------------------------------
# Spark
# --------------------------------------------------------------------------------------

def spark_session(app_name: str, conf: dict[str, str] | None = None):
    """The job's SparkSession with the "mq" source registered.

    Under spark-submit the master and resources come from spark-submit; run with plain
    `python` it is local[*]. Python workers default to this interpreter (the one that has
    the package), unless PYSPARK_PYTHON says otherwise."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession
    builder = SparkSession.builder.appName(app_name)
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(os.environ.get("SPARK_MQ_LOG_LEVEL", "WARN"))
    import spark_mq
    spark_mq.register(spark)
    return spark


def apply_trigger(writer, args: argparse.Namespace):
    if args.trigger == "available-now":
        return writer.trigger(availableNow=True)
    return writer.trigger(processingTime=args.interval)


def await_query(query, args: argparse.Namespace, monitor: ProgressMonitor) -> None:
    """Wait for an available-now query to finish, or run a processing-time one for
    --run-seconds (forever when 0), printing progress; stop it on Ctrl-C."""
    deadline = time.monotonic() + args.run_seconds if args.trigger == "processing-time" and args.run_seconds else None
    try:
        while query.isActive:
            query.awaitTermination(1.0)
            monitor.poll()
            if deadline is not None and time.monotonic() >= deadline:
                # Let the running batch finish so that its MQ unit of work is committed.
                query.stop()
                break
    except KeyboardInterrupt:
        print("\ninterrupted: stopping the query", file=sys.stderr, flush=True)
        query.stop()
    monitor.poll()
    if query.exception() is not None:
        raise query.exception()


def wait_for_pipeline(queries: list, monitor: ProgressMonitor, last_label: str, expected: int,
                      mq: MQ, drained: list[str], timeout: float, settle: float = 15.0) -> float:
    """Run the queries until the last one has output `expected` rows, or, failing that,
    until the finite queries have ended and the queues in `drained` have stayed empty for
    `settle` seconds; then stop them.

    Returns the monotonic time at which the pipeline was seen complete. A query that fails
    raises its exception; past `timeout` seconds a JobError says how far it got."""
    deadline = time.monotonic() + timeout
    empty_since = None
    try:
        while True:
            for query in queries:
                if not query.isActive and query.exception() is not None:
                    raise query.exception()
            monitor.poll()
            now = time.monotonic()
            if monitor.rows(last_label) >= expected or all(not query.isActive for query in queries):
                done_at = now
                break
            finite_done = all(not q.isActive for q in queries[:-1])
            if finite_done and all(mq.depth(queue) == 0 for queue in drained):
                empty_since = empty_since or now
                if now - empty_since >= settle:
                    done_at = empty_since
                    break
            else:
                empty_since = None
            if now > deadline:
                raise JobError(f"the pipeline did not finish within {timeout:.0f} s: "
                               f"{monitor.rows(last_label):,} of {expected:,} rows out (see --timeout)")
            time.sleep(0.5)
        # The last query's last unit of work is committed on its next trigger: give the
        # queues a moment to show empty before stopping, so the depths printed are final.
        drain_deadline = time.monotonic() + 30
        while queries[-1].isActive and time.monotonic() < drain_deadline:
            if all(mq.depth(queue) == 0 for queue in drained):
                break
            time.sleep(0.5)
    finally:
        for query in queries:
            if query.isActive:
                query.stop()
    monitor.poll()
    for query in queries:
        if query.exception() is not None:
            raise query.exception()
    return done_at


# --------------------------------------------------------------------------------------
# Progress
# --------------------------------------------------------------------------------------

@dataclass
class _Tracked:
    label: str
    query: object
    seen: set = field(default_factory=set)
    rows: int = 0
    batches: int = 0
    first_rows: int = 0                 # rows of the first batch with data
    first_done: float | None = None     # when it was seen done
    last_done: float | None = None


@dataclass
class ProgressMonitor:
    """Prints one line per micro-batch with data of each query, from Spark's query progress."""

    expected: int | None = None
    depth: Callable[[], str] | None = None
    out: object = sys.stdout
    tracked: list[_Tracked] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    def track(self, label: str, query) -> None:
        self.tracked.append(_Tracked(label, query))

    def rows(self, label: str) -> int:
        return next(t.rows for t in self.tracked if t.label == label)

    def batches(self, label: str) -> int:
        return next(t.batches for t in self.tracked if t.label == label)

    def steady_rate(self, label: str) -> float | None:
        """Rows/s after the first micro-batch (which also pays for Spark's start-up)."""
        tracked = next(t for t in self.tracked if t.label == label)
        if tracked.first_done is None or tracked.last_done is None or tracked.last_done <= tracked.first_done:
            return None
        return (tracked.rows - tracked.first_rows) / (tracked.last_done - tracked.first_done)

    def poll(self) -> None:
        for tracked in self.tracked:
            try:
                progresses = tracked.query.recentProgress
            except Exception:  # the query's JVM side is gone; nothing more to show
                continue
            for progress in progresses:
                self._show(tracked, progress)

    def _show(self, tracked: _Tracked, progress) -> None:
        # An idle trigger reports the batch id that runs next, with no rows; the batch that
        # then runs reports the same id. So a progress is known by its id AND timestamp.
        key = (progress.batchId, progress.timestamp)
        if key in tracked.seen:
            return
        tracked.seen.add(key)
        rows = int(progress.numInputRows or 0)
        if rows == 0:
            return
        tracked.rows += rows
        tracked.batches += 1
        now = time.monotonic()
        if tracked.first_done is None:
            tracked.first_rows, tracked.first_done = rows, now
        tracked.last_done = now
        rate = progress.processedRowsPerSecond or 0.0
        total = f"{tracked.rows:,}" + (f"/{self.expected:,}" if self.expected else "")
        line = (f"[{tracked.label}] t+{time.monotonic() - self.started:5.1f}s batch {progress.batchId}: "
                f"{rows:,} rows at {rate:,.0f} rows/s (total {total})")
        if self.depth is not None:
            line += f"  {self.depth()}"
        print(line, file=self.out, flush=True)


# --------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------

_CONNECTOR_ERROR = re.compile(r"(MQOptionError|MQConnectorError|JobError)[:]\s*(.+)")


def explain(exc: BaseException) -> str:
    """The line a user needs from an exception, even when Spark wrapped it in its own."""
    text = str(exc)
    match = _CONNECTOR_ERROR.search(text)
    if match:
        return match.group(2).strip()
    if type(exc).__name__ in ("MQOptionError", "MQConnectorError", "JobError"):
        return text
    lines = [line for line in text.splitlines() if line.strip()]
    head = "\n".join(lines[:12])
    return f"{type(exc).__name__}: {head}"


def run(main: Callable[[], int | None]) -> None:
    """Run a job's main(): exit 0 on success, print a clear error and exit 1 otherwise."""
    try:
        code = main() or 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        code = 130
    except Exception as exc:  # noqa: BLE001 - the job's last line of defence: say what failed
        print(f"error: {explain(exc)}", file=sys.stderr, flush=True)
        if os.environ.get("SPARK_MQ_TRACEBACK"):
            raise
        code = 1
    sys.exit(code)
