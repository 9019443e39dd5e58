"""Starting and stopping an embedded queue manager process from Python.

Runs in the application's process; the queue manager itself runs in the child process it
starts (`python -m spark_mq.embedded`, see server_process.py).

The queue manager ends with the process that started it, however that process ends (SIGKILL
included): it holds the write end of a pipe whose read end the child watches (`--owner-fd`,
see server_process.py for why a pipe), unless `outlive_owner` asks it to run on
(`spark-mq-qmgr start --background`). The write end is not inherited by what this process
starts (Spark's JVM, say); a fork() without exec would share it, and the queue manager then
runs until the forked child has ended too.

The users and their passwords go to the child on its standard input (--users-stdin), never on
its command line. The child's data directory is 0700 and its files 0600, the log included.

A connect without a channel reaches the queue manager that this process started through its
bindings socket, DATA_DIR/qmgr.sock (registered in client/connection.py's `local_bindings`
once the queue manager is ready), as a server installation connects to a local queue manager.
`run_mqsc` sends its commands to the command server on such a bindings connection, as the
queue manager's administrator: the user `admin` of `users` (IBM's developer configuration has
it in mqm) or, when `users` has no administrator, one made up for this object with a random
password; without users the queue manager is open and no password is needed.
"""
from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence

from spark_mq.embedded.data_directory import BINDINGS_SOCKET, READY_FILE, USERS_ENVIRONMENT

DEFAULT_CHANNEL = "DEV.APP.SVRCONN"
ADMIN_USER = "admin"
ADMIN_GROUP = "mqm"
#: a user's password and groups, where `users` gives groups (a plain string: the password)
UserEntry = tuple[str, Sequence[str]]


class EmbeddedQueueManagerError(RuntimeError):
    pass


