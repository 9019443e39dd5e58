"""The queue-manager process: its arguments, its start checks and its run, for
`python -m spark_mq.embedded --data-dir DIR` (__main__.py, which only calls `main`) and
`spark-mq-qmgr start` (shell/lifecycle.py: the same arguments, checks and run).

client/process.py and `spark-mq-qmgr start` start it, and it runs the MQSC start-up
scripts, the PCF command server (server/admin/command_server/), the listener
(server/network/listener.py) and the queue manager (server/verbs/qmgr.py) until SIGTERM or
SIGINT (exit status 0 after SIGTERM, 130 after SIGINT, as a shell tool stopped by Ctrl-C),
or, with --owner-fd, until the process that started it has ended.

An owner (client/process.py) passes the read end of a pipe whose write end only it holds:
when the owner ends, however it ends (SIGKILL included), the kernel closes that write end,
a read here sees end of file and the queue manager stops as on SIGTERM. A pipe rather than
Linux's prctl(PR_SET_PDEATHSIG): that signal fires when the *thread* that started the child
ends (a worker thread of the owner, say), not the owner's process, exists on Linux only, and
needs a preexec_fn, which is unsafe in a process with threads; a pipe's end of file is
portable and comes exactly when the last holder of the write end is gone.

Failures a person can fix (a busy port, a data directory another queue manager holds, an
unreadable MQSC file) end the process with one line on stderr and exit status 2.

Secrets stay private: users and their passwords never come on the command line (every local
user can read /proc/PID/cmdline) but from a file only the owner can read (--users-file), from
standard input (--users-stdin, what client/process.py uses) or from the environment
(SPARK_MQ_QMGR_USERS); the data directory is made 0700 and everything the queue manager
writes 0600 (umask 077). Without users the queue manager is open to whoever reaches it, so
it listens beyond loopback only when the operator says --insecure.

Besides TCP, the queue manager takes bindings connections on DATA_DIR/qmgr.sock
(server/network/bindings.py): local processes of the data directory's owner, named by the
OS. The files in the data directory that other processes look for (the lock, the ready
file, the bindings socket) are named in data_directory.py.
"""
from __future__ import annotations

import argparse
import errno
import fcntl
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from spark_mq.embedded.data_directory import BINDINGS_SOCKET, LOCK_FILE, READY_FILE, USERS_ENVIRONMENT
from spark_mq.embedded.server.admin.command_server import CommandServer
from spark_mq.embedded.server.admin.mqsc_apply import log_script, run_mqsc
from spark_mq.embedded.server.core.addresses import is_loopback
from spark_mq.embedded.server.core.mqsc_attributes import DEFAULT_MQSC
from spark_mq.embedded.server.core.queue_objects import DEFAULT_QUEUE_MEMORY
from spark_mq.embedded.server.core.security import security_state as security
from spark_mq.embedded.server.events import queue_manager as qmgr_events
from spark_mq.embedded.server.message_channels.initiator import ChannelInitiator
from spark_mq.embedded.server.network.bindings import BindingsListener
from spark_mq.embedded.server.network.listener import DEFAULT_MAX_CHANNELS, Server
from spark_mq.embedded.server.network.mqi_session import DEFAULT_CONNECT_TIMEOUT, DEFAULT_HEARTBEAT_INTERVAL
from spark_mq.embedded.server.network.tls import set_default_repository
from spark_mq.embedded.server.verbs.qmgr import QueueManager
from spark_mq.mqi.private_files import PrivateFileError, read_private

if TYPE_CHECKING:   # imported when --metrics-port asks for it: prometheus_client loads then
    from spark_mq.embedded.server.metrics import MetricsEndpoint

#: users as USER:PASSWORD[:GROUP,GROUP] lines, when no file or standard input gives them
_USERS_FORMAT = "USER:PASSWORD[:GROUP,GROUP]"


class StartError(Exception):
    """Why the queue manager cannot start, as one line a person can act on."""


