"""Administration: MQSC (parsing in mqsc.py, applying in mqsc_apply.py) and the command server
(command_server/, PCF), with security's and pub/sub's administrative commands (security/,
pubsub/). Above the verbs, below the network."""
