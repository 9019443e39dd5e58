"""The jobs' command lines: argument groups shared by the jobs, argparse types, and `run`,
which turns a job's outcome into its exit status and a one-line error.

Every connection argument can also come from an environment variable (SPARK_MQ_CONN_NAME,
...) so that a container can be configured by its environment.

A password never comes on a command line, where every local user reads it (ps,
/proc/PID/cmdline): it comes from SPARK_MQ_PASSWORD, from a file only its owner can read
(--password-file, or SPARK_MQ_PASSWORD_FILE; refused, as ssh refuses a key, when group or
others may read or write it), or, when --user is given without one and standard input is a
terminal, from a prompt (as runmqsc -u USER asks). --password VALUE is refused, naming
these three ways; so is a password among --read-option/--write-option, and so is a token
(a credentialsProvider that returns {"token": ...} keeps it off the command line).
"""
from __future__ import annotations

import argparse
import getpass
import os
import sys
from collections.abc import Callable, Iterable

from spark_mq.jobs.ctrl_c import Interrupted, resume_command
from spark_mq.jobs.job_errors import JobError, explain
from spark_mq.mqi.private_files import PrivateFileError, read_private

# (argument, Spark option, environment variable, help)
CONNECTION_ARGUMENTS = (
    ("--queue-manager", "queueManager", "SPARK_MQ_QUEUE_MANAGER", "queue manager name (default: QM1)"),
    ("--conn-name", "connName", "SPARK_MQ_CONN_NAME",
     "listener address in MQ syntax host(port), comma-separated for multi-instance"),
    ("--channel", "channel", "SPARK_MQ_CHANNEL", "server-connection channel (default: DEV.APP.SVRCONN)"),
    ("--user", "user", "SPARK_MQ_USER",
     "user id sent in the MQCSP; its password comes from SPARK_MQ_PASSWORD, --password-file, or "
     "a prompt at a terminal"),
    ("--transport", "transport", "SPARK_MQ_TRANSPORT",
     "auto | ibmmq | embedded (default: auto = IBM's client when libmqm_r loads, else embedded)"),
    ("--cipher-spec", "cipherSpec", "SPARK_MQ_CIPHER_SPEC", "TLS CipherSpec of the channel, e.g. ANY_TLS13"),
    ("--key-repository", "keyRepository", "SPARK_MQ_KEY_REPOSITORY",
     "TLS key repository stem (without .kdb) on every node"),
    ("--ccdt-url", "ccdtUrl", "SPARK_MQ_CCDT_URL", "client channel definition table (file:// or http(s)://)"),
)

#: the password's environment variable (never an argument: see the module's docstring)
PASSWORD_ENVIRONMENT = "SPARK_MQ_PASSWORD"
PASSWORD_FILE_ENVIRONMENT = "SPARK_MQ_PASSWORD_FILE"
PASSWORD_WAYS = (f"give it in the environment variable {PASSWORD_ENVIRONMENT}, in a file only you "
                 "can read (--password-file PATH, chmod 600), or type it when asked (--user USER "
                 "at a terminal, without a password)")
PASSWORD_REFUSED = ("a password on the command line is readable by every local user (ps, "
                    f"/proc/PID/cmdline): {PASSWORD_WAYS}")


class _RefusePassword(argparse.Action):
    """--password VALUE: refused with the ways that keep the password private."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        parser.error(f"{option_string}: {PASSWORD_REFUSED}")


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
    group.add_argument("--password-file", metavar="PATH", default=os.environ.get(PASSWORD_FILE_ENVIRONMENT),
                       help="file holding the password sent in the MQCSP (its first line), readable "
                            f"by its owner only [{PASSWORD_FILE_ENVIRONMENT}]; else the environment "
                            f"variable {PASSWORD_ENVIRONMENT}, else a prompt when --user is given at "
                            "a terminal. Never --password VALUE, which every local user could read")
    group.add_argument("--password", nargs="?", action=_RefusePassword, dest="refused_password",
                       help=argparse.SUPPRESS)
    group.add_argument("--reconnect", action="store_true",
                       default=os.environ.get("SPARK_MQ_RECONNECT", "").lower() in ("1", "true", "yes"),
                       help="reconnect automatically to a multi-instance queue manager [SPARK_MQ_RECONNECT]")


def environment_options(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The connector options the SPARK_MQ_* variables set (connName, queueManager, ...,
    reconnect), for code that has no command line: a declarative pipeline's definitions."""
    environ = dict(os.environ if environ is None else environ)
    options = {option: environ[env] for _flag, option, env, _text in CONNECTION_ARGUMENTS if environ.get(env)}
    if environ.get(PASSWORD_ENVIRONMENT):
        options["password"] = environ[PASSWORD_ENVIRONMENT]
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
                           type=_no_password,
                           dest=f"{kind}_options",
                           help=f"pass an option to the {side} as is (repeatable), e.g. {example}")


def _no_password(item: str) -> str:
    """argparse type of --read-option/--write-option: refuses a password before Spark starts."""
    key = item.partition("=")[0].strip().lower()
    if key == "password":
        raise argparse.ArgumentTypeError(f"password=...: {PASSWORD_REFUSED}")
    if key == "token":
        raise argparse.ArgumentTypeError(
            "token=...: a token on the command line is readable by every local user (ps, "
            "/proc/PID/cmdline); name a callable that returns {'token': ...} instead: "
            "credentialsProvider=module:function")
    return item


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
    password = _password(args, options.get("user"))
    if password:
        options["password"] = password
    if getattr(args, "reconnect", False):
        options["reconnect"] = "true"
    return options


def _password(args: argparse.Namespace, user: str | None) -> str | None:
    """The password, once per run (a prompt is not repeated): --password-file, else the
    environment, else a prompt when a user is named and standard input is a terminal."""
    if not hasattr(args, "resolved_password"):
        path = getattr(args, "password_file", None)
        if path:
            args.resolved_password = read_password_file(path)
        elif os.environ.get(PASSWORD_ENVIRONMENT):
            args.resolved_password = os.environ[PASSWORD_ENVIRONMENT]
        elif user and sys.stdin is not None and sys.stdin.isatty():
            args.resolved_password = getpass.getpass(f"password for {user}: ")
        else:
            args.resolved_password = None
    return args.resolved_password


def read_password_file(path: str) -> str:
    """The first line of `path`, which only its owner may read or write (as ssh wants of a key)."""
    try:
        lines = read_private(path).splitlines()
    except PrivateFileError as exc:
        raise JobError(f"--password-file {exc}") from None
    if not lines or not lines[0]:
        raise JobError(f"--password-file {path}: the file is empty; its first line is the password")
    return lines[0]


def key_values(items: Iterable[str], flag: str) -> dict[str, str]:
    """KEY=VALUE arguments (of `flag`, named in the error) as a dict."""
    result = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise JobError(f"{flag}: expected KEY=VALUE, got {item!r}")
        if key.strip().lower() == "password":
            raise JobError(f"{flag} password=...: {PASSWORD_REFUSED}")
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
