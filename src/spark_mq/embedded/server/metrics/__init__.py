"""The queue manager's own metrics over HTTP, in Prometheus's text format (runs in the
queue-manager process; off unless `--metrics-port` is given).

What IBM MQ shops already scrape is IBM's collector (mq-metric-samples, `mq_prometheus`),
which asks a queue manager for DISPLAY QSTATUS, CHSTATUS and QMSTATUS and publishes them
under its own names. The embedded queue manager publishes the same figures itself, under
those names and labels (namespace `ibmmq`), so that a Grafana dashboard built for IBM's
collector (its Queue_Status, Channel_Status and Queue_Manager_Status dashboards) reads this
endpoint unchanged. families.py says which metrics there are; a figure IBM MQ does not
have (none yet) would get a name of its own rather than borrow one of IBM's.

IBM's counters (`ibmmq_queue_mqget_count`, ...) have no `_total` suffix, which
prometheus_client adds to every counter it writes; they are written untyped under IBM's
names instead. They only grow while the queue manager runs (rate() applies) and start
again at a restart, as IBM MQ's statistics do.

The endpoint is a door into the queue manager (endpoint.py says how it is kept shut):
loopback only when the queue manager has no users; with users, every request must carry
HTTP basic credentials of one of them, checked as connection authentication checks a
password, and that user needs CONNECT and DISPLAY on the queue manager; over TLS whenever
the queue manager's key repository has its certificate.
"""
from __future__ import annotations

from spark_mq.embedded.server.metrics.endpoint import MetricsEndpoint, MetricsError

__all__ = ["MetricsEndpoint", "MetricsError"]
