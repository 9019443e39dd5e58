"""What triggering remembers per queue manager (in memory only: trigger messages are
non-persistent, and after a restart the first trigger monitor's MQOPEN of its initiation
queue triggers every queue that qualifies, so nothing here needs to survive one)."""
from __future__ import annotations

from dataclasses import dataclass, field

from spark_mq.embedded.server.core.queue_objects import Message
from spark_mq.embedded.server.core.state import FeatureState, QueueManagerState


@dataclass
class Pending:
    """A trigger message made by a put inside a unit of work: it appears when the unit of
    work ends, on commit, and for FIRST and DEPTH on backout too (IBM: so that a trigger
    message is always there when the conditions were met)."""
    message: Message
    on_backout: bool


@dataclass
class TriggerState:
    #: queue name -> time.monotonic() of its last trigger message (TRIGINT, for FIRST)
    last_trigger: dict[str, float] = field(default_factory=dict)
    #: connection id -> its unit of work's trigger messages
    pending: dict[int, list[Pending]] = field(default_factory=dict)


_TRIGGERING: FeatureState[TriggerState] = FeatureState("triggering", lambda qm: TriggerState())


def state_of(qm: QueueManagerState) -> TriggerState:
    return _TRIGGERING.of(qm)
