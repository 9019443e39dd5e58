"""Channel chaos through a cluster (issue 36 item 1: "exactly once under the channel chaos
test"): three real queue managers, FR1 and FR2 full repositories and PR a partial one,
joined as tests/embedded/test_clusters_repositories.py joins them. Two cluster queues, each
hosted on two members, so that each full repository's puts leave through the cluster:

    CHAOS.A on FR2 and PR, put to from FR1 (an MQOPEN per message: round robin)
    CHAOS.B on FR1 and PR, put to from FR2

Every message is persistent with a unique body (`<putter>-<n>`) and is put in chunks, each
chunk one unit of work. Between chunks the seed decides a fault for a cluster channel, where
the messages are by then (the run waits until a seeded share of what was put has arrived:
observable state, not a sleep):

    cut_receiver       STOP CHANNEL(<member's CLUSRCVR>) STATUS(INACTIVE) on a member: every
                       member's instance ends at once, mid-batch or not; the cluster-senders
                       retry (the channel chaos test's cut_channel, for every partner at once)
    restart_receiver   STOP CHANNEL(<CLUSRCVR>) (STOPPED), until no instance runs, then START
                       CHANNEL: the members' cluster-senders come back by themselves

and, once, at a seeded chunk, a member queue manager (seeded among the three) is SIGKILLed
and started again. A fault never waits for a channel to be back: the next one may land on a
sender still retrying.

At the end every message is on exactly one instance of its queue exactly once (counted by
body across both instances), nothing is left on any SYSTEM.CLUSTER.TRANSMIT.QUEUE and no
dead-letter queue holds anything. A failing run prints its line; the seed replays it."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import ibmmq
from ibmmq import CMQC

from channel_topology import TIMERS, connect, depth, free_port, start, wait_for
from spark_mq.embedded import EmbeddedQueueManager, EmbeddedQueueManagerError

CLUSTER = "CHAOS"
NAMES = ("FR1", "FR2", "PR")
#: queue -> (the queue manager that puts to it, the members that host it)
QUEUES = {"CHAOS.A": ("FR1", ("FR2", "PR")), "CHAOS.B": ("FR2", ("FR1", "PR"))}
CHANNEL_FAULTS = ("cut_receiver", "restart_receiver")
CLUSTER_XMITQ = "SYSTEM.CLUSTER.TRANSMIT.QUEUE"
DEAD_LETTERS = "DEV.DEAD.LETTER.QUEUE"


def door(name: str) -> str:
    """Member `name`'s cluster-receiver (and the name of every cluster-sender to it)."""
    return f"{CLUSTER}.{name}"


def _script(name: str, ports: dict[str, int]) -> str:
    """What IBM's "Setting up a new cluster" has each member define: its CLUSRCVR, one
    manual CLUSSDR to a full repository (FR1 to FR2, the others to FR1), its queues."""
    full = "FR2" if name == "FR1" else "FR1"
    text = "ALTER QMGR REPOS(CHAOS)\n" if name != "PR" else ""
    for kind, target in (("CLUSRCVR", name), ("CLUSSDR", full)):
        text += (f"DEFINE CHANNEL({door(target)}) CHLTYPE({kind}) "
                 f"CONNAME('127.0.0.1({ports[target]})') CLUSTER({CLUSTER}) {TIMERS} REPLACE\n")
    for queue, (_, hosts) in QUEUES.items():
        if name in hosts:
            text += f"DEFINE QLOCAL({queue}) CLUSTER({CLUSTER}) MAXDEPTH(999999999) REPLACE\n"
    return text + f"ALTER QLOCAL({CLUSTER_XMITQ}) MAXDEPTH(999999999)\n"


