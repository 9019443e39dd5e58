"""IBM MQ's cluster workload management algorithm: which instance of a cluster queue a put
goes to, as a function of the candidate instances and what was chosen before.

The rules, in IBM's order (IBM docs, "The cluster workload management algorithm"; the
candidates are already those of the clusters this queue manager shares with their hosts):

 1. rank: the instances whose channel (the host's CLUSRCVR) has less than the highest
    CLWLRANK go, then those whose queue has less than the highest queue CLWLRANK. Rank
    comes before channel status: a higher-ranked instance whose channel is down is still
    chosen, and its messages wait on the transmission queue;
 2. put-inhibited instances go, if an instance that is not remains (when only inhibited
    ones remain the put fails: 2268 MQRC_CLUSTER_PUT_INHIBITED, said by the caller);
 3. the local instance, if still there, is chosen when its CLWLUSEQ is LOCAL, or QMGR and
    the queue manager's CLWLUSEQ is LOCAL; with ANY it competes with the others;
 4. if only remote instances remain, those on resumed queue managers are preferred to
    those on suspended ones (SUSPEND QMGR CLUSTER);
 5. channel status: the instances whose cluster-sender is INACTIVE or RUNNING (and the
    local instance, which needs no channel); if none, those BINDING, INITIALIZING,
    STARTING or STOPPING; if none, RETRYING; if none, REQUESTING, PAUSED, STOPPED or
    SWITCHING;
 6. NETPRTY: of several channels to one queue manager, those with the highest;
 7. CLWLPRTY: the instances with the highest channel priority, then those with the
    highest queue priority (IBM applies priority after status: a reserve with a lower
    priority takes the messages while the primary's channel is down);
 8. CLWLMRUC: only that many most recently used channels stay candidates;
 9. the least recently used: the lowest destination sequence factor, then the lowest
    destination sequence number. The choice's factor grows by 1000 / CLWLWGHT, so over
    time each channel carries a share of the puts proportional to its weight (default 50:
    round robin), and its number becomes the last number plus one. The factors are reset
    to zero when a destination appears or its workload attributes change, so that a new
    destination does not take every message until it catches up.

`choose` is pure: it reads a `History` and does not change it; the caller records the
choice (`History.chose`). A destination is a channel (the local instance's is this
queue manager's own name), shared by every cluster queue, as IBM's sequence factors are:
weights balance a queue manager's whole cluster traffic over its channels.

Not here (the algorithm's parts for what the embedded queue manager does not have):
queue-manager aliases and cluster PCF or publish/subscribe messages, and the cluster
workload exit (CLWLEXIT).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

#: channel states in IBM's order of preference (rule 5); the local instance ranks first
_STATE_TIERS = (frozenset({"INACTIVE", "RUNNING"}),
                frozenset({"BINDING", "INITIALIZING", "STARTING", "STOPPING"}),
                frozenset({"RETRYING"}),
                frozenset({"REQUESTING", "PAUSED", "STOPPED", "SWITCHING"}))
LOCAL, ANY, QMGR = "LOCAL", "ANY", "QMGR"
DEFAULT_WEIGHT = 50


@dataclass(frozen=True)
class Instance:
    """One candidate: a queue's instance on `qmgr`, reached by cluster-sender `channel`
    (its host's CLUSRCVR name; the local instance: none), with the queue's and the
    channel's workload attributes as the cluster records show them."""
    qmgr: str
    channel: str = ""
    local: bool = False
    put_enabled: bool = True
    queue_rank: int = 0
    queue_priority: int = 0
    channel_rank: int = 0
    channel_priority: int = 0
    weight: int = DEFAULT_WEIGHT
    net_priority: int = 0
    channel_status: str = "INACTIVE"
    suspended: bool = False
    use_queue: str = QMGR          # the local instance's CLWLUSEQ
    defbind: str = "OPEN"          # the queue's DEFBIND, for MQOO_BIND_AS_Q_DEF

    @property
    def destination(self) -> str:
        """What the sequence factors are kept by: the channel, the local queue manager."""
        return self.qmgr if self.local else self.channel

    def workload(self) -> tuple:
        """The attributes whose change resets the sequence factors."""
        return (self.queue_rank, self.queue_priority, self.channel_rank,
                self.channel_priority, self.weight, self.net_priority, self.put_enabled)


@dataclass
class History:
    """The destination sequence factors and numbers (IBM's MQWDR DestSeqFactor and
    DestSeqNumber) of one queue manager."""
    factors: dict[str, int] = field(default_factory=dict)
    numbers: dict[str, int] = field(default_factory=dict)
    last: int = 0
    seen: dict[str, tuple] = field(default_factory=dict)

    def notice(self, instances: Sequence[Instance]) -> None:
        """A destination not seen before, or whose workload attributes changed, resets
        every factor (rule 9)."""
        changed = False
        for instance in instances:
            if self.seen.get(instance.destination) != instance.workload():
                self.seen[instance.destination] = instance.workload()
                changed = True
        if changed:
            self.factors.clear()

    def chose(self, instance: Instance) -> None:
        key = instance.destination
        self.factors[key] = self.factors.get(key, 0) + 1000 // max(1, instance.weight)
        self.last += 1
        self.numbers[key] = self.last


def uses_local(queue_useq: str, qmgr_useq: str) -> bool:
    """CLWLUSEQ: the local instance is the only target (LOCAL, or QMGR and the queue
    manager's LOCAL), rather than one candidate among the others (ANY)."""
    return queue_useq == LOCAL or (queue_useq != ANY and qmgr_useq != ANY)


def choose(instances: Sequence[Instance], history: History, qmgr_useq: str = LOCAL,
           mruc: int = 999_999_999) -> Instance | None:
    """The instance IBM's algorithm chooses among `instances` (see the module docstring);
    None when there is none. A put-inhibited choice means every candidate was."""
    left = list(instances)
    if not left:
        return None
    left = _highest(left, lambda i: i.channel_rank)
    left = _highest(left, lambda i: i.queue_rank)
    enabled = [i for i in left if i.put_enabled]
    left = enabled or left
    local = next((i for i in left if i.local), None)
    if local is not None and uses_local(local.use_queue, qmgr_useq):
        return local
    if local is None:
        left = [i for i in left if not i.suspended] or left
    left = _best_channel_state(left)
    left = _best_network_priority(left)
    left = _highest(left, lambda i: i.channel_priority)
    left = _highest(left, lambda i: i.queue_priority)
    left = _most_recently_used(left, history, mruc)
    return min(left, key=lambda i: (history.factors.get(i.destination, 0),
                                    history.numbers.get(i.destination, 0), i.destination))


def _highest(left: list[Instance], value: Callable[[Instance], int]) -> list[Instance]:
    top = max(value(i) for i in left)
    return [i for i in left if value(i) == top]


def _tier(instance: Instance) -> int:
    if instance.local:
        return 0
    for tier, states in enumerate(_STATE_TIERS):
        if instance.channel_status in states:
            return tier
    return len(_STATE_TIERS)


def _best_channel_state(left: list[Instance]) -> list[Instance]:
    best = min(_tier(i) for i in left)
    return [i for i in left if _tier(i) == best]


def _best_network_priority(left: list[Instance]) -> list[Instance]:
    """Of several channels to one queue manager, those with its highest NETPRTY."""
    top: dict[str, int] = {}
    for i in left:
        top[i.qmgr] = max(top.get(i.qmgr, i.net_priority), i.net_priority)
    return [i for i in left if i.net_priority == top[i.qmgr]]


def _most_recently_used(left: list[Instance], history: History, mruc: int) -> list[Instance]:
    """At most CLWLMRUC destinations, the most recently used (rule 8)."""
    destinations = sorted({i.destination for i in left},
                          key=lambda d: (-history.numbers.get(d, 0), d))
    kept = set(destinations[:max(1, mruc)])
    return [i for i in left if i.destination in kept]
