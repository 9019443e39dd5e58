"""A queue-manager process for the attack tests, started the way its operator starts it
(python -m spark_mq.embedded) with the options an attack test needs (a short connect
timeout, few channels, a starting resource limit), and what an attacker on the same host
can see of it: its port, its /proc entries and its log."""
from __future__ import annotations

import json
import os
import resource
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from spark_mq.embedded import wire

CHANNEL = "DEV.APP.SVRCONN"
QUEUE = "DEV.QUEUE.1"


class QueueManagerProcess:
    def __init__(self, data_dir: Path, *options: str, mqsc: str | None = None,
                 preexec_fn: Callable[[], None] | None = None, name: str = "QMATTACK"):
        self.name = name
        self.data_dir = data_dir
        data_dir.mkdir(parents=True, exist_ok=True)
        ready = data_dir / "ready.json"
        self.log_path = data_dir / "qmgr.log"
        command = [sys.executable, "-m", "spark_mq.embedded", "--data-dir", str(data_dir),
                   "--name", name, "--port", "0", "--ready-file", str(ready), *options]
        if mqsc is not None:
            script = data_dir / "start.mqsc"
            script.write_text(mqsc)
            command += ["--mqsc", str(script)]
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                            preexec_fn=preexec_fn, start_new_session=True)
        deadline = time.monotonic() + 60
        while not ready.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the queue manager did not start: {self.log()[-2000:]}")
            time.sleep(0.05)
        self.port = int(json.loads(ready.read_text())["port"])
        self.pid = self.process.pid
        self.conn_name = f"127.0.0.1({self.port})"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> QueueManagerProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # --- what /proc shows ----------------------------------------------------------------
    def status(self, field: str) -> int:
        """A figure of /proc/PID/status, e.g. VmRSS or VmHWM (KiB) or Threads."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
        raise KeyError(field)

    def open_files(self) -> int:
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def set_limit(self, which: int, soft: int) -> None:
        """prlimit --pid: an unprivileged owner may lower (and raise back) a soft limit."""
        _, hard = resource.prlimit(self.pid, which)
        resource.prlimit(self.pid, which, (soft, hard))

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for_log(self, text: str, seconds: float = 20) -> None:
        deadline = time.monotonic() + seconds
        while text not in self.log():
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} not logged in {seconds} s: {self.log()[-3000:]}")
            time.sleep(0.05)

    # --- as a client ---------------------------------------------------------------------
    def raw(self, source: str | None = None) -> socket.socket:
        sock = socket.socket()
        if source is not None:
            sock.bind((source, 0))
        sock.settimeout(10)
        sock.connect(("127.0.0.1", self.port))
        return sock

    def raw_conn(self, source: str | None = None, channel: str = CHANNEL) -> tuple[socket.socket, list]:
        """A connection made with the wire protocol itself, and the CONN answer."""
        sock = self.raw(source)
        sock.sendall(wire.frame(["CONN", self.name, "", "", "attacker", channel]))
        return sock, wire.FrameReader(sock).read_reply()

    def put_get(self, ibmmq: object, payload: bytes = b"still serving") -> bytes:
        """A put and a get through IBM's API on a fresh connection: the queue manager serves."""
        conn = ibmmq.connect(self.name, CHANNEL, self.conn_name)  # type: ignore[attr-defined]
        try:
            cmqc = ibmmq.CMQC  # type: ignore[attr-defined]
            queue = ibmmq.Queue(conn, QUEUE, cmqc.MQOO_INPUT_AS_Q_DEF | cmqc.MQOO_OUTPUT)  # type: ignore[attr-defined]
            queue.put(payload)
            got = queue.get()
            queue.close()
            return got
        finally:
            conn.disconnect()


def frame_header(size: int) -> bytes:
    return struct.pack("<I", size)


def closed_within(sock: socket.socket, seconds: float) -> float | None:
    """Seconds until the peer closed `sock` (None if it did not within `seconds`); anything
    the peer sent before closing is read and ignored."""
    start = time.monotonic()
    sock.settimeout(seconds)
    try:
        while sock.recv(65536):
            pass
    except (ConnectionResetError, BrokenPipeError):
        pass
    except TimeoutError:
        return None
    return time.monotonic() - start