def _within(kind: Callable[[str], float], low: float, high: float) -> Callable[[str], float]:
    """An argparse type: a number of `kind` from `low` to `high`; argparse's error names the
    option, and this message the bad value and the valid range."""
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not {'an integer' if kind is int else 'a number'}; valid: "
                f"{low} to {high}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is out of range; valid: {low} to {high}")
        return value
    return parse


def add_arguments(parser: argparse.ArgumentParser, data_dir: str | None = None) -> None:
    """The queue manager's arguments; `data_dir` is the default (None: --data-dir required)."""
    parser.add_argument("--data-dir", required=data_dir is None, default=data_dir,
                        help="where definitions and persistent messages live"
                             + (f" (default: {data_dir})" if data_dir else ""))
    parser.add_argument("--name", default="QM1", help="queue manager name (default: QM1)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default: 127.0.0.1, loopback only)")
    parser.add_argument("--port", type=_within(int, 0, 65535), default=1414,
                        help="TCP port; 0 picks a free one (default: 1414)")
    parser.add_argument("--mqsc", help="an MQSC file to run at every start (after the default objects)")
    parser.add_argument("--users-file", metavar="FILE",
                        help=f"the queue manager's users, one {_USERS_FORMAT} a line ('#' starts "
                             "a comment), in a file only you can read (mode 0600 or 0400). With "
                             "users, connection authentication, CHLAUTH rules and authority "
                             "records are enforced (group mqm: administrators; default groups: "
                             "mqm for admin, mqclient for others); none: no security at all. "
                             f"Also from standard input (--users-stdin) or ${USERS_ENVIRONMENT}")
    parser.add_argument("--users-stdin", action="store_true",
                        help="read the users, as in --users-file, from standard input")
    parser.add_argument("--insecure", action="store_true",
                        help="allow listening beyond loopback (--host) without users: anyone who "
                             "reaches the port may then do anything")
    # passwords on the command line are readable by every local user: refused with a pointer
    parser.add_argument("--user", action="append", default=[], help=argparse.SUPPRESS)
    parser.add_argument("--heartbeat-interval", type=_within(float, 0.1, 999_999),
                        default=DEFAULT_HEARTBEAT_INTERVAL, metavar="SECONDS",
                        help="end a client connection that sends nothing for this long between "
                             "calls, backing out its unit of work, as IBM MQ's channel HBINT "
                             "(default: 300)")
    parser.add_argument("--connect-timeout", type=_within(float, 0.1, 3600), default=DEFAULT_CONNECT_TIMEOUT,
                        metavar="SECONDS",
                        help="drop a connection that takes longer than this to send any frame "
                             "before its MQCONN, its first bytes included (default: 30)")
    parser.add_argument("--max-channels", type=_within(int, 1, 999_999_999),
                        default=DEFAULT_MAX_CHANNELS, metavar="N",
                        help="connections served at once, as IBM MQ's qm.ini MaxChannels; more "
                             "are refused with 2537 MQRC_CHANNEL_NOT_AVAILABLE (default: "
                             f"{DEFAULT_MAX_CHANNELS})")
    parser.add_argument("--queue-memory", type=_within(int, 4, 10_000_000),
                        default=os.environ.get("SPARK_MQ_QUEUE_MEMORY", str(DEFAULT_QUEUE_MEMORY)),
                        metavar="N",
                        help="messages a queue keeps in memory (20 times as many over all "
                             "queues); a deeper queue keeps the rest of its persistent "
                             "messages only in the store and reads them back in order "
                             f"(default: $SPARK_MQ_QUEUE_MEMORY or {DEFAULT_QUEUE_MEMORY})")
    parser.add_argument("--tls-key-repository", metavar="STEM",
                        help="the queue manager's key repository, as ALTER QMGR SSLKEYR at start: "
                             "STEM.crt and STEM.key (PEM) are its certificate, STEM.ca.pem the "
                             "CAs it trusts (default: DATA_DIR/ssl/key)")
    parser.add_argument("--metrics-port", type=_within(int, 0, 65535), metavar="N",
                        help="serve the queue manager's metrics on http(s)://HOST:N/metrics in "
                             "Prometheus's text format, named as IBM's mq-metric-samples name "
                             "them; 0 picks a free port (default: off). With users, scrapers "
                             "give one's user and password (HTTP basic); HTTPS when the key "
                             "repository has the queue manager's certificate")
    parser.add_argument("--metrics-host", default="127.0.0.1",
                        help="address the metrics endpoint listens on (default: 127.0.0.1; "
                             "beyond loopback only with users, and with TLS or --insecure)")
    parser.add_argument("--ready-file",
                        help="write {\"port\": N, \"pid\": N, \"metrics_port\": N} here once "
                             "accepting connections "
                             f"(default: {READY_FILE} in the data directory)")
    # the read end of the owner's pipe (module docstring): set by client/process.py only
    parser.add_argument("--owner-fd", type=int, help=argparse.SUPPRESS)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m spark_mq.embedded",
        description="An embedded IBM MQ-compatible queue manager for development and tests. "
                    "Code using IBM's ibmmq package reaches it after spark_mq.embedded.install().")
    add_arguments(parser)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    return run(parse_args(argv))


