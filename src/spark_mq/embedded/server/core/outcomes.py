"""How the queue manager's verbs report an outcome (runs in the queue-manager process).

A verb that fails raises `MQError(reason)`; the listener turns it into the
(CompCode, Reason) pair the MQI returns. `WarnedPut` is the one success that still needs
to carry an output (the MD) next to its warning. `FAILED`, `WARNING` and `OK` are the MQI
completion codes under short names, because every verb module compares against them.
"""
from __future__ import annotations

from spark_mq.mqi.constants import CMQC

FAILED: int = CMQC.MQCC_FAILED
WARNING: int = CMQC.MQCC_WARNING
OK: int = CMQC.MQCC_OK
NONE: int = CMQC.MQRC_NONE  # the reason that goes with OK


class MQError(Exception):
    """A verb's failure (or warning) as MQ reports it: a reason and a completion code."""

    def __init__(self, reason: int, comp_code: int = FAILED):
        super().__init__(reason)
        self.reason = reason
        self.comp_code = comp_code


class WarnedPut(MQError):
    """A put that succeeded with a warning: carries the MD to return."""

    def __init__(self, md: bytes, reason: int):
        super().__init__(reason, WARNING)
        self.md = md
