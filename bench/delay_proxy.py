"""A TCP proxy that adds a fixed one-way delay in each direction: a slow network link between
an MQ client and a queue manager's listener, for benchmarks (Linux netem is not available
here).

    python bench/delay_proxy.py --target 127.0.0.1:1414 --delay-ms 2 [--listen 127.0.0.1:0]

prints `listening on HOST:PORT` once it accepts connections, and runs until interrupted.
From Python:

    with DelayProxy("127.0.0.1", 1414, delay_ms=2) as proxy:   # a child process
        conn_name = proxy.conn_name                              # "127.0.0.1(40123)"

It is a delay line, not a stop-and-wait link: each chunk read from one side is written to the
other side at (arrival + delay), in arrival order, however many chunks are in flight, so the
link's throughput is not limited to one chunk per delay (a round trip costs 2 x delay, as on
a real network). Bandwidth is not limited. Reading from a side pauses while the other side's
socket is not draining (asyncio's flow control), so a slow receiver cannot fill memory.
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import os
import selectors
import signal
import subprocess
import sys


class _Pipe(asyncio.Protocol):
    """One accepted or outgoing socket; what it reads goes, delayed, to its peer."""

    def __init__(self, delay: float, target: tuple[str, int] | None = None) -> None:
        self.delay = delay
        self.target = target   # an accepted socket: where its outgoing connection goes
        self.transport: asyncio.Transport | None = None
        self.peer: _Pipe | None = None
        self.pending: collections.deque[tuple[float, bytes]] = collections.deque()
        self.timer: asyncio.TimerHandle | None = None
        self.closing = False   # this side's reader saw EOF: close the peer once drained

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        if self.target is not None:
            transport.pause_reading()         # until the outgoing connection is there
            task = asyncio.get_running_loop().create_task(self._connect(self.target))
            _tasks.add(task)
            task.add_done_callback(_tasks.discard)

    async def _connect(self, target: tuple[str, int]) -> None:
        assert self.transport is not None
        try:
            _, peer = await asyncio.get_running_loop().create_connection(
                lambda: _Pipe(self.delay), *target)
        except OSError:
            self.transport.close()
            return
        self.peer, peer.peer = peer, self
        self.transport.resume_reading()

    def data_received(self, data: bytes) -> None:
        loop = asyncio.get_running_loop()
        self.pending.append((loop.time() + self.delay, data))
        if self.timer is None:
            self.timer = loop.call_at(self.pending[0][0], self._deliver)

    def _deliver(self) -> None:
        """Write every chunk whose time has come (one write), then wait for the next."""
        self.timer = None
        loop = asyncio.get_running_loop()
        if self.peer is None:               # the outgoing connection is not made yet
            self.timer = loop.call_later(0.001, self._deliver)
            return
        now = loop.time()
        due = []
        while self.pending and self.pending[0][0] <= now:
            due.append(self.pending.popleft()[1])
        if due and self.peer.transport is not None:
            self.peer.transport.write(b"".join(due))
        if self.pending:
            self.timer = loop.call_at(self.pending[0][0], self._deliver)
        elif self.closing:
            self._close_peer()

    def eof_received(self) -> bool:
        self.closing = True
        if not self.pending:
            self._close_peer()
        return True   # keep our own transport half-open until the peer closes it

    def connection_lost(self, exc: Exception | None) -> None:
        self.closing = True
        if not self.pending:
            self._close_peer()

    def _close_peer(self) -> None:
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.close()

    # flow control: our peer's socket is full, so stop reading what would go to it
    def pause_writing(self) -> None:
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.pause_reading()

    def resume_writing(self) -> None:
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.resume_reading()


_tasks: set[asyncio.Task] = set()   # the outgoing connections being made


async def serve(listen: tuple[str, int], target: tuple[str, int], delay_ms: float,
                started: asyncio.Future | None = None) -> None:
    """Accept on `listen` and forward to `target` until cancelled; `started` gets the
    (host, port) actually bound (port 0: one the system chose)."""
    delay = delay_ms / 1000.0
    server = await asyncio.get_running_loop().create_server(lambda: _Pipe(delay, target), *listen)
    host, port = server.sockets[0].getsockname()[:2]
    if started is not None:
        started.set_result((host, port))
    async with server:
        await server.serve_forever()


def precise_loop() -> asyncio.AbstractEventLoop:
    """An event loop whose timers fire within tens of microseconds: select() takes its timeout
    in microseconds, where epoll (asyncio's default) rounds it up to a whole millisecond,
    which would turn a 0.5 ms delay into 1 ms."""
    return asyncio.SelectorEventLoop(selectors.SelectSelector())


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: expected HOST:PORT, e.g. 127.0.0.1:1414")
    return host, int(port)


def _delay(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if value < 0:
        raise argparse.ArgumentTypeError(f"--delay-ms {text!r}: expected a number of milliseconds >= 0")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", type=_address, required=True, help="the listener, HOST:PORT")
    parser.add_argument("--listen", type=_address, default=("127.0.0.1", 0),
                        help="where to accept, HOST:PORT (default 127.0.0.1:0, a free port)")
    parser.add_argument("--delay-ms", type=_delay, default=2.0,
                        help="one-way delay added in each direction (default 2)")
    args = parser.parse_args(argv)

    async def run() -> None:
        loop = asyncio.get_running_loop()
        started: asyncio.Future = loop.create_future()
        server = asyncio.ensure_future(serve(args.listen, args.target, args.delay_ms, started))
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, server.cancel)
        await asyncio.wait([started, server], return_when=asyncio.FIRST_COMPLETED)
        if server.done():
            server.result()     # it failed to bind: raise that
        host, port = started.result()
        print(f"listening on {host}:{port}", flush=True)
        try:
            await server
        except asyncio.CancelledError:
            pass

    loop = precise_loop()
    try:
        loop.run_until_complete(run())
    except OSError as exc:
        print(f"delay_proxy: {exc}", file=sys.stderr)
        return 1
    finally:
        loop.close()
    return 0


class DelayProxy:
    """The proxy as a child process (its CPU is then its own, and measurable): start() waits
    until it listens; stop() ends it."""

    def __init__(self, target_host: str, target_port: int, delay_ms: float,
                 listen_host: str = "127.0.0.1", listen_port: int = 0) -> None:
        self.target = (target_host, target_port)
        self.delay_ms = delay_ms
        self.listen = (listen_host, listen_port)
        self.host, self.port = listen_host, listen_port
        self.process: subprocess.Popen | None = None

    def start(self) -> DelayProxy:
        command = [sys.executable, os.path.abspath(__file__),
                   "--target", f"{self.target[0]}:{self.target[1]}",
                   "--listen", f"{self.listen[0]}:{self.listen[1]}",
                   "--delay-ms", str(self.delay_ms)]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline().strip()
        if not line.startswith("listening on "):
            self.stop()
            raise RuntimeError(f"delay proxy to {self.target} did not start ({line or 'no output'})")
        address = line[len("listening on "):]
        self.host, self.port = address.rsplit(":", 1)[0], int(address.rsplit(":", 1)[1])
        return self

    @property
    def conn_name(self) -> str:
        """MQ's CONNAME syntax for the proxy: host(port)."""
        return f"{self.host}({self.port})"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.process = None

    def __enter__(self) -> DelayProxy:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


if __name__ == "__main__":
    sys.exit(main())