class Stop:
    """What ends the queue manager: SIGTERM, SIGINT or the owner's end (module docstring),
    whichever comes first."""

    def __init__(self) -> None:
        self.requested = threading.Event()
        self.cause = ""

    def request(self, cause: str) -> None:
        if not self.requested.is_set():
            self.cause = cause
            self.requested.set()

    @property
    def status(self) -> int:
        """The exit status of a clean stop: 130 after Ctrl-C (SIGINT), as a shell tool; else 0."""
        return 130 if self.cause == "SIGINT" else 0


def watch_owner(fd: int, stop: Stop) -> None:
    """Request the stop once the owner's end of the pipe `fd` is closed (module docstring)."""
    os.set_inheritable(fd, False)   # nothing this process starts keeps the owner's pipe open

    def wait() -> None:
        try:
            while os.read(fd, 64):
                pass
        except OSError:
            pass
        stop.request("owner ended")
    threading.Thread(target=wait, name="owner-watch", daemon=True).start()


def run(args: argparse.Namespace) -> int:
    """Serve until SIGINT/SIGTERM (or the owner's end); 0 after a clean stop (130 after
    SIGINT), 1 when an MQSC script fails, 2 when the queue manager cannot start (the reason
    on one line of stderr)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    os.umask(0o077)   # the store, WAL, log and ready file: the owner's only (module docstring)
    stop = Stop()
    if args.owner_fd is not None:
        watch_owner(args.owner_fd, stop)
    bindings: BindingsListener | None = None
    metrics: MetricsEndpoint | None = None
    try:
        entries = user_entries(args)
        users = parse_users(entries)
        check_exposure(args.host, users is not None, args.insecure)
        private_data_dir(args.data_dir)
        lock = hold_data_dir(args.data_dir)
        scripts = startup_scripts(args.data_dir, args.mqsc)
    except StartError as exc:
        print(f"cannot start queue manager {args.name}: {exc}", file=sys.stderr)
        return 2
    qmgr = QueueManager(args.name, args.data_dir, users, queue_memory=args.queue_memory)
    security.set_groups(qmgr, parse_groups(entries))
    command_server = CommandServer(qmgr)
    channel_initiator = ChannelInitiator(qmgr)
    try:
        for label, text in scripts:
            ok, output = run_mqsc(qmgr, text, existing_ok=True)
            if not ok:
                print(f"MQSC {label} failed:\n{output}", file=sys.stderr)
                return 1
        command_server.start()  # the scripts have made SYSTEM.ADMIN.COMMAND.QUEUE
        channel_initiator.start()
        set_default_repository(qmgr, os.path.join(os.path.abspath(args.data_dir), "ssl", "key"))
        if args.tls_key_repository:
            with qmgr.lock:
                qmgr.alter_qmgr({"SSLKEYR": os.path.abspath(args.tls_key_repository)})
        try:
            server = listen(qmgr, args.host, args.port, args.heartbeat_interval,
                            args.connect_timeout, args.max_channels)
            bindings = BindingsListener(qmgr, args.data_dir, args.heartbeat_interval)
            metrics = metrics_endpoint(qmgr, args)
        except StartError as exc:
            print(f"cannot start queue manager {args.name}: {exc}", file=sys.stderr)
            return 2
        except OSError as exc:
            print(f"cannot start queue manager {args.name}: cannot listen on "
                  f"{os.path.join(args.data_dir, BINDINGS_SOCKET)}: {exc.strerror or exc}",
                  file=sys.stderr)
            return 2
        threading.Thread(target=bindings.serve_forever, name="bindings", daemon=True).start()
        for label, _ in scripts:   # logged once started: a failed start stays one line
            log_script(qmgr, label)
        qmgr_events.started(qmgr)
        serve(server, args.name, args.host, args.ready_file or os.path.join(args.data_dir, READY_FILE),
              stop, metrics)
    finally:
        if metrics is not None:
            metrics.stop()
        if bindings is not None:
            bindings.stop()
        channel_initiator.stop()
        qmgr.shutdown()         # quiescing ends the command server's waiting get
        command_server.stop()
        lock.close()
    return stop.status


def user_entries(args: argparse.Namespace) -> list[str]:
    """The USER:PASSWORD[:GROUPS] entries of --users-file, --users-stdin and the environment
    (in that order; a later entry for a user wins); a password on the command line is refused."""
    if args.user:
        raise StartError("--user: passwords on the command line are readable by every local user "
                         f"(/proc/PID/cmdline); give {_USERS_FORMAT} lines in a file only you can "
                         f"read (--users-file FILE), on standard input (--users-stdin) or in "
                         f"${USERS_ENVIRONMENT}")
    entries: list[str] = []
    if args.users_file:
        entries += _lines(_private_text(args.users_file))
    if args.users_stdin:
        entries += _lines(sys.stdin.read())
    entries += _lines(os.environ.get(USERS_ENVIRONMENT, ""))
    return entries


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def _private_text(path: str) -> str:
    """A secrets file's text, refused unless only its owner (this user) may read it."""
    try:
        return read_private(path)
    except PrivateFileError as exc:
        raise StartError(f"--users-file: {exc}") from None


