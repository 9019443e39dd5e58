"""The MQI verbs: MQCONN/MQDISC, MQOPEN/MQCLOSE, MQPUT/MQPUT1, MQGET, MQINQ/MQSET, MQCMIT/
MQBACK, MQSTAT, and the queue manager's façade over them (qmgr.py); pubsub/ has the pub/sub
verbs (MQSUB, MQSUBRQ, publishing, delivery). They call the hooks one floor down
(resolution/, triggering/, events/) and the core below that."""