class EmbeddedQueueManager:
    """An embedded queue manager in its own process, bound to loopback.

    Restarting on the same data_dir keeps definitions and persistent messages. `users`: user
    -> password, or (password, groups); with users the queue manager enforces security
    (connection authentication, CHLAUTH, authority records), without them it is open, and
    then it listens beyond loopback (`host`) only with `insecure`. `administrator`: add an
    administrator of its own for run_mqsc when `users` has none (see the module docstring).
    `metrics_port`: serve the queue manager's metrics in Prometheus's format on
    `metrics_host` (0: a free port, then `metrics_port`/`metrics_url` once started).
    `outlive_owner`: keep running after this process ends (else it stops with it)."""

    def __init__(self, data_dir: str, name: str = "QM1", port: int = 0,
                 mqsc: str | None = None, users: Mapping[str, str | UserEntry] | None = None,
                 host: str = "127.0.0.1", heartbeat_interval: float | None = None,
                 tls_key_repository: str | None = None, insecure: bool = False,
                 administrator: bool = True, queue_memory: int | None = None,
                 metrics_port: int | None = None, metrics_host: str = "127.0.0.1",
                 outlive_owner: bool = False):
        self.data_dir = os.path.abspath(data_dir)
        self.name = name
        self.channel = DEFAULT_CHANNEL
        self.host = host
        self.requested_port = port
        self.port: int | None = None
        self.mqsc = mqsc
        self.users = users
        self.heartbeat_interval = heartbeat_interval    # None: IBM MQ's default, 300 s
        self.tls_key_repository = tls_key_repository    # None: SSLKEYR as stored
        self.insecure = insecure
        self.queue_memory = queue_memory                # None: --queue-memory's default
        self.requested_metrics_port = metrics_port      # None: no metrics endpoint; 0: any port
        self.metrics_host = metrics_host
        self.metrics_port: int | None = None
        self._metrics_tls = False
        self._admin = _administrator(users, administrator)
        self.outlive_owner = outlive_owner
        self._process: subprocess.Popen | None = None
        self._owner_end: int | None = None   # the write end of the owner's pipe
        # the entries of another queue manager of the same name that start() replaced
        self._shadowed: tuple[str | None, str | None] = (None, None)

    # --- lifecycle -------------------------------------------------------------------------
    def start(self, timeout: float = 30.0) -> EmbeddedQueueManager:
        if self.running:
            return self
        os.makedirs(self.data_dir, mode=0o700, exist_ok=True)
        os.chmod(self.data_dir, 0o700)
        ready = os.path.join(self.data_dir, READY_FILE)
        if os.path.exists(ready):
            os.unlink(ready)
        command = [sys.executable, "-m", "spark_mq.embedded", "--data-dir", self.data_dir,
                   "--name", self.name, "--host", self.host,
                   "--port", str(self.port or self.requested_port), "--ready-file", ready]
        if self.heartbeat_interval is not None:
            command += ["--heartbeat-interval", str(self.heartbeat_interval)]
        if self.queue_memory is not None:
            command += ["--queue-memory", str(self.queue_memory)]
        if self.tls_key_repository:
            command += ["--tls-key-repository", os.path.abspath(self.tls_key_repository)]
        if self.requested_metrics_port is not None:
            command += ["--metrics-port", str(self.metrics_port or self.requested_metrics_port),
                        "--metrics-host", self.metrics_host]
        if self.mqsc:
            command += ["--mqsc", self._mqsc_file(self.mqsc)]
        if self.insecure:
            command.append("--insecure")
        entries = self._user_entries()
        if entries:
            command.append("--users-stdin")
        log_path = os.path.join(self.data_dir, "qmgr.log")
        log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.fchmod(log, 0o600)
        env = dict(os.environ)
        env.pop(USERS_ENVIRONMENT, None)   # the users are this object's, given on stdin
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_package_parent(), env.get("PYTHONPATH")]))
        watched: tuple[int, ...] = ()
        if not self.outlive_owner:
            read_end, self._owner_end = os.pipe()   # both ends close on exec: not inherited
            watched = (read_end,)
            command += ["--owner-fd", str(read_end)]
        try:
            # a session of its own: a terminal's Ctrl-C reaches the owner, which decides
            self._process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True,
                stdin=subprocess.PIPE if entries else subprocess.DEVNULL, pass_fds=watched)
        except BaseException:
            self._release_owner_end()
            raise
        finally:
            os.close(log)
            for fd in watched:
                os.close(fd)
        if entries and self._process.stdin is not None:
            try:
                self._process.stdin.write("".join(f"{entry}\n" for entry in entries).encode())
                self._process.stdin.close()
            except OSError:
                pass   # the child has already exited: the wait below reports why
        deadline = time.monotonic() + timeout
        while not os.path.exists(ready):
            if self._process.poll() is not None:
                self._release_owner_end()
                raise EmbeddedQueueManagerError(
                    f"the embedded queue manager exited with code {self._process.returncode}: "
                    f"{_last_line(os.path.join(self.data_dir, 'qmgr.log'))}")
            if time.monotonic() > deadline:
                self.stop()
                raise EmbeddedQueueManagerError("the embedded queue manager did not start in time")
            time.sleep(0.02)
        with open(ready) as handle:
            found = json.load(handle)
        self.port, self.metrics_port = found["port"], found.get("metrics_port")
        self._metrics_tls = bool(found.get("metrics_tls"))
        from spark_mq.embedded.client.connection import local_bindings, local_queue_managers
        if local_bindings.get(self.name) != self.bindings_socket:
            # another of this process's queue managers has the name (tests start several):
            # it is found again once this one stops
            self._shadowed = (local_queue_managers.get(self.name), local_bindings.get(self.name))
        local_queue_managers[self.name] = self.conn_name  # found by an MQCD without CONNAME
        local_bindings[self.name] = self.bindings_socket  # found by a connect without a channel
        return self

    def _unregister(self) -> None:
        """The queue manager of the same name that this one shadowed is found by name again
        once this one stops. With none, the name stays this one's: a connect to it answers
        MQRC_Q_MGR_NOT_AVAILABLE, as IBM MQ answers for a queue manager that is not running."""
        from spark_mq.embedded.client.connection import local_bindings, local_queue_managers
        conn_name, socket_path = self._shadowed
        if local_bindings.get(self.name) != self.bindings_socket or socket_path is None:
            return
        local_bindings[self.name] = socket_path
        if conn_name is not None:
            local_queue_managers[self.name] = conn_name
        self._shadowed = (None, None)

    def _user_entries(self) -> list[str]:
        """USER:PASSWORD[:GROUPS] lines for the child's --users-stdin."""
        users: dict[str, str | UserEntry] = dict(self.users or {})
        if self._admin is not None and self._admin[0] not in users:
            users[self._admin[0]] = (self._admin[1], (ADMIN_GROUP,))
        entries = []
        for user, entry in users.items():
            password, groups = _password_and_groups(entry)
            # the last colon starts the groups: a password with a colon needs the field
            tail = f":{','.join(groups)}" if groups or ":" in password else ""
            entries.append(f"{user}:{password}{tail}")
        return entries

    def stop(self, timeout: float = 10.0) -> None:
        """Clean stop (SIGTERM); safe when the process has already died."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._release_owner_end()
        self._unregister()

    def kill(self) -> None:
        """Crash the queue manager (SIGKILL), as a power cut would."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        self._process = None
        self._release_owner_end()

    def _release_owner_end(self) -> None:
        end, self._owner_end = self._owner_end, None
        if end is not None:
            os.close(end)

    def run_mqsc(self, text: str) -> str:
        """Run MQSC commands on the running queue manager, as its administrator (see the
        module docstring); returns runmqsc-style output."""
        from spark_mq.embedded.client.admin import MQSCRefused, run_script, session_in_bindings
        if self.port is None:
            raise EmbeddedQueueManagerError("the embedded queue manager has not been started")
        if self.users is not None and self._admin is None:
            raise EmbeddedQueueManagerError(
                f"run_mqsc needs an administrator: users has {ADMIN_USER!r} outside group "
                f"{ADMIN_GROUP!r}; give it group {ADMIN_GROUP!r}")
        user, password = self._admin or (None, None)
        try:
            with session_in_bindings(self.bindings_socket, user, password,
                                     qm_name=self.name) as session:
                ok, output = run_script(session, text)
        except MQSCRefused as exc:
            raise EmbeddedQueueManagerError(str(exc)) from None
        if not ok:
            raise EmbeddedQueueManagerError(output)
        return output

    def __enter__(self) -> EmbeddedQueueManager:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # --- facts -----------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def conn_name(self) -> str:
        return f"{self.host}({self.port})"

    @property
    def metrics_url(self) -> str | None:
        """Where the metrics endpoint answers (https when the key repository has the queue
        manager's certificate); None without one."""
        if self.metrics_port is None:
            return None
        return f"{'https' if self._metrics_tls else 'http'}://{self.metrics_host}:{self.metrics_port}/metrics"

    @property
    def bindings_socket(self) -> str:
        """The queue manager's bindings socket (server/network/bindings.py), in its data directory."""
        return os.path.join(self.data_dir, BINDINGS_SOCKET)

    def _mqsc_file(self, mqsc: str) -> str:
        """The file of the start-up MQSC: `mqsc` itself when it names one, else a file of its text."""
        if os.path.exists(mqsc) if "\n" not in mqsc else False:
            return os.path.abspath(mqsc)
        handle = tempfile.NamedTemporaryFile("w", suffix=".mqsc", dir=self.data_dir, delete=False)
        with handle:
            handle.write(mqsc)
        return handle.name