def check_exposure(host: str, with_users: bool, insecure: bool) -> None:
    """Without users anyone who reaches the port administers the queue manager: beyond
    loopback only when the operator says so (IBM's developer container needs passwords too)."""
    if with_users or insecure or is_loopback(host):
        return
    raise StartError(f"--host {host} reaches beyond this machine and the queue manager has no "
                     f"users, so anyone who reaches it could do anything: give users "
                     f"(--users-file, --users-stdin or ${USERS_ENVIRONMENT}), listen on "
                     "127.0.0.1, or say --insecure")


def private_data_dir(data_dir: str) -> None:
    """The data directory 0700 and what is already in it the owner's only (a directory
    created by an older version, or copied in, may be open to others)."""
    os.makedirs(data_dir, mode=0o700, exist_ok=True)
    for root, directories, files in os.walk(data_dir):
        for name, mode in [(root, 0o700), *((os.path.join(root, d), 0o700) for d in directories),
                           *((os.path.join(root, f), 0o600) for f in files)]:
            try:
                if not os.path.islink(name):
                    os.chmod(name, mode)
            except OSError:
                pass   # not ours: nothing we may change, and the queue manager does not write it
        directories[:] = [d for d in directories if not os.path.islink(os.path.join(root, d))]


def parse_users(entries: list[str]) -> dict[str, str] | None:
    """USER:PASSWORD[:GROUPS] entries as user -> password; None (no security) when there are
    none. A password with a colon in it needs the groups field, even if empty
    (`USER:PA:SS:`), since the last colon starts the groups."""
    if not entries:
        return None
    users = {}
    for number, entry in enumerate(entries, start=1):
        user, sep, rest = entry.partition(":")
        if not sep or not user:
            # the entry itself may hold a password: name it by its place only
            raise StartError(f"users: entry {number} is not {_USERS_FORMAT}")
        users[user] = rest.rpartition(":")[0] if ":" in rest else rest
    return users


