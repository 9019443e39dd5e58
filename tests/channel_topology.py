"""Queue managers joined by channels, for the channel tests: each a real embedded queue
manager process; `link(a, b)` defines what a sender on `a` needs to reach a receiver on `b`
(a transmission queue named after `b`, triggered, and the channel pair `A.TO.B`)."""
from __future__ import annotations

import itertools
import os
import re
import socket
import time
from collections.abc import Callable
from pathlib import Path

import ibmmq
from ibmmq import CMQC

import spark_mq.embedded as embedded

#: short retry and idle timers: a test waits seconds, not IBM's minutes
TIMERS = "SHORTRTY(100) SHORTTMR(1) LONGRTY(0) HBINT(5)"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(tmp_path: Path, name: str, port: int = 0, mqsc: str = "") -> embedded.EmbeddedQueueManager:
    return embedded.EmbeddedQueueManager(str(tmp_path / name), name=name, port=port,
                                         mqsc=mqsc or None).start()


def channel_name(sender: str, receiver: str) -> str:
    return f"{sender}.TO.{receiver}"


def link(sender: embedded.EmbeddedQueueManager, receiver: embedded.EmbeddedQueueManager,
         options: str = "") -> str:
    """Define the channel pair from `sender` to `receiver`; returns the channel's name."""
    define_receiver(receiver, sender.name)
    return define_sender(sender, receiver.name, int(receiver.port or 0), options)


def define_receiver(receiver: embedded.EmbeddedQueueManager, sender_name: str) -> str:
    name = channel_name(sender_name, receiver.name)
    receiver.run_mqsc(f"DEFINE CHANNEL({name}) CHLTYPE(RCVR) REPLACE")
    return name


def define_sender(sender: embedded.EmbeddedQueueManager, receiver_name: str, port: int,
                  options: str = "") -> str:
    """A triggered transmission queue named after the receiver, and the sender channel."""
    name = channel_name(sender.name, receiver_name)
    sender.run_mqsc(
        f"DEFINE QLOCAL({receiver_name}) USAGE(XMITQ) TRIGGER TRIGTYPE(FIRST) "
        f"INITQ(SYSTEM.CHANNEL.INITQ) TRIGDATA({name}) REPLACE\n"
        f"DEFINE CHANNEL({name}) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') "
        f"XMITQ({receiver_name}) {TIMERS} {options} REPLACE")
    return name


def connect(qm: embedded.EmbeddedQueueManager) -> ibmmq.QueueManager:
    return ibmmq.connect(qm.name, "DEV.APP.SVRCONN", qm.conn_name)


def put_remote(conn: ibmmq.QueueManager, queue: str, qmgr: str, bodies: list[bytes],
               persistent: bool = True, **md_fields: object) -> list[bytes]:
    """Put each body to `queue` at `qmgr` (through ObjectQMgrName); returns their MsgIds."""
    od = ibmmq.OD(ObjectName=queue, ObjectQMgrName=qmgr)
    handle = ibmmq.Queue(conn, od, CMQC.MQOO_OUTPUT)
    ids = []
    for body in bodies:
        md = ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT if persistent else CMQC.MQPER_NOT_PERSISTENT,
                      **md_fields)
        handle.put(body, md)
        ids.append(md.MsgId)
    handle.close()
    return ids


def receive(conn: ibmmq.QueueManager, queue: str, count: int, seconds: float = 60,
            handle: ibmmq.MessageHandle | None = None) -> list[tuple[ibmmq.MD, bytes]]:
    """Get `count` messages, each within the deadline (a channel delivers them in batches)."""
    source = ibmmq.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED)
    got = []
    deadline = time.monotonic() + seconds
    try:
        while len(got) < count and time.monotonic() < deadline:
            md = ibmmq.MD()
            options = CMQC.MQGMO_WAIT | (CMQC.MQGMO_PROPERTIES_IN_HANDLE if handle else 0)
            gmo = ibmmq.GMO(Options=options, WaitInterval=500,
                            **({"MsgHandle": handle.msg_handle} if handle else {}))
            try:
                got.append((md, source.get(None, md, gmo)))
            except ibmmq.MQMIError as exc:
                if exc.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                    raise
    finally:
        source.close()
    return got


def depth(conn: ibmmq.QueueManager, queue: str) -> int:
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_INQUIRE)
    try:
        return int(handle.inquire(CMQC.MQIA_CURRENT_Q_DEPTH))
    finally:
        handle.close()


def wait_for(condition: Callable[[], bool], seconds: float = 60, what: str = "") -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s: {what}")
        time.sleep(0.1)


def channel_status(qm: embedded.EmbeddedQueueManager, name: str) -> str:
    """STATUS of DISPLAY CHSTATUS, or "" when the channel has no status (INACTIVE)."""
    try:
        output = qm.run_mqsc(f"DISPLAY CHSTATUS({name}) STATUS")
    except embedded.EmbeddedQueueManagerError:
        return ""
    for word in output.split():
        if word.startswith("STATUS("):
            return word[7:-1]
    return ""


def cluster_senders_ready(qm, hosts: set[str]) -> None:
    """Until `qm`'s cluster-senders to each of `hosts` are out of retry: one that tried
    before its partner listened (the members start one after another) retries for SHORTTMR,
    and the workload algorithm rightly puts an instance behind a retrying channel last, so a
    test counting where puts go waits for this first."""
    def ready() -> bool:
        output = qm.run_mqsc("DISPLAY CLUSQMGR(*) STATUS")
        states = {m.group(1): m.group(2) for block in output.split("AMQ8441I")[1:]
                  if (m := re.search(r"CLUSQMGR\((\S+)\).*?STATUS\((\w+)\)", block, re.S))}
        return all(states.get(host) in ("RUNNING", "INACTIVE") for host in hosts)
    wait_for(ready, what=f"{qm.name}'s cluster-senders to {sorted(hosts)} out of retry")


_numbers = itertools.count(1)


def fresh_queue(*managers, prefix: str = "ORDERS") -> str:
    """A queue of a new name (unique across xdist workers) defined on each of `managers`."""
    name = f"{prefix}.{os.getpid()}.{next(_numbers)}"
    for manager in managers:
        manager.run_mqsc(f"DEFINE QLOCAL({name}) MAXDEPTH(999999) REPLACE")
    return name


def members(*managers) -> str:
    """The `queueManagers` option naming `managers`: NAME@host(port) entries."""
    return ",".join(f"{m.name}@{m.conn_name}" for m in managers)
