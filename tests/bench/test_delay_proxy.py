"""bench/delay_proxy.py: a delay line between a client and a server. What it must never do is
lose, reorder or hold back bytes; the delay itself is measured by the benchmark, not here."""
from __future__ import annotations

import os
import socket
import sys
import threading

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "bench"))
from delay_proxy import DelayProxy, main  # noqa: E402


@pytest.fixture
def echo_server():
    """A TCP server on a free port that echoes every connection's bytes back."""
    server = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        while True:
            try:
                peer, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=echo, args=(peer,), daemon=True).start()

    def echo(peer: socket.socket) -> None:
        with peer:
            while data := peer.recv(65536):
                peer.sendall(data)

    threading.Thread(target=serve, daemon=True).start()
    yield server.getsockname()[1]
    server.close()


def _receive(sock: socket.socket, size: int) -> bytes:
    chunks, got = [], 0
    while got < size:
        chunk = sock.recv(1 << 20)
        assert chunk, f"the proxy closed the connection after {got} of {size} bytes"
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def test_many_chunks_in_flight_arrive_whole_and_in_order(echo_server):
    with DelayProxy("127.0.0.1", echo_server, delay_ms=1) as proxy:
        sent = [b"%06d:" % i + bytes([i % 251]) * (i % 3000) for i in range(2000)]
        with socket.create_connection((proxy.host, proxy.port), timeout=60) as client:
            writer = threading.Thread(target=lambda: [client.sendall(chunk) for chunk in sent])
            writer.start()
            echoed = _receive(client, sum(map(len, sent)))
            writer.join()
        assert echoed == b"".join(sent)


def test_each_connection_has_its_own_pair_and_a_close_reaches_the_other_side(echo_server):
    with DelayProxy("127.0.0.1", echo_server, delay_ms=0.5) as proxy:
        clients = [socket.create_connection((proxy.host, proxy.port), timeout=60) for _ in range(5)]
        for index, client in enumerate(clients):
            client.sendall(b"client %d" % index)
        assert [_receive(c, len(b"client %d" % i)) for i, c in enumerate(clients)] == [
            b"client %d" % i for i in range(5)]
        for client in clients:
            client.shutdown(socket.SHUT_WR)
            assert client.recv(10) == b""      # the server saw the close and closed too
            client.close()


def test_bad_arguments_name_the_option(capsys):
    with pytest.raises(SystemExit):
        main(["--target", "localhost", "--delay-ms", "2"])
    assert "expected HOST:PORT" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--target", "127.0.0.1:1414", "--delay-ms", "-1"])
    assert "--delay-ms '-1': expected a number of milliseconds >= 0" in capsys.readouterr().err