def parse_groups(entries: list[str]) -> dict[str, tuple[str, ...]]:
    """The groups the user entries name (users without any get core/security/security_state.py's defaults)."""
    groups = {}
    for entry in entries:
        user, _, rest = entry.partition(":")
        if ":" in rest:
            named = tuple(group for group in rest.rpartition(":")[2].split(",") if group)
            if named:
                groups[user] = named
    return groups


def hold_data_dir(data_dir: str) -> IO[str]:
    """Lock the data directory for this process: two queue managers on one store would each
    believe they own its messages."""
    handle = open(os.path.join(data_dir, LOCK_FILE), "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise StartError(f"the data directory {data_dir} is in use by another running queue manager "
                         f"({_running_pid(data_dir)}); stop it first, or choose another --data-dir") from None
    return handle


def _running_pid(data_dir: str) -> str:
    try:
        with open(os.path.join(data_dir, READY_FILE)) as handle:
            return f"pid {json.load(handle)['pid']}"
    except (OSError, ValueError, KeyError):
        return "pid unknown"


def startup_scripts(data_dir: str, mqsc: str | None) -> list[tuple[str, str]]:
    """The default objects (on a fresh data directory) and the --mqsc file, as (label, text)."""
    scripts = [] if os.path.exists(os.path.join(data_dir, "qmgr.db")) else [("default objects", DEFAULT_MQSC)]
    if mqsc:
        try:
            with open(mqsc, encoding="utf-8") as handle:
                scripts.append((mqsc, handle.read()))
        except OSError as exc:
            raise StartError(f"--mqsc: cannot read {mqsc}: {exc.strerror}") from None
    return scripts


def listen(qmgr: QueueManager, host: str, port: int, heartbeat_interval: float,
           connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
           max_channels: int = DEFAULT_MAX_CHANNELS) -> Server:
    try:
        return Server(qmgr, host, port, heartbeat_interval, connect_timeout, max_channels)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise StartError(f"port {port} on {host} is already in use (another queue manager?); "
                             "choose another with --port N, or --port 0 for a free one") from None
        raise StartError(f"cannot listen on {host}({port}): {exc.strerror or exc}") from None


def metrics_endpoint(qmgr: QueueManager, args: argparse.Namespace) -> MetricsEndpoint | None:
    """The metrics endpoint --metrics-port asks for, listening (not yet serving); None: off."""
    if args.metrics_port is None:
        return None
    from spark_mq.embedded.server.metrics import MetricsEndpoint, MetricsError
    try:
        return MetricsEndpoint(qmgr, args.metrics_host, args.metrics_port, args.insecure)
    except MetricsError as exc:
        raise StartError(str(exc)) from None


def serve(server: Server, name: str, host: str, ready_file: str, requested: Stop | None = None,
          metrics: MetricsEndpoint | None = None) -> None:
    stop = requested or Stop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda number, _frame: stop.request(signal.Signals(number).name))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    # name and host too: the shell tools find a queue manager by its name from its data
    # directory (spark_mq/shell/registry.py)
    ready: dict[str, int | bool | str] = {"port": server.port, "pid": os.getpid(), "name": name,
                                          "host": host}
    if metrics is not None:
        metrics.start()
        ready.update(metrics_port=metrics.port, metrics_tls=metrics.tls)
        logging.info("queue manager %s metrics on %s", name, metrics.url)
    temporary = ready_file + ".tmp"
    with open(temporary, "w") as handle:
        json.dump(ready, handle)
    os.replace(temporary, ready_file)
    logging.info("queue manager %s listening on %s(%d)", name, host, server.port)
    # in slices: a signal the kernel hands to another thread runs its Python handler only
    # when this (main) thread next runs Python code
    while not stop.requested.wait(1.0):
        pass
    logging.info("queue manager %s stopping (%s)", name, stop.cause)
    server.stop()
