"""The stream reader during an outage: triggers end without a batch instead of waiting for
the queue manager, so that the query's progress shows the outage while it lasts.

Facts about Spark (pyspark 4.3; MicroBatchExecution.constructNextBatch, ProgressContext):
each trigger calls the source's `latestOffset(start, limit)`, then `reportLatestOffset()`,
and only then ends and makes a progress. A trigger with a batch posts its progress every
time; a trigger without one (latestOffset returned `start`) puts a progress in
`lastProgress` / `recentProgress` at most once per
`spark.sql.streaming.noDataProgressEventInterval` (10 s by default), and Spark calls
latestOffset again after `spark.sql.streaming.pollingDelay` (10 ms) or at the next
processing-time interval. A latestOffset that waits for the queue manager blocks its
trigger: no progress at all, and `query.status` says "Getting offsets from ..." (Spark's
message; a source cannot set it) for as long as the outage lasts.

So, in a query with a processing-time trigger, latestOffset runs under
`connecting.giving_back()`: during an outage each call makes the reconnect attempt that is
due (after the back-off, 0.1 s doubling to 5 s, so the triggers do not spin) and, still
lost, returns `start`; the trigger that finds the connection lost also makes the first
reconnect attempt, so a restart that is over by then costs no trigger its batch.
reportLatestOffset then reports `outage` (since, attempts, the last reason, the connection
it tries, givesUpAt) without calling MQ. The outage and its reconnectTimeoutMs deadline
carry over from trigger to trigger; past the deadline the query fails with the same error
as a reader that waited. The listener's commit notes (settle_committed) give back the same
way: what they could not settle, the next trigger does. Both read modes' readers
(stream.py, executors.py) work this way.

Two triggers end the query at the first trigger without a batch, so there the reader waits
in latestOffset as before: Trigger.AvailableNow, and Trigger.Once (the only trigger Spark
plans with ReadAllAvailable: the others pass getDefaultReadLimit's ReadMaxRows).

Returning in the middle is safe because nothing latestOffset does before it returns a new
offset is lost by stopping and starting again: a get on a broken connection was backed out
with it, a held batch whose MQCMIT broke stays held and marked (its outcome is unknown) until
the next call has removed it by id, and removing by id can be done twice.
"""
from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit

from spark_mq.mq.connecting import OutageGoesOn, giving_back

log = logging.getLogger(__name__)


def trigger_ends_without_a_batch(available_now: bool, limit: ReadLimit) -> bool:
    """Whether a trigger that gets no batch ends the query (see the module docstring)."""
    return available_now or isinstance(limit, ReadAllAvailable)


LatestOffset = Callable[[Any, dict, ReadLimit], dict]


def no_batch_during_outage(latest_offset: LatestOffset) -> LatestOffset:
    """latestOffset, giving back (returning `start`) while the connection stays lost."""
    @functools.wraps(latest_offset)
    def latest(reader: Any, start: dict, limit: ReadLimit) -> dict:
        if trigger_ends_without_a_batch(reader.available_now(), limit):
            return latest_offset(reader, start, limit)
        try:
            with giving_back():
                return latest_offset(reader, start, limit)
        except OutageGoesOn as still_lost:
            log.debug("no batch this trigger: %s", still_lost)
            return start
    return latest


def settled_later_during_outage(settle: Callable[[Any, dict], None]) -> Callable[[Any, dict], None]:
    """settle_committed (the listener's note), leaving to the next trigger what an outage
    keeps it from settling, rather than holding up Spark's calls until the queue manager is
    back."""
    @functools.wraps(settle)
    def settle_or_leave(reader: Any, end: dict) -> None:
        try:
            with giving_back():
                settle(reader, end)
        except OutageGoesOn as still_lost:
            log.info("settling up to %s is left to the next trigger: %s", end, still_lost)
    return settle_or_leave
