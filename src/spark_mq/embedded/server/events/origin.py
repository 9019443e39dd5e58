"""Who a configuration or command event says caused it (IBM docs "Create object", "Command":
EventUserId, EventOrigin, EventQMgr and, for a command that came as a message, the context
of that message). Runs in the queue-manager process.

The command server sets the origin of the request it runs (`commands_from`) for the thread
that runs it; whatever changes an object with no origin set (the start-up scripts the
operator gives the process) is MQEVO_INTERNAL, by the queue manager's own user.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from spark_mq.embedded.server.core.pcf_structures import cfbs, cfin, cfst
from spark_mq.embedded.server.core.state import QueueManagerState, os_user
from spark_mq.mqi.constants import CMQC, CMQCFC

_NO_TOKEN = b"\0" * CMQC.MQ_ACCOUNTING_TOKEN_LENGTH


@dataclass(frozen=True)
class Origin:
    """EventUserId and EventOrigin (MQEVO_*); for a command message (MQEVO_MSG) its MQMD's
    AccountingToken, ApplIdentityData, PutApplType, PutApplName and ApplOriginData."""
    user: str
    origin: int = CMQCFC.MQEVO_INTERNAL
    accounting_token: bytes = _NO_TOKEN
    identity_data: str = ""
    appl_type: int = CMQC.MQAT_QMGR
    appl_name: str = ""
    appl_origin: str = ""


_current: ContextVar[Origin | None] = ContextVar("event_origin", default=None)


@contextmanager
def commands_from(origin: Origin) -> Iterator[None]:
    """The events of what runs inside are `origin`'s."""
    token = _current.set(origin)
    try:
        yield
    finally:
        _current.reset(token)


def current() -> Origin:
    return _current.get() or Origin(os_user())


def parameters(qm: QueueManagerState, origin: Origin) -> list[bytes]:
    """The origin and (for a message) context parameters, in IBM's order."""
    found = [cfst(CMQCFC.MQCACF_EVENT_USER_ID, origin.user, CMQC.MQ_USER_ID_LENGTH),
             cfin(CMQCFC.MQIACF_EVENT_ORIGIN, origin.origin),
             cfst(CMQCFC.MQCACF_EVENT_Q_MGR, qm.name, CMQC.MQ_Q_MGR_NAME_LENGTH)]
    if origin.origin != CMQCFC.MQEVO_MSG:
        return found     # IBM: context only for a command entered as a message
    return [*found,
            cfbs(CMQCFC.MQBACF_EVENT_ACCOUNTING_TOKEN, origin.accounting_token),
            cfst(CMQCFC.MQCACF_EVENT_APPL_IDENTITY, origin.identity_data,
                 CMQC.MQ_APPL_IDENTITY_DATA_LENGTH),
            cfin(CMQCFC.MQIACF_EVENT_APPL_TYPE, origin.appl_type),
            cfst(CMQCFC.MQCACF_EVENT_APPL_NAME, origin.appl_name, CMQC.MQ_APPL_NAME_LENGTH),
            cfst(CMQCFC.MQCACF_EVENT_APPL_ORIGIN, origin.appl_origin,
                 CMQC.MQ_APPL_ORIGIN_DATA_LENGTH)]
