"""The embedded queue manager's code that runs in the APPLICATION's process: the transport
installed as `ibmmq.ibmmqc` (transport.py, gathering the verbs from its sibling modules), its
installation, the launcher of the server process, and the admin client (MQSC over the socket)."""
