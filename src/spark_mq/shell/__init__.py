"""`spark-mq-qmgr`: the shell tools an MQ user expects, for the embedded queue manager and
(put, get, browse, depth) for any queue manager the connector reaches.

    main               the command line: subcommands, connection arguments, one-line errors
    lifecycle          start (foreground or --background) and stop an embedded queue manager;
                       status
    registry           the local queue managers `start` ran: found by name or data directory
    client_connection  which queue manager a client tool talks to, connecting to it, and the
                       errors of reaching it
    messages           put, get and browse, as IBM's amqsput, amqsget and amqsbcg do
    show               how a message is printed: MQMD fields, properties, payload (text, hex,
                       JSON)
    admin_commands     mqsc (the embedded runmqsc), depth and unsubscribe
    channels           channels (status and transmission queues) and move-xmitq (a stuck one)
    trigger_monitor    runmqtrm for the embedded queue manager

Importing this package imports neither Spark nor ibmmq.
"""
