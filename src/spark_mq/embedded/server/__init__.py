"""The embedded queue manager's code that runs in the QUEUE-MANAGER process
(`python -m spark_mq.embedded`), in floors, each a folder that imports only the floors below
it (pyproject.toml's import-linter contract; ARCHITECTURE.md draws them), bottom up:

    core/             the queue manager's data and the rules on it: queues, the store, named
                      objects, every feature's state and defaults (pubsub/, security/); no verbs
    resolution/ triggering/ events/   the hooks the verbs call
    verbs/            the MQI verbs and the queue manager's façade over them (qmgr.py)
    admin/            administration: MQSC and the command server (PCF)
    network/          the listener and its sessions, bindings, TLS
    message_channels/ metrics/   on top: channels between queue managers, the metrics endpoint
"""
