"""The cluster the cluster tests start: three embedded queue managers, FR1 and FR2 full
repositories of SHOP (each with a manual cluster-sender to the other), PR a partial one
joining through FR1, every channel with channel_topology's short timers. Each test file
adds its own queues to it (`extra`)."""
from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import ibmmq
from ibmmq import CMQC

from channel_topology import TIMERS, free_port, start
from spark_mq.embedded import EmbeddedQueueManager, EmbeddedQueueManagerError

MEMBERS = ("FR1", "FR2", "PR")


def door(name: str, port: int, cluster: str = "SHOP") -> str:
    """MQSC: member `name`'s cluster-receiver, listening on `port`."""
    return (f"DEFINE CHANNEL({cluster}.{name}) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({port})') "
            f"CLUSTER({cluster}) {TIMERS} REPLACE\n")


def to_full(name: str, port: int, cluster: str = "SHOP") -> str:
    """MQSC: the manual cluster-sender to full repository `name`, listening on `port`."""
    return (f"DEFINE CHANNEL({cluster}.{name}) CHLTYPE(CLUSSDR) CONNAME('127.0.0.1({port})') "
            f"CLUSTER({cluster}) {TIMERS} REPLACE\n")


@contextmanager
def shop(tmp_path: Path, extra: dict[str, str] | None = None
         ) -> Iterator[dict[str, EmbeddedQueueManager]]:
    """FR1, FR2 and PR started (each with its `extra` MQSC after the cluster's), stopped
    after the block."""
    ports = {name: free_port() for name in MEMBERS}
    scripts = {
        "FR1": "ALTER QMGR REPOS(SHOP)\n" + door("FR1", ports["FR1"]) + to_full("FR2", ports["FR2"]),
        "FR2": "ALTER QMGR REPOS(SHOP)\n" + door("FR2", ports["FR2"]) + to_full("FR1", ports["FR1"]),
        "PR": door("PR", ports["PR"]) + to_full("FR1", ports["FR1"]),
    }
    qms: dict[str, EmbeddedQueueManager] = {}
    try:
        for name in MEMBERS:
            qms[name] = start(tmp_path, name, ports[name],
                              scripts[name] + (extra or {}).get(name, ""))
        yield qms
    finally:
        for qm in qms.values():
            qm.stop()


CLUSTER_XMITQ = "SYSTEM.CLUSTER.TRANSMIT.QUEUE"


def waiting_for_channel(conn, channel: str) -> int:
    """How many transmission messages on the connected queue manager's
    SYSTEM.CLUSTER.TRANSMIT.QUEUE wait for cluster-sender `channel` (their CorrelId)."""
    browse = ibmmq.Queue(conn, CLUSTER_XMITQ, CMQC.MQOO_BROWSE)
    waiting, option = 0, CMQC.MQGMO_BROWSE_FIRST
    try:
        while True:
            md = ibmmq.MD()
            try:
                browse.get(None, md, ibmmq.GMO(Options=option | CMQC.MQGMO_NO_WAIT))
            except ibmmq.MQMIError as exc:
                if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return waiting
                if exc.reason != CMQC.MQRC_TRUNCATED_MSG_FAILED:
                    raise
            waiting += md.CorrelId.rstrip(b"\0") == channel.encode()
            option = CMQC.MQGMO_BROWSE_NEXT
    finally:
        browse.close()


#: ATTR(value), a value holding one level of parentheses: CONNAME(127.0.0.1(1414))
ATTRIBUTE = re.compile(r"([A-Z0-9]+)\(((?:[^()]|\([^()]*\))*)\)")


def blocks(output: str, header: str) -> list[dict[str, str]]:
    """Each object runmqsc displayed after `header` (an AMQ message number), as
    {attribute: value}."""
    return [{key: value.strip() for key, value in ATTRIBUTE.findall(block)}
            for block in output.split(header)[1:]]


def clusqmgrs(qm) -> dict[str, dict[str, str]]:
    """DISPLAY CLUSQMGR(*) ALL on `qm`: each entry's attributes by its CLUSQMGR."""
    try:
        output = qm.run_mqsc("DISPLAY CLUSQMGR(*) ALL")
    except EmbeddedQueueManagerError:
        return {}
    return {block["CLUSQMGR"]: block for block in blocks(output, "AMQ8441I")}
