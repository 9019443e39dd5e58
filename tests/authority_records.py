"""Authority records for the authority tests (no tests in here): grant for the length of a
block, and the reason of a call the queue manager refuses."""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import ibmmq
import pytest
from ibmmq import CMQC


@contextlib.contextmanager
def granted(qm, objtype: str, authorities: str, profile: str | None = None,
            principal: str = "app") -> Iterator[None]:
    """SET AUTHREC ... AUTHADD for the block, AUTHRMV after it."""
    where = f"PROFILE('{profile}') " if profile else ""
    record = f"SET AUTHREC {where}PRINCIPAL('{principal}') OBJTYPE({objtype})"
    qm.run_mqsc(f"{record} AUTHADD({authorities})")
    try:
        yield
    finally:
        qm.run_mqsc(f"{record} AUTHRMV({authorities})")


def refused(call: Callable, *args) -> int:
    """The reason of `call(*args)`, which must fail (MQCC_FAILED)."""
    with pytest.raises(ibmmq.MQMIError) as exc:
        call(*args)
    assert exc.value.comp == CMQC.MQCC_FAILED
    return exc.value.reason