@dataclass
class ClusterChaos:
    tmp: Path
    seed: int
    messages: int          # each putter's
    chunk: int = 50
    faults: list[str] = field(default_factory=list)
    qms: dict[str, EmbeddedQueueManager] = field(default_factory=dict)
    put: dict[str, int] = field(default_factory=dict)   # queue -> messages committed

    def line(self, verdict: str) -> str:
        return (f"cluster channel chaos seed={self.seed} messages={self.messages}x2 "
                f"chunk={self.chunk} faults={','.join(self.faults)}: {verdict}")

    def run(self) -> tuple[bool, str]:
        rng = random.Random(self.seed)
        ports = {name: free_port() for name in NAMES}
        try:
            for name in NAMES:
                self.qms[name] = start(self.tmp, name, ports[name], _script(name, ports))
            self._wait_joined()
            chunks = -(-self.messages // self.chunk)
            victim, kill_at = rng.choice(NAMES), rng.randrange(1, max(2, chunks))
            for index in range(chunks):
                for queue in QUEUES:
                    self._put_chunk(queue, index)
                if index == kill_at:
                    self._settle(rng)
                    self._kill(victim)
                elif rng.random() < 0.6:
                    self._settle(rng)
                    self._channel_fault(rng.choice(CHANNEL_FAULTS), rng.choice(NAMES))
            return self._count()
        except AssertionError as exc:   # a wait that did not end: the line names the seed
            return False, self.line(f"{exc}; channels {self._channels()}")
        finally:
            for qm in self.qms.values():
                qm.stop()

    # --- the cluster -----------------------------------------------------------------------
    def _wait_joined(self) -> None:
        """Each putter knows both instances of its queue before its first MQOPEN."""
        for queue, (putter, hosts) in QUEUES.items():
            qm = self.qms[putter]
            wait_for(lambda qm=qm, queue=queue, hosts=hosts: all(
                f"CLUSQMGR({host})" in _mqsc(qm, f"DISPLAY QCLUSTER({queue})")
                for host in hosts), seconds=120, what=f"{putter} knows {queue}'s instances")

    def _put_chunk(self, queue: str, index: int) -> None:
        putter = QUEUES[queue][0]
        conn = connect(self.qms[putter])
        try:
            first = index * self.chunk
            for n in range(first, min(first + self.chunk, self.messages)):
                # one MQOPEN a message: each open chooses an instance (bind on open)
                handle = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
                handle.put(b"%s-%06d" % (putter.encode(), n),
                           ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT),
                           ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
                handle.close()
            conn.commit()
            self.put[queue] = min(first + self.chunk, self.messages)
        finally:
            conn.disconnect()

    def _arrived(self) -> int:
        return sum(_depth(self.qms[host], queue)
                   for queue, (_, hosts) in QUEUES.items() for host in hosts)

    def _settle(self, rng: random.Random) -> None:
        """Until a seeded share of the messages put so far has arrived: the fault lands
        while the channels carry the rest, at a point the seed decides and no sleep guesses."""
        put = sum(self.put.values())
        share = rng.uniform(0.2, 0.8)
        wait_for(lambda: self._arrived() >= int(put * share), seconds=180,
                 what=f"{share:.0%} of {put} messages arrived (faults so far: {self.faults})")

    # --- faults ----------------------------------------------------------------------------
    def _channel_fault(self, fault: str, member: str) -> None:
        qm = self.qms[member]
        self.faults.append(f"{fault}:{member}")
        name = door(member)
        if fault == "cut_receiver":
            try:
                qm.run_mqsc(f"STOP CHANNEL({name}) STATUS(INACTIVE)")
            except EmbeddedQueueManagerError:   # no instance runs now (its senders retry)
                pass
            return
        qm.run_mqsc(f"STOP CHANNEL({name})")
        wait_for(lambda: "STATUS(RUNNING)" not in _mqsc(qm, f"DISPLAY CHSTATUS({name})"),
                 what=f"every instance of {name} on {member} ended")
        qm.run_mqsc(f"START CHANNEL({name})")

    def _kill(self, member: str) -> None:
        qm = self.qms[member]
        self.faults.append(f"kill:{member}")
        qm.kill()
        wait_for(lambda: not qm.running, what=f"{member} reaped")
        qm.start()

    # --- the count -------------------------------------------------------------------------
    def _count(self) -> tuple[bool, str]:
        expected = {queue: {b"%s-%06d" % (putter.encode(), n) for n in range(self.messages)}
                    for queue, (putter, _) in QUEUES.items()}
        total = sum(len(bodies) for bodies in expected.values())
        wait_for(lambda: self._arrived() >= total, seconds=300,
                 what=f"all {total} messages arrived (faults: {self.faults}; "
                      f"{self._left()})")
        wait_for(lambda: not any(self._left().values()), seconds=120,
                 what=f"every cluster transmission queue empty ({self._left()})")
        problems: list[str] = []
        for queue, bodies in expected.items():
            seen: dict[bytes, int] = {}
            for host in QUEUES[queue][1]:
                for body in _drain(self.qms[host], queue):
                    seen[body] = seen.get(body, 0) + 1
            lost = sorted(bodies - set(seen))
            doubled = sorted(body for body, count in seen.items() if count > 1)
            strays = sorted(set(seen) - bodies)
            if lost or doubled or strays:
                problems.append(f"{queue}: lost {len(lost)} {lost[:3]}, doubled "
                                f"{len(doubled)} {doubled[:3]}, strays {strays[:3]}")
        dead = {name: _depth(qm, DEAD_LETTERS) for name, qm in self.qms.items()}
        if any(dead.values()):
            problems.append(f"dead letters {dead}")
        verdict = "; ".join(problems) or f"{total} messages, each once"
        return not problems, self.line(verdict)

    def _channels(self) -> dict[str, list[str]]:
        """Each queue manager's channel instances, as (channel, partner, status)."""
        shown: dict[str, list[str]] = {}
        for name, qm in self.qms.items():
            blocks = _mqsc(qm, "DISPLAY CHSTATUS(*) RQMNAME STATUS").split("AMQ8417I")[1:]
            shown[name] = [" ".join(word for word in block.split()
                                    if word.startswith(("CHANNEL(", "RQMNAME(", "STATUS(")))
                           for block in blocks]
        return shown

    def _left(self) -> dict[str, int]:
        return {name: _depth(qm, CLUSTER_XMITQ) for name, qm in self.qms.items()}


def _mqsc(qm: EmbeddedQueueManager, command: str) -> str:
    try:
        return qm.run_mqsc(command)
    except EmbeddedQueueManagerError as exc:   # e.g. AMQ8420I: no status (nothing runs)
        return str(exc)


def _depth(qm: EmbeddedQueueManager, queue: str) -> int:
    conn = connect(qm)
    try:
        return depth(conn, queue)
    finally:
        conn.disconnect()


def _drain(qm: EmbeddedQueueManager, queue: str) -> list[bytes]:
    conn = connect(qm)
    source = ibmmq.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED)
    bodies = []
    try:
        while True:
            try:
                bodies.append(source.get(None, ibmmq.MD(),
                                         ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT)))
            except ibmmq.MQMIError as exc:
                if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return bodies
                raise
    finally:
        source.close()
        conn.disconnect()


__all__ = ["ClusterChaos", "door"]
