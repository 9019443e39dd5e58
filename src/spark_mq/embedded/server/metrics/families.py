"""The metric families one scrape returns, named and labelled as IBM's mq-metric-samples
(`mq_prometheus`, namespace `ibmmq`) names them (runs in the queue-manager process; the
figures are read under the queue manager's lock, then written out without it).

Queues (labels qmgr, platform, queue, usage, description, cluster), from queue_status.py and
events/statistics.py, whatever MONQ says (the exporter is asked for them):

    ibmmq_queue_depth, _attribute_max_depth, _oldest_message_age (s), _qtime_short and
    _qtime_long (microseconds), _time_since_put, _time_since_get (s; absent before the
    first), _input_handles, _output_handles, _uncommitted_messages;
    counters: _mqput_mqput1_count, _mqget_count (destructive gets), _mqput_bytes,
    _mqget_bytes, _rolled_back_mqput_count, _rolled_back_mqget_count

The local queues are all there but the queue manager's own (SYSTEM.*) and temporary
dynamic queues (a new name per connection would make a new series each time); with users,
only those the scraping user may display.

Queue manager (labels qmgr, platform, description): ibmmq_qmgr_status (2: running),
_connection_count, _uptime (s), _command_server_status and _channel_initiator_status (2),
counters _interval_mqput_mqput1_total_count, _interval_destructive_get_total_count and
_rollback_count (messages whose put or get was backed out).

Channels (labels qmgr, platform, channel, description, type, rqmname, connname, jobname,
sslciph), one per sender or receiver channel with a status (DISPLAY CHSTATUS):
ibmmq_channel_status (MQCHS_*), _status_squash (0 stopped, 1 in transition, 2 running, as
IBM's collector squashes it), _messages, _batches, _time_since_msg (s). Server-connection
channels have no status here: ibmmq_qmgr_connection_count counts the clients.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from prometheus_client.metrics_core import GaugeMetricFamily, Metric, UnknownMetricFamily

from spark_mq.embedded.server.admin import queue_status
from spark_mq.embedded.server.core import channel_status
from spark_mq.embedded.server.core.queue_objects import TEMPORARY_DYNAMIC, LocalQueue
from spark_mq.embedded.server.core.state import QueueManagerState
from spark_mq.embedded.server.events import statistics
from spark_mq.mqi.constants import CMQCFC

NAMESPACE = "ibmmq"
PLATFORM = "UNIX"
QUEUE_LABELS = ["qmgr", "platform", "queue", "usage", "description", "cluster"]
QMGR_LABELS = ["qmgr", "platform", "description"]
CHANNEL_LABELS = ["qmgr", "platform", "channel", "description", "type", "rqmname", "connname",
                  "jobname", "sslciph"]
_RUNNING = 2     # MQQMSTA_RUNNING, MQSVC_STATUS_RUNNING: the status values IBM's collector reports
_CHANNEL_STATES = {
    channel_status.INACTIVE: CMQCFC.MQCHS_INACTIVE, channel_status.BINDING: CMQCFC.MQCHS_BINDING,
    channel_status.STARTING: CMQCFC.MQCHS_STARTING, channel_status.RUNNING: CMQCFC.MQCHS_RUNNING,
    channel_status.STOPPING: CMQCFC.MQCHS_STOPPING, channel_status.RETRYING: CMQCFC.MQCHS_RETRYING,
    channel_status.STOPPED: CMQCFC.MQCHS_STOPPED, channel_status.PAUSED: CMQCFC.MQCHS_PAUSED}
#: IBM's collector's squashed channel status: 0 stopped, 1 in transition, 2 running
_SQUASHED = {channel_status.RUNNING: 2, channel_status.BINDING: 1, channel_status.STARTING: 1,
             channel_status.STOPPING: 1, channel_status.RETRYING: 1}
_CHANNEL_TYPES = {"SDR": "SENDER", "RCVR": "RECEIVER"}


class Families:
    """A family per metric name, filled one object at a time."""

    def __init__(self) -> None:
        self._families: dict[str, Metric] = {}

    def add(self, name: str, help_text: str, labels: list[str], values: list[str],
            value: float, counter: bool = False) -> None:
        family = self._families.get(name)
        if family is None:
            kind = UnknownMetricFamily if counter else GaugeMetricFamily
            family = self._families[name] = kind(name, help_text, labels=labels)
        family.add_metric(values, value)   # type: ignore[attr-defined]

    def collect(self) -> Iterable[Metric]:
        """prometheus_client's Collector protocol: generate_latest(families) writes them."""
        return list(self._families.values())


def collect(qm: QueueManagerState, started: float,
            may_display: Callable[[str], bool] = lambda name: True) -> Families:
    """One scrape's figures; `may_display(queue name)` leaves out what the user may not see."""
    families = Families()
    now = time.time()
    with qm.lock:
        qmgr_values = [qm.name, PLATFORM, str(qm.attrs.get("DESCR", ""))]
        _qmgr(families, qm, qmgr_values, now - started)
        for name in sorted(qm.queues):
            queue = qm.queues[name]
            if _exported(queue) and may_display(name):
                assert isinstance(queue, LocalQueue)
                _queue(families, qm, queue, now)
    for status in channel_status.table(qm).all():   # the table has a lock of its own
        _channel(families, qm.name, status, now)
    return families


