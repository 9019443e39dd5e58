"""The embedded transport: a stand-in for `ibmmq.ibmmqc`, IBM's C extension.

Runs in the application's process. `install()` puts this module in `sys.modules` as
`ibmmq.ibmmqc` before `ibmmq` is imported, so every `ibmmq` call lands here with the exact
arguments the C extension would get (packed MQI structures as bytes) and must return the
tuples it would return. Verbs go to an embedded queue manager over a socket.

This module is only the face `ibmmq` sees: the C extension's module attributes, and the
verbs gathered from the modules that implement them:

    connection.py       sockets, pipelining of asynchronous puts, MQCONN/MQCONNX/MQDISC and
                        where a connection goes (MQCD, MQSERVER, CCDT, queue manager groups)
    ccdt.py             JSON client channel definition tables, and choosing among their channels
    tls.py              TLS for channels with a CipherSpec: MQSCO, MQSSLKEYR, SSLPeerName
    verbs.py            MQOPEN, MQCLOSE, MQPUT, MQPUT1, MQBEGIN/MQCMIT/MQBACK, MQSTAT,
                        MQINQ, MQSET, and the unsupported MQSUB/MQSUBRQ
    async_consume.py    MQCB, MQCTL: callbacks delivered by a thread of this process; while
                        they are started, the connection's other verbs are wrapped by it
    get.py              MQGET, with the read-ahead buffer
    message_handles.py  MQCRTMH, MQDLTMH, MQSETMP, MQINQMP, MQDLTMP (handles live here,
                        as in IBM's own client)
    packed.py           reading MQMD/MQPMO/MQGMO fields from their bytes; `error`
"""
from __future__ import annotations

import importlib.metadata

from spark_mq.embedded.client.async_consume import MQCB, MQCBINIT, MQCTL, serialised_verbs
from spark_mq.embedded.client.connection import (
    MQCONN,
    MQCONNX,
    MQDISC,
    broken_connections,
    local_queue_managers,
)
from spark_mq.embedded.client.connection import connections as _connections
from spark_mq.embedded.client.get import MQGET
from spark_mq.embedded.client.message_handles import MQCRTMH, MQDLTMH, MQDLTMP, MQINQMP, MQSETMP
from spark_mq.embedded.client.packed import error
from spark_mq.embedded.client.verbs import (
    MQBACK,
    MQBEGIN,
    MQCLOSE,
    MQCMIT,
    MQINQ,
    MQLOGCF,
    MQOPEN,
    MQPUT,
    MQPUT1,
    MQSET,
    MQSTAT,
    MQSUB,
    MQSUBRQ,
)

# ibmmq refuses to import unless __version__ is its own version
__version__ = importlib.metadata.version("ibmmq")
__cmdlevel__ = 940
__mqbuild__ = "common"
__strucversions__ = {"gmo": 4, "pmo": 3, "od": 4, "sts": 2, "cno": 8, "csp": 3, "sco": 7, "cd": 13}

EMBEDDED = True  # lets callers tell this transport from IBM's

# while MQCTL has started a connection's callbacks, only their thread may use it
# (MQRC_HCONN_ASYNC_ACTIVE), and MQCLOSE/MQDISC end the callbacks they affect
globals().update(serialised_verbs(globals()))

__all__ = [
    "MQBACK", "MQBEGIN", "MQCB", "MQCBINIT", "MQCLOSE", "MQCMIT", "MQCONN", "MQCONNX", "MQCRTMH",
    "MQCTL", "MQDISC", "MQDLTMH", "MQDLTMP", "MQGET", "MQINQ", "MQINQMP", "MQLOGCF", "MQOPEN",
    "MQPUT", "MQPUT1", "MQSET", "MQSETMP", "MQSTAT", "MQSUB", "MQSUBRQ",
    "EMBEDDED", "error", "broken_connections", "local_queue_managers",
    "_connections",  # hconn -> connection, for tests that break a connection on purpose
]
