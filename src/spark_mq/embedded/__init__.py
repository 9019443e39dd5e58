"""An embedded, MQ-compatible queue manager that IBM's `ibmmq` package runs against unchanged.

    import spark_mq.embedded as embedded
    embedded.install()            # before `import ibmmq`
    import ibmmq
    with embedded.EmbeddedQueueManager("/tmp/qm1") as qm:
        conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)

The queue manager runs in its own process (`python -m spark_mq.embedded`); this package
never imports Spark nor the connector's MQ layer.

Security: without users (no `users=`, no `--users-file`) the queue manager is open, as a test
fixture wants it: no connection authentication, no CHLAUTH rules, no authority checks.
Started with users (`users={"app": "pw", "bob": ("pw", ["devs"])}`) it enforces them as
IBM's developer container does (server/security/): passwords, DEV.ADMIN.SVRCONN for
administrators (group mqm, the default of `admin`) and DEV.APP.SVRCONN for applications
(group mqclient, the default of everyone else, with put/get/browse/inq on DEV.**); a refusal
is MQRC_NOT_AUTHORIZED (2035).
"""
from __future__ import annotations

from spark_mq.embedded.client.install import install, installed
from spark_mq.embedded.client.process import EmbeddedQueueManager, EmbeddedQueueManagerError

__all__ = ["install", "installed", "EmbeddedQueueManager", "EmbeddedQueueManagerError"]
