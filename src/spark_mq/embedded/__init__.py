"""An embedded, MQ-compatible queue manager that IBM's `ibmmq` package runs against unchanged.

    import spark_mq.embedded as embedded
    embedded.install()            # before `import ibmmq`
    import ibmmq
    with embedded.EmbeddedQueueManager("/tmp/qm1") as qm:
        conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)

The queue manager runs in its own process (`python -m spark_mq.embedded`); this package
never imports Spark nor the connector's MQ layer.
"""
from __future__ import annotations

from spark_mq.embedded.client.install import install, installed
from spark_mq.embedded.client.process import EmbeddedQueueManager, EmbeddedQueueManagerError

__all__ = ["install", "installed", "EmbeddedQueueManager", "EmbeddedQueueManagerError"]