def _exported(queue: object) -> bool:
    return (isinstance(queue, LocalQueue) and not queue.name.startswith("SYSTEM.")
            and queue.definition_type != TEMPORARY_DYNAMIC)


def _qmgr(families: Families, qm: QueueManagerState, values: list[str], uptime: float) -> None:
    def gauge(name: str, help_text: str, value: float) -> None:
        families.add(f"{NAMESPACE}_qmgr_{name}", help_text, QMGR_LABELS, values, value)

    def counter(name: str, help_text: str, value: float) -> None:
        families.add(f"{NAMESPACE}_qmgr_{name}", help_text, QMGR_LABELS, values, value, True)

    totals = statistics.totals_of(qm)
    gauge("status", "Queue manager status (2: running)", _RUNNING)
    gauge("connection_count", "Connections to the queue manager", len(qm.connections))
    gauge("uptime", "Seconds since the queue manager started", int(uptime))
    gauge("command_server_status", "Command server status (2: running)", _RUNNING)
    gauge("channel_initiator_status", "Channel initiator status (2: running)", _RUNNING)
    counter("interval_mqput_mqput1_total_count", "Messages put, on all queues", totals.puts)
    counter("interval_destructive_get_total_count", "Messages got destructively, on all queues",
            totals.gets)
    counter("rollback_count", "Messages whose put or get was backed out", totals.rolled_back)


def _queue(families: Families, qm: QueueManagerState, queue: LocalQueue, now: float) -> None:
    found = queue_status.status(qm, queue, monitored=True)
    stats = statistics.of(queue)
    values = [qm.name, PLATFORM, queue.name, str(queue.attrs.get("USAGE", "NORMAL")),
              str(queue.attrs.get("DESCR", "")), ""]

    def gauge(name: str, help_text: str, value: float) -> None:
        families.add(f"{NAMESPACE}_queue_{name}", help_text, QUEUE_LABELS, values, value)

    def counter(name: str, help_text: str, value: float) -> None:
        families.add(f"{NAMESPACE}_queue_{name}", help_text, QUEUE_LABELS, values, value, True)

    qtime = found.qtime or (0, 0)      # IBM's collector shows "not available" (-1) as 0
    gauge("depth", "Queue depth (CURDEPTH)", found.depth)
    gauge("attribute_max_depth", "Queue Max Depth (MAXDEPTH)", int(queue.attrs["MAXDEPTH"]))
    gauge("oldest_message_age", "Oldest Message (MSGAGE, seconds)", found.oldest_age or 0)
    gauge("qtime_short", "Queue Time Short (QTIME, microseconds)", qtime[0])
    gauge("qtime_long", "Queue Time Long (QTIME, microseconds)", qtime[1])
    if found.last_put is not None:
        gauge("time_since_put", "Time Since Put (seconds)", int(max(0.0, now - found.last_put)))
    if found.last_get is not None:
        gauge("time_since_get", "Time Since Get (seconds)", int(max(0.0, now - found.last_get)))
    gauge("input_handles", "Input Handles (IPPROCS)", found.input_handles)
    gauge("output_handles", "Output Handles (OPPROCS)", found.output_handles)
    gauge("uncommitted_messages", "Uncommitted Messages (Count)", found.uncommitted)
    counter("mqput_mqput1_count", "MQPUT/MQPUT1 count (messages put)", stats.puts)
    counter("mqget_count", "MQGET count (messages got destructively)", stats.gets)
    counter("mqput_bytes", "MQPUT byte count", stats.put_bytes)
    counter("mqget_bytes", "MQGET byte count (destructive gets)", stats.got_bytes)
    counter("rolled_back_mqput_count", "rolled back MQPUT count", stats.rolled_back_puts)
    counter("rolled_back_mqget_count", "rolled back MQGET count", stats.rolled_back_gets)


def _channel(families: Families, qmgr_name: str, status: channel_status.ChannelStatus,
             now: float) -> None:
    values = [qmgr_name, PLATFORM, status.name, "", _CHANNEL_TYPES.get(status.chltype, status.chltype),
              status.rqmname or "-", status.conname, "", ""]

    def gauge(name: str, help_text: str, value: float, counter: bool = False) -> None:
        families.add(f"{NAMESPACE}_channel_{name}", help_text, CHANNEL_LABELS, values, value,
                     counter)

    gauge("status", "Channel Status (MQCHS_*)", _CHANNEL_STATES.get(status.status, CMQCFC.MQCHS_INACTIVE))
    gauge("status_squash", "Channel Status - Simplified (0 stopped, 1 in transition, 2 running)",
          _SQUASHED.get(status.status, 0))
    gauge("messages", "Messages moved since the channel started", status.msgs, counter=True)
    gauge("batches", "Completed Batches", status.batches, counter=True)
    if status.last_msg_time is not None:
        gauge("time_since_msg", "Time Since Msg (seconds)", int(max(0.0, now - status.last_msg_time)))
