"""The embedded queue manager's code that runs in the QUEUE-MANAGER process
(`python -m spark_mq.embedded`): the listener, the queue manager core, queues, the store,
MQSC and the admin commands."""
