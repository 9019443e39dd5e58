"""The embedded queue manager's code that runs in the QUEUE-MANAGER process
(`python -m spark_mq.embedded`): the listener, the queue manager (qmgr.py, a façade over one
module per concern), queues, the store, MQSC and the admin commands."""
