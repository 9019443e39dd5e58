"""What a queue manager's data directory holds that other processes look for, by name: the
lock the running queue manager holds (flock: whether one runs there, without trusting a pid
file), the ready file it writes once it accepts connections (where it listens, its pid) and
the bindings socket local applications connect on; and the one environment variable the
queue manager reads its users from, which the client that starts one must not pass on.

Shared by the queue-manager process (server_process.py, server/network/bindings.py), the
client that starts one (client/process.py) or connects to one in bindings mode
(client/admin.py) and the shell tools (shell/registry.py, shell/lifecycle.py), which must
not import one another.
"""
from __future__ import annotations

#: held (flock) by the queue manager that owns the data directory while it runs
LOCK_FILE = "qmgr.lock"
#: {"port", "pid", "name", "host"[, "metrics_port", "metrics_tls"]}, written (atomically)
#: once the queue manager accepts connections
READY_FILE = "ready.json"
#: the Unix socket of bindings connections (server/network/bindings.py)
BINDINGS_SOCKET = "qmgr.sock"
#: the queue manager's users ("name:password[:group,...]" lines); the starting client removes
#: it from the child's environment (it hands its own users over on standard input)
USERS_ENVIRONMENT = "SPARK_MQ_QMGR_USERS"