def _administrator(users: Mapping[str, str | UserEntry] | None,
                   own: bool) -> tuple[str, str] | None:
    """(user, password) run_mqsc connects as: `admin` of `users` when in mqm (its default
    group), else, with `own`, a new `admin` with a random password; None: no administrator."""
    if users is None:
        return None   # an open queue manager: anyone administers it
    entry = users.get(ADMIN_USER)
    if entry is not None:
        password, groups = _password_and_groups(entry)
        return (ADMIN_USER, password) if not groups or ADMIN_GROUP in groups else None
    return (ADMIN_USER, secrets.token_urlsafe(24)) if own else None


def _password_and_groups(entry: str | UserEntry) -> tuple[str, Sequence[str]]:
    return (entry, ()) if isinstance(entry, str) else (entry[0], entry[1])


def _last_line(log: str) -> str:
    """The last line the queue manager wrote (why it did not start), and where the rest is."""
    try:
        with open(log, encoding="utf-8", errors="replace") as handle:
            lines = [line.strip() for line in handle if line.strip()]
    except OSError:
        lines = []
    return f"{lines[-1] if lines else 'no output'} (see {log})"


def _package_parent() -> str:
    """The folder that holds the spark_mq package (src/ in the repository), so that the
    child finds this package even when it is not installed."""
    here = os.path.abspath(__file__)            # .../spark_mq/embedded/client/process.py
    for _ in range(4):
        here = os.path.dirname(here)
    return here
