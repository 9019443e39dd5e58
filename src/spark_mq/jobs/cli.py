"""The jobs' command lines: argument groups shared by the jobs, argparse types, and `run`,
which turns a job's outcome into its exit status and a one-line error.

Every connection argument can also come from an environment variable (SPARK_MQ_CONN_NAME,
SPARK_MQ_PASSWORD, ...) so that passwords need not appear on a command line and a
container can be configured by its environment.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable

from spark_mq.jobs.ctrl_c import Interrupted, resume_command
from spark_mq.jobs.errors import JobError, explain

# (argument, Spark option, environment variable, help)
CONNECTION_ARGUMENTS = (
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


# --- parser and argument groups ---------------------------------------------------------------

def new_parser(prog: str, description: str | None, epilog: str | None = None) -> argparse.ArgumentParser:
    """A parser that shows the job's docstring as written, with --verbose."""
    parser = argparse.ArgumentParser(prog=prog, description=description, epilog=epilog,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--verbose", action="store_true",
                        help="Spark's own logging, and the full traceback of an error")
    return parser


def add_connection_arguments(parser: argparse.ArgumentParser) -> None:
    """--queue-manager, --conn-name, ... --reconnect, each defaulting to its environment variable."""
    group = parser.add_argument_group(
        "IBM MQ connection (each also read from the environment variable in brackets)")
    for flag, _option, env, text in CONNECTION_ARGUMENTS:
        group.add_argument(flag, default=os.environ.get(env), help=f"{text} [{env}]")
    group.add_argument("--reconnect", action="store_true",
                       default=os.environ.get("SPARK_MQ_RECONNECT", "").lower() in ("1", "true", "yes"),
                       help="reconnect automatically to a multi-instance queue manager [SPARK_MQ_RECONNECT]")


def environment_options(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The connector options the SPARK_MQ_* variables set (connName, queueManager, ...,
    reconnect), for code that has no command line: a declarative pipeline's definitions."""
    environ = dict(os.environ if environ is None else environ)
    options = {option: environ[env] for _flag, option, env, _text in CONNECTION_ARGUMENTS if environ.get(env)}
    if environ.get("SPARK_MQ_RECONNECT", "").lower() in ("1", "true", "yes"):
        options["reconnect"] = "true"
    return options


def add_embedded_arguments(parser: argparse.ArgumentParser, default_mqsc: str) -> None:
    """--data-dir and --mqsc of the embedded queue manager a local run starts.

    `default_mqsc` is the MQSC file the job ships with (mqsc/spark-mq.mqsc next to jobs/)."""
    default_mqsc = os.path.normpath(default_mqsc)
    group = parser.add_argument_group("embedded queue manager (used when no --conn-name/--ccdt-url is given)")
    group.add_argument("--data-dir", help="keep the embedded queue manager's data here (default: a temp dir)")
    group.add_argument("--mqsc", default=default_mqsc, help="MQSC file with the queue definitions "
                                                             f"(default: {os.path.relpath(default_mqsc)})")


# kind -> (who takes the option, an example option of that side)
_EXTRA_OPTION_KINDS = {
    "read": ("reader", "maxBytesPerTrigger=8388608"),
    "write": ("writer", "commitEvery=500"),
}


def add_extra_option_arguments(parser: argparse.ArgumentParser, *kinds: str) -> None:
    """--read-option KEY=VALUE / --write-option KEY=VALUE: any other connector option."""
    group = parser.add_argument_group("more connector options")
    for kind in kinds:
        side, example = _EXTRA_OPTION_KINDS[kind]
        group.add_argument(f"--{kind}-option", action="append", default=[], metavar="KEY=VALUE",
                           dest=f"{kind}_options",
                           help=f"pass an option to the {side} as is (repeatable), e.g. {example}")


def add_trigger_arguments(parser: argparse.ArgumentParser, default: str = "available-now") -> None:
    """--trigger available-now | processing-time, --interval and --run-seconds."""
    group = parser.add_argument_group("trigger")
    group.add_argument("--trigger", choices=("available-now", "processing-time"), default=default,
                       help="available-now: process what is on the queue now, then stop; "
                            f"processing-time: keep running (default: {default})")
    group.add_argument("--interval", default="5 seconds",
                       help="micro-batch interval for --trigger processing-time (default: '5 seconds')")
    group.add_argument("--run-seconds", type=float, default=0.0,
                       help="with --trigger processing-time: stop after this many seconds (default: 0 = run "
                            "until interrupted)")


# --- argparse types and parsed values -----------------------------------------------------------

def positive(text: str) -> int:
    """argparse type: an integer of at least 1."""
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected an integer of at least 1, got {text!r}")
    return number


def connection_options(args: argparse.Namespace) -> dict[str, str]:
    """The Spark options (connector names) for the connection arguments that were given."""
    options = {}
    for flag, option, _env, _text in CONNECTION_ARGUMENTS:
        value = getattr(args, flag[2:].replace("-", "_"))
        if value not in (None, ""):
            options[option] = value
    if getattr(args, "reconnect", False):
        options["reconnect"] = "true"
    return options


def key_values(items: Iterable[str], flag: str) -> dict[str, str]:
    """KEY=VALUE arguments (of `flag`, named in the error) as a dict."""
    result = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise JobError(f"{flag}: expected KEY=VALUE, got {item!r}")
        result[key.strip()] = value
    return result


def csv_list(text: str | None) -> list[str]:
    """'a, b,,c' -> ['a', 'b', 'c']."""
    return [part.strip() for part in (text or "").split(",") if part.strip()]


# --- exit status ------------------------------------------------------------------------------

def run(main: Callable[[], int | None]) -> None:
    """Run a job's main(): exit 0 on success, print a clear error and exit 1 otherwise.

    --verbose (or SPARK_MQ_TRACEBACK=1) shows the traceback too."""
    try:
        code = main() or 0
    except Interrupted as interrupted:
        print(f"stopped by Ctrl-C: {interrupted}\nto go on where it stopped: {resume_command()}",
              file=sys.stderr, flush=True)
        code = 130
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        code = 130
    except Exception as exc:  # noqa: BLE001 - the job's last line of defence: say what failed
        print(f"error: {explain(exc)}", file=sys.stderr, flush=True)
        if os.environ.get("SPARK_MQ_TRACEBACK") or "--verbose" in sys.argv:
            raise
        code = 1
    sys.exit(code)
